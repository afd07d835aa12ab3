/* cudaconv: device-side pieces every convolution kernel shares: the filter
 * as a kernel parameter, sample loads and stores, and the cooperative load
 * of an input window into shared memory. */
#ifndef CUDACONV_DEVICE_CUH
#define CUDACONV_DEVICE_CUH

#include <cstdint>

#include "cudaconv-cuda.h"
#include "cudaconv-border.h"

/* A launch's filter goes by value as a kernel parameter. Parameters live
 * in a constant bank, so warps read the weights through the constant cache
 * as they would __constant__ data, yet each launch carries its own: any
 * number of filters per process and device, nothing to upload or to
 * synchronise when a filter changes, and kernels free to live in several
 * translation units. __grid_constant__ lets a kernel index them without a
 * copy to local memory. A kernel takes the taps of its radius only, so r1
 * passes 9 floats and r15's 961 stay within the 4 KB of parameters every
 * driver takes. */
template <int R, bool MAGNITUDE> struct Taps2D {
  static constexpr int SIDE = 2 * R + 1;
  /* two filters back to back for a gradient magnitude */
  static constexpr int COUNT = SIDE * SIDE * (MAGNITUDE ? 2 : 1);
  float w[COUNT];
};

template <int R> struct TapsSeparable {
  float col[2 * R + 1];
  float row[2 * R + 1];
};

static_assert (2 * (2 * CC_MAX_MAGNITUDE_RADIUS + 1)
            * (2 * CC_MAX_MAGNITUDE_RADIUS + 1)
        <= CC_MAX_TAPS,
    "both halves of a magnitude filter fit the taps of a CcFilter");

template <typename T> struct SampleTraits;
template <> struct SampleTraits<uint8_t> {
  static constexpr float max = 255.0f;
};
template <> struct SampleTraits<uint16_t> {
  static constexpr float max = 65535.0f;
};

/* max_pair and kept_pair hold the component's largest raw sample and the
 * bits a stored sample keeps (cc_component_max_raw, cc_component_kept_bits) in
 * both halves of a word, so that one min and one and limit two 16-bit
 * samples to a depth of 10 or 12 bits; limited says whether they do, so
 * that whole 16-bit samples skip them (a branch on a kernel argument, the
 * same for every thread). */
struct ComponentArgs {
  char *data;
  size_t pitch;
  int pixel_stride;
  int width, height;
  unsigned max_pair, kept_pair;
  bool limited;
};

/* two channels, the offset, the border and a grid's shape beside it */
static_assert (sizeof (Taps2D<CC_MAX_RADIUS, false>)
            + 2 * sizeof (ComponentArgs) + 32
        <= 4096,
    "the largest filter and the other kernel parameters fit 4 KB");

/* Two rounded 16-bit samples, saturated already to 16 bits, within the
 * component's depth */
__device__ __forceinline__ unsigned
limit_pair (unsigned two, const ComponentArgs &c)
{
  return c.limited ? __vminu2 (two, c.max_pair) & c.kept_pair : two;
}

/* Integer samples become floats through 2^23: with the bits of 2^23 in
 * the exponent, a sample v < 2^23 in the mantissa reads as 2^23 + v, and
 * subtracting 2^23 leaves v exactly. A logic op (or byte permute) and an
 * add, both full rate, where a conversion instruction runs at a quarter of
 * it. */
#define CC_TWO_POW_23_BITS 0x4B000000u
#define CC_TWO_POW_23 8388608.0f

/* bits: CC_TWO_POW_23_BITS with the sample in the low mantissa bits */
__device__ __forceinline__ float
biased_sample_to_float (unsigned bits)
{
  return __uint_as_float (bits) - CC_TWO_POW_23;
}

__device__ __forceinline__ float
sample_to_float (unsigned v)
{
  return biased_sample_to_float (CC_TWO_POW_23_BITS | v);
}

/* floor(v) saturated to the sample's range, in the low bits of the result,
 * for a v that already holds the + 0.5 of rounding to nearest: adding 2^23
 * rounding down drops the fraction exactly. Clamping before the floor gives
 * the same integer as after it, and NaN gives 0. */
template <typename T> __device__ __forceinline__ unsigned
round_biased_sample (float v)
{
  const float t = fminf (fmaxf (v, 0.0f), SampleTraits<T>::max);
  return __float_as_uint (__fadd_rd (t, CC_TWO_POW_23));
}

/* floor(v + 0.5) saturated to the sample's range, in the low bits */
template <typename T> __device__ __forceinline__ unsigned
round_sample (float v)
{
  return round_biased_sample<T> (v + 0.5f);
}

template <typename T> __device__ __forceinline__ float
load_sample (const ComponentArgs &c, int x, int y)
{
  const T *row = (const T *) (c.data + (size_t) y * c.pitch);
  return sample_to_float (__ldg (row + (size_t) x * c.pixel_stride));
}

/* Ghost cells resolve to a real sample or to 0 here, so no compute loop ever
 * tests a border. */
template <typename T> __device__ __forceinline__ float
load_bordered (const ComponentArgs &c, int x, int y, CcBorder border)
{
  int bx = cc_border_index (x, c.width, border);
  int by = cc_border_index (y, c.height, border);
  if (bx < 0 || by < 0)
    return 0.0f;
  return load_sample<T> (c, bx, by);
}

/* bits: a rounded sample in its low bits (round_sample) */
template <typename T> __device__ __forceinline__ void
store_rounded (const ComponentArgs &c, int x, int y, unsigned bits)
{
  T *row = (T *) (c.data + (size_t) y * c.pitch);
  if (sizeof (T) == 2)
    bits = limit_pair (bits, c);
  row[(size_t) x * c.pixel_stride] = (T) bits;
}

/* floor(v[q]) saturated to the sample's range, 4 samples packed as they are
 * stored: a float-to-int conversion per sample and saturating packs, in
 * place of a clamp, a rounding add and a byte permute per sample. */
__device__ __forceinline__ unsigned
pack_floor_saturated (uint8_t *, const float (&v)[4])
{
  const int s0 = __float2int_rd (v[0]), s1 = __float2int_rd (v[1]);
  const int s2 = __float2int_rd (v[2]), s3 = __float2int_rd (v[3]);
  unsigned high, all;
  /* d = c << 16 | sat(a) << 8 | sat(b) */
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(high) : "r"(s3), "r"(s2));
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;"
      : "=r"(all)
      : "r"(s1), "r"(s0), "r"(high));
  return all;
}

/* 8-bit channels have the whole byte */
__device__ __forceinline__ unsigned
pack_floor_saturated (uint8_t *, const float (&v)[4], const ComponentArgs &)
{
  return pack_floor_saturated ((uint8_t *) nullptr, v);
}

__device__ __forceinline__ uint2
pack_floor_saturated (uint16_t *, const float (&v)[4], const ComponentArgs &dst)
{
  const int s0 = __float2int_rd (v[0]), s1 = __float2int_rd (v[1]);
  const int s2 = __float2int_rd (v[2]), s3 = __float2int_rd (v[3]);
  uint2 out;
  /* d = sat(a) << 16 | sat(b) */
  asm("cvt.pack.sat.u16.s32 %0, %1, %2;" : "=r"(out.x) : "r"(s1), "r"(s0));
  asm("cvt.pack.sat.u16.s32 %0, %1, %2;" : "=r"(out.y) : "r"(s3), "r"(s2));
  out.x = limit_pair (out.x, dst);
  out.y = limit_pair (out.y, dst);
  return out;
}

template <typename T> __device__ __forceinline__ void
store_sample (const ComponentArgs &c, int x, int y, float v)
{
  store_rounded<T> (c, x, y, round_sample<T> (v));
}

/* Every thread of the block stores the ROWS outputs of one column; outputs
 * past the plane's right or bottom edge are dropped. */
template <typename T, int ROWS> __device__ __forceinline__ void
store_column (const ComponentArgs &dst, int x, int y, const float (&v)[ROWS],
    float offset)
{
  if (x >= dst.width)
    return;
#pragma unroll
  for (int k = 0; k < ROWS; k++)
    if (y + k < dst.height)
      store_sample<T> (dst, x, y + k, v[k] + offset);
}

/* Four consecutive samples: the unit in which windows move from global to
 * shared memory, one 32-bit word of 8-bit samples or two of 16-bit ones. */
template <typename T> struct Quad;
template <> struct Quad<uint8_t> {
  typedef unsigned type;
};
template <> struct Quad<uint16_t> {
  typedef uint2 type;
};

/* Whether the component's samples can move as aligned VecT vectors: one
 * sample per pixel, and its start and pitch multiples of the vector's
 * size. */
template <typename VecT> __host__ __device__ __forceinline__ bool
moves_as_vectors (const ComponentArgs &c)
{
  return c.pixel_stride == 1
      && ((reinterpret_cast<uintptr_t> (c.data) | c.pitch) % sizeof (VecT))
      == 0;
}

template <typename T> __host__ __device__ __forceinline__ bool
moves_as_quads (const ComponentArgs &c)
{
  return moves_as_vectors<typename Quad<T>::type> (c);
}

/* A byte permute puts each sample's bytes under the exponent of 2^23, an
 * add removes it: two full-rate instructions per sample. Sample k of a
 * 32-bit word (k < 4 for 8-bit samples, k < 2 for 16-bit). */
__device__ __forceinline__ float
word_sample (uint8_t *, unsigned w, int k)
{
  return biased_sample_to_float (
      __byte_perm (w, CC_TWO_POW_23_BITS, 0x7540 + k));
}

__device__ __forceinline__ float
word_sample (uint16_t *, unsigned w, int k)
{
  return biased_sample_to_float (
      __byte_perm (w, CC_TWO_POW_23_BITS, k ? 0x7532 : 0x7510));
}

__device__ __forceinline__ float4
quad_to_float4 (unsigned w)
{
  return make_float4 (word_sample ((uint8_t *) nullptr, w, 0),
      word_sample ((uint8_t *) nullptr, w, 1),
      word_sample ((uint8_t *) nullptr, w, 2),
      word_sample ((uint8_t *) nullptr, w, 3));
}

__device__ __forceinline__ float4
quad_to_float4 (uint2 w)
{
  return make_float4 (word_sample ((uint16_t *) nullptr, w.x, 0),
      word_sample ((uint16_t *) nullptr, w.x, 1),
      word_sample ((uint16_t *) nullptr, w.y, 0),
      word_sample ((uint16_t *) nullptr, w.y, 1));
}

/* Threads an SM holds on the GPU this pass compiles for (the table of
 * compute capabilities in the CUDA C++ Programming Guide: 7.5 1024; 8.6,
 * 8.7, 8.9 and 12.x 1536; the others 2048). */
constexpr int
sm_max_threads ()
{
#if !defined(__CUDA_ARCH__)
  return 2048;
#elif __CUDA_ARCH__ == 750
  return 1024;
#elif __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 \
    || __CUDA_ARCH__ >= 1200
  return 1536;
#else
  return 2048;
#endif
}

/* Blocks an SM holds on the GPU this pass compiles for (the same table:
 * 7.5, 8.6 and 8.7 16; 8.9 and 12.x 24; the others 32). */
constexpr int
sm_max_blocks ()
{
#if !defined(__CUDA_ARCH__)
  return 32;
#elif __CUDA_ARCH__ == 750 || __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870
  return 16;
#elif __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200
  return 24;
#else
  return 32;
#endif
}

/* The minimum blocks per SM for __launch_bounds__: wanted where that many
 * blocks of threads fit an SM, else 0 (no minimum). ptxas ignores a
 * minimum that cannot fit, with a warning per kernel: 86 lines on Turing,
 * where 5 blocks of 256 threads ask for more than its 1024, and 10 for 20
 * one-warp blocks, more than its 16 blocks. */
constexpr int
blocks_that_fit (int threads, int wanted)
{
  return wanted * threads <= sm_max_threads () && wanted <= sm_max_blocks () ?
      wanted :
      0;
}

/* A one-dimensional grid of tiles: block t takes column t % columns of row
 * t / columns, so blocks launched together work on neighbouring tiles and
 * share their halos through L2, and no plane is too tall for the grid. */
struct TileGrid {
  int columns;
  int count;
};

__device__ __forceinline__ int
tile_x0 (const TileGrid &g, int t, int tile_w)
{
  return (t % g.columns) * tile_w;
}

__device__ __forceinline__ int
tile_y0 (const TileGrid &g, int t, int tile_h)
{
  return (t / g.columns) * tile_h;
}

/* Moves a W x H input window, ghost cells resolved, into shared memory in
 * two steps, so that all of a thread's global loads are in flight before the
 * first one is waited for:
 *  - load() issues every load of the window at once, one quad (4 samples)
 *    per register, for the quads that lie inside the plane of a quad-aligned
 *    plane with one sample per pixel;
 *  - store() converts the quads to floats and writes each as one 16-byte
 *    store; consecutive threads write consecutive quads, so the stores are
 *    free of bank conflicts. Quads that load() left (the plane's rim, other
 *    layouts) are read sample by sample here, with their borders resolved.
 *    store_to() does the same into another sink (a quad's window row and
 *    quad column, what to write there is the sink's).
 * The window starts LEAD columns left of x0, where the quads are aligned:
 * window column c is at shared column LEAD + c of rows PITCH floats apart. */
template <typename T, int W, int H, int LEAD, int PITCH, int THREADS>
struct WindowStage {
  static constexpr int QUADS_X = (LEAD + W + 3) / 4;
  static constexpr int QUADS = QUADS_X * H;
  static constexpr int PER_THREAD = (QUADS + THREADS - 1) / THREADS;
  static_assert (PITCH % 4 == 0 && PITCH >= 4 * QUADS_X,
      "rows hold whole, 16-byte aligned quads");
  static_assert (PER_THREAD <= 32, "one bit per staged quad");
  typedef typename Quad<T>::type QuadT;

  QuadT quad[PER_THREAD];
  unsigned staged; /* bit n: quad[n] holds its samples */

  __device__ __forceinline__ void load (const ComponentArgs &src, int x0,
      int y0)
  {
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const bool quads = moves_as_quads<T> (src);
    staged = 0;
#pragma unroll
    for (int n = 0; n < PER_THREAD; n++) {
      const int k = tid + n * THREADS;
      const int row = k / QUADS_X;
      const int gx = x0 - LEAD + 4 * (k - row * QUADS_X), gy = y0 + row;
      if (k < QUADS && quads && gx >= 0 && gx + 4 <= src.width && gy >= 0
          && gy < src.height) {
        quad[n] = __ldg (reinterpret_cast<const QuadT *> (
            src.data + (size_t) gy * src.pitch + (size_t) gx * sizeof (T)));
        staged |= 1u << n;
      }
    }
  }

  template <typename Sink>
  __device__ __forceinline__ void store_to (const Sink &sink,
      const ComponentArgs &src, int x0, int y0, CcBorder border) const
  {
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
#pragma unroll
    for (int n = 0; n < PER_THREAD; n++) {
      const int k = tid + n * THREADS;
      if (k >= QUADS)
        break;
      const int row = k / QUADS_X, col = k - row * QUADS_X;
      if (staged & (1u << n)) {
        sink.quad (row, col, quad[n]);
      } else {
        const int gx = x0 - LEAD + 4 * col, gy = y0 + row;
        sink.samples (row, col,
            make_float4 (load_bordered<T> (src, gx, gy, border),
                load_bordered<T> (src, gx + 1, gy, border),
                load_bordered<T> (src, gx + 2, gy, border),
                load_bordered<T> (src, gx + 3, gy, border)));
      }
    }
  }

  /* the window as floats, row r at smem + r * PITCH */
  struct FloatSink {
    float *smem;
    __device__ __forceinline__ void samples (int row, int col, float4 v) const
    {
      *reinterpret_cast<float4 *> (smem + row * PITCH + 4 * col) = v;
    }
    __device__ __forceinline__ void quad (int row, int col, QuadT q) const
    {
      samples (row, col, quad_to_float4 (q));
    }
  };

  __device__ __forceinline__ void store (float *smem, const ComponentArgs &src,
      int x0, int y0, CcBorder border) const
  {
    store_to (FloatSink{ smem }, src, x0, y0, border);
  }

  /* load() then store(): the whole window, its loads all in flight */
  __device__ __forceinline__ void fill (float *smem, const ComponentArgs &src,
      int x0, int y0, CcBorder border)
  {
    load (src, x0, y0);
    store (smem, src, x0, y0, border);
  }
};

/* The columns a window that starts R left of a multiple of 4 reaches back
 * to its quad boundary. */
template <int R> constexpr int
quad_lead ()
{
  return (R + 3) / 4 * 4 - R;
}

constexpr int
round_up4 (int n)
{
  return (n + 3) / 4 * 4;
}

/* The 64 x 64 tile kernels' block shape (tiled-halo, cache-halo and the
 * separable tiles): 64 x 4 threads, each computing a run of RUN outputs in
 * registers. One input sample feeds up to 2r+1 outputs of a run: per
 * filter row (or column) a thread loads RUN + 2r samples and does
 * RUN * (2r+1) multiply-adds (240 against 30 samples at r = 7), which keeps
 * the FMA units rather than shared memory the limit. The 2D kernels run
 * along a row (threadIdx.x is the row, threadIdx.y the group of RUN
 * columns); the separable kernel's column pass runs down a column. */
struct Tile64 {
  static constexpr int THREADS_X = 64;
  static constexpr int THREADS_Y = 4;
  static constexpr int THREADS = THREADS_X * THREADS_Y;
  static constexpr int RUN = 16;
  static constexpr int TILE_W = THREADS_X;
  static constexpr int TILE_H = THREADS_Y * RUN;
};

/* The filter's (2r+1)^2 weights into registers, and for a gradient
 * magnitude the second filter's into wb, for kernels that keep the whole
 * filter there (small radii). */
template <int SIDE, bool MAGNITUDE> __device__ __forceinline__ void
load_weights (const float *taps, float (&w)[SIDE * SIDE],
    float (&wb)[MAGNITUDE ? SIDE * SIDE : 1])
{
#pragma unroll
  for (int k = 0; k < SIDE * SIDE; k++) {
    w[k] = taps[k];
    if (MAGNITUDE)
      wb[k] = taps[SIDE * SIDE + k];
  }
}

template <int ROWS, bool MAGNITUDE> __device__ __forceinline__ void
finish_magnitude (float (&a)[ROWS], const float (&b)[ROWS])
{
  if (MAGNITUDE) {
#pragma unroll
    for (int k = 0; k < ROWS; k++)
      a[k] = sqrtf (a[k] * a[k] + b[k] * b[k]);
  }
}

/* The wide shapes' exact scaling (box, blocks): floor(s * scale + offset +
 * 0.5) saturated to [0, max_value], each operation rounded on its own as
 * the contract's formula is (no contraction into a fused multiply-add), on
 * a sum s of values; clamped first, the truncation is the floor, and NaN
 * gives 0. */
__device__ __forceinline__ unsigned
scale_exact (unsigned s, double scale, double offset, unsigned max_value)
{
  const double v = __dadd_rn (__dadd_rn (__dmul_rn ((double) s, scale),
                                  offset),
      0.5);
  /* the clamps as integer selects, the conversion truncating what lies
   * between them */
  return v > 0.0 ? (v < (double) max_value ? __double2uint_rz (v) : max_value) :
                   0u;
}

/* The sum of value over the lanes before this one in the warp (an
 * exclusive scan); every lane calls it */
__device__ __forceinline__ unsigned
warp_exclusive_sum (unsigned value, int lane)
{
  unsigned sum = value;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const unsigned up = __shfl_up_sync (0xffffffffu, sum, d);
    if (lane >= d)
      sum += up;
  }
  return sum - value;
}

/* A value (at most the component's largest) stored as a raw sample */
template <typename T> __device__ __forceinline__ void
store_value (const ComponentArgs &c, int x, int y, unsigned value, int shift)
{
  T *row = (T *) (c.data + (size_t) y * c.pitch);
  row[(size_t) x * c.pixel_stride] = (T) (value << shift);
}

/* The value of a sample: its raw bits above the padding */
template <typename T> __device__ __forceinline__ unsigned
load_value (const ComponentArgs &c, int x, int y, int shift)
{
  const T *row = (const T *) (c.data + (size_t) y * c.pitch);
  return (unsigned) __ldg (row + (size_t) x * c.pixel_stride) >> shift;
}

#endif /* CUDACONV_DEVICE_CUH */

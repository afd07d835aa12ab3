/* cudaconv: device-side pieces every convolution kernel shares: the filter
 * slots in __constant__ memory, sample loads and stores, and the cooperative
 * load of an input window into shared memory.
 *
 * Included by cudaconv-cuda.cu only: __constant__ data is per translation
 * unit, so every kernel that reads c_filters must live in that one unit. */
#ifndef CUDACONV_DEVICE_CUH
#define CUDACONV_DEVICE_CUH

#include <cstdint>

#include "cudaconv-cuda.h"
#include "cudaconv-border.h"

/* One slot: the (2r+1)^2 taps (two filters for a gradient magnitude), then
 * the column and row factors of a separable filter. 16 slots of 1023 floats
 * take 65,472 of the 65,536 bytes of the constant bank. */
#define CC_SLOT_COL_TAPS CC_MAX_TAPS
#define CC_SLOT_ROW_TAPS (CC_MAX_TAPS + CC_MAX_SIDE)
#define CC_SLOT_FLOATS (CC_MAX_TAPS + 2 * CC_MAX_SIDE)

static_assert (CC_CUDA_FILTER_SLOTS * CC_SLOT_FLOATS * sizeof (float) <=
    65536, "the filter slots must fit the 64 KB constant bank");
static_assert (2 * (2 * CC_MAX_MAGNITUDE_RADIUS + 1) *
    (2 * CC_MAX_MAGNITUDE_RADIUS + 1) <= CC_MAX_TAPS,
    "both halves of a magnitude filter fit one slot");

__constant__ float c_filters[CC_CUDA_FILTER_SLOTS][CC_SLOT_FLOATS];

template < typename T > struct SampleTraits;
template <> struct SampleTraits <uint8_t> {
  static constexpr float max = 255.0f;
};
template <> struct SampleTraits <uint16_t> {
  static constexpr float max = 65535.0f;
};

struct ChannelArgs {
  char *data;
  size_t pitch;
  int pixel_stride;
  int width, height;
};

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

/* floor(v + 0.5) saturated to the sample's range, in the low bits of the
 * result: adding 2^23 rounding down drops the fraction exactly. Clamping
 * before the floor gives the same integer as after it, and NaN gives 0. */
template < typename T > __device__ __forceinline__ unsigned
round_sample (float v)
{
  const float t = fminf (fmaxf (v + 0.5f, 0.0f), SampleTraits < T >::max);
  return __float_as_uint (__fadd_rd (t, CC_TWO_POW_23));
}

template < typename T > __device__ __forceinline__ float
load_sample (const ChannelArgs & c, int x, int y)
{
  const T *row = (const T *) (c.data + (size_t) y * c.pitch);
  return sample_to_float (__ldg (row + (size_t) x * c.pixel_stride));
}

/* Ghost cells resolve to a real sample or to 0 here, so no compute loop ever
 * tests a border. */
template < typename T > __device__ __forceinline__ float
load_bordered (const ChannelArgs & c, int x, int y, CcBorder border)
{
  int bx = cc_border_index (x, c.width, border);
  int by = cc_border_index (y, c.height, border);
  if (bx < 0 || by < 0)
    return 0.0f;
  return load_sample < T > (c, bx, by);
}

template < typename T > __device__ __forceinline__ void
store_sample (const ChannelArgs & c, int x, int y, float v)
{
  T *row = (T *) (c.data + (size_t) y * c.pitch);
  row[(size_t) x * c.pixel_stride] = (T) round_sample < T > (v);
}

/* Every thread of the block stores the ROWS outputs of one column; outputs
 * past the plane's right or bottom edge are dropped. */
template < typename T, int ROWS > __device__ __forceinline__ void
store_column (const ChannelArgs & dst, int x, int y, const float (&v)[ROWS],
    float offset)
{
  if (x >= dst.width)
    return;
#pragma unroll
  for (int k = 0; k < ROWS; k++)
    if (y + k < dst.height)
      store_sample < T > (dst, x, y + k, v[k] + offset);
}

/* Sample e of a 16-byte chunk as a float; e is a compile-time constant
 * after unrolling, so this is one byte permute that puts the sample's bytes
 * under the exponent of 2^23, and one add. */
template < typename T > __device__ __forceinline__ float
chunk_sample (const uint4 & v, int e)
{
  constexpr int PER_WORD = sizeof (unsigned) / sizeof (T);
  const int word_index = e / PER_WORD, in_word = e % PER_WORD;
  const unsigned word = word_index == 0 ? v.x : word_index == 1 ? v.y :
      word_index == 2 ? v.z : v.w;
  const unsigned selector = sizeof (T) == 1 ? 0x7540u | in_word :
      0x7500u | (2 * in_word) | ((2 * in_word + 1) << 4);
  return biased_sample_to_float (__byte_perm (word, CC_TWO_POW_23_BITS,
          selector));
}

/* Loads the W x H window whose top-left sample is (x0, y0) into shared
 * memory with row pitch PITCH floats, ghost cells resolved. W and H are
 * compile-time so that flat indices split by a multiply.
 *
 * Windows inside the plane (all but the blocks on the plane's rim) of
 * 16-byte aligned planes with one sample per pixel are read as aligned
 * 16-byte chunks: a thread has one or two loads in flight for the whole
 * window instead of a dozen single samples one after another, which is what
 * bounds small filters. The rest resolve every sample's border. */
template < typename T, int W, int H, int PITCH, int THREADS >
__device__ __forceinline__ void
load_window (float *smem, const ChannelArgs & src, int x0, int y0,
    CcBorder border)
{
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const bool inside = x0 >= 0 && y0 >= 0 && x0 + W <= src.width
      && y0 + H <= src.height;
  const bool aligned = src.pixel_stride == 1
      && ((reinterpret_cast < uintptr_t > (src.data) | src.pitch) & 15) == 0;

  if (inside && aligned) {
    constexpr int C = 16 / sizeof (T);  /* samples per chunk */
    constexpr int CHUNKS = (W + 2 * (C - 1)) / C;       /* per row, at most */
    const int ax = x0 & ~(C - 1);
    for (int k = tid; k < CHUNKS * H; k += THREADS) {
      const int ty = k / CHUNKS, cx = ax + (k - ty * CHUNKS) * C;
      if (cx >= x0 + W)
        continue;
      const uint4 v = __ldg (reinterpret_cast < const uint4 *>(src.data +
              (size_t) (y0 + ty) * src.pitch + (size_t) cx * sizeof (T)));
      float *row = smem + ty * PITCH - x0;
#pragma unroll
      for (int e = 0; e < C; e++)
        if (cx + e >= x0 && cx + e < x0 + W)
          row[cx + e] = chunk_sample < T > (v, e);
    }
  } else if (inside) {
    for (int k = tid; k < W * H; k += THREADS) {
      const int ty = k / W, tx = k - ty * W;
      smem[ty * PITCH + tx] = load_sample < T > (src, x0 + tx, y0 + ty);
    }
  } else {
    for (int k = tid; k < W * H; k += THREADS) {
      const int ty = k / W, tx = k - ty * W;
      smem[ty * PITCH + tx] = load_bordered < T > (src, x0 + tx, y0 + ty,
          border);
    }
  }
}

/* The 2D strategies' block shape: 64 x 4 threads, each computing ROWS
 * outputs down one column, so a block covers a 64 x 64 output tile. Down a
 * column, one input sample feeds up to 2r+1 outputs held in registers: per
 * filter column j a thread loads ROWS + 2r samples and does ROWS * (2r+1)
 * multiply-adds (240 against 30 loads at r = 7), which keeps the FMA units
 * rather than shared memory the limit. */
#define NS_THREADS_X 64
#define NS_THREADS_Y 4
#define NS_THREADS (NS_THREADS_X * NS_THREADS_Y)
#define NS_ROWS 16
#define NS_TILE_W NS_THREADS_X
#define NS_TILE_H (NS_THREADS_Y * NS_ROWS)

/* a[k] += sum_i wa[i][j] * win[k + i] (and b with wb for a gradient
 * magnitude): filter column j applied to a window of one input column. The
 * weights are read from constant memory once per column and reused by all
 * ROWS outputs. */
template < int R, int ROWS, bool MAGNITUDE > __device__ __forceinline__ void
accumulate_column (int slot, int j, const float (&win)[ROWS + 2 * R],
    float (&a)[ROWS], float (&b)[ROWS])
{
  constexpr int SIDE = 2 * R + 1;
  const float *wa = c_filters[slot];
#pragma unroll
  for (int i = 0; i < SIDE; i++) {
    const float w = wa[i * SIDE + j];
#pragma unroll
    for (int k = 0; k < ROWS; k++)
      a[k] = fmaf (w, win[k + i], a[k]);
    if (MAGNITUDE) {
      const float wb = wa[SIDE * SIDE + i * SIDE + j];
#pragma unroll
      for (int k = 0; k < ROWS; k++)
        b[k] = fmaf (wb, win[k + i], b[k]);
    }
  }
}

template < int ROWS, bool MAGNITUDE > __device__ __forceinline__ void
finish_magnitude (float (&a)[ROWS], const float (&b)[ROWS])
{
  if (MAGNITUDE) {
#pragma unroll
    for (int k = 0; k < ROWS; k++)
      a[k] = sqrtf (a[k] * a[k] + b[k] * b[k]);
  }
}

#endif /* CUDACONV_DEVICE_CUH */

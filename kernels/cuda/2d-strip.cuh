/* cudaconv: small windows (r <= STRIP_2D_MAX_RADIUS) on planes whose rows move
 * as aligned vectors, for both 2D strategies. At these radii a convolution
 * costs a few multiply-adds per sample, and the instructions around them
 * (moving samples in, converting, rounding, storing) and how well the loads
 * overlap the arithmetic decide the speed.
 *
 * Each warp walks down a strip Strip2D::LANES * V columns wide and a few rows
 * tall (strip_rows_per_warp); each lane owns V neighbouring samples of a
 * row, 8 or 4 (StripShape), in one vector load.
 * Per input row a lane converts its samples once and adds them to the 2r+1
 * output rows they touch, whose sums wait in registers; a finished row
 * leaves as one vector store. The strip's rows are unrolled whole, so every
 * register index is a constant and the rows above and below the strip cost
 * only their loads and conversions; loads run a few rows ahead of use
 * (Strip2D::ahead). 8-bit samples of linear filters become floats as subnormal
 * halves (strip_sample()), against weights scaled to match.
 * There is no block-wide staging and no __syncthreads.
 *
 * A whole 3840x2160 plane takes a few microseconds, and between two such
 * kernels the GPU idled about a microsecond more (the launch, then blocks
 * ramping onto the SMs and draining off them). The kernels are launched to
 * start before the one ahead of them on the stream ends
 * (dependent-launch.cuh): their blocks wait on the SMs for it, and
 * with CC_LAUNCH_SRC_READY they load and add up their first rows
 * meanwhile and wait only before their first store.
 *
 * The two strategies differ in where a lane finds its neighbours' samples
 * and the halo, the samples just left and right of the warp's columns,
 * which lanes 0 and 31 load:
 *   tiled-halo (PMPP 7.4): the row, halo included, passes through shared
 *     memory, and every lane reads its left and right words there;
 *   cache-halo (PMPP 7.5): the row stays in registers and moves between
 *     lanes by shuffles; the halo goes from L1/L2 straight into lanes 0 and
 *     31's registers and never reaches shared memory.
 *
 * Ghost cells: a warp's strip lies inside the plane (the last strip of a
 * column moves up to end at the plane's last row), so only the R window
 * rows above it and the R below it may be ghost rows; their pointers move
 * to the rows that stand in for them (StripGhosts). The columns outside
 * the plane concern only the lanes at its sides: as planes take this
 * kernel only in whole vectors, the word beyond a side lane is one byte
 * permute of its own samples (clamp, mirror), zero, or (wrap) the word at
 * the row's other end, which the halo loads and the lanes past the right
 * side bring as any other word from beyond.
 *
 * One copy of that code serves every warp. The warps of a 2160-row plane
 * all run at once (one wave), so the slowest sets the kernel's time; a
 * second, ghost-free copy for the inner warps made the others spill and
 * end later (docs/kernels.md). */
#ifndef CUDACONV_2D_STRIP_CUH
#define CUDACONV_2D_STRIP_CUH

#include "device.cuh"
#include "dependent-launch.cuh"
#include "radii.cuh"

/* The family's tuning. */
struct Strip2D {
  static constexpr int LANES = 32;
  static constexpr int WARPS = 4;
  /* input rows whose loads are issued ahead of the one being added up,
   * each measured best (docs/kernels.md) */
  template <typename T, int R, bool SCALED>
  __host__ __device__ static constexpr int ahead ()
  {
    return SCALED ? 3 : sizeof (T) == 1 && R <= 1 ? 5 : 4;
  }
  /* The linear 8-bit kernels with 8 samples per lane widen samples as
   * subnormal halves (strip_sample()), x 2^-24, and take their weights
   * scaled by 2^24 (the launch passes them so). */
  static constexpr int SCALED_TAPS = (2 * STRIP_2D_MAX_RADIUS + 1)
      * (2 * STRIP_2D_MAX_RADIUS + 1);
  static constexpr float WEIGHT_SCALE = 16777216.0f; /* 2^24 */
};

template <typename T, bool MAGNITUDE, int V> __host__ __device__ constexpr bool
strip_scaled_weights ()
{
  return sizeof (T) == 1 && !MAGNITUDE && V == 8;
}

template <int NW> struct Words;
template <> struct Words<1> {
  typedef unsigned type;
};
template <> struct Words<2> {
  typedef uint2 type;
};
template <> struct Words<4> {
  typedef uint4 type;
};

/* What a lane holds of a row: SAMPLES neighbouring samples, 8 for a linear
 * filter on a plane in whole 8-sample vectors, else 4: a magnitude keeps
 * two sums per output, and some planes (8-bit rows 4 samples past a
 * multiple of 8, 16-bit ones 8 bytes past a multiple of 16) come in whole
 * quads only. */
template <typename T, int SAMPLES> struct StripShape {
  static constexpr int V = SAMPLES;              /* samples per lane */
  static constexpr int S = 4 / (int) sizeof (T); /* samples per word */
  static constexpr int NW = V / S;               /* words per lane */
  static constexpr int TILE_W = Strip2D::LANES * V;
  typedef typename Words<NW>::type VecT;
};

template <typename VecT> __device__ __forceinline__ unsigned
vec_word (const VecT &v, int k)
{
  return reinterpret_cast<const unsigned *> (&v)[k];
}

/* V floats, packed as they are stored */
template <typename T, int V> __device__ __forceinline__
    typename StripShape<T, V>::VecT
    pack_lane (const float (&v)[V], const ComponentArgs &dst)
{
  typedef StripShape<T, V> L;
  typename L::VecT out;
  unsigned *w = reinterpret_cast<unsigned *> (&out);
#pragma unroll
  for (int k = 0; k < L::V / 4; k++) {
    const float q[4] = { v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3] };
    const auto packed = pack_floor_saturated ((T *) nullptr, q, dst);
    const unsigned *p = reinterpret_cast<const unsigned *> (&packed);
#pragma unroll
    for (int n = 0; n < (int) sizeof (packed) / 4; n++)
      w[k * (int) sizeof (packed) / 4 + n] = p[n];
  }
  return out;
}

/* The R rows above a strip and the R below it, the only ones of its
 * window that may lie outside the plane (the strip itself lies inside, and
 * strip_fits() wants R rows more, so only the first strip meets rows above
 * the plane): how many rows down a row's pointer moves to the plane row
 * that stands in for it, 0 for a row inside the plane. A row of zeros
 * moves to row 0, which is loaded and dropped. Per plane, the ghost rows'
 * moves are a few selects on the border; with each row's address resolved
 * where it was loaded, ptxas computed them all up front and spilled at
 * r2. */
template <int R> struct StripGhosts {
  int above[R > 0 ? R : 1], below[R > 0 ? R : 1];

  /* row y = k - R, above the plane */
  __device__ __forceinline__ static int above_shift (int k, int height,
      CcBorder border)
  {
    const int y = k - R;
    const int by = border == CC_BORDER_CLAMP ? 0 :
        border == CC_BORDER_MIRROR ? -y :       /* reflect-101 */
        border == CC_BORDER_WRAP ? y + height : 0;
    return by - y;
  }

  /* row y = height + j, below the plane */
  __device__ __forceinline__ static int below_shift (int j, int height,
      CcBorder border)
  {
    const int by = border == CC_BORDER_CLAMP ? height - 1 :
        border == CC_BORDER_MIRROR           ? height - 2 - j :
        border == CC_BORDER_WRAP             ? j :
                                               0;
    return by - (height + j);
  }

  __device__ __forceinline__ void init (int y0, int rows, int height,
      CcBorder border)
  {
#pragma unroll
    for (int k = 0; k < R; k++) {
      above[k] = y0 == 0 ? above_shift (k, height, border) : 0;
      const int y = y0 + rows + k;
      below[k] = 0;
#pragma unroll
      for (int j = 0; j < R; j++)
        below[k] = y == height + j ? below_shift (j, height, border) : below[k];
    }
  }
};

/* What a lane loads of one input row: its own samples, and for lanes 0 and
 * 31 the word beyond the warp's side (with wrap, for the lanes that load it,
 * the word beyond the plane's). */
template <typename VecT> struct StripRow {
  VecT own;
  unsigned halo;
};

/* Byte permutes that make the word beyond a side lane's outer sample from
 * its own samples, for clamp and mirror (reflect-101): at most
 * STRIP_2D_MAX_RADIUS ghost columns, all copies of the lane's first or last 3
 * samples. The left word's samples end at column -1, the right word's start
 * at the plane's width; the pool is (word 0, word 1) on the left and (word
 * NW-2, word NW-1) on the right, the same word twice where a lane has one.
 * Only the bytes of the ghost columns matter. */
__host__ __device__ constexpr unsigned
left_ghost_selector (int sample_bytes, CcBorder border)
{
  return border == CC_BORDER_MIRROR ? (sample_bytes == 1 ? 0x1200u : 0x3254u) :
                                      (sample_bytes == 1 ? 0x0000u : 0x1010u);
}

__host__ __device__ constexpr unsigned
right_ghost_selector (int sample_bytes, CcBorder border)
{
  return border == CC_BORDER_MIRROR ? (sample_bytes == 1 ? 0x7756u : 0x3254u) :
                                      (sample_bytes == 1 ? 0x7777u : 0x7676u);
}

/* Where a lane's loads go, fixed for the whole strip. */
template <typename T, int V> struct StripLane {
  typedef StripShape<T, V> L;
  typedef typename L::VecT VecT;
  bool active; /* its samples are inside the plane (all) */
  /* the word beyond its first / last sample comes from its own samples
   * (clamp, mirror) or is zero: it holds the plane's first / last sample */
  bool left_fix, right_fix;
  size_t own_offset;    /* bytes into a row */
  ptrdiff_t halo_delta; /* from own_offset to the halo word */
  bool halo_load;       /* lane 0 or 31 loads a word beyond the
                         * warp's side, or (wrap) the plane's */

  __device__ __forceinline__ void init (const ComponentArgs &src, int x0,
      int lane, int radius, CcBorder border)
  {
    const int x = x0 + L::V * lane;
    const bool wrap = border == CC_BORDER_WRAP;
    active = x < src.width;
    left_fix = !wrap && x == 0;
    right_fix = !wrap && x + L::V == src.width;
    /* Lanes past the right side load too, so that no load needs a
     * predicate: with wrap the first of them takes the row's first vector,
     * whose first word its left neighbour, the side lane, takes as the word
     * beyond the plane (as it takes any right neighbour's); the others
     * take the row's last vector, unused. */
    const int own_x = active   ? x :
        wrap && x == src.width ? 0 :
                                 src.width - L::V;
    own_offset = (size_t) own_x * sizeof (T);
    /* wrap: the words beyond the plane's sides are at its other side; when
     * a lane spans the whole row, they are its own words, which the same
     * loads fetch */
    int hx = -1;
    if (lane == 0)
      hx = x > 0 ? x - L::S : wrap ? src.width - L::S : -1;
    else if (lane == Strip2D::LANES - 1 && active)
      hx = x + L::V < src.width ? x + L::V : wrap ? 0 : -1;
    halo_load = radius > 0 && hx >= 0;
    halo_delta = halo_load ?
        (ptrdiff_t) hx * (ptrdiff_t) sizeof (T) - (ptrdiff_t) own_offset :
        0;
  }

  /* the row whose lane samples start at p */
  __device__ __forceinline__ void fetch (const char *p,
      StripRow<VecT> &row) const
  {
    row.own = __ldg (reinterpret_cast<const VecT *> (p));
    row.halo = 0;
    if (halo_load)
      row.halo = __ldg (reinterpret_cast<const unsigned *> (p + halo_delta));
  }
};

/* 4-warp blocks, with the register budget that keeps 7 of them on an SM,
 * else 5 (16-bit r2, magnitudes), where fewer registers spilled */
template <typename T, int R, bool MAGNITUDE> __host__ __device__ constexpr int
strip_wanted_blocks ()
{
  return MAGNITUDE || (sizeof (T) == 2 && R == 2) ? 5 : 7;
}

template <typename T, int R, bool MAGNITUDE> constexpr int
strip_blocks_per_sm ()
{
  return blocks_that_fit (Strip2D::LANES * Strip2D::WARPS,
      strip_wanted_blocks<T, R, MAGNITUDE> ());
}

/* Rows per warp: 9 (13 for magnitudes), the fewest that put a 2160-row
 * plane's blocks on an H100 (132 SMs) in one wave at 7 blocks per SM (900
 * blocks); fewer blocks left SMs idle. 16-bit planes and magnitudes at r2
 * keep 6 rows, measured best for them (docs/kernels.md). */
template <typename T, int R, bool MAGNITUDE> __host__ __device__ constexpr int
strip_rows_per_warp ()
{
  return R == 2 && (sizeof (T) == 2 || MAGNITUDE)  ? 6 :
      strip_wanted_blocks<T, R, MAGNITUDE> () >= 7 ? 9 :
                                                     13;
}

/* Whether the strip kernel can take the component: one sample per pixel, its
 * start and pitch multiples of a lane's vector, whole vectors across (so
 * that a lane holds all of its samples or none, and the ghost columns at
 * the plane's sides come from the side lanes' own samples), and R rows
 * more than a strip down (StripGhosts). */
template <typename T, int R, bool MAGNITUDE, int V>
__host__ __device__ __forceinline__ bool
strip_fits (const ComponentArgs &c)
{
  typedef StripShape<T, V> L;
  return moves_as_vectors<typename L::VecT> (c) && c.width % L::V == 0
      && c.height >= strip_rows_per_warp<T, R, MAGNITUDE> () + R;
}

/* Blocks across and down, Strip2D::WARPS strips above each other per block;
 * blocks are numbered along the rows first, so that the blocks launched
 * together read neighbouring rows. */
template <typename T, int R, bool MAGNITUDE, int V> __host__ dim3
strip_grid (int width, int height)
{
  typedef StripShape<T, V> L;
  constexpr int BLOCK_ROWS = Strip2D::WARPS
      * strip_rows_per_warp<T, R, MAGNITUDE> ();
  return dim3 ((width + L::TILE_W - 1) / L::TILE_W,
      (height + BLOCK_ROWS - 1) / BLOCK_ROWS);
}

/* Sample k of word w as a float. With SCALED (8-bit samples), x 2^-24:
 * the byte becomes the mantissa of a subnormal half, whose value is x
 * 2^-24 exactly, and one HADD2.F32 widens it, a byte permute serving two
 * samples: 1.5 instructions per sample where word_sample() takes 2, which
 * at r1 are a sixth of the kernel's. The weights come scaled by 2^24
 * (strip_scaled_weights()); as both scalings are powers of two, every product
 * and sum is the one of the unscaled path, bit for bit. */
template <typename T, bool SCALED> __device__ __forceinline__ float
strip_sample (unsigned w, int k)
{
  if constexpr (SCALED) {
    static_assert (sizeof (T) == 1, "a subnormal half holds 10 bits");
    const unsigned pair = __byte_perm (w, 0u, k < 2 ? 0x4140 : 0x4342);
    float f;
    if (k & 1)
      asm("{.reg .f16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f32.f16 %0, hi;}"
          : "=f"(f)
          : "r"(pair));
    else
      asm("{.reg .f16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f32.f16 %0, lo;}"
          : "=f"(f)
          : "r"(pair));
    return f;
  } else {
    return word_sample ((T *) nullptr, w, k);
  }
}

/* One warp's strip: out rows y0 .. y0 + ROWS - 1, all inside the plane.
 * With src_ready, the kernel before it on the stream may still run (it
 * does not write src): the first rows are loaded and added up meanwhile,
 * and the wait for it comes before the first store. */
template <typename T, int R, bool MAGNITUDE, bool STAGED, int V>
__device__ __forceinline__ void
strip_rows (const ComponentArgs &src, const ComponentArgs &dst,
    const StripLane<T, V> &me, int y0, CcBorder border, const float *w,
    const float *wb, float start, float bias, bool src_ready,
    unsigned (*stage)[2 * StripShape<T, V>::NW
        + Strip2D::LANES * StripShape<T, V>::NW])
{
  typedef StripShape<T, V> L;
  typedef typename L::VecT VecT;
  constexpr int SIDE = 2 * R + 1;
  constexpr int S = L::S, NW = L::NW;
  constexpr int SPAN = V + 2 * R;
  constexpr bool SCALED = strip_scaled_weights<T, MAGNITUDE, V> ();
  constexpr int ROWS = strip_rows_per_warp<T, R, MAGNITUDE> ();
  constexpr int IN_ROWS = ROWS + 2 * R;
  const int lane = threadIdx.x;

  /* out row o sums in a[o % SIDE] */
  float a[SIDE][V], b[MAGNITUDE ? SIDE : 1][V];

  char *out = dst.data + (size_t) y0 * dst.pitch + me.own_offset;
  /* An FFMA takes one uniform operand; with the first weight and start
   * both uniform ptxas copied one into a register for every row. A
   * shuffle's result is a per-lane register, once. */
  const float first = __shfl_sync (0xffffffffu, start, 0);

  /* The rows follow one pointer. Strips lie inside the plane (the last
   * one of a column is moved up to end at its last row), so only the R
   * window rows above the strip and the R below it may be ghost rows
   * (StripGhosts). */
  StripGhosts<R> ghosts;
  ghosts.init (y0, ROWS, src.height, border);
  const bool zero = border == CC_BORDER_ZERO;
  const char *p = src.data + (ptrdiff_t) (y0 - R) * (ptrdiff_t) src.pitch
      + (ptrdiff_t) me.own_offset;
  auto fetch = [&] (int m, StripRow<VecT> &row) {
    const char *at = p;
    p += src.pitch;
    int shift = 0;
    if (m < R)
      shift = ghosts.above[m < R ? m : 0];
    if (m >= ROWS + R)
      shift = ghosts.below[m >= ROWS + R ? m - ROWS - R : 0];
    me.fetch (at + (ptrdiff_t) shift * (ptrdiff_t) src.pitch, row);
    if (zero && shift != 0) {
      row.own = VecT ();
      row.halo = 0;
    }
  };

  /* the side lanes' ghost columns: one byte permute of their own samples
   * (clamp, mirror) or zero; with wrap, the halo loads and the lane past
   * the right side bring them, as any other word from beyond */
  const unsigned left_sel = left_ghost_selector (sizeof (T), border);
  const unsigned right_sel = right_ghost_selector (sizeof (T), border);
  const unsigned keep = zero ? 0u : ~0u;

  constexpr int AHEAD = Strip2D::ahead<T, R, SCALED> ();
  StripRow<VecT> in[IN_ROWS];
#pragma unroll
  for (int m = 0; m < AHEAD && m < IN_ROWS; m++)
    fetch (m, in[m]);

#pragma unroll
  for (int m = 0; m < IN_ROWS; m++) {
    if (m + AHEAD < IN_ROWS)
      fetch (m + AHEAD, in[m + AHEAD]);
    const VecT own = in[m].own;

    /* the words left and right of the lane's own */
    unsigned left = 0, right = 0;
    if (R > 0) {
      if (STAGED) {
        unsigned *row = stage[m & 1];
        *reinterpret_cast<VecT *> (row + NW + NW * lane) = own;
        if (lane == 0)
          row[NW - 1] = in[m].halo;
        if (lane == Strip2D::LANES - 1)
          row[NW + NW * Strip2D::LANES] = in[m].halo;
        __syncwarp ();
        left = row[NW + NW * lane - 1];
        right = row[NW + NW * (lane + 1)];
      } else {
        left = __shfl_up_sync (0xffffffffu, vec_word (own, NW - 1), 1);
        right = __shfl_down_sync (0xffffffffu, vec_word (own, 0), 1);
        if (lane == 0)
          left = in[m].halo;
        if (lane == Strip2D::LANES - 1)
          right = in[m].halo;
      }
      const unsigned w0 = vec_word (own, 0), wl = vec_word (own, NW - 1);
      const unsigned w1 = vec_word (own, NW > 1 ? 1 : 0);
      const unsigned wr = vec_word (own, NW > 1 ? NW - 2 : 0);
      if (me.left_fix)
        left = __byte_perm (w0, w1, left_sel) & keep;
      if (me.right_fix)
        right = __byte_perm (wr, wl, right_sel) & keep;
    }

    float f[SPAN];
#pragma unroll
    for (int c = 0; c < R; c++) {
      f[c] = strip_sample<T, SCALED> (left, S - R + c);
      f[R + V + c] = strip_sample<T, SCALED> (right, c);
    }
#pragma unroll
    for (int k = 0; k < V; k++)
      f[R + k] = strip_sample<T, SCALED> (vec_word (own, k / S), k % S);

      /* input row m feeds out rows m - 2r .. m, filter row i = m - o */
#pragma unroll
    for (int i = 0; i < SIDE; i++) {
      const int o = m - i;
      if (o < 0 || o >= ROWS)
        continue;
      const int s = o % SIDE;
#pragma unroll
      for (int q = 0; q < V; q++) {
        float sa = i == 0 ? first : a[s][q];
#pragma unroll
        for (int j = 0; j < SIDE; j++)
          sa = fmaf (w[i * SIDE + j], f[q + j], sa);
        a[s][q] = sa;
        if (MAGNITUDE) {
          float sb = i == 0 ? 0.0f : b[MAGNITUDE ? s : 0][q];
#pragma unroll
          for (int j = 0; j < SIDE; j++)
            sb = fmaf (wb[i * SIDE + j], f[q + j], sb);
          b[MAGNITUDE ? s : 0][q] = sb;
        }
      }
    }

    /* out row o = m - 2r is complete */
    const int o = m - 2 * R;
    if (o == 0 && src_ready)
      join_previous_grid ();
    if (o >= 0) {
      const int s = o % SIDE;
      float v[V];
#pragma unroll
      for (int q = 0; q < V; q++)
        v[q] = a[s][q];
      if (MAGNITUDE) {
        finish_magnitude<V, true> (v, b[MAGNITUDE ? s : 0]);
#pragma unroll
        for (int q = 0; q < V; q++)
          v[q] += bias;
      }
      if (me.active)
        *reinterpret_cast<VecT *> (out) = pack_lane<T, V> (v, dst);
      out += dst.pitch;
    }
  }
}

/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename T, int R, bool MAGNITUDE, bool STAGED, int V>
__global__ void __launch_bounds__ (Strip2D::LANES * Strip2D::WARPS,
    strip_blocks_per_sm<T, R, MAGNITUDE> ())
conv_strip (ComponentArgs src, ComponentArgs dst,
    const __grid_constant__ Taps2D<R, MAGNITUDE> taps, float offset,
    CcBorder border, bool src_ready)
/* clang-format on */
{
  static_assert (!MAGNITUDE || V == 4, "a magnitude's lanes take 4 samples");
  typedef StripShape<T, V> L;
  constexpr int SIDE = 2 * R + 1;
  /* per warp two row buffers, so that one __syncwarp per row orders a row's
   * writes after the reads of the row before the last */
  __shared__ unsigned stage[STAGED ? Strip2D::WARPS : 1][2]
                           [2 * L::NW + Strip2D::LANES * L::NW];

  if (!src_ready)
    join_previous_grid ();
  constexpr int ROWS = strip_rows_per_warp<T, R, MAGNITUDE> ();
  /* a 2D grid (strip_grid()): the 1D tile grid's division cost more
   * than a tenth of a strip's instructions at r <= 2 */
  const int x0 = blockIdx.x * L::TILE_W;
  const int strip_y0 = (blockIdx.y * Strip2D::WARPS + threadIdx.y) * ROWS;
  /* the whole warp leaves together: no __syncwarp is left waiting */
  if (strip_y0 >= src.height)
    return;
  /* the last strip of a column ends at the plane's last row (strip_fits()
   * wants ROWS rows), the rows it shares with the strip above get the same
   * values twice */
  const int y0 = min (strip_y0, src.height - ROWS);
  StripLane<T, V> me;
  me.init (src, x0, threadIdx.x, R, border);

  float w[SIDE * SIDE], wb[MAGNITUDE ? SIDE * SIDE : 1];
  /* scaled by 2^24 where strip_scaled_weights() */
  load_weights<SIDE, MAGNITUDE> (taps.w, w, wb);
  /* a linear filter's sums start at offset + 0.5, where rounding wants them;
   * a magnitude's offset + 0.5 comes after its square root */
  const float start = MAGNITUDE ? 0.0f : offset + 0.5f;
  const float bias = MAGNITUDE ? offset + 0.5f : 0.0f;

  strip_rows<T, R, MAGNITUDE, STAGED, V> (src, dst, me, y0, border, w, wb,
      start, bias, src_ready, stage[STAGED ? threadIdx.y : 0]);
}

#endif /* CUDACONV_2D_STRIP_CUH */

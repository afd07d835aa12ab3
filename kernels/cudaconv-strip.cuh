/* cudaconv: small windows (r <= ST_MAX_RADIUS) on planes whose rows move as
 * aligned vectors, for both 2D strategies. At these radii a convolution
 * costs a few multiply-adds per sample, and the instructions around them
 * (moving samples in, converting, rounding, storing) and how well the loads
 * overlap the arithmetic decide the speed.
 *
 * Each warp walks down a strip ST_LANES * V columns wide and a few rows
 * tall (strip_rows_per_warp); each lane owns V neighbouring samples of a row (one vector load).
 * Per input row a lane converts its samples once and adds them to the 2r+1
 * output rows they touch, whose sums wait in registers; a finished row
 * leaves as one vector store. The strip's rows are unrolled whole, so every
 * register index is a constant and the rows above and below the strip cost
 * only their loads and conversions; loads run a few rows ahead of use
 * (ST_AHEAD).
 * There is no block-wide staging and no __syncthreads.
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
 * Ghost cells: the rows outside the plane are resolved once per warp
 * (GhostRows). The columns outside it concern only the lanes at the plane's
 * sides: as planes take this kernel only in whole vectors, the word beyond
 * a side lane is one byte permute of its own samples (clamp, mirror), zero,
 * or (wrap) the word at the row's other end, which that lane loads as its
 * halo. Only warps whose window leaves the plane, or that have lanes past
 * its right side, run that code (EDGE).
 *
 * Why this shape (H100, 8-bit 3840x2160, BENCHMARKS.md): with 4 samples per
 * lane, rows exchanged through shared memory and a rolled loop (the kernel
 * before this one) cache-halo took 12.6 us at r1 and 22.6 us at r2; this
 * one takes 10.1 and 17.1 us, tiled-halo about the same. */
#ifndef CUDACONV_STRIP_CUH
#define CUDACONV_STRIP_CUH

#include "cudaconv-device.cuh"

#define ST_LANES 32
#define ST_WARPS 4
#define ST_MAX_RADIUS 2
/* input rows in flight ahead of the one being added up: 5 measured best for
 * 8-bit r1, 4 elsewhere, where more spill */
#define ST_AHEAD(T, R) (sizeof (T) == 1 && (R) <= 1 ? 5 : 4)

template < int NW > struct Words;
template <> struct Words <1> {
  typedef unsigned type;
};
template <> struct Words <2> {
  typedef uint2 type;
};
template <> struct Words <4> {
  typedef uint4 type;
};

/* What a lane holds of a row. A magnitude keeps two sums per output, so its
 * lanes take 4 samples, the others 8. */
template < typename T, bool MAGNITUDE > struct StripShape {
  static constexpr int V = MAGNITUDE ? 4 : 8;   /* samples per lane */
  static constexpr int S = 4 / (int) sizeof (T);        /* samples per word */
  static constexpr int NW = V / S;      /* words per lane */
  static constexpr int TILE_W = ST_LANES * V;
  typedef typename Words < NW >::type VecT;
};

/* Whether the strip kernel can take the channel: one sample per pixel, its
 * start and pitch multiples of a lane's vector, and whole vectors across
 * (so that a lane holds all of its samples or none, and the ghost columns
 * at the plane's sides come from the side lanes' own samples). */
template < typename T, bool MAGNITUDE > __host__ __device__ __forceinline__
    bool
strip_fits (const ChannelArgs & c)
{
  typedef StripShape < T, MAGNITUDE > L;
  return moves_as_vectors < typename L::VecT > (c) && c.width % L::V == 0;
}

template < typename VecT > __device__ __forceinline__ unsigned
vec_word (const VecT & v, int k)
{
  return reinterpret_cast < const unsigned *>(&v)[k];
}

/* V floats, packed as they are stored */
template < typename T, bool MAGNITUDE > __device__ __forceinline__
    typename StripShape < T, MAGNITUDE >::VecT
pack_lane (const float (&v)[StripShape < T, MAGNITUDE >::V])
{
  typedef StripShape < T, MAGNITUDE > L;
  typename L::VecT out;
  unsigned *w = reinterpret_cast < unsigned *>(&out);
#pragma unroll
  for (int k = 0; k < L::V / 4; k++) {
    const float q[4] = { v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3] };
    const auto packed = pack_floor_saturated ((T *) nullptr, q);
    const unsigned *p = reinterpret_cast < const unsigned *>(&packed);
#pragma unroll
    for (int n = 0; n < (int) sizeof (packed) / 4; n++)
      w[k * (int) sizeof (packed) / 4 + n] = p[n];
  }
  return out;
}

/* The plane rows that stand in for the R rows above the plane and the R
 * below it, resolved once per warp: a few selects per ghost row, where the
 * border's switch and a row address per fetched row made the warps at the
 * plane's top and bottom several times slower than the inside ones. */
template < int R > struct GhostRows {
  int top[R > 0 ? R : 1], bottom[R > 0 ? R : 1];
  int height;

  __device__ __forceinline__ void init (int h, CcBorder border)
  {
    height = h;
#pragma unroll
    for (int k = 0; k < R; k++) {
      top[k] = cc_border_index (k - R, h, border);
      bottom[k] = cc_border_index (h + k, h, border);
    }
  }

  /* the plane row for row y (-R <= y), -1 for zeros (also past the rows
   * any output reads) */
  __device__ __forceinline__ int resolve (int y) const
  {
    int by = y < height ? y : -1;
#pragma unroll
    for (int k = 0; k < R; k++) {
      by = y == k - R ? top[k] : by;
      by = y == height + k ? bottom[k] : by;
    }
    return by;
  }
};

/* What a lane loads of one input row: its own samples, and for lanes 0 and
 * 31 the word beyond the warp's side (with wrap, for the lanes that load it,
 * the word beyond the plane's). */
template < typename VecT > struct StripRow {
  VecT own;
  unsigned halo;
};

/* Byte permutes that make the word beyond a side lane's outer sample from
 * its own samples, for clamp and mirror (reflect-101): at most
 * ST_MAX_RADIUS ghost columns, all copies of the lane's first or last 3
 * samples. The left word's samples end at column -1, the right word's start
 * at the plane's width; the pool is (word 0, word 1) on the left and (word
 * NW-2, word NW-1) on the right, the same word twice where a lane has one.
 * Only the bytes of the ghost columns matter. */
__host__ __device__ constexpr unsigned
left_ghost_selector (int sample_bytes, CcBorder border)
{
  return border == CC_BORDER_MIRROR ? (sample_bytes == 1 ? 0x1200u : 0x3254u)
      : (sample_bytes == 1 ? 0x0000u : 0x1010u);
}

__host__ __device__ constexpr unsigned
right_ghost_selector (int sample_bytes, CcBorder border)
{
  return border == CC_BORDER_MIRROR ? (sample_bytes == 1 ? 0x7756u : 0x3254u)
      : (sample_bytes == 1 ? 0x7777u : 0x7676u);
}

/* Where a lane's loads go, fixed for the whole strip. */
template < typename T, bool MAGNITUDE > struct StripLane {
  typedef StripShape < T, MAGNITUDE > L;
  typedef typename L::VecT VecT;
  int x;                        /* the lane's first column */
  bool active;                  /* its samples are inside the plane (all) */
  bool left_side, right_side;   /* its first / last sample is the plane's */
  size_t own_offset;            /* bytes into a row */
  ptrdiff_t halo_delta;         /* from own_offset to the halo word */
  bool halo_load;               /* it loads a word beyond the warp's side,
                                 * or, with wrap, beyond the plane's */

  __device__ __forceinline__ void init (const ChannelArgs & src, int x0,
      int lane, int radius, CcBorder border)
  {
    x = x0 + L::V * lane;
    active = x < src.width;
    left_side = x == 0;
    right_side = x + L::V == src.width;
    own_offset = active ? (size_t) x * sizeof (T) : 0;
    /* wrap: the words beyond the plane's sides are those at the other side,
     * unless one lane spans the whole row (its own words then). The row's
     * first word, beyond its right side, is loaded by the right side lane
     * when that is lane 31, else by the lane after it (past the plane, and
     * free; the side lane may be lane 0, which loads its left word). */
    const bool wrap = border == CC_BORDER_WRAP && src.width > L::V;
    int hx = -1;
    if (lane == 0 && !left_side)
      hx = x - L::S;
    else if (lane == 0 && wrap)
      hx = src.width - L::S;
    else if (wrap && (right_side ? lane == ST_LANES - 1 : x == src.width))
      hx = 0;
    else if (lane == ST_LANES - 1 && x + L::V + L::S <= src.width)
      hx = x + L::V;
    halo_load = radius > 0 && hx >= 0;
    halo_delta = halo_load ? (ptrdiff_t) hx * (ptrdiff_t) sizeof (T) -
        (ptrdiff_t) own_offset : 0;
  }

  /* the row whose lane samples start at p; SOME_PAST: lanes past the
   * plane's right side may take part */
  template < bool SOME_PAST > __device__ __forceinline__ void fetch (const
      char *p, StripRow < VecT > &row) const
  {
    row.own = !SOME_PAST || active ? __ldg (reinterpret_cast < const VecT *>
        (p)) : VecT ();
    row.halo = 0;
    if (halo_load)
      row.halo = __ldg (reinterpret_cast < const unsigned *>(p + halo_delta));
  }
};

/* 4-warp blocks, with the register budget that keeps 7 of them on an SM
 * where that spills at most a few words (r <= 1), else 6 (8-bit r2) or 5. */
template < typename T, int R, bool MAGNITUDE > __host__ __device__ constexpr
    int
strip_wanted_blocks ()
{
  return MAGNITUDE || (sizeof (T) == 2 && R == 2) ? 5 : R == 2 ? 6 : 7;
}

template < typename T, int R, bool MAGNITUDE > constexpr int
strip_blocks_per_sm ()
{
  return blocks_that_fit (ST_LANES * ST_WARPS, strip_wanted_blocks < T, R,
      MAGNITUDE > ());
}

/* Rows per warp. At r <= 1, 9 (13 for magnitudes): the fewest that put a
 * 2160-row plane's blocks on an H100 (132 SMs) in one wave at 7 blocks per
 * SM (900 blocks); taller strips left SMs idle. At r2, 6: 1,350 blocks,
 * more than one wave, were faster than one wave of taller strips (8-bit
 * 2160p 18.7 -> 17.0 us with 11 rows before, 1080p 11.1 -> 7.7 us). */
template < typename T, int R, bool MAGNITUDE > __host__ __device__ constexpr
    int
strip_rows_per_warp ()
{
  return R == 2 ? 6 : strip_wanted_blocks < T, R, MAGNITUDE > () >= 7 ? 9 :
      13;
}

/* Whether the warps inside the plane take their own copy of the strip
 * code, free of ghost cells: faster everywhere but at 16-bit r2, where the
 * two copies spilled (with 13 rows per strip, 2160p tiled-halo took 18.9 us
 * with them and 16.3 us without). */
template < typename T, int R > __host__ __device__ constexpr bool
strip_inside_copy ()
{
  return !(sizeof (T) == 2 && R == 2);
}

/* One warp's strip: out rows y0 .. y0 + ROWS - 1 (those inside the
 * plane). EDGE: some of its window lies outside the plane, or some lane
 * lies past its right side; without it, no ghost cell is looked for. */
template < typename T, int R, bool MAGNITUDE, bool STAGED, bool EDGE >
__device__ __forceinline__ void
strip_rows (const ChannelArgs & src, const ChannelArgs & dst,
    const StripLane < T, MAGNITUDE > &me, int y0, CcBorder border,
    const float *w, const float *wb, float start, float bias,
    unsigned (*stage)[2 * StripShape < T, MAGNITUDE >::NW + ST_LANES *
        StripShape < T, MAGNITUDE >::NW])
{
  typedef StripShape < T, MAGNITUDE > L;
  typedef typename L::VecT VecT;
  constexpr int SIDE = 2 * R + 1;
  constexpr int V = L::V, S = L::S, NW = L::NW;
  constexpr int SPAN = V + 2 * R;
  constexpr int ROWS = strip_rows_per_warp < T, R, MAGNITUDE > ();
  constexpr int IN_ROWS = ROWS + 2 * R;
  const int lane = threadIdx.x;
  const int rows_left = src.height - y0;

  /* out row o sums in a[o % SIDE] */
  float a[SIDE][V], b[MAGNITUDE ? SIDE : 1][V];

  char *out = dst.data + (size_t) y0 * dst.pitch + me.own_offset;
  /* An FFMA takes one uniform operand; with the first weight and start
   * both uniform ptxas copied one into a register for every row. A
   * shuffle's result is a per-lane register, once. */
  const float first = __shfl_sync (0xffffffffu, start, 0);

  /* rows inside the plane follow one pointer; a strip at the plane's top or
   * bottom resolves each row (the others at its sides, a third of the EDGE
   * strips at 2160p, took a row address per row and set the kernel's end) */
  GhostRows < R > ghosts;
  const bool rows_inside = !EDGE || (y0 - R >= 0
      && y0 + ROWS + R <= src.height);
  if (!rows_inside)
    ghosts.init (src.height, border);
  const char *p = src.data + (ptrdiff_t) (y0 - R) * (ptrdiff_t) src.pitch +
      (ptrdiff_t) me.own_offset;
  auto fetch =[&](int m, StripRow < VecT > &row) {
    if (rows_inside) {
      me.template fetch < EDGE > (p, row);
      p += src.pitch;
      return;
    }
    const int y = y0 - R + m;
    const int by = (unsigned) y < (unsigned) src.height ? y :
        ghosts.resolve (y);
    if (by < 0) {
      row.own = VecT ();
      row.halo = 0;
    } else {
      me.template fetch < true > (src.data + (size_t) by * src.pitch +
          me.own_offset, row);
    }
  };

  /* the side lanes' ghost columns */
  const bool wrap = border == CC_BORDER_WRAP;
  const bool zero = border == CC_BORDER_ZERO;
  const bool wrap_self = wrap && src.width == V;
  const unsigned left_sel = left_ghost_selector (sizeof (T), border);
  const unsigned right_sel = right_ghost_selector (sizeof (T), border);

  StripRow < VecT > in[IN_ROWS];
#pragma unroll
  for (int m = 0; m < ST_AHEAD (T, R) && m < IN_ROWS; m++)
    fetch (m, in[m]);

#pragma unroll
  for (int m = 0; m < IN_ROWS; m++) {
    if (m + ST_AHEAD (T, R) < IN_ROWS)
      fetch (m + ST_AHEAD (T, R), in[m + ST_AHEAD (T, R)]);
    const VecT own = in[m].own;

    /* the words left and right of the lane's own */
    unsigned left = 0, right = 0;
    if (R > 0) {
      if (STAGED) {
        unsigned *row = stage[m & 1];
        *reinterpret_cast < VecT * >(row + NW + NW * lane) = own;
        if (lane == 0)
          row[NW - 1] = in[m].halo;
        if (lane == ST_LANES - 1)
          row[NW + NW * ST_LANES] = in[m].halo;
        __syncwarp ();
        left = row[NW + NW * lane - 1];
        right = row[NW + NW * (lane + 1)];
      } else {
        left = __shfl_up_sync (0xffffffffu, vec_word (own, NW - 1), 1);
        right = __shfl_down_sync (0xffffffffu, vec_word (own, 0), 1);
        if (lane == 0)
          left = in[m].halo;
        if (lane == ST_LANES - 1)
          right = in[m].halo;
      }
      if (EDGE) {
        /* with wrap, the lane after the right side lane may hold the wrap
         * word (border is the same for the whole warp) */
        const unsigned next_halo = wrap ? __shfl_down_sync (0xffffffffu,
            in[m].halo, 1) : 0u;
        const unsigned w0 = vec_word (own, 0), wl = vec_word (own, NW - 1);
        const unsigned w1 = vec_word (own, NW > 1 ? 1 : 0);
        const unsigned wr = vec_word (own, NW > 1 ? NW - 2 : 0);
        if (me.left_side)
          left = wrap ? (wrap_self ? wl : in[m].halo) : zero ? 0u :
              __byte_perm (w0, w1, left_sel);
        if (me.right_side)
          right = wrap ? (wrap_self ? w0 : lane == ST_LANES - 1 ? in[m].halo :
              next_halo) : zero ? 0u :
              __byte_perm (wr, wl, right_sel);
      }
    }

    float f[SPAN];
#pragma unroll
    for (int c = 0; c < R; c++) {
      f[c] = word_sample ((T *) nullptr, left, S - R + c);
      f[R + V + c] = word_sample ((T *) nullptr, right, c);
    }
#pragma unroll
    for (int k = 0; k < V; k++)
      f[R + k] = word_sample ((T *) nullptr, vec_word (own, k / S), k % S);

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
    if (o >= 0 && (!EDGE || o < rows_left)) {
      const int s = o % SIDE;
      float v[V];
#pragma unroll
      for (int q = 0; q < V; q++)
        v[q] = a[s][q];
      if (MAGNITUDE) {
        finish_magnitude < V, true > (v, b[MAGNITUDE ? s : 0]);
#pragma unroll
        for (int q = 0; q < V; q++)
          v[q] += bias;
      }
      if (!EDGE || me.active)
        *reinterpret_cast < VecT * >(out) = pack_lane < T, MAGNITUDE > (v);
      out += dst.pitch;
    }
  }
}

template < typename T, int R, bool MAGNITUDE, bool STAGED >
__global__ void __launch_bounds__ (ST_LANES * ST_WARPS,
    strip_blocks_per_sm < T, R, MAGNITUDE > ())
conv_strip (ChannelArgs src, ChannelArgs dst, int slot, float offset,
    CcBorder border, TileGrid tiles)
{
  typedef StripShape < T, MAGNITUDE > L;
  constexpr int SIDE = 2 * R + 1;
  /* per warp two row buffers, so that one __syncwarp per row orders a row's
   * writes after the reads of the row before the last */
  __shared__ unsigned stage[STAGED ? ST_WARPS : 1][2][2 * L::NW +
      ST_LANES * L::NW];

  constexpr int ROWS = strip_rows_per_warp < T, R, MAGNITUDE > ();
  const int x0 = tile_x0 (tiles, blockIdx.x, L::TILE_W);
  const int y0 = tile_y0 (tiles, blockIdx.x, ST_WARPS * ROWS) +
      threadIdx.y * ROWS;
  /* the whole warp leaves together: no __syncwarp is left waiting */
  if (y0 >= src.height)
    return;
  StripLane < T, MAGNITUDE > me;
  me.init (src, x0, threadIdx.x, R, border);

  float w[SIDE * SIDE], wb[MAGNITUDE ? SIDE * SIDE : 1];
  load_weights < SIDE, MAGNITUDE > (slot, w, wb);
  /* a linear filter's sums start at offset + 0.5, where rounding wants them;
   * a magnitude's offset + 0.5 comes after its square root */
  const float start = MAGNITUDE ? 0.0f : offset + 0.5f;
  const float bias = MAGNITUDE ? offset + 0.5f : 0.0f;

  /* the same for every lane of the warp */
  const int halo = R > 0 ? L::S : 0;
  const bool inside = x0 - halo >= 0 && x0 + L::TILE_W + halo <= src.width
      && y0 - R >= 0 && y0 + ROWS + R <= src.height;
  auto *my_stage = stage[STAGED ? threadIdx.y : 0];
  if (strip_inside_copy < T, R > () && inside)
    strip_rows < T, R, MAGNITUDE, STAGED, false > (src, dst, me, y0,
        border, w, wb, start, bias, my_stage);
  else
    strip_rows < T, R, MAGNITUDE, STAGED, true > (src, dst, me, y0,
        border, w, wb, start, bias, my_stage);
}

#endif /* CUDACONV_STRIP_CUH */

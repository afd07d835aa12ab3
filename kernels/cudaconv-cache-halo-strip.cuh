/* cudaconv: the cache-halo strategy (PMPP 7.5) for small radii
 * (r <= ST_MAX_RADIUS) on quad-aligned planes, where a convolution costs a
 * few multiply-adds per sample and the instructions around them (moving
 * samples in, converting, rounding and storing) decide the speed.
 *
 * Each warp walks down a strip 128 columns wide and L::ROWS rows tall; each
 * lane owns one quad (4 columns). Per input row a lane loads its quad once,
 * converts it once and adds it to the 2r+1 output rows it touches, whose
 * sums wait in registers (a ring of 2r+1 rows, indexed at compile time
 * because the loop body covers 2r+1 input rows). Exactly (2r+1)^2
 * multiply-adds per output; a finished row leaves as one 4-sample store.
 * There is no block-wide staging and no __syncthreads: the rows of a warp's
 * strip are its tile, and the loop body stays small enough for the
 * instruction cache.
 *
 * Shared memory holds the tile: the lanes put their quads there and read
 * their neighbours'. The halo, the quad left and right of the warp's 128
 * columns, never goes there: lanes 0 and 31 keep it in a register, loaded
 * through L1/L2 where the neighbouring warps' own loads put it.
 *
 * Ghost cells: the rows outside the plane are resolved once per warp
 * (GhostRows); columns outside it concern only the lanes at the plane's
 * sides, which resolve their ghost columns once and take them from their
 * own quad (clamp, mirror, zero) or read them one by one (wrap, quads cut
 * by the plane's side). Only warps whose window leaves the plane run that
 * code (EDGE), and it has to be nearly as fast as the inside's: the grid
 * is about one wave, so the slowest warps set the kernel's time. With the
 * rows resolved per fetch, ncu at r1 (8-bit 3840x2160) counted SM active
 * cycles from 18.6 K to 32.8 K of 36.7 K elapsed; with GhostRows, 17.9 K
 * to 23.3 K of 27.1 K. */
#ifndef CUDACONV_CACHE_HALO_STRIP_CUH
#define CUDACONV_CACHE_HALO_STRIP_CUH

#include "cudaconv-device.cuh"

#define ST_LANES 32
#define ST_WARPS 4
#define ST_THREADS (ST_LANES * ST_WARPS)
#define ST_TILE_W (ST_LANES * 4)
#define ST_MAX_RADIUS 2
/* A strip of about 16 rows: taller strips reload fewer halo rows, shorter
 * ones give more warps to hide each warp's latencies. */
#define ST_ABOUT_ROWS 16

template < int R > struct StripLayout {
  static constexpr int SIDE = 2 * R + 1;
  /* the loop body covers SIDE input rows; a strip's ROWS + 2r input rows
   * fill GROUPS bodies exactly */
  static constexpr int GROUPS = (ST_ABOUT_ROWS + 2 * R) / SIDE;
  static constexpr int ROWS = GROUPS * SIDE - 2 * R;
  static constexpr int TILE_H = ST_WARPS * ROWS;
  /* loop bodies whose rows are in flight ahead of the one computing */
  static constexpr int AHEAD = GROUPS > 2 ? 2 : 1;
};

/* The 4 samples of a quad (8- or 16-bit) as floats, exact (see
 * biased_sample_to_float). */
template < typename QuadT > __device__ __forceinline__ void
quad_floats (QuadT w, float (&f)[4])
{
  const float4 v = quad_to_float4 (w);
  f[0] = v.x;
  f[1] = v.y;
  f[2] = v.z;
  f[3] = v.w;
}

/* A ghost column that a lane at the plane's side takes from its own quad:
 * with quad-aligned strips and r <= 2, clamp and mirror map the columns
 * beyond a side into the quad that ends there, and a zero is a byte
 * permute's constant, where a load per sample and row kept the rim warps
 * waiting on global memory. The pick is a byte_perm selector (nonzero;
 * bit 16 picks a 16-bit quad's second word), made once per lane: sample k
 * of the quad, or k < 0 for a zero. 0: no pick. */
__device__ __forceinline__ unsigned
ghost_pick (uint8_t *, int k)
{
  return k < 0 ? 0x7544u : 0x7540u + k;
}

__device__ __forceinline__ unsigned
ghost_pick (uint16_t *, int k)
{
  return k < 0 ? 0x7544u : ((k & 1) ? 0x7532u : 0x7510u) | (k >= 2 ?
      0x10000u : 0u);
}

__device__ __forceinline__ float
picked_sample (unsigned q, unsigned pick)
{
  return biased_sample_to_float (__byte_perm (q, CC_TWO_POW_23_BITS, pick));
}

__device__ __forceinline__ float
picked_sample (uint2 q, unsigned pick)
{
  return biased_sample_to_float (__byte_perm (pick & 0x10000u ? q.y : q.x,
          CC_TWO_POW_23_BITS, pick));
}

/* load_bordered out of line: inlined per column and row, the border's
 * arithmetic grew the EDGE loop to 2,500 instructions and made it spill,
 * for the few lanes (wrap, a quad cut by the plane's side) that take it.
 * src by value: a reference put it in every variant's stack frame. */
template < typename T > __device__ __noinline__ float
read_ghost_column (ChannelArgs src, int x, int y, CcBorder border)
{
  return load_bordered < T > (src, x, y, border);
}

/* The plane rows that stand in for the R rows above the plane and the R
 * below it, resolved once per warp: a few selects per ghost row, where the
 * border's switch and a row address per fetched row made the loop of the
 * warps at the plane's top and bottom 4.5 times the inside one's
 * (1,133 against 249 instructions per loop body, 8-bit r1, sm_90). */
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

/* What a lane loads for one input row: its own quad, and for lanes 0 and 31
 * the halo quad beyond the warp's side. */
template < typename T > struct StripRow {
  typedef typename Quad < T >::type QuadT;
  QuadT own, halo;
};

/* Where a lane's loads go, fixed for the whole strip. */
template < typename T > struct StripLane {
  typedef typename Quad < T >::type QuadT;
  int x;                        /* the lane's first column */
  size_t own_offset, halo_offset;       /* bytes into a row */
  bool own_full;                /* its quad lies inside the plane */
  bool left_full, right_full;   /* so do the quads left and right of it */
  bool halo_load;               /* lane 0 or 31, and its halo quad is whole */

  __device__ __forceinline__ void init (const ChannelArgs & src, int x0,
      int lane, int radius)
  {
    x = x0 + 4 * lane;
    own_full = x + 4 <= src.width;
    left_full = radius == 0 || x >= 4;
    right_full = radius == 0 || x + 8 <= src.width;
    /* a quad that is not whole is never loaded: its address is the row's
     * first quad's, and its samples are read one by one */
    own_offset = own_full ? (size_t) x * sizeof (T) : 0;
    const int hx = lane == 0 ? x - 4 : x + 4;
    halo_load = radius > 0 && (lane == 0 ? left_full : lane == ST_LANES - 1
        && right_full);
    halo_offset = halo_load ? (size_t) hx * sizeof (T) : 0;
  }

  /* the row that starts at base, inside the plane */
  __device__ __forceinline__ void fetch_row (const char *base,
      StripRow < T > &row) const
  {
    row.own = __ldg (reinterpret_cast < const QuadT *>(base + own_offset));
    row.halo = QuadT ();
    if (halo_load)
      row.halo = __ldg (reinterpret_cast < const QuadT *>(base +
              halo_offset));
  }

  /* plane row by, -1 for a row of zeros */
  __device__ __forceinline__ void fetch_ghost (const ChannelArgs & src,
      int by, StripRow < T > &row) const
  {
    row.own = QuadT ();
    row.halo = QuadT ();
    if (by >= 0)
      fetch_row (src.data + (size_t) by * src.pitch, row);
  }

  /* the row whose own quad is at p, the lane's quads all inside the plane:
   * constant offsets from one pointer */
  __device__ __forceinline__ void fetch_inside (const char *p, int radius,
      StripRow < T > &row) const
  {
    const QuadT *own = reinterpret_cast < const QuadT *>(p);
    row.own = __ldg (own);
    row.halo = QuadT ();
    if (radius > 0 && threadIdx.x == 0)
      row.halo = __ldg (own - 1);
    if (radius > 0 && threadIdx.x == ST_LANES - 1)
      row.halo = __ldg (own + 1);
  }
};

/* One warp's strip: out rows y0 .. y0 + L::ROWS - 1 (those inside the
 * plane). EDGE: some of its window lies outside the plane, or some lane's
 * quad is not whole; without it, no ghost cell is looked for. */
template < typename T, int R, bool MAGNITUDE, bool EDGE >
__device__ __forceinline__ void
strip_rows (const ChannelArgs & src, const ChannelArgs & dst,
    const StripLane < T > &me, int y0, CcBorder border,
    const float *w, const float *wb, float start, float bias,
    typename Quad < T >::type (*tile)[StripLayout < R >::SIDE][ST_LANES])
{
  typedef StripLayout < R > L;
  typedef typename Quad < T >::type QuadT;
  constexpr int SIDE = L::SIDE;
  constexpr int SPAN = 4 + 2 * R;
  const int lane = threadIdx.x;
  const bool fast = !EDGE || (me.own_full && me.left_full && me.right_full);
  const int rows_left = src.height - y0;
  /* out row o of the strip sums in a[o % SIDE] */
  float a[SIDE][4], b[MAGNITUDE ? SIDE : 1][4];

  /* out row o leaves at out, which moves down a row per finished row:
   * recomputing the address from y0 + o took 8 instructions a row */
  char *out = dst.data + (size_t) y0 * dst.pitch + me.own_offset;
  /* An FFMA takes one uniform operand; with the first weight and start
   * both uniform ptxas copied one into a register for every row. A
   * shuffle's result is a per-lane register, once. */
  const float first = __shfl_sync (0xffffffffu, start, 0);

  /* input rows are fetched in order: m is the strip's next one; p is its
   * own quad when the strip lies inside the plane, else the row's start
   * (never read while the row lies outside the plane) */
  GhostRows < R > ghosts;
  if (EDGE)
    ghosts.init (src.height, border);
  int m = 0;
  const char *p = src.data + (ptrdiff_t) (y0 - R) * (ptrdiff_t) src.pitch +
      (EDGE ? 0 : me.own_offset);
  auto fetch =[&](StripRow < T > &row) {
    if (!EDGE)
      me.fetch_inside (p, R, row);
    else if ((unsigned) (y0 - R + m) < (unsigned) src.height)
      me.fetch_row (p, row);
    else
      me.fetch_ghost (src, ghosts.resolve (y0 - R + m), row);
    p += src.pitch;
    m++;
  };

  /* The lanes at the plane's sides take the window columns whose quads
   * they did not load from their own quad where the border puts them
   * there (pick, for the r columns each side), else read them one by one
   * (reads_samples). */
  auto loaded =[&](int c) {
    return c < R ? me.left_full : c < R + 4 ? me.own_full : me.right_full;
  };
  auto halo_column =[&](int c) {
    return c < R || c >= R + 4;
  };
  unsigned pick[EDGE ? SPAN : 1];
  bool reads_samples = false;
  if (EDGE) {
#pragma unroll
    for (int c = 0; c < SPAN; c++) {
      const int g = cc_border_index (me.x - R + c, src.width, border);
      pick[c] = 0;
      if (!loaded (c) && halo_column (c))
        pick[c] = g < 0 ? ghost_pick ((T *) nullptr, -1) : me.own_full
            && g >= me.x && g < me.x + 4 ? ghost_pick ((T *) nullptr,
            g - me.x) : 0;
      reads_samples |= !loaded (c) && pick[c] == 0;
    }
  }

  /* Input rows arrive L::AHEAD loop bodies ahead of their use, so that a
   * warp always has loads in flight. */
  StripRow < T > ahead[L::AHEAD][SIDE];
#pragma unroll
  for (int k = 0; k < L::AHEAD; k++)
#pragma unroll
    for (int t = 0; t < SIDE; t++)
      fetch (ahead[k][t]);

#pragma unroll 1
  for (int g = 0; g < L::GROUPS; g++) {
    /* input rows g * SIDE + t, t < SIDE, of the strip (row 0 is y0 - r) */
    const int m0 = g * SIDE;
    if (EDGE && m0 - 2 * R >= rows_left)
      break;
    StripRow < T > cur[SIDE];
#pragma unroll
    for (int t = 0; t < SIDE; t++) {
      cur[t] = ahead[0][t];
#pragma unroll
      for (int k = 0; k + 1 < L::AHEAD; k++)
        ahead[k][t] = ahead[k + 1][t];
    }
    if (g + L::AHEAD < L::GROUPS) {
#pragma unroll
      for (int t = 0; t < SIDE; t++)
        fetch (ahead[L::AHEAD - 1][t]);
    }

    QuadT(*rows)[ST_LANES] = tile[g & 1];
#pragma unroll
    for (int t = 0; t < SIDE; t++)
      rows[t][lane] = cur[t].own;
    __syncwarp ();

#pragma unroll
    for (int t = 0; t < SIDE; t++) {
      float f[SPAN];
      {
        float q[4];
        quad_floats (cur[t].own, q);
#pragma unroll
        for (int c = 0; c < 4; c++)
          f[R + c] = q[c];
      }
      if (R > 0) {
        QuadT left, right;
        if (lane == 0)
          left = cur[t].halo;
        else
          left = rows[t][lane - 1];
        if (lane == ST_LANES - 1)
          right = cur[t].halo;
        else
          right = rows[t][lane + 1];
        float l[4], r[4];
        quad_floats (left, l);
        quad_floats (right, r);
#pragma unroll
        for (int c = 0; c < R; c++) {
          f[c] = l[4 - R + c];
          f[R + 4 + c] = r[c];
        }
      }
      if (EDGE && !fast && me.x < src.width) {
#pragma unroll
        for (int c = 0; c < SPAN; c++)
          if (halo_column (c) && pick[c] != 0)
            f[c] = picked_sample (cur[t].own, pick[c]);
        if (reads_samples) {
#pragma unroll
          for (int c = 0; c < SPAN; c++)
            if (!loaded (c) && pick[c] == 0)
              f[c] = read_ghost_column < T > (src, me.x - R + c,
                  y0 - R + m0 + t, border);
        }
      }

      /* input row m feeds out rows m - 2r .. m, filter row i = m - o */
#pragma unroll
      for (int i = 0; i < SIDE; i++) {
        const int s = (t - i + SIDE) % SIDE;
#pragma unroll
        for (int q = 0; q < 4; q++) {
          float sa = i == 0 ? first : a[s][q];
#pragma unroll
          for (int j = 0; j < SIDE; j++)
            sa = fmaf (w[i * SIDE + j], f[q + j], sa);
          a[s][q] = sa;
          if (MAGNITUDE) {
            float sb = i == 0 ? 0.0f : b[s][q];
#pragma unroll
            for (int j = 0; j < SIDE; j++)
              sb = fmaf (wb[i * SIDE + j], f[q + j], sb);
            b[s][q] = sb;
          }
        }
      }

      /* out row o = m - 2r is complete */
      const int o = m0 + t - 2 * R;
      if (o >= 0 && o < L::ROWS && (!EDGE || o < rows_left)) {
        const int s = (t + 1) % SIDE;
        float v[4];
#pragma unroll
        for (int q = 0; q < 4; q++)
          v[q] = a[s][q];
        if (MAGNITUDE) {
          finish_magnitude < 4, true > (v, b[MAGNITUDE ? s : 0]);
#pragma unroll
          for (int q = 0; q < 4; q++)
            v[q] += bias;
        }
        if (!EDGE || me.own_full) {
          *reinterpret_cast < QuadT * >(out) =
              pack_floor_saturated ((T *) nullptr, v);
        } else {
#pragma unroll
          for (int q = 0; q < 4; q++)
            if (me.x + q < dst.width)
              store_rounded < T > (dst, me.x + q, y0 + o,
                  round_biased_sample < T > (v[q]));
        }
        out += dst.pitch;
      }
    }
  }
}

/* Blocks per SM the register budget leaves room for. 3x3 filters on 8-bit
 * samples fit 64 registers: 8 blocks (32 warps), which the 4080 strips of a
 * 2160p plane fill in one wave. The others would spill at that budget;
 * 16-bit quads take twice the registers in flight. */
template < typename T, int R, bool MAGNITUDE > constexpr int
strip_blocks_per_sm ()
{
  if (sizeof (T) == 1)
    return blocks_that_fit (ST_THREADS, R <= 1 ? (MAGNITUDE ? 6 : 8) : 4);
  return blocks_that_fit (ST_THREADS, R <= 1 ? 5 : 3);
}

template < typename T, int R, bool MAGNITUDE >
__global__ void __launch_bounds__ (ST_THREADS,
    strip_blocks_per_sm < T, R, MAGNITUDE > ())
conv_cache_halo_strip (ChannelArgs src, ChannelArgs dst, int slot, float offset,
    CcBorder border, TileGrid tiles)
{
  typedef StripLayout < R > L;
  typedef typename Quad < T >::type QuadT;
  constexpr int SIDE = L::SIDE;
  /* per warp two buffers, so that one __syncwarp per loop body orders the
   * body's writes after the reads of the body before the last */
  __shared__ QuadT tile[ST_WARPS][2][SIDE][ST_LANES];

  const int x0 = tile_x0 (tiles, blockIdx.x, ST_TILE_W);
  const int y0 = tile_y0 (tiles, blockIdx.x, L::TILE_H) +
      threadIdx.y * L::ROWS;
  /* the whole warp leaves together: no __syncwarp is left waiting */
  if (y0 >= src.height)
    return;
  StripLane < T > me;
  me.init (src, x0, threadIdx.x, R);

  float w[SIDE * SIDE], wb[MAGNITUDE ? SIDE * SIDE : 1];
  load_weights < SIDE, MAGNITUDE > (slot, w, wb);
  /* a linear filter's sums start at offset + 0.5, where rounding wants them;
   * a magnitude's offset + 0.5 comes after its square root */
  const float start = MAGNITUDE ? 0.0f : offset + 0.5f;
  const float bias = MAGNITUDE ? offset + 0.5f : 0.0f;

  /* the same for every lane of the warp */
  const int halo_quads = R > 0 ? 1 : 0;
  const bool inside = x0 - 4 * halo_quads >= 0
      && x0 + ST_TILE_W + 4 * halo_quads <= src.width && y0 - R >= 0
      && y0 + L::ROWS + R <= src.height;
  if (inside)
    strip_rows < T, R, MAGNITUDE, false > (src, dst, me, y0,
        border, w, wb, start, bias, tile[threadIdx.y]);
  else
    strip_rows < T, R, MAGNITUDE, true > (src, dst, me, y0,
        border, w, wb, start, bias, tile[threadIdx.y]);
}

#endif /* CUDACONV_CACHE_HALO_STRIP_CUH */

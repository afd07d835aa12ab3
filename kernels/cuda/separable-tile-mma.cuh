/* cudaconv: the separable path, for filters that are an outer product of a
 * column and a row filter (gaussian, box, sobel-x/-y), on the tensor cores.
 *
 * For 8-bit planes; 16-bit ones take separable-tile-fp32.cuh (an fp16
 * copy of a 16-bit sample needs two planes, which doubles the staging and
 * the matrix loads, and measured slower). One kernel, four steps per
 * 64 x 64 output tile:
 *  1. the window (tile and halo) goes to shared memory as exact fp16
 *     (mma.cuh);
 *  2. column pass: for each block of 16 output rows and 8 window columns,
 *     mid = A x window, A the 16 x K band matrix A[m][k] = col_taps[k - m]
 *     (zero off the band) in two fp16 halves, the window block K rows deep;
 *     mid, every window column of the tile's 64 rows, goes back to shared
 *     memory split into two fp16 halves;
 *  3. row pass: for each block of 16 rows and 8 output columns,
 *     out = mid x B, B the K x 8 band B[k][n] = row_taps[k - n], again in
 *     two halves (three products: hi hi, hi lo, lo hi);
 *  4. the rounded tile leaves through shared memory as 16-byte stores.
 * Nothing is rounded to the sample type between the passes, so the result
 * matches the 2D filter's to about fp32 rounding, and the FP32 units only
 * convert, scale and round: a tensor instruction does 2048 multiply-adds.
 * The warps' shares are fixed at compile time, with their addresses. */
#ifndef CUDACONV_SEPARABLE_TILE_MMA_CUH
#define CUDACONV_SEPARABLE_TILE_MMA_CUH

#include "device.cuh"
#include "mma.cuh"

/* The family's shape, on the 64 x 64 tile (Tile64). */
struct TileMma {
  static constexpr int WARPS = Tile64::THREADS / 32;
  static constexpr int BLOCKS = Tile64::TILE_H / MMA_M;
  /* band[p] holds taps d and d + 1 for d = p - BAND_ZERO: a fragment
   * register's pair reaches d = -15 */
  static constexpr int BAND_ZERO = MMA_M - 1;
  /* the column band is built by threads 0 .., the row band by the threads
   * from here on */
  static constexpr int ROW_BAND_THREAD = 64;
};

/* the warp's index in the block */
__device__ __forceinline__ int
sep_warp ()
{
  return (threadIdx.y * Tile64::THREADS_X + threadIdx.x) >> 5;
}

template <int R> struct SepLayout {
  /* window column c is shared column LEAD + c, its quads aligned */
  static constexpr int LEAD = quad_lead<R> ();
  static constexpr int IN_H = Tile64::TILE_H + 2 * R;
  /* the row pass: out columns n0 .. n0 + 7 take mid columns n0 + LEAD ..
   * n0 + LEAD + 7 + 2r, K columns from n0 on */
  static constexpr int ROW_KSTEPS = (MMA_N + 2 * R + LEAD + MMA_K - 1) / MMA_K;
  static constexpr int MID_COLS = Tile64::TILE_W - MMA_N + ROW_KSTEPS * MMA_K;
  static constexpr int CHUNKS = MID_COLS / MMA_N;
  /* the window staged is as wide as mid, so every half read is written */
  static constexpr int STAGE_W = MID_COLS - LEAD;
  /* the column pass: 16 output rows take 16 + 2r window rows, K of them */
  static constexpr int COL_KSTEPS = (MMA_M + 2 * R + MMA_K - 1) / MMA_K;
  static constexpr int STAGE_H = Tile64::TILE_H - MMA_M + COL_KSTEPS * MMA_K;
  /* halves; an odd number of 16-byte units, so that the 8 rows of one
   * ldmatrix hit 8 different bank groups */
  static constexpr int HALF_PITCH = MID_COLS / 8 % 2 ? MID_COLS : MID_COLS + 8;
  static constexpr int PLANE_HALVES = STAGE_H * HALF_PITCH;
  static constexpr int MID_HALVES = Tile64::TILE_H * HALF_PITCH;
  /* the bands' pairs, every one a lane's fragments take */
  static constexpr int COL_BAND = COL_KSTEPS * MMA_K + MMA_M;
  static constexpr int ROW_BAND = ROW_KSTEPS * MMA_K + MMA_M;
  static_assert (COL_BAND <= TileMma::ROW_BAND_THREAD
          && TileMma::ROW_BAND_THREAD + ROW_BAND <= Tile64::THREADS,
      "a thread per band pair");
  static_assert (Tile64::TILE_W / MMA_N == TileMma::WARPS,
      "a warp per output chunk");

  /* shared memory: the window's plane (the rounded tile reuses it), mid's
   * high and low planes, the bands (high and low), three scales */
  static constexpr size_t MID_OFFSET = sizeof (__half) * PLANE_HALVES;
  static constexpr size_t BAND_OFFSET = MID_OFFSET
      + sizeof (__half) * 2 * MID_HALVES;
  static constexpr size_t BYTES = BAND_OFFSET
      + sizeof (unsigned) * 2 * (COL_BAND + ROW_BAND) + sizeof (float) * 4;
  static_assert (MID_COLS % 8 == 0, "16-byte rows for ldmatrix");
  static_assert (STAGE_H >= IN_H, "the column pass covers the window");
};

/* The rounded tile in shared memory, rows PITCH bytes apart: 16 more than
 * a row, so that the rows a warp's lanes write fall in different bank
 * groups. */
struct OutTile {
  static constexpr int PITCH = Tile64::TILE_W + 16;
};

/* Where WindowStage puts the window: fp16, HALF_PITCH halves per row
 * (mma.cuh says why the values are exact). */
template <int HALF_PITCH> struct HalfSink {
  __half *plane;
  __device__ __forceinline__ void put (int row, int col, unsigned h01,
      unsigned h23) const
  {
    *reinterpret_cast<uint2 *> (
        plane + row * HALF_PITCH + 4 * col) = make_uint2 (h01, h23);
  }
  __device__ __forceinline__ void quad (int row, int col, unsigned q) const
  {
    put (row, col, bytes_to_half2 (q, SEL_BYTES_01),
        bytes_to_half2 (q, SEL_BYTES_23));
  }
  __device__ __forceinline__ void samples (int row, int col, float4 v) const
  {
    put (row, col, half2_bits (__floats2half2_rn (v.x, v.y)),
        half2_bits (__floats2half2_rn (v.z, v.w)));
  }
};

/* Pairs (taps[d], taps[d + 1]), d = p - TileMma::BAND_ZERO, scaled by 2^e and
 * split into fp16 halves: hi[p] and lo[p], by thread p. */
__device__ __forceinline__ void
build_band (const float *taps, int side, int e, int p, unsigned *hi,
    unsigned *lo)
{
  const int d = p - TileMma::BAND_ZERO;
  const float scale = pow2f (e);
  const float2 pair = make_float2 (d >= 0 && d < side ? taps[d] * scale : 0.0f,
      d + 1 >= 0 && d + 1 < side ? taps[d + 1] * scale : 0.0f);
  split_to_halves (pair, hi[p], lo[p]);
}

/* The column band and the row band (see TileMma::ROW_BAND_THREAD), and the
 * scales: scales[0] takes a column sum to mid as stored (below 2^15, so
 * that fp16 holds it), scales[1] and scales[2] undo mid's and the row
 * taps' scaling. */
template <int R> __device__ __forceinline__ void
build_bands (const TapsSeparable<R> &filter, int tid, unsigned *col_band,
    unsigned *row_band, float *scales)
{
  typedef SepLayout<R> L;
  constexpr int SIDE = 2 * R + 1;
  if (tid < L::COL_BAND) {
    const float *taps = filter.col;
    const float2 m = tap_magnitudes<SIDE> (taps);
    const int e = scale_exponent (m.x, HALF_TAP_TOP);
    const int e_mid = scale_exponent (m.y * SampleTraits<uint8_t>::max, 15);
    if (tid == 0) {
      scales[0] = pow2f (min (max (e_mid - e, -126), 126));
      scales[1] = pow2f (-e_mid);
    }
    build_band (taps, SIDE, e, tid, col_band, col_band + L::COL_BAND);
  } else if (tid >= TileMma::ROW_BAND_THREAD
      && tid < TileMma::ROW_BAND_THREAD + L::ROW_BAND) {
    const float *taps = filter.row;
    const int e = scale_exponent (tap_magnitudes<SIDE> (taps).x, HALF_TAP_TOP);
    if (tid == TileMma::ROW_BAND_THREAD)
      scales[2] = pow2f (-e);
    build_band (taps, SIDE, e, tid - TileMma::ROW_BAND_THREAD, row_band,
        row_band + L::ROW_BAND);
  }
}

/* Fragment registers from a band (BAND high pairs, then BAND low ones):
 * out[h][s][k] is the pair at 16 s + 2 (l % 4) - l / 4 + shift +
 * offsets[k] of half h, for lane l. */
template <int STEPS, int N, int BAND> __device__ __forceinline__ void
band_fragments (const unsigned *band, int shift, const int (&offsets)[N],
    unsigned (&out)[2][STEPS][N])
{
  const int lane = threadIdx.x & 31;
  const int base = 2 * (lane & 3) - (lane >> 2) + shift + TileMma::BAND_ZERO;
#pragma unroll
  for (int h = 0; h < 2; h++)
#pragma unroll
    for (int s = 0; s < STEPS; s++)
#pragma unroll
      for (int k = 0; k < N; k++)
        out[h][s][k] = band[h * BAND + MMA_K * s + base + offsets[k]];
}

/* Column pass, one warp's share. An item is an 8-column chunk of mid and
 * two 16-row blocks; per block, mid = A x window over
 * COL_KSTEPS steps of 16 window rows, the high and the low halves of A
 * summed apart so that four chains of tensor instructions are in flight.
 * Lane l holds A at rows l / 4 and l / 4 + 8, columns 2 (l % 4) + {0, 1,
 * 8, 9} of each step: taps k - m, a pair each. mid is stored scaled by
 * to_mid and split into two fp16 planes. */
template <int R> __device__ __forceinline__ void
column_pass (const __half *window, const unsigned *band, float to_mid,
    __half *mid)
{
  typedef SepLayout<R> L;
  constexpr int BLOCKS_PER_ITEM = 2;
  constexpr int ITEMS_PER_CHUNK = TileMma::BLOCKS / BLOCKS_PER_ITEM;
  const int lane = threadIdx.x & 31, warp = sep_warp ();
  const int g = lane >> 2, t = lane & 3;

  /* A rows g, g + 8, g, g + 8 at columns 2t, 2t, 2t + 8, 2t + 8 */
  const int a_pairs[4] = { 0, -8, 8, 0 };
  unsigned a[2][L::COL_KSTEPS][4];
  band_fragments<L::COL_KSTEPS, 4, L::COL_BAND> (band, 0, a_pairs, a);

#pragma unroll 1
  for (int item = warp; item < L::CHUNKS * ITEMS_PER_CHUNK;
       item += TileMma::WARPS) {
    const int chunk = item / ITEMS_PER_CHUNK;
    const int first = (item - chunk * ITEMS_PER_CHUNK) * BLOCKS_PER_ITEM;
    /* acc[block][high or low half of A] */
    float acc[BLOCKS_PER_ITEM][2][4] = {};
#pragma unroll
    for (int b = 0; b < BLOCKS_PER_ITEM; b++) {
      const __half *rows = window + MMA_M * (first + b) * L::HALF_PITCH
          + MMA_N * chunk;
#pragma unroll
      for (int s = 0; s < L::COL_KSTEPS; s += 2) {
        unsigned m[4];
        if (s + 1 < L::COL_KSTEPS) {
          load_matrices_transposed (m,
              rows + (MMA_K * s + lane) * L::HALF_PITCH);
        } else {
          unsigned m2[2];
          load_matrices_transposed (m2,
              rows + (MMA_K * s + (lane & 15)) * L::HALF_PITCH);
          m[0] = m2[0];
          m[1] = m2[1];
        }
#pragma unroll
        for (int h = 0; h < 2; h++) {
          mma_16x8x16 (acc[b][h], a[h][s], m[0], m[1]);
          if (s + 1 < L::COL_KSTEPS)
            mma_16x8x16 (acc[b][h], a[h][s + 1], m[2], m[3]);
        }
      }
    }
    /* lane l has rows l / 4 and l / 4 + 8, columns 2 (l % 4) and one more */
#pragma unroll
    for (int b = 0; b < BLOCKS_PER_ITEM; b++) {
      float v[4];
#pragma unroll
      for (int k = 0; k < 4; k++)
        v[k] = (acc[b][0][k] + acc[b][1][k]) * to_mid;
      const int at = (MMA_M * (first + b) + g) * L::HALF_PITCH + MMA_N * chunk
          + 2 * t;
#pragma unroll
      for (int r = 0; r < 2; r++) {
        unsigned hi, lo;
        split_to_halves (make_float2 (v[2 * r], v[2 * r + 1]), hi, lo);
        *reinterpret_cast<unsigned *> (mid + at + 8 * r * L::HALF_PITCH) = hi;
        *reinterpret_cast<unsigned *> (
            mid + L::MID_HALVES + at + 8 * r * L::HALF_PITCH) = lo;
      }
    }
  }
}

/* Row pass, one warp's share: output columns 8 w .. 8 w + 7 of all 64
 * rows, for warp w. B holds row taps k - n - LEAD, a pair per register; the
 * rounded samples go to the tile in shared memory. */
template <int R> __device__ __forceinline__ void
row_pass (const __half *mid, const unsigned *band, float from_mid,
    float from_taps, float bias, uint8_t *out)
{
  typedef SepLayout<R> L;
  const int lane = threadIdx.x & 31, warp = sep_warp ();
  const int g = lane >> 2, t = lane & 3;

  /* B rows 2t and 2t + 8 at column g */
  const int b_pairs[2] = { 0, 8 };
  unsigned b[2][L::ROW_KSTEPS][2];
  band_fragments<L::ROW_KSTEPS, 2, L::ROW_BAND> (band, -L::LEAD, b_pairs, b);

  const __half *rows = mid + (lane & 15) * L::HALF_PITCH + MMA_N * warp
      + 8 * (lane >> 4);
#pragma unroll
  for (int blk = 0; blk < TileMma::BLOCKS; blk++) {
    /* hi x hi apart from the two smaller products */
    float big[4] = {}, small[4] = {};
#pragma unroll
    for (int s = 0; s < L::ROW_KSTEPS; s++) {
      unsigned hi[4], lo[4];
      const __half *at = rows + MMA_M * blk * L::HALF_PITCH + MMA_K * s;
      load_a_matrix (hi, at);
      load_a_matrix (lo, at + L::MID_HALVES);
      mma_16x8x16 (big, hi, b[0][s][0], b[0][s][1]);
      mma_16x8x16 (small, hi, b[1][s][0], b[1][s][1]);
      mma_16x8x16 (small, lo, b[0][s][0], b[0][s][1]);
    }
    /* C: rows g and g + 8, columns 2t and 2t + 1 */
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      v[k] = fmaf ((big[k] + small[k]) * from_taps, from_mid, bias);
    const unsigned packed = pack_floor_saturated ((uint8_t *) nullptr, v);
    uint8_t *row = out + (MMA_M * blk + g) * OutTile::PITCH + MMA_N * warp
        + 2 * t;
    *reinterpret_cast<unsigned short *> (row) = (unsigned short) packed;
    *reinterpret_cast<unsigned short *> (
        row + 8 * OutTile::PITCH) = (unsigned short) (packed >> 16);
  }
}

/* The rounded tile from shared memory to the plane: 16-byte stores where
 * the tile lies inside a plane whose rows are 16-byte aligned, sample by
 * sample (what lies inside the plane) elsewhere. */
__device__ __forceinline__ void
store_tile (const uint8_t *out, const ComponentArgs &dst, int x0, int y0,
    int tid)
{
  constexpr int VECS = Tile64::TILE_W / 16;
  if (dst.pixel_stride == 1
      && ((reinterpret_cast<uintptr_t> (dst.data) | dst.pitch) & 15) == 0
      && x0 + Tile64::TILE_W <= dst.width
      && y0 + Tile64::TILE_H <= dst.height) {
#pragma unroll
    for (int k = tid; k < Tile64::TILE_H * VECS; k += Tile64::THREADS) {
      const int row = k / VECS, v = k - row * VECS;
      reinterpret_cast<uint4 *> (dst.data + (size_t) (y0 + row) * dst.pitch
          + (size_t) x0)[v] = reinterpret_cast<const uint4 *> (out
          + row * OutTile::PITCH)[v];
    }
    return;
  }
  for (int k = tid; k < Tile64::TILE_H * Tile64::TILE_W; k += Tile64::THREADS) {
    const int row = k / Tile64::TILE_W, col = k - row * Tile64::TILE_W;
    if (x0 + col < dst.width && y0 + row < dst.height)
      store_rounded<uint8_t> (dst, x0 + col, y0 + row,
          out[row * OutTile::PITCH + col]);
  }
}

/* The window of a tile that lies inside a quad-aligned plane, as the
 * column pass reads it: warp w stages window rows w, w + TileMma::WARPS, ...,
 * lane l quad l of each, so every address is a constant offset from the
 * lane's first and all loads are in flight at once. */
template <int R, typename Sink> __device__ __forceinline__ void
stage_interior (const Sink &sink, const ComponentArgs &src, int wx, int wy)
{
  typedef SepLayout<R> L;
  constexpr int QUADS_X = L::MID_COLS / 4;
  constexpr int ROWS = (L::IN_H + TileMma::WARPS - 1) / TileMma::WARPS;
  static_assert (QUADS_X <= 32, "a lane per quad of a row");
  const int lane = threadIdx.x & 31, warp = sep_warp ();
  if (lane >= QUADS_X)
    return;
  const char *p = src.data + (size_t) (wy + warp) * src.pitch
      + (size_t) (wx + 4 * lane);
  const size_t step = (size_t) TileMma::WARPS * src.pitch;
  unsigned q[ROWS];
#pragma unroll
  for (int n = 0; n < ROWS; n++, p += step)
    if (warp + n * TileMma::WARPS < L::IN_H)
      q[n] = __ldg (reinterpret_cast<const unsigned *> (p));
#pragma unroll
  for (int n = 0; n < ROWS; n++)
    if (warp + n * TileMma::WARPS < L::IN_H)
      sink.quad (warp + n * TileMma::WARPS, lane, q[n]);
}

/* 8-bit planes only (see the top of this file) */
/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <int R>
__global__ void __launch_bounds__ (Tile64::THREADS,
    blocks_that_fit (Tile64::THREADS, 5))
conv_separable (ComponentArgs src, ComponentArgs dst,
    const __grid_constant__ TapsSeparable<R> taps, float offset,
    CcBorder border, TileGrid tiles)
/* clang-format on */
{
  typedef SepLayout<R> L;
  static_assert (Tile64::TILE_H * OutTile::PITCH <= (int) L::MID_OFFSET,
      "the rounded tile fits the window's plane");
  extern __shared__ float4 shared_vec[];
  char *shared = reinterpret_cast<char *> (shared_vec);
  __half *window = reinterpret_cast<__half *> (shared);
  __half *mid = reinterpret_cast<__half *> (shared + L::MID_OFFSET);
  unsigned *col_band = reinterpret_cast<unsigned *> (shared + L::BAND_OFFSET);
  unsigned *row_band = col_band + 2 * L::COL_BAND;
  float *scales = reinterpret_cast<float *> (row_band + 2 * L::ROW_BAND);
  const int tid = threadIdx.y * Tile64::THREADS_X + threadIdx.x;
  const int x0 = tile_x0 (tiles, blockIdx.x, Tile64::TILE_W);
  const int y0 = tile_y0 (tiles, blockIdx.x, Tile64::TILE_H);

  const HalfSink<L::HALF_PITCH> sink{ window };
  const int wx = x0 - R - L::LEAD, wy = y0 - R;
  if (moves_as_quads<uint8_t> (src) && wx >= 0 && wy >= 0
      && wx + L::MID_COLS <= src.width && wy + L::IN_H <= src.height) {
    stage_interior<R> (sink, src, wx, wy);
  } else {
    /* the rim: ghost cells, and planes that do not move as quads */
    typedef WindowStage<uint8_t, L::STAGE_W, L::IN_H, L::LEAD, L::MID_COLS,
        Tile64::THREADS>
        Stage;
    Stage stage;
    stage.load (src, x0 - R, y0 - R);
    stage.store_to (sink, src, x0 - R, y0 - R, border);
  }
  build_bands<R> (taps, tid, col_band, row_band, scales);
  /* rows past the window meet zero taps, but must not hold NaN */
  constexpr int PAD_VECS = (L::STAGE_H - L::IN_H) * L::HALF_PITCH / 8;
  for (int k = tid; k < PAD_VECS; k += Tile64::THREADS)
    reinterpret_cast<uint4 *> (
        window + L::IN_H * L::HALF_PITCH)[k] = make_uint4 (0, 0, 0, 0);
  __syncthreads ();

  column_pass<R> (window, col_band, scales[0], mid);
  __syncthreads ();

  row_pass<R> (mid, row_band, scales[1], scales[2], offset + 0.5f,
      reinterpret_cast<uint8_t *> (shared));
  __syncthreads ();

  store_tile (reinterpret_cast<const uint8_t *> (shared), dst, x0, y0, tid);
}

#endif /* CUDACONV_SEPARABLE_TILE_MMA_CUH */

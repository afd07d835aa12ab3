/* cudaconv: CC_SHAPE_BOX, exact integer sums at a cost that does not grow
 * with the radius.
 *
 * Two kernels over an intermediate of sums in the caller's workspace
 * (uint16_t for 8-bit samples: 255 * 255 = 65025 fits; uint32_t else), in
 * values (raw >> shift):
 *  - row pass: a warp per BoxTuning::ROW_WINDOW - 2r outputs of one row
 *    (ROW_ALIGN fewer where the source moves as vectors). Each lane loads
 *    ROW_ITEMS consecutive values of the warp's window and adds them up in
 *    registers, a warp scan of the lanes' totals turns that into prefix
 *    sums in shared memory, and each output is the difference of two of
 *    them;
 *  - column pass: tiles of BoxTuning::COL_ROWS rows; in a tile, each warp
 *    walks its own run of rows with the running sum of 2r+1 rows (the row
 *    entering added, the row leaving taken off), a lane per column (two
 *    for 8-bit planes of even width, which read the intermediate as
 *    32-bit pairs). The sum a run starts from is put together from the
 *    tile's segment totals, which all warps add up in parallel, so the
 *    radius adds parallel work, not a longer walk (box_columns).
 * Sums stay below 2^32 ((2r+1)^2 * 65535 < 2^32 at r 127) and running sums
 * wrap modulo 2^32 exactly, and the sum is scaled exactly
 * (scale_exact, device.cuh). */
#ifndef CUDACONV_BOX_RUNNING_SUM_CUH
#define CUDACONV_BOX_RUNNING_SUM_CUH

#include <type_traits>

#include "device.cuh"

/* The family's tuning */
struct BoxTuning {
  /* row pass: values per lane, warps per block */
  static constexpr int ROW_ITEMS = 32;
  static constexpr int ROW_WINDOW = 32 * ROW_ITEMS;
  static constexpr int ROW_WARPS = 8;
  /* a padding word every 32, so that lanes reading 32 consecutive words
   * hit 32 banks */
  static constexpr int ROW_SHARED = ROW_WINDOW + ROW_WINDOW / 32;
  /* where the source moves as 16-byte vectors, windows start on multiples
   * of ROW_ALIGN samples: whole vectors of 8- and 16-bit samples */
  static constexpr int ROW_ALIGN = 16;
  /* column pass: output rows of a block's tile (a warp's run of rows is
   * COL_ROWS / COL_WARPS); 32 lanes across the columns */
  static constexpr int COL_ROWS = 256;
  static constexpr int COL_WARPS = 8;
};

/* Two samples of T side by side, stored as one word: the column pass's
 * 8-bit pairs */
template <typename T>
using SamplePair = typename std::conditional<sizeof (T) == 1, uint16_t,
    uint32_t>::type;

__device__ __forceinline__ int
box_pad (int p)
{
  return p + (p >> 5);
}

/* WINDOW values of row y from plane column p0 on (the window's part
 * outside the row through the border): with VEC, runs of ROW_ALIGN
 * inside the row move as 16-byte vectors (p0 a multiple of ROW_ALIGN, the
 * component moving as vectors), the rest one by one. */
template <typename T, bool VEC, int WINDOW>
__device__ __forceinline__ void
box_load_window (unsigned (&v)[WINDOW], const ComponentArgs &src, int p0,
    int y, int shift, CcBorder border)
{
  constexpr int RUN = BoxTuning::ROW_ALIGN;
  const T *row = reinterpret_cast<const T *> (src.data
      + (size_t) y * src.pitch);
#pragma unroll
  for (int c = 0; c < WINDOW; c += RUN) {
    const int p = p0 + c;
    if (VEC && p >= 0 && p + RUN <= src.width) {
      constexpr int PER_VECTOR = 16 / sizeof (T);
#pragma unroll
      for (int q = 0; q < RUN; q += PER_VECTOR) {
        const uint4 w = __ldg (reinterpret_cast<const uint4 *> (row + p + q));
        const T *t = reinterpret_cast<const T *> (&w);
#pragma unroll
        for (int k = 0; k < PER_VECTOR; k++)
          v[c + q + k] = (unsigned) t[k] >> shift;
      }
    } else {
#pragma unroll
      for (int k = 0; k < RUN; k++) {
        const int bx = cc_border_index (p + k, src.width, border);
        v[c + k] = bx < 0 ? 0u : load_value<T> (src, bx, y, shift);
      }
    }
  }
}

/* Row y's sums of 2r+1 values, for the segment [x0, x0 + segment) of warp
 * task blockIdx.x * ROW_WARPS + warp. The warp's window of ROW_WINDOW
 * values starts at ws, x0 - r (rounded down to ROW_ALIGN with VEC); lane
 * l holds window positions [l ITEMS, l ITEMS + ITEMS) in registers, adds
 * them up there, and a warp scan of the lanes' totals turns them into the
 * window's prefix sums in shared memory; each output is the difference of
 * two of them. */
template <typename T, typename H, bool VEC>
__global__ void __launch_bounds__ (32 * BoxTuning::ROW_WARPS)
box_rows (ComponentArgs src, H *mid, int mid_pitch, int radius, int shift,
    CcBorder border, int segments, int segment)
{
  constexpr int ITEMS = BoxTuning::ROW_ITEMS;
  __shared__ unsigned sums[BoxTuning::ROW_WARPS][BoxTuning::ROW_SHARED];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int task = blockIdx.x * BoxTuning::ROW_WARPS + warp;
  const int y = task / segments;
  const int x0 = (task - y * segments) * segment;
  /* the mask rounds toward minus infinity, negative starts included */
  const int ws = VEC ? (x0 - radius) & -BoxTuning::ROW_ALIGN : x0 - radius;
  unsigned *s = sums[warp];
  if (y >= src.height)
    return;

  unsigned v[ITEMS];
  box_load_window<T, VEC> (v, src, ws + lane * ITEMS, y, shift, border);
#pragma unroll
  for (int i = 1; i < ITEMS; i++)
    v[i] += v[i - 1];
  /* the lanes before this one: an exclusive warp scan of the totals */
  const unsigned total = v[ITEMS - 1];
  unsigned before = total;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const unsigned up = __shfl_up_sync (0xffffffffu, before, d);
    if (lane >= d)
      before += up;
  }
  before -= total;
#pragma unroll
  for (int i = 0; i < ITEMS; i++)
    s[box_pad (lane * ITEMS + i)] = before + v[i];
  __syncwarp ();

  /* out(x) = P(x + r) - P(x - r - 1), P the window's inclusive prefix
   * sums, indexed from ws; P(ws - 1) is 0 */
  H *out = mid + (size_t) y * mid_pitch;
  const int x1 = min (x0 + segment, src.width);
  for (int x = x0 + lane; x < x1; x += 32) {
    const int high = x + radius - ws, low = x - radius - 1 - ws;
    out[x] = (H) (s[box_pad (high)] - (low >= 0 ? s[box_pad (low)] : 0u));
  }
}

/* mid row i of the plane's height, by the border; -1 for a zero row */
__device__ __forceinline__ int
box_row (int i, int h, CcBorder border)
{
  return (unsigned) i < (unsigned) h ? i : cc_border_index (i, h, border);
}

/* COLS consecutive entries of a mid row: one, or two of 16 bits read as a
 * 32-bit word; a zero row (sy < 0) reads as zeros */
template <typename H, int COLS> struct BoxColumns {
  unsigned v[COLS];
  __device__ __forceinline__ void load (const H *column, int sy, int pitch)
  {
    if (sy < 0) {
#pragma unroll
      for (int k = 0; k < COLS; k++)
        v[k] = 0;
    } else if (COLS == 2) {
      const unsigned w = __ldg (reinterpret_cast<const unsigned *> (
          column + (size_t) sy * pitch));
      v[0] = w & 0xffffu;
      v[COLS - 1] = w >> 16;
    } else {
      v[0] = __ldg (column + (size_t) sy * pitch);
    }
  }
};

/* The sum over rows [first, first + n) of the tile's mid rows, where local
 * row i is plane row y0 - r + i */
template <typename H, int COLS>
__device__ __forceinline__ void
box_add_rows (unsigned sum[COLS], const H *column, int pitch, int y0, int r,
    int first, int n, int h, CcBorder border)
{
#pragma unroll 8
  for (int i = first; i < first + n; i++) {
    BoxColumns<H, COLS> c;
    c.load (column, box_row (y0 - r + i, h, border), pitch);
#pragma unroll
    for (int k = 0; k < COLS; k++)
      sum[k] += c.v[k];
  }
}

/* A tile of BoxTuning::COL_ROWS output rows of 32 * COLS columns: output
 * row t of the tile (plane row y0 + t) is the sum of local mid rows
 * [t, t + 2r], local row i being plane row y0 - r + i. Warp w writes rows
 * [w K, w K + K), K = COL_ROWS / COL_WARPS, with a running sum; the sum it
 * starts from is made of whole segments of K local rows, which the block
 * adds up first, a segment per warp at a time, plus fewer than K rows of
 * its own. A thread so reads at most K rows for each COL_WARPS segments
 * of the tile (COL_WARPS - 1 + 2r / K of them), fewer than K rows of its
 * own and 2K rows on its walk (127 rows at r127, 64 + 31 + 32), where one
 * walk from the window's start would read 2r + 1 + 2K: a radius adds work
 * across the block's warps more than to one walk. */
template <typename T, typename H, int COLS>
__global__ void __launch_bounds__ (32 * BoxTuning::COL_WARPS)
box_columns (ComponentArgs dst, const H *mid, int mid_pitch, int radius,
    double scale, double offset, unsigned max_value, int shift,
    CcBorder border, bool pair_out)
{
  constexpr int K = BoxTuning::COL_ROWS / BoxTuning::COL_WARPS;
  /* segments of K local rows up to row COL_ROWS - 1 + 2r */
  constexpr int MAX_SEGMENTS = BoxTuning::COL_WARPS
      + (2 * CC_MAX_WIDE_RADIUS + K - 1) / K;
  __shared__ unsigned totals[MAX_SEGMENTS][32 * COLS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int x = (blockIdx.x * 32 + lane) * COLS;
  const int y0 = blockIdx.y * BoxTuning::COL_ROWS;
  const int h = dst.height, r = radius;
  const int whole = (2 * r + 1) / K;  /* whole segments in a window */
  const bool inside = x < dst.width;
  const H *column = mid + (inside ? x : 0);

  /* segments [warp + whole * j] that some warp's start needs: those from
   * warp 0's first to the last warp's last whole one */
  const int segments = BoxTuning::COL_WARPS - 1 + whole;
  for (int j = warp; j < segments && whole > 0; j += BoxTuning::COL_WARPS) {
    unsigned s[COLS] = {};
    if (inside)
      box_add_rows<H, COLS> (s, column, mid_pitch, y0, r, j * K, K, h,
          border);
#pragma unroll
    for (int k = 0; k < COLS; k++)
      totals[j][lane * COLS + k] = s[k];
  }
  __syncthreads ();
  if (!inside)
    return;

  const int t0 = warp * K;
  if (y0 + t0 >= h)
    return;
  unsigned sum[COLS] = {};
  for (int j = warp; j < warp + whole; j++)
#pragma unroll
    for (int k = 0; k < COLS; k++)
      sum[k] += totals[j][lane * COLS + k];
  box_add_rows<H, COLS> (sum, column, mid_pitch, y0, r, t0 + whole * K,
      2 * r + 1 - whole * K, h, border);

  const int t1 = min (t0 + K, h - y0);
#pragma unroll 4
  for (int t = t0; t < t1; t++) {
    unsigned out[COLS];
#pragma unroll
    for (int k = 0; k < COLS; k++)
      out[k] = scale_exact (sum[k], scale, offset, max_value);
    if (COLS == 2 && pair_out) {
      /* both samples in one store of twice their size */
      reinterpret_cast<SamplePair<T> *> (dst.data + (size_t) (y0 + t)
          * dst.pitch)[x / 2] = (SamplePair<T>) (out[0] << shift
          | out[COLS - 1] << shift << (8 * sizeof (T)));
    } else {
#pragma unroll
      for (int k = 0; k < COLS; k++)
        store_value<T> (dst, x + k, y0 + t, out[k], shift);
    }
    /* local row t + 2r + 1 enters, local row t leaves */
    BoxColumns<H, COLS> a, b;
    a.load (column, box_row (y0 + t + r + 1, h, border), mid_pitch);
    b.load (column, box_row (y0 + t - r, h, border), mid_pitch);
#pragma unroll
    for (int k = 0; k < COLS; k++)
      sum[k] += a.v[k] - b.v[k];
  }
}

#endif /* CUDACONV_BOX_RUNNING_SUM_CUH */

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
 *  - column pass: tiles of BoxTuning::COL_ROWS rows; in a tile, each
 *    warp walks its own run of rows with the running sum of 2r+1 rows (the row
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

#include <climits>
#include <type_traits>

#include "box.cuh"

/* The family's tuning, the kernels' policy: box_launch<P> runs them with
 * another (tools/box-sweep.cu times several) */
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
  static constexpr int COL_WARPS = 16;
  /* blocks an SM should hold, which gives ptxas 64 registers a thread
   * (with none asked it took 48 and spilled) */
  static constexpr int COL_BLOCKS = 2;
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

/* Row y's sums of 2r+1 values, for the segment [x0, x0 + segment) of warp
 * task blockIdx.x * ROW_WARPS + warp. The warp's window of ROW_WINDOW
 * values starts at ws, x0 - r (rounded down to ROW_ALIGN with VEC); lane
 * l holds window positions [l ITEMS, l ITEMS + ITEMS) in registers, adds
 * them up there, and a warp scan of the lanes' totals turns them into the
 * window's prefix sums in shared memory; each output is the difference of
 * two of them. */
template <typename P, typename T, typename H, bool VEC>
__global__ void __launch_bounds__ (32 * P::ROW_WARPS)
box_rows (ComponentArgs src, H *mid, int mid_pitch, int radius, int shift,
    CcBorder border, int segments, int segment)
{
  constexpr int ITEMS = P::ROW_ITEMS;
  __shared__ unsigned sums[P::ROW_WARPS][P::ROW_SHARED];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int task = blockIdx.x * P::ROW_WARPS + warp;
  const int y = task / segments;
  const int x0 = (task - y * segments) * segment;
  /* the mask rounds toward minus infinity, negative starts included */
  const int ws = VEC ? (x0 - radius) & -P::ROW_ALIGN : x0 - radius;
  unsigned *s = sums[warp];
  if (y >= src.height)
    return;

  unsigned v[ITEMS];
  box_load_window<T, VEC, ITEMS, P::ROW_ALIGN> (v, src, ws + lane * ITEMS,
      y, shift, border);
#pragma unroll
  for (int i = 1; i < ITEMS; i++)
    v[i] += v[i - 1];
  /* the lanes before this one: an exclusive warp scan of the totals */
  const unsigned before = warp_exclusive_sum (v[ITEMS - 1], lane);
#pragma unroll
  for (int i = 0; i < ITEMS; i++)
    s[box_pad (lane * ITEMS + i)] = before + v[i];
  __syncwarp ();

  /* out(x) = P(x + r) - P(x - r - 1), P the window's inclusive prefix
   * sums, indexed from ws; P(ws - 1) is 0. A lane's outputs are 32 apart,
   * so both of its indices into the padded sums step by 33: only the
   * first low one can be -1 */
  const int x = x0 + lane;
  const int n = (min (x0 + segment, src.width) - x + 31) / 32;
  if (n <= 0)
    return;
  H *out = mid + (size_t) y * mid_pitch + x;
  const unsigned *high = s + box_pad (x + radius - ws);
  const int low0 = x - radius - 1 - ws;
  out[0] = (H) (high[0] - (low0 >= 0 ? s[box_pad (low0)] : 0u));
  const unsigned *low = s + box_pad (low0 + 32);
#pragma unroll 4
  for (int k = 1; k < n; k++)
    out[32 * k] = (H) (high[33 * k] - low[33 * (k - 1)]);
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

/* The thread's columns of mid, row by plane row: through the border
 * where the tile's rows reach past the plane (EDGE), else as they are */
template <typename H, int COLS, bool EDGE> struct BoxMid {
  const H *column;
  int pitch, h;
  CcBorder border;
  __device__ __forceinline__ BoxColumns<H, COLS> row (int i) const
  {
    BoxColumns<H, COLS> c;
    c.load (column, EDGE ? box_row (i, h, border) : i, pitch);
    return c;
  }
  /* the sum over plane rows [first, first + n) */
  __device__ __forceinline__ void add_rows (unsigned (&sum)[COLS], int first,
      int n) const
  {
#pragma unroll 8
    for (int i = first; i < first + n; i++) {
      const BoxColumns<H, COLS> c = row (i);
#pragma unroll
      for (int k = 0; k < COLS; k++)
        sum[k] += c.v[k];
    }
  }
};

/* A tile of P::COL_ROWS (the policy's) output rows of 32 * COLS columns:
 * output row t of the tile (plane row y0 + t) is the sum of local mid rows
 * [t, t + 2r], local row i being plane row y0 - r + i. Warp w writes rows
 * [w K, w K + K), K = COL_ROWS / COL_WARPS, with a running sum; the sum it
 * starts from is made of whole segments of K local rows, which the block
 * adds up first, a segment per warp at a time, plus fewer than K rows of
 * its own. A thread so reads at most K rows for each COL_WARPS segments
 * of the tile (COL_WARPS - 1 + 2r / K of them), fewer than K rows of its
 * own and 2K rows on its walk (79 rows at r127 with BoxTuning: 32 + 15 +
 * 32), where one walk from the window's start would read 2r + 1 + 2K: a
 * radius adds work across the block's warps more than to one walk. A tile whose rows all
 * lie inside the plane reads them without the border's arithmetic
 * (box_tile<..., false>). */
template <typename P, typename T, typename H, int COLS, bool EDGE>
__device__ __forceinline__ void
box_tile (const BoxMid<H, COLS, EDGE> &mid, const ComponentArgs &dst, int x,
    int y0, int r, double scale, double offset, unsigned max_value,
    int shift, bool inside, bool pair_out, unsigned (*totals)[32 * COLS])
{
  constexpr int K = P::COL_ROWS / P::COL_WARPS;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int h = dst.height;
  const int whole = (2 * r + 1) / K; /* whole segments in a window */

  /* segments [warp + whole * j] that some warp's start needs: those from
   * warp 0's first to the last warp's last whole one */
  const int segments = P::COL_WARPS - 1 + whole;
  for (int j = warp; j < segments && whole > 0; j += P::COL_WARPS) {
    unsigned s[COLS] = {};
    if (inside)
      mid.add_rows (s, y0 - r + j * K, K);
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
  mid.add_rows (sum, y0 - r + t0 + whole * K, 2 * r + 1 - whole * K);

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
    const BoxColumns<H, COLS> a = mid.row (y0 + t + r + 1);
    const BoxColumns<H, COLS> b = mid.row (y0 + t - r);
#pragma unroll
    for (int k = 0; k < COLS; k++)
      sum[k] += a.v[k] - b.v[k];
  }
}

/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename P, typename T, typename H, int COLS>
__global__ void __launch_bounds__ (32 * P::COL_WARPS,
    blocks_that_fit (32 * P::COL_WARPS, P::COL_BLOCKS))
box_columns (ComponentArgs dst, const H *mid, int mid_pitch, int radius,
    double scale, double offset, unsigned max_value, int shift,
    CcBorder border, bool pair_out)
/* clang-format on */
{
  constexpr int K = P::COL_ROWS / P::COL_WARPS;
  /* segments of K local rows up to row COL_ROWS - 1 + 2r */
  constexpr int MAX_SEGMENTS = P::COL_WARPS
      + (2 * CC_MAX_WIDE_RADIUS + K - 1) / K;
  __shared__ unsigned totals[MAX_SEGMENTS][32 * COLS];
  const int lane = threadIdx.x & 31;
  const int x = (blockIdx.x * 32 + lane) * COLS;
  const int y0 = blockIdx.y * P::COL_ROWS;
  const int h = dst.height, r = radius;
  const bool inside = x < dst.width;
  const H *column = mid + (inside ? x : 0);
  /* the rows the tile reads: y0 - r (a segment's first) to y0 + COL_ROWS
   * + r (the last row entering) */
  if (y0 - r >= 0 && y0 + P::COL_ROWS + r < h)
    box_tile<P, T, H, COLS, false> (BoxMid<H, COLS, false>{ column,
        mid_pitch, h, border }, dst, x, y0, r, scale, offset, max_value,
        shift, inside, pair_out, totals);
  else
    box_tile<P, T, H, COLS, true> (BoxMid<H, COLS, true>{ column,
        mid_pitch, h, border }, dst, x, y0, r, scale, offset, max_value,
        shift, inside, pair_out, totals);
}

/* Which of the two kernels box_launch runs: both (the family), or one of
 * them on its own (tools/box-sweep.cu times them apart) */
enum BoxPasses { BOX_ROWS = 1, BOX_COLUMNS = 2, BOX_BOTH = 3 };

/* The row pass into l's workspace, then the column pass from it into
 * l.dst, with policy P; T the sample type, H the sums' */
template <typename P, typename T, typename H> static cudaError_t
box_launch (const Launch &l, BoxPasses passes = BOX_BOTH)
{
  const int r = l.radius ();
  H *mid = static_cast<H *> (l.workspace);
  const bool vec = moves_as_vectors<uint4> (l.src);
  const int segment = P::ROW_WINDOW - 2 * r - (vec ? P::ROW_ALIGN : 0);
  const int segments = (l.width + segment - 1) / segment;
  const long long row_blocks = ((long long) segments * l.height
                                   + P::ROW_WARPS - 1)
      / P::ROW_WARPS;
  if (row_blocks > INT_MAX || segment <= 0)
    return cudaErrorInvalidValue;
  const int shift = l.shift;
  const unsigned max_value = l.max_value;
  if (passes & BOX_ROWS) {
    const cudaError_t err = vec ?
        launch_kernel (box_rows<P, T, H, true>, (unsigned) row_blocks,
            32 * P::ROW_WARPS, 0, l.stream, false, l.src, mid, l.width, r,
            shift, l.border, segments, segment) :
        launch_kernel (box_rows<P, T, H, false>, (unsigned) row_blocks,
            32 * P::ROW_WARPS, 0, l.stream, false, l.src, mid, l.width, r,
            shift, l.border, segments, segment);
    if (err != cudaSuccess || !(passes & BOX_COLUMNS))
      return err;
  }

  /* pairs of 16-bit sums where every row starts on 4 bytes */
  const bool pairs = sizeof (H) == 2 && l.width % 2 == 0
      && reinterpret_cast<uintptr_t> (mid) % 4 == 0;
  const int cols = pairs ? 2 : 1;
  const int threads = (l.width + cols - 1) / cols;
  const dim3 grid ((threads + 31) / 32,
      (l.height + P::COL_ROWS - 1) / P::COL_ROWS);
  const int block = 32 * P::COL_WARPS;
  const double scale = l.filter->scale, offset = l.filter->offset;
  if (grid.y > MAX_GRID_Y)
    return cudaErrorInvalidValue;
  /* and the output's pairs as one store, where they are aligned */
  const bool pair_out = pairs && moves_as_vectors<SamplePair<T> > (l.dst);
  if (pairs)
    return launch_kernel (box_columns<P, T, H, 2>, grid, block, 0, l.stream,
        false, l.dst, mid, l.width, r, scale, offset, max_value, shift,
        l.border, pair_out);
  return launch_kernel (box_columns<P, T, H, 1>, grid, block, 0, l.stream,
      false, l.dst, mid, l.width, r, scale, offset, max_value, shift,
      l.border, false);
}

#endif /* CUDACONV_BOX_RUNNING_SUM_CUH */

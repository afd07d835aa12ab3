/* cudaconv: CC_SHAPE_BOX, exact integer sums at a cost that does not grow
 * with the radius.
 *
 * Two kernels over an intermediate of sums in the caller's workspace
 * (uint16_t for 8-bit samples: 255 * 255 = 65025 fits; uint32_t else), in
 * values (raw >> shift):
 *  - row pass: a warp per BoxTuning::ROW_WINDOW - 2r outputs of one row.
 *    The warp stages its window's values in shared memory, each lane takes
 *    ROW_ITEMS consecutive ones and adds them up in registers, a warp scan
 *    of the lanes' totals turns that into prefix sums in shared memory, and
 *    each output is the difference of two of them;
 *  - column pass: a thread per column (two for 8-bit planes of even
 *    width, which read the intermediate as 32-bit pairs) walks down a chunk
 *    of rows with the running sum of 2r+1 rows: the row entering added,
 *    the row leaving taken off. A chunk starts by adding its first 2r+1
 *    rows, so chunks of about 2r+1 rows (BoxTuning::chunk_rows) trade that
 *    start against the threads a plane gives.
 * Sums stay below 2^32 ((2r+1)^2 * 65535 < 2^32 at r 127) and running sums
 * wrap modulo 2^32 exactly, and the sum is scaled exactly
 * (scale_exact, device.cuh). */
#ifndef CUDACONV_BOX_RUNNING_SUM_CUH
#define CUDACONV_BOX_RUNNING_SUM_CUH

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
  /* column pass: threads per block; the fewest rows of a chunk; the
   * threads per SM wanted before chunks grow past 2r+1 rows */
  static constexpr int COL_THREADS = 128;
  static constexpr int COL_MIN_ROWS = 32;
  static constexpr int COL_SM_THREADS = 1024;
};

__device__ __forceinline__ int
box_pad (int p)
{
  return p + (p >> 5);
}

/* Row y's sums of 2r+1 values, for the segment of warp task blockIdx.x *
 * ROW_WARPS + warp */
template <typename T, typename H>
__global__ void __launch_bounds__ (32 * BoxTuning::ROW_WARPS)
box_rows (ComponentArgs src, H *mid, int mid_pitch, int radius, int shift,
    CcBorder border, int segments)
{
  constexpr int ITEMS = BoxTuning::ROW_ITEMS;
  __shared__ unsigned sums[BoxTuning::ROW_WARPS][BoxTuning::ROW_SHARED];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int segment = BoxTuning::ROW_WINDOW - 2 * radius;
  const int task = blockIdx.x * BoxTuning::ROW_WARPS + warp;
  const int y = task / segments;
  const int x0 = (task - y * segments) * segment;
  unsigned *s = sums[warp];
  if (y >= src.height)
    return;

  /* window position p holds source column x0 - r + p */
  for (int p = lane; p < BoxTuning::ROW_WINDOW; p += 32) {
    const int bx = cc_border_index (x0 - radius + p, src.width, border);
    s[box_pad (p)] = bx < 0 ? 0u : load_value<T> (src, bx, y, shift);
  }
  __syncwarp ();
  unsigned v[ITEMS], total = 0;
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    total += s[box_pad (lane * ITEMS + i)];
    v[i] = total;
  }
  /* the lanes before this one: an exclusive warp scan of the totals */
  unsigned before = total;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const unsigned up = __shfl_up_sync (0xffffffffu, before, d);
    if (lane >= d)
      before += up;
  }
  before -= total;
  __syncwarp ();
#pragma unroll
  for (int i = 0; i < ITEMS; i++)
    s[box_pad (lane * ITEMS + i)] = before + v[i];
  __syncwarp ();

  /* out(x) = P(x + 2r) - P(x - 1), P the inclusive prefix sums */
  H *out = mid + (size_t) y * mid_pitch + x0;
  for (int x = lane; x < segment && x0 + x < src.width; x += 32) {
    const unsigned high = s[box_pad (x + 2 * radius)];
    const unsigned low = x > 0 ? s[box_pad (x - 1)] : 0u;
    out[x] = (H) (high - low);
  }
}

/* mid row i of the plane's height, by the border; -1 for a zero row */
__device__ __forceinline__ int
box_row (int i, int h, CcBorder border)
{
  return (unsigned) i < (unsigned) h ? i : cc_border_index (i, h, border);
}

/* COLS consecutive entries of a mid row: one, or two of 16 bits read as a
 * 32-bit word */
template <typename H, int COLS> struct BoxColumns {
  unsigned v[COLS];
  __device__ __forceinline__ void load (const H *p)
  {
    if (COLS == 2) {
      const unsigned w = __ldg (reinterpret_cast<const unsigned *> (p));
      v[0] = w & 0xffffu;
      v[COLS - 1] = w >> 16;
    } else {
      v[0] = __ldg (p);
    }
  }
};

/* Columns blockIdx.x * COL_THREADS + threadIdx.x (times COLS), rows of
 * chunk blockIdx.y: the running sum of 2r+1 mid rows, scaled and stored */
template <typename T, typename H, int COLS>
__global__ void __launch_bounds__ (BoxTuning::COL_THREADS)
box_columns (ComponentArgs dst, const H *mid, int mid_pitch, int radius,
    int chunk_rows, double scale, double offset, unsigned max_value,
    int shift, CcBorder border)
{
  const int x = (blockIdx.x * BoxTuning::COL_THREADS + threadIdx.x) * COLS;
  const int h = dst.height;
  const int y0 = blockIdx.y * chunk_rows;
  const int y1 = min (h, y0 + chunk_rows);
  if (x >= dst.width)
    return;
  const H *column = mid + x;
  unsigned sum[COLS] = {};
#pragma unroll 8
  for (int i = y0 - radius; i <= y0 + radius; i++) {
    const int sy = box_row (i, h, border);
    if (sy >= 0) {
      BoxColumns<H, COLS> c;
      c.load (column + (size_t) sy * mid_pitch);
#pragma unroll
      for (int k = 0; k < COLS; k++)
        sum[k] += c.v[k];
    }
  }
#pragma unroll 4
  for (int y = y0; y < y1; y++) {
#pragma unroll
    for (int k = 0; k < COLS; k++)
      store_value<T> (dst, x + k, y,
          scale_exact (sum[k], scale, offset, max_value), shift);
    const int in = box_row (y + radius + 1, h, border);
    const int out = box_row (y - radius, h, border);
    BoxColumns<H, COLS> a, b;
    if (in >= 0) {
      a.load (column + (size_t) in * mid_pitch);
#pragma unroll
      for (int k = 0; k < COLS; k++)
        sum[k] += a.v[k];
    }
    if (out >= 0) {
      b.load (column + (size_t) out * mid_pitch);
#pragma unroll
      for (int k = 0; k < COLS; k++)
        sum[k] -= b.v[k];
    }
  }
}

#endif /* CUDACONV_BOX_RUNNING_SUM_CUH */

/* cudaconv: the launchers of the box-running-sum family
 * (box-running-sum.cuh). */
#include <climits>

#include "families.cuh"
#include "box-running-sum.cuh"

/* one sum per sample, rows of width sums */
size_t
box_running_sum_workspace (const Launch &l)
{
  return (l.sample == CC_SAMPLE_U8 ? sizeof (uint16_t) : sizeof (uint32_t))
      * (size_t) l.width * (size_t) l.height;
}

template <typename T, typename H> static cudaError_t
launch_box (const Launch &l)
{
  const int r = l.radius ();
  H *mid = static_cast<H *> (l.workspace);
  const bool vec = moves_as_vectors<uint4> (l.src);
  const int segment = BoxTuning::ROW_WINDOW - 2 * r
      - (vec ? BoxTuning::ROW_ALIGN : 0);
  const int segments = (l.width + segment - 1) / segment;
  const long long row_blocks = ((long long) segments * l.height
                                   + BoxTuning::ROW_WARPS - 1)
      / BoxTuning::ROW_WARPS;
  if (row_blocks > INT_MAX)
    return cudaErrorInvalidValue;
  const int shift = l.shift;
  const unsigned max_value = l.max_value;
  cudaError_t err = vec ?
      launch_kernel (box_rows<T, H, true>, (unsigned) row_blocks,
          32 * BoxTuning::ROW_WARPS, 0, l.stream, false, l.src, mid, l.width,
          r, shift, l.border, segments, segment) :
      launch_kernel (box_rows<T, H, false>, (unsigned) row_blocks,
          32 * BoxTuning::ROW_WARPS, 0, l.stream, false, l.src, mid, l.width,
          r, shift, l.border, segments, segment);
  if (err != cudaSuccess)
    return err;

  /* pairs of 16-bit sums where every row starts on 4 bytes */
  const bool pairs = sizeof (H) == 2 && l.width % 2 == 0
      && reinterpret_cast<uintptr_t> (mid) % 4 == 0;
  const int cols = pairs ? 2 : 1;
  const int threads = (l.width + cols - 1) / cols;
  const dim3 grid ((threads + 31) / 32,
      (l.height + BoxTuning::COL_ROWS - 1) / BoxTuning::COL_ROWS);
  const int block = 32 * BoxTuning::COL_WARPS;
  const double scale = l.filter->scale, offset = l.filter->offset;
  /* and the output's pairs as one store, where they are aligned */
  const bool pair_out = pairs && moves_as_vectors<SamplePair<T> > (l.dst);
  if (pairs)
    return launch_kernel (box_columns<T, H, 2>, grid, block, 0, l.stream,
        false, l.dst, mid, l.width, r, scale, offset, max_value, shift,
        l.border, pair_out);
  return launch_kernel (box_columns<T, H, 1>, grid, block, 0, l.stream,
      false, l.dst, mid, l.width, r, scale, offset, max_value, shift,
      l.border, false);
}

cudaError_t
launch_box_running_sum (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ? launch_box<uint8_t, uint16_t> (l) :
                                    launch_box<uint16_t, uint32_t> (l);
}

/* cudaconv: the launchers of the separable-wide family
 * (separable-wide.cuh). */
#include <climits>

#include "families.cuh"
#include "separable-wide.cuh"

/* one float per sample, rows of width floats */
size_t
separable_wide_workspace (const Launch &l)
{
  return sizeof (float) * (size_t) l.width * (size_t) l.height;
}

static WideFactor
wide_factor (const float *taps, int radius)
{
  WideFactor f = {};
  for (int k = 0; k <= 2 * radius; k++)
    f.t[k] = taps[k];
  return f;
}

template <typename T> static cudaError_t
launch_wide (const Launch &l)
{
  const int r = l.radius ();
  float *mid = static_cast<float *> (l.workspace);
  const int segments = (l.width + WideTuning::ROW_SEGMENT - 1)
      / WideTuning::ROW_SEGMENT;
  const long long tasks = (long long) segments * l.height;
  const long long row_blocks = (tasks + WideTuning::ROW_WARPS - 1)
      / WideTuning::ROW_WARPS;
  const size_t shared = sizeof (float) * WideTuning::ROW_WARPS
      * WideTuning::row_window (r);
  if (row_blocks > INT_MAX)
    return cudaErrorInvalidValue;
  cudaError_t err = launch_kernel (wide_rows<T>, (unsigned) row_blocks,
      32 * WideTuning::ROW_WARPS, shared, l.stream, false, l.src, mid, l.width,
      wide_factor (l.filter->row_taps, r), r, l.border, segments);
  if (err != cudaSuccess)
    return err;
  const TileGrid tiles = tile_grid (l, WideTuning::COL_THREADS_X,
      WideTuning::COL_TILE_H);
  return launch_kernel (wide_columns<T>, tiles.count,
      dim3 (WideTuning::COL_THREADS_X, WideTuning::COL_THREADS_Y), 0, l.stream,
      false, l.src, l.dst, mid, l.width, wide_factor (l.filter->col_taps, r),
      l.filter->centre, r, l.offset, l.border, tiles);
}

cudaError_t
launch_separable_wide (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ? launch_wide<uint8_t> (l) :
                                    launch_wide<uint16_t> (l);
}

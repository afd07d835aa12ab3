/* cudaconv: the launcher of the block-mean family (block-mean.cuh). */
#include <algorithm>
#include <climits>

#include "families.cuh"
#include "block-mean.cuh"

/* The blocks' grid of l's component */
static BlockGrid
block_grid (const Launch &l)
{
  BlockGrid g;
  g.side = 2 * l.radius () + 1;
  g.columns = (l.width + g.side - 1) / g.side;
  g.rows = (l.height + g.side - 1) / g.side;
  g.band_rows = BlockMeanTuning::BAND_ROWS;
  g.bands = (g.side + g.band_rows - 1) / g.band_rows;
  return g;
}

/* one sum per block of the larger sizes */
size_t
block_mean_workspace (const Launch &l)
{
  const BlockGrid g = block_grid (l);
  if (g.side * g.side <= BlockMeanTuning::THREAD_AREA)
    return 0;
  return sizeof (unsigned) * (size_t) g.columns * (size_t) g.rows;
}

template <typename T> static cudaError_t
launch_blocks (const Launch &l)
{
  const BlockGrid g = block_grid (l);
  const double scale = l.filter->scale, offset = l.filter->offset;
  if (g.side * g.side <= BlockMeanTuning::THREAD_AREA) {
    const long long count = (long long) g.columns * g.rows;
    const long long blocks = (count + BlockMeanTuning::THREAD_BLOCK - 1)
        / BlockMeanTuning::THREAD_BLOCK;
    if (blocks > INT_MAX)
      return cudaErrorInvalidValue;
    return launch_kernel (block_mean_small<T>, (unsigned) blocks,
        BlockMeanTuning::THREAD_BLOCK, 0, l.stream, false, l.src, l.dst, g,
        scale, offset, l.max_value, l.shift);
  }
  /* the kernels step through rows and bands past what a grid's y takes */
  const long long bands = (long long) g.rows * g.bands;
  unsigned *sums = static_cast<unsigned *> (l.workspace);
  cudaError_t err = cudaMemsetAsync (sums, 0, block_mean_workspace (l),
      l.stream);
  if (err != cudaSuccess)
    return err;
  constexpr int QUAD = BlockMeanTuning::QUAD;
  const bool quads_in = moves_as_quads<T> (l.src);
  const int in_columns = BlockMeanTuning::SUM_THREADS * (quads_in ? QUAD : 1);
  const dim3 sum_grid ((l.width + in_columns - 1) / in_columns,
      (unsigned) std::min (bands, 65535LL));
  err = quads_in ?
      launch_kernel (block_mean_sums<T, QUAD>, sum_grid,
          BlockMeanTuning::SUM_THREADS, 0, l.stream, false, l.src, g, sums,
          l.shift) :
      launch_kernel (block_mean_sums<T, 1>, sum_grid,
          BlockMeanTuning::SUM_THREADS, 0, l.stream, false, l.src, g, sums,
          l.shift);
  if (err != cudaSuccess)
    return err;
  const bool quads_out = moves_as_quads<T> (l.dst);
  const int out_columns = BlockMeanTuning::FILL_THREADS
      * (quads_out ? QUAD : 1);
  const dim3 fill_grid ((l.width + out_columns - 1) / out_columns,
      std::min ((l.height + BlockMeanTuning::FILL_ROWS - 1)
          / BlockMeanTuning::FILL_ROWS, 65535));
  if (quads_out)
    return launch_kernel (block_mean_fill<T, QUAD>, fill_grid,
        BlockMeanTuning::FILL_THREADS, 0, l.stream, false, l.dst, g, sums,
        scale, offset, l.max_value, l.shift);
  return launch_kernel (block_mean_fill<T, 1>, fill_grid,
      BlockMeanTuning::FILL_THREADS, 0, l.stream, false, l.dst, g, sums,
      scale, offset, l.max_value, l.shift);
}

cudaError_t
launch_block_mean (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ? launch_blocks<uint8_t> (l) :
                                    launch_blocks<uint16_t> (l);
}

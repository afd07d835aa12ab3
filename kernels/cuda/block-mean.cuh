/* cudaconv: CC_SHAPE_BLOCKS (pixelate), one pass: each block of 2r+1 x
 * 2r+1 samples from the component's first (smaller at the right and bottom
 * edges) becomes its scale (cc_block_scale: the mean of its real samples)
 * times the exact sum of its values, + offset, everywhere in it.
 *  - blocks of up to BlockMeanTuning::THREAD_AREA samples (r <= 1): a
 *    thread per block, which reads and writes it alone;
 *  - larger ones: two kernels over the blocks' sums in the workspace,
 *    so that each sample is read once and written once by enough threads
 *    to fill the GPU whatever the radius: block_mean_sums adds up bands
 *    of rows a thread per column, block_mean_fill writes a thread per
 *    sample. */
#ifndef CUDACONV_BLOCK_MEAN_CUH
#define CUDACONV_BLOCK_MEAN_CUH

#include "device.cuh"

/* The family's tuning */
struct BlockMeanTuning {
  static constexpr int THREAD_AREA = 9;
  static constexpr int THREAD_BLOCK = 128; /* threads of the small kernel */
  /* larger blocks: columns (threads) of a band's sums; the fewest rows of
   * a band, so that a thread has loads enough to keep in flight; threads
   * of the fill */
  static constexpr int SUM_COLUMNS = 256;
  static constexpr int BAND_ROWS = 32;
  static constexpr int FILL_THREADS = 256;
};

/* The sample blocks' grid: columns x rows of side x side; for the larger
 * blocks, each block row cut into bands of band_rows rows */
struct BlockGrid {
  int side, columns, rows;
  int bands, band_rows;
};

template <typename T>
__global__ void __launch_bounds__ (BlockMeanTuning::THREAD_BLOCK)
block_mean_small (ComponentArgs src, ComponentArgs dst, BlockGrid g,
    double scale, double offset, unsigned max_value, int shift)
{
  const long long b = (long long) blockIdx.x * BlockMeanTuning::THREAD_BLOCK
      + threadIdx.x;
  if (b >= (long long) g.columns * g.rows)
    return;
  const int by = (int) (b / g.columns), bx = (int) (b - (long long) by * g.columns);
  const int x0 = bx * g.side, y0 = by * g.side;
  const int x1 = min (x0 + g.side, src.width), y1 = min (y0 + g.side, src.height);
  unsigned s = 0;
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      s += load_value<T> (src, x, y, shift);
  const unsigned v = scale_exact (s, cc_block_scale (scale, g.side,
          (x1 - x0) * (y1 - y0)), offset, max_value);
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      store_value<T> (dst, x, y, v, shift);
}

/* Sums of the blocks, a band of rows at a time (rows [y0, y1) of block
 * row by) for the blocks that cross columns [blockIdx.x * SUM_COLUMNS,
 * + SUM_COLUMNS): a thread per column adds up its band, the columns' sums
 * meet in a shared-memory bin per block, and each bin goes to the block's
 * sum in sums[] (zeroed before) by one atomic add. The grid's y steps
 * through the bands (there may be more than it takes). */
template <typename T>
__global__ void __launch_bounds__ (BlockMeanTuning::SUM_COLUMNS)
block_mean_sums (ComponentArgs src, BlockGrid g, unsigned *sums, int shift)
{
  __shared__ unsigned bins[BlockMeanTuning::SUM_COLUMNS / 2 + 2];
  const int x0 = blockIdx.x * BlockMeanTuning::SUM_COLUMNS;
  const int x = x0 + threadIdx.x;
  const int first = x0 / g.side;
  const int last = min (x0 + BlockMeanTuning::SUM_COLUMNS, src.width) - 1;
  const int n_bins = last / g.side - first + 1;

  for (int band = blockIdx.y; band < g.rows * g.bands; band += gridDim.y) {
    const int by = band / g.bands;
    const int y0 = by * g.side + (band - by * g.bands) * g.band_rows;
    const int y1 = min (min (y0 + g.band_rows, (by + 1) * g.side),
        src.height);
    for (int i = threadIdx.x; i < n_bins; i += blockDim.x)
      bins[i] = 0;
    __syncthreads ();
    if (x < src.width && y0 < y1) {
      unsigned s = 0;
#pragma unroll 8
      for (int y = y0; y < y1; y++)
        s += load_value<T> (src, x, y, shift);
      atomicAdd (&bins[x / g.side - first], s);
    }
    __syncthreads ();
    for (int i = threadIdx.x; i < n_bins; i += blockDim.x)
      if (bins[i])
        atomicAdd (&sums[(size_t) by * g.columns + first + i], bins[i]);
    __syncthreads ();
  }
}

/* Every sample of the component set to its block's value: a thread per
 * sample along rows, the grid's y stepping through the rows. */
template <typename T>
__global__ void __launch_bounds__ (BlockMeanTuning::FILL_THREADS)
block_mean_fill (ComponentArgs dst, BlockGrid g, const unsigned *sums,
    double scale, double offset, unsigned max_value, int shift)
{
  const int x = blockIdx.x * BlockMeanTuning::FILL_THREADS + threadIdx.x;
  if (x >= dst.width)
    return;
  const int bx = x / g.side;
  const int w = min (g.side, dst.width - bx * g.side);
  for (int y = blockIdx.y; y < dst.height; y += gridDim.y) {
    const int by = y / g.side;
    const int h = min (g.side, dst.height - by * g.side);
    const unsigned s = __ldg (&sums[(size_t) by * g.columns + bx]);
    store_value<T> (dst, x, y, scale_exact (s, cc_block_scale (scale, g.side,
                w * h), offset, max_value), shift);
  }
}

#endif /* CUDACONV_BLOCK_MEAN_CUH */

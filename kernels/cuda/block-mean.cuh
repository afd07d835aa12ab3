/* cudaconv: CC_SHAPE_BLOCKS (pixelate), one pass: each block of 2r+1 x
 * 2r+1 samples from the component's first (smaller at the right and bottom
 * edges) becomes its scale (cc_block_scale: the mean of its real samples)
 * times the exact sum of its values, + offset, everywhere in it.
 *  - blocks of up to BlockMeanTuning::THREAD_AREA samples (r <= 1): a
 *    thread per block, which reads and writes it alone;
 *  - larger ones: a block of threads per block (at most MAX_THREADS, at
 *    least the block's area rounded to warps), the sum reduced through
 *    warp shuffles and shared memory, then written by every thread. */
#ifndef CUDACONV_BLOCK_MEAN_CUH
#define CUDACONV_BLOCK_MEAN_CUH

#include "device.cuh"

/* The family's tuning */
struct BlockMeanTuning {
  static constexpr int THREAD_AREA = 9;
  static constexpr int THREAD_BLOCK = 128; /* threads of the small kernel */
  static constexpr int MAX_THREADS = 256;
};

/* The sample blocks' grid: columns x rows of side x side */
struct BlockGrid {
  int side, columns, rows;
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

template <typename T>
__global__ void __launch_bounds__ (BlockMeanTuning::MAX_THREADS)
block_mean_shared (ComponentArgs src, ComponentArgs dst, BlockGrid g,
    double scale, double offset, unsigned max_value, int shift)
{
  __shared__ unsigned warp_sums[BlockMeanTuning::MAX_THREADS / 32];
  const int by = blockIdx.x / g.columns, bx = blockIdx.x - by * g.columns;
  const int x0 = bx * g.side, y0 = by * g.side;
  const int w = min (g.side, src.width - x0), h = min (g.side, src.height - y0);
  const int n = w * h;
  unsigned s = 0;
  for (int k = threadIdx.x; k < n; k += blockDim.x) {
    const int y = k / w;
    s += load_value<T> (src, x0 + k - y * w, y0 + y, shift);
  }
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    s += __shfl_xor_sync (0xffffffffu, s, d);
  if ((threadIdx.x & 31) == 0)
    warp_sums[threadIdx.x >> 5] = s;
  __syncthreads ();
  s = 0;
  for (int k = 0; k < (int) (blockDim.x >> 5); k++)
    s += warp_sums[k];
  const unsigned v = scale_exact (s, cc_block_scale (scale, g.side, n),
      offset, max_value);
  for (int k = threadIdx.x; k < n; k += blockDim.x) {
    const int y = k / w;
    store_value<T> (dst, x0 + k - y * w, y0 + y, v, shift);
  }
}

#endif /* CUDACONV_BLOCK_MEAN_CUH */

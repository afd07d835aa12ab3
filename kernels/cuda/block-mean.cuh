/* cudaconv: CC_SHAPE_BLOCKS (pixelate): each block of 2r+1 x
 * 2r+1 samples from the component's first (smaller at the right and bottom
 * edges) becomes its scale (cc_block_scale: the mean of its real samples)
 * times the exact sum of its values, + offset, everywhere in it.
 *  - blocks of up to BlockMeanTuning::THREAD_AREA samples (r <= 1): a
 *    thread per block, which reads and writes it alone;
 *  - larger ones: two kernels over the blocks' sums in the workspace,
 *    so that each sample is read once and written once by enough threads
 *    to fill the GPU whatever the radius: block_mean_sums adds up bands
 *    of rows a thread per run of columns, block_mean_fill writes runs of
 *    columns down FILL_ROWS rows, working out a block's value once per
 *    block row it meets there; a run is four samples moved as one vector
 *    where the component allows it (planar, aligned), one sample
 *    otherwise. */
#ifndef CUDACONV_BLOCK_MEAN_CUH
#define CUDACONV_BLOCK_MEAN_CUH

#include "device.cuh"

/* The family's tuning */
struct BlockMeanTuning {
  static constexpr int THREAD_AREA = 9;
  static constexpr int THREAD_BLOCK = 128; /* threads of the small kernel */
  /* larger blocks: threads of a band's sums, each over QUAD consecutive
   * columns where the component moves as quads (else one); the rows of a
   * band, few enough that the grid fills the GPU, enough that a thread
   * has loads to keep in flight; threads of the fill, each writing
   * FILL_ROWS rows of QUAD (or one) samples */
  static constexpr int QUAD = 4;
  static constexpr int SUM_THREADS = 256;
  static constexpr int BAND_ROWS = 16;
  static constexpr int FILL_THREADS = 256;
  static constexpr int FILL_ROWS = 16;
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

/* N consecutive values of row y from column x (N = QUAD where the
 * component moves as quads and x is a multiple of QUAD, else 1); those at
 * or past the width are 0 on load and left alone on store. */
template <typename T, int N> struct BlockRun {
  unsigned v[N];
  __device__ __forceinline__ void load (const ComponentArgs &c, int x, int y,
      int shift)
  {
    typedef typename Quad<T>::type Q;
    if (N == BlockMeanTuning::QUAD && x + N <= c.width) {
      const Q q = __ldg (reinterpret_cast<const Q *> (c.data
              + (size_t) y * c.pitch) + x / N);
      const T *t = reinterpret_cast<const T *> (&q);
#pragma unroll
      for (int k = 0; k < N; k++)
        v[k] = (unsigned) t[k] >> shift;
    } else {
#pragma unroll
      for (int k = 0; k < N; k++)
        v[k] = x + k < c.width ? load_value<T> (c, x + k, y, shift) : 0u;
    }
  }
  __device__ __forceinline__ void store (const ComponentArgs &c, int x, int y,
      int shift) const
  {
    typedef typename Quad<T>::type Q;
    if (N == BlockMeanTuning::QUAD && x + N <= c.width) {
      Q q;
      T *t = reinterpret_cast<T *> (&q);
#pragma unroll
      for (int k = 0; k < N; k++)
        t[k] = (T) (v[k] << shift);
      reinterpret_cast<Q *> (c.data + (size_t) y * c.pitch)[x / N] = q;
    } else {
#pragma unroll
      for (int k = 0; k < N; k++)
        if (x + k < c.width)
          store_value<T> (c, x + k, y, v[k], shift);
    }
  }
};

/* Sums of the blocks, a band of rows at a time (rows [y0, y1) of block
 * row by) for the blocks that cross the block's SUM_THREADS * N columns:
 * a thread adds up its band of N columns, each run of its columns in one
 * block meets the others in a shared-memory bin per block, and each bin
 * goes to the block's sum in sums[] (zeroed before) by one atomic add. The
 * grid's y steps through the bands (there may be more than it takes). */
template <typename T, int N>
__global__ void __launch_bounds__ (BlockMeanTuning::SUM_THREADS)
block_mean_sums (ComponentArgs src, BlockGrid g, unsigned *sums, int shift)
{
  constexpr int COLUMNS = BlockMeanTuning::SUM_THREADS * N;
  /* blocks of the larger sizes are at least 5 wide (THREAD_AREA) */
  __shared__ unsigned bins[COLUMNS / 5 + 2];
  const int x0 = blockIdx.x * COLUMNS;
  const int x = x0 + threadIdx.x * N;
  const int first = x0 / g.side;
  const int last = min (x0 + COLUMNS, src.width) - 1;
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
      unsigned s[N] = {};
#pragma unroll 4
      for (int y = y0; y < y1; y++) {
        BlockRun<T, N> run;
        run.load (src, x, y, shift);
#pragma unroll
        for (int k = 0; k < N; k++)
          s[k] += run.v[k];
      }
      /* the run's columns by block: a block is wider than N - 1 columns,
       * so they cross at most one edge between blocks */
      int bin = x / g.side;
      unsigned acc = s[0];
#pragma unroll
      for (int k = 1; k < N; k++) {
        if (x + k >= src.width)
          break;
        if (x + k == (bin + 1) * g.side) {
          atomicAdd (&bins[bin - first], acc);
          bin++;
          acc = 0;
        }
        acc += s[k];
      }
      atomicAdd (&bins[bin - first], acc);
    }
    __syncthreads ();
    for (int i = threadIdx.x; i < n_bins; i += blockDim.x)
      if (bins[i])
        atomicAdd (&sums[(size_t) by * g.columns + first + i], bins[i]);
    __syncthreads ();
  }
}

/* Every sample of the component set to its block's value: a thread per N
 * columns and FILL_ROWS rows (the grid's y stepping through the rows past
 * what it takes), which works its values out once per block row. */
template <typename T, int N>
__global__ void __launch_bounds__ (BlockMeanTuning::FILL_THREADS)
block_mean_fill (ComponentArgs dst, BlockGrid g, const unsigned *sums,
    double scale, double offset, unsigned max_value, int shift)
{
  const int x = (blockIdx.x * BlockMeanTuning::FILL_THREADS + threadIdx.x)
      * N;
  if (x >= dst.width)
    return;
  for (int y0 = blockIdx.y * BlockMeanTuning::FILL_ROWS; y0 < dst.height;
      y0 += gridDim.y * BlockMeanTuning::FILL_ROWS) {
    const int y1 = min (y0 + BlockMeanTuning::FILL_ROWS, dst.height);
    int row_end = y0;           /* the current block row's end */
    BlockRun<T, N> run;
    for (int y = y0; y < y1; y++) {
      if (y == row_end) {
        const int by = y / g.side;
        const int h = min (g.side, dst.height - by * g.side);
        row_end = (by + 1) * g.side;
#pragma unroll
        for (int k = 0; k < N; k++) {
          const int bx = min (x + k, dst.width - 1) / g.side;
          if (k > 0 && bx == min (x + k - 1, dst.width - 1) / g.side) {
            run.v[k] = run.v[k - 1];
            continue;
          }
          const int w = min (g.side, dst.width - bx * g.side);
          run.v[k] = scale_exact (__ldg (&sums[(size_t) by * g.columns + bx]),
              cc_block_scale (scale, g.side, w * h), offset, max_value);
        }
      }
      run.store (dst, x, y, shift);
    }
  }
}

#endif /* CUDACONV_BLOCK_MEAN_CUH */

/* cudaconv: the launcher of the block-mean family (block-mean.cuh). */
#include <algorithm>
#include <climits>

#include "families.cuh"
#include "block-mean.cuh"

template <typename T> static cudaError_t
launch_blocks (const Launch &l)
{
  BlockGrid g;
  g.side = 2 * l.radius () + 1;
  g.columns = (l.width + g.side - 1) / g.side;
  g.rows = (l.height + g.side - 1) / g.side;
  const long long count = (long long) g.columns * g.rows;
  const double scale = l.filter->scale, offset = l.filter->offset;
  if (g.side * g.side <= BlockMeanTuning::THREAD_AREA) {
    const long long blocks = (count + BlockMeanTuning::THREAD_BLOCK - 1)
        / BlockMeanTuning::THREAD_BLOCK;
    if (blocks > INT_MAX)
      return cudaErrorInvalidValue;
    return launch_kernel (block_mean_small<T>, (unsigned) blocks,
        BlockMeanTuning::THREAD_BLOCK, 0, l.stream, false, l.src, l.dst, g,
        scale, offset, l.max_value, l.shift);
  } else {
    /* the catalogue's argument checks bound the blocks of 64 x 64 tiles,
     * and these blocks are at least 5 x 5: at most 164 times as many */
    if (count > INT_MAX)
      return cudaErrorInvalidValue;
    const int threads = std::min (BlockMeanTuning::MAX_THREADS,
        (g.side * g.side + 31) / 32 * 32);
    return launch_kernel (block_mean_shared<T>, (unsigned) count, threads, 0,
        l.stream, false, l.src, l.dst, g, scale, offset, l.max_value, l.shift);
  }
}

cudaError_t
launch_block_mean (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ? launch_blocks<uint8_t> (l) :
                                    launch_blocks<uint16_t> (l);
}

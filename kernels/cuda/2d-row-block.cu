/* cudaconv: the launcher of the 2D row-block family (2d-row-block.cuh). */
#include "families.cuh"
#include "2d-row-block.cuh"

/* catalogue.cu bounds the tiles of a plane by the column kernels' count */
static_assert (Tile64::TILE_W <= RowBlock::TILE_W
        && Tile64::TILE_H <= RowBlock::TILE_H,
    "no kernel has more tiles than the column kernels");

cudaError_t
launch_2d_row_block (const Launch &l)
{
  return with_kernel_2d<ROW_BLOCK_MAX_RADIUS> (l, cudaErrorInvalidValue,
      [&] (auto t, auto r, auto m) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        constexpr bool MAGNITUDE = decltype (m)::value;
        return launch_tiles (conv_row_block<T, R, MAGNITUDE>,
            taps_2d<R, MAGNITUDE> (*l.filter), RowBlock::TILE_W,
            RowBlock::TILE_H, dim3 (RowBlock::THREADS_X, RowBlock::THREADS_Y),
            RowBlockLayout<R>::BYTES, l);
      });
}

/* cudaconv: the launcher of the 2D row-block family (2d-row-block.cuh). */
#include "families.cuh"
#include "2d-row-block.cuh"

/* catalogue.cu bounds the tiles of a plane by the column kernels' count */
static_assert (NS_TILE_W <= RB_TILE_W && NS_TILE_H <= RB_TILE_H,
    "no kernel has more tiles than the column kernels");

cudaError_t
launch_2d_row_block (const Launch & l)
{
  return with_kernel_2d < RB_MAX_RADIUS > (l, cudaErrorInvalidValue,
      [&](auto t, auto r, auto m) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        constexpr bool MAGNITUDE = decltype (m)::value;
        return launch_tiles (conv_row_block < T, R, MAGNITUDE >,
            taps_2d < R, MAGNITUDE > (*l.filter), RB_TILE_W, RB_TILE_H,
            dim3 (RB_THREADS_X, RB_THREADS_Y), RowBlockLayout < R >::BYTES, l);
      });
}

/* cudaconv: the launcher of the 2D tiled-halo family (2d-tiled-halo.cuh). */
#include "families.cuh"
#include "2d-tiled-halo.cuh"

cudaError_t
launch_2d_tiled_halo (const Launch &l)
{
  return with_kernel_2d<CC_MAX_RADIUS> (l, cudaErrorInvalidValue,
      [&] (auto t, auto r, auto m) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        constexpr bool MAGNITUDE = decltype (m)::value;
        return launch_column_tiles (conv_tiled_halo<T, R, MAGNITUDE>,
            taps_2d<R, MAGNITUDE> (*l.filter), TiledHaloLayout<R>::BYTES, l);
      });
}

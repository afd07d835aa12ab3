/* cudaconv: the launcher of the separable tensor-core tile family
 * (separable-tile-mma.cuh). */
#include "families.cuh"
#include "separable-tile-mma.cuh"

cudaError_t
launch_separable_tile_mma (const Launch &l)
{
  return with_kernel_separable<RadiiOf<TILE_MMA_RADII>> (l,
      cudaErrorInvalidValue, [&] (auto, auto r) {
        constexpr int R = decltype (r)::value;
        return launch_column_tiles (conv_separable<R>,
            taps_separable<R> (*l.filter), SepLayout<R>::BYTES, l);
      });
}

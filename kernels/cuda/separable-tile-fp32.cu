/* cudaconv: the launcher of the separable FP32 tile family
 * (separable-tile-fp32.cuh). */
#include "families.cuh"
#include "separable-tile-fp32.cuh"

cudaError_t
launch_separable_tile_fp32 (const Launch &l)
{
  return with_kernel_separable<RadiiOf<TILE_FP32_RADII>> (l,
      cudaErrorInvalidValue, [&] (auto t, auto r) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        return launch_column_tiles (conv_separable_fp32<T, R>,
            taps_separable<R> (*l.filter), SepFp32Layout<R>::BYTES, l);
      });
}

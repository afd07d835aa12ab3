/* cudaconv: the launcher of the 2D cache-halo family (2d-cache-halo.cuh). */
#include "families.cuh"
#include "2d-cache-halo.cuh"

cudaError_t
launch_2d_cache_halo (const Launch & l)
{
  return with_kernel_2d < CC_MAX_RADIUS > (l, cudaErrorInvalidValue,
      [&](auto t, auto r, auto m) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        constexpr bool MAGNITUDE = decltype (m)::value;
        const auto taps = taps_2d < R, MAGNITUDE > (*l.filter);
        return launch_column_tiles (conv_cache_halo < T, R, MAGNITUDE >,
            taps, CacheHaloLayout < R >::BYTES, l);
      });
}

/* cudaconv: the launcher of the 2D cache-halo family (2d-cache-halo.cuh). */
#include "families.cuh"
#include "2d-cache-halo.cuh"

/* The halo's loads move whole quads, so the rows must be in them */
bool
cache_halo_2d_fits (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ? moves_as_quads<uint8_t> (l.src) :
                                    moves_as_quads<uint16_t> (l.src);
}

cudaError_t
launch_2d_cache_halo (const Launch &l)
{
  return with_kernel_2d<CC_MAX_RADIUS> (l, cudaErrorInvalidValue,
      [&] (auto t, auto r, auto m) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        constexpr bool MAGNITUDE = decltype (m)::value;
        const auto taps = taps_2d<R, MAGNITUDE> (*l.filter);
        return launch_column_tiles (conv_cache_halo<T, R, MAGNITUDE>, taps,
            CacheHaloLayout<R>::BYTES, l);
      });
}

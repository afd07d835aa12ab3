/* cudaconv: the launcher of the 2D strip families (2d-strip.cuh), the
 * tiled-halo and the cache-halo variant. */
#include <cmath>

#include "families.cuh"
#include "2d-strip.cuh"

/* Whether the filter's taps times 2^24 stay finite (|w| < 2^104): the
 * kernels that widen 8-bit samples as subnormal halves need them so */
static bool
scaled_taps_finite (const CcFilter &f)
{
  const int side = 2 * f.radius + 1;
  for (int k = 0; k < side * side; k++)
    if (!std::isfinite (f.taps[k] * Strip2D::WEIGHT_SCALE))
      return false;
  return true;
}

/* Whether the kernel with V samples per lane takes the planes, the grid
 * included */
template <typename T, int R, bool MAGNITUDE, int V> static bool
strip_takes (const Launch &l)
{
  if (strip_scaled_weights<T, MAGNITUDE, V> ()
      && !scaled_taps_finite (*l.filter))
    return false;
  return strip_fits<T, R, MAGNITUDE, V> (l.src)
      && strip_fits<T, R, MAGNITUDE, V> (l.dst)
      && strip_grid<T, R, MAGNITUDE, V> (l.width, l.height).y <= MAX_GRID_Y;
}

/* Samples per lane: 8 for a linear filter where the planes allow, else 4;
 * 0 where neither fits */
template <typename T, int R, bool MAGNITUDE> static int
lane_samples (const Launch &l)
{
  if constexpr (!MAGNITUDE) {
    if (strip_takes<T, R, false, 8> (l))
      return 8;
  }
  return strip_takes<T, R, MAGNITUDE, 4> (l) ? 4 : 0;
}

bool
strip_2d_fits (const Launch &l)
{
  return with_kernel_2d<STRIP_2D_MAX_RADIUS> (l, false,
      [&] (auto t, auto r, auto m) {
        return lane_samples<decltype (t), decltype (r)::value,
                   decltype (m)::value> (l)
            > 0;
      });
}

template <typename T, int R, bool MAGNITUDE, bool STAGED, int V>
static cudaError_t
launch_strip (const Launch &l)
{
  constexpr bool SCALED = strip_scaled_weights<T, MAGNITUDE, V> ();
  /* the strips join the kernel before them (dependent-launch.cuh) */
  return launch_kernel (conv_strip<T, R, MAGNITUDE, STAGED, V>,
      strip_grid<T, R, MAGNITUDE, V> (l.width, l.height),
      dim3 (Strip2D::LANES, Strip2D::WARPS), 0, l.stream, true, l.src, l.dst,
      taps_2d<R, MAGNITUDE> (*l.filter, SCALED ? Strip2D::WEIGHT_SCALE : 1.0f),
      l.offset, l.border, l.src_ready);
}

static cudaError_t
launch_2d_strip (const Launch &l, bool tiled_halo)
{
  return with_kernel_2d<STRIP_2D_MAX_RADIUS> (l, cudaErrorInvalidValue,
      [&] (auto t, auto r, auto m) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        constexpr bool MAGNITUDE = decltype (m)::value;
        switch (lane_samples<T, R, MAGNITUDE> (l)) {
          case 8:
            if constexpr (!MAGNITUDE)
              return tiled_halo ? launch_strip<T, R, false, true, 8> (l) :
                                  launch_strip<T, R, false, false, 8> (l);
            break;
          case 4:
            return tiled_halo ? launch_strip<T, R, MAGNITUDE, true, 4> (l) :
                                launch_strip<T, R, MAGNITUDE, false, 4> (l);
        }
        return cudaErrorInvalidValue;
      });
}

cudaError_t
launch_2d_strip_tiled_halo (const Launch &l)
{
  return launch_2d_strip (l, true);
}

cudaError_t
launch_2d_strip_cache_halo (const Launch &l)
{
  return launch_2d_strip (l, false);
}

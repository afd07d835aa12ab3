/* cudaconv: the launcher of the separable tensor-core streaming family
 * (separable-strip-mma.cuh). */
#include "families.cuh"
#include "separable-strip-mma.cuh"

/* Warps of conv_separable_mma_strip<T, R> that the current device holds
 * at once */
template <typename T, int R> static long long
resident_warps ()
{
  static std::atomic<int> known[CC_CUDA_MAX_DEVICES];
  const int blocks = per_device (known, [] (int) {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&n,
            conv_separable_mma_strip<T, R>, StripMma::LANES, 0)
        == cudaSuccess)
      return n;
    /* one step per strip then; the launch must not report this */
    cudaGetLastError ();
    return 0;
  });
  return (long long) blocks * device_sms ();
}

/* The steps per strip for the launch, 0 where the planes or the grid do
 * not take the kernel */
template <typename T, int R> static int
strip_steps (const Launch &l)
{
  if (!ms_strip_fits (l.src) || !ms_strip_fits (l.dst))
    return 0;
  const int steps = ms_strip_steps (l.width, l.height, resident_warps<T, R> ());
  return ms_strip_grid (l.width, l.height, steps).y <= MAX_GRID_Y ? steps : 0;
}

bool
separable_strip_mma_fits (const Launch &l)
{
  return with_kernel_separable<RadiiOf<STRIP_MMA_RADII>> (l, false,
      [&] (auto t, auto r) {
        return strip_steps<decltype (t), decltype (r)::value> (l) > 0;
      });
}

cudaError_t
launch_separable_strip_mma (const Launch &l)
{
  return with_kernel_separable<RadiiOf<STRIP_MMA_RADII>> (l,
      cudaErrorInvalidValue, [&] (auto t, auto r) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        const int steps = strip_steps<T, R> (l);
        if (steps == 0)
          return cudaErrorInvalidValue;
        const dim3 grid = ms_strip_grid (l.width, l.height, steps);
        return launch_kernel (conv_separable_mma_strip<T, R>, grid,
            StripMma::LANES, 0, l.stream, false, l.src, l.dst,
            taps_separable<R> (*l.filter), l.offset, l.border, steps);
      });
}

/* cudaconv: the launcher of the separable FP32 streaming family
 * (separable-strip-fp32.cuh). */
#include "families.cuh"
#include "separable-strip-fp32.cuh"

/* The chunks per strip for the launch, 0 where the planes or the grid do
 * not take the kernel */
template <typename T, int R> static int
strip_chunks (const Launch &l)
{
  if (!sep_strip_fits<T> (l.src) || !sep_strip_fits<T> (l.dst))
    return 0;
  const int chunks = sep_strip_chunks<R> (l.width, l.height, device_sms ());
  return chunks > 0
          && sep_strip_grid<R> (l.width, l.height, chunks).y <= MAX_GRID_Y ?
      chunks :
      0;
}

bool
separable_strip_fp32_fits (const Launch &l)
{
  return with_kernel_separable<RadiiOf<STRIP_FP32_RADII>> (l, false,
      [&] (auto t, auto r) {
        return strip_chunks<decltype (t), decltype (r)::value> (l) > 0;
      });
}

cudaError_t
launch_separable_strip_fp32 (const Launch &l)
{
  return with_kernel_separable<RadiiOf<STRIP_FP32_RADII>> (l,
      cudaErrorInvalidValue, [&] (auto t, auto r) {
        typedef decltype (t) T;
        constexpr int R = decltype (r)::value;
        const int chunks = strip_chunks<T, R> (l);
        if (chunks == 0)
          return cudaErrorInvalidValue;
        const dim3 grid = sep_strip_grid<R> (l.width, l.height, chunks);
        const dim3 block (StripFp32::LANES, StripFp32::WARPS);
        return launch_kernel (conv_separable_strip<T, R>, grid, block, 0,
            l.stream, false, l.src, l.dst, taps_separable<R> (*l.filter),
            l.offset, l.border, chunks);
      });
}

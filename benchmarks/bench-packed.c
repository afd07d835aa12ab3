/* cudaconv benchmark, --packed: the 2D CUDA kernels on one component of
 * packed pixels (bench-common.h). */
#include "bench-common.h"

/* The 2D strategies on one component of packed pixels (YUY2's luma, a
 * component of RGBx or ARGB64), whose rows do not move as quads: what each
 * strategy runs there and how fast. */
int
cuda_packed_table (const Bench * b)
{
  CcFilter plain;
  const CcFilter *filter = &plain;
  KernelTimer timer;
  static const int strides[] = { 2, 3, 4 };

  if (!cuda_device_present ()) {
    printf ("packed kernels: no usable CUDA device, skipped\n");
    return 0;
  }
  kernel_timer_init (&timer);
  printf ("\nCUDA kernels on one component of packed pixels: random "
      "(2r+1)^2 weights, border clamp, timed as the kernel table is, "
      "milliseconds per launch\n");
  printf ("%-9s %4s %6s %3s %10s %10s %s\n", "size", "bits", "stride", "r",
      "tiled", "cache", "families (tiled / cache)");
  for (int s = (int) G_N_ELEMENTS (bench_sizes) - 1; s >= 0; s--) {
    const int w = b->only_w ? b->only_w : bench_sizes[s][0];
    const int h = b->only_w ? b->only_h : bench_sizes[s][1];
    for (int bytes = 1; bytes <= 2; bytes++) {
      for (size_t k = 0; k < G_N_ELEMENTS (strides); k++) {
        const int stride = strides[k];
        DevicePair pair;

        if (bytes == 2 && stride == 3)
          continue;             /* no format packs three 16-bit samples */
        if (!device_pair_new ((size_t) w * stride * bytes, h, &pair)) {
          kernel_timer_clear (&timer);
          return 1;
        }
        /* the second component: not aligned to a quad either */
        CcComponent in = { (char *) pair.in + bytes, pair.pitch, w, h, stride,
          (CcSampleType) bytes, 0, 0
        };
        CcComponent out = { (char *) pair.out + bytes, pair.pitch, w, h, stride,
          (CcSampleType) bytes, 0, 0
        };
        for (size_t r = 0; r < G_N_ELEMENTS (bench_kernel_radii); r++) {
          const int radius = bench_kernel_radii[r];
          char what[32];

          normalised_filter (radius, &plain);
          const double tiled = time_kernel (&timer, &in, &out, filter,
              CC_STRATEGY_TILED_HALO, CC_LAUNCH_SRC_READY);
          const double cache = time_kernel (&timer, &in, &out, filter,
              CC_STRATEGY_CACHE_HALO, CC_LAUNCH_SRC_READY);
          if (tiled < 0 || cache < 0) {
            fprintf (stderr, "kernel launch failed at radius %d\n", radius);
            kernel_timer_clear (&timer);
            return 1;
          }
          printf ("%4dx%-4d %4d %6d %3d %10.4f %10.4f %s / %s\n", w, h,
              8 * bytes, stride, radius, tiled, cache,
              family_of (&in, &out, filter, CC_STRATEGY_TILED_HALO),
              family_of (&in, &out, filter, CC_STRATEGY_CACHE_HALO));
          g_snprintf (what, sizeof what, "packed-%d", stride);
          csv_row (b, what, w, h, 8 * bytes, radius, "tiled-halo", tiled);
          csv_row (b, what, w, h, 8 * bytes, radius, "cache-halo", cache);
        }
        device_pair_free (&pair);
      }
    }
    if (b->only_w)
      break;
  }
  kernel_timer_clear (&timer);
  return 0;
}

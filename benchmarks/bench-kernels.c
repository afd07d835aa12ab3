/* cudaconv benchmark, --kernels: the CUDA kernels of each strategy and
 * radius on one plane (bench-common.h). */
#include "bench-common.h"

/* The kernel table: each strategy on one plane, at --size or each of
 * bench_sizes, against the FP32 floor and a plane copy */
int
cuda_kernel_table (const Bench * b)
{
  CcFilter plain, gaussian;
  const CcFilter *filter = &plain, *gauss = &gaussian;
  KernelTimer timer;
  static const char *names[CC_N_STRATEGIES] = { "auto", "tiled-halo",
    "cache-halo", "separable"
  };
  struct cudaDeviceProp prop;

  if (!cuda_device_present ()) {
    printf ("kernels: no usable CUDA device, skipped\n");
    return 0;
  }
  kernel_timer_init (&timer);
  cudaGetDeviceProperties (&prop, 0);
  const double fma_rate = cc_bench_fp32_fma_rate ();
  printf ("\nCUDA kernels on %s: one plane, border clamp, CUDA events, "
      "median of %d samples of %d back-to-back launches queued behind a "
      "busy kernel (GPU time only), after %d warm-up launches, "
      "milliseconds per launch\n", prop.name, KERNEL_RUNS,
      KERNEL_BATCH, KERNEL_WARMUP);
  printf ("measured FP32 rate: %.1f TFLOP/s (%.2f Tfma/s)\n",
      2.0 * fma_rate / 1e12, fma_rate / 1e12);
  csv_row (b, "fp32_fma_rate", 0, 0, 0, 0, "fma_per_s", fma_rate);
  printf ("2D filter: random (2r+1)^2 weights; separable: the gaussian of "
      "that radius, also timed as a 2D filter (gauss-2D = the faster 2D "
      "strategy on it); each strategy's kernel family below its time\n");
  printf ("%-9s %4s %3s %10s %10s %10s %10s %10s %9s %8s %8s %s\n", "size",
      "bits", "r", "tiled", "cache", "2D waiting", "gauss-2D", "separable",
      "floor", "2D/floor", "2D/sep", "auto picks (gaussian)");
  for (int s = (int) G_N_ELEMENTS (bench_sizes) - 1; s >= 0; s--) {
    const int w = b->only_w ? b->only_w : bench_sizes[s][0];
    const int h = b->only_w ? b->only_h : bench_sizes[s][1];
    for (int bytes = 1; bytes <= 2; bytes++) {
      DevicePair pair;

      if (!device_pair_new ((size_t) w * bytes, h, &pair)) {
        kernel_timer_clear (&timer);
        return 1;
      }
      CcComponent in = { pair.in, pair.pitch, w, h, 1, (CcSampleType) bytes, 0,
        0
      };
      CcComponent out = { pair.out, pair.pitch, w, h, 1, (CcSampleType) bytes,
        0, 0
      };
      const double copy_ms = time_copy (&timer, &in, &out);
      printf ("%4dx%-4d %4d   plane copy (read and write every sample once, "
          "16 bytes per thread): %.4f\n", w, h, 8 * bytes, copy_ms);
      csv_row (b, "kernel", w, h, 8 * bytes, 0, "copy", copy_ms);
      for (size_t r = 0; r < G_N_ELEMENTS (bench_kernel_radii); r++) {
        const int radius = bench_kernel_radii[r], side = 2 * radius + 1;
        double ms[CC_N_STRATEGIES], gauss_2d[CC_N_STRATEGIES];
        float tuned[CC_N_FAMILIES];
        CcStrategy pick = CC_STRATEGY_AUTO;

        normalised_filter (radius, &plain);
        for (int st = CC_STRATEGY_TILED_HALO; st <= CC_STRATEGY_CACHE_HALO;
            st++)
          ms[st] = time_kernel (&timer, &in, &out, filter,
              (CcStrategy) st, CC_LAUNCH_SRC_READY);
        const CcStrategy best = ms[CC_STRATEGY_TILED_HALO] <=
            ms[CC_STRATEGY_CACHE_HALO] ? CC_STRATEGY_TILED_HALO :
            CC_STRATEGY_CACHE_HALO;
        const double waiting = time_kernel (&timer, &in, &out, filter, best,
            CC_LAUNCH_DEFAULT);
        gaussian_filter (radius, &gaussian);
        for (int st = CC_STRATEGY_TILED_HALO; st <= CC_STRATEGY_CACHE_HALO;
            st++)
          gauss_2d[st] = time_kernel (&timer, &in, &out, gauss,
              (CcStrategy) st, CC_LAUNCH_SRC_READY);
        ms[CC_STRATEGY_SEPARABLE] = time_kernel (&timer, &in, &out, gauss,
            CC_STRATEGY_SEPARABLE, CC_LAUNCH_SRC_READY);
        if (cc_cuda_fastest_strategy (&in, &out, gauss, CC_BORDER_CLAMP,
                NULL, 0, 0, &pick, tuned) != cudaSuccess || cudaGetLastError () !=
            cudaSuccess) {
          fprintf (stderr, "kernel launch failed at radius %d\n", radius);
          kernel_timer_clear (&timer);
          return 1;
        }
        const double best_2d = MIN (ms[CC_STRATEGY_TILED_HALO],
            ms[CC_STRATEGY_CACHE_HALO]);
        const double g2d = MIN (gauss_2d[CC_STRATEGY_TILED_HALO],
            gauss_2d[CC_STRATEGY_CACHE_HALO]);
        const double floor_ms = fma_rate > 0 ?
            (double) w * h * side * side / fma_rate * 1e3 : -1.0;
        const char *tiled_family = family_of (&in, &out, filter,
            CC_STRATEGY_TILED_HALO);
        const char *cache_family = family_of (&in, &out, filter,
            CC_STRATEGY_CACHE_HALO);
        const char *separable_family = family_of (&in, &out, gauss,
            CC_STRATEGY_SEPARABLE);
        printf ("%4dx%-4d %4d %3d %10.4f %10.4f %10.4f %10.4f %10.4f %9.4f "
            "%8.2f %8.2f %s\n", w, h, 8 * bytes, radius,
            ms[CC_STRATEGY_TILED_HALO], ms[CC_STRATEGY_CACHE_HALO], waiting,
            g2d, ms[CC_STRATEGY_SEPARABLE], floor_ms, best_2d / floor_ms,
            g2d / ms[CC_STRATEGY_SEPARABLE], names[pick]);
        printf ("%18s %s / %s / %s\n", "", tiled_family, cache_family,
            separable_family);
        for (int st = CC_STRATEGY_TILED_HALO; st < CC_N_STRATEGIES; st++)
          csv_row (b, "kernel", w, h, 8 * bytes, radius, names[st], ms[st]);
        csv_row (b, "family", w, h, 8 * bytes, radius, tiled_family,
            ms[CC_STRATEGY_TILED_HALO]);
        csv_row (b, "family", w, h, 8 * bytes, radius, cache_family,
            ms[CC_STRATEGY_CACHE_HALO]);
        csv_row (b, "family", w, h, 8 * bytes, radius, separable_family,
            ms[CC_STRATEGY_SEPARABLE]);
        csv_row (b, "kernel", w, h, 8 * bytes, radius, "fastest-2d-waiting",
            waiting);
        csv_row (b, "kernel", w, h, 8 * bytes, radius, "gaussian-2d", g2d);
        csv_row (b, "kernel", w, h, 8 * bytes, radius, "fp32-floor", floor_ms);
        csv_row (b, "auto", w, h, 8 * bytes, radius, names[pick],
            ms[pick > CC_STRATEGY_AUTO ? pick : CC_STRATEGY_TILED_HALO]);
      }
      device_pair_free (&pair);
    }
    if (b->only_w)
      break;
  }
  kernel_timer_clear (&timer);
  return 0;
}

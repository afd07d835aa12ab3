/* cudaconv benchmark: per-plane kernel times and the element's frame rate.
 *
 *   cudaconv-bench [--kernels] [--element] [--live] [--once] [--cpu-peers]
 *                  [--crop] [--packed] [--cuda-memory] [--streams LIST]
 *                  [--cuda-streams LIST] [--separate-contexts]
 *                  [--devices LIST] [--decode FILES]
 *                  [--frames N]
 *                  [--size WxH] [--format F] [--props "kernel=gaussian"]
 *                  [--csv FILE]
 *
 * Kernels (--kernels): one 8- or 16-bit plane, border clamp, for each
 * strategy and radius at 3840x2160 and 1920x1080 (or only --size), against
 * the GPU's FP32 rate measured in the same run and against a plain copy of
 * the plane (bench-copy-floor.cu; see time_launches for the method); the CPU
 * backend's times follow. Element (--element): frames per second end to end
 * with the input in cudaconv's pinned pool and in foreign buffers, against
 * the transfer floor and cudaupload ! cudadownload; the CPU backend against
 * gaussianblur. Live (--live): a live 1080p30 source through cudaconv. Once
 * (--once, not part of "all"): one line, the frame rate of cudaconv with
 * --props as given (backend=auto unless they say) on --format frames of
 * --size, as pipelines/demo.sh reports it. CPU peers (--cpu-peers, not
 * part of "all"): the CPU backend against OpenCV's cvsmooth on 1080p RGB.
 * Crop (--crop): 1920x1088 frames through videocrop to their 1080-row
 * picture, with cudaconv taking videocrop's crop meta and with the meta
 * refused (videocrop then copies the picture), against 1920x1080 frames
 * with no crop at all. CUDA memory (--cuda-memory): frames in cudaconv's
 * GstCudaBufferPool, filtered where they are, against the kernels'
 * capacity (1 / the frame's summed kernel time). Streams (--streams,
 * --cuda-streams, not part of "all"): N pipelines at once in system or
 * CUDA memory, against the transfer floor or the kernels' capacity.
 * --separate-contexts gives each pipeline its own CUDA context; --devices
 * spreads them over devices (one 2160p pipeline per GPU: --devices 0,1
 * --streams 1,2). Decode (--decode, not part of "all"): nvh264dec ! cudaconv !
 * cudadownload against nvh264dec ! cudadownload on the same files.
 * With no section named, all but --once and --cpu-peers run. --csv appends every number to a file for
 * benchmarks/bench-report.py and benchmarks/bench-plot.py. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "cudaconv-cpu.h"
#ifdef HAVE_CUDA
#include "cudaconv-cuda.h"
#endif

#define WARMUP_OUTPUTS 10
/* frames that give WARMUP_OUTPUTS outputs whatever the async-depth */
#define WARM_FRAMES (WARMUP_OUTPUTS + 8)

static gboolean
cuda_device_present (void)
{
#ifdef HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount (&count) == cudaSuccess && count > 0)
    return TRUE;
  (void) cudaGetLastError ();
#endif
  return FALSE;
}

static const int radii[] = { 1, 2, 3, 7, 15 };
static const int sizes[][2] = { {1920, 1080}, {3840, 2160} };

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof (double), compare_doubles);
  return v[n / 2];
}

/* A 2D filter of fixed pseudo-random positive weights summing to 1 */
static void
normalised_filter (int radius, CcFilter * f)
{
  int side = 2 * radius + 1, n = side * side;
  double sum = 0.0;
  f->radius = radius;
  f->response = CC_RESPONSE_LINEAR;
  f->offset = 0.0f;
  f->separable = 0;
  for (int k = 0; k < n; k++)
    sum += f->taps[k] = (float) (1.0 + (k * 7919 % 13));
  for (int k = 0; k < n; k++)
    f->taps[k] = (float) (f->taps[k] / sum);
}

static unsigned char *
random_plane (size_t bytes)
{
  unsigned char *p = malloc (bytes);
  unsigned x = 12345;
  for (size_t k = 0; k < bytes; k++) {
    x = x * 1103515245u + 12345u;
    p[k] = (unsigned char) (x >> 16);
  }
  return p;
}

static FILE *csv;

static void
csv_row (const char *what, int w, int h, int bits, int radius,
    const char *variant, double value)
{
  if (csv) {
    /* labels like "cuda, foreign input" keep their meaning without commas */
    gchar *name = g_strdelimit (g_strdup (variant), ",", ';');
    fprintf (csv, "%s,%dx%d,%d,%d,%s,%.6f\n", what, w, h, bits, radius,
        name, value);
    g_free (name);
  }
}

#ifdef HAVE_CUDA
double cc_bench_fp32_fma_rate (void);
cudaError_t cc_bench_copy_plane (const void *src, void *dst, size_t pitch,
    size_t row_bytes, int height);
cudaError_t cc_bench_gpu_busy (double us);

static const int kernel_radii[] = { 1, 2, 3, 5, 7, 10, 15 };

/* Median of KERNEL_RUNS samples after KERNEL_WARMUP launches; a sample is
 * KERNEL_BATCH launches back to back between two events, divided by the
 * batch. Each sample starts behind a kernel that keeps the GPU busy
 * (bench-gpu-busy.cu) while the host queues the events and the batch, so
 * that the events bracket GPU time only, the kernels and the gaps between
 * them: without it the GPU reaches the start event at once and waits for
 * the first launch, and the host's launch latency lands inside the sample.
 * A sample whose busy kernel ended before the batch was queued (the host
 * stalled) is taken again with twice the wait. The Python peers
 * (bench-peers.py) are timed the same way. -1 when a launch fails. */
#define KERNEL_WARMUP 5
#define KERNEL_RUNS 31
#define KERNEL_BATCH 10
#define KERNEL_BUSY_US 200.0
#define KERNEL_BUSY_MAX_US 100000.0

typedef struct {
  const CcComponent *in, *out;
  const CcFilter *filter;
  CcStrategy strategy;
  CcLaunchFlags flags;
  gboolean copy;                /* a plane copy instead of a convolution */
} KernelLaunch;

static cudaError_t
launch (const KernelLaunch * k)
{
  if (k->copy)
    return cc_bench_copy_plane (k->in->data, k->out->data, k->in->pitch,
        (size_t) k->in->width * k->in->sample, k->in->height);
  return cc_cuda_convolve (k->in, k->out, k->filter, CC_BORDER_CLAMP,
      k->strategy, 0, k->flags, NULL);
}

static double
time_launches (const KernelLaunch * k)
{
  static cudaEvent_t start, stop, busy_done;
  double t[KERNEL_RUNS];
  double busy_us = KERNEL_BUSY_US;
  if (!start) {
    cudaEventCreate (&start);
    cudaEventCreate (&stop);
    cudaEventCreateWithFlags (&busy_done, cudaEventDisableTiming);
  }
  for (int i = 0; i < KERNEL_WARMUP; i++)
    if (launch (k) != cudaSuccess)
      return -1.0;
  for (int i = 0; i < KERNEL_RUNS; i++) {
    float e = 0.0f;
    if (cc_bench_gpu_busy (busy_us) != cudaSuccess)
      return -1.0;
    cudaEventRecord (busy_done, 0);
    cudaEventRecord (start, 0);
    for (int b = 0; b < KERNEL_BATCH; b++)
      launch (k);
    cudaEventRecord (stop, 0);
    const gboolean ran_dry = cudaEventQuery (busy_done) == cudaSuccess;
    if (cudaEventSynchronize (stop) != cudaSuccess)
      return -1.0;
    if (ran_dry && busy_us < KERNEL_BUSY_MAX_US) {
      busy_us *= 2.0;
      i--;
      continue;
    }
    cudaEventElapsedTime (&e, start, stop);
    t[i] = e / KERNEL_BATCH;
  }
  return median (t, KERNEL_RUNS);
}

/* flags: CC_LAUNCH_SRC_READY as the element launches its planes, each
 * kernel reading while the one before it ends; CC_LAUNCH_DEFAULT for
 * kernels that each wait for the one before them */
static double
time_kernel (const CcComponent * in, const CcComponent * out,
    const CcFilter * filter, CcStrategy strategy, CcLaunchFlags flags)
{
  const KernelLaunch k = { in, out, filter, strategy, flags, FALSE };
  return time_launches (&k);
}

static double
time_copy (const CcComponent * in, const CcComponent * out)
{
  const KernelLaunch k = { in, out, NULL, CC_STRATEGY_TILED_HALO,
    CC_LAUNCH_DEFAULT, TRUE
  };
  return time_launches (&k);
}

/* The 1D gaussian the element's kernel=gaussian uses for this radius, with
 * sigma 0, as both factors; its outer product is the 2D filter. */
static void
gaussian_filter (int radius, CcFilter * g)
{
  const int side = 2 * radius + 1;
  const double sigma = 0.3 * (radius - 1) + 0.8;
  float *factor = g->col_taps;
  double sum = 0.0;
  g->radius = radius;
  g->response = CC_RESPONSE_LINEAR;
  g->offset = 0.0f;
  g->separable = 1;
  for (int i = 0; i < side; i++)
    sum += factor[i] = (float) exp (-(i - radius) * (i - radius) /
        (2.0 * sigma * sigma));
  for (int i = 0; i < side; i++)
    factor[i] = (float) (factor[i] / sum);
  memcpy (g->row_taps, factor, sizeof (float) * side);
  for (int i = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      g->taps[i * side + j] = factor[i] * factor[j];
}

/* Two pitched device planes of rows x row_bytes with one pitch, the
 * input holding random bytes */
typedef struct {
  void *in, *out;
  size_t pitch;
} DevicePair;

static gboolean
device_pair_new (size_t row_bytes, int rows, DevicePair * pair)
{
  unsigned char *host = random_plane (row_bytes * rows);
  size_t out_pitch;

  memset (pair, 0, sizeof (*pair));
  if (cudaMallocPitch (&pair->in, &pair->pitch, row_bytes, rows) !=
      cudaSuccess || cudaMallocPitch (&pair->out, &out_pitch, row_bytes,
          rows) != cudaSuccess || out_pitch != pair->pitch
      || cudaMemcpy2D (pair->in, pair->pitch, host, row_bytes, row_bytes,
          rows, cudaMemcpyHostToDevice) != cudaSuccess) {
    fprintf (stderr, "cannot make two %zux%d device planes\n", row_bytes,
        rows);
    cudaFree (pair->in);
    cudaFree (pair->out);
    free (host);
    return FALSE;
  }
  free (host);
  return TRUE;
}

static void
device_pair_free (DevicePair * pair)
{
  cudaFree (pair->in);
  cudaFree (pair->out);
}

/* The family a strategy runs on these planes, for the table */
static const char *
family_of (const CcComponent * in, const CcComponent * out,
    const CcFilter * filter, CcStrategy strategy)
{
  CcFamily family;
  return cc_cuda_select_family (in, out, filter, strategy, &family) ==
      cudaSuccess ? cc_family_name (family) : "-";
}

/* only_w x only_h: that plane size alone; 0 x 0: each of sizes[] */
static int
cuda_kernel_table (int only_w, int only_h)
{
  static CcFilter plain, gaussian;
  const CcFilter *filter = &plain, *gauss = &gaussian;
  static const char *names[CC_N_STRATEGIES] = { "auto", "tiled-halo",
    "cache-halo", "separable"
  };
  struct cudaDeviceProp prop;

  if (!cuda_device_present ()) {
    printf ("kernels: no usable CUDA device, skipped\n");
    return 0;
  }
  cudaGetDeviceProperties (&prop, 0);
  const double fma_rate = cc_bench_fp32_fma_rate ();
  printf ("\nCUDA kernels on %s: one plane, border clamp, CUDA events, "
      "median of %d samples of %d back-to-back launches queued behind a "
      "busy kernel (GPU time only), after %d warm-up launches, "
      "milliseconds per launch\n", prop.name, KERNEL_RUNS,
      KERNEL_BATCH, KERNEL_WARMUP);
  printf ("measured FP32 rate: %.1f TFLOP/s (%.2f Tfma/s)\n",
      2.0 * fma_rate / 1e12, fma_rate / 1e12);
  csv_row ("fp32_fma_rate", 0, 0, 0, 0, "fma_per_s", fma_rate);
  printf ("2D filter: random (2r+1)^2 weights; separable: the gaussian of "
      "that radius, also timed as a 2D filter (gauss-2D = the faster 2D "
      "strategy on it); each strategy's kernel family below its time\n");
  printf ("%-9s %4s %3s %10s %10s %10s %10s %10s %9s %8s %8s %s\n", "size",
      "bits", "r", "tiled", "cache", "2D waiting", "gauss-2D", "separable",
      "floor", "2D/floor", "2D/sep", "auto picks (gaussian)");
  for (int s = (int) G_N_ELEMENTS (sizes) - 1; s >= 0; s--) {
    const int w = only_w ? only_w : sizes[s][0];
    const int h = only_w ? only_h : sizes[s][1];
    for (int bytes = 1; bytes <= 2; bytes++) {
      DevicePair pair;

      if (!device_pair_new ((size_t) w * bytes, h, &pair))
        return 1;
      CcComponent in = { pair.in, pair.pitch, w, h, 1, (CcSampleType) bytes, 0,
        0
      };
      CcComponent out = { pair.out, pair.pitch, w, h, 1, (CcSampleType) bytes,
        0, 0
      };
      const double copy_ms = time_copy (&in, &out);
      printf ("%4dx%-4d %4d   plane copy (read and write every sample once, "
          "16 bytes per thread): %.4f\n", w, h, 8 * bytes, copy_ms);
      csv_row ("kernel", w, h, 8 * bytes, 0, "copy", copy_ms);
      for (size_t r = 0; r < G_N_ELEMENTS (kernel_radii); r++) {
        const int radius = kernel_radii[r], side = 2 * radius + 1;
        double ms[CC_N_STRATEGIES], gauss_2d[CC_N_STRATEGIES];
        float tuned[CC_N_FAMILIES];
        CcStrategy pick = CC_STRATEGY_AUTO;

        normalised_filter (radius, &plain);
        for (int st = CC_STRATEGY_TILED_HALO; st <= CC_STRATEGY_CACHE_HALO;
            st++)
          ms[st] = time_kernel (&in, &out, filter, (CcStrategy) st,
              CC_LAUNCH_SRC_READY);
        const CcStrategy best = ms[CC_STRATEGY_TILED_HALO] <=
            ms[CC_STRATEGY_CACHE_HALO] ? CC_STRATEGY_TILED_HALO :
            CC_STRATEGY_CACHE_HALO;
        const double waiting = time_kernel (&in, &out, filter, best,
            CC_LAUNCH_DEFAULT);
        gaussian_filter (radius, &gaussian);
        for (int st = CC_STRATEGY_TILED_HALO; st <= CC_STRATEGY_CACHE_HALO;
            st++)
          gauss_2d[st] = time_kernel (&in, &out, gauss, (CcStrategy) st,
              CC_LAUNCH_SRC_READY);
        ms[CC_STRATEGY_SEPARABLE] = time_kernel (&in, &out, gauss,
            CC_STRATEGY_SEPARABLE, CC_LAUNCH_SRC_READY);
        if (cc_cuda_fastest_strategy (&in, &out, gauss, CC_BORDER_CLAMP, 0,
                &pick, tuned) != cudaSuccess || cudaGetLastError () !=
            cudaSuccess) {
          fprintf (stderr, "kernel launch failed at radius %d\n", radius);
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
          csv_row ("kernel", w, h, 8 * bytes, radius, names[st], ms[st]);
        csv_row ("family", w, h, 8 * bytes, radius, tiled_family,
            ms[CC_STRATEGY_TILED_HALO]);
        csv_row ("family", w, h, 8 * bytes, radius, cache_family,
            ms[CC_STRATEGY_CACHE_HALO]);
        csv_row ("family", w, h, 8 * bytes, radius, separable_family,
            ms[CC_STRATEGY_SEPARABLE]);
        csv_row ("kernel", w, h, 8 * bytes, radius, "fastest-2d-waiting",
            waiting);
        csv_row ("kernel", w, h, 8 * bytes, radius, "gaussian-2d", g2d);
        csv_row ("kernel", w, h, 8 * bytes, radius, "fp32-floor", floor_ms);
        csv_row ("auto", w, h, 8 * bytes, radius, names[pick],
            ms[pick > CC_STRATEGY_AUTO ? pick : CC_STRATEGY_TILED_HALO]);
      }
      device_pair_free (&pair);
    }
    if (only_w)
      break;
  }
  return 0;
}

/* The 2D strategies on one component of packed pixels (YUY2's luma, a
 * component of RGBx or ARGB64), whose rows do not move as quads: what each
 * strategy runs there and how fast. */
static int
cuda_packed_table (int only_w, int only_h)
{
  static CcFilter plain;
  const CcFilter *filter = &plain;
  static const int strides[] = { 2, 3, 4 };

  if (!cuda_device_present ()) {
    printf ("packed kernels: no usable CUDA device, skipped\n");
    return 0;
  }
  printf ("\nCUDA kernels on one component of packed pixels: random "
      "(2r+1)^2 weights, border clamp, timed as the kernel table is, "
      "milliseconds per launch\n");
  printf ("%-9s %4s %6s %3s %10s %10s %s\n", "size", "bits", "stride", "r",
      "tiled", "cache", "families (tiled / cache)");
  for (int s = (int) G_N_ELEMENTS (sizes) - 1; s >= 0; s--) {
    const int w = only_w ? only_w : sizes[s][0];
    const int h = only_w ? only_h : sizes[s][1];
    for (int bytes = 1; bytes <= 2; bytes++) {
      for (size_t k = 0; k < G_N_ELEMENTS (strides); k++) {
        const int stride = strides[k];
        DevicePair pair;

        if (bytes == 2 && stride == 3)
          continue;             /* no format packs three 16-bit samples */
        if (!device_pair_new ((size_t) w * stride * bytes, h, &pair))
          return 1;
        /* the second component: not aligned to a quad either */
        CcComponent in = { (char *) pair.in + bytes, pair.pitch, w, h, stride,
          (CcSampleType) bytes, 0, 0
        };
        CcComponent out = { (char *) pair.out + bytes, pair.pitch, w, h, stride,
          (CcSampleType) bytes, 0, 0
        };
        for (size_t r = 0; r < G_N_ELEMENTS (kernel_radii); r++) {
          const int radius = kernel_radii[r];
          char what[32];

          normalised_filter (radius, &plain);
          const double tiled = time_kernel (&in, &out, filter,
              CC_STRATEGY_TILED_HALO, CC_LAUNCH_SRC_READY);
          const double cache = time_kernel (&in, &out, filter,
              CC_STRATEGY_CACHE_HALO, CC_LAUNCH_SRC_READY);
          if (tiled < 0 || cache < 0) {
            fprintf (stderr, "kernel launch failed at radius %d\n", radius);
            return 1;
          }
          printf ("%4dx%-4d %4d %6d %3d %10.4f %10.4f %s / %s\n", w, h,
              8 * bytes, stride, radius, tiled, cache,
              family_of (&in, &out, filter, CC_STRATEGY_TILED_HALO),
              family_of (&in, &out, filter, CC_STRATEGY_CACHE_HALO));
          g_snprintf (what, sizeof what, "packed-%d", stride);
          csv_row (what, w, h, 8 * bytes, radius, "tiled-halo", tiled);
          csv_row (what, w, h, 8 * bytes, radius, "cache-halo", cache);
        }
        device_pair_free (&pair);
      }
    }
    if (only_w)
      break;
  }
  return 0;
}

/* The GPU time of one frame's kernels: each plane of an 8-bit planar
 * format filtered with kernel=gaussian radius=2 (border clamp), with the
 * strategy the element's auto picks for that plane, timed as the kernel
 * table is and summed over the planes. 1 / this is the rate a GPU running
 * nothing else could filter frames at: the kernels' capacity. -1 when a
 * launch fails. */
static double
frame_kernel_ms (const GstVideoInfo * info)
{
  static CcFilter gaussian;
  const CcFilter *gauss = &gaussian;
  double sum = 0.0;

  gaussian_filter (2, &gaussian);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info) && sum >= 0; p++) {
    const int w = GST_VIDEO_INFO_COMP_WIDTH (info, p);
    const int h = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    CcStrategy pick = CC_STRATEGY_AUTO;
    float tuned[CC_N_FAMILIES];
    DevicePair pair;

    if (!device_pair_new (w, h, &pair)) {
      sum = -1.0;
      break;
    }
    CcComponent in = { pair.in, pair.pitch, w, h, 1, CC_SAMPLE_U8, 0, 0 };
    CcComponent out = { pair.out, pair.pitch, w, h, 1, CC_SAMPLE_U8, 0, 0 };
    const double ms = cc_cuda_fastest_strategy (&in, &out, gauss,
        CC_BORDER_CLAMP, 0, &pick, tuned) == cudaSuccess ? time_kernel (&in,
        &out, gauss, pick, CC_LAUNCH_SRC_READY) : -1.0;
    sum = ms < 0 ? -1.0 : sum + ms;
    device_pair_free (&pair);
  }
  return sum;
}
#endif

static void
cpu_kernel_table (void)
{
  static CcFilter f;
  int w = 1920, h = 1080, threads = (int) g_get_num_processors ();
  unsigned char *in = random_plane ((size_t) w * h), *out = malloc (w * h);

  printf ("\nCPU back end, %d threads: one 8-bit 1920x1080 plane, border "
      "clamp, median of 3, milliseconds\n%6s %12s\n", threads, "radius", "cpu");
  for (size_t r = 0; r < sizeof (radii) / sizeof (radii[0]); r++) {
    CcComponent ci = { in, w, w, h, 1, CC_SAMPLE_U8, 0, 0 };
    CcComponent co = { out, w, w, h, 1, CC_SAMPLE_U8, 0, 0 };
    double t[3];

    normalised_filter (radii[r], &f);
    cc_cpu_convolve (&ci, &co, &f, CC_BORDER_CLAMP, threads);
    for (int i = 0; i < 3; i++) {
      gint64 t0 = g_get_monotonic_time ();
      cc_cpu_convolve (&ci, &co, &f, CC_BORDER_CLAMP, threads);
      t[i] = (g_get_monotonic_time () - t0) / 1000.0;
    }
    printf ("%6d %12.3f\n", radii[r], median (t, 3));
  }
  free (in);
  free (out);
}

/* How appsrc's buffers are made. */
/* Runs that wait for each other: each waits in start_gate_pass until
 * total have arrived, or a minute (a run that failed never arrives). */
typedef struct {
  GMutex lock;
  GCond all_here;
  int arrived, total;
} StartGate;

static void
gate_arrive (StartGate * gate)
{
  g_mutex_lock (&gate->lock);
  if (++gate->arrived >= gate->total)
    g_cond_broadcast (&gate->all_here);
  g_mutex_unlock (&gate->lock);
}

static void
gate_wait (StartGate * gate)
{
  const gint64 until = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&gate->lock);
  while (gate->arrived < gate->total
      && g_cond_wait_until (&gate->all_here, &gate->lock, until));
  g_mutex_unlock (&gate->lock);
}

static void
start_gate_pass (StartGate * gate)
{
  gate_arrive (gate);
  gate_wait (gate);
}

typedef enum {
  FEED_FOREIGN,                 /* 4 plain malloc'd buffers, cycled */
  FEED_POOL,                    /* buffers of the pool cudaconv proposes */
  /* CUDA memory of the GstCudaBufferPool cudaconv proposes, as a decoder
   * in its context hands over */
  FEED_CUDA_POOL
} FeedMode;

#define FOREIGN_BUFFERS 4

typedef struct {
  GstAppSrc *src;
  GstElement *conv;             /* NULL: the pipeline has no cudaconv */
  FeedMode mode;
  GstVideoInfo info;
  GstBuffer *foreign[FOREIGN_BUFFERS];
  GstBufferPool *pool;
  int frames;
  gint stop;                    /* atomic: the pipeline has ended */
  StartGate *warm_gate;         /* see RunWindow */
} Feeder;

static void
fill_random (GstBuffer * buf)
{
  GstMapInfo map;
  unsigned x = 12345;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < map.size; k++) {
    x = x * 1103515245u + 12345u;
    map.data[k] = (guint8) (x >> 16);
  }
  gst_buffer_unmap (buf, &map);
}

/* Buffers the feeder's pool holds, as a decoder's would: a fixed set,
 * allocated and filled before the clock starts, and acquiring blocks while
 * all are downstream. An unbounded pool let appsrc's queue run ahead and
 * allocate (and fill) pinned buffers while the clock ran. */
#define POOL_BUFFERS 8

/* The feeder's caps: CUDA memory for FEED_CUDA_POOL */
static GstCaps *
feeder_caps (const GstVideoInfo * info, FeedMode mode)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  if (mode == FEED_CUDA_POOL)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new ("memory:CUDAMemory", NULL));
  return caps;
}

/* The pool cudaconv proposes upstream: pinned memory it copies by DMA, or
 * CUDA memory of its context that its kernels read where it is. Filling a
 * buffer of the latter maps it to the host and uploads it when unmapped. */
static GstBufferPool *
proposed_pool (Feeder * f)
{
  GstPad *pad = gst_element_get_static_pad (GST_ELEMENT (f->src), "src");
  GstCaps *caps = feeder_caps (&f->info, f->mode);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  guint min = 0;

  if (gst_pad_peer_query (pad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, &min, NULL);
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    const guint n = MAX (min, POOL_BUFFERS);
    GstBuffer *bufs[64];
    gst_buffer_pool_config_set_params (config, caps, f->info.size, n, n);
    if (!gst_buffer_pool_set_config (pool, config)
        || !gst_buffer_pool_set_active (pool, TRUE))
      gst_clear_object (&pool);
    /* every buffer holds a random picture before the first is sent */
    guint got = 0;
    while (pool && got < MIN (n, G_N_ELEMENTS (bufs))
        && gst_buffer_pool_acquire_buffer (pool, &bufs[got], NULL) ==
        GST_FLOW_OK)
      fill_random (bufs[got++]);
    for (guint k = 0; k < got; k++)
      gst_buffer_unref (bufs[k]);
    if (pool && got < MIN (n, G_N_ELEMENTS (bufs))) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_clear_object (&pool);
    }
  }
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return pool;
}

static gpointer
feed (gpointer data)
{
  Feeder *f = data;
  /* CUDA memory caps take no system-memory frame: a GAP buffer (which
   * cudaconv forwards as a GAP event) negotiates instead */
  if (f->mode == FEED_CUDA_POOL) {
    GstBuffer *gap = gst_buffer_new ();
    GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
    GST_BUFFER_PTS (gap) = 0;
    if (gst_app_src_push_buffer (f->src, gap) != GST_FLOW_OK)
      f->frames = 0;
  }
  for (int i = 0; i < f->frames; i++) {
    GstBuffer *buf = NULL;
    const int ask_at = f->mode == FEED_CUDA_POOL ? 0 : 1;
    if (i == WARM_FRAMES && f->warm_gate)
      gate_wait (f->warm_gate);
    /* the first frame negotiates; cudaconv proposes its pool once it has
     * decided its own downstream allocation, so ask until it does */
    for (int tries = 0; f->mode != FEED_FOREIGN && i == ask_at && !f->pool
        && tries < 200; tries++) {
      GstBufferPool *pool = proposed_pool (f);
      if (pool)
        g_atomic_pointer_set (&f->pool, pool);
      else
        g_usleep (10000);
    }
    if (f->mode != FEED_FOREIGN && i == ask_at && !f->pool) {
      fprintf (stderr, "cudaconv proposed no pool\n");
      break;
    }
    /* a pipeline that failed keeps its buffers: pipeline_run sets the
     * pool flushing once it has ended, which ends a wait for one */
    if (f->pool && (g_atomic_int_get (&f->stop)
            || gst_buffer_pool_acquire_buffer (f->pool, &buf, NULL) !=
            GST_FLOW_OK))
      break;
    if (!f->pool) {
      buf = gst_buffer_ref (f->foreign[i % FOREIGN_BUFFERS]);
    }
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int ((i + 1) * GST_SECOND,
        f->info.fps_d, f->info.fps_n);
    if (gst_app_src_push_buffer (f->src, buf) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (f->src);
  return NULL;
}

/* Set by the crop table: an element named "crop" in a pipeline hears that
 * downstream does not take crop metas. */
static gboolean refuse_crop_meta;

/* After downstream answered the allocation query, its crop meta support
 * is taken out of the answer. */
static GstPadProbeReturn
refuse_crop_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  guint index;

  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION
      && gst_query_find_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE,
          &index))
    gst_query_remove_nth_allocation_meta (query, index);
  return GST_PAD_PROBE_OK;
}

/* One GstCudaContext for every pipeline of a process, as an application
 * that runs many should give them (GStreamer's CUDA elements share one
 * within a pipeline by themselves): the first element that needs one makes
 * it, and the others, which wait meanwhile, are handed it. Separate
 * contexts on one GPU are time-sliced: kernels of different contexts never
 * run at once. */
typedef struct {
  GMutex lock;
  GCond made;
  GstContext *context;
  gboolean making;
} SharedCudaContext;

static GstBusSyncReply
share_cuda_context (GstBus * bus, GstMessage * msg, gpointer data)
{
  SharedCudaContext *shared = data;
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT
      && gst_message_parse_context_type (msg, &type)
      && g_str_equal (type, "gst.cuda.context")) {
    const gint64 until = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
    g_mutex_lock (&shared->lock);
    while (!shared->context && shared->making
        && g_cond_wait_until (&shared->made, &shared->lock, until));
    if (shared->context)
      gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)),
          shared->context);
    else
      shared->making = TRUE;
    g_mutex_unlock (&shared->lock);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext *context = NULL;
    gst_message_parse_have_context (msg, &context);
    if (context && g_str_equal (gst_context_get_context_type (context),
            "gst.cuda.context")) {
      g_mutex_lock (&shared->lock);
      if (!shared->context)
        shared->context = gst_context_ref (context);
      g_cond_broadcast (&shared->made);
      g_mutex_unlock (&shared->lock);
    }
    if (context)
      gst_context_unref (context);
  }
  return GST_BUS_PASS;
}

/* The outputs after warm-up of a pipeline run and when they came out
 * (monotonic microseconds): from the WARMUP_OUTPUTS-th output to the last;
 * where times is given (frames of them), when each output came out; where
 * gate is, the run feeds its first frame once every run of the gate has
 * set its pipeline to PLAYING; where warm_gate is, it arrives there with
 * its WARMUP_OUTPUTS-th output and feeds no more than WARM_FRAMES frames
 * until every run of that gate has (many pipelines starting at once take
 * seconds to all get going, the first frame's tuning among it). */
typedef struct {
  int outputs;
  gint64 start, end;
  gint64 *times;
  StartGate *gate, *warm_gate;
  SharedCudaContext *cuda_context;      /* NULL: the pipeline makes its own */
} RunWindow;

/* Frames per second through "appsrc name=src ! <middle> ! appsink
 * name=sink sync=false", counted from the WARMUP_OUTPUTS-th output to the
 * last, and that window if asked; negative on failure. */
static double
pipeline_run (const char *middle, const char *format, int w, int h,
    FeedMode mode, int frames, RunWindow * window)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! %s ! appsink name=sink "
      "sync=false", middle);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *src, *sink;
  GstCaps *caps;
  GstBus *bus;
  GstMessage *msg;
  Feeder feeder = { 0 };
  GThread *thread;
  gint64 t0 = 0, t1 = 0;
  int got = 0;
  double fps = -1.0;

  g_free (desc);
  /* a missing element leaves a pipeline without it, and an error */
  if (err) {
    fprintf (stderr, "pipeline: %s\n", err->message);
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return -1.0;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (window && window->cuda_context) {
    GstBus *sync_bus = gst_element_get_bus (pipeline);
    gst_bus_set_sync_handler (sync_bus, share_cuda_context,
        window->cuda_context, NULL);
    gst_object_unref (sync_bus);
  }
  if (refuse_crop_meta) {
    GstElement *crop = gst_bin_get_by_name (GST_BIN (pipeline), "crop");
    if (crop) {
      GstPad *pad = gst_element_get_static_pad (crop, "src");
      /* PULL: called when the query comes back answered */
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
          GST_PAD_PROBE_TYPE_PULL, refuse_crop_probe, NULL, NULL);
      gst_object_unref (pad);
      gst_object_unref (crop);
    }
  }
  gst_video_info_set_format (&feeder.info,
      gst_video_format_from_string (format), w, h);
  feeder.info.fps_n = 30;
  feeder.info.fps_d = 1;
  caps = feeder_caps (&feeder.info, mode);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  gst_caps_unref (caps);
  feeder.src = GST_APP_SRC (src);
  feeder.mode = mode;
  for (int k = 0; k < FOREIGN_BUFFERS; k++) {
    feeder.foreign[k] = gst_buffer_new_allocate (NULL, feeder.info.size, NULL);
    fill_random (feeder.foreign[k]);
  }
  feeder.frames = frames;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    feeder.frames = 0;          /* the bus holds the reason */
  /* the elements have started (made their CUDA contexts) by now; the
   * sink prerolls on the first frame */
  if (window && window->gate)
    start_gate_pass (window->gate);
  if (window)
    feeder.warm_gate = window->warm_gate;
  thread = g_thread_new ("feeder", feed, &feeder);
  for (GstSample * s; feeder.frames > 0
      && (s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND));) {
    got++;
    if (got == WARMUP_OUTPUTS)
      t0 = g_get_monotonic_time ();
    if (got == WARMUP_OUTPUTS && window && window->warm_gate)
      gate_arrive (window->warm_gate);
    t1 = g_get_monotonic_time ();
    if (window && window->times && got <= frames)
      window->times[got - 1] = t1;
    gst_sample_unref (s);
  }
  g_atomic_int_set (&feeder.stop, 1);
  if (g_atomic_pointer_get (&feeder.pool))
    gst_buffer_pool_set_flushing (feeder.pool, TRUE);
  g_thread_join (thread);

  bus = gst_element_get_bus (pipeline);
  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      fprintf (stderr, "%s: %s\n", middle, err->message);
      g_clear_error (&err);
      got = 0;
    }
    gst_message_unref (msg);
  }
  if (feeder.frames > 0 && got == feeder.frames && got > WARMUP_OUTPUTS
      && t1 > t0) {
    fps = (got - WARMUP_OUTPUTS) / ((t1 - t0) / 1e6);
    if (window) {
      window->outputs = got - WARMUP_OUTPUTS;
      window->start = t0;
      window->end = t1;
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (feeder.pool) {
    gst_buffer_pool_set_active (feeder.pool, FALSE);
    gst_object_unref (feeder.pool);
  }
  for (int k = 0; k < FOREIGN_BUFFERS; k++)
    gst_buffer_unref (feeder.foreign[k]);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return fps;
}

static double
pipeline_fps (const char *middle, const char *format, int w, int h,
    FeedMode mode, int frames)
{
  return pipeline_run (middle, format, w, h, mode, frames, NULL);
}

#ifdef HAVE_CUDA
/* The end-to-end floor: one frame's host-to-device and device-to-host copies
 * from pinned memory, issued at once on two streams; median of 31,
 * milliseconds, after FLOOR_WARMUP_MS of the same copies. With 5 pairs of
 * warm-up copies, on a GPU that had been idle (its clocks and link at
 * rest) the first 2160p floor of a process came out at 0.55 ms a frame
 * against 0.26 ms a minute later. */
#define FLOOR_WARMUP_MS 250
#define FLOOR_RUNS 31

typedef struct {
  void *h_in, *h_out, *d_in, *d_out;
  size_t bytes;
  cudaStream_t up, down;
  cudaEvent_t start, up_done, stop;
} FloorCopies;

/* One frame's two copies at once, milliseconds */
static float
floor_copies_ms (const FloorCopies * c)
{
  float ms = 0.0f;
  cudaEventRecord (c->start, c->up);
  cudaStreamWaitEvent (c->down, c->start, 0);
  cudaMemcpyAsync (c->d_in, c->h_in, c->bytes, cudaMemcpyHostToDevice, c->up);
  cudaMemcpyAsync (c->h_out, c->d_out, c->bytes, cudaMemcpyDeviceToHost,
      c->down);
  cudaEventRecord (c->up_done, c->up);
  cudaStreamWaitEvent (c->down, c->up_done, 0);
  cudaEventRecord (c->stop, c->down);
  cudaEventSynchronize (c->stop);
  cudaEventElapsedTime (&ms, c->start, c->stop);
  return ms;
}

static double
transfer_floor_ms (size_t bytes)
{
  FloorCopies c = { .bytes = bytes };
  double t[FLOOR_RUNS], floor_ms = -1.0;
  if (cudaHostAlloc (&c.h_in, bytes, cudaHostAllocDefault) == cudaSuccess
      && cudaHostAlloc (&c.h_out, bytes, cudaHostAllocDefault) == cudaSuccess
      && cudaMalloc (&c.d_in, bytes) == cudaSuccess
      && cudaMalloc (&c.d_out, bytes) == cudaSuccess) {
    cudaStreamCreateWithFlags (&c.up, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags (&c.down, cudaStreamNonBlocking);
    cudaEventCreate (&c.start);
    cudaEventCreate (&c.up_done);
    cudaEventCreate (&c.stop);
    const gint64 warm_until = g_get_monotonic_time () +
        FLOOR_WARMUP_MS * 1000;
    for (int n = 0; n < 5 || g_get_monotonic_time () < warm_until; n++)
      floor_copies_ms (&c);
    for (int i = 0; i < FLOOR_RUNS; i++)
      t[i] = floor_copies_ms (&c);
    floor_ms = median (t, FLOOR_RUNS);
    cudaEventDestroy (c.start);
    cudaEventDestroy (c.up_done);
    cudaEventDestroy (c.stop);
    cudaStreamDestroy (c.up);
    cudaStreamDestroy (c.down);
  }
  /* NULL where an allocation failed or was not reached */
  cudaFreeHost (c.h_in);
  cudaFreeHost (c.h_out);
  cudaFree (c.d_in);
  cudaFree (c.d_out);
  return floor_ms;
}
#endif

static gint64 live_in_time[64];
static double live_latency_ms[4096];
static int live_latency_n;

static GstPadProbeReturn
live_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 n = GST_BUFFER_OFFSET (buf);
  live_in_time[n % 64] = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
live_out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 n = GST_BUFFER_OFFSET (buf);
  if (live_latency_n < (int) G_N_ELEMENTS (live_latency_ms))
    live_latency_ms[live_latency_n++] =
        (g_get_monotonic_time () - live_in_time[n % 64]) / 1000.0;
  return GST_PAD_PROBE_OK;
}

/* videotestsrc is-live=true at 1920x1080 30 fps through cudaconv to a
 * synchronised fakesink: frames in and out, the sink's drops, the time each
 * buffer spends in cudaconv (sink pad to src pad), and the pipeline's answer
 * to a latency query. */
static int
live_run (const char *backend, int frames)
{
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true num-buffers=%d "
      "pattern=ball ! video/x-raw,format=I420,width=1920,height=1080,"
      "framerate=30/1 ! cudaconv name=conv backend=%s kernel=gaussian "
      "radius=2 ! fakesink name=sink sync=true", frames, backend);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *conv, *sink;
  GstPad *in, *out;
  GstMessage *msg;
  GstQuery *q;
  GstStructure *stats = NULL;
  guint64 rendered = 0, dropped = 0;
  gboolean live = FALSE, answered = FALSE;
  GstClockTime min = 0, max = 0;
  int status = 0;

  g_free (desc);
  if (!pipeline) {
    fprintf (stderr, "live pipeline: %s\n", err->message);
    g_clear_error (&err);
    return 1;
  }
  conv = gst_bin_get_by_name (GST_BIN (pipeline), "conv");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  in = gst_element_get_static_pad (conv, "sink");
  out = gst_element_get_static_pad (conv, "src");
  live_latency_n = 0;
  gst_pad_add_probe (in, GST_PAD_PROBE_TYPE_BUFFER, live_in_probe, NULL, NULL);
  gst_pad_add_probe (out, GST_PAD_PROBE_TYPE_BUFFER, live_out_probe, NULL,
      NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND);
  q = gst_query_new_latency ();
  if ((answered = gst_element_query (pipeline, q)))
    gst_query_parse_latency (q, &live, &min, &max);
  gst_query_unref (q);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      (frames / 30 + 20) * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    fprintf (stderr, "live run did not reach EOS\n");
    status = 1;
  }
  if (msg)
    gst_message_unref (msg);
  g_object_get (sink, "stats", &stats, NULL);
  if (stats) {
    gst_structure_get_uint64 (stats, "rendered", &rendered);
    gst_structure_get_uint64 (stats, "dropped", &dropped);
    gst_structure_free (stats);
  }
  double lat[4096];
  int n = live_latency_n;
  memcpy (lat, live_latency_ms, sizeof (double) * n);
  /* the first frame also times the strategies (strategy=auto) */
  double first = n ? lat[0] : -1.0;
  double med = n > 1 ? median (lat + 1, n - 1) : -1.0;
  double worst = n > 1 ? lat[n - 1] : -1.0;
  printf ("live 1920x1080 30/1 backend=%s: %d frames sent, %" G_GUINT64_FORMAT
      " rendered, %" G_GUINT64_FORMAT " dropped; time in cudaconv: first "
      "frame %.3f ms, then median %.3f ms, max %.3f ms; latency query: %s "
      "live=%s min=%.3f ms max=%s\n", backend, frames, rendered, dropped,
      first, med, worst,
      answered ? "answered" : "NOT answered", live ? "true" : "false",
      min / 1e6, GST_CLOCK_TIME_IS_VALID (max) ?
      g_strdup_printf ("%.3f ms", max / 1e6) : "none");
  csv_row ("live", 1920, 1080, 8, 0, "rendered", (double) rendered);
  csv_row ("live", 1920, 1080, 8, 0, "dropped", (double) dropped);
  csv_row ("live", 1920, 1080, 8, 0, "median_ms_in_element", med);
  csv_row ("live", 1920, 1080, 8, 0, "max_ms_in_element", worst);
  csv_row ("live", 1920, 1080, 8, 0, "first_frame_ms_in_element", first);
  csv_row ("live", 1920, 1080, 8, 0, "query_min_latency_ms", min / 1e6);
  if (rendered != (guint64) frames || dropped != 0)
    status = 1;
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (out);
  gst_object_unref (conv);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return status;
}

/* Runs of each end-to-end row; the row reports their median. One run of a
 * 1920x1080 row lasted about a tenth of a second, and one stall of the
 * host (the GPU machine's other work) in it moved a row by a third. */
#define ELEMENT_RUNS 3

/* The transfer floor in frames/s for frames of bytes, -1 without a GPU */
static double
floor_fps (size_t bytes)
{
#ifdef HAVE_CUDA
  if (bytes > 0 && cuda_device_present ()) {
    const double ms = transfer_floor_ms (bytes);
    return ms > 0 ? 1e3 / ms : -1.0;
  }
#endif
  return -1.0;
}

/* ELEMENT_RUNS runs of the pipeline; with floor_bytes, each against the
 * transfer floor measured just before it. The host's copy bandwidth moves
 * between runs on the GPU machine (the floor alone came out between
 * 1543.2 and 3936.8 frames/s at 2160p in one session), so a run is
 * compared with the floor of the same moment and the row reports the
 * median of those ratios, beside the median rate. */
static void
element_row (const char *label, const char *middle, const char *format,
    int w, int h, FeedMode mode, int frames, size_t floor_bytes)
{
  double runs[ELEMENT_RUNS], ratios[ELEMENT_RUNS];
  gboolean ratio_ok = TRUE;
  for (int k = 0; k < ELEMENT_RUNS; k++) {
    const double floor_now = floor_fps (floor_bytes);
    runs[k] = pipeline_fps (middle, format, w, h, mode, frames);
    ratio_ok = ratio_ok && floor_now > 0;
    ratios[k] = floor_now > 0 ? runs[k] / floor_now : -1.0;
  }
  /* median() sorts: a failed run (negative) comes first and fails the row */
  const double mid = median (runs, ELEMENT_RUNS);
  const double fps = runs[0] < 0 ? -1.0 : mid;
  const double ratio = ratio_ok ? median (ratios, ELEMENT_RUNS) : -1.0;
  if (fps < 0) {
    printf ("%4dx%-4d %-34s  (not available)\n", w, h, label);
  } else if (ratio > 0) {
    printf ("%4dx%-4d %-34s %9.1f frames/s  %5.1f%% of the floor "
        "(runs %.1f to %.1f frames/s, %.1f%% to %.1f%%)\n", w, h, label, fps,
        100.0 * ratio, runs[0], runs[ELEMENT_RUNS - 1], 100.0 * ratios[0],
        100.0 * ratios[ELEMENT_RUNS - 1]);
  } else {
    printf ("%4dx%-4d %-34s %9.1f frames/s  (runs %.1f to %.1f)\n", w, h,
        label, fps, runs[0], runs[ELEMENT_RUNS - 1]);
  }
  csv_row ("element", w, h, 8, 0, label, fps);
  if (fps > 0 && ratio > 0) {
    gchar *name = g_strdup_printf ("%s / floor", label);
    csv_row ("element", w, h, 8, 0, name, ratio);
    g_free (name);
  }
}

/* The end-to-end table: cudaconv with the input in its pinned pool and in
 * foreign buffers (registered, then staged), against the transfer floor and
 * cudaupload ! cudadownload; then the CPU backend against gaussianblur. */
static int
element_table (const char *format, const char *props, int frames,
    int only_w, int only_h)
{
  printf ("\nElement: appsrc ! ... ! appsink sync=false, %s, cudaconv %s, "
      "frames/s after %d warm-up frames of %d per 3840x2160 run (smaller "
      "frames: more, up to 4x), median of %d runs; %% of the floor: median "
      "of each run against the floor measured just before it\n", format,
      props,
      WARMUP_OUTPUTS, frames, ELEMENT_RUNS);
  for (size_t s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const int w = only_w ? only_w : sizes[s][0];
    const int h = only_w ? only_h : sizes[s][1];
    GstVideoInfo info;
    gchar *mid;

    gst_video_info_set_format (&info, gst_video_format_from_string (format),
        w, h);
    /* about as long a run at every size */
    const int frames_here = (int) (frames * CLAMP (3840.0 * 2160.0 /
            ((double) w * h), 1.0, 4.0));
    /* the floor once, as a reference; each row's runs measure their own */
    const double floor_first = floor_fps (info.size);
    if (floor_first > 0) {
      printf ("%4dx%-4d %-34s %9.1f frames/s  (%.4f ms for %" G_GSIZE_FORMAT
          " bytes each way)\n", w, h, "floor: H2D+D2H at once, pinned",
          floor_first, 1e3 / floor_first, info.size);
      csv_row ("element", w, h, 8, 0, "floor", floor_first);
    }
    mid = g_strdup_printf ("cudaconv backend=cuda %s", props);
    element_row ("cuda, input in its pinned pool", mid, format, w, h,
        FEED_POOL, frames_here, info.size);
    element_row ("cuda, foreign input, registered", mid, format, w, h,
        FEED_FOREIGN, frames_here, info.size);
    g_free (mid);
    mid = g_strdup_printf ("cudaconv backend=cuda host-register=false %s",
        props);
    element_row ("cuda, foreign input, staged", mid, format, w, h,
        FEED_FOREIGN, frames_here, info.size);
    g_free (mid);
    mid = g_strdup_printf ("cudaconv backend=cuda async-depth=1 %s", props);
    element_row ("cuda, pool input, async-depth=1", mid, format, w, h,
        FEED_POOL, frames_here, info.size);
    g_free (mid);
    /* the caps in between keep cudaupload from negotiating passthrough */
    element_row ("cudaupload ! cudadownload", "cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw",
        format, w, h, FEED_FOREIGN, frames_here, info.size);
    mid = g_strdup_printf ("cudaconv backend=cpu %s", props);
    element_row ("cpu backend", mid, format, w, h, FEED_FOREIGN,
        MAX (frames_here / 10, WARMUP_OUTPUTS + 20), 0);
    g_free (mid);
    if (only_w)
      break;
  }

  /* gaussianblur: AYUV only, all four channels, radius ceil(2.5 sigma) */
  printf ("\nCPU backend against gst-plugins-bad gaussianblur, AYUV "
      "1920x1080, sigma 1.2 (gaussianblur's 7 taps: radius 3), all four "
      "channels\n");
  double ours = pipeline_fps ("cudaconv backend=cpu kernel=gaussian radius=3 "
      "sigma=1.2 channels=y+u+v+a", "AYUV", 1920, 1080, FEED_FOREIGN, 120);
  double theirs = pipeline_fps ("gaussianblur sigma=1.2", "AYUV", 1920, 1080,
      FEED_FOREIGN, 30);
  printf ("cudaconv backend=cpu %9.1f frames/s\ngaussianblur         %9.1f "
      "frames/s\nratio                %9.1fx\n", ours, theirs,
      theirs > 0 ? ours / theirs : -1.0);
  csv_row ("cpu-vs-gaussianblur", 1920, 1080, 8, 3, "cudaconv-cpu", ours);
  csv_row ("cpu-vs-gaussianblur", 1920, 1080, 8, 3, "gaussianblur", theirs);
  return 0;
}

/* The CPU backend against OpenCV's cvsmooth (gstreamer1.0-opencv), which
 * takes packed RGB only: a 7x7 gaussian, sigma 1.4 (the default of both at
 * that size), 1920x1080, the two alternating, median of PEER_RUNS each;
 * then the CPU backend on the other packed formats and on I420 and P010 at
 * the same size. */
#define PEER_RUNS 5
static int
cpu_peer_table (int frames)
{
  static const char *formats[] = { "BGR", "RGBx", "BGRA", "YUY2", "UYVY",
    "I420", "P010_10LE"
  };
  const char *ours = "cudaconv backend=cpu kernel=gaussian radius=3";
  const char *theirs = "cvsmooth type=gaussian kernel-width=7 "
      "kernel-height=7";
  double a[PEER_RUNS], b[PEER_RUNS];
  int status = 0;
  GstElementFactory *cv = gst_element_factory_find ("cvsmooth");

  if (!cv) {
    printf ("\ncvsmooth: not installed (gstreamer1.0-opencv); CPU peers "
        "skipped\n");
    return 0;
  }
  gst_object_unref (cv);
  printf ("\nCPU backend against OpenCV cvsmooth, 1920x1080 RGB, 7x7 gaussian "
      "sigma 1.4, frames/s, median of %d alternating runs of %d frames\n",
      PEER_RUNS, frames);
  for (int k = 0; k < PEER_RUNS; k++) {
    a[k] = pipeline_fps (ours, "RGB", 1920, 1080, FEED_FOREIGN, frames);
    b[k] = pipeline_fps (theirs, "RGB", 1920, 1080, FEED_FOREIGN, frames);
  }
  qsort (a, PEER_RUNS, sizeof (double), compare_doubles);
  qsort (b, PEER_RUNS, sizeof (double), compare_doubles);
  printf ("%-40s %9.1f frames/s\n%-40s %9.1f frames/s\n%-40s %9.2fx\n",
      ours, a[PEER_RUNS / 2], theirs, b[PEER_RUNS / 2], "ratio",
      b[PEER_RUNS / 2] > 0 ? a[PEER_RUNS / 2] / b[PEER_RUNS / 2] : -1.0);
  csv_row ("cpu-vs-cvsmooth", 1920, 1080, 8, 3, "cudaconv-cpu",
      a[PEER_RUNS / 2]);
  csv_row ("cpu-vs-cvsmooth", 1920, 1080, 8, 3, "cvsmooth", b[PEER_RUNS / 2]);
  if (a[PEER_RUNS / 2] <= 0 || b[PEER_RUNS / 2] <= 0)
    status = 1;
  for (size_t f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (int k = 0; k < 3; k++)
      a[k] = pipeline_fps (ours, formats[f], 1920, 1080, FEED_FOREIGN,
          frames);
    qsort (a, 3, sizeof (double), compare_doubles);
    printf ("%-40s %9.1f frames/s  (%s, median of 3)\n", ours, a[1],
        formats[f]);
  }
  return status;
}

/* CUDA in / CUDA out: frames of cudaconv's proposed GstCudaBufferPool
 * through cudaconv kernel=gaussian radius=2, output in CUDA memory of its
 * own pool, never copied to the host; against the kernels' capacity for
 * the same frames (frame_kernel_ms), measured just before each run. */
static int
cuda_memory_table (const char *format, int frames, int only_w, int only_h)
{
#ifdef HAVE_CUDA
  if (!cuda_device_present ()) {
    printf ("\nCUDA memory: no usable CUDA device, skipped\n");
    return 0;
  }
  printf ("\nCUDA memory in and out: appsrc (cudaconv's GstCudaBufferPool) "
      "! cudaconv kernel=gaussian radius=2 ! appsink sync=false, %s, "
      "frames/s after %d warm-up frames of %d (4x as many at 1920x1080), "
      "median of %d runs; against 1 / the frame's kernel time (each plane's "
      "kernel as auto picks it, CUDA events, summed), median of the runs' "
      "ratios\n", format, WARMUP_OUTPUTS, frames, ELEMENT_RUNS);
  printf ("%-9s %12s %12s %12s %9s\n", "size", "frames/s", "kernels ms",
      "kernels f/s", "% kernels");
  for (int s = (int) G_N_ELEMENTS (sizes) - 1; s >= 0; s--) {
    const int w = only_w ? only_w : sizes[s][0];
    const int h = only_w ? only_h : sizes[s][1];
    const int n = w * h <= 1920 * 1080 ? 4 * frames : frames;
    double runs[ELEMENT_RUNS], ratios[ELEMENT_RUNS], kernel[ELEMENT_RUNS];
    GstVideoInfo info;

    gst_video_info_set_format (&info, gst_video_format_from_string (format),
        w, h);
    for (int k = 0; k < ELEMENT_RUNS; k++) {
      kernel[k] = frame_kernel_ms (&info);
      runs[k] = pipeline_fps ("cudaconv backend=cuda kernel=gaussian "
          "radius=2", format, w, h, FEED_CUDA_POOL, n);
      ratios[k] = kernel[k] > 0 && runs[k] > 0 ? runs[k] * kernel[k] / 1e3 :
          -1.0;
    }
    const double fps = median (runs, ELEMENT_RUNS);
    const double ms = median (kernel, ELEMENT_RUNS);
    const double ratio = median (ratios, ELEMENT_RUNS);
    if (runs[0] < 0 || kernel[0] < 0) {
      printf ("%4dx%-4d did not run\n", w, h);
      return 1;
    }
    printf ("%4dx%-4d %12.1f %12.4f %12.1f %9.1f (runs %.1f%% to %.1f%%)\n",
        w, h, fps, ms, 1e3 / ms, 100.0 * ratio, 100.0 * ratios[0],
        100.0 * ratios[ELEMENT_RUNS - 1]);
    csv_row ("cuda-memory", w, h, 8, 2, "frames_per_s", fps);
    csv_row ("cuda-memory", w, h, 8, 2, "kernel_ms", ms);
    csv_row ("cuda-memory", w, h, 8, 2, "of_kernels", ratio);
    if (only_w)
      break;
  }
  return 0;
#else
  printf ("\nCUDA memory: built without CUDA\n");
  return 0;
#endif
}

/* Wall time from PLAYING to EOS of a gst-launch style pipeline, seconds;
 * -1 on error (printed). */
static double
launch_seconds (const char *desc)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstMessage *msg;
  GstBus *bus;
  gint64 t0;
  double seconds = -1.0;

  if (!pipeline || err) {
    fprintf (stderr, "%s: %s\n", desc, err ? err->message : "no pipeline");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return -1.0;
  }
  bus = gst_element_get_bus (pipeline);
  t0 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
    seconds = (g_get_monotonic_time () - t0) / 1e6;
  else if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "%s: %s\n", desc, err->message);
    g_clear_error (&err);
  }
  gst_clear_message (&msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return seconds;
}

/* Runs of each decode pipeline, alternating; the table reports medians */
#define DECODE_RUNS 5

/* NVDEC into cudaconv: each H.264 file (--decode, comma-separated) decoded
 * by nvh264dec and downloaded, plain, with cudaconv filtering the
 * decoder's CUDA memory, and with cudaconv after the download (system
 * memory: the frame goes up and down again); wall time from PLAYING to
 * EOS, the three alternating. */
static int
decode_table (const char *files, const char *props)
{
  gchar **list = g_strsplit (files, ",", -1);
  GstElementFactory *decoder = gst_element_factory_find ("nvh264dec");
  int status = 0;

  if (!decoder) {
    printf ("\nNVDEC: nvh264dec is not registered here, skipped\n");
    g_strfreev (list);
    return 0;
  }
  gst_object_unref (decoder);
  printf ("\nNVDEC: filesrc ! h264parse ! nvh264dec ! ... ! fakesink "
      "sync=false, cudaconv %s, seconds from PLAYING to EOS, median of %d "
      "runs of each, alternating\n", props, DECODE_RUNS);
  printf ("%-36s %10s %10s %8s %10s %8s\n", "file", "decode", "+cudaconv",
      "ratio", "+download", "ratio");
  for (int k = 0; list[k]; k++) {
    gchar *base = g_strdup_printf ("filesrc location=%s ! h264parse ! "
        "nvh264dec", list[k]);
    gchar *desc[3] = {
      g_strdup_printf ("%s ! cudadownload ! fakesink sync=false", base),
      g_strdup_printf ("%s ! cudaconv %s ! cudadownload ! fakesink "
          "sync=false", base, props),
      g_strdup_printf ("%s ! cudadownload ! cudaconv %s ! fakesink "
          "sync=false", base, props),
    };
    double t[3][DECODE_RUNS], mid[3];
    gchar *name = g_path_get_basename (list[k]);

    for (int r = 0; r < DECODE_RUNS; r++)
      for (int p = 0; p < 3; p++)
        t[p][r] = launch_seconds (desc[p]);
    for (int p = 0; p < 3; p++)
      mid[p] = t[p][0] < 0 ? -1.0 : median (t[p], DECODE_RUNS);
    if (mid[0] > 0 && mid[1] > 0 && mid[2] > 0) {
      printf ("%-36s %10.3f %10.3f %8.3f %10.3f %8.3f\n", name, mid[0],
          mid[1], mid[1] / mid[0], mid[2], mid[2] / mid[0]);
      csv_row ("nvdec", 0, 0, 8, 0, name, mid[0]);
      csv_row ("nvdec+cudaconv", 0, 0, 8, 0, name, mid[1]);
      csv_row ("nvdec+download+cudaconv", 0, 0, 8, 0, name, mid[2]);
    } else {
      printf ("%-36s did not run\n", name);
      status = 1;
    }
    for (int p = 0; p < 3; p++)
      g_free (desc[p]);
    g_free (base);
    g_free (name);
  }
  g_strfreev (list);
  return status;
}

/* One pipeline of streams_table, run on its own thread */
typedef struct {
  gchar *middle;
  const char *format;
  int w, h, frames;
  FeedMode mode;
  RunWindow window;
  double fps;
} Stream;

static gpointer
stream_thread (gpointer data)
{
  Stream *s = data;

  s->fps = pipeline_run (s->middle, s->format, s->w, s->h, s->mode,
      s->frames, &s->window);
  return NULL;
}

/* N independent pipelines in one process, each with its own filter (a
 * gaussian of radius 2 with a sigma of its own), all at once: they start
 * feeding together once all are PLAYING, and the aggregate counts only the
 * outputs of the time when all of them are past their warm-up and none has
 * ended. Fed foreign system-memory frames (FEED_FOREIGN), it is compared
 * with the transfer floor, which they all share (one PCIe link); fed CUDA
 * memory (FEED_CUDA_POOL), with the kernels' capacity, which they share
 * too (one GPU). */
/* Set by --separate-contexts: each pipeline of the streams tables makes
 * its own GstCudaContext, as pipelines do unless the application hands
 * them one. */
static gboolean separate_contexts;
/* Set by --devices: stream i runs on devices[i % n_devices] */
static gint devices[16], n_devices;

static int
streams_table (const char *format, const char *counts, int frames,
    int only_w, int only_h, FeedMode mode)
{
  const int w = only_w ? only_w : 1920, h = only_w ? only_h : 1080;
  gchar **list = g_strsplit (counts, ",", -1);
  GstVideoInfo info;
  double first_aggregate = -1.0;
  int status = 0;

#ifdef HAVE_CUDA
  if (!cuda_device_present ()) {
    printf ("\nmany streams: no usable CUDA device, skipped\n");
    g_strfreev (list);
    return 0;
  }
#else
  printf ("\nmany streams: built without CUDA\n");
  g_strfreev (list);
  return 0;
#endif
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  const gboolean cuda = mode == FEED_CUDA_POOL;
#ifdef HAVE_CUDA
  const double kernel_ms = cuda ? frame_kernel_ms (&info) : -1.0;
#else
  const double kernel_ms = -1.0;
#endif
  const double floor = cuda ? (kernel_ms > 0 ? 1e3 / kernel_ms : -1.0) :
      floor_fps (info.size);
  const char *what = separate_contexts ? (cuda ? "cuda-streams-separate" :
      "streams-separate") : (cuda ? "cuda-streams" : "streams");
  printf ("\nMany streams: N pipelines appsrc ! cudaconv backend=cuda "
      "kernel=gaussian radius=2 sigma=<its own> ! appsink sync=false in one "
      "process %s, %dx%d %s, %s, %d frames each, all at once; aggregate "
      "frames/s while all of them run (each past its %dth output, none "
      "ended), against %s: %.1f frames/s); the streams' own rates over "
      "their whole runs\n", separate_contexts ? "each with its own "
      "GstCudaContext" : "sharing one GstCudaContext", w, h, format,
      cuda ? "CUDA memory in and out (cudaconv's GstCudaBufferPool)" :
      "foreign (registered) input",
      frames, WARMUP_OUTPUTS, cuda ? "the kernels' capacity (1 / the "
      "frame's summed kernel time, CUDA events" : "the transfer floor (H2D "
      "+ D2H at once, pinned", floor);
  if (n_devices > 0) {
    printf ("stream i runs on device-id devices[i %% %d] of", n_devices);
    for (int d = 0; d < n_devices; d++)
      printf (" %d", devices[d]);
    printf ("; the floor and the kernels are device %d's\n", devices[0]);
  }
  printf ("%5s %12s %9s %16s %16s %10s\n", "N", "aggregate", cuda ?
      "% kernels" : "% floor", "slowest stream", "fastest stream",
      "x first N");
  for (int k = 0; list[k] && status == 0; k++) {
    const int n = atoi (list[k]);
    Stream *streams;
    GThread **threads;
    gint64 start = 0, end = G_MAXINT64;
    long long outputs = 0;
    StartGate gate = { 0 }, warm_gate = { 0 };
    SharedCudaContext shared = { 0 };
    double slowest = -1.0, fastest = -1.0;
    gboolean failed = FALSE;

    if (n <= 0 || n > 1024) {
      fprintf (stderr, "--streams takes counts from 1 to 1024, like "
          "1,4,16,64\n");
      status = 2;
      break;
    }
    streams = g_new0 (Stream, n);
    threads = g_new0 (GThread *, n);
    g_mutex_init (&gate.lock);
    g_cond_init (&gate.all_here);
    gate.total = n;
    g_mutex_init (&warm_gate.lock);
    g_cond_init (&warm_gate.all_here);
    warm_gate.total = n;
    g_mutex_init (&shared.lock);
    g_cond_init (&shared.made);
    for (int i = 0; i < n; i++) {
      streams[i].middle = g_strdup_printf ("cudaconv backend=cuda "
          "device-id=%d kernel=gaussian radius=2 sigma=%.2f", n_devices ?
          devices[i % n_devices] : -1, 0.5 + 0.05 * i);
      streams[i].format = format;
      streams[i].w = w;
      streams[i].h = h;
      streams[i].frames = frames;
      streams[i].mode = mode;
      streams[i].window.times = g_new0 (gint64, frames);
      streams[i].window.gate = &gate;
      streams[i].window.warm_gate = &warm_gate;
      streams[i].window.cuda_context = separate_contexts ? NULL : &shared;
      threads[i] = g_thread_new ("stream", stream_thread, &streams[i]);
    }
    for (int i = 0; i < n; i++) {
      const Stream *st = &streams[i];
      g_thread_join (threads[i]);
      if (st->fps <= 0) {
        failed = TRUE;
        continue;
      }
      start = MAX (start, st->window.start);
      end = MIN (end, st->window.end);
      slowest = slowest < 0 ? st->fps : MIN (slowest, st->fps);
      fastest = MAX (fastest, st->fps);
    }
    for (int i = 0; i < n && !failed; i++)
      for (int f = WARMUP_OUTPUTS; f < frames; f++)
        outputs += streams[i].window.times[f] > start
            && streams[i].window.times[f] <= end;
    if (failed) {
      printf ("%5d did not run\n", n);
      status = 1;
    } else if (end <= start) {
      gint64 first = G_MAXINT64;
      for (int i = 0; i < n; i++)
        first = MIN (first, streams[i].window.start);
      printf ("%5d ran one after another (the last stream past its warm-up "
          "%.2f s after the first, the first to end %.2f s after it): more "
          "--frames\n", n, (start - first) / 1e6, (end - first) / 1e6);
      status = 1;
    } else {
      const double aggregate = outputs / ((end - start) / 1e6);
      if (first_aggregate <= 0)
        first_aggregate = aggregate;
      printf ("%5d %12.1f %9.1f %16.1f %16.1f %10.2f\n", n, aggregate,
          floor > 0 ? 100.0 * aggregate / floor : -1.0, slowest, fastest,
          aggregate / first_aggregate);
      csv_row (what, w, h, 8, n, "aggregate", aggregate);
      csv_row (what, w, h, 8, n, "floor", floor);
    }
    for (int i = 0; i < n; i++) {
      g_free (streams[i].middle);
      g_free (streams[i].window.times);
    }
    g_free (streams);
    g_free (threads);
    g_mutex_clear (&gate.lock);
    g_cond_clear (&gate.all_here);
    g_mutex_clear (&warm_gate.lock);
    g_cond_clear (&warm_gate.all_here);
    if (shared.context)
      gst_context_unref (shared.context);
    g_mutex_clear (&shared.lock);
    g_cond_clear (&shared.made);
  }
  g_strfreev (list);
  return status;
}

/* Whether to advertise crop metas upstream: a decoder's 1920x1088 I420
 * frames cropped to 1080 rows by videocrop (4 rows off the top and bottom,
 * so the picture starts inside the buffer), with cudaconv taking the crop
 * meta and with the meta refused, against plain 1920x1080 frames; for each
 * backend this machine runs, the three alternating, median of CROP_RUNS. */
#define CROP_RUNS 5
static int
crop_table (const char *props, int frames)
{
  static const char *backends[] = { "cuda", "cpu" };
  int status = 0;

  printf ("\nCrop: 1920x1088 I420 ! videocrop top=4 bottom=4 ! cudaconv %s, "
      "frames/s, median of %d alternating runs\n", props, CROP_RUNS);
  for (size_t b = 0; b < G_N_ELEMENTS (backends); b++) {
    const int n = b == 0 ? frames : MIN (frames, 200);
    gchar *conv = g_strdup_printf ("cudaconv backend=%s %s", backends[b],
        props);
    gchar *cropped = g_strdup_printf ("videocrop name=crop top=4 bottom=4 ! "
        "%s", conv);
    double meta[CROP_RUNS], copy[CROP_RUNS], plain[CROP_RUNS];

    if (b == 0 && !cuda_device_present ()) {
      printf ("%-44s (no CUDA device)\n", conv);
      g_free (cropped);
      g_free (conv);
      continue;
    }
    for (int k = 0; k < CROP_RUNS; k++) {
      refuse_crop_meta = FALSE;
      meta[k] = pipeline_fps (cropped, "I420", 1920, 1088, FEED_FOREIGN, n);
      refuse_crop_meta = TRUE;
      copy[k] = pipeline_fps (cropped, "I420", 1920, 1088, FEED_FOREIGN, n);
      refuse_crop_meta = FALSE;
      plain[k] = pipeline_fps (conv, "I420", 1920, 1080, FEED_FOREIGN, n);
    }
    const double m = median (meta, CROP_RUNS), c = median (copy, CROP_RUNS);
    const double p = median (plain, CROP_RUNS);
    printf ("%-44s\n  crop meta taken   %9.1f frames/s\n"
        "  crop meta refused %9.1f frames/s  (videocrop copies; taken/refused "
        "%.2fx)\n  no crop, 1080 rows %8.1f frames/s\n", conv, m, c,
        c > 0 ? m / c : -1.0, p);
    csv_row ("crop-meta-taken", 1920, 1080, 8, 0, backends[b], m);
    csv_row ("crop-meta-refused", 1920, 1080, 8, 0, backends[b], c);
    csv_row ("no-crop", 1920, 1080, 8, 0, backends[b], p);
    if (meta[0] <= 0 || copy[0] <= 0 || plain[0] <= 0)
      status = 1;
    g_free (cropped);
    g_free (conv);
  }
  return status;
}

/* cudaconv with props as given, one line */
static int
once_run (const char *format, const char *props, int frames, int w, int h)
{
  gchar *middle = g_strdup_printf ("cudaconv %s", props);
  const double fps = pipeline_fps (middle, format, w, h, FEED_FOREIGN,
      frames);

  if (fps > 0)
    printf ("%dx%d %s, %s: %.1f frames/s\n", w, h, format, middle, fps);
  else
    printf ("%dx%d %s, %s: did not run\n", w, h, format, middle);
  g_free (middle);
  return fps > 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  gboolean kernels = FALSE, element = FALSE, live = FALSE, once = FALSE;
  gboolean cpu_peers = FALSE, crop = FALSE, packed = FALSE;
  gint frames = 1000;
  gboolean cuda_memory = FALSE;
  gchar *size = NULL, *format = NULL, *props = NULL, *streams = NULL;
  gchar *cuda_streams = NULL, *decode = NULL, *device_list = NULL;
  gchar *csv_path = NULL;
  int only_w = 0, only_h = 0;
  GOptionEntry entries[] = {
    {"kernels", 0, 0, G_OPTION_ARG_NONE, &kernels, "Time the kernels", NULL},
    {"packed", 0, 0, G_OPTION_ARG_NONE, &packed,
        "Time the 2D kernels on components of packed pixels", NULL},
    {"element", 0, 0, G_OPTION_ARG_NONE, &element, "Time the element", NULL},
    {"live", 0, 0, G_OPTION_ARG_NONE, &live,
        "Run a live 1080p30 source through cudaconv", NULL},
    {"once", 0, 0, G_OPTION_ARG_NONE, &once,
        "One line: cudaconv with --props on --format frames of --size", NULL},
    {"cpu-peers", 0, 0, G_OPTION_ARG_NONE, &cpu_peers,
        "The CPU backend against OpenCV's cvsmooth on 1080p RGB", NULL},
    {"streams", 0, 0, G_OPTION_ARG_STRING, &streams,
          "Many pipelines at once, these counts of them (1,4,16,64)", "LIST"},
    {"cuda-memory", 0, 0, G_OPTION_ARG_NONE, &cuda_memory,
        "CUDA memory in and out against the kernels' capacity", NULL},
    {"cuda-streams", 0, 0, G_OPTION_ARG_STRING, &cuda_streams,
          "Many pipelines at once in CUDA memory, these counts of them",
        "LIST"},
    {"devices", 0, 0, G_OPTION_ARG_STRING, &device_list,
          "Streams: stream i runs on the (i mod n)-th of these device-ids",
        "LIST"},
    {"separate-contexts", 0, 0, G_OPTION_ARG_NONE, &separate_contexts,
        "Streams: each pipeline makes its own CUDA context", NULL},
    {"decode", 0, 0, G_OPTION_ARG_STRING, &decode,
          "nvh264dec into cudaconv against the decode alone, these H.264 "
          "files", "FILES"},
    {"crop", 0, 0, G_OPTION_ARG_NONE, &crop,
        "videocrop's crop meta taken against refused", NULL},
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames per element run",
        "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "Only this frame size",
        "WxH"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Video format (I420)",
        "F"},
    {"props", 0, 0, G_OPTION_ARG_STRING, &props,
        "cudaconv properties (kernel=gaussian radius=2)", "P"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path,
        "Append machine-readable result rows to this file", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- cudaconv benchmark");

  /* tables appear as they are measured, also through a pipe */
  setvbuf (stdout, NULL, _IOLBF, 0);
  GError *err = NULL;
  int status = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  if (size && (sscanf (size, "%dx%d", &only_w, &only_h) != 2 || only_w <= 0
          || only_h <= 0)) {
    fprintf (stderr, "--size takes WxH\n");
    return 2;
  }
  if (device_list) {
    gchar **ids = g_strsplit (device_list, ",", -1);
    for (int d = 0; ids[d] && n_devices < (int) G_N_ELEMENTS (devices); d++)
      devices[n_devices++] = atoi (ids[d]);
    g_strfreev (ids);
    g_free (device_list);
  }
  if (csv_path && !(csv = fopen (csv_path, "a"))) {
    fprintf (stderr, "cannot open %s\n", csv_path);
    return 2;
  }
  if (!kernels && !packed && !element && !live && !once && !cpu_peers
      && !crop && !streams && !cuda_memory && !cuda_streams && !decode)
    kernels = element = live = crop = cuda_memory = TRUE;
  if (!format)
    format = g_strdup ("I420");
  if (!props)
    props = g_strdup ("kernel=gaussian radius=2");

  if (kernels) {
#ifdef HAVE_CUDA
    status |= cuda_kernel_table (only_w, only_h);
#else
    printf ("kernels: built without CUDA\n");
#endif
    cpu_kernel_table ();
  }
  if (packed) {
#ifdef HAVE_CUDA
    status |= cuda_packed_table (only_w, only_h);
#else
    printf ("packed kernels: built without CUDA\n");
#endif
  }
  if (element)
    status |= element_table (format, props, frames, only_w, only_h);
  if (live) {
    printf ("\nLive:\n");
    status |= live_run ("cuda", 150);
  }
  if (crop)
    status |= crop_table (props, frames);
  if (cuda_memory)
    status |= cuda_memory_table (format, frames, only_w, only_h);
  if (streams)
    status |= streams_table (format, streams, frames, only_w, only_h,
        FEED_FOREIGN);
  if (cuda_streams)
    status |= streams_table (format, cuda_streams, frames, only_w, only_h,
        FEED_CUDA_POOL);
  if (decode)
    status |= decode_table (decode, props);
  if (cpu_peers)
    status |= cpu_peer_table (MIN (frames, 120));
  if (once)
    status |= once_run (format, props, frames, only_w ? only_w : 1920,
        only_w ? only_h : 1080);
  g_free (size);
  g_free (streams);
  g_free (cuda_streams);
  g_free (decode);
  g_free (format);
  g_free (props);
  if (csv)
    fclose (csv);
  g_free (csv_path);
  g_option_context_free (ctx);
  return status;
}

/* cudaconv benchmark, --wide (or --rows wide): the wide shapes against
 * their targets. CUDA, on one 3840x2160 8-bit plane timed as the kernel
 * table times (bench-timing.c): box r127 within 3x a plane copy
 * (cudaMemcpy2D device to device), the gaussian r63 as a CC_SHAPE_WIDE
 * filter within 2x the gaussian r15 with the strategy auto picks. CPU, on
 * a 1920x1080 I420 frame (3 planes, every thread): box r127 within 1.5x
 * the r2 box of the taps path (its separable factors). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"

#define CPU_RUNS 9
#define CUDA_TARGET_BOX 3.0
#define CUDA_TARGET_GAUSS 2.0
#define CPU_TARGET_BOX 1.5

static void
box_shape (int radius, CcFilter * f)
{
  const int side = 2 * radius + 1;
  memset (f, 0, sizeof (*f));
  f->shape = CC_SHAPE_BOX;
  f->radius = radius;
  f->scale = 1.0 / ((double) side * side);
}

/* The taps path's r2 box: all 1/25, with its factors */
static void
taps_box (int radius, CcFilter * f)
{
  const int side = 2 * radius + 1;
  memset (f, 0, sizeof (*f));
  f->shape = CC_SHAPE_TAPS;
  f->radius = radius;
  f->separable = 1;
  for (int k = 0; k < side * side; k++)
    f->taps[k] = 1.0f / (float) (side * side);
  for (int k = 0; k < side; k++)
    f->col_taps[k] = f->row_taps[k] = 1.0f / (float) side;
}

static const char *
verdict (double ratio, double target)
{
  return ratio > 0 && ratio <= target ? "PASS" : "MISS";
}

/* The CPU frame: median milliseconds of the three I420 planes */
static double
cpu_frame_ms (const CcFilter * f, unsigned char *const in[3],
    unsigned char *const out[3], int threads)
{
  static const int dims[3][2] = { {1920, 1080}, {960, 540}, {960, 540} };
  double t[CPU_RUNS];
  for (int i = -1; i < CPU_RUNS; i++) {
    const gint64 t0 = g_get_monotonic_time ();
    for (int p = 0; p < 3; p++) {
      CcComponent ci = { in[p], dims[p][0], dims[p][0], dims[p][1], 1,
        CC_SAMPLE_U8, 0, 0
      };
      CcComponent co = ci;
      co.data = out[p];
      if (cc_cpu_convolve (&ci, &co, f, CC_BORDER_CLAMP, threads) != 0)
        return -1.0;
    }
    if (i >= 0)
      t[i] = (g_get_monotonic_time () - t0) / 1000.0;
  }
  return median (t, CPU_RUNS);
}

static void
cpu_rows (const Bench * b)
{
  const int threads = (int) g_get_num_processors ();
  unsigned char *in[3], *out[3];
  CcFilter r2, box_r2, box_r127;

  for (int p = 0; p < 3; p++) {
    const size_t bytes = p ? 960 * 540 : 1920 * 1080;
    in[p] = random_plane (bytes);
    out[p] = malloc (bytes);
  }
  taps_box (2, &r2);
  box_shape (2, &box_r2);
  box_shape (127, &box_r127);
  const double taps_ms = cpu_frame_ms (&r2, in, out, threads);
  const double box2_ms = cpu_frame_ms (&box_r2, in, out, threads);
  const double box127_ms = cpu_frame_ms (&box_r127, in, out, threads);
  const double ratio = taps_ms > 0 ? box127_ms / taps_ms : -1.0;
  printf ("\nCPU back end, %d threads: one 1920x1080 I420 frame (3 planes), "
      "border clamp, median of %d, milliseconds\n", threads, CPU_RUNS);
  printf ("box r2 (taps, separable) %8.3f\nbox r2 (box shape)       %8.3f\n"
      "box r127 (box shape)     %8.3f\nbox r127 / box r2 (taps) %8.2f "
      "(target <= %.1f) %s\n", taps_ms, box2_ms, box127_ms, ratio,
      CPU_TARGET_BOX, verdict (ratio, CPU_TARGET_BOX));
  csv_row (b, "wide-cpu", 1920, 1080, 8, 2, "box-taps", taps_ms);
  csv_row (b, "wide-cpu", 1920, 1080, 8, 2, "box", box2_ms);
  csv_row (b, "wide-cpu", 1920, 1080, 8, 127, "box", box127_ms);
  for (int p = 0; p < 3; p++) {
    free (in[p]);
    free (out[p]);
  }
}

#ifdef HAVE_CUDA
/* The gaussian of gaussian_filter's sigma as wide factors, no centre */
static void
wide_gaussian (int radius, CcFilter * f)
{
  const double sigma = 0.3 * (radius - 1) + 0.8;
  double sum = 0.0;
  memset (f, 0, sizeof (*f));
  f->shape = CC_SHAPE_WIDE;
  f->radius = radius;
  for (int i = 0; i <= 2 * radius; i++)
    sum += f->col_taps[i] = (float) exp (-(i - radius) * (i - radius) /
        (2.0 * sigma * sigma));
  for (int i = 0; i <= 2 * radius; i++)
    f->row_taps[i] = f->col_taps[i] = (float) (f->col_taps[i] / sum);
}

/* cudaMemcpy2D of the plane, device to device, timed as time_launches
 * times kernels but without the busy kernel: the median of KERNEL_RUNS
 * samples of KERNEL_BATCH copies */
static double
memcpy2d_ms (KernelTimer * timer, const DevicePair * pair, int w, int h)
{
  double t[KERNEL_RUNS];
  for (int i = 0; i < KERNEL_WARMUP; i++)
    if (cudaMemcpy2DAsync (pair->out, pair->pitch, pair->in, pair->pitch, w,
            h, cudaMemcpyDeviceToDevice, 0) != cudaSuccess)
      return -1.0;
  for (int i = 0; i < KERNEL_RUNS; i++) {
    float e = 0.0f;
    cudaEventRecord (timer->start, 0);
    for (int k = 0; k < KERNEL_BATCH; k++)
      cudaMemcpy2DAsync (pair->out, pair->pitch, pair->in, pair->pitch, w, h,
          cudaMemcpyDeviceToDevice, 0);
    cudaEventRecord (timer->stop, 0);
    if (cudaEventSynchronize (timer->stop) != cudaSuccess)
      return -1.0;
    cudaEventElapsedTime (&e, timer->start, timer->stop);
    t[i] = e / KERNEL_BATCH;
  }
  return median (t, KERNEL_RUNS);
}

static int
cuda_rows (const Bench * b)
{
  const int w = 3840, h = 2160;
  KernelTimer timer;
  DevicePair pair;
  struct cudaDeviceProp prop;
  CcFilter box127, box2, blocks127, gauss15, gauss63;
  CcStrategy pick = CC_STRATEGY_AUTO;
  float tuned[CC_N_FAMILIES];
  void *work = NULL;

  if (!cuda_device_present ()) {
    printf ("wide: no usable CUDA device, skipped\n");
    return 0;
  }
  if (!device_pair_new (w, h, &pair))
    return 1;
  CcComponent in = { pair.in, pair.pitch, w, h, 1, CC_SAMPLE_U8, 0, 0 };
  CcComponent out = { pair.out, pair.pitch, w, h, 1, CC_SAMPLE_U8, 0, 0 };
  const size_t work_bytes = (size_t) 4 * w * h;
  if (cudaMalloc (&work, work_bytes) != cudaSuccess) {
    device_pair_free (&pair);
    return 1;
  }
  kernel_timer_init (&timer);
  cudaGetDeviceProperties (&prop, 0);
  box_shape (127, &box127);
  box_shape (2, &box2);
  box_shape (127, &blocks127);
  blocks127.shape = CC_SHAPE_BLOCKS;
  gaussian_filter (15, &gauss15);
  wide_gaussian (63, &gauss63);

  const double copy_kernel = time_copy (&timer, &in, &out);
  const double copy = memcpy2d_ms (&timer, &pair, w, h);
  const double box127_ms = time_kernel_workspace (&timer, &in, &out, &box127,
      CC_STRATEGY_AUTO, work, work_bytes);
  const double box2_ms = time_kernel_workspace (&timer, &in, &out, &box2,
      CC_STRATEGY_AUTO, work, work_bytes);
  const double blocks_ms = time_kernel_workspace (&timer, &in, &out,
      &blocks127, CC_STRATEGY_AUTO, work, work_bytes);
  double g15 = -1.0;
  if (cc_cuda_fastest_strategy (&in, &out, &gauss15, CC_BORDER_CLAMP, NULL, 0,
          0, &pick, tuned) == cudaSuccess)
    g15 = time_kernel (&timer, &in, &out, &gauss15, pick, CC_LAUNCH_SRC_READY);
  const double g63 = time_kernel_workspace (&timer, &in, &out, &gauss63,
      CC_STRATEGY_AUTO, work, work_bytes);
  const double box_ratio = copy > 0 && box127_ms > 0 ? box127_ms / copy : -1;
  const double gauss_ratio = g15 > 0 && g63 > 0 ? g63 / g15 : -1;

  printf ("\nWide shapes on %s: one 3840x2160 8-bit plane, border clamp, "
      "CUDA events, median of %d samples of %d launches after %d warm-up "
      "launches, milliseconds per launch\n", prop.name, KERNEL_RUNS,
      KERNEL_BATCH, KERNEL_WARMUP);
  printf ("plane copy (cudaMemcpy2D)    %9.4f\n", copy);
  printf ("plane copy (copy kernel)     %9.4f\n", copy_kernel);
  printf ("box r127 (box-running-sum)   %9.4f\n", box127_ms);
  printf ("box r2 (box-running-sum)     %9.4f\n", box2_ms);
  printf ("blocks r127 (block-mean)     %9.4f\n", blocks_ms);
  printf ("gaussian r15 (auto: %s) %9.4f\n",
      family_of (&in, &out, &gauss15, pick), g15);
  printf ("gaussian r63 (separable-wide) %8.4f\n", g63);
  printf ("box r127 / copy              %9.2f (target <= %.1f) %s\n",
      box_ratio, CUDA_TARGET_BOX, verdict (box_ratio, CUDA_TARGET_BOX));
  printf ("gaussian r63 / r15           %9.2f (target <= %.1f) %s\n",
      gauss_ratio, CUDA_TARGET_GAUSS, verdict (gauss_ratio,
          CUDA_TARGET_GAUSS));
  csv_row (b, "wide", w, h, 8, 0, "memcpy2d", copy);
  csv_row (b, "wide", w, h, 8, 127, "box", box127_ms);
  csv_row (b, "wide", w, h, 8, 2, "box", box2_ms);
  csv_row (b, "wide", w, h, 8, 127, "blocks", blocks_ms);
  csv_row (b, "wide", w, h, 8, 15, "gaussian-auto", g15);
  csv_row (b, "wide", w, h, 8, 63, "gaussian-wide", g63);
  kernel_timer_clear (&timer);
  cudaFree (work);
  device_pair_free (&pair);
  return box127_ms < 0 || g63 < 0 || g15 < 0 || copy < 0;
}
#endif

int
wide_table (const Bench * b)
{
  int status = 0;
#ifdef HAVE_CUDA
  status = cuda_rows (b);
#else
  printf ("wide: built without CUDA, CPU rows only\n");
#endif
  cpu_rows (b);
  return status;
}

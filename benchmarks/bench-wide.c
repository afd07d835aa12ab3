/* cudaconv benchmark, --wide (or --rows wide): the wide shapes against
 * their targets. CUDA, on one 3840x2160 plane of 8 and of 16 bits timed
 * as the kernel table times (bench-timing.c): box r127 and r2 within 3x a
 * plane copy (cudaMemcpy2D device to device), pixelate r127 within 2x it,
 * the gaussian r63 and r127 as CC_SHAPE_WIDE filters within 2x and 3x the
 * gaussian r15 with the strategy auto picks (8-bit), and each shape on
 * 16-bit planes no slower per byte than on 8-bit ones. CPU, on a
 * 1920x1080 I420 frame (3 planes, every thread): box r127 within 1.5x the
 * r2 box of the taps path (its separable factors), and on a host of more
 * than 16 threads, box r2 (taps) and gaussian r15 on every thread no
 * slower than on 16. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"

#define CPU_RUNS 9
#define CUDA_TARGET_BOX 3.0
#define CUDA_TARGET_BLOCKS 2.0
#define CUDA_TARGET_GAUSS 2.0
#define CUDA_TARGET_GAUSS_127 3.0
#define CUDA_TARGET_PER_BYTE 1.0
#define CPU_TARGET_BOX 1.5
/* the host threads that every thread is held against */
#define CPU_FEWER_THREADS 16

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

  /* every thread against 16: more never slower */
  if (threads > CPU_FEWER_THREADS) {
    CcFilter g15;
    gaussian_filter (15, &g15);
    const double few_box = cpu_frame_ms (&r2, in, out, CPU_FEWER_THREADS);
    const double few_g15 = cpu_frame_ms (&g15, in, out, CPU_FEWER_THREADS);
    const double all_g15 = cpu_frame_ms (&g15, in, out, threads);
    const double box_ratio = few_box > 0 ? taps_ms / few_box : -1.0;
    const double g15_ratio = few_g15 > 0 ? all_g15 / few_g15 : -1.0;
    printf ("%d threads against %d: box r2 (taps) %.3f against %.3f, "
        "%.2f (target <= 1.0) %s; gaussian r15 %.3f against %.3f, %.2f "
        "(target <= 1.0) %s\n", threads, CPU_FEWER_THREADS, taps_ms,
        few_box, box_ratio, verdict (box_ratio, 1.0), all_g15, few_g15,
        g15_ratio, verdict (g15_ratio, 1.0));
    csv_row (b, "wide-cpu-16", 1920, 1080, 8, 2, "box-taps", few_box);
    csv_row (b, "wide-cpu-16", 1920, 1080, 8, 15, "gaussian", few_g15);
    csv_row (b, "wide-cpu", 1920, 1080, 8, 15, "gaussian", all_g15);
  } else {
    printf ("%d threads: every thread against %d needs a host of more\n",
        threads, CPU_FEWER_THREADS);
  }
  for (int p = 0; p < 3; p++) {
    free (in[p]);
    free (out[p]);
  }
}

#ifdef HAVE_CUDA
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

/* One plane's wide rows, milliseconds */
typedef struct {
  double copy, copy_kernel, box127, box2, blocks127, g15, g63, g127;
  /* the FP32 family at those radii, for comparison */
  double g63_fp32, g127_fp32;
  CcStrategy g15_pick;
} WideTimes;

/* The wide rows of one 3840x2160 plane of 1 or 2 bytes a sample, with
 * their CSV rows; 0 when every row was timed */
static int
time_wide (const Bench * b, KernelTimer * timer, int bytes, WideTimes * t)
{
  const int w = 3840, h = 2160, bits = 8 * bytes;
  DevicePair pair;
  CcFilter box127, box2, blocks127, gauss15, gauss63, gauss127;
  float tuned[CC_N_FAMILIES];
  void *work = NULL;
  const size_t work_bytes = (size_t) 4 * w * h;

  if (!device_pair_new ((size_t) w * bytes, h, &pair))
    return 1;
  if (cudaMalloc (&work, work_bytes) != cudaSuccess) {
    device_pair_free (&pair);
    return 1;
  }
  CcComponent in = { pair.in, pair.pitch, w, h, 1, (CcSampleType) bytes, 0,
    0
  };
  CcComponent out = { pair.out, pair.pitch, w, h, 1, (CcSampleType) bytes, 0,
    0
  };
  box_shape (127, &box127);
  box_shape (2, &box2);
  box_shape (127, &blocks127);
  blocks127.shape = CC_SHAPE_BLOCKS;
  gaussian_filter (15, &gauss15);
  wide_gaussian (63, &gauss63);
  wide_gaussian (127, &gauss127);

  t->copy_kernel = time_copy (timer, &in, &out);
  t->copy = memcpy2d_ms (timer, &pair, w * bytes, h);
  t->box127 = time_kernel_workspace (timer, &in, &out, &box127,
      CC_STRATEGY_AUTO, work, work_bytes);
  t->box2 = time_kernel_workspace (timer, &in, &out, &box2,
      CC_STRATEGY_AUTO, work, work_bytes);
  t->blocks127 = time_kernel_workspace (timer, &in, &out, &blocks127,
      CC_STRATEGY_AUTO, work, work_bytes);
  t->g15 = -1.0;
  t->g15_pick = CC_STRATEGY_AUTO;
  if (cc_cuda_fastest_strategy (&in, &out, &gauss15, CC_BORDER_CLAMP, NULL, 0,
          0, &t->g15_pick, tuned) == cudaSuccess)
    t->g15 = time_kernel (timer, &in, &out, &gauss15, t->g15_pick,
        CC_LAUNCH_SRC_READY);
  t->g63 = time_kernel_workspace (timer, &in, &out, &gauss63,
      CC_STRATEGY_AUTO, work, work_bytes);
  t->g127 = time_kernel_workspace (timer, &in, &out, &gauss127,
      CC_STRATEGY_AUTO, work, work_bytes);
  t->g63_fp32 = time_family_workspace (timer, &in, &out, &gauss63,
      CC_FAMILY_SEPARABLE_WIDE, work, work_bytes);
  t->g127_fp32 = time_family_workspace (timer, &in, &out, &gauss127,
      CC_FAMILY_SEPARABLE_WIDE, work, work_bytes);
  printf ("%d-bit: gaussian r15 runs %s, r63 and r127 %s; box r127 %s, box "
      "r2 %s, pixelate %s\n", bits,
      family_of (&in, &out, &gauss15, t->g15_pick),
      family_of (&in, &out, &gauss127, CC_STRATEGY_AUTO),
      family_of (&in, &out, &box127, CC_STRATEGY_AUTO),
      family_of (&in, &out, &box2, CC_STRATEGY_AUTO),
      family_of (&in, &out, &blocks127, CC_STRATEGY_AUTO));
  csv_row (b, "wide", w, h, bits, 0, "memcpy2d", t->copy);
  csv_row (b, "wide", w, h, bits, 0, "copy-kernel", t->copy_kernel);
  csv_row (b, "wide", w, h, bits, 127, "box", t->box127);
  csv_row (b, "wide", w, h, bits, 2, "box", t->box2);
  csv_row (b, "wide", w, h, bits, 127, "blocks", t->blocks127);
  csv_row (b, "wide", w, h, bits, 15, "gaussian-auto", t->g15);
  csv_row (b, "wide", w, h, bits, 63, "gaussian-wide", t->g63);
  csv_row (b, "wide", w, h, bits, 127, "gaussian-wide", t->g127);
  csv_row (b, "wide", w, h, bits, 63, "gaussian-wide-fp32", t->g63_fp32);
  csv_row (b, "wide", w, h, bits, 127, "gaussian-wide-fp32", t->g127_fp32);
  cudaFree (work);
  device_pair_free (&pair);
  return t->copy < 0 || t->box127 < 0 || t->box2 < 0 || t->blocks127 < 0
      || t->g15 < 0 || t->g63 < 0 || t->g127 < 0 || t->g63_fp32 < 0
      || t->g127_fp32 < 0;
}

/* a / b, or -1 where either is missing */
static double
ratio_of (double a, double b)
{
  return a > 0 && b > 0 ? a / b : -1.0;
}

/* One target's line: NAME, the ratio, its target */
static void
target_line (const char *name, double ratio, double target)
{
  printf ("%-40s %7.2f (target <= %.1f) %s\n", name, ratio, target,
      verdict (ratio, target));
}

static int
cuda_rows (const Bench * b)
{
  KernelTimer timer;
  struct cudaDeviceProp prop;
  WideTimes t[2];
  int status = 0;

  if (!cuda_device_present ()) {
    printf ("wide: no usable CUDA device, skipped\n");
    return 0;
  }
  kernel_timer_init (&timer);
  cudaGetDeviceProperties (&prop, 0);
  printf ("\nWide shapes on %s: one 3840x2160 plane, border clamp, CUDA "
      "events, median of %d samples of %d launches after %d warm-up "
      "launches, milliseconds per launch\n", prop.name, KERNEL_RUNS,
      KERNEL_BATCH, KERNEL_WARMUP);
  for (int bytes = 1; bytes <= 2; bytes++)
    status |= time_wide (b, &timer, bytes, &t[bytes - 1]);
  kernel_timer_clear (&timer);

  printf ("%-32s %9s %9s\n", "row", "8-bit", "16-bit");
  static const struct {
    const char *name;
    size_t offset;
  } rows[] = {
    {"plane copy (cudaMemcpy2D)", G_STRUCT_OFFSET (WideTimes, copy)},
    {"plane copy (copy kernel)", G_STRUCT_OFFSET (WideTimes, copy_kernel)},
    {"box r127", G_STRUCT_OFFSET (WideTimes, box127)},
    {"box r2", G_STRUCT_OFFSET (WideTimes, box2)},
    {"pixelate r127", G_STRUCT_OFFSET (WideTimes, blocks127)},
    {"gaussian r15 (auto)", G_STRUCT_OFFSET (WideTimes, g15)},
    {"gaussian r63", G_STRUCT_OFFSET (WideTimes, g63)},
    {"gaussian r127", G_STRUCT_OFFSET (WideTimes, g127)},
    /* the FP32 family, which the tensor cores replace: no target */
    {"gaussian r63 (separable-wide)", G_STRUCT_OFFSET (WideTimes, g63_fp32)},
    {"gaussian r127 (separable-wide)", G_STRUCT_OFFSET (WideTimes,
            g127_fp32)},
  };
  for (size_t k = 0; k < G_N_ELEMENTS (rows); k++)
    printf ("%-32s %9.4f %9.4f\n", rows[k].name,
        G_STRUCT_MEMBER (double, &t[0], rows[k].offset),
        G_STRUCT_MEMBER (double, &t[1], rows[k].offset));

  /* each 8-bit target, then each shape's 16-bit cost per byte against its
   * 8-bit one (twice the bytes in twice the time: 1.0) */
  target_line ("box r127 / copy, 8-bit", ratio_of (t[0].box127, t[0].copy),
      CUDA_TARGET_BOX);
  target_line ("box r2 / copy, 8-bit", ratio_of (t[0].box2, t[0].copy),
      CUDA_TARGET_BOX);
  target_line ("pixelate r127 / copy, 8-bit", ratio_of (t[0].blocks127,
          t[0].copy), CUDA_TARGET_BLOCKS);
  target_line ("gaussian r63 / r15, 8-bit", ratio_of (t[0].g63, t[0].g15),
      CUDA_TARGET_GAUSS);
  target_line ("gaussian r127 / r15, 8-bit", ratio_of (t[0].g127, t[0].g15),
      CUDA_TARGET_GAUSS_127);
  for (size_t k = 2; k < G_N_ELEMENTS (rows); k++) {
    gchar *name;
    /* r15 is the gaussians' yardstick, not a wide shape, and the FP32
     * family is there for comparison */
    if (rows[k].offset == G_STRUCT_OFFSET (WideTimes, g15)
        || rows[k].offset == G_STRUCT_OFFSET (WideTimes, g63_fp32)
        || rows[k].offset == G_STRUCT_OFFSET (WideTimes, g127_fp32))
      continue;
    name = g_strdup_printf ("%s, 16-bit per byte / 8-bit",
        rows[k].name);
    target_line (name, ratio_of (G_STRUCT_MEMBER (double, &t[1],
                rows[k].offset) / 2.0, G_STRUCT_MEMBER (double, &t[0],
                rows[k].offset)), CUDA_TARGET_PER_BYTE);
    g_free (name);
  }
  return status;
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

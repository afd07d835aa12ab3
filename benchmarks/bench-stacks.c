/* cudaconv benchmark, --stacks: the kernels of a frame filtered inside
 * its regions against those of the whole frame, CUDA, 8-bit, border
 * clamp. The CUDA back end gathers a frame's windows (each region's
 * bounds grown by the filter's reach) one under the other into a group,
 * as tall as their heights summed and as wide as the widest, and filters
 * the group in one launch a pass (backend/cuda/cudaconv-cuda-compute.c).
 * Here the group of each region row of --regions and --crowds is laid out
 * from the coverage the frame library builds for its boxes on 1920x1080
 * I420, and every kernel family that takes the filter is timed on it, on
 * the same samples laid out two and four times as wide (what packing the
 * windows side by side would give, without its gaps), and on the three
 * planes of the whole frame. Timed as the kernel table times
 * (time_launches): GPU time, the host's launches hidden. */
#include <string.h>

#include "bench-common.h"
#include "bench-crowds.h"

#ifdef HAVE_CUDA
/* The group the back end stacks the windows of boxes (region-boxes) into
 * under a filter of this reach, on 1920x1080 I420 */
static void
group_shape (const char *boxes, const CcFilter * filter, int *width,
    int *height)
{
  CudaConvCrop crop = { CUDACONV_CROP_NONE, {0, 0, 0, 0} };
  BenchRegionFrame f;
  GstBuffer *buf = gst_buffer_new ();
  guint n_bad, n_merged;

  bench_region_frame_init (&f, boxes, 0, filter);
  cudaconv_plan_set_buffer (&f.plan, buf, &crop, CUDACONV_REGION_MODE_INSIDE);
  cudaconv_regions_collect (&f.rules, f.history, buf, 1920, 1080, f.set,
      &n_bad, &n_merged);
  cudaconv_coverage_build (f.coverage, &f.plan, f.set, f.filters,
      CC_BORDER_CLAMP);
  *width = *height = 0;
  for (gint c = 0; c < 3; c++) {
    guint n;
    const CudaConvPiece *pieces = cudaconv_coverage_pieces (f.coverage, c, 0,
        &n);
    for (guint k = 0; k < n; k++) {
      const gint r = pieces[k].reach;
      *width = MAX (*width, pieces[k].bounds.w + 2 * r);
      *height += pieces[k].bounds.h + 2 * r;
    }
  }
  gst_buffer_unref (buf);
  bench_region_frame_clear (&f);
}

/* Every family that takes the filter on one w x h plane, and the one the
 * back end's stacks run (strategy separable); prints a row, returns the
 * stacks' family's milliseconds (-1 where it failed) */
static double
shape_row (const Bench * b, KernelTimer * timer, const char *name, int w,
    int h, const CcFilter * filter, void *work, size_t work_bytes)
{
  DevicePair pair;
  GString *row = g_string_new (NULL);
  double pick = -1.0;

  if (!device_pair_new ((size_t) w, h, &pair)) {
    printf ("| %s | %dx%d | could not allocate | | |\n", name, w, h);
    g_string_free (row, TRUE);
    return -1.0;
  }
  CcComponent in = { pair.in, pair.pitch, w, h, 1, CC_SAMPLE_U8, 0, 0 };
  CcComponent out = { pair.out, pair.pitch, w, h, 1, CC_SAMPLE_U8, 0, 0 };
  for (int f = 0; f < CC_N_FAMILIES; f++) {
    const double ms = time_family_workspace (timer, &in, &out, filter,
        (CcFamily) f, work, work_bytes);
    if (ms < 0)
      continue;
    g_string_append_printf (row, "%s%s %.4f", row->len ? ", " : "",
        cc_family_name ((CcFamily) f), ms);
    csv_row (b, "stacks", w, h, 8, filter->radius,
        cc_family_name ((CcFamily) f), ms);
  }
  pick = time_kernel_workspace (timer, &in, &out, filter,
      CC_STRATEGY_SEPARABLE, work, work_bytes);
  printf ("| %s | %dx%d | %s | %s %.4f |\n", name, w, h, row->str,
      family_of (&in, &out, filter, CC_STRATEGY_SEPARABLE), pick);
  g_string_free (row, TRUE);
  device_pair_free (&pair);
  return pick;
}

/* The whole frame's three planes with the strategy auto would time
 * fastest, summed (frame_filter_ms); prints a row */
static double
frame_row (const CcFilter * filter, void *work, size_t work_bytes)
{
  GstVideoInfo info;
  GString *row = g_string_new (NULL);
  double sum;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 1920, 1080);
  sum = frame_filter_ms (&info, filter, work, work_bytes, row);
  printf ("| whole frame, its three planes | | %s | %.4f summed |\n",
      row->str, sum);
  g_string_free (row, TRUE);
  return sum;
}

/* One region row: its group as stacked, twice and four times as wide,
 * and the whole frame */
static int
region_rows (const Bench * b, KernelTimer * timer, const char *name,
    const char *boxes, const CcFilter * filter)
{
  const size_t work_bytes = (size_t) 4 * 1920 * 1080 * 2;
  void *work = NULL;
  int w, h, status = 0;
  double stacked, frame;

  if (cudaMalloc (&work, work_bytes) != cudaSuccess)
    return 1;
  group_shape (boxes, filter, &w, &h);
  printf ("\n%s, radius %d: the group of its windows, %dx%d (%.0f%% of "
      "the frame's samples)\n\n| layout | plane | each family, ms | the "
      "stacks' family, ms |\n|---|---|---|---|\n", name, filter->radius, w,
      h, 100.0 * w * h / (1920.0 * 1080 * 1.5));
  stacked = shape_row (b, timer, "stacked, as the back end does", w, h,
      filter, work, work_bytes);
  shape_row (b, timer, "the same samples, twice as wide", 2 * w,
      (h + 1) / 2, filter, work, work_bytes);
  shape_row (b, timer, "the same samples, four times as wide", 4 * w,
      (h + 3) / 4, filter, work, work_bytes);
  frame = frame_row (filter, work, work_bytes);
  if (stacked < 0 || frame < 0)
    status = 1;
  else
    printf ("\nthe group as stacked takes %.2fx the whole frame's "
        "kernels\n", stacked / frame);
  cudaFree (work);
  return status;
}
#endif

int
stacks_table (const Bench * b)
{
#ifdef HAVE_CUDA
  KernelTimer timer;
  struct cudaDeviceProp prop;
  CcFilter r31, r5;
  gchar *crowd = bench_crowd_boxes ();
  int status = 0;

  wide_gaussian (31, &r31);
  memset (&r5, 0, sizeof (r5));
  gaussian_filter (5, &r5);
  if (!cuda_device_present ()) {
    int w[2], h[2];
    group_shape (BENCH_FOUR_BOXES, &r31, &w[0], &h[0]);
    group_shape (crowd, &r5, &w[1], &h[1]);
    printf ("stacks: no usable CUDA device, skipped (the groups: four "
        "boxes %dx%d, the crowd %dx%d)\n", w[0], h[0], w[1], h[1]);
    g_free (crowd);
    return 0;
  }
  kernel_timer_init (&timer);
  cudaGetDeviceProperties (&prop, 0);
  printf ("\nRegion stacks on %s: 8-bit, border clamp, CUDA events, median "
      "of %d samples of %d launches, milliseconds per launch\n", prop.name,
      KERNEL_RUNS, KERNEL_BATCH);
  status |= region_rows (b, &timer, "Four boxes covering 10% of 1920x1080 "
      "I420 (--regions)", BENCH_FOUR_BOXES, &r31);
  status |= region_rows (b, &timer, "200 boxes of 16x16 (--crowds)", crowd,
      &r5);
  kernel_timer_clear (&timer);
  g_free (crowd);
  return status;
#else
  printf ("stacks: built without CUDA\n");
  return 0;
#endif
}

/* cudaconv benchmark, --element: frames per second end to end, against
 * the transfer floor and cudaupload ! cudadownload (bench-common.h). */
#include "bench-common.h"

/* ELEMENT_RUNS runs of the pipeline; with floor_bytes, each against the
 * transfer floor measured just before it. The host's copy bandwidth moves
 * between runs on the GPU machine (the floor alone came out between
 * 1543.2 and 3936.8 frames/s at 2160p in one session), so a run is
 * compared with the floor of the same moment and the row reports the
 * median of those ratios, beside the median rate. */
static void
element_row (const Bench * b, const char *key, const char *label,
    const char *middle, const char *format, int w, int h, FeedMode mode,
    int frames, size_t floor_bytes)
{
  double runs[ELEMENT_RUNS], ratios[ELEMENT_RUNS];
  gboolean ratio_ok = TRUE;

  if (b->rows && !g_strv_contains ((const gchar * const *) b->rows, key))
    return;
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
  csv_row (b, "element", w, h, 8, 0, label, fps);
  if (fps > 0 && ratio > 0) {
    gchar *name = g_strdup_printf ("%s / floor", label);
    csv_row (b, "element", w, h, 8, 0, name, ratio);
    g_free (name);
  }
}

/* The end-to-end table: cudaconv with the input in its pinned pool and in
 * foreign buffers (registered, then staged), against the transfer floor and
 * cudaupload ! cudadownload; then the CPU backend against gaussianblur. */
int
element_table (const Bench * b)
{
  const char *format = b->format, *props = b->props;
  const int frames = b->frames;

  printf ("\nElement: appsrc ! ... ! appsink sync=false, %s, cudaconv %s, "
      "frames/s after %d warm-up frames of %d per 3840x2160 run (smaller "
      "frames: more, up to 4x), median of %d runs; %% of the floor: median "
      "of each run against the floor measured just before it\n", format,
      props,
      WARMUP_OUTPUTS, frames, ELEMENT_RUNS);
  for (size_t s = 0; s < G_N_ELEMENTS (bench_sizes); s++) {
    const int w = b->only_w ? b->only_w : bench_sizes[s][0];
    const int h = b->only_w ? b->only_h : bench_sizes[s][1];
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
      csv_row (b, "element", w, h, 8, 0, "floor", floor_first);
    }
    mid = g_strdup_printf ("cudaconv backend=cuda %s", props);
    element_row (b, "pool", "cuda, input in its pinned pool", mid, format,
        w, h, FEED_POOL, frames_here, info.size);
    element_row (b, "registered", "cuda, foreign input, registered", mid,
        format, w, h, FEED_FOREIGN, frames_here, info.size);
    g_free (mid);
    mid = g_strdup_printf ("cudaconv backend=cuda host-register=false %s",
        props);
    element_row (b, "staged", "cuda, foreign input, staged", mid, format,
        w, h, FEED_FOREIGN, frames_here, info.size);
    g_free (mid);
    mid = g_strdup_printf ("cudaconv backend=cuda async-depth=1 %s", props);
    element_row (b, "depth1", "cuda, pool input, async-depth=1", mid, format,
        w, h, FEED_POOL, frames_here, info.size);
    g_free (mid);
    /* the caps in between keep cudaupload from negotiating passthrough */
    element_row (b, "cudaupload", "cudaupload ! cudadownload", "cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw",
        format, w, h, FEED_FOREIGN, frames_here, info.size);
    mid = g_strdup_printf ("cudaconv backend=cpu %s", props);
    element_row (b, "cpu", "cpu backend", mid, format, w, h,
        FEED_FOREIGN, MAX (frames_here / 10, WARMUP_OUTPUTS + 20), 0);
    g_free (mid);
    if (b->only_w)
      break;
  }

  if (b->rows)
    return 0;
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
  csv_row (b, "cpu-vs-gaussianblur", 1920, 1080, 8, 3, "cudaconv-cpu", ours);
  csv_row (b, "cpu-vs-gaussianblur", 1920, 1080, 8, 3, "gaussianblur", theirs);
  return 0;
}

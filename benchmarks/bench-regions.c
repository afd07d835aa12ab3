/* cudaconv benchmark, --regions: what filtering only the regions saves
 * (bench-common.h).
 *
 * Privacy blur filters a few boxes of each frame: four boxes covering a
 * tenth of a 1920x1080 I420 frame, a gaussian of radius 31, against the
 * same filter over the whole frame, alternating runs of one process. On
 * the CUDA backend from cudaconv's pool (writable buffers, filtered in
 * place: only the boxes' windows and rects cross the bus), from foreign
 * buffers the feeder keeps (not writable) and in CUDA memory of cudaconv's
 * pool; on the CPU backend, whose work should follow the area. Then
 * crowds: 200 boxes of 16x16 (gaussian r5), 64 overlapping boxes that
 * each cover most of the frame (gaussian r127), and 1,000 moving ROI
 * metas a frame with region-hold=300 (both pipelines fed the metas). And
 * the CPU backend's box of radius 127 against radius 2 over whole frames,
 * running sums against taps. */
#include "bench-common.h"
#include "bench-crowds.h"

#define REGION_RUNS 5
/* region=inside must reach this many times the frames/s of region=frame:
 * pool and CUDA memory input, the CPU backend, a crowd of small boxes */
#define INSIDE_TARGET 4.0
#define CPU_INSIDE_TARGET 3.0
#define CROWD_TARGET 2.0
/* and never fall below it: foreign input, overlapping boxes, held crowds */
#define NO_SLOWER_TARGET 1.0
/* the CPU's box r127 within this factor of its box r2 */
#define CPU_BOX_TARGET 1.5

/* cudaconv on backend with a gaussian of radius, the region settings
 * and, where boxes is not NULL, those fixed boxes */
static gchar *
gaussian (const char *backend, int radius, const char *region,
    const char *boxes)
{
  return g_strdup_printf ("cudaconv backend=%s kernel=gaussian radius=%d %s"
      "%s%s%s", backend, radius, region, boxes ? " region-boxes=\"" : "",
      boxes ? boxes : "", boxes ? "\"" : "");
}

/* The median frames/s of two pipelines, and of a third (c, if not NULL),
 * run in turn, each fed roi_metas moving ROI metas a frame; host_a and
 * host_b the medians of the first two's cudaconv stats a frame
 * (RunWindow's host_us) */
static void
alternate (const char *a, const char *b, const char *c, FeedMode mode,
    int frames, int roi_metas, double *fps_a, double *fps_b, double *fps_c,
    double host_a[3], double host_b[3])
{
  double ra[REGION_RUNS], rb[REGION_RUNS], rc[REGION_RUNS];
  double ha[3][REGION_RUNS], hb[3][REGION_RUNS];

  for (int k = 0; k < REGION_RUNS; k++) {
    RunWindow wa = { 0 }, wb = { 0 }, wc = { 0 };
    wa.roi_metas = wb.roi_metas = wc.roi_metas = roi_metas;
    ra[k] = pipeline_run (a, "I420", 1920, 1080, mode, frames, &wa);
    rb[k] = pipeline_run (b, "I420", 1920, 1080, mode, frames, &wb);
    rc[k] = c ? pipeline_run (c, "I420", 1920, 1080, mode, frames, &wc) :
        -1.0;
    for (int i = 0; i < 3; i++) {
      ha[i][k] = wa.host_us[i];
      hb[i][k] = wb.host_us[i];
    }
  }
  *fps_a = median (ra, REGION_RUNS);
  *fps_b = median (rb, REGION_RUNS);
  *fps_c = median (rc, REGION_RUNS);
  for (int i = 0; i < 3; i++) {
    host_a[i] = median (ha[i], REGION_RUNS);
    host_b[i] = median (hb[i], REGION_RUNS);
  }
}

/* cudaconv's host time a frame as the row prints it */
static void
print_host (const char *region, const double host[3])
{
  if (host[0] < 0)
    return;
  printf ("  %s, the host's time a frame: regions %.1f us, queue %.1f us, "
      "finish %.1f us\n", region, host[0], host[1], host[2]);
}

/* a against b, and where ceiling is not NULL the same element passing
 * every frame through (region=inside without a region): what the feeder,
 * appsrc, appsink and the element's per-frame work allow at most, which
 * bounds the ratio whatever the regions cost */
static int
row (const Bench * bench, const char *what, const char *a, const char *b,
    const char *ceiling, FeedMode mode, int frames, int roi_metas,
    double target, gboolean at_most)
{
  double fa, fb, fc, ratio, host_a[3], host_b[3];
  gboolean met;

  alternate (a, b, ceiling, mode, frames, roi_metas, &fa, &fb, &fc, host_a,
      host_b);
  ratio = fa > 0 ? fb / fa : -1.0;
  met = at_most ? ratio > 0 && 1.0 / ratio <= target : ratio >= target;
  printf ("%s\n  %-62s %9.1f frames/s\n  %-62s %9.1f frames/s\n"
      "  ratio %.2fx (target %s %.2fx): %s\n", what, a, fa, b, fb, ratio,
      at_most ? "time within" : "at least", target, met ? "PASS" : "MISS");
  print_host ("first", host_a);
  print_host ("second", host_b);
  csv_row (bench, what, 1920, 1080, 8, 0, "a", fa);
  csv_row (bench, what, 1920, 1080, 8, 0, "b", fb);
  if (ceiling) {
    printf ("  %-62s %9.1f frames/s (ceiling: %.2fx region=frame)\n",
        ceiling, fc, fa > 0 ? fc / fa : -1.0);
    csv_row (bench, what, 1920, 1080, 8, 0, "ceiling", fc);
  }
  return fa > 0 && fb > 0 ? 0 : 1;
}

int
regions_table (const Bench * bench)
{
  const int frames = bench->frames;
  const int cpu_frames = MIN (frames, 100);
  gchar *frame = gaussian ("cuda", 31, "region=frame", NULL);
  gchar *inside = gaussian ("cuda", 31, "region=inside", BENCH_FOUR_BOXES);
  gchar *cpu_frame = gaussian ("cpu", 31, "region=frame", NULL);
  gchar *cpu_inside = gaussian ("cpu", 31, "region=inside", BENCH_FOUR_BOXES);
  const char *passing = "cudaconv backend=cuda kernel=gaussian radius=31 "
      "region=inside";
  int status = 0;

  printf ("\nRegions: 1920x1080 I420, four boxes covering 10%% of the frame, "
      "median of %d alternating runs\n", REGION_RUNS);
  if (cuda_device_present ()) {
    status |= row (bench, "regions-cuda-pool", frame, inside, passing,
        FEED_POOL, frames, 0, INSIDE_TARGET, FALSE);
    status |= row (bench, "regions-cuda-foreign", frame, inside, NULL,
        FEED_FOREIGN, frames, 0, NO_SLOWER_TARGET, FALSE);
    status |= row (bench, "regions-cuda-memory", frame, inside, passing,
        FEED_CUDA_POOL, frames, 0, INSIDE_TARGET, FALSE);
  } else {
    printf ("  CUDA rows: no CUDA device\n");
  }
  status |= row (bench, "regions-cpu", cpu_frame, cpu_inside, NULL,
      FEED_FOREIGN, cpu_frames, 0, CPU_INSIDE_TARGET, FALSE);
  status |= row (bench, "cpu-box-r2-r127", "cudaconv backend=cpu kernel=box "
      "radius=2", "cudaconv backend=cpu kernel=box radius=127", NULL,
      FEED_FOREIGN, cpu_frames, 0, CPU_BOX_TARGET, TRUE);
  g_free (frame);
  g_free (inside);
  g_free (cpu_frame);
  g_free (cpu_inside);
  return status;
}

int
crowds_table (const Bench * bench)
{
  const int frames = bench->frames;
  gchar *crowd = bench_crowd_boxes ();
  gchar *overlapping = bench_overlapping_boxes ();
  gchar *frame = gaussian ("cuda", 31, "region=frame", NULL);
  gchar *crowd_frame = gaussian ("cuda", 5, "region=frame", NULL);
  gchar *crowd_inside = gaussian ("cuda", 5, "region=inside", crowd);
  gchar *wide_frame = gaussian ("cuda", 127, "region=frame", NULL);
  gchar *wide_inside = gaussian ("cuda", 127, "region=inside", overlapping);
  gchar *held = gaussian ("cuda", 31, "region=inside region-hold=300", NULL);
  int status = 0;

  printf ("\nCrowds: 1920x1080 I420, pool input, median of %d alternating "
      "runs: 200 boxes of 16x16 (gaussian r5); 64 boxes of 1600x900 "
      "(gaussian r127); 1,000 moving ROI metas a frame held 300 frames "
      "(gaussian r31, both pipelines fed the metas)\n", REGION_RUNS);
  if (!cuda_device_present ()) {
    printf ("  no CUDA device\n");
  } else {
    status |= row (bench, "regions-crowd", crowd_frame, crowd_inside, NULL,
        FEED_POOL, frames, 0, CROWD_TARGET, FALSE);
    status |= row (bench, "regions-overlapping", wide_frame, wide_inside,
        NULL, FEED_POOL, frames, 0, NO_SLOWER_TARGET, FALSE);
    status |= row (bench, "regions-held-crowd", frame, held, NULL,
        FEED_POOL, frames, 1000, NO_SLOWER_TARGET, FALSE);
  }
  g_free (frame);
  g_free (crowd_frame);
  g_free (crowd_inside);
  g_free (wide_frame);
  g_free (wide_inside);
  g_free (held);
  g_free (crowd);
  g_free (overlapping);
  return status;
}

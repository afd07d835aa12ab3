/* cudaconv benchmark, --regions: what filtering only the regions saves
 * (bench-common.h).
 *
 * Privacy blur filters a few boxes of each frame: four boxes covering a
 * tenth of a 1920x1080 I420 frame, a gaussian of radius 31, against the
 * same filter over the whole frame, alternating runs of one process. On
 * the CUDA backend from cudaconv's pool (writable buffers, filtered in
 * place: only the boxes' windows and rects cross the bus) and from
 * foreign buffers the feeder keeps (not writable: the frame is copied on
 * the host, the boxes on the GPU); on the CPU backend, whose work should
 * follow the area. And the CPU backend's box of radius 127 against radius
 * 2 over whole frames, running sums against taps. */
#include "bench-common.h"

#define REGION_RUNS 5
/* region=inside must reach this many times the frames/s of region=frame */
#define INSIDE_TARGET 4.0
/* the CPU's box r127 within this factor of its box r2 */
#define CPU_BOX_TARGET 1.5

/* four 288x180 boxes, one near each corner: 4 * 51840 pixels, 10% of
 * 1920x1080 */
static const char four_boxes[] =
    "100,100,288,180;1532,100,288,180;100,800,288,180;1532,800,288,180";

/* The median frames/s of two pipelines, and of a third (c, if not NULL),
 * run in turn */
static void
alternate (const char *a, const char *b, const char *c, FeedMode mode,
    int frames, double *fps_a, double *fps_b, double *fps_c)
{
  double ra[REGION_RUNS], rb[REGION_RUNS], rc[REGION_RUNS];

  for (int k = 0; k < REGION_RUNS; k++) {
    ra[k] = pipeline_fps (a, "I420", 1920, 1080, mode, frames);
    rb[k] = pipeline_fps (b, "I420", 1920, 1080, mode, frames);
    rc[k] = c ? pipeline_fps (c, "I420", 1920, 1080, mode, frames) : -1.0;
  }
  *fps_a = median (ra, REGION_RUNS);
  *fps_b = median (rb, REGION_RUNS);
  *fps_c = median (rc, REGION_RUNS);
}

/* a against b, and where ceiling is not NULL the same element passing
 * every frame through (region=inside without a region): what the feeder,
 * appsrc, appsink and the element's per-frame work allow at most, which
 * bounds the ratio whatever the regions cost */
static int
row (const Bench * bench, const char *what, const char *a, const char *b,
    const char *ceiling, FeedMode mode, int frames, double target,
    gboolean at_most)
{
  double fa, fb, fc, ratio;
  gboolean met;

  alternate (a, b, ceiling, mode, frames, &fa, &fb, &fc);
  ratio = fa > 0 ? fb / fa : -1.0;
  met = at_most ? ratio > 0 && 1.0 / ratio <= target : ratio >= target;
  printf ("%s\n  %-62s %9.1f frames/s\n  %-62s %9.1f frames/s\n"
      "  ratio %.2fx (target %s %.2fx): %s\n", what, a, fa, b, fb, ratio,
      at_most ? "time within" : "at least", target, met ? "PASS" : "MISS");
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
  gchar *frame = g_strdup ("cudaconv backend=cuda kernel=gaussian radius=31 "
      "region=frame");
  gchar *inside = g_strdup_printf ("cudaconv backend=cuda kernel=gaussian "
      "radius=31 region=inside region-boxes=\"%s\"", four_boxes);
  gchar *cpu_frame = g_strdup ("cudaconv backend=cpu kernel=gaussian "
      "radius=31 region=frame");
  gchar *cpu_inside = g_strdup_printf ("cudaconv backend=cpu "
      "kernel=gaussian radius=31 region=inside region-boxes=\"%s\"",
      four_boxes);
  const char *passing = "cudaconv backend=cuda kernel=gaussian radius=31 "
      "region=inside";
  int status = 0;

  printf ("\nRegions: 1920x1080 I420, four boxes covering 10%% of the frame, "
      "median of %d alternating runs\n", REGION_RUNS);
  if (cuda_device_present ()) {
    status |= row (bench, "regions-cuda-pool", frame, inside, passing,
        FEED_POOL, frames, INSIDE_TARGET, FALSE);
    status |= row (bench, "regions-cuda-foreign", frame, inside, NULL,
        FEED_FOREIGN, frames, INSIDE_TARGET, FALSE);
  } else {
    printf ("  CUDA rows: no CUDA device\n");
  }
  status |= row (bench, "regions-cpu", cpu_frame, cpu_inside, NULL,
      FEED_FOREIGN, cpu_frames, INSIDE_TARGET, FALSE);
  status |= row (bench, "cpu-box-r2-r127", "cudaconv backend=cpu kernel=box "
      "radius=2", "cudaconv backend=cpu kernel=box radius=127", NULL,
      FEED_FOREIGN, cpu_frames, CPU_BOX_TARGET, TRUE);
  g_free (frame);
  g_free (inside);
  g_free (cpu_frame);
  g_free (cpu_inside);
  return status;
}

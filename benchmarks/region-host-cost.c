/* cudaconv-region-host-cost: the host's share of a frame filtered in its
 * regions, which no GPU can hide: collecting the regions (metas, fixed
 * boxes, the hold) and building their coverage, per frame, for the crowd
 * rows of cudaconv-bench --crowds. Runs on any machine, without a GPU or
 * the plugin: it times the frame library the element calls.
 *   cudaconv-region-host-cost [FRAMES]
 * Prints, per row, the median, the 90th percentile and the largest of
 * the frames' microseconds (collect, coverage, both), and the coverage's
 * pieces and writes of the last frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bench-crowds.h"
#include "cudaconv-coverage.h"

typedef struct {
  const char *name;
  int roi_metas;                /* moving metas a frame, as the bench feeds */
  const char *boxes;            /* region-boxes, or NULL */
  guint hold;
  gint radius;
} Row;

static int
compare_double (const void *a, const void *b)
{
  const double p = *(const double *) a, q = *(const double *) b;
  return (p > q) - (p < q);
}

/* sorts v */
static void
stats (double *v, int n, double out[3])
{
  qsort (v, n, sizeof (double), compare_double);
  out[0] = v[n / 2];
  out[1] = v[(int) (0.9 * (n - 1))];
  out[2] = v[n - 1];
}

static void
run_row (const Row * row, int frames)
{
  const int width = 1920, height = 1080;
  CudaConvCrop crop = { CUDACONV_CROP_NONE, {0, 0, 0, 0} };
  BenchRegionFrame f;
  CcFilter filter;
  double *t[3];
  double s[3][3];
  guint n_regions = 0;

  for (int k = 0; k < 3; k++)
    t[k] = g_new (double, frames);
  memset (&filter, 0, sizeof (filter));
  filter.radius = row->radius;
  filter.shape = CC_SHAPE_TAPS;
  filter.scale = 1.0;
  bench_region_frame_init (&f, row->boxes, row->hold, &filter);
  /* as many frames again first: the hold fills up */
  for (int i = -frames; i < frames; i++) {
    GstBuffer *buf = gst_buffer_new ();
    guint n_bad, n_merged;
    gint64 t0, t1, t2;

    bench_add_moving_metas (buf, width, height, row->roi_metas, i + frames);
    cudaconv_plan_set_buffer (&f.plan, buf, &crop,
        CUDACONV_REGION_MODE_INSIDE);
    t0 = g_get_monotonic_time ();
    cudaconv_regions_collect (&f.rules, f.history, buf, width, height, f.set,
        &n_bad, &n_merged);
    t1 = g_get_monotonic_time ();
    cudaconv_coverage_build (f.coverage, &f.plan, f.set, f.filters,
        CC_BORDER_CLAMP);
    t2 = g_get_monotonic_time ();
    gst_buffer_unref (buf);
    n_regions = f.set->n;
    if (i < 0)
      continue;
    t[0][i] = (double) (t1 - t0);
    t[1][i] = (double) (t2 - t1);
    t[2][i] = (double) (t2 - t0);
  }
  for (int k = 0; k < 3; k++)
    stats (t[k], frames, s[k]);
  printf ("| %s | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | "
      "%.0f / %.0f / %.0f | %u | %u | %u |\n", row->name,
      s[0][0], s[0][1], s[0][2], s[1][0], s[1][1], s[1][2],
      s[2][0], s[2][1], s[2][2], n_regions, f.coverage->n_pieces,
      f.coverage->n_writes);
  for (int k = 0; k < 3; k++)
    g_free (t[k]);
  bench_region_frame_clear (&f);
}

int
main (int argc, char **argv)
{
  const int frames = argc > 1 ? atoi (argv[1]) : 300;
  gchar *crowd = bench_crowd_boxes ();
  gchar *overlapping = bench_overlapping_boxes ();
  const Row rows[] = {
    {"4 boxes of 288x180, gaussian r31", 0, BENCH_FOUR_BOXES, 0, 31},
    {"200 boxes of 16x16, gaussian r5", 0, crowd, 0, 5},
    {"64 boxes of 1600x900, gaussian r127", 0, overlapping, 0, 127},
    {"200 moving metas, region-hold=300, r31", 200, NULL, 300, 31},
    {"1,000 moving metas, region-hold=300, r31", 1000, NULL, 300, 31},
  };

  gst_init (&argc, &argv);
  if (frames < 1) {
    fprintf (stderr, "usage: %s [FRAMES]\n", argv[0]);
    return 2;
  }
  printf ("1920x1080 I420, region=inside, %d frames after %d to fill the "
      "hold; microseconds a frame, median / 90th percentile / largest\n\n",
      frames, frames);
  printf ("| regions | collect | coverage | both | regions after the "
      "merge | pieces | writes |\n|---|---|---|---|---|---|---|\n");
  for (guint k = 0; k < G_N_ELEMENTS (rows); k++)
    run_row (&rows[k], frames);
  g_free (crowd);
  g_free (overlapping);
  return 0;
}

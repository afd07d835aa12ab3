/* The regions of the privacy-blur rows (bench-crowds.h). */
#include <string.h>

#include <gst/video/video.h>

#include "bench-crowds.h"

gchar *
bench_crowd_boxes (void)
{
  GString *s = g_string_new (NULL);

  for (int k = 0; k < 200; k++)
    g_string_append_printf (s, "%s%d,%d,16,16", k ? ";" : "",
        40 + 96 * (k % 20), 46 + 108 * (k / 20));
  return g_string_free (s, FALSE);
}

gchar *
bench_overlapping_boxes (void)
{
  GString *s = g_string_new (NULL);

  for (int k = 0; k < 64; k++)
    g_string_append_printf (s, "%s%d,%d,1600,900", k ? ";" : "", 4 * k,
        2 * k);
  return g_string_free (s, FALSE);
}

void
bench_add_moving_metas (GstBuffer * buf, int width, int height, int n, int i)
{
  for (int k = 0; k < n; k++) {
    const unsigned hash = (unsigned) k * 2654435761u;
    const int side = 8 + (int) (hash % 33);
    const int x = (int) ((hash >> 8) % (unsigned) (width - side)) + 3 * i;
    const int y = (int) ((hash >> 20) % (unsigned) (height - side)) + 2 * i;
    gst_buffer_add_video_region_of_interest_meta (buf, "face",
        (guint) (x % (width - side)), (guint) (y % (height - side)),
        (guint) side, (guint) side);
  }
}

void
bench_region_frame_init (BenchRegionFrame * f, const char *boxes, guint hold,
    const CcFilter * filter)
{
  GError *error = NULL;

  memset (f, 0, sizeof (*f));
  gst_video_info_set_format (&f->info, GST_VIDEO_FORMAT_I420, 1920, 1080);
  cudaconv_layout_make (&f->layout, &f->info);
  cudaconv_plan_make (&f->plan, &f->layout, CUDACONV_CHANNEL_0 |
      CUDACONV_CHANNEL_1 | CUDACONV_CHANNEL_2, FALSE);
  f->rules.hold = hold;
  if (!cudaconv_regions_parse_boxes (boxes, &f->rules.boxes, &error))
    g_error ("%s", error->message);
  f->history = cudaconv_region_history_new ();
  f->set = g_new0 (CudaConvRegionSet, 1);
  f->coverage = cudaconv_coverage_new ();
  f->filters = g_new (const CcFilter *, CUDACONV_MAX_REGIONS);
  for (guint k = 0; k < CUDACONV_MAX_REGIONS; k++)
    f->filters[k] = filter;
}

void
bench_region_frame_clear (BenchRegionFrame * f)
{
  if (f->rules.boxes)
    g_bytes_unref (f->rules.boxes);
  g_free (f->filters);
  cudaconv_coverage_free (f->coverage);
  g_free (f->set);
  cudaconv_region_history_free (f->history);
}

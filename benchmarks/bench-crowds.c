/* The regions of the privacy-blur rows (bench-crowds.h). */
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

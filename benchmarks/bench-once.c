/* cudaconv benchmark, --once: one line, the frame rate of cudaconv with
 * --props as given (bench-common.h). */
#include "bench-common.h"

/* cudaconv with props as given, one line */
int
once_run (const Bench * b, int w, int h)
{
  const char *format = b->format;
  gchar *middle = g_strdup_printf ("cudaconv %s", b->props);
  const double fps = pipeline_fps (middle, format, w, h, FEED_FOREIGN,
      b->frames);

  if (fps > 0)
    printf ("%dx%d %s, %s: %.1f frames/s\n", w, h, format, middle, fps);
  else
    printf ("%dx%d %s, %s: did not run\n", w, h, format, middle);
  g_free (middle);
  return fps > 0 ? 0 : 1;
}

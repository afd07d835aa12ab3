/* cudaconv benchmark, --kernels: the CPU back end on one plane at each
 * radius (bench-common.h). */
#include <stdlib.h>

#include "bench-common.h"

/* The CPU back end on one 8-bit 1920x1080 plane, border clamp */
void
cpu_kernel_table (void)
{
  static const int radii[] = { 1, 2, 3, 7, 15 };
  CcFilter f;
  int w = 1920, h = 1080, threads = (int) g_get_num_processors ();
  unsigned char *in = random_plane ((size_t) w * h), *out = malloc (w * h);

  printf ("\nCPU back end, %d threads: one 8-bit 1920x1080 plane, border "
      "clamp, median of 3, milliseconds\n%6s %12s\n", threads, "radius", "cpu");
  for (size_t r = 0; r < sizeof (radii) / sizeof (radii[0]); r++) {
    CcComponent ci = { in, w, w, h, 1, CC_SAMPLE_U8, 0, 0 };
    CcComponent co = { out, w, w, h, 1, CC_SAMPLE_U8, 0, 0 };
    double t[3];

    normalised_filter (radii[r], &f);
    cc_cpu_convolve (&ci, &co, &f, CC_BORDER_CLAMP, threads);
    for (int i = 0; i < 3; i++) {
      gint64 t0 = g_get_monotonic_time ();
      cc_cpu_convolve (&ci, &co, &f, CC_BORDER_CLAMP, threads);
      t[i] = (g_get_monotonic_time () - t0) / 1000.0;
    }
    printf ("%6d %12.3f\n", radii[r], median (t, 3));
  }
  free (in);
  free (out);
}

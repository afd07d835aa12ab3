/* cudaconv benchmark, --cpu-peers: the CPU back end against OpenCV's
 * cvsmooth (bench-common.h). */
#include <stdlib.h>

#include "bench-common.h"

/* The CPU backend against OpenCV's cvsmooth (gstreamer1.0-opencv), which
 * takes packed RGB only: a 7x7 gaussian, sigma 1.4 (the default of both at
 * that size), 1920x1080, the two alternating, median of PEER_RUNS each;
 * then the CPU backend on the other packed formats and on I420 and P010 at
 * the same size. */
#define PEER_RUNS 5
int
cpu_peer_table (const Bench * bench, int frames)
{
  static const char *formats[] = { "BGR", "RGBx", "BGRA", "YUY2", "UYVY",
    "I420", "P010_10LE"
  };
  const char *ours = "cudaconv backend=cpu kernel=gaussian radius=3";
  const char *theirs = "cvsmooth type=gaussian kernel-width=7 "
      "kernel-height=7";
  double a[PEER_RUNS], b[PEER_RUNS];
  int status = 0;
  GstElementFactory *cv = gst_element_factory_find ("cvsmooth");

  if (!cv) {
    printf ("\ncvsmooth: not installed (gstreamer1.0-opencv); CPU peers "
        "skipped\n");
    return 0;
  }
  gst_object_unref (cv);
  printf ("\nCPU backend against OpenCV cvsmooth, 1920x1080 RGB, 7x7 gaussian "
      "sigma 1.4, frames/s, median of %d alternating runs of %d frames\n",
      PEER_RUNS, frames);
  for (int k = 0; k < PEER_RUNS; k++) {
    a[k] = pipeline_fps (ours, "RGB", 1920, 1080, FEED_FOREIGN, frames);
    b[k] = pipeline_fps (theirs, "RGB", 1920, 1080, FEED_FOREIGN, frames);
  }
  qsort (a, PEER_RUNS, sizeof (double), compare_doubles);
  qsort (b, PEER_RUNS, sizeof (double), compare_doubles);
  printf ("%-40s %9.1f frames/s\n%-40s %9.1f frames/s\n%-40s %9.2fx\n",
      ours, a[PEER_RUNS / 2], theirs, b[PEER_RUNS / 2], "ratio",
      b[PEER_RUNS / 2] > 0 ? a[PEER_RUNS / 2] / b[PEER_RUNS / 2] : -1.0);
  csv_row (bench, "cpu-vs-cvsmooth", 1920, 1080, 8, 3, "cudaconv-cpu",
      a[PEER_RUNS / 2]);
  csv_row (bench, "cpu-vs-cvsmooth", 1920, 1080, 8, 3, "cvsmooth",
      b[PEER_RUNS / 2]);
  if (a[PEER_RUNS / 2] <= 0 || b[PEER_RUNS / 2] <= 0)
    status = 1;
  for (size_t f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (int k = 0; k < 3; k++)
      a[k] = pipeline_fps (ours, formats[f], 1920, 1080, FEED_FOREIGN,
          frames);
    qsort (a, 3, sizeof (double), compare_doubles);
    printf ("%-40s %9.1f frames/s  (%s, median of 3)\n", ours, a[1],
        formats[f]);
  }
  return status;
}

/* cudaconv benchmark, --decode: nvh264dec into cudaconv against the
 * decode alone (bench-common.h). */
#include "bench-common.h"

/* Wall time from PLAYING to EOS of a gst-launch style pipeline, seconds;
 * -1 on error (printed). */
static double
launch_seconds (const char *desc)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstMessage *msg;
  GstBus *bus;
  gint64 t0;
  double seconds = -1.0;

  if (!pipeline || err) {
    fprintf (stderr, "%s: %s\n", desc, err ? err->message : "no pipeline");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return -1.0;
  }
  bus = gst_element_get_bus (pipeline);
  t0 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
    seconds = (g_get_monotonic_time () - t0) / 1e6;
  else if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "%s: %s\n", desc, err->message);
    g_clear_error (&err);
  }
  gst_clear_message (&msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return seconds;
}

/* Runs of each decode pipeline, alternating; the table reports medians */
#define DECODE_RUNS 5

/* NVDEC into cudaconv: each H.264 file (--decode, comma-separated) decoded
 * by nvh264dec and downloaded, plain, with cudaconv filtering the
 * decoder's CUDA memory, and with cudaconv after the download (system
 * memory: the frame goes up and down again); wall time from PLAYING to
 * EOS, the three alternating. */
int
decode_table (const Bench * b, const char *files)
{
  const char *props = b->props;
  gchar **list = g_strsplit (files, ",", -1);
  GstElementFactory *decoder = gst_element_factory_find ("nvh264dec");
  int status = 0;

  if (!decoder) {
    printf ("\nNVDEC: nvh264dec is not registered here, skipped\n");
    g_strfreev (list);
    return 0;
  }
  gst_object_unref (decoder);
  printf ("\nNVDEC: filesrc ! h264parse ! nvh264dec ! ... ! fakesink "
      "sync=false, cudaconv %s, seconds from PLAYING to EOS, median of %d "
      "runs of each, alternating\n", props, DECODE_RUNS);
  printf ("%-36s %10s %10s %8s %10s %8s\n", "file", "decode", "+cudaconv",
      "ratio", "+download", "ratio");
  for (int k = 0; list[k]; k++) {
    gchar *base = g_strdup_printf ("filesrc location=%s ! h264parse ! "
        "nvh264dec", list[k]);
    gchar *desc[3] = {
      g_strdup_printf ("%s ! cudadownload ! fakesink sync=false", base),
      g_strdup_printf ("%s ! cudaconv %s ! cudadownload ! fakesink "
          "sync=false", base, props),
      g_strdup_printf ("%s ! cudadownload ! cudaconv %s ! fakesink "
          "sync=false", base, props),
    };
    double t[3][DECODE_RUNS], mid[3];
    gchar *name = g_path_get_basename (list[k]);

    for (int r = 0; r < DECODE_RUNS; r++)
      for (int p = 0; p < 3; p++)
        t[p][r] = launch_seconds (desc[p]);
    for (int p = 0; p < 3; p++)
      mid[p] = t[p][0] < 0 ? -1.0 : median (t[p], DECODE_RUNS);
    if (mid[0] > 0 && mid[1] > 0 && mid[2] > 0) {
      printf ("%-36s %10.3f %10.3f %8.3f %10.3f %8.3f\n", name, mid[0],
          mid[1], mid[1] / mid[0], mid[2], mid[2] / mid[0]);
      csv_row (b, "nvdec", 0, 0, 8, 0, name, mid[0]);
      csv_row (b, "nvdec+cudaconv", 0, 0, 8, 0, name, mid[1]);
      csv_row (b, "nvdec+download+cudaconv", 0, 0, 8, 0, name, mid[2]);
    } else {
      printf ("%-36s did not run\n", name);
      status = 1;
    }
    for (int p = 0; p < 3; p++)
      g_free (desc[p]);
    g_free (base);
    g_free (name);
  }
  g_strfreev (list);
  return status;
}

/* cudaconv benchmark, --live: a live 1080p30 source through cudaconv
 * (bench-common.h). */
#include <string.h>

#include "bench-common.h"

/* When each of the last 64 buffers went into cudaconv (by offset), and
 * how long each buffer spent in it: what the two pad probes share */
typedef struct {
  gint64 in_time[64];
  double latency_ms[4096];
  int latency_n;
} LiveTimes;

static GstPadProbeReturn
live_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  LiveTimes *times = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 n = GST_BUFFER_OFFSET (buf);
  times->in_time[n % 64] = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
live_out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  LiveTimes *times = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 n = GST_BUFFER_OFFSET (buf);
  if (times->latency_n < (int) G_N_ELEMENTS (times->latency_ms))
    times->latency_ms[times->latency_n++] =
        (g_get_monotonic_time () - times->in_time[n % 64]) / 1000.0;
  return GST_PAD_PROBE_OK;
}

/* videotestsrc is-live=true at 1920x1080 30 fps through cudaconv to a
 * synchronised fakesink: frames in and out, the sink's drops, the time each
 * buffer spends in cudaconv (sink pad to src pad), and the pipeline's answer
 * to a latency query. */
int
live_run (const Bench * b, const char *backend, int frames)
{
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true num-buffers=%d "
      "pattern=ball ! video/x-raw,format=I420,width=1920,height=1080,"
      "framerate=30/1 ! cudaconv name=conv backend=%s kernel=gaussian "
      "radius=2 ! fakesink name=sink sync=true", frames, backend);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *conv, *sink;
  GstPad *in, *out;
  GstMessage *msg;
  GstQuery *q;
  GstStructure *stats = NULL;
  guint64 rendered = 0, dropped = 0;
  gboolean live = FALSE, answered = FALSE;
  GstClockTime min = 0, max = 0;
  LiveTimes *times;
  int status = 0;

  g_free (desc);
  /* gst_parse_launch may return a pipeline with an error (a missing
   * element, say) */
  if (!pipeline || err) {
    fprintf (stderr, "live pipeline: %s\n", err ? err->message : "?");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return 1;
  }
  conv = gst_bin_get_by_name (GST_BIN (pipeline), "conv");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  in = gst_element_get_static_pad (conv, "sink");
  out = gst_element_get_static_pad (conv, "src");
  times = g_new0 (LiveTimes, 1);
  gst_pad_add_probe (in, GST_PAD_PROBE_TYPE_BUFFER, live_in_probe, times,
      NULL);
  gst_pad_add_probe (out, GST_PAD_PROBE_TYPE_BUFFER, live_out_probe, times,
      NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_element_get_state (pipeline, NULL, NULL, 10 * GST_SECOND);
  q = gst_query_new_latency ();
  if ((answered = gst_element_query (pipeline, q)))
    gst_query_parse_latency (q, &live, &min, &max);
  gst_query_unref (q);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      (frames / 30 + 20) * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    fprintf (stderr, "live run did not reach EOS\n");
    status = 1;
  }
  if (msg)
    gst_message_unref (msg);
  g_object_get (sink, "stats", &stats, NULL);
  if (stats) {
    gst_structure_get_uint64 (stats, "rendered", &rendered);
    gst_structure_get_uint64 (stats, "dropped", &dropped);
    gst_structure_free (stats);
  }
  double lat[4096];
  int n = times->latency_n;
  memcpy (lat, times->latency_ms, sizeof (double) * n);
  /* the first frame also times the strategies (strategy=auto) */
  double first = n ? lat[0] : -1.0;
  double med = n > 1 ? median (lat + 1, n - 1) : -1.0;
  double worst = n > 1 ? lat[n - 1] : -1.0;
  gchar *max_text = GST_CLOCK_TIME_IS_VALID (max) ?
      g_strdup_printf ("%.3f ms", max / 1e6) : g_strdup ("none");
  printf ("live 1920x1080 30/1 backend=%s: %d frames sent, %" G_GUINT64_FORMAT
      " rendered, %" G_GUINT64_FORMAT " dropped; time in cudaconv: first "
      "frame %.3f ms, then median %.3f ms, max %.3f ms; latency query: %s "
      "live=%s min=%.3f ms max=%s\n", backend, frames, rendered, dropped,
      first, med, worst,
      answered ? "answered" : "NOT answered", live ? "true" : "false",
      min / 1e6, max_text);
  g_free (max_text);
  csv_row (b, "live", 1920, 1080, 8, 0, "rendered", (double) rendered);
  csv_row (b, "live", 1920, 1080, 8, 0, "dropped", (double) dropped);
  csv_row (b, "live", 1920, 1080, 8, 0, "median_ms_in_element", med);
  csv_row (b, "live", 1920, 1080, 8, 0, "max_ms_in_element", worst);
  csv_row (b, "live", 1920, 1080, 8, 0, "first_frame_ms_in_element", first);
  csv_row (b, "live", 1920, 1080, 8, 0, "query_min_latency_ms", min / 1e6);
  if (rendered != (guint64) frames || dropped != 0)
    status = 1;
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (out);
  gst_object_unref (conv);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (times);
  return status;
}

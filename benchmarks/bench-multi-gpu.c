/* cudaconv benchmark, --multi-gpu: pipelines on several GPUs of one
 * process against the transfer floor of as many GPUs, measured in the same
 * run (bench-common.h). */
#include <stdlib.h>

#include "bench-common.h"

/* The pipelines of the row that device-id=-1 spreads over the devices */
#define SPREAD_PIPELINES 16

#ifdef HAVE_CUDA
/* One row: pipelines pipelines of w x h I420 at once, a GstCudaContext
 * each, pipeline i on device-id i % devices (spread: device-id=-1, where
 * the element chooses), between two floors of devices 0..devices-1; what
 * names its CSV rows. 0 when it ran. */
static int
multi_gpu_row (const Bench * b, const char *what, const char *label,
    int devices, int pipelines, gboolean spread, int w, int h, int frames)
{
  GstVideoInfo info;
  double *before = g_new0 (double, devices);
  double *after = g_new0 (double, devices);
  long long *in_window = g_new0 (long long, devices);
  int *landed = g_new0 (int, devices);
  Stream *streams = g_new0 (Stream, pipelines);
  StreamsTotals t;
  StreamsOutcome outcome;
  int unknown = 0, status = 0;
  double floor = -1.0;
  gchar *name;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, w, h);
  const int ring = multi_floor_ring (info.size);
  /* the same copies from one frame each way, which the host's cache
   * holds: what the floor would be if frames never left it */
  const double cached = multi_device_floor_fps (devices, info.size, 1, NULL);
  const double floor_before = multi_device_floor_fps (devices, info.size,
      ring, before);
  for (int i = 0; i < pipelines; i++) {
    streams[i].middle = g_strdup_printf ("cudaconv backend=cuda "
        "device-id=%d kernel=gaussian radius=2 sigma=%.2f", spread ? -1 :
        i % devices, 0.5 + 0.05 * i);
    streams[i].format = "I420";
    streams[i].w = w;
    streams[i].h = h;
    streams[i].frames = frames;
    streams[i].mode = FEED_FOREIGN;
  }
  outcome = streams_run (streams, pipelines, TRUE, &t);
  const double floor_after = multi_device_floor_fps (devices, info.size,
      ring, after);

  /* the floor of the row: the mean of the two, or the one that ran (the
   * other said why on stderr) */
  if (floor_before > 0 && floor_after > 0)
    floor = (floor_before + floor_after) / 2.0;
  else
    floor = MAX (floor_before, floor_after);
  if (floor <= 0)
    status = 1;
  for (int i = 0; i < pipelines; i++) {
    const int d = streams[i].window.cuda_device;
    if (d < 0 || d >= devices) {
      unknown++;
      continue;
    }
    landed[d]++;
    in_window[d] += streams[i].in_window;
  }

  if (outcome == STREAMS_RAN) {
    printf ("%-34s %2d %3d %10.1f %10.1f %7.1f  (floor %.1f before, "
        "%.1f after; one cached frame: %.1f, %.1f%%)\n", label, devices,
        pipelines, t.aggregate, floor,
        floor > 0 ? 100.0 * t.aggregate / floor : -1.0, floor_before,
        floor_after, cached, cached > 0 ? 100.0 * t.aggregate / cached :
        -1.0);
    csv_row (b, what, w, h, 8, devices, "aggregate", t.aggregate);
    if (floor > 0)
      csv_row (b, what, w, h, 8, devices, "aggregate / floor",
          t.aggregate / floor);
  } else if (outcome == STREAMS_FAILED) {
    printf ("%-34s %2d %3d did not run (floor %.1f before, %.1f after)\n",
        label, devices, pipelines, floor_before, floor_after);
    status = 1;
  } else {
    printf ("%-34s %2d %3d ran one after another (the last pipeline past "
        "its warm-up %.2f s after the first, the first to end %.2f s after "
        "it): more --frames\n", label, devices, pipelines,
        (t.start - t.first) / 1e6, (t.end - t.first) / 1e6);
    status = 1;
  }
  csv_row (b, what, w, h, 8, devices, "pipelines", pipelines);
  if (floor > 0)
    csv_row (b, what, w, h, 8, devices, "floor", floor);
  if (floor_before > 0)
    csv_row (b, what, w, h, 8, devices, "floor before", floor_before);
  if (floor_after > 0)
    csv_row (b, what, w, h, 8, devices, "floor after", floor_after);
  if (cached > 0)
    csv_row (b, what, w, h, 8, devices, "floor one cached frame", cached);

  /* where each pipeline's cudaconv worked, from the CUDA context it
   * answers with: a plugin built without GStreamer's CUDA library shares
   * no context and answers none */
  for (int d = 0; d < devices; d++) {
    const double mean = before[d] > 0 && after[d] > 0 ?
        (before[d] + after[d]) / 2.0 : MAX (before[d], after[d]);
    if (unknown == pipelines)
      printf ("    device %d: pipelines unknown; floor %.1f before, %.1f "
          "after\n", d, before[d], after[d]);
    else if (outcome == STREAMS_RAN)
      printf ("    device %d: pipelines %d, %.1f frames/s; floor %.1f "
          "before, %.1f after\n", d, landed[d],
          in_window[d] / ((t.end - t.start) / 1e6), before[d], after[d]);
    else
      printf ("    device %d: pipelines %d; floor %.1f before, %.1f "
          "after\n", d, landed[d], before[d], after[d]);
    if (mean > 0) {
      name = g_strdup_printf ("device %d floor", d);
      csv_row (b, what, w, h, 8, devices, name, mean);
      g_free (name);
    }
    if (unknown < pipelines) {
      name = g_strdup_printf ("device %d pipelines", d);
      csv_row (b, what, w, h, 8, devices, name, landed[d]);
      g_free (name);
    }
    if (unknown < pipelines && outcome == STREAMS_RAN) {
      name = g_strdup_printf ("device %d aggregate", d);
      csv_row (b, what, w, h, 8, devices, name,
          in_window[d] / ((t.end - t.start) / 1e6));
      g_free (name);
    }
  }
  if (unknown > 0) {
    printf ("    device unknown: pipelines %d (their cudaconv answered no "
        "CUDA context query: a plugin built without GStreamer's CUDA "
        "library, or a pipeline that failed)\n", unknown);
    csv_row (b, what, w, h, 8, devices, "unknown-device pipelines", unknown);
  }

  for (int i = 0; i < pipelines; i++)
    g_free (streams[i].middle);
  g_free (streams);
  g_free (before);
  g_free (after);
  g_free (in_window);
  g_free (landed);
  return status;
}
#endif

/* On a machine of D CUDA devices: for N of 1, 2 and 4 (and D) up to D,
 * one 3840x2160 pipeline per device against the floor of N devices; then
 * SPREAD_PIPELINES 1920x1080 pipelines with device-id=-1 against the floor
 * of all D. The rows of several devices need two or more. */
int
multi_gpu_table (const Bench * b)
{
#ifndef HAVE_CUDA
  printf ("\nmany GPUs: built without CUDA\n");
  return 0;
#else
  const int big_w = 3840, big_h = 2160, small_w = 1920, small_h = 1080;
  /* about as long a run at both sizes, as the element table does */
  const int big_frames = b->frames, small_frames = b->frames * 4;
  int count = 0, status = 0;
  int ns[4], n_ns = 0;
  GstVideoInfo big;

  if (!cuda_device_present () || cudaGetDeviceCount (&count) != cudaSuccess
      || count <= 0) {
    (void) cudaGetLastError ();
    printf ("\nmany GPUs: no usable CUDA device, skipped\n");
    return 0;
  }
  if (b->frames <= WARM_FRAMES) {
    fprintf (stderr, "--multi-gpu needs --frames above %d\n", WARM_FRAMES);
    return 2;
  }
  for (int n = 1; n <= 4; n *= 2)
    if (n <= count)
      ns[n_ns++] = n;
  if (count != 1 && count != 2 && count != 4)
    ns[n_ns++] = count;

  gst_video_info_set_format (&big, GST_VIDEO_FORMAT_I420, big_w, big_h);
  printf ("\nMany GPUs: %d CUDA device%s (", count, count == 1 ? "" : "s");
  for (int d = 0; d < count; d++) {
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties (&prop, d) == cudaSuccess)
      printf ("%s%d: %s", d ? ", " : "", d, prop.name);
    else
      printf ("%s%d: ?", d ? ", " : "", d);
  }
  printf ("). Floor of N devices: on each of devices 0..N-1 at once, one "
      "thread (its device set first, then its own pinned host and device "
      "buffers) copying I420 frames host-to-device and device-to-host on "
      "two streams, frame after frame with %d queued, cycling through "
      "%.0f MB of distinct pinned frames each way (more than the host's "
      "cache holds, as frames from a camera or decoder are), %d ms of "
      "warm-up then %.0f GB each way; frames/s summed over the devices, "
      "counted while all of them copy; measured just before and just after "
      "each row, which is compared with the mean of the two (and, for "
      "reference, with the same copies from one cached frame each way). "
      "Rows: pipelines appsrc ! "
      "cudaconv backend=cuda device-id=<d> kernel=gaussian radius=2 "
      "sigma=<its own> ! appsink sync=false, I420, foreign (registered) "
      "input, all at once (device-id=-1: the process's context of the "
      "device; else a GstCudaContext each), %d frames each at "
      "%dx%d and %d at %dx%d; aggregate frames/s while all of them run "
      "(each past its %dth output, none ended)\n", MULTI_FLOOR_DEPTH,
      MULTI_FLOOR_RING_BYTES / (1024.0 * 1024.0), MULTI_FLOOR_WARMUP_MS, MULTI_FLOOR_BYTES / 1e9, big_frames, big_w,
      big_h, small_frames, small_w, small_h, WARMUP_OUTPUTS);
  /* the one-frame floor of the other tables, to set the N = 1 floor
   * beside */
  const double one_frame = floor_fps (big.size);
  printf ("device 0 alone, the element table's floor (one frame's two "
      "copies at once, CUDA events, median of 31): %.1f frames/s at "
      "%dx%d\n", one_frame, big_w, big_h);
  if (one_frame > 0)
    csv_row (b, "multi-gpu", big_w, big_h, 8, 1, "one-frame floor",
        one_frame);
  printf ("%-34s %2s %3s %10s %10s %7s\n", "row (N devices, P pipelines)",
      "N", "P", "aggregate", "floor", "% floor");

  for (int k = 0; k < n_ns; k++) {
    gchar *label = g_strdup_printf ("one %dx%d pipeline per device", big_w,
        big_h);
    status |= multi_gpu_row (b, "multi-gpu", label, ns[k], ns[k], FALSE,
        big_w, big_h, big_frames);
    g_free (label);
  }
  if (count < 2) {
    printf ("1 CUDA device: the rows of 2 and 4 devices and %d pipelines "
        "spread over the devices need two or more, skipped\n",
        SPREAD_PIPELINES);
    return status;
  }
  if (count < 4)
    printf ("%d CUDA devices: the row of 4 devices needs four, skipped\n",
        count);
  {
    gchar *label = g_strdup_printf ("%d at %dx%d, device-id=-1",
        SPREAD_PIPELINES, small_w, small_h);
    status |= multi_gpu_row (b, "multi-gpu-spread", label, count,
        SPREAD_PIPELINES, TRUE, small_w, small_h, small_frames);
    g_free (label);
  }
  return status;
#endif
}

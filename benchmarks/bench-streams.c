/* cudaconv benchmark, --streams and --cuda-streams: many pipelines at
 * once in one process (bench-common.h). */
#include <stdlib.h>

#include "bench-common.h"

static gpointer
stream_thread (gpointer data)
{
  Stream *s = data;

  s->fps = pipeline_run (s->middle, s->format, s->w, s->h, s->mode,
      s->frames, &s->window);
  return NULL;
}

StreamsOutcome
streams_run (Stream * streams, int n, gboolean separate_contexts,
    StreamsTotals * totals)
{
  GThread **threads = g_new0 (GThread *, n);
  StartGate gate, warm_gate;
  SharedCudaContext shared = { 0 };
  StreamsOutcome outcome = STREAMS_RAN;

  totals->aggregate = totals->slowest = totals->fastest = -1.0;
  totals->first = G_MAXINT64;
  totals->start = 0;
  totals->end = G_MAXINT64;
  start_gate_init (&gate, n);
  start_gate_init (&warm_gate, n);
  g_mutex_init (&shared.lock);
  g_cond_init (&shared.made);
  for (int i = 0; i < n; i++) {
    streams[i].in_window = 0;
    streams[i].window.times = g_new0 (gint64, streams[i].frames);
    streams[i].window.gate = &gate;
    streams[i].window.warm_gate = &warm_gate;
    streams[i].window.cuda_context = separate_contexts ? NULL : &shared;
    threads[i] = g_thread_new ("stream", stream_thread, &streams[i]);
  }
  for (int i = 0; i < n; i++) {
    const Stream *st = &streams[i];
    g_thread_join (threads[i]);
    if (st->fps <= 0) {
      outcome = STREAMS_FAILED;
      continue;
    }
    totals->first = MIN (totals->first, st->window.start);
    totals->start = MAX (totals->start, st->window.start);
    totals->end = MIN (totals->end, st->window.end);
    totals->slowest = totals->slowest < 0 ? st->fps :
        MIN (totals->slowest, st->fps);
    totals->fastest = MAX (totals->fastest, st->fps);
  }
  if (outcome == STREAMS_RAN && totals->end <= totals->start)
    outcome = STREAMS_APART;
  if (outcome == STREAMS_RAN) {
    long long outputs = 0;
    for (int i = 0; i < n; i++) {
      for (int f = WARMUP_OUTPUTS; f < streams[i].frames; f++)
        streams[i].in_window += streams[i].window.times[f] > totals->start
            && streams[i].window.times[f] <= totals->end;
      outputs += streams[i].in_window;
    }
    totals->aggregate = outputs / ((totals->end - totals->start) / 1e6);
  }
  for (int i = 0; i < n; i++)
    g_clear_pointer (&streams[i].window.times, g_free);
  g_free (threads);
  start_gate_clear (&gate);
  start_gate_clear (&warm_gate);
  if (shared.context)
    gst_context_unref (shared.context);
  g_mutex_clear (&shared.lock);
  g_cond_clear (&shared.made);
  return outcome;
}

/* N independent pipelines in one process, each with its own filter (a
 * gaussian of radius 2 with a sigma of its own), all at once: they start
 * feeding together once all are PLAYING, and the aggregate counts only the
 * outputs of the time when all of them are past their warm-up and none has
 * ended. Fed foreign system-memory frames (FEED_FOREIGN), it is compared
 * with the transfer floor, which they all share (one PCIe link); fed CUDA
 * memory (FEED_CUDA_POOL), with the kernels' capacity, which they share
 * too (one GPU). */
int
streams_table (const Bench * b, const char *counts, FeedMode mode)
{
  const char *format = b->format;
  const int frames = b->frames;
  const int w = b->only_w ? b->only_w : 1920, h = b->only_w ? b->only_h : 1080;
  gchar **list = g_strsplit (counts, ",", -1);
  GstVideoInfo info;
  double first_aggregate = -1.0;
  int status = 0;

#ifdef HAVE_CUDA
  if (!cuda_device_present ()) {
    printf ("\nmany streams: no usable CUDA device, skipped\n");
    g_strfreev (list);
    return 0;
  }
#else
  printf ("\nmany streams: built without CUDA\n");
  g_strfreev (list);
  return 0;
#endif
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  const gboolean cuda = mode == FEED_CUDA_POOL;
#ifdef HAVE_CUDA
  const double kernel_ms = cuda ? frame_kernel_ms (&info) : -1.0;
#else
  const double kernel_ms = -1.0;
#endif
  const double floor = cuda ? (kernel_ms > 0 ? 1e3 / kernel_ms : -1.0) :
      floor_fps (info.size);
  const char *what = b->separate_contexts ? (cuda ? "cuda-streams-separate" :
      "streams-separate") : (cuda ? "cuda-streams" : "streams");
  printf ("\nMany streams: N pipelines appsrc ! cudaconv backend=cuda "
      "kernel=gaussian radius=2 sigma=<its own> ! appsink sync=false in one "
      "process %s, %dx%d %s, %s, %d frames each, all at once; aggregate "
      "frames/s while all of them run (each past its %dth output, none "
      "ended), against %s: %.1f frames/s); the streams' own rates over "
      "their whole runs\n", b->separate_contexts ? "each with its own "
      "GstCudaContext" : "sharing one GstCudaContext", w, h, format,
      cuda ? "CUDA memory in and out (cudaconv's GstCudaBufferPool)" :
      "foreign (registered) input",
      frames, WARMUP_OUTPUTS, cuda ? "the kernels' capacity (1 / the "
      "frame's summed kernel time, CUDA events" : "the transfer floor (H2D "
      "+ D2H at once, pinned", floor);
  if (b->n_devices > 0) {
    printf ("stream i runs on device-id devices[i %% %d] of",
        b->n_devices);
    for (int d = 0; d < b->n_devices; d++)
      printf (" %d", b->devices[d]);
    printf ("; the floor and the kernels are device %d's\n", b->devices[0]);
  }
  printf ("%5s %12s %9s %16s %16s %10s\n", "N", "aggregate", cuda ?
      "% kernels" : "% floor", "slowest stream", "fastest stream",
      "x first N");
  for (int k = 0; list[k] && status == 0; k++) {
    const int n = atoi (list[k]);
    Stream *streams;
    StreamsTotals t;

    if (n <= 0 || n > 1024) {
      fprintf (stderr, "--streams takes counts from 1 to 1024, like "
          "1,4,16,64\n");
      status = 2;
      break;
    }
    streams = g_new0 (Stream, n);
    for (int i = 0; i < n; i++) {
      /* without --devices all on device 0, whose floor and kernels they
       * are measured against (device-id=-1 would spread separate contexts
       * over the GPUs) */
      streams[i].middle = g_strdup_printf ("cudaconv backend=cuda "
          "device-id=%d kernel=gaussian radius=2 sigma=%.2f", b->n_devices ?
          b->devices[i % b->n_devices] : 0, 0.5 + 0.05 * i);
      streams[i].format = format;
      streams[i].w = w;
      streams[i].h = h;
      streams[i].frames = frames;
      streams[i].mode = mode;
    }
    switch (streams_run (streams, n, b->separate_contexts, &t)) {
      case STREAMS_FAILED:
        printf ("%5d did not run\n", n);
        status = 1;
        break;
      case STREAMS_APART:
        printf ("%5d ran one after another (the last stream past its "
            "warm-up %.2f s after the first, the first to end %.2f s after "
            "it): more --frames\n", n, (t.start - t.first) / 1e6,
            (t.end - t.first) / 1e6);
        status = 1;
        break;
      case STREAMS_RAN:
        if (first_aggregate <= 0)
          first_aggregate = t.aggregate;
        printf ("%5d %12.1f %9.1f %16.1f %16.1f %10.2f\n", n, t.aggregate,
            floor > 0 ? 100.0 * t.aggregate / floor : -1.0, t.slowest,
            t.fastest, t.aggregate / first_aggregate);
        csv_row (b, what, w, h, 8, n, "aggregate", t.aggregate);
        csv_row (b, what, w, h, 8, n, "floor", floor);
        break;
    }
    for (int i = 0; i < n; i++)
      g_free (streams[i].middle);
    g_free (streams);
  }
  g_strfreev (list);
  return status;
}

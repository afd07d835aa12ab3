/* cudaconv benchmark: pipelines fed by appsrc and timed at appsink
 * (bench-common.h). */
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#include "bench-common.h"
#include "bench-crowds.h"

#define FOREIGN_BUFFERS 4

/* What the feeding thread of one pipeline run (feed) works with */
typedef struct {
  GstAppSrc *src;
  GstElement *conv;             /* NULL: the pipeline has no cudaconv */
  FeedMode mode;
  GstVideoInfo info;
  GstBuffer *foreign[FOREIGN_BUFFERS];
  GstBufferPool *pool;
  int frames;
  gint stop;                    /* atomic: the pipeline has ended */
  StartGate *warm_gate;         /* see RunWindow */
  int roi_metas;                /* see RunWindow */
} Feeder;

/* n ROI metas on buf, the boxes of frame i (bench_add_moving_metas) */
static GstBuffer *
add_roi_metas (GstBuffer * buf, const GstVideoInfo * info, int n, int i)
{
  /* a feeder's foreign buffer is shared: the metas go on a new buffer
   * of the same memory */
  buf = gst_buffer_make_writable (buf);
  bench_add_moving_metas (buf, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n, i);
  return buf;
}

static void
fill_random (GstBuffer * buf)
{
  GstMapInfo map;
  unsigned x = 12345;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < map.size; k++) {
    x = x * 1103515245u + 12345u;
    map.data[k] = (guint8) (x >> 16);
  }
  gst_buffer_unmap (buf, &map);
}

/* Buffers the feeder's pool holds, as a decoder's would: a fixed set,
 * allocated and filled before the clock starts, and acquiring blocks while
 * all are downstream. An unbounded pool let appsrc's queue run ahead and
 * allocate (and fill) pinned buffers while the clock ran. */
#define POOL_BUFFERS 8

/* The feeder's caps: CUDA memory for FEED_CUDA_POOL */
static GstCaps *
feeder_caps (const GstVideoInfo * info, FeedMode mode)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  if (mode == FEED_CUDA_POOL)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new ("memory:CUDAMemory", NULL));
  return caps;
}

/* The pool cudaconv proposes upstream: pinned memory it copies by DMA, or
 * CUDA memory of its context that its kernels read where it is. Filling a
 * buffer of the latter maps it to the host and uploads it when unmapped. */
static GstBufferPool *
proposed_pool (Feeder * f)
{
  GstPad *pad = gst_element_get_static_pad (GST_ELEMENT (f->src), "src");
  GstCaps *caps = feeder_caps (&f->info, f->mode);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  guint min = 0;

  if (gst_pad_peer_query (pad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, &min, NULL);
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    const guint n = MAX (min, POOL_BUFFERS);
    GstBuffer *bufs[64];
    gst_buffer_pool_config_set_params (config, caps, f->info.size, n, n);
    if (!gst_buffer_pool_set_config (pool, config)
        || !gst_buffer_pool_set_active (pool, TRUE))
      gst_clear_object (&pool);
    /* every buffer holds a random picture before the first is sent */
    guint got = 0;
    while (pool && got < MIN (n, G_N_ELEMENTS (bufs))
        && gst_buffer_pool_acquire_buffer (pool, &bufs[got], NULL) ==
        GST_FLOW_OK)
      fill_random (bufs[got++]);
    for (guint k = 0; k < got; k++)
      gst_buffer_unref (bufs[k]);
    if (pool && got < MIN (n, G_N_ELEMENTS (bufs))) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_clear_object (&pool);
    }
  }
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return pool;
}

static gpointer
feed (gpointer data)
{
  Feeder *f = data;
  /* CUDA memory caps take no system-memory frame: a GAP buffer (which
   * cudaconv forwards as a GAP event) negotiates instead */
  if (f->mode == FEED_CUDA_POOL) {
    GstBuffer *gap = gst_buffer_new ();
    GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
    GST_BUFFER_PTS (gap) = 0;
    if (gst_app_src_push_buffer (f->src, gap) != GST_FLOW_OK)
      f->frames = 0;
  }
  for (int i = 0; i < f->frames; i++) {
    GstBuffer *buf = NULL;
    const int ask_at = f->mode == FEED_CUDA_POOL ? 0 : 1;
    if (i == WARM_FRAMES && f->warm_gate)
      gate_wait (f->warm_gate);
    /* the first frame negotiates; cudaconv proposes its pool once it has
     * decided its own downstream allocation, so ask until it does */
    for (int tries = 0; f->mode != FEED_FOREIGN && i == ask_at && !f->pool
        && tries < 200; tries++) {
      GstBufferPool *pool = proposed_pool (f);
      if (pool)
        g_atomic_pointer_set (&f->pool, pool);
      else
        g_usleep (10000);
    }
    if (f->mode != FEED_FOREIGN && i == ask_at && !f->pool) {
      fprintf (stderr, "cudaconv proposed no pool\n");
      break;
    }
    /* a pipeline that failed keeps its buffers: pipeline_run sets the
     * pool flushing once it has ended, which ends a wait for one */
    if (f->pool && (g_atomic_int_get (&f->stop)
            || gst_buffer_pool_acquire_buffer (f->pool, &buf, NULL) !=
            GST_FLOW_OK))
      break;
    if (!f->pool) {
      buf = gst_buffer_ref (f->foreign[i % FOREIGN_BUFFERS]);
    }
    if (f->roi_metas > 0)
      buf = add_roi_metas (buf, &f->info, f->roi_metas, i);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int ((i + 1) * GST_SECOND,
        f->info.fps_d, f->info.fps_n);
    if (gst_app_src_push_buffer (f->src, buf) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (f->src);
  return NULL;
}

/* After downstream answered the allocation query, its crop meta support
 * is taken out of the answer. */
static GstPadProbeReturn
refuse_crop_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  guint index;

  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION
      && gst_query_find_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE,
          &index))
    gst_query_remove_nth_allocation_meta (query, index);
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
share_cuda_context (GstBus * bus, GstMessage * msg, gpointer data)
{
  SharedCudaContext *shared = data;
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT
      && gst_message_parse_context_type (msg, &type)
      && g_str_equal (type, "gst.cuda.context")) {
    const gint64 until = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
    g_mutex_lock (&shared->lock);
    while (!shared->context && shared->making
        && g_cond_wait_until (&shared->made, &shared->lock, until));
    if (shared->context)
      gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)),
          shared->context);
    else
      shared->making = TRUE;
    g_mutex_unlock (&shared->lock);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext *context = NULL;
    gst_message_parse_have_context (msg, &context);
    if (context && g_str_equal (gst_context_get_context_type (context),
            "gst.cuda.context")) {
      g_mutex_lock (&shared->lock);
      if (!shared->context)
        shared->context = gst_context_ref (context);
      g_cond_broadcast (&shared->made);
      g_mutex_unlock (&shared->lock);
    }
    if (context)
      gst_context_unref (context);
  }
  return GST_BUS_PASS;
}

/* The pipeline's first cudaconv (a reference), or NULL where it has none */
static GstElement *
first_cudaconv (GstElement * pipeline)
{
  GstIterator *it =
      gst_bin_iterate_all_by_element_factory_name (GST_BIN (pipeline),
      "cudaconv");
  GValue item = G_VALUE_INIT;
  GstElement *conv = NULL;

  if (it && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    conv = g_value_dup_object (&item);
    g_value_unset (&item);
  }
  if (it)
    gst_iterator_free (it);
  return conv;
}

/* The device of the GstCudaContext the pipeline's first cudaconv answers
 * a context query with, as RunWindow's cuda_device says; the context's
 * structure names its device, so no link to GStreamer's CUDA library is
 * needed here. Asked while the element still holds its context (it drops
 * it when it stops). */
static int
cudaconv_device (GstElement * pipeline)
{
  GstElement *conv = first_cudaconv (pipeline);
  int device = -1;

  if (conv) {
    GstQuery *query = gst_query_new_context ("gst.cuda.context");
    GstContext *context = NULL;
    guint id = 0;

    if (gst_element_query (conv, query)) {
      gst_query_parse_context (query, &context);
      if (context && gst_structure_get_uint (gst_context_get_structure
              (context), "cuda-device-id", &id))
        device = (int) id;
    }
    gst_query_unref (query);
    gst_object_unref (conv);
  }
  return device;
}

/* The stats property of the pipeline's first cudaconv, as frames and
 * microseconds (regions, queue, finish); FALSE where it has none. */
static gboolean
cudaconv_stats (GstElement * pipeline, guint64 v[4])
{
  GstElement *conv = first_cudaconv (pipeline);
  GstStructure *stats = NULL;
  gboolean ok;

  if (conv && g_object_class_find_property (G_OBJECT_GET_CLASS (conv),
          "stats"))
    g_object_get (conv, "stats", &stats, NULL);
  ok = stats && gst_structure_get_uint64 (stats, "frames", &v[0])
      && gst_structure_get_uint64 (stats, "regions-us", &v[1])
      && gst_structure_get_uint64 (stats, "queue-us", &v[2])
      && gst_structure_get_uint64 (stats, "finish-us", &v[3]);
  if (stats)
    gst_structure_free (stats);
  if (conv)
    gst_object_unref (conv);
  return ok;
}

double
pipeline_run (const char *middle, const char *format, int w, int h,
    FeedMode mode, int frames, RunWindow * window)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! %s ! appsink name=sink "
      "sync=false", middle);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *src, *sink;
  GstCaps *caps;
  GstBus *bus;
  GstMessage *msg;
  Feeder feeder = { 0 };
  GThread *thread;
  gint64 t0 = 0, t1 = 0;
  int got = 0;
  double fps = -1.0;
  guint64 stats0[4], stats1[4];
  gboolean have_stats = FALSE;

  g_free (desc);
  if (window) {
    window->cuda_device = -1;
    window->host_us[0] = window->host_us[1] = window->host_us[2] = -1.0;
  }
  /* a missing element leaves a pipeline without it, and an error */
  if (err) {
    fprintf (stderr, "pipeline: %s\n", err->message);
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return -1.0;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (window && window->cuda_context) {
    GstBus *sync_bus = gst_element_get_bus (pipeline);
    gst_bus_set_sync_handler (sync_bus, share_cuda_context,
        window->cuda_context, NULL);
    gst_object_unref (sync_bus);
  }
  if (window && window->refuse_crop_meta) {
    GstElement *crop = gst_bin_get_by_name (GST_BIN (pipeline), "crop");
    if (crop) {
      GstPad *pad = gst_element_get_static_pad (crop, "src");
      /* PULL: called when the query comes back answered */
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
          GST_PAD_PROBE_TYPE_PULL, refuse_crop_probe, NULL, NULL);
      gst_object_unref (pad);
      gst_object_unref (crop);
    }
  }
  gst_video_info_set_format (&feeder.info,
      gst_video_format_from_string (format), w, h);
  feeder.info.fps_n = 30;
  feeder.info.fps_d = 1;
  caps = feeder_caps (&feeder.info, mode);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  gst_caps_unref (caps);
  feeder.src = GST_APP_SRC (src);
  feeder.mode = mode;
  for (int k = 0; k < FOREIGN_BUFFERS; k++) {
    feeder.foreign[k] = gst_buffer_new_allocate (NULL, feeder.info.size, NULL);
    fill_random (feeder.foreign[k]);
  }
  feeder.frames = frames;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    feeder.frames = 0;          /* the bus holds the reason */
  /* the elements have started (made their CUDA contexts) by now; the
   * sink prerolls on the first frame */
  if (window && window->gate)
    start_gate_pass (window->gate);
  if (window) {
    feeder.warm_gate = window->warm_gate;
    feeder.roi_metas = window->roi_metas;
  }
  thread = g_thread_new ("feeder", feed, &feeder);
  for (GstSample * s; feeder.frames > 0
      && (s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND));) {
    got++;
    if (got == WARMUP_OUTPUTS) {
      t0 = g_get_monotonic_time ();
      have_stats = cudaconv_stats (pipeline, stats0);
    }
    if (got == WARMUP_OUTPUTS && window && window->warm_gate)
      gate_arrive (window->warm_gate);
    t1 = g_get_monotonic_time ();
    if (window && window->times && got <= frames)
      window->times[got - 1] = t1;
    gst_sample_unref (s);
  }
  if (window)
    window->cuda_device = cudaconv_device (pipeline);
  /* the host's time a frame over the timed outputs' frames */
  if (window && have_stats && cudaconv_stats (pipeline, stats1)
      && stats1[0] > stats0[0])
    for (int k = 0; k < 3; k++)
      window->host_us[k] = (double) (stats1[k + 1] - stats0[k + 1])
          / (double) (stats1[0] - stats0[0]);
  g_atomic_int_set (&feeder.stop, 1);
  if (g_atomic_pointer_get (&feeder.pool))
    gst_buffer_pool_set_flushing (feeder.pool, TRUE);
  g_thread_join (thread);

  bus = gst_element_get_bus (pipeline);
  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      fprintf (stderr, "%s: %s\n", middle, err->message);
      g_clear_error (&err);
      got = 0;
    }
    gst_message_unref (msg);
  }
  if (feeder.frames > 0 && got == feeder.frames && got > WARMUP_OUTPUTS
      && t1 > t0) {
    fps = (got - WARMUP_OUTPUTS) / ((t1 - t0) / 1e6);
    if (window) {
      window->outputs = got - WARMUP_OUTPUTS;
      window->start = t0;
      window->end = t1;
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (feeder.pool) {
    gst_buffer_pool_set_active (feeder.pool, FALSE);
    gst_object_unref (feeder.pool);
  }
  for (int k = 0; k < FOREIGN_BUFFERS; k++)
    gst_buffer_unref (feeder.foreign[k]);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return fps;
}

double
pipeline_fps (const char *middle, const char *format, int w, int h,
    FeedMode mode, int frames)
{
  return pipeline_run (middle, format, w, h, mode, frames, NULL);
}

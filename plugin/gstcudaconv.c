/* cudaconv: 2D convolution of raw video on NVIDIA GPUs, with a CPU fallback.
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Library General Public License as published by
 * the Free Software Foundation; either version 2 of the License, or (at your
 * option) any later version.
 */

/**
 * SECTION:element-cudaconv
 * @title: cudaconv
 *
 * Convolves each plane of raw video with a 2D filter on an NVIDIA GPU: blur,
 * sharpen, edge detection, emboss or a matrix of your own, with a choice of
 * border policy. Without a usable GPU the element filters on the CPU
 * instead (backend=auto) and says so on the bus. Frames in CUDA memory
 * (NVDEC decoders, cudaupload) are filtered where they are. The README
 * describes the filters, the formats, crops, interlacing, latency and the
 * messages the element posts; docs/architecture.md how a frame goes through
 * it.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! cudaconv kernel=gaussian radius=3 ! videoconvert ! autovideosink
 * ]| Blurs a webcam picture with a 7x7 gaussian.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! cudaconv kernel=custom matrix="0,-1,0;-1,5,-1;0,-1,0" border=mirror ! videoconvert ! autovideosink
 * ]| Sharpens with a custom 3x3 matrix, mirroring the frame at its edges.
 * |[
 * gst-launch-1.0 filesrc location=in.h264 ! h264parse ! nvh264dec ! cudaconv kernel=gaussian radius=2 ! cudadownload ! videoconvert ! autovideosink
 * ]| Blurs decoded H.264 in GPU memory: the frames cross the bus once.
 */

/* The element is GStreamer-facing only: negotiation, allocation, and one
 * call per frame into the back end chosen in start (cudaconv-backend.h,
 * gstcudaconv-backend.c). Its properties live in gstcudaconv-settings.c,
 * its side of CUDA memory in gstcudaconv-cuda-memory.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv.h"
#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif
#include "gstcudaconv-cuda-memory.h"
#include "cudaconv-frame-check.h"
#include "cudaconv-presets.h"

GST_DEBUG_CATEGORY (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* async-depth=0 on a non-live stream: copy-in, kernels and copy-out of three
 * frames at once */
#define AUTO_ASYNC_DEPTH 3

/* In the order the element prefers them: what cameras and decoders deliver
 * first (8-bit 4:2:0 and packed 4:2:2), then the other 8-bit layouts, then
 * the deeper formats, where 10-bit 4:2:0 from hardware decoders leads. */
#define CUDACONV_SAMPLE_FORMATS "I420, NV12, YUY2, UYVY, YV12, NV21, YVYU, " \
  "VYUY, Y42B, NV16, NV61, Y444, NV24, Y41B, AYUV, RGBA, BGRA, ARGB, ABGR, " \
  "RGBx, BGRx, xRGB, xBGR, RGB, BGR, GBR, GBRA, RGBP, BGRP, GRAY8, " \
  "P010_10LE, I420_10LE, P012_LE, I420_12LE, P016_LE, Y210, I422_10LE, " \
  "I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, A420_10LE, A422_10LE, " \
  "A444_10LE, AYUV64, ARGB64, GBR_10LE, GBR_12LE, GBRA_10LE, GBRA_12LE, " \
  "GRAY16_LE"
/* formats whose samples share 32-bit words (cudaconv-word-packed.h) */
#define CUDACONV_WORD_PACKED_FORMATS "v210, Y410, RGB10A2_LE, BGR10A2_LE"
#define CUDACONV_FORMATS "{ " CUDACONV_SAMPLE_FORMATS ", " \
  CUDACONV_WORD_PACKED_FORMATS " }"

/* Frames in CUDA memory first, where the build has GStreamer's CUDA
 * library (filtered where they are; the word-packed formats only in system
 * memory), then system memory, then the same formats as single fields
 * (interlace-mode=alternate), each buffer a field filtered as a frame. */
#define CUDACONV_CAPS \
  GST_CUDACONV_CUDA_MEMORY_CAPS ("{ " CUDACONV_SAMPLE_FORMATS " }") \
  GST_VIDEO_CAPS_MAKE (CUDACONV_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_FORMAT_INTERLACED, \
      CUDACONV_FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CUDACONV_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CUDACONV_CAPS));

#define gst_cudaconv_parent_class parent_class
G_DEFINE_TYPE (GstCudaConv, gst_cudaconv, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaconv, "cudaconv", GST_RANK_NONE,
    GST_TYPE_CUDACONV, GST_DEBUG_CATEGORY_INIT (gst_cudaconv_debug, "cudaconv",
        0, "CUDA convolution filter"));


static GstFlowReturn drain (GstCudaConv * self);

static gboolean
gst_cudaconv_start (GstBaseTransform * trans)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstCudaConvSettings s;
  gchar *rejected;
  gboolean filter_valid;
  guint cookie;
  GError *err = NULL;

  GST_OBJECT_LOCK (self);
  s = self->settings;
  cookie = self->settings_cookie;
  rejected = g_strdup (self->rejected_setting);
  filter_valid = self->settings_filter_valid;
  if (filter_valid)
    self->unscaled_filter = self->settings_filter;
  GST_OBJECT_UNLOCK (self);

  if (rejected)
    goto rejected_setting;
  /* only kernel=custom without a matrix gets here: the settings say so */
  if (!filter_valid && !gst_cudaconv_settings_filter (&s,
          &self->unscaled_filter, &err))
    goto bad_filter;
  self->filter_cookie = cookie;
  self->job_stale = TRUE;
  self->n_threads = (gint) g_get_num_processors ();
  self->invalid_buffers = 0;
  self->bad_regions_warned = FALSE;
  self->merged_regions_warned = FALSE;
  gst_cudaconv_stats_reset (self);
  cudaconv_region_history_clear (self->region_history);
  self->backend = gst_cudaconv_open_backend (self, &s, &err);
  if (!self->backend)
    goto no_cuda;
  GST_ELEMENT_INFO (self, LIBRARY, INIT, ("Using the %s backend on %s",
          self->backend->ops->name, self->backend->ops->describe
          (self->backend)), ("cudaconv: using the %s backend on %s",
          self->backend->ops->name,
          self->backend->ops->describe (self->backend)));

  GST_OBJECT_LOCK (self);
  self->backend_capabilities = self->backend->capabilities;
  self->started = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;

  /* ERRORS */
rejected_setting:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid property value: %s",
            rejected), (NULL));
    g_free (rejected);
    return FALSE;
  }
bad_filter:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", err->message), (NULL));
    g_error_free (err);
    return FALSE;
  }
no_cuda:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("backend=cuda, but no CUDA device is usable: %s", err->message),
        ("use backend=auto to fall back to the CPU"));
    g_error_free (err);
    return FALSE;
  }
}

static gboolean
gst_cudaconv_stop (GstBaseTransform * trans)
{
  GstCudaConv *self = GST_CUDACONV (trans);

  cudaconv_backend_close (self->backend);
  self->backend = NULL;
  gst_clear_object (&self->cuda_context);
  gst_cudaconv_release_device (self);
  GST_OBJECT_LOCK (self);
  self->started = FALSE;
  self->backend_capabilities = 0;
  self->max_in_flight = 0;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
upstream_is_live (GstCudaConv * self)
{
  GstQuery *query = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query))
    gst_query_parse_latency (query, &live, NULL, NULL);
  gst_query_unref (query);
  return live;
}

/* The same video on the other pad, ordered by memory
 * (gst_cudaconv_order_caps_by_memory); the CPU backend offers no CUDA
 * memory. */
static GstCaps *
gst_cudaconv_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstCaps *result = GST_BASE_TRANSFORM_CLASS (parent_class)->transform_caps
      (trans, direction, caps, NULL);
  gboolean host_only;

  GST_OBJECT_LOCK (self);
  host_only = self->started
      && !(self->backend_capabilities & CUDACONV_BACKEND_DEVICE_MEMORY);
  GST_OBJECT_UNLOCK (self);
  result = gst_cudaconv_order_caps_by_memory (result, !host_only);
  if (result && filter) {
    GstCaps *filtered = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = filtered;
  }
  GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps,
      result);
  return result;
}

/* The same memory on both pads wherever the other pad allows it, whatever
 * order its peer listed the memories in. */
static GstCaps *
gst_cudaconv_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  othercaps = gst_cudaconv_prefer_same_memory (caps, othercaps);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
}

/* GstVideoFilter makes an element without transform_frame in-place; every
 * frame here goes through generate_output instead, which decides per frame
 * whether it gets an output buffer of its own or, filtered in its regions
 * only, is written in place. */
static gboolean
gst_cudaconv_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps,
          outcaps))
    return FALSE;
  gst_base_transform_set_in_place (trans, FALSE);
  return TRUE;
}

/* The layout of the caps and the back end configured for them, like
 * videoflip's configure_process: every frame then takes the path chosen
 * here. */
static gboolean
gst_cudaconv_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstCudaConv *self = GST_CUDACONV (filter);
  CudaConvStreamConfig config;
  GError *err = NULL;
  guint max_in_flight, before;

  GST_OBJECT_LOCK (self);
  max_in_flight = self->settings.async_depth;
  GST_OBJECT_UNLOCK (self);
  self->live = upstream_is_live (self);
  config.max_in_flight = max_in_flight > 0 ? max_in_flight :
      (self->live ? 1 : AUTO_ASYNC_DEPTH);
  /* a downstream reconfigure sets the same caps again: the frames in
   * flight go out first, in the layout they were made for */
  if (drain (self) != GST_FLOW_OK)
    self->backend->ops->discard (self->backend);
  self->in_cuda_memory = gst_cudaconv_caps_in_cuda_memory (incaps);
  self->out_cuda_memory = gst_cudaconv_caps_in_cuda_memory (outcaps);
  GST_OBJECT_LOCK (self);
  self->changes_memory = self->in_cuda_memory != self->out_cuda_memory;
  GST_OBJECT_UNLOCK (self);
  /* transform_caps offers CUDA memory only to a back end that takes it */
  if ((self->in_cuda_memory || self->out_cuda_memory)
      && !(self->backend->capabilities & CUDACONV_BACKEND_DEVICE_MEMORY))
    goto no_cuda_backend;
  cudaconv_layout_make (&self->layout, in_info);
  /* regions held are of the previous frame size */
  cudaconv_region_history_clear (self->region_history);
  /* the plan and the filter's scale are the layout's */
  self->job_stale = TRUE;
  config.layout = &self->layout;
  config.in_device = self->in_cuda_memory;
  config.out_device = self->out_cuda_memory;
  if (!self->backend->ops->configure (self->backend, &config, &err))
    goto configure_failed;
  GST_DEBUG_OBJECT (self, "%s stream: %u frame(s) in flight on the %s "
      "backend", self->live ? "live" : "non-live", self->backend->max_in_flight,
      self->backend->ops->name);
  GST_OBJECT_LOCK (self);
  before = self->max_in_flight;
  self->max_in_flight = self->backend->max_in_flight;
  GST_OBJECT_UNLOCK (self);
  /* frames in flight add latency, which the pipeline asks for again */
  if (before != self->backend->max_in_flight)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  gst_cudaconv_update_passthrough (self);
  return TRUE;

  /* ERRORS */
no_cuda_backend:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Frames in CUDA memory need the CUDA backend, and this element runs "
            "on the CPU"), (NULL));
    return FALSE;
  }
configure_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not set up the %s backend for %s %dx%d: %s",
            self->backend->ops->name, GST_VIDEO_INFO_NAME (in_info),
            GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
            err ? err->message : "no reason given"), (NULL));
    g_clear_error (&err);
    return FALSE;
  }
}

/* A crop meta whose picture stays where it was goes on with the frame (the
 * picture is filtered inside it); one whose picture was taken out of a
 * larger buffer has been applied. Other metas as GstVideoFilter decides
 * (those with no tags or the video tag only). The buffer's crop is the one
 * the frame check classified before the output buffer was made. */
static gboolean
gst_cudaconv_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  if (meta->info->api == GST_VIDEO_CROP_META_API_TYPE)
    return GST_CUDACONV (trans)->input_crop != CUDACONV_CROP_PICTURE;
  /* the regions detectors found are where they were (the filter moves no
   * pixel), for the elements after this one: encoders, overlays */
  if (meta->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE
#ifdef HAVE_GST_ANALYTICS
      || meta->info->api == GST_ANALYTICS_RELATION_META_API_TYPE
#endif
      )
    return GST_CUDACONV (trans)->input_crop != CUDACONV_CROP_PICTURE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_meta (trans,
      outbuf, meta, inbuf);
}

/* Lets a GstController drive the controllable properties. */
static void
gst_cudaconv_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClockTime stream_time;

  /* a source without a parser (multifilesrc) sends a BYTES segment: no
   * stream time, nothing to animate */
  if (trans->segment.format != GST_FORMAT_TIME)
    return;
  stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_TIMESTAMP (buffer));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

/* Takes the filter of settings that changed while the element runs
 * (settings_filter, NULL when kernel=custom was set before any matrix: the
 * previous filter stays) and says on the bus what it cannot do. */
static void
take_filter (GstCudaConv * self, const GstCudaConvSettings * s,
    const CcFilter * settings_filter)
{
  GError *err = NULL;

  if (!settings_filter) {
    CcFilter none;
    if (!gst_cudaconv_settings_filter (s, &none, &err))
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s", err->message),
          ("the previous filter stays in effect"));
    g_clear_error (&err);
    return;
  }
  self->unscaled_filter = *settings_filter;
  if (s->strategy == CC_STRATEGY_SEPARABLE
      && !cc_filter_is_separable (settings_filter)
      && (self->backend->capabilities & CUDACONV_BACKEND_STRATEGIES))
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("strategy=separable, but this filter is not separable; using "
            "tiled-halo"), (NULL));
}

/* What this frame runs with: the settings as they are now. The filter
 * (its offset scaled to the caps' depth) and the plan of the components
 * are remade only when the settings or the caps changed; the buffer's
 * fields, crop and regions are set by frame_buffer. */
static void
frame_job (GstCudaConv * self, CudaConvJob * job)
{
  GstCudaConvSettings s;
  CcFilter settings_filter;
  gboolean changed, filter_valid = FALSE;
  guint cookie;

  GST_OBJECT_LOCK (self);
  cookie = self->settings_cookie;
  changed = cookie != self->filter_cookie;
  if (changed || self->job_stale) {
    s = self->settings;
    /* the job's own reference to the shared fixed boxes */
    if (s.region_rules.boxes)
      g_bytes_ref (s.region_rules.boxes);
    filter_valid = self->settings_filter_valid;
    if (changed && filter_valid)
      settings_filter = self->settings_filter;
  }
  GST_OBJECT_UNLOCK (self);

  if (changed) {
    take_filter (self, &s, filter_valid ? &settings_filter : NULL);
    self->filter_cookie = cookie;
  }
  if (changed || self->job_stale) {
    const CudaConvRunOptions options = { s.strategy, s.host_register };

    g_clear_pointer (&self->job_settings.region_rules.boxes, g_bytes_unref);
    self->job_settings = s;
    self->filter = self->unscaled_filter;
    self->filter.offset *= self->layout.offset_scale;
    cudaconv_plan_make (&self->plan, &self->layout, s.channels,
        s.gray_edges && cudaconv_kernel_is_edge_map (s.kernel));
    for (guint r = 0; r <= CC_MAX_WIDE_RADIUS; r++)
      g_clear_pointer (&self->radius_filters[r], g_free);
    self->backend->ops->set_options (self->backend, &options);
    self->job_stale = FALSE;
  }
  job->filter = &self->filter;
  job->border = (CcBorder) self->job_settings.border;
  job->plan = &self->plan;
  job->region_filters = self->region_filters;
  job->in_place = FALSE;
}

/* The region mode frames run with: that of the settings frame_job took
 * last. */
static CudaConvRegionMode
region_mode (GstCudaConv * self)
{
  return (CudaConvRegionMode) self->job_settings.region_mode;
}

/* What the buffer says of its frame: fields and crop, and what the
 * regions gst_cudaconv_frame_regions found cover of it. */
static void
frame_buffer (GstCudaConv * self, CudaConvJob * job, GstBuffer * inbuf,
    const CudaConvCrop * crop)
{
  cudaconv_plan_set_buffer (&self->plan, inbuf, crop, region_mode (self));
  job->coverage = gst_cudaconv_frame_coverage (self, job->border);
}

/* Drops the frames in flight after the back end failed and says why. */
static GstFlowReturn
backend_failed (GstCudaConv * self, GError * err)
{
  self->backend->ops->discard (self->backend);
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s backend failed: %s",
          self->backend->ops->name, err ? err->message : "no reason given"),
      (NULL));
  g_clear_error (&err);
  return GST_FLOW_ERROR;
}

/* Pushes every frame still in flight, oldest first. */
static GstFlowReturn
drain (GstCudaConv * self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GError *err = NULL;

  while (self->backend && self->backend->ops->in_flight (self->backend) > 0) {
    const gint64 start = g_get_monotonic_time ();
    GstBuffer *out;
    if (!self->backend->ops->finish_oldest (self->backend, &out, &err))
      return backend_failed (self, err);
    gst_cudaconv_stats_add (self, 0, 0, 0, g_get_monotonic_time () - start);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
    else
      gst_buffer_unref (out);   /* downstream stopped taking them */
  }
  return ret;
}

/* A GAP buffer says there is no picture for its time (its bytes may be
 * anything, or none): it goes on as a GAP event, after the frames in
 * flight. */
static GstFlowReturn
forward_gap (GstCudaConv * self, GstBuffer * inbuf)
{
  const GstClockTime pts = GST_BUFFER_PTS (inbuf);
  const GstClockTime duration = GST_BUFFER_DURATION (inbuf);
  GstFlowReturn ret = drain (self);

  gst_buffer_unref (inbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  if (GST_CLOCK_TIME_IS_VALID (pts))
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (self),
        gst_event_new_gap (pts, duration));
  return GST_BASE_TRANSFORM_FLOW_DROPPED;
}

/* A buffer that does not hold a frame of the caps is dropped with a
 * warning rather than failing the stream: in live video a short read or a
 * truncated frame should cost one frame, not the pipeline. The warning
 * repeats at most once a second, with the count so far. */
static GstFlowReturn
drop_invalid_input (GstCudaConv * self, GstBuffer * inbuf, GError * err)
{
  const gint64 now = g_get_monotonic_time ();

  self->invalid_buffers++;
  if (self->invalid_buffers == 1
      || now - self->invalid_warned_at >= G_USEC_PER_SEC) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Dropped an invalid input buffer: %s", err->message),
        ("%u invalid input buffers dropped so far; this warning repeats at "
            "most once a second", self->invalid_buffers));
    self->invalid_warned_at = now;
  } else {
    GST_DEBUG_OBJECT (self, "dropped an invalid input buffer: %s",
        err->message);
  }
  g_error_free (err);
  gst_buffer_unref (inbuf);
  return GST_BASE_TRANSFORM_FLOW_DROPPED;
}

/* A buffer in passthrough goes on as it is, after the frames queued before
 * passthrough began. Done here rather than by GstBaseTransform, which
 * would look at passthrough again, and another thread may have switched it
 * off since. */
static GstFlowReturn
pass_through (GstCudaConv * self, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstFlowReturn ret = drain (self);

  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  *outbuf = inbuf;
  return GST_FLOW_OK;
}

/* Every buffer that is not passed through comes here, in place of
 * GstVideoFilter's transform (which pushes an unwritten output buffer when
 * it cannot map a frame): check the input, map it, take and map an output
 * buffer, and submit both to the back end, which hands back the oldest
 * frame's output once async-depth frames are in flight (at once, on the
 * CPU). */
static GstFlowReturn
gst_cudaconv_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstBuffer *inbuf = trans->queued_buf, *out = NULL;
  GstVideoFrame in_frame, out_frame;
  CudaConvCrop crop, out_crop;
  CudaConvJob job;
  GstFlowReturn ret;
  GError *err = NULL;
  CudaConvRegionMode mode;
  CudaConvSubmitTimes times;
  gint64 regions_us = 0, start;

  *outbuf = NULL;
  if (!inbuf)
    return GST_FLOW_OK;
  trans->queued_buf = NULL;
  if (gst_base_transform_is_passthrough (trans))
    return pass_through (self, inbuf, outbuf);

  if (GST_BUFFER_FLAG_IS_SET (inbuf, GST_BUFFER_FLAG_GAP))
    return forward_gap (self, inbuf);
  frame_job (self, &job);
  mode = region_mode (self);
  if (mode != CUDACONV_REGION_MODE_FRAME) {
    start = g_get_monotonic_time ();
    gst_cudaconv_frame_regions (self, inbuf);
    regions_us = g_get_monotonic_time () - start;
    if (mode == CUDACONV_REGION_MODE_INSIDE
        && gst_cudaconv_nothing_to_hide (self, inbuf))
      return pass_through (self, inbuf, outbuf);
  }
  /* a writable buffer filtered in its regions only is its own output: the
   * rest of it stays where it is */
  job.in_place = mode == CUDACONV_REGION_MODE_INSIDE
      && self->in_cuda_memory == self->out_cuda_memory
      && gst_buffer_is_writable (inbuf);
  if (self->in_cuda_memory && !gst_cudaconv_check_cuda_buffer
      (self->cuda_context, inbuf, FALSE, &err))
    goto not_cuda_memory;
  /* the kernels write device memory of their own context only */
  if (job.in_place && self->in_cuda_memory)
    job.in_place = gst_cudaconv_check_cuda_buffer (self->cuda_context, inbuf,
        TRUE, NULL);
  if (!cudaconv_frame_map_checked (&in_frame, &self->layout, inbuf,
          GST_MAP_READ | (job.in_place ? GST_MAP_WRITE : 0) |
          gst_cudaconv_map_flag (self->in_cuda_memory), &crop, &err))
    return drop_invalid_input (self, inbuf, err);
  start = g_get_monotonic_time ();
  frame_buffer (self, &job, inbuf, &crop);
  if (mode != CUDACONV_REGION_MODE_FRAME)
    regions_us += g_get_monotonic_time () - start;
  /* a picture taken out of a larger buffer leaves as a buffer of its own */
  if (job.in_place && crop.kind != CUDACONV_CROP_PICTURE) {
    gst_buffer_unref (inbuf);
    out_frame = in_frame;
    goto submit;
  }
  job.in_place = FALSE;
  /* transform_meta, which prepare_output_buffer calls, reads it */
  self->input_crop = crop.kind;
  ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      inbuf, &out);
  /* passthrough switched on since the check above: the input is the
   * output, and goes on as it is */
  if (ret == GST_FLOW_OK && out == inbuf) {
    gst_video_frame_unmap (&in_frame);
    return pass_through (self, inbuf, outbuf);
  }
  /* the mapped frames hold their buffers until the frame is done */
  gst_buffer_unref (inbuf);
  if (ret != GST_FLOW_OK || !out)
    goto no_output;
  if (self->out_cuda_memory && !gst_cudaconv_check_cuda_buffer
      (self->cuda_context, out, TRUE, &err))
    goto bad_output;
  if (!cudaconv_frame_map_checked (&out_frame, &self->layout, out,
          GST_MAP_WRITE | gst_cudaconv_map_flag (self->out_cuda_memory),
          &out_crop, &err))
    goto bad_output;
  gst_buffer_unref (out);
  /* device memory: the kernels and copies write every sample, padding
   * stays as the pool made it */
  if (!self->out_cuda_memory)
    cudaconv_frame_zero_new_memory (&out_frame);

submit:
  if (!cudaconv_backend_submit (self->backend, &job, &in_frame, &out_frame,
          outbuf, &times, &err))
    return backend_failed (self, err);
  gst_cudaconv_stats_add (self, 1, regions_us, times.queue_us,
      times.finish_us);
  return GST_FLOW_OK;

  /* ERRORS */
no_output:
  {
    gst_video_frame_unmap (&in_frame);
    return ret == GST_FLOW_OK ? GST_FLOW_ERROR : ret;
  }
not_cuda_memory:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot filter the input buffer: %s", err->message),
        ("upstream negotiated memory:CUDAMemory and sent another kind"));
    g_error_free (err);
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
bad_output:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The output buffer cannot hold a frame: %s", err->message),
        ("the output buffer pool or allocator gave a buffer that does not "
            "match the caps"));
    g_error_free (err);
    gst_video_frame_unmap (&in_frame);
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
}

/* Frames in flight leave before anything that follows them in the stream
 * (EOS, caps, segments); a flush drops them. */
static gboolean
gst_cudaconv_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaConv *self = GST_CUDACONV (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    if (self->backend)
      self->backend->ops->discard (self->backend);
    /* held regions belong to the frames before the seek */
    cudaconv_region_history_clear (self->region_history);
  } else if (GST_EVENT_IS_SERIALIZED (event)) {
    drain (self);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_cudaconv_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  guint max_in_flight = 0;
  gboolean ret;

  if (gst_cudaconv_handle_context_query (GST_ELEMENT (self), query,
          self->cuda_context))
    return TRUE;
  /* buffers we hold go back to upstream's pool before it is drained */
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query))
    drain (self);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GST_OBJECT_LOCK (self);
    max_in_flight = self->max_in_flight;
    GST_OBJECT_UNLOCK (self);
  }
  /* output leaves max_in_flight - 1 frames after its input */
  if (ret && max_in_flight > 1 && !gst_base_transform_is_passthrough (trans)) {
    gboolean live;
    GstClockTime min, max, held = 0;
    gst_query_parse_latency (query, &live, &min, &max);
    if (filter->in_info.fps_n > 0)
      held = gst_util_uint64_scale_int ((max_in_flight - 1) * GST_SECOND,
          filter->in_info.fps_d, filter->in_info.fps_n);
    if (live) {
      min += held;
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += held;
    }
    gst_query_set_latency (query, live, min, max);
  }
  return ret;
}

/* A CUDA context from the application or a neighbour, taken when it is
 * for our device-id (any, for -1) and we have none yet. */
static void
gst_cudaconv_set_context (GstElement * element, GstContext * context)
{
  GstCudaConv *self = GST_CUDACONV (element);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);
  gst_cudaconv_handle_set_context (element, context, device_id,
      &self->cuda_context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static void
gst_cudaconv_finalize (GObject * object)
{
  GstCudaConv *self = GST_CUDACONV (object);

  g_free (self->matrix_text);
  g_free (self->region_types_text);
  g_free (self->region_boxes_text);
  g_clear_pointer (&self->settings.region_rules.boxes, g_bytes_unref);
  g_clear_pointer (&self->job_settings.region_rules.boxes, g_bytes_unref);
  g_free (self->rejected_setting);
  cudaconv_region_history_free (self->region_history);
  cudaconv_coverage_free (self->coverage);
  g_free (self->regions);
  g_free (self->region_filters);
  for (guint r = 0; r <= CC_MAX_WIDE_RADIUS; r++)
    g_free (self->radius_filters[r]);
  /* a context made by a start that failed, or given by set_context */
  gst_clear_object (&self->cuda_context);
  g_mutex_clear (&self->passthrough_lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cudaconv_class_init (GstCudaConvClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cudaconv_set_property;
  gobject_class->get_property = gst_cudaconv_get_property;
  gobject_class->finalize = gst_cudaconv_finalize;
  gst_cudaconv_settings_install (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cudaconv_set_context);
  gst_element_class_set_static_metadata (element_class,
      "CUDA convolution filter", "Filter/Effect/Video",
      "Convolves video with blur, sharpen, edge or custom filters on an "
      "NVIDIA GPU, or on the CPU without one; the pad templates list the "
      "formats it takes in its order of preference",
      "cudaconv developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cudaconv_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cudaconv_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cudaconv_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cudaconv_fixate_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cudaconv_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cudaconv_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cudaconv_decide_allocation);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cudaconv_before_transform);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cudaconv_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cudaconv_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cudaconv_query);
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cudaconv_transform_meta);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cudaconv_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_KERNEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_BORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_STRATEGY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_CHANNELS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_REGION_MODE, 0);
}

static void
gst_cudaconv_init (GstCudaConv * self)
{
  gst_cudaconv_settings_init (self);
  self->device = -1;
  g_mutex_init (&self->passthrough_lock);
  self->region_history = cudaconv_region_history_new ();
  self->coverage = cudaconv_coverage_new ();
  /* the instance is at most 64 KiB: the regions live beside it */
  self->regions = g_new0 (CudaConvRegionSet, 1);
  self->region_filters = g_new0 (const CcFilter *, CUDACONV_MAX_REGIONS);
}

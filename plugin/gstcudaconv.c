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
 * sharpen, edge detection, emboss or a matrix of your own. Frames travel
 * through page-locked host memory to the GPU and back; without a usable GPU
 * the element filters on the CPU instead (backend=auto) and says so on the
 * bus.
 *
 * Every output sample is
 * `saturate (round (sum (w[i][j] * in[y + i - r][x + j - r]) / divisor + offset))`
 * where r is the filter's radius and the sum runs over the (2r+1)^2 weights.
 * Samples outside the frame come from the border policy. Planes are filtered
 * in their own sample grid: subsampled chroma at its own size, NV12's
 * interleaved U and V separately, packed 4:2:2 and packed RGB per channel.
 * Samples of 10 to 16 bits are rounded in their own units and saturated to
 * their depth (a 10-bit sample never exceeds 1023; MSB-aligned ones, as in
 * P010, keep their padding bits zero); the offset is on the 8-bit scale and
 * scaled to the depth. The pad templates list the formats in the order the
 * element prefers them: 8-bit 4:2:0 and packed 4:2:2 first. The
 * word-packed 10-bit formats (v210, Y410, RGB10A2_LE, BGR10A2_LE) are
 * filtered through a planar 16-bit copy, made on the GPU with the CUDA
 * backend (where they overlap like the other formats). Alpha is copied
 * unless the channels property names it. Edge presets on YUV formats produce
 * a gray edge map (neutral chroma) unless gray-edges=false.
 *
 * Interleaved interlaced frames are filtered field by field, each field a
 * plane of its own; in interlace-mode=alternate (caps feature
 * format:Interlaced) each buffer is one field, filtered as a frame.
 *
 * A GstVideoCropMeta of the caps' size in a larger buffer (a decoder's
 * 1080 rows of 1088, videocrop) is applied: the picture is read from its
 * rectangle, filtered with the borders at the rectangle's edges, and the
 * output is the picture alone, with no crop meta. A crop rectangle inside
 * the caps' frame stays on the frame, the picture inside it filtered and
 * the rest copied unchanged. Upstream is told that crop metas are taken
 * whenever frames are filtered.
 *
 * On the GPU, frames of a non-live stream overlap: while one frame's
 * kernels run, the next one is copied in and the previous one copied out,
 * so output leaves async-depth - 1 frames after its input arrives. Live
 * streams (the upstream latency query says so) take one frame at a time and
 * add no latency beyond the processing itself. Input buffers that are not
 * the element's pinned memory are registered with CUDA once per buffer and
 * reused while upstream recycles them (host-register), or copied through
 * pinned staging when that fails or buffers do not come back.
 *
 * kernel, radius, sigma, matrix, divisor, offset, border, strategy, channels,
 * gray-edges and host-register may change while PLAYING and apply from the
 * next frame; the numeric ones, kernel, border and strategy can be driven
 * by a GstController. A number outside its property's range (NaN included)
 * is refused by GObject with its usual warning, and the previous value
 * stays. What the element judges itself, a malformed matrix or weights too
 * large for single-precision sums, is refused with a warning on the bus
 * while it runs; given before it starts (as on a gst-launch-1.0 command
 * line), it makes the element fail to start with an error naming the
 * problem.
 *
 * In a pipeline of CUDA elements (NVDEC decoders, cudaupload, cudadownload)
 * both pads also take `video/x-raw(memory:CUDAMemory)`, first: frames in
 * CUDA memory are filtered where they are, in the GstCudaContext the
 * element shares with its neighbours (device-id chooses the device as
 * theirs does). Each side may be CUDA or system memory on its own, so the
 * element also uploads or downloads while it filters; it prefers the
 * memory of the other side. Input in CUDA memory of another context or
 * device is copied into the element's own first. A buffer leaves only
 * after the kernels that write it have finished.
 *
 * An input buffer that does not hold a frame of the negotiated caps (too
 * short, or a video meta whose planes reach past the buffer's memory) is
 * dropped with a warning that says what is wrong, at most one a second: in
 * live video a bad buffer costs its frame, not the pipeline. A GAP buffer
 * goes on as a GAP event.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! cudaconv kernel=gaussian radius=3 ! videoconvert ! autovideosink
 * ]| Blurs a webcam picture with a 7x7 gaussian.
 * |[
 * gst-launch-1.0 v4l2src ! cudaconv kernel=sobel ! videoconvert ! autovideosink
 * ]| Shows the webcam's edges as a gray gradient-magnitude map.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! cudaconv kernel=custom matrix="0,-1,0;-1,5,-1;0,-1,0" border=mirror ! videoconvert ! autovideosink
 * ]| Sharpens with a custom 3x3 matrix, mirroring the frame at its edges.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,format=RGBA ! cudaconv kernel=box radius=5 channels=r+g+b+a backend=cpu ! fakesink
 * ]| Box blur of all four RGBA channels on the CPU.
 * |[
 * gst-launch-1.0 filesrc location=in.h264 ! h264parse ! nvh264dec ! cudaconv kernel=gaussian radius=2 ! cudadownload ! videoconvert ! autovideosink
 * ]| Blurs decoded H.264 in GPU memory: the frames cross the bus once.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>

#include "gstcudaconv.h"
#include "cudaconv-presets.h"
#include "cudaconv-matrix.h"
#include "cudaconv-plan.h"
#include "cudaconv-word-packed.h"
#include "cudaconv-cpu-backend.h"
#include "cudaconv-frame-check.h"
#include "cudaconv-cuda-context.h"
#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

GST_DEBUG_CATEGORY (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

enum {
  PROP_0,
  PROP_KERNEL,
  PROP_RADIUS,
  PROP_SIGMA,
  PROP_MATRIX,
  PROP_DIVISOR,
  PROP_OFFSET,
  PROP_BORDER,
  PROP_STRATEGY,
  PROP_CHANNELS,
  PROP_GRAY_EDGES,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_ASYNC_DEPTH,
  PROP_HOST_REGISTER
};

#define DEFAULT_PROP_KERNEL GST_CUDACONV_KERNEL_GAUSSIAN
#define DEFAULT_PROP_RADIUS 2
#define DEFAULT_PROP_SIGMA 0.0
#define DEFAULT_PROP_MATRIX NULL
#define DEFAULT_PROP_DIVISOR 0.0
#define DEFAULT_PROP_OFFSET 0.0
/* replicating the edge keeps blurred borders as bright as the picture */
#define DEFAULT_PROP_BORDER GST_CUDACONV_BORDER_CLAMP
#define DEFAULT_PROP_STRATEGY CC_STRATEGY_AUTO
#define DEFAULT_PROP_CHANNELS GST_CUDACONV_CHANNELS_COLOR
#define DEFAULT_PROP_GRAY_EDGES TRUE
#define DEFAULT_PROP_BACKEND GST_CUDACONV_BACKEND_AUTO
#define DEFAULT_PROP_DEVICE_ID -1
#define DEFAULT_PROP_ASYNC_DEPTH 0
#define DEFAULT_PROP_HOST_REGISTER TRUE
/* async-depth=0 on a non-live stream: copy-in, kernels and copy-out of three
 * frames at once */
#define AUTO_ASYNC_DEPTH 3

/* The numeric properties declare their real ranges, so that gst-inspect,
 * GUI tools and a GstController's normal (not absolute) bindings see them;
 * GObject refuses values outside them, NaN included, with its own warning
 * and the previous value stays. */
#define MAX_SIGMA 1000.0
/* far beyond what 31x31 weights of a million each add up to */
#define MAX_DIVISOR 1e9
/* the offset is on the 8-bit scale at every depth (cudaconv-plan.h):
 * 256 lifts black past white in any format */
#define MAX_OFFSET 256.0

#define LIVE_PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define CONTROLLABLE_PARAM_FLAGS (LIVE_PARAM_FLAGS | GST_PARAM_CONTROLLABLE)

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
 * (interlace-mode=alternate), each buffer a field filtered as a frame. The
 * memory of the input is the memory of the output. */
#ifdef HAVE_GST_CUDA
#define CUDACONV_CUDA_MEMORY_CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES \
  (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, "{ " CUDACONV_SAMPLE_FORMATS " }") "; "
#else
#define CUDACONV_CUDA_MEMORY_CAPS ""
#endif
#define CUDACONV_CAPS CUDACONV_CUDA_MEMORY_CAPS \
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

static gboolean
make_filter (const GstCudaConvSettings * s, CudaConvFilter * filter,
    GError ** error)
{
  CudaConvWeights weights;

  if (s->kernel == GST_CUDACONV_KERNEL_CUSTOM) {
    if (!s->have_matrix) {
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
          "kernel=custom needs the matrix property, e.g. "
          "matrix=\"0,-1,0;-1,5,-1;0,-1,0\"");
      return FALSE;
    }
    weights = s->matrix;
  } else {
    cudaconv_preset_weights (s->kernel, s->radius, s->sigma, &weights);
  }
  return cudaconv_filter_prepare (&weights, s->divisor, s->offset, filter,
      error);
}

/* kernel=custom set before its matrix: allowed for now, judged when the
 * element starts or, while it runs, at the next frame */
static gboolean
awaits_matrix (const GstCudaConvSettings * s)
{
  return s->kernel == GST_CUDACONV_KERNEL_CUSTOM && !s->have_matrix;
}

static gboolean
shapes_filter (guint prop_id)
{
  return prop_id == PROP_KERNEL || prop_id == PROP_RADIUS
      || prop_id == PROP_SIGMA || prop_id == PROP_MATRIX
      || prop_id == PROP_DIVISOR || prop_id == PROP_OFFSET;
}

/* Only the identity preset with no divisor or offset effect leaves every
 * frame as it is; a custom 1x1 [1] is filtered anyway, which costs a copy. */
static gboolean
settings_are_identity (const GstCudaConvSettings * s)
{
  return s->kernel == GST_CUDACONV_KERNEL_IDENTITY && s->offset == 0.0
      && (s->divisor == 0.0 || s->divisor == 1.0);
}

/* Every change of the settings is followed by a call, and the calls run one
 * at a time, each deciding on the settings as they are once it holds the
 * lock: the last decision always sees the last change, so two threads
 * setting kernel=identity and kernel=gaussian cannot leave passthrough on
 * with gaussian set. (GstBaseTransform takes the object lock to switch
 * passthrough, so the decision cannot be made under that lock itself.) */
static void
update_passthrough (GstCudaConv * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  gboolean identity;

  g_mutex_lock (&self->passthrough_lock);
  GST_OBJECT_LOCK (self);
  /* a frame that changes memory is copied even when nothing filters it */
  identity = settings_are_identity (&self->settings)
      && !self->changes_memory;
  GST_OBJECT_UNLOCK (self);
  if (identity != gst_base_transform_is_passthrough (trans)) {
    GST_DEBUG_OBJECT (self, "passthrough %s", identity ? "on" : "off");
    gst_base_transform_set_passthrough (trans, identity);
    /* output buffers must be allocated again; in passthrough, upstream
     * must ask downstream which metas it takes (crop metas among them) */
    if (!identity)
      gst_base_transform_reconfigure_src (trans);
    else
      gst_base_transform_reconfigure_sink (trans);
  }
  g_mutex_unlock (&self->passthrough_lock);
}

/* A refused value keeps the previous one. It is reported once: before the
 * element starts, as the ERROR that makes start() fail (so that a bad
 * command line ends in an error instead of running with a value the user
 * did not ask for), afterwards as a WARNING on the bus. Never g_warning,
 * which aborts applications that run with G_DEBUG=fatal-warnings. */
static void
reject_setting (GstCudaConv * self, const gchar * property,
    const gchar * format, ...)
{
  gchar *problem, *message;
  gboolean started;
  va_list args;

  va_start (args, format);
  problem = g_strdup_vprintf (format, args);
  va_end (args);
  message = g_strdup_printf ("%s: invalid %s: %s", GST_OBJECT_NAME (self),
      property, problem);
  GST_WARNING_OBJECT (self, "%s; keeping the previous value", message);

  GST_OBJECT_LOCK (self);
  started = self->started;
  if (!started && !self->rejected_setting) {
    self->rejected_property = property;
    self->rejected_setting = message;
    message = NULL;
  }
  GST_OBJECT_UNLOCK (self);
  if (started)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("Invalid %s: %s", property,
            problem), ("the previous value stays in effect"));
  g_free (problem);
  g_free (message);
}

static void
gst_cudaconv_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaConv *self = GST_CUDACONV (object);
  GstCudaConvSettings next, *s = &next;
  const gchar *name = g_param_spec_get_name (pspec);
  CudaConvWeights matrix;
  CudaConvFilter filter;
  gboolean filter_valid = FALSE;
  GError *err = NULL;

  switch (prop_id) {
    case PROP_BACKEND:
    case PROP_DEVICE_ID:
    case PROP_ASYNC_DEPTH:{
      gboolean started;
      GST_OBJECT_LOCK (self);
      started = self->started;
      GST_OBJECT_UNLOCK (self);
      if (started) {
        reject_setting (self, name, "it can only change in the NULL or READY "
            "state");
        return;
      }
      break;
    }
    case PROP_MATRIX:
      if (g_value_get_string (value)
          && !cudaconv_matrix_parse (g_value_get_string (value), &matrix,
              &err)) {
        reject_setting (self, name, "%s", err->message);
        g_error_free (err);
        return;
      }
      break;
    default:
      break;
  }

  GST_OBJECT_LOCK (self);
  next = self->settings;
  switch (prop_id) {
    case PROP_KERNEL:
      s->kernel = g_value_get_enum (value);
      break;
    case PROP_RADIUS:
      s->radius = g_value_get_int (value);
      break;
    case PROP_SIGMA:
      s->sigma = g_value_get_double (value);
      break;
    case PROP_MATRIX:
      s->have_matrix = g_value_get_string (value) != NULL;
      if (s->have_matrix)
        s->matrix = matrix;
      break;
    case PROP_DIVISOR:
      s->divisor = g_value_get_double (value);
      break;
    case PROP_OFFSET:
      s->offset = g_value_get_double (value);
      break;
    case PROP_BORDER:
      s->border = g_value_get_enum (value);
      break;
    case PROP_STRATEGY:
      s->strategy = g_value_get_enum (value);
      break;
    case PROP_CHANNELS:
      s->channels = g_value_get_flags (value);
      break;
    case PROP_GRAY_EDGES:
      s->gray_edges = g_value_get_boolean (value);
      break;
    case PROP_BACKEND:
      s->backend = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      s->device_id = g_value_get_int (value);
      break;
    case PROP_ASYNC_DEPTH:
      s->async_depth = g_value_get_uint (value);
      break;
    case PROP_HOST_REGISTER:
      s->host_register = g_value_get_boolean (value);
      break;
    default:
      GST_OBJECT_UNLOCK (self);
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }
  /* The filter is made here, from the settings it belongs to and under the
   * same lock: weights too large for the back ends' sums are refused like
   * any other bad value, and the streaming thread only copies the result. */
  if (shapes_filter (prop_id)) {
    filter_valid = make_filter (&next, &filter, &err);
    if (!filter_valid && !awaits_matrix (&next)) {
      GST_OBJECT_UNLOCK (self);
      reject_setting (self, name, "%s", err->message);
      g_error_free (err);
      return;
    }
    g_clear_error (&err);
    self->settings_filter_valid = filter_valid;
    if (filter_valid)
      self->settings_filter = filter;
  }
  self->settings = next;
  if (prop_id == PROP_MATRIX) {
    g_free (self->matrix_text);
    self->matrix_text = g_value_dup_string (value);
  }
  self->settings_cookie++;
  /* a valid value replaces a refused one */
  if (g_strcmp0 (self->rejected_property, name) == 0) {
    self->rejected_property = NULL;
    g_clear_pointer (&self->rejected_setting, g_free);
  }
  GST_OBJECT_UNLOCK (self);

  update_passthrough (self);
}

static void
gst_cudaconv_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaConv *self = GST_CUDACONV (object);
  GstCudaConvSettings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      g_value_set_enum (value, s->kernel);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, s->radius);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, s->sigma);
      break;
    case PROP_MATRIX:
      g_value_set_string (value, self->matrix_text);
      break;
    case PROP_DIVISOR:
      g_value_set_double (value, s->divisor);
      break;
    case PROP_OFFSET:
      g_value_set_double (value, s->offset);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, s->border);
      break;
    case PROP_STRATEGY:
      g_value_set_enum (value, s->strategy);
      break;
    case PROP_CHANNELS:
      g_value_set_flags (value, s->channels);
      break;
    case PROP_GRAY_EDGES:
      g_value_set_boolean (value, s->gray_edges);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, s->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, s->device_id);
      break;
    case PROP_ASYNC_DEPTH:
      g_value_set_uint (value, s->async_depth);
      break;
    case PROP_HOST_REGISTER:
      g_value_set_boolean (value, s->host_register);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The CUDA backend on device_id, in the GstCudaContext shared with the
 * pipeline's other CUDA elements where the build has GStreamer's CUDA
 * library: one a neighbour or the application gave (for device_id, or any
 * for -1), else a new one that is offered to them in turn. */
static CudaConvGpu *
open_gpu (GstCudaConv * self, gint device_id, GError ** error)
{
#ifdef HAVE_GST_CUDA
  /* what is missing is said before GStreamer's CUDA library is asked */
  if (!cudaconv_gpu_probe (device_id, error))
    return NULL;
  /* the library calls the driver through a table it fills once; nvcodec
   * fills it when it loads, which a pipeline without it never does */
  if (!gst_cuda_load_library ()) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "GStreamer's CUDA library cannot load the NVIDIA driver");
    return NULL;
  }
  /* the CUDA allocator, which GstCudaBufferPool needs; nvcodec registers
   * it when it loads, which a pipeline without it never does */
  gst_cuda_memory_init_once ();
  if (!gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
          (GstCudaContext **) & self->cuda_context)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "GStreamer's CUDA library could not create a CUDA context for "
        "device-id %d", device_id);
    return NULL;
  }
#endif
  return cudaconv_gpu_open (device_id, self->cuda_context, error);
}

static gboolean
gst_cudaconv_start (GstBaseTransform * trans)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstCudaConvSettings s;
  gchar *rejected;
  guint cookie;
  gboolean filter_valid;
  GError *err = NULL;

  GST_OBJECT_LOCK (self);
  s = self->settings;
  cookie = self->settings_cookie;
  rejected = g_strdup (self->rejected_setting);
  filter_valid = self->settings_filter_valid;
  if (filter_valid)
    self->filter = self->settings_filter;
  GST_OBJECT_UNLOCK (self);

  if (rejected)
    goto rejected_setting;
  /* only kernel=custom without a matrix gets here: make_filter says so */
  if (!filter_valid && !make_filter (&s, &self->filter, &err))
    goto bad_filter;
  self->filter_cookie = cookie;
  self->n_threads = (gint) g_get_num_processors ();
  self->invalid_buffers = 0;

  self->active_backend = GST_CUDACONV_BACKEND_CPU;
  if (s.backend != GST_CUDACONV_BACKEND_CPU) {
    self->gpu = open_gpu (self, s.device_id, &err);
    if (self->gpu) {
      const gchar *device = cudaconv_gpu_describe (self->gpu);
      cudaconv_gpu_set_filter (self->gpu, &self->filter, (CcBorder) s.border,
          s.strategy);
      self->active_backend = GST_CUDACONV_BACKEND_CUDA;
      GST_ELEMENT_INFO (self, LIBRARY, INIT, ("Using the CUDA backend on %s",
              device), ("cudaconv: using the CUDA backend on %s", device));
    } else if (s.backend == GST_CUDACONV_BACKEND_CUDA) {
      goto no_cuda;
    } else {
      GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
          ("No usable CUDA device; using the CPU backend: %s", err->message),
          ("set backend=cpu to choose the CPU explicitly"));
      g_clear_error (&err);
    }
  }
  if (self->active_backend == GST_CUDACONV_BACKEND_CPU)
    GST_ELEMENT_INFO (self, LIBRARY, INIT, ("Using the CPU backend with %d "
            "threads", self->n_threads), ("cudaconv: using the CPU backend "
            "with %d threads", self->n_threads));

  GST_OBJECT_LOCK (self);
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

static void
release_work_frames (GstCudaConv * self)
{
  gst_clear_buffer (&self->work_in);
  gst_clear_buffer (&self->work_out);
  self->word_packed = FALSE;
}

/* The planar twin of a word-packed format, and for the CPU backend two
 * frames of it. */
static gboolean
make_work_frames (GstCudaConv * self, const GstVideoInfo * info)
{
  const GstVideoFormat work =
      cudaconv_word_packed_work_format (GST_VIDEO_INFO_FORMAT (info));

  release_work_frames (self);
  self->work_info = *info;
  if (work == GST_VIDEO_FORMAT_UNKNOWN)
    return TRUE;
  gst_video_info_set_interlaced_format (&self->work_info, work,
      GST_VIDEO_INFO_INTERLACE_MODE (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info));
  self->word_packed = TRUE;
  /* the CUDA backend unpacks and packs on the device */
  if (self->gpu)
    return TRUE;
  self->work_in = gst_buffer_new_allocate (NULL,
      GST_VIDEO_INFO_SIZE (&self->work_info), NULL);
  self->work_out = gst_buffer_new_allocate (NULL,
      GST_VIDEO_INFO_SIZE (&self->work_info), NULL);
  return self->work_in && self->work_out;
}

static gboolean
gst_cudaconv_stop (GstBaseTransform * trans)
{
  GstCudaConv *self = GST_CUDACONV (trans);

  release_work_frames (self);
  cudaconv_gpu_close (self->gpu);
  self->gpu = NULL;
  gst_clear_object (&self->cuda_context);
  GST_OBJECT_LOCK (self);
  self->started = FALSE;
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

static gboolean
caps_in_cuda_memory (GstCaps * caps)
{
#ifdef HAVE_GST_CUDA
  GstCapsFeatures *features = gst_caps_get_size (caps) > 0 ?
      gst_caps_get_features (caps, 0) : NULL;
  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
#else
  return FALSE;
#endif
}

#ifdef HAVE_GST_CUDA
typedef enum {
  CAPS_IN_CUDA_MEMORY,
  CAPS_IN_SYSTEM_MEMORY,
  CAPS_IN_OTHER_MEMORY,         /* or with other features: never converted */
} CapsMemory;

static CapsMemory
structure_memory (GstCaps * caps, guint i)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, i);

  if (!features || gst_caps_features_is_equal (features,
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
    return CAPS_IN_SYSTEM_MEMORY;
  if (!gst_caps_features_is_any (features)
      && gst_caps_features_get_size (features) == 1
      && gst_caps_features_contains (features,
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    return CAPS_IN_CUDA_MEMORY;
  return CAPS_IN_OTHER_MEMORY;
}

/* The structures of caps in memory from, each in memory to. */
static GstCaps *
caps_moved (GstCaps * caps, CapsMemory from, CapsMemory to)
{
  GstCaps *result = gst_caps_new_empty ();

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    if (structure_memory (caps, i) != from)
      continue;
    if (to == CAPS_IN_CUDA_MEMORY)
      features = gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY,
          NULL);
    else if (to == CAPS_IN_SYSTEM_MEMORY)
      features = gst_caps_features_new
          (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL);
    else if (features)
      features = gst_caps_features_copy (features);
    gst_caps_append_structure_full (result,
        gst_structure_copy (gst_caps_get_structure (caps, i)), features);
  }
  return result;
}
#endif

/* The same video on the other pad, in the same memory first and then in
 * the other (system memory in, CUDA memory out uploads while it filters),
 * CUDA memory before system memory within each. The CPU backend offers no
 * CUDA memory. */
static GstCaps *
gst_cudaconv_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstCaps *result = GST_BASE_TRANSFORM_CLASS (parent_class)->transform_caps
      (trans, direction, caps, NULL);
#ifdef HAVE_GST_CUDA
  gboolean on_cpu;

  GST_OBJECT_LOCK (self);
  on_cpu = self->started
      && self->active_backend != GST_CUDACONV_BACKEND_CUDA;
  GST_OBJECT_UNLOCK (self);
  if (result && !gst_caps_is_any (result)) {
    GstCaps *same = result;

    result = gst_caps_new_empty ();
    if (!on_cpu)
      result = gst_caps_merge (result, caps_moved (same, CAPS_IN_CUDA_MEMORY,
              CAPS_IN_CUDA_MEMORY));
    result = gst_caps_merge (result, caps_moved (same, CAPS_IN_SYSTEM_MEMORY,
            CAPS_IN_SYSTEM_MEMORY));
    result = gst_caps_merge (result, caps_moved (same, CAPS_IN_OTHER_MEMORY,
            CAPS_IN_OTHER_MEMORY));
    if (!on_cpu) {
      result = gst_caps_merge (result, caps_moved (same,
              CAPS_IN_SYSTEM_MEMORY, CAPS_IN_CUDA_MEMORY));
      result = gst_caps_merge (result, caps_moved (same, CAPS_IN_CUDA_MEMORY,
              CAPS_IN_SYSTEM_MEMORY));
    }
    gst_caps_unref (same);
  }
#endif
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
 * order its peer listed the memories in: a neighbour that takes both (as
 * cudadownload does) would otherwise make the element copy every frame. */
static GstCaps *
gst_cudaconv_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
#ifdef HAVE_GST_CUDA
  const CapsMemory memory = gst_caps_get_size (caps) > 0 ?
      structure_memory (caps, 0) : CAPS_IN_OTHER_MEMORY;
  GstCaps *same = caps_moved (othercaps, memory, memory);

  if (!gst_caps_is_empty (same)) {
    gst_caps_unref (othercaps);
    othercaps = same;
  } else {
    gst_caps_unref (same);
  }
#endif
  return GST_BASE_TRANSFORM_CLASS (parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
}

static gboolean
gst_cudaconv_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstCudaConv *self = GST_CUDACONV (filter);
  GError *err = NULL;
  guint depth;

  GST_OBJECT_LOCK (self);
  depth = self->settings.async_depth;
  GST_OBJECT_UNLOCK (self);
  self->live = upstream_is_live (self);
  self->depth = depth > 0 ? depth : (self->live ? 1 : AUTO_ASYNC_DEPTH);
  GST_DEBUG_OBJECT (self, "%s stream: %u frame(s) in flight",
      self->live ? "live" : "non-live", self->depth);
  if (self->gpu)
    cudaconv_gpu_discard (self->gpu);
  self->in_cuda_memory = caps_in_cuda_memory (incaps);
  self->out_cuda_memory = caps_in_cuda_memory (outcaps);
  GST_OBJECT_LOCK (self);
  self->changes_memory = self->in_cuda_memory != self->out_cuda_memory;
  GST_OBJECT_UNLOCK (self);
  /* transform_caps offers CUDA memory only to the CUDA backend */
  if ((self->in_cuda_memory || self->out_cuda_memory) && !self->gpu)
    goto no_cuda_backend;
  if (!make_work_frames (self, in_info))
    goto no_work_frames;
  if (self->gpu)
    cudaconv_gpu_set_device_frames (self->gpu, self->in_cuda_memory,
        self->out_cuda_memory);
  if (self->gpu && (!cudaconv_gpu_configure (self->gpu, &self->work_info,
              self->depth, &err) || (self->word_packed
              && !cudaconv_gpu_configure_word_packed (self->gpu, in_info,
                  &err))))
    goto configure_failed;
  update_passthrough (self);
  return TRUE;

  /* ERRORS */
no_cuda_backend:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Frames in CUDA memory need the CUDA backend, and this element runs "
            "on the CPU"), (NULL));
    return FALSE;
  }
no_work_frames:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate the %s frames that %s is filtered in",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                (&self->work_info)), GST_VIDEO_INFO_NAME (in_info)), (NULL));
    return FALSE;
  }
configure_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not allocate GPU memory for %s %dx%d: %s",
            GST_VIDEO_INFO_NAME (in_info), GST_VIDEO_INFO_WIDTH (in_info),
            GST_VIDEO_INFO_HEIGHT (in_info), err->message), (NULL));
    g_error_free (err);
    return FALSE;
  }
}

/* Upstream is told that crop metas are taken whenever frames are filtered:
 * a frame whose picture lies in a larger buffer (a decoder's 1088 rows for
 * 1080, videocrop) is read from there, which spares upstream a copy of the
 * picture (measured by cudaconv-bench --crop), and whatever the crop, the
 * output is correct for a downstream that knows nothing of crop metas
 * (see cudaconv_crop_kind). In passthrough the query is downstream's to
 * answer. */
static void
propose_crop (GstQuery * query)
{
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE,
          NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
}

/* A crop meta whose picture stays where it was goes on with the frame (the
 * picture is filtered inside it); one whose picture was taken out of a
 * larger buffer has been applied. Other metas as GstVideoFilter decides
 * (those with no tags or the video tag only). */
static gboolean
gst_cudaconv_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  if (meta->info->api == GST_VIDEO_CROP_META_API_TYPE)
    return cudaconv_crop_kind (&GST_VIDEO_FILTER (trans)->in_info, inbuf) !=
        CUDACONV_CROP_PICTURE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_meta (trans,
      outbuf, meta, inbuf);
}

#ifdef HAVE_GST_CUDA
/* A GstCudaBufferPool of the element's context for caps, with video metas
 * (its planes are pitched); *size becomes the pool's buffer size. NULL
 * when it takes no such configuration. */
static GstBufferPool *
new_cuda_pool (GstCudaConv * self, GstCaps * caps, guint * size, guint min,
    guint max)
{
  GstBufferPool *pool =
      gst_cuda_buffer_pool_new ((GstCudaContext *) self->cuda_context);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, *size, min, max);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

/* Upstream that sends CUDA memory gets a pool of our context, so that its
 * frames need no copy to be read here. */
static gboolean
propose_cuda_pool (GstCudaConv * self, GstQuery * query, GstCaps * caps,
    const GstVideoInfo * info)
{
  if (gst_query_get_n_allocation_pools (query) == 0) {
    const guint held = self->depth + 1;
    guint size = info->size;
    GstBufferPool *pool = new_cuda_pool (self, caps, &size, held, 0);
    if (!pool)
      return FALSE;
    gst_query_add_allocation_pool (query, pool, size, held, 0);
    gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

/* Output in CUDA memory goes into downstream's CUDA pool when it is of our
 * context, else into one of ours. */
static gboolean
decide_cuda_pool (GstCudaConv * self, GstQuery * query, GstCaps * caps,
    const GstVideoInfo * info)
{
  GstBufferPool *pool = NULL, *ours;
  guint size = 0, min = 0, max = 0;
  const gboolean have_pool = gst_query_get_n_allocation_pools (query) > 0;

  if (have_pool)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool && GST_IS_CUDA_BUFFER_POOL (pool)
      && GST_CUDA_BUFFER_POOL (pool)->context ==
      (GstCudaContext *) self->cuda_context) {
    gst_object_unref (pool);
    return TRUE;
  }
  gst_clear_object (&pool);
  size = MAX (size, info->size);
  min += self->depth + 1;
  if (max != 0 && max < min)
    max = min;
  ours = new_cuda_pool (self, caps, &size, min, max);
  if (!ours)
    return FALSE;
  if (have_pool)
    gst_query_set_nth_allocation_pool (query, 0, ours, size, min, max);
  else
    gst_query_add_allocation_pool (query, ours, size, min, max);
  gst_object_unref (ours);
  /* the pool allocates its own memory */
  while (gst_query_get_n_allocation_params (query) > 0)
    gst_query_remove_nth_allocation_param (query, 0);
  return TRUE;
}
#endif

static gboolean
gst_cudaconv_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstAllocator *allocator = self->gpu ?
      cudaconv_gpu_get_allocator (self->gpu) : NULL;
  GstCaps *caps;
  GstVideoInfo info;

  if (!allocator || !decide_query || gst_base_transform_is_passthrough (trans)) {
    if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
            decide_query, query))
      return FALSE;
    if (decide_query)
      propose_crop (query);
    return TRUE;
  }

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
#ifdef HAVE_GST_CUDA
  if (caps_in_cuda_memory (caps))
    return propose_cuda_pool (self, query, caps, &info);
#endif
  if (gst_query_get_n_allocation_pools (query) == 0) {
    /* up to async-depth input frames stay mapped while the GPU copies them,
     * and one more is being filled: allocated up front, no pinned allocation
     * (a millisecond each) happens while streaming */
    const guint held = self->depth + 1;
    GstBufferPool *pool = cudaconv_gpu_new_pool (self->gpu, caps, info.size,
        held, 0);
    if (pool) {
      gst_query_add_allocation_pool (query, pool, info.size, held, 0);
      gst_object_unref (pool);
    }
  }
  gst_query_add_allocation_param (query, allocator, NULL);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  propose_crop (query);
  return TRUE;
}

/* Downstream pools of the plain kinds only hold system memory, so they are
 * replaced by a pinned pool; a pool of its own kind (GL, a device's) stays. */
static gboolean
gst_cudaconv_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstAllocator *allocator = self->gpu ?
      cudaconv_gpu_get_allocator (self->gpu) : NULL;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  GstCaps *caps;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &caps, NULL);
#ifdef HAVE_GST_CUDA
  if (allocator && caps && caps_in_cuda_memory (caps)) {
    if (!gst_video_info_from_caps (&info, caps)
        || !decide_cuda_pool (self, query, caps, &info))
      return FALSE;
    return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
        query);
  }
#endif
  if (allocator && caps && gst_video_info_from_caps (&info, caps)) {
    gboolean have_pool = gst_query_get_n_allocation_pools (query) > 0;

    if (have_pool)
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (!pool || G_OBJECT_TYPE (pool) == GST_TYPE_BUFFER_POOL
        || G_OBJECT_TYPE (pool) == GST_TYPE_VIDEO_BUFFER_POOL) {
      GstBufferPool *pinned;
      GstAllocationParams params;

      size = MAX (size, info.size);
      /* async-depth output frames in flight plus the one downstream keeps
       * (a sink's last sample), allocated when the pool starts rather than
       * one pinned allocation per frame in the first frames */
      min += self->depth + 1;
      if (max != 0 && max < min)
        max = min;
      pinned = cudaconv_gpu_new_pool (self->gpu, caps, size, min, max);
      if (pinned) {
        gst_allocation_params_init (&params);
        if (have_pool)
          gst_query_set_nth_allocation_pool (query, 0, pinned, size, min, max);
        else
          gst_query_add_allocation_pool (query, pinned, size, min, max);
        if (gst_query_get_n_allocation_params (query) > 0)
          gst_query_set_nth_allocation_param (query, 0, allocator, &params);
        else
          gst_query_add_allocation_param (query, allocator, &params);
        gst_object_unref (pinned);
      }
    }
    gst_clear_object (&pool);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* Lets a GstController drive the controllable properties. */
static void
gst_cudaconv_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_TIMESTAMP (buffer));

  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

/* Takes this frame's settings and rebuilds the filter when they changed. */
static void
frame_settings (GstCudaConv * self, GstBuffer * inbuf,
    GstCudaConvSettings * s, CudaConvPlan * plan)
{
  gboolean changed, filter_valid;
  guint cookie;
  GError *err = NULL;

  GST_OBJECT_LOCK (self);
  *s = self->settings;
  cookie = self->settings_cookie;
  changed = cookie != self->filter_cookie;
  filter_valid = self->settings_filter_valid;
  if (changed && filter_valid)
    self->filter = self->settings_filter;
  GST_OBJECT_UNLOCK (self);

  if (changed) {
    if (!filter_valid) {
      /* kernel=custom set while PLAYING before any matrix */
      CudaConvFilter none;
      if (!make_filter (s, &none, &err))
        GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s", err->message),
            ("the previous filter stays in effect"));
      g_clear_error (&err);
    } else if (s->strategy == CC_STRATEGY_SEPARABLE
        && !self->filter.separable
        && self->active_backend == GST_CUDACONV_BACKEND_CUDA) {
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
          ("strategy=separable, but this filter is not separable; using "
              "tiled-halo"), (NULL));
    }
    self->filter_cookie = cookie;
    if (self->gpu)
      cudaconv_gpu_set_filter (self->gpu, &self->filter,
          (CcBorder) s->border, s->strategy);
  }
  if (self->gpu)
    cudaconv_gpu_set_host_register (self->gpu, s->host_register);
  cudaconv_plan_make (plan, &self->work_info, s->channels, s->gray_edges
      && cudaconv_kernel_is_edge_map (s->kernel));
  cudaconv_plan_set_frame (plan, &self->work_info, inbuf);
}

/* Names the kernel family each filtered component runs, in the debug log
 * and as a bus INFO, on the first frame and whenever it changes (a new
 * radius, strategy, format or plane alignment). */
static void
report_kernels (GstCudaConv * self)
{
  gchar *report = cudaconv_gpu_take_kernel_report (self->gpu);

  if (!report)
    return;
  GST_INFO_OBJECT (self, "CUDA kernels: %s", report);
  GST_ELEMENT_INFO (self, LIBRARY, SETTINGS, ("CUDA kernels: %s", report),
      ("%s", cudaconv_gpu_describe (self->gpu)));
  g_free (report);
}

/* One frame, finished before it returns: in and out are frames of
 * work_info (on the CUDA backend, of the caps even when they are
 * word-packed), inbuf the input buffer (its flags and crop meta). */
static GstFlowReturn
process_frames (GstCudaConv * self, GstBuffer * inbuf, GstVideoFrame * in,
    GstVideoFrame * out)
{
  GstCudaConvSettings s;
  CudaConvPlan plan;
  gboolean ok;
  GError *err = NULL;

  frame_settings (self, inbuf, &s, &plan);
  if (self->active_backend == GST_CUDACONV_BACKEND_CUDA) {
    ok = cudaconv_gpu_process (self->gpu, &plan, in, out, &err);
    if (ok)
      report_kernels (self);
  } else
    ok = cudaconv_cpu_process (&self->work_info, &plan, &self->filter,
        (CcBorder) s.border, self->n_threads, in, out, &err);
  if (!ok)
    goto process_failed;
  return GST_FLOW_OK;

  /* ERRORS */
process_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s backend failed: %s",
            self->active_backend == GST_CUDACONV_BACKEND_CUDA ? "CUDA" : "CPU",
            err->message), (NULL));
    g_error_free (err);
    return GST_FLOW_ERROR;
  }
}

/* A word-packed frame on the CPU: unpacked into work_in, filtered into
 * work_out, packed into out. (The CUDA backend takes it as it is.) */
static GstFlowReturn
process_word_packed_on_cpu (GstCudaConv * self, GstVideoFrame * in,
    GstVideoFrame * out)
{
  GstVideoFrame work_in, work_out;
  GstFlowReturn ret;

  if (!gst_video_frame_map (&work_in, &self->work_info, self->work_in,
          GST_MAP_READWRITE))
    return GST_FLOW_ERROR;
  if (!gst_video_frame_map (&work_out, &self->work_info, self->work_out,
          GST_MAP_READWRITE)) {
    gst_video_frame_unmap (&work_in);
    return GST_FLOW_ERROR;
  }
  cudaconv_word_packed_unpack (in, &work_in, self->n_threads);
  ret = process_frames (self, in->buffer, &work_in, &work_out);
  if (ret == GST_FLOW_OK)
    cudaconv_word_packed_pack (&work_out, out, self->n_threads);
  gst_video_frame_unmap (&work_in);
  gst_video_frame_unmap (&work_out);
  return ret;
}

/* One frame, finished before it returns. generate_output calls it with
 * frames it has checked; it stays GstVideoFilter's transform_frame, which
 * also keeps GstVideoFilter from treating the element as in-place. */
static GstFlowReturn
gst_cudaconv_transform_frame (GstVideoFilter * filter, GstVideoFrame * in,
    GstVideoFrame * out)
{
  GstCudaConv *self = GST_CUDACONV (filter);

  if (self->word_packed && self->active_backend != GST_CUDACONV_BACKEND_CUDA)
    return process_word_packed_on_cpu (self, in, out);
  return process_frames (self, in->buffer, in, out);
}

static gboolean
overlapping (GstCudaConv * self)
{
  return self->gpu && self->depth > 1
      && !gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (self));
}

/* Drops the frames in flight after the GPU failed and says why. */
static GstFlowReturn
gpu_failed (GstCudaConv * self, GError * err)
{
  cudaconv_gpu_discard (self->gpu);
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("CUDA backend failed: %s",
          err->message), (NULL));
  g_error_free (err);
  return GST_FLOW_ERROR;
}

/* Pushes every frame still in flight, oldest first. */
static GstFlowReturn
drain (GstCudaConv * self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GError *err = NULL;

  while (self->gpu && cudaconv_gpu_in_flight (self->gpu) > 0) {
    GstBuffer *out;
    if (!cudaconv_gpu_finish_oldest (self->gpu, &out, &err))
      goto process_failed;
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
    else
      gst_buffer_unref (out);   /* downstream stopped taking them */
  }
  return ret;

  /* ERRORS */
process_failed:
  return gpu_failed (self, err);
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

/* How a frame of one side is mapped: GST_MAP_CUDA for CUDA memory. */
static GstMapFlags
device_map_flag (gboolean cuda_memory)
{
#ifdef HAVE_GST_CUDA
  return cuda_memory ? GST_MAP_CUDA : 0;
#else
  return 0;
#endif
}

#ifdef HAVE_GST_CUDA
typedef void (*CudaMemorySync) (GstCudaMemory * memory);

/* gst_cuda_memory_sync where the running library has it (1.24 and later,
 * whose CUDA memory may carry a stream still writing it), else NULL */
static CudaMemorySync
cuda_memory_sync (void)
{
  static CudaMemorySync sync;
  static gsize looked_up;

  if (g_once_init_enter (&looked_up)) {
    void *library = dlopen ("libgstcuda-1.0.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (library) {
      sync = (CudaMemorySync) dlsym (library, "gst_cuda_memory_sync");
      dlclose (library);
    }
    g_once_init_leave (&looked_up, 1);
  }
  return sync;
}
#endif

/* Whether every memory of buffer is CUDA memory, of the element's context
 * where ours is set (output, which its kernels write; input of another
 * context or device is copied into the element's own by the backend);
 * where the library can say, what a stream still writes to it is waited
 * for first. */
static gboolean
check_cuda_memory (GstCudaConv * self, GstBuffer * buffer, gboolean ours,
    GError ** error)
{
#ifdef HAVE_GST_CUDA
  const CudaMemorySync sync = cuda_memory_sync ();

  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *memory = gst_buffer_peek_memory (buffer, i);
    GstCudaContext *context;

    if (!gst_is_cuda_memory (memory)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "the caps say CUDA memory, and the buffer holds other memory");
      return FALSE;
    }
    context = GST_CUDA_MEMORY_CAST (memory)->context;
    if (ours && context != (GstCudaContext *) self->cuda_context) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "its CUDA memory belongs to another CUDA context (device %d; this "
          "element works on device %d)", cudaconv_cuda_context_device
          (GST_OBJECT (context)), cudaconv_cuda_context_device
          (self->cuda_context));
      return FALSE;
    }
    if (sync)
      sync (GST_CUDA_MEMORY_CAST (memory));
  }
#endif
  return TRUE;
}

/* Every buffer that is not passed through comes here, in place of
 * GstVideoFilter's transform (which pushes an unwritten output buffer when
 * it cannot map a frame): the input is checked before an output buffer is
 * taken, the output before anything writes it. With async-depth > 1 on the
 * CUDA backend, frames are queued on the GPU and the oldest is pushed once
 * the queue is full; otherwise each frame is finished before the next. */
static GstFlowReturn
gst_cudaconv_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  GstBuffer *inbuf = trans->queued_buf, *out = NULL;
  GstVideoFrame in_frame, out_frame;
  GstCudaConvSettings s;
  CudaConvPlan plan;
  GstFlowReturn ret;
  GError *err = NULL;
  gboolean queue_on_gpu;

  *outbuf = NULL;
  if (!inbuf)
    return GST_FLOW_OK;
  if (gst_base_transform_is_passthrough (trans)) {
    /* frames queued before passthrough began go first */
    if ((ret = drain (self)) != GST_FLOW_OK)
      return ret;
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);
  }
  trans->queued_buf = NULL;
  /* decided once: passthrough may be switched on from another thread */
  queue_on_gpu = self->gpu && self->depth > 1;

  if (GST_BUFFER_FLAG_IS_SET (inbuf, GST_BUFFER_FLAG_GAP))
    return forward_gap (self, inbuf);
  if (self->in_cuda_memory && !check_cuda_memory (self, inbuf, FALSE, &err))
    goto not_cuda_memory;
  if (!cudaconv_frame_map_checked (&in_frame, &filter->in_info, inbuf,
          GST_MAP_READ | device_map_flag (self->in_cuda_memory), &err))
    return drop_invalid_input (self, inbuf, err);
  ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
      inbuf, &out);
  /* the mapped frames hold their buffers until the frame is done */
  gst_buffer_unref (inbuf);
  if (ret != GST_FLOW_OK || !out)
    goto no_output;
  if (self->out_cuda_memory && !check_cuda_memory (self, out, TRUE, &err))
    goto bad_output;
  if (!cudaconv_frame_map_checked (&out_frame, &filter->out_info, out,
          GST_MAP_WRITE | device_map_flag (self->out_cuda_memory), &err))
    goto bad_output;
  gst_buffer_unref (out);
  /* device memory: the kernels and copies write every sample, padding
   * stays as the pool made it */
  if (!self->out_cuda_memory)
    cudaconv_frame_zero_new_memory (&out_frame);

  if (!queue_on_gpu) {
    ret = gst_cudaconv_transform_frame (filter, &in_frame, &out_frame);
    if (ret == GST_FLOW_OK)
      *outbuf = gst_buffer_ref (out_frame.buffer);
    gst_video_frame_unmap (&in_frame);
    gst_video_frame_unmap (&out_frame);
    return ret;
  }
  frame_settings (self, in_frame.buffer, &s, &plan);
  if (!cudaconv_gpu_submit (self->gpu, &plan, &in_frame, &out_frame, &err))
    return gpu_failed (self, err);
  report_kernels (self);
  if (cudaconv_gpu_in_flight (self->gpu) < self->depth)
    return GST_FLOW_OK;
  if (!cudaconv_gpu_finish_oldest (self->gpu, outbuf, &err))
    return gpu_failed (self, err);
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
    if (self->gpu)
      cudaconv_gpu_discard (self->gpu);
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
  gboolean ret;

#ifdef HAVE_GST_CUDA
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_cuda_handle_context_query (GST_ELEMENT (self), query,
          (GstCudaContext *) self->cuda_context))
    return TRUE;
#endif
  /* buffers we hold go back to upstream's pool before it is drained */
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query))
    drain (self);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
  if (ret && direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && overlapping (self)) {
    gboolean live;
    GstClockTime min, max, held = 0;
    gst_query_parse_latency (query, &live, &min, &max);
    if (filter->in_info.fps_n > 0)
      held = gst_util_uint64_scale_int ((self->depth - 1) * GST_SECOND,
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
#ifdef HAVE_GST_CUDA
  GstCudaConv *self = GST_CUDACONV (element);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_handle_set_context (element, context, device_id,
      (GstCudaContext **) & self->cuda_context);
#endif
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static void
gst_cudaconv_finalize (GObject * object)
{
  GstCudaConv *self = GST_CUDACONV (object);

  g_free (self->matrix_text);
  g_free (self->rejected_setting);
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

  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_enum ("kernel", "Kernel",
          "The filter: a preset or custom (the matrix property)",
          GST_TYPE_CUDACONV_KERNEL, DEFAULT_PROP_KERNEL,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Filter width is 2*radius+1, for box, gaussian and sharpen; the "
          "3x3 presets (edge, sobel, sobel-x, sobel-y, emboss), identity and "
          "custom ignore it", 1, CC_MAX_RADIUS, DEFAULT_PROP_RADIUS,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of gaussian and sharpen, in pixels; 0 derives it "
          "from the radius as 0.3*(radius-1)+0.8", 0.0, MAX_SIGMA,
          DEFAULT_PROP_SIGMA, CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MATRIX,
      g_param_spec_string ("matrix", "Matrix",
          "Weights of kernel=custom: rows separated by ';', values by ',', "
          "e.g. \"1,2,1;2,4,2;1,2,1\"; square with an odd side of 1 to 31",
          DEFAULT_PROP_MATRIX, LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_DIVISOR,
      g_param_spec_double ("divisor", "Divisor",
          "The weighted sum is divided by this; 0 divides by the sum of the "
          "weights, or by 1 when they sum to 0. Refused when it makes the "
          "weights too large for single-precision sums", -MAX_DIVISOR,
          MAX_DIVISOR, DEFAULT_PROP_DIVISOR, CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_double ("offset", "Offset",
          "Added after dividing, on the 8-bit scale: deeper formats take it "
          "times 2^(depth-8), so 128 is mid-level in every format and shows "
          "signed responses (512 in 10-bit samples)", -MAX_OFFSET, MAX_OFFSET, DEFAULT_PROP_OFFSET,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "What the filter sees beyond the frame's edges",
          GST_TYPE_CUDACONV_BORDER, DEFAULT_PROP_BORDER,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_STRATEGY,
      g_param_spec_enum ("strategy", "Strategy",
          "How the CUDA kernels stage their input; the bus INFO on the first "
          "frame names the kernel family each component runs (the CPU "
          "backend ignores it)",
          GST_TYPE_CUDACONV_STRATEGY, DEFAULT_PROP_STRATEGY,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CHANNELS,
      g_param_spec_flags ("channels", "Channels",
          "Components to filter; the others are copied unchanged",
          GST_TYPE_CUDACONV_CHANNELS, DEFAULT_PROP_CHANNELS,
          LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_GRAY_EDGES,
      g_param_spec_boolean ("gray-edges", "Gray edges",
          "With edge, sobel, sobel-x, sobel-y and emboss on YUV formats, set "
          "the chroma to its neutral value so the output is a gray edge map",
          DEFAULT_PROP_GRAY_EDGES, LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where frames are filtered", GST_TYPE_CUDACONV_BACKEND,
          DEFAULT_PROP_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device to use; -1 takes the device of the CUDA context the "
          "pipeline's other CUDA elements share, else CUDA's default device",
          -1, G_MAXINT,
          DEFAULT_PROP_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_ASYNC_DEPTH,
      g_param_spec_uint ("async-depth", "Async depth",
          "Frames the CUDA backend works on at once (copy in, filter, copy "
          "out overlapping); output leaves async-depth - 1 frames after its "
          "input. 0: 1 on live streams, 3 otherwise", 0,
          CUDACONV_GPU_MAX_DEPTH, DEFAULT_PROP_ASYNC_DEPTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_HOST_REGISTER,
      g_param_spec_boolean ("host-register", "Host register",
          "Page-lock input buffers that are not from this element's pool "
          "with CUDA, once per buffer while upstream recycles it, so they "
          "are copied by DMA; false copies them through pinned staging",
          DEFAULT_PROP_HOST_REGISTER, LIVE_PARAM_FLAGS));

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
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cudaconv_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cudaconv_fixate_caps);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cudaconv_stop);
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
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_cudaconv_transform_frame);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_KERNEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_BORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_STRATEGY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDACONV_CHANNELS, 0);
}

static void
gst_cudaconv_init (GstCudaConv * self)
{
  GstCudaConvSettings *s = &self->settings;

  s->kernel = DEFAULT_PROP_KERNEL;
  s->radius = DEFAULT_PROP_RADIUS;
  s->sigma = DEFAULT_PROP_SIGMA;
  s->have_matrix = FALSE;
  s->divisor = DEFAULT_PROP_DIVISOR;
  s->offset = DEFAULT_PROP_OFFSET;
  s->border = DEFAULT_PROP_BORDER;
  s->strategy = DEFAULT_PROP_STRATEGY;
  s->channels = DEFAULT_PROP_CHANNELS;
  s->gray_edges = DEFAULT_PROP_GRAY_EDGES;
  s->backend = DEFAULT_PROP_BACKEND;
  s->device_id = DEFAULT_PROP_DEVICE_ID;
  s->async_depth = DEFAULT_PROP_ASYNC_DEPTH;
  s->host_register = DEFAULT_PROP_HOST_REGISTER;
  self->settings_cookie = 1;
  self->settings_filter_valid = make_filter (s, &self->settings_filter, NULL);
  self->active_backend = GST_CUDACONV_BACKEND_CPU;
  g_mutex_init (&self->passthrough_lock);
}

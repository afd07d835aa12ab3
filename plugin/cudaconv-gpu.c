/* cudaconv: the CUDA back end (see cudaconv-gpu.h).
 *
 * A frame's planes go host -> device -> kernels -> host on its slot's
 * stream, where a side of the frame is in host memory; a side in device
 * memory of our context is read or written where it is. Planes in our
 * pinned memory, or in foreign memory that the host registration cache
 * has page-locked, are copied by DMA directly; others go through the
 * slot's pinned staging, because a copy from pageable memory is both
 * slower and blocking. */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "cudaconv-gpu.h"
#include "cudaconv-cuda.h"
#include "cudaconv-cuda-check.h"
#include "cudaconv-cuda-context.h"
#include "cudaconv-host-register.h"
#include "cudaconv-pinned-allocator.h"
#include "cudaconv-word-packed.h"
#include "gstcudaconv-enums.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* The oldest architecture the fat binary carries code for. */
#define MIN_COMPUTE_CAPABILITY 75
/* channel geometries whose tuned strategy is remembered */
#define MAX_TUNED 8

typedef struct {
  void *in, *out;               /* pitched device planes */
  size_t in_pitch, out_pitch;
  gsize staging_offset;
} DevicePlane;

typedef struct {
  cudaStream_t stream;
  cudaEvent_t done;
  /* whole frames in the layout of the negotiated caps, which the planes
   * point into (NULL: planes allocated one by one, pitched) */
  guint8 *frame_in, *frame_out;
  DevicePlane planes[GST_VIDEO_MAX_PLANES];
  guint8 *staging_in, *staging_out;     /* pinned, all planes back to back */
  /* word-packed frames as they travel (cudaconv_gpu_configure_word_packed) */
  guint8 *packed_in, *packed_out;
  /* the frame in flight */
  gboolean busy;
  gboolean owns_frames;         /* unmap them when finished */
  gboolean out_staged;          /* copy staging_out into out when done */
  CudaConvPlan plan;
  GstVideoFrame in, out;
} FrameSlot;

/* The fastest strategy measured for one channel geometry. */
typedef struct {
  gint width, height, pixel_stride;
  CcSampleType sample;
  CcStrategy strategy;
} Tuned;

/* What the measurements depend on besides the geometry. */
typedef struct {
  gint radius;
  CcResponse response;
  gboolean separable;
  CcBorder border;
} TuneKey;

struct _CudaConvGpu {
  gint device;
  /* the GstCudaContext every call runs in (cudaconv-cuda-context.h), or
   * NULL: the device's primary context */
  GstObject *context;
  gchar *description;
  /* what the frames submitted from now on run (cudaconv_gpu_set_filter) */
  gboolean have_filter;
  CudaConvFilter settings;
  CcBorder border;
  CcStrategy strategy;
  /* settings as every launch passes them to its kernel; stale when they
   * or the configuration (the offset's scale) changed since it was made */
  CcCudaFilter *filter;
  gboolean filter_stale;
  /* the kernel family each component's last launch ran, and whether that
   * changed since cudaconv_gpu_take_kernel_report */
  gint families[GST_VIDEO_MAX_COMPONENTS];
  gboolean families_changed;
  GstAllocator *allocator;

  GstVideoInfo info;
  gboolean frame_layout;        /* slots hold frame_in / frame_out */
  guint n_planes;
  guint depth;
  FrameSlot slots[CUDACONV_GPU_MAX_DEPTH];
  guint oldest, in_flight;      /* a ring of slots */

  gboolean host_register;
  CudaConvHostRegister registered;

  gsize staging_size;
  /* frames travel word-packed (cudaconv_gpu_configure_word_packed) */
  gboolean word_packed;
  /* input and output frames are device memory of the context
   * (cudaconv_gpu_set_device_frames) */
  gboolean in_device, out_device;
  /* with in_device: the slots' input planes, made for the first input
   * frame of another context (or device), which is copied into them */
  gboolean input_planes;
  GstVideoInfo packed_info;

  TuneKey tune_key;
  Tuned tuned[MAX_TUNED];
  guint n_tuned;
};

static void
release_slots (CudaConvGpu * gpu)
{
  for (guint s = 0; s < CUDACONV_GPU_MAX_DEPTH; s++) {
    FrameSlot *slot = &gpu->slots[s];
    if (gpu->frame_layout) {
      cudaFree (slot->frame_in);
      cudaFree (slot->frame_out);
    } else {
      for (guint p = 0; p < gpu->n_planes; p++) {
        cudaFree (slot->planes[p].in);
        cudaFree (slot->planes[p].out);
      }
    }
    cudaFreeHost (slot->staging_in);
    cudaFreeHost (slot->staging_out);
    cudaFree (slot->packed_in);
    cudaFree (slot->packed_out);
    if (slot->done)
      cudaEventDestroy (slot->done);
    if (slot->stream)
      cudaStreamDestroy (slot->stream);
    memset (slot, 0, sizeof (*slot));
  }
  gpu->n_planes = 0;
  gpu->depth = 0;
  gpu->oldest = gpu->in_flight = 0;
  gpu->staging_size = 0;
  gpu->word_packed = FALSE;
}

/* The runtime says cudaErrorInsufficientDriver both for an old driver and
 * for none at all; the driver's library tells them apart. */
static gboolean
driver_installed (void)
{
  void *driver = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);

  if (driver)
    dlclose (driver);
  return driver != NULL;
}

gboolean
cudaconv_gpu_probe (gint device_id, GError ** error)
{
  cudaError_t status;
  int count = 0;

  status = cudaGetDeviceCount (&count);
  if (status == cudaErrorInsufficientDriver && !driver_installed ()) {
    (void) cudaGetLastError ();
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
    return FALSE;
  }
  if (!cudaconv_cuda_check (status, "cudaGetDeviceCount (&count)", error))
    return FALSE;
  if (count == 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "no CUDA device found");
    return FALSE;
  }
  if (device_id >= count) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "device-id %d does not exist: this machine has %d CUDA device(s)",
        device_id, count);
    return FALSE;
  }
  return TRUE;
}

/* Evaluates call with the backend's context current: its value, or FALSE
 * (error set) when the context cannot be made current. */
#define IN_CONTEXT(gpu, error, call) \
  (cudaconv_cuda_context_enter ((gpu)->context, (gpu)->device, (error)) \
      ? leave_with ((gpu), (call)) : FALSE)

static gboolean
leave_with (CudaConvGpu * gpu, gboolean result)
{
  cudaconv_cuda_context_leave (gpu->context);
  return result;
}

static gboolean
open_in_context (CudaConvGpu * gpu, GError ** error)
{
  struct cudaDeviceProp prop;

  if (!CUDACONV_CHECK (cudaGetDeviceProperties (&prop, gpu->device), error))
    return FALSE;
  gpu->description = g_strdup_printf ("device %d: %s (compute capability "
      "%d.%d)", gpu->device, prop.name, prop.major, prop.minor);
  if (prop.major * 10 + prop.minor < MIN_COMPUTE_CAPABILITY) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "%s is older than compute capability %d.%d, the oldest this build "
        "supports", gpu->description, MIN_COMPUTE_CAPABILITY / 10,
        MIN_COMPUTE_CAPABILITY % 10);
    return FALSE;
  }
  return TRUE;
}

CudaConvGpu *
cudaconv_gpu_open (gint device_id, GstObject * context, GError ** error)
{
  CudaConvGpu *gpu = g_new0 (CudaConvGpu, 1);

  gpu->host_register = TRUE;
  for (guint c = 0; c < GST_VIDEO_MAX_COMPONENTS; c++)
    gpu->families[c] = -1;
  if (context) {
    gpu->context = gst_object_ref (context);
    gpu->device = cudaconv_cuda_context_device (context);
  } else if (!cudaconv_gpu_probe (device_id, error)) {
    goto failed;
  } else {
    gpu->device = device_id < 0 ? 0 : device_id;
  }
  if (!IN_CONTEXT (gpu, error, open_in_context (gpu, error)))
    goto failed;
  gpu->filter = cc_cuda_filter_new ();
  if (!gpu->filter) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "out of host memory for the filter");
    goto failed;
  }
  gpu->allocator = cudaconv_pinned_allocator_new (gpu->device, gpu->context);
  cudaconv_host_register_init (&gpu->registered, gpu->context, gpu->device);
  return gpu;

failed:
  cudaconv_gpu_close (gpu);
  return NULL;
}

static gboolean
close_in_context (CudaConvGpu * gpu)
{
  cudaconv_gpu_discard (gpu);
  release_slots (gpu);
  (void) cudaGetLastError ();
  return TRUE;
}

void
cudaconv_gpu_close (CudaConvGpu * gpu)
{
  GError *err = NULL;

  if (!gpu)
    return;
  /* no frame slot, nothing made on the device */
  if (gpu->depth > 0 && !IN_CONTEXT (gpu, &err, close_in_context (gpu))) {
    GST_WARNING ("%s", err->message);
    g_clear_error (&err);
  }
  cc_cuda_filter_free (gpu->filter);
  gst_clear_object (&gpu->allocator);
  gst_clear_object (&gpu->context);
  g_free (gpu->description);
  g_free (gpu);
}

const gchar *
cudaconv_gpu_describe (CudaConvGpu * gpu)
{
  return gpu->description;
}

GstAllocator *
cudaconv_gpu_get_allocator (CudaConvGpu * gpu)
{
  return gpu->allocator;
}

GstBufferPool *
cudaconv_gpu_new_pool (CudaConvGpu * gpu, GstCaps * caps, guint size,
    guint min_buffers, guint max_buffers)
{
  return cudaconv_pinned_pool_new (gpu->allocator, caps, size, min_buffers,
      max_buffers);
}

void
cudaconv_gpu_set_host_register (CudaConvGpu * gpu, gboolean enable)
{
  gpu->host_register = enable;
}

gchar *
cudaconv_gpu_take_kernel_report (CudaConvGpu * gpu)
{
  GString *report;

  if (!gpu->families_changed)
    return NULL;
  gpu->families_changed = FALSE;
  report = g_string_new (NULL);
  for (guint c = 0; c < GST_VIDEO_MAX_COMPONENTS; c++)
    if (gpu->families[c] >= 0)
      g_string_append_printf (report, "%scomponent %u (plane %u): %s",
          report->len ? "; " : "", c, GST_VIDEO_INFO_COMP_PLANE (&gpu->info, c),
          cc_family_name ((CcFamily) gpu->families[c]));
  return g_string_free (report, FALSE);
}

void
cudaconv_gpu_set_device_frames (CudaConvGpu * gpu, gboolean in_device,
    gboolean out_device)
{
  g_return_if_fail (gpu->in_flight == 0);
  gpu->in_device = in_device;
  gpu->out_device = out_device;
}

guint
cudaconv_gpu_in_flight (CudaConvGpu * gpu)
{
  return gpu->in_flight;
}

static gboolean
configure_in_context (CudaConvGpu * gpu, const GstVideoInfo * info,
    guint depth, GError ** error)
{
  CudaConvPlan layout;
  gsize staging_size = 0;

  g_return_val_if_fail (gpu->in_flight == 0, FALSE);
  depth = CLAMP (depth, 1, CUDACONV_GPU_MAX_DEPTH);
  release_slots (gpu);
  gpu->input_planes = !gpu->in_device;
  gpu->info = *info;
  gpu->n_tuned = 0;
  /* the filter's offset is kept scaled to the format's depth */
  gpu->filter_stale = TRUE;
  /* only the plane geometry of the plan is used here */
  cudaconv_plan_make (&layout, info, 0, FALSE);
  gpu->n_planes = layout.n_planes;
  for (guint p = 0; p < layout.n_planes; p++)
    staging_size += layout.planes[p].row_bytes * layout.planes[p].rows;
  /* Device frames laid out like the host's let a frame travel as one copy
   * each way instead of one per plane (fewer, larger DMA transfers and
   * fewer calls per frame). Only layouts whose planes all start and step
   * on 16 bytes take it, so that every plane still moves as quads in the
   * kernels (the pitched planes of cudaMallocPitch do); other layouts keep
   * pitched planes. */
  gpu->frame_layout = TRUE;
  for (guint p = 0; p < layout.n_planes; p++)
    if ((GST_VIDEO_INFO_PLANE_OFFSET (info, p) |
            GST_VIDEO_INFO_PLANE_STRIDE (info, p)) & 15)
      gpu->frame_layout = FALSE;
  for (guint s = 0; s < depth; s++) {
    FrameSlot *slot = &gpu->slots[s];
    gsize offset = 0;

    gpu->depth = s + 1;
    if (!CUDACONV_CHECK (cudaStreamCreateWithFlags (&slot->stream,
                cudaStreamNonBlocking), error)
        || !CUDACONV_CHECK (cudaEventCreateWithFlags (&slot->done,
                cudaEventDisableTiming), error))
      goto failed;
    /* a side in device memory is read or written where it is: it needs
     * neither staging nor device planes of the slot's own */
    if ((!gpu->in_device && !CUDACONV_CHECK (cudaHostAlloc ((void **)
                    &slot->staging_in, staging_size, cudaHostAllocDefault),
                error))
        || (!gpu->out_device && !CUDACONV_CHECK (cudaHostAlloc ((void **)
                    &slot->staging_out, staging_size, cudaHostAllocDefault),
                error)))
      goto failed;
    if (gpu->frame_layout
        && ((!gpu->in_device && !CUDACONV_CHECK (cudaMalloc ((void **)
                        &slot->frame_in, GST_VIDEO_INFO_SIZE (info)), error))
            || (!gpu->out_device
                && (!CUDACONV_CHECK (cudaMalloc ((void **) &slot->frame_out,
                            GST_VIDEO_INFO_SIZE (info)), error)
                    /* row padding and gaps between planes, which no kernel
                     * writes, go out as zeros with the whole frame */
                    || !CUDACONV_CHECK (cudaMemset (slot->frame_out, 0,
                            GST_VIDEO_INFO_SIZE (info)), error)))))
      goto failed;
    for (guint p = 0; p < layout.n_planes; p++) {
      DevicePlane *dp = &slot->planes[p];
      const CudaConvPlanePlan *pp = &layout.planes[p];
      const gsize plane_offset = GST_VIDEO_INFO_PLANE_OFFSET (info, p);

      if (gpu->frame_layout) {
        dp->in = slot->frame_in ? slot->frame_in + plane_offset : NULL;
        dp->out = slot->frame_out ? slot->frame_out + plane_offset : NULL;
        dp->in_pitch = dp->out_pitch = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
      } else if ((!gpu->in_device && !CUDACONV_CHECK (cudaMallocPitch
                  (&dp->in, &dp->in_pitch, pp->row_bytes, pp->rows), error))
          || (!gpu->out_device && !CUDACONV_CHECK (cudaMallocPitch (&dp->out,
                      &dp->out_pitch, pp->row_bytes, pp->rows), error))) {
        goto failed;
      }
      dp->staging_offset = offset;
      offset += pp->row_bytes * pp->rows;
    }
  }
  gpu->staging_size = staging_size;
  GST_DEBUG ("configured %s %dx%d: %u planes, %u frame slots; input in %s "
      "memory, output in %s memory, %" G_GSIZE_FORMAT " bytes of staging "
      "for each side in host memory", GST_VIDEO_INFO_NAME (info),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      gpu->n_planes, gpu->depth, gpu->in_device ? "device" : "host",
      gpu->out_device ? "device" : "host", staging_size);
  return TRUE;

failed:
  release_slots (gpu);
  return FALSE;
}

gboolean
cudaconv_gpu_configure (CudaConvGpu * gpu, const GstVideoInfo * info,
    guint depth, GError ** error)
{
  return IN_CONTEXT (gpu, error, configure_in_context (gpu, info, depth,
          error));
}

static void
copy_rows (guint8 * dst, gsize dst_pitch, const guint8 * src, gsize src_pitch,
    gsize row_bytes, gint rows)
{
  for (gint y = 0; y < rows; y++)
    memcpy (dst + y * dst_pitch, src + y * src_pitch, row_bytes);
}

/* separable runs tiled-halo on a filter without factors (the element has
 * said so on the bus) */
static CcStrategy
runnable_strategy (CcStrategy strategy, gboolean separable)
{
  return strategy == CC_STRATEGY_SEPARABLE && !separable ?
      CC_STRATEGY_TILED_HALO : strategy;
}

/* the strategy property's nick for the value */
static const gchar *
strategy_name (CcStrategy strategy)
{
  GEnumClass *strategies = g_type_class_ref (GST_TYPE_CUDACONV_STRATEGY);
  const GEnumValue *value = g_enum_get_value (strategies, strategy);

  g_type_class_unref (strategies);
  return value ? value->value_nick : "?";
}

/* strategy=auto: the fastest strategy for this channel's geometry and this
 * filter's shape, timed on the device once and then remembered. */
static gboolean
pick_strategy (CudaConvGpu * gpu, FrameSlot * slot, const CcComponent * s,
    const CcComponent * d, CcStrategy * strategy, GError ** error)
{
  const CudaConvFilter *filter = &gpu->settings;
  const TuneKey key = { filter->radius, filter->response, filter->separable,
    gpu->border
  };
  float ms[CC_N_FAMILIES];

  if (memcmp (&key, &gpu->tune_key, sizeof (key)) != 0) {
    gpu->tune_key = key;
    gpu->n_tuned = 0;
  }
  for (guint i = 0; i < gpu->n_tuned; i++) {
    const Tuned *t = &gpu->tuned[i];
    if (t->width == s->width && t->height == s->height
        && t->pixel_stride == s->pixel_stride && t->sample == s->sample) {
      *strategy = t->strategy;
      return TRUE;
    }
  }
  if (!CUDACONV_CHECK (cc_cuda_fastest_strategy (s, d, gpu->filter,
              gpu->border, slot->stream, strategy, ms), error))
    return FALSE;
  if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) >= GST_LEVEL_INFO) {
    GString *times = g_string_new (NULL);
    for (gint f = 0; f < CC_N_FAMILIES; f++)
      if (ms[f] >= 0.0f)
        g_string_append_printf (times, " %s %.4f ms,",
            cc_family_name ((CcFamily) f), ms[f]);
    GST_INFO ("strategy for %dx%d (stride %d, %d-bit), radius %d%s:%s "
        "fastest: %s", s->width, s->height, s->pixel_stride,
        8 * (int) s->sample, filter->radius,
        filter->separable ? " separable" : "", times->str,
        strategy_name (*strategy));
    g_string_free (times, TRUE);
  }
  if (gpu->n_tuned < MAX_TUNED) {
    Tuned t = { s->width, s->height, s->pixel_stride, s->sample, *strategy };
    gpu->tuned[gpu->n_tuned++] = t;
  }
  return TRUE;
}

static gboolean
run_plane_kernels (CudaConvGpu * gpu, FrameSlot * slot, guint p,
    const DevicePlane * dp, GError ** error)
{
  const CudaConvPlan *plan = &slot->plan;
  const CudaConvPlanePlan *pp = &plan->planes[p];

  for (gint i = 0; i < pp->n_components; i++) {
    gint c = pp->components[i];
    CcComponent s[CUDACONV_MAX_REGIONS], d[CUDACONV_MAX_REGIONS];
    const guint n = cudaconv_plan_regions (plan, &gpu->info, c, dp->in,
        dp->in_pitch, s);

    cudaconv_plan_regions (plan, &gpu->info, c, dp->out, dp->out_pitch, d);
    for (guint k = 0; k < n; k++) {
      if (plan->action[c] == CUDACONV_ACTION_FILTER) {
        CcStrategy cs = runnable_strategy (gpu->strategy,
            gpu->settings.separable);
        CcFamily family;
        if (gpu->strategy == CC_STRATEGY_AUTO
            && !pick_strategy (gpu, slot, &s[k], &d[k], &cs, error))
          return FALSE;
        /* the frame's input came by a copy, and the kernels before this
         * one on the stream write other planes or other rows */
        if (!CUDACONV_CHECK (cc_cuda_convolve (&s[k], &d[k], gpu->filter,
                    gpu->border, cs, slot->stream, CC_LAUNCH_SRC_READY,
                    &family), error))
          return FALSE;
        if (gpu->families[c] != (gint) family) {
          gpu->families[c] = family;
          gpu->families_changed = TRUE;
        }
      } else if (plan->action[c] == CUDACONV_ACTION_FILL) {
        if (!CUDACONV_CHECK (cc_cuda_fill (&d[k], plan->fill_value[c],
                    slot->stream), error))
          return FALSE;
      }
    }
  }
  return TRUE;
}

void
cudaconv_gpu_set_filter (CudaConvGpu * gpu, const CudaConvFilter * filter,
    CcBorder border, CcStrategy strategy)
{
  gpu->settings = *filter;
  gpu->border = border;
  gpu->strategy = strategy;
  gpu->have_filter = TRUE;
  gpu->filter_stale = TRUE;
}

/* Each launch passes the filter to its kernel as it is then, so a new one
 * takes effect from the next launch on, and frames in flight keep theirs. */
static gboolean
make_kernel_filter (CudaConvGpu * gpu, FrameSlot * slot, GError ** error)
{
  CcFilter view = cudaconv_filter_view (&gpu->settings);

  /* every frame of a configuration has the same depth */
  view.offset *= slot->plan.offset_scale;
  if (!CUDACONV_CHECK (cc_cuda_filter_set (gpu->filter, &view), error))
    return FALSE;
  gpu->filter_stale = FALSE;
  return TRUE;
}

/* Whether frame is one block of memory laid out as the negotiated caps
 * say, so that it can be copied whole into or out of a device frame: that
 * copy also takes the last row's padding and whatever follows the last
 * plane, which the frame check does not ask a buffer to hold. */
static gboolean
frame_is_whole (const CudaConvGpu * gpu, const GstVideoFrame * frame)
{
  const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  const GstMapInfo *map = &frame->map[0];
  const gsize frame_bytes = GST_VIDEO_INFO_SIZE (&gpu->info) -
      GST_VIDEO_INFO_PLANE_OFFSET (&gpu->info, 0);

  if (gst_buffer_n_memory (frame->buffer) != 1
      || (gsize) (map->data + map->size - base) < frame_bytes)
    return FALSE;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++)
    if (GST_VIDEO_FRAME_PLANE_STRIDE (frame, p) !=
        GST_VIDEO_INFO_PLANE_STRIDE (&gpu->info, p)
        || (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, p) - base !=
        (gssize) (GST_VIDEO_INFO_PLANE_OFFSET (&gpu->info, p) -
            GST_VIDEO_INFO_PLANE_OFFSET (&gpu->info, 0)))
      return FALSE;
  return TRUE;
}

/* Whether plane p goes through the device: it is filtered there, or a
 * side of the frame is device memory. */
static gboolean
plane_on_device (const CudaConvGpu * gpu, const FrameSlot * slot, guint p)
{
  return slot->plan.planes[p].process || gpu->in_device || gpu->out_device;
}

/* Whether one side of the slot's frame, in host memory, can travel as one
 * copy: device frames exist, the frame is copied by DMA and laid out as
 * the caps say, and every plane goes through the device (a copy back
 * carries them all). A crop's picture inside a larger buffer goes plane by
 * plane. */
static gboolean
copies_whole_frame (const CudaConvGpu * gpu, const FrameSlot * slot,
    const GstVideoFrame * frame, gboolean direct)
{
  if (!gpu->frame_layout || !direct || !frame_is_whole (gpu, frame))
    return FALSE;
  for (guint p = 0; p < slot->plan.n_planes; p++)
    if (!plane_on_device (gpu, slot, p))
      return FALSE;
  return TRUE;
}

/* Whether the input frame's planes are read by the device directly:
 * device memory, our pinned memory or memory the host registration cache
 * has page-locked. */
static gboolean
input_by_dma (CudaConvGpu * gpu, GstVideoFrame * in)
{
  return gpu->in_device || cudaconv_buffer_is_pinned (in->buffer)
      || (gpu->host_register
      && cudaconv_host_register_frame (&gpu->registered, in));
}

/* Whether the output frame's planes are written by the device directly. */
static gboolean
output_by_dma (const CudaConvGpu * gpu, const GstVideoFrame * out)
{
  return gpu->out_device || cudaconv_buffer_is_pinned (out->buffer);
}

static gboolean
configure_word_packed_in_context (CudaConvGpu * gpu,
    const GstVideoInfo * packed_info, GError ** error)
{
  gsize row_bytes;
  gint rows;

  g_return_val_if_fail (gpu->in_flight == 0 && gpu->depth > 0, FALSE);
  cudaconv_plane_geometry (packed_info, 0, &row_bytes, &rows);
  for (guint s = 0; s < gpu->depth; s++) {
    FrameSlot *slot = &gpu->slots[s];
    if (!CUDACONV_CHECK (cudaMalloc ((void **) &slot->packed_in,
                GST_VIDEO_INFO_SIZE (packed_info)), error)
        || !CUDACONV_CHECK (cudaMalloc ((void **) &slot->packed_out,
                GST_VIDEO_INFO_SIZE (packed_info)), error))
      return FALSE;
    /* the twin's planes take more bytes than the packed frame, but the
     * staging must hold the packed rows whatever the format */
    if (row_bytes * rows > gpu->staging_size) {
      cudaFreeHost (slot->staging_in);
      cudaFreeHost (slot->staging_out);
      slot->staging_in = slot->staging_out = NULL;
      if (!CUDACONV_CHECK (cudaHostAlloc ((void **) &slot->staging_in,
                  row_bytes * rows, cudaHostAllocDefault), error)
          || !CUDACONV_CHECK (cudaHostAlloc ((void **) &slot->staging_out,
                  row_bytes * rows, cudaHostAllocDefault), error))
        return FALSE;
    }
  }
  gpu->staging_size = MAX (gpu->staging_size, row_bytes * rows);
  gpu->packed_info = *packed_info;
  gpu->word_packed = TRUE;
  return TRUE;
}

gboolean
cudaconv_gpu_configure_word_packed (CudaConvGpu * gpu,
    const GstVideoInfo * packed_info, GError ** error)
{
  return IN_CONTEXT (gpu, error, configure_word_packed_in_context (gpu,
          packed_info, error));
}

/* The kernels' name for a word-packed format */
static CcWordLayout
word_layout (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_v210:
      return CC_WORD_V210;
    case GST_VIDEO_FORMAT_Y410:
      return CC_WORD_Y410;
    case GST_VIDEO_FORMAT_RGB10A2_LE:
      return CC_WORD_RGB10A2;
    default:
      return CC_WORD_BGR10A2;
  }
}

/* The twin's device planes that hold the packed format's planes or fields,
 * on the input (in) or the output side */
static void
word_planes (const CudaConvGpu * gpu, const FrameSlot * slot,
    const gint comps[4], gboolean in, void *planes[4], size_t pitches[4])
{
  for (gint k = 0; k < 4; k++) {
    const DevicePlane *dp;
    if (comps[k] < 0) {
      planes[k] = NULL;
      pitches[k] = 0;
      continue;
    }
    dp = &slot->planes[GST_VIDEO_INFO_COMP_PLANE (&gpu->info, comps[k])];
    planes[k] = in ? dp->in : dp->out;
    pitches[k] = in ? dp->in_pitch : dp->out_pitch;
  }
}

/* A word-packed frame on the slot's stream: copied to the device as it is,
 * unpacked there into the twin's planes, filtered, packed and copied back
 * (into staging_out when out is not copied by DMA). */
static gboolean
enqueue_word_packed (CudaConvGpu * gpu, FrameSlot * slot, GError ** error)
{
  const gboolean in_direct = input_by_dma (gpu, &slot->in);
  const gboolean out_direct = output_by_dma (gpu, &slot->out);
  const CudaConvPlan *plan = &slot->plan;
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (&gpu->packed_info);
  const CcWordLayout layout = word_layout (format);
  const gsize pitch = GST_VIDEO_INFO_PLANE_STRIDE (&gpu->packed_info, 0);
  const gint width = GST_VIDEO_INFO_WIDTH (&gpu->info);
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&slot->in, 0);
  gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->in, 0);
  void *planes[4];
  size_t pitches[4];
  gint comps[4], rows;
  gsize row_bytes;

  cudaconv_word_packed_components (format, comps);
  cudaconv_plane_geometry (&gpu->packed_info, 0, &row_bytes, &rows);
  if (!in_direct) {
    copy_rows (slot->staging_in, row_bytes, src, src_pitch, row_bytes, rows);
    src = slot->staging_in;
    src_pitch = row_bytes;
  }
  slot->out_staged = !out_direct;
  word_planes (gpu, slot, comps, TRUE, planes, pitches);
  if (!CUDACONV_CHECK (cudaMemcpy2DAsync (slot->packed_in, pitch, src,
              src_pitch, row_bytes, rows, cudaMemcpyHostToDevice,
              slot->stream), error)
      || !CUDACONV_CHECK (cc_cuda_word_packed_convert (layout, 1,
              slot->packed_in, pitch, width, rows, planes, pitches,
              slot->stream), error))
    return FALSE;
  for (guint p = 0; p < plan->n_planes; p++) {
    const CudaConvPlanePlan *pp = &plan->planes[p];
    const DevicePlane *dp = &slot->planes[p];
    /* the output planes are packed whole: what no action writes is the
     * input's */
    if ((!pp->process || pp->copy_first)
        && !CUDACONV_CHECK (cudaMemcpy2DAsync (dp->out, dp->out_pitch, dp->in,
                dp->in_pitch, pp->row_bytes, pp->rows,
                cudaMemcpyDeviceToDevice, slot->stream), error))
      return FALSE;
    if (pp->process && !run_plane_kernels (gpu, slot, p, dp, error))
      return FALSE;
  }
  word_planes (gpu, slot, comps, FALSE, planes, pitches);
  if (!CUDACONV_CHECK (cc_cuda_word_packed_convert (layout, 0,
              slot->packed_out, pitch, width, rows, planes, pitches,
              slot->stream), error))
    return FALSE;
  return CUDACONV_CHECK (cudaMemcpy2DAsync (out_direct ?
          GST_VIDEO_FRAME_PLANE_DATA (&slot->out, 0) : slot->staging_out,
          out_direct ? (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, 0) :
          row_bytes, slot->packed_out, pitch, row_bytes, rows,
          cudaMemcpyDeviceToHost, slot->stream), error)
      && CUDACONV_CHECK (cudaEventRecord (slot->done, slot->stream), error);
}

/* Input planes of the slots' own for frames in device memory of another
 * context or device, which are copied into them (the kernels read memory
 * of their own context only): made once, for the first such frame. */
static gboolean
make_input_planes (CudaConvGpu * gpu, GError ** error)
{
  CudaConvPlan layout;
  const gsize frame_size = GST_VIDEO_INFO_SIZE (&gpu->info);

  cudaconv_plan_make (&layout, &gpu->info, 0, FALSE);
  for (guint s = 0; s < gpu->depth; s++) {
    FrameSlot *slot = &gpu->slots[s];
    if (gpu->frame_layout && !slot->frame_in
        && !CUDACONV_CHECK (cudaMalloc ((void **) &slot->frame_in,
                frame_size), error))
      return FALSE;
    for (guint p = 0; p < layout.n_planes; p++) {
      DevicePlane *dp = &slot->planes[p];
      if (gpu->frame_layout) {
        dp->in = slot->frame_in + GST_VIDEO_INFO_PLANE_OFFSET (&gpu->info, p);
        dp->in_pitch = GST_VIDEO_INFO_PLANE_STRIDE (&gpu->info, p);
      } else if (!dp->in && !CUDACONV_CHECK (cudaMallocPitch (&dp->in,
                  &dp->in_pitch, layout.planes[p].row_bytes,
                  layout.planes[p].rows), error)) {
        return FALSE;
      }
    }
  }
  gpu->input_planes = TRUE;
  GST_INFO ("input of another CUDA context: copied into %u frame slots of "
      "ours", gpu->depth);
  return TRUE;
}

/* A frame on the slot's stream. A side in host memory is copied to or
 * from the slot's device planes (by DMA where the memory is pinned or
 * registered, else through staging); a side in device memory of the
 * context is read or written where it is. Planes that no kernel writes
 * are copied on the device, or on the host while the GPU works when both
 * sides are host memory. */
static gboolean
enqueue_planes (CudaConvGpu * gpu, FrameSlot * slot, GError ** error)
{
  const CudaConvPlan *plan = &slot->plan;
  GstVideoFrame *in = &slot->in, *out = &slot->out;
  const gboolean in_direct = input_by_dma (gpu, in);
  const gboolean out_direct = output_by_dma (gpu, out);
  /* bytes from the first plane's first byte to the frame's end */
  const gsize frame_bytes = GST_VIDEO_INFO_SIZE (&gpu->info) -
      GST_VIDEO_INFO_PLANE_OFFSET (&gpu->info, 0);
  const gboolean whole_in = !gpu->in_device
      && copies_whole_frame (gpu, slot, in, in_direct);
  const gboolean whole_out = !gpu->out_device
      && copies_whole_frame (gpu, slot, out, out_direct);
  /* device memory of another context or device: CUDA copies it (peer to
   * peer where the GPUs allow, else through the host) */
  const gboolean foreign_in = gpu->in_device
      && !cudaconv_cuda_buffer_in_context (in->buffer, gpu->context);

  if (foreign_in && !gpu->input_planes && !make_input_planes (gpu, error))
    return FALSE;
  slot->out_staged = !out_direct;
  if (whole_in && !CUDACONV_CHECK (cudaMemcpyAsync (slot->planes[0].in,
              GST_VIDEO_FRAME_PLANE_DATA (in, 0), frame_bytes,
              cudaMemcpyHostToDevice, slot->stream), error))
    return FALSE;
  for (guint p = 0; p < plan->n_planes; p++) {
    const CudaConvPlanePlan *pp = &plan->planes[p];
    DevicePlane dp = slot->planes[p];
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);

    if (!plane_on_device (gpu, slot, p))
      continue;
    if (foreign_in) {
      if (!CUDACONV_CHECK (cudaMemcpy2DAsync (dp.in, dp.in_pitch, src,
                  src_pitch, pp->row_bytes, pp->rows, cudaMemcpyDefault,
                  slot->stream), error))
        return FALSE;
    } else if (gpu->in_device) {
      dp.in = (void *) src;
      dp.in_pitch = src_pitch;
    } else if (!whole_in) {
      if (!in_direct) {
        copy_rows (slot->staging_in + dp.staging_offset, pp->row_bytes, src,
            src_pitch, pp->row_bytes, pp->rows);
        src = slot->staging_in + dp.staging_offset;
        src_pitch = pp->row_bytes;
      }
      if (!CUDACONV_CHECK (cudaMemcpy2DAsync (dp.in, dp.in_pitch, src,
                  src_pitch, pp->row_bytes, pp->rows, cudaMemcpyHostToDevice,
                  slot->stream), error))
        return FALSE;
    }
    if (gpu->out_device) {
      dp.out = GST_VIDEO_FRAME_PLANE_DATA (out, p);
      dp.out_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    }
    if ((!pp->process || pp->copy_first)
        && !CUDACONV_CHECK (cudaMemcpy2DAsync (dp.out, dp.out_pitch, dp.in,
                dp.in_pitch, pp->row_bytes, pp->rows, cudaMemcpyDeviceToDevice,
                slot->stream), error))
      return FALSE;
    if (pp->process && !run_plane_kernels (gpu, slot, p, &dp, error))
      return FALSE;
    if (gpu->out_device || whole_out)
      continue;
    if (!CUDACONV_CHECK (cudaMemcpy2DAsync (out_direct ?
                GST_VIDEO_FRAME_PLANE_DATA (out, p) : slot->staging_out +
                dp.staging_offset, out_direct ? (gsize)
                GST_VIDEO_FRAME_PLANE_STRIDE (out, p) : pp->row_bytes, dp.out,
                dp.out_pitch, pp->row_bytes, pp->rows, cudaMemcpyDeviceToHost,
                slot->stream), error))
      return FALSE;
  }
  if (whole_out && !CUDACONV_CHECK (cudaMemcpyAsync (GST_VIDEO_FRAME_PLANE_DATA
              (out, 0), slot->planes[0].out, frame_bytes,
              cudaMemcpyDeviceToHost, slot->stream), error))
    return FALSE;
  if (!CUDACONV_CHECK (cudaEventRecord (slot->done, slot->stream), error))
    return FALSE;

  /* planes left as they are between host frames */
  for (guint p = 0; p < plan->n_planes; p++)
    if (!plane_on_device (gpu, slot, p))
      cudaconv_plan_copy_plane (plan, p, out, in);
  return TRUE;
}

/* Queues the frame in slot on its stream. */
static gboolean
enqueue_frame (CudaConvGpu * gpu, FrameSlot * slot, GError ** error)
{
  if (slot->plan.any_filter && !gpu->have_filter)
    goto no_filter;
  if (slot->plan.any_filter && gpu->filter_stale
      && !make_kernel_filter (gpu, slot, error))
    return FALSE;
  if (gpu->word_packed)
    return enqueue_word_packed (gpu, slot, error);
  return enqueue_planes (gpu, slot, error);

  /* ERRORS */
no_filter:
  g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "no filter was set before the first frame");
  return FALSE;
}

/* Waits for the slot's frame and completes its output. */
static gboolean
complete_slot (CudaConvGpu * gpu, FrameSlot * slot, GError ** error)
{
  if (!CUDACONV_CHECK (cudaEventSynchronize (slot->done), error))
    return FALSE;
  if (slot->out_staged && gpu->word_packed) {
    gsize row_bytes;
    gint rows;
    cudaconv_plane_geometry (&gpu->packed_info, 0, &row_bytes, &rows);
    copy_rows (GST_VIDEO_FRAME_PLANE_DATA (&slot->out, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, 0), slot->staging_out,
        row_bytes, row_bytes, rows);
  } else if (slot->out_staged) {
    for (guint p = 0; p < slot->plan.n_planes; p++) {
      const CudaConvPlanePlan *pp = &slot->plan.planes[p];
      if (plane_on_device (gpu, slot, p))
        copy_rows (GST_VIDEO_FRAME_PLANE_DATA (&slot->out, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, p),
            slot->staging_out + slot->planes[p].staging_offset,
            pp->row_bytes, pp->row_bytes, pp->rows);
    }
  }
  return TRUE;
}

/* Gives the slot back; returns its output buffer when it owned the frames
 * and keep_output is set. */
static GstBuffer *
release_slot (FrameSlot * slot, gboolean keep_output)
{
  GstBuffer *out = NULL;
  if (slot->owns_frames) {
    if (keep_output)
      out = gst_buffer_ref (slot->out.buffer);
    gst_video_frame_unmap (&slot->in);
    gst_video_frame_unmap (&slot->out);
  }
  slot->busy = FALSE;
  slot->owns_frames = FALSE;
  return out;
}

static void
advance_oldest (CudaConvGpu * gpu)
{
  gpu->oldest = (gpu->oldest + 1) % gpu->depth;
  gpu->in_flight--;
}

static gboolean
start_frame (CudaConvGpu * gpu, gboolean owns_frames,
    const CudaConvPlan * plan, GstVideoFrame * in, GstVideoFrame * out,
    GError ** error)
{
  FrameSlot *slot;
  gboolean ok;

  g_return_val_if_fail (gpu->depth > 0 && gpu->in_flight < gpu->depth, FALSE);
  slot = &gpu->slots[(gpu->oldest + gpu->in_flight) % gpu->depth];
  slot->busy = TRUE;
  slot->owns_frames = owns_frames;
  slot->plan = *plan;
  slot->in = *in;
  slot->out = *out;
  if (!cudaconv_cuda_context_enter (gpu->context, gpu->device, error)) {
    release_slot (slot, FALSE);
    return FALSE;
  }
  ok = enqueue_frame (gpu, slot, error);
  if (!ok) {
    /* copies already queued may still read or write the frames */
    cudaStreamSynchronize (slot->stream);
    (void) cudaGetLastError ();
    release_slot (slot, FALSE);
  }
  cudaconv_cuda_context_leave (gpu->context);
  if (ok)
    gpu->in_flight++;
  return ok;
}

gboolean
cudaconv_gpu_process (CudaConvGpu * gpu, const CudaConvPlan * plan,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  GstBuffer *none;

  /* frames queued by submit come out first, in order; with none in flight
   * this frame is the oldest, and a slot that does not own its frames hands
   * back no buffer */
  g_return_val_if_fail (gpu->in_flight == 0, FALSE);
  if (!start_frame (gpu, FALSE, plan, in, out, error))
    return FALSE;
  return cudaconv_gpu_finish_oldest (gpu, &none, error);
}

gboolean
cudaconv_gpu_submit (CudaConvGpu * gpu, const CudaConvPlan * plan,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  return start_frame (gpu, TRUE, plan, in, out, error);
}

gboolean
cudaconv_gpu_finish_oldest (CudaConvGpu * gpu, GstBuffer ** out,
    GError ** error)
{
  FrameSlot *slot;
  gboolean ok;

  *out = NULL;
  g_return_val_if_fail (gpu->in_flight > 0, FALSE);
  slot = &gpu->slots[gpu->oldest];
  /* the frame stays in flight: its copies may still run */
  if (!cudaconv_cuda_context_enter (gpu->context, gpu->device, error))
    return FALSE;
  ok = complete_slot (gpu, slot, error);
  if (!ok) {
    cudaStreamSynchronize (slot->stream);
    (void) cudaGetLastError ();
  }
  cudaconv_cuda_context_leave (gpu->context);
  *out = release_slot (slot, ok);
  advance_oldest (gpu);
  return ok;
}

void
cudaconv_gpu_discard (CudaConvGpu * gpu)
{
  GError *err = NULL;

  if (gpu->in_flight == 0)
    return;
  /* frames whose copies may still run are kept rather than freed */
  if (!cudaconv_cuda_context_enter (gpu->context, gpu->device, &err)) {
    GST_WARNING ("%u frames left in flight: %s", gpu->in_flight,
        err->message);
    g_error_free (err);
    return;
  }
  while (gpu->in_flight > 0) {
    FrameSlot *slot = &gpu->slots[gpu->oldest];
    cudaStreamSynchronize (slot->stream);
    release_slot (slot, FALSE);
    advance_oldest (gpu);
  }
  (void) cudaGetLastError ();
  cudaconv_cuda_context_leave (gpu->context);
}

/* cudaconv: the CUDA back end (cudaconv-backend.h): frame slots, each
 * with its own stream, in the CUDA context the element shares with its
 * pipeline (see cudaconv-cuda-backend-private.h). */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"
#include "cudaconv-cuda-context.h"
#include "cudaconv-pinned-allocator.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* The oldest architecture the fat binary carries code for. */
#define MIN_COMPUTE_CAPABILITY 75

static void
release_slots (CudaBackend * cuda)
{
  for (guint s = 0; s < CUDACONV_MAX_DEPTH; s++) {
    FrameSlot *slot = &cuda->slots[s];
    if (cuda->frame_layout) {
      cudaFree (slot->frame_in);
      cudaFree (slot->frame_out);
    } else {
      for (guint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
        cudaFree (slot->planes[p].in);
        cudaFree (slot->planes[p].out);
      }
    }
    cudaFreeHost (slot->staging_in);
    cudaFreeHost (slot->staging_out);
    cudaFree (slot->packed_in);
    cudaFree (slot->packed_out);
    cudaFree (slot->scratch);
    cudaFree (slot->workspace);
    cc_frame_graph_free (slot->graph);
    if (slot->done)
      cudaEventDestroy (slot->done);
    if (slot->stream)
      cudaStreamDestroy (slot->stream);
    memset (slot, 0, sizeof (*slot));
  }
  cuda->parent.depth = 0;
  cuda->oldest = cuda->in_flight = 0;
  cuda->staging_size = 0;
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
cudaconv_cuda_backend_probe (gint device_id, GError ** error)
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

gint
cudaconv_cuda_device_count (void)
{
  int count = 0;

  if (cudaGetDeviceCount (&count) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  return count;
}

/* Evaluates call with the back end's context current: its value, or FALSE
 * (error set) when the context cannot be made current. */
#define IN_CONTEXT(cuda, error, call) \
  (cudaconv_cuda_context_enter ((cuda)->context, (cuda)->device, (error)) \
      ? leave_with ((cuda), (call)) : FALSE)

static gboolean
leave_with (CudaBackend * cuda, gboolean result)
{
  cudaconv_cuda_context_leave (cuda->context);
  return result;
}

static gboolean
open_in_context (CudaBackend * cuda, GError ** error)
{
  struct cudaDeviceProp prop;

  if (!CUDACONV_CHECK (cudaGetDeviceProperties (&prop, cuda->device), error))
    return FALSE;
  cuda->description = g_strdup_printf ("device %d: %s (compute capability "
      "%d.%d)", cuda->device, prop.name, prop.major, prop.minor);
  if (prop.major * 10 + prop.minor < MIN_COMPUTE_CAPABILITY) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "%s is older than compute capability %d.%d, the oldest this build "
        "supports", cuda->description, MIN_COMPUTE_CAPABILITY / 10,
        MIN_COMPUTE_CAPABILITY % 10);
    return FALSE;
  }
  cuda->maps_host_memory = prop.unifiedAddressing
      && prop.canUseHostPointerForRegisteredMem;
  return TRUE;
}

static void cuda_discard (CudaConvBackend * backend);

static gboolean
close_in_context (CudaBackend * cuda)
{
  cuda_discard (&cuda->parent);
  release_slots (cuda);
  (void) cudaGetLastError ();
  return TRUE;
}

static void
cuda_close (CudaConvBackend * backend)
{
  CudaBackend *cuda = (CudaBackend *) backend;
  GError *err = NULL;

  /* no frame slot, nothing made on the device */
  if (backend->depth > 0 && !IN_CONTEXT (cuda, &err, close_in_context (cuda))) {
    GST_WARNING ("%s", err->message);
    g_clear_error (&err);
  }
  gst_clear_object (&cuda->allocator);
  gst_clear_object (&cuda->context);
  g_free (cuda->description);
  g_free (cuda);
}

static const gchar *
cuda_describe (CudaConvBackend * backend)
{
  return ((CudaBackend *) backend)->description;
}

static GstAllocator *
cuda_allocator (CudaConvBackend * backend)
{
  return ((CudaBackend *) backend)->allocator;
}

static GstBufferPool *
cuda_new_pool (CudaConvBackend * backend, GstCaps * caps, guint size,
    guint min_buffers, guint max_buffers)
{
  return cudaconv_pinned_pool_new (((CudaBackend *) backend)->allocator, caps,
      size, min_buffers, max_buffers);
}

static guint
cuda_in_flight (CudaConvBackend * backend)
{
  return ((CudaBackend *) backend)->in_flight;
}

/* Device memory and pinned staging for the planes of the layout's work
 * format, in depth slots. */
static gboolean
make_slots (CudaBackend * cuda, guint depth, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const GstVideoInfo *info = &layout->work_info;
  gsize staging_size = 0, workspace_bytes = 0;

  for (guint p = 0; p < layout->n_planes; p++)
    staging_size += layout->planes[p].row_bytes * layout->planes[p].rows;
  /* 4 bytes a sample of the largest component: enough for every filter
   * the settings can make later (cc_cuda_workspace_bytes), so a change of
   * filter never allocates */
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    workspace_bytes = MAX (workspace_bytes, (gsize) 4 *
        GST_VIDEO_INFO_COMP_WIDTH (info, c) *
        GST_VIDEO_INFO_COMP_HEIGHT (info, c));
  /* a word-packed frame travels as it is: the staging holds its rows */
  if (layout->word_packed)
    staging_size = MAX (staging_size, layout->caps_planes[0].row_bytes *
        layout->caps_planes[0].rows);
  /* Device frames laid out like the host's let a frame travel as one copy
   * each way instead of one per plane (fewer, larger DMA transfers and
   * fewer calls per frame). Only layouts whose planes all start and step
   * on 16 bytes take it, so that every plane still moves as quads in the
   * kernels (the pitched planes of cudaMallocPitch do); other layouts keep
   * pitched planes. */
  cuda->frame_layout = TRUE;
  for (guint p = 0; p < layout->n_planes; p++)
    if ((GST_VIDEO_INFO_PLANE_OFFSET (info, p) |
            GST_VIDEO_INFO_PLANE_STRIDE (info, p)) & 15)
      cuda->frame_layout = FALSE;
  for (guint s = 0; s < depth; s++) {
    FrameSlot *slot = &cuda->slots[s];
    gsize offset = 0;

    cuda->parent.depth = s + 1;
    if (!CUDACONV_CHECK (cudaStreamCreateWithFlags (&slot->stream,
                cudaStreamNonBlocking), error)
        || !CUDACONV_CHECK (cudaEventCreateWithFlags (&slot->done,
                cudaEventDisableTiming), error))
      return FALSE;
    /* a side in device memory is read or written where it is: it needs
     * neither staging nor device planes of the slot's own */
    if ((!cuda->in_device && !CUDACONV_CHECK (cudaHostAlloc ((void **)
                    &slot->staging_in, staging_size, cudaHostAllocDefault),
                error))
        || (!cuda->out_device && !CUDACONV_CHECK (cudaHostAlloc ((void **)
                    &slot->staging_out, staging_size, cudaHostAllocDefault),
                error)))
      return FALSE;
    if (cuda->frame_layout
        && ((!cuda->in_device && !CUDACONV_CHECK (cudaMalloc ((void **)
                        &slot->frame_in, GST_VIDEO_INFO_SIZE (info)), error))
            || (!cuda->out_device
                && (!CUDACONV_CHECK (cudaMalloc ((void **) &slot->frame_out,
                            GST_VIDEO_INFO_SIZE (info)), error)
                    /* row padding and gaps between planes, which no kernel
                     * writes, go out as zeros with the whole frame */
                    || !CUDACONV_CHECK (cudaMemset (slot->frame_out, 0,
                            GST_VIDEO_INFO_SIZE (info)), error)))))
      return FALSE;
    if (!CUDACONV_CHECK (cudaMalloc (&slot->workspace, workspace_bytes),
            error))
      return FALSE;
    slot->workspace_bytes = workspace_bytes;
    if (layout->word_packed
        && (!CUDACONV_CHECK (cudaMalloc ((void **) &slot->packed_in,
                    GST_VIDEO_INFO_SIZE (&layout->info)), error)
            || !CUDACONV_CHECK (cudaMalloc ((void **) &slot->packed_out,
                    GST_VIDEO_INFO_SIZE (&layout->info)), error)))
      return FALSE;
    for (guint p = 0; p < layout->n_planes; p++) {
      DevicePlane *dp = &slot->planes[p];
      const CudaConvPlaneLayout *pl = &layout->planes[p];
      const gsize plane_offset = GST_VIDEO_INFO_PLANE_OFFSET (info, p);

      if (cuda->frame_layout) {
        dp->in = slot->frame_in ? slot->frame_in + plane_offset : NULL;
        dp->out = slot->frame_out ? slot->frame_out + plane_offset : NULL;
        dp->in_pitch = dp->out_pitch = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
      } else if ((!cuda->in_device && !CUDACONV_CHECK (cudaMallocPitch
                  (&dp->in, &dp->in_pitch, pl->row_bytes, pl->rows), error))
          || (!cuda->out_device && !CUDACONV_CHECK (cudaMallocPitch (&dp->out,
                      &dp->out_pitch, pl->row_bytes, pl->rows), error))) {
        return FALSE;
      }
      dp->staging_offset = offset;
      offset += pl->row_bytes * pl->rows;
    }
  }
  cuda->staging_size = staging_size;
  return TRUE;
}

static gboolean
configure_in_context (CudaBackend * cuda, const CudaConvStreamConfig * config,
    GError ** error)
{
  const CudaConvLayout *layout = config->layout;

  release_slots (cuda);
  cuda->layout = layout;
  cuda->in_device = config->in_device;
  cuda->out_device = config->out_device;
  cuda->input_planes = !cuda->in_device;
  /* new geometries are timed again */
  cuda->choice.n_tuned = 0;
  cuda->graphs_failed = FALSE;
  if (!make_slots (cuda, CLAMP (config->depth, 1, CUDACONV_MAX_DEPTH),
          error)) {
    release_slots (cuda);
    return FALSE;
  }
  GST_DEBUG ("configured %s %dx%d: %u planes, %u frame slots; input in %s "
      "memory, output in %s memory, %" G_GSIZE_FORMAT " bytes of staging "
      "for each side in host memory", GST_VIDEO_INFO_NAME (&layout->info),
      GST_VIDEO_INFO_WIDTH (&layout->info),
      GST_VIDEO_INFO_HEIGHT (&layout->info), layout->n_planes,
      cuda->parent.depth, cuda->in_device ? "device" : "host",
      cuda->out_device ? "device" : "host", cuda->staging_size);
  return TRUE;
}

static gboolean
cuda_configure (CudaConvBackend * backend,
    const CudaConvStreamConfig * config, GError ** error)
{
  CudaBackend *cuda = (CudaBackend *) backend;

  /* frames a failed discard left in flight still own their slots */
  if (cuda->in_flight > 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
        "%u frames are still in flight on %s", cuda->in_flight,
        cuda->description);
    return FALSE;
  }
  return IN_CONTEXT (cuda, error, configure_in_context (cuda, config, error));
}

/* Gives the slot back; returns its output buffer when keep_output is
 * set. */
static GstBuffer *
release_slot (FrameSlot * slot, gboolean keep_output)
{
  GstBuffer *out = keep_output ? gst_buffer_ref (slot->out.buffer) : NULL;

  cudaconv_frames_unmap (&slot->in, &slot->out);
  return out;
}

static void
advance_oldest (CudaBackend * cuda)
{
  cuda->oldest = (cuda->oldest + 1) % cuda->parent.depth;
  cuda->in_flight--;
}

static void
report_families (CudaBackend * cuda)
{
  gchar *report = cudaconv_cuda_strategy_take_report (cuda);

  if (report && cuda->parent.report)
    cuda->parent.report (report, cuda->parent.report_data);
  g_free (report);
}

static gboolean
cuda_submit (CudaConvBackend * backend, const CudaConvJob * job,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  CudaBackend *cuda = (CudaBackend *) backend;
  FrameSlot *slot;
  gboolean ok;

  if (cuda->in_flight >= backend->depth) {
    cudaconv_frames_unmap (in, out);
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "no free frame slot (%u frames in flight)", cuda->in_flight);
    return FALSE;
  }
  slot = &cuda->slots[(cuda->oldest + cuda->in_flight) % backend->depth];
  slot->plan = *job->plan;
  slot->in = *in;
  slot->out = *out;
  if (!cudaconv_cuda_context_enter (cuda->context, cuda->device, error)) {
    release_slot (slot, FALSE);
    return FALSE;
  }
  ok = cudaconv_cuda_enqueue_frame (cuda, slot, job, error);
  if (!ok) {
    /* copies already queued may still read or write the frames */
    cudaStreamSynchronize (slot->stream);
    (void) cudaGetLastError ();
    release_slot (slot, FALSE);
  }
  cudaconv_cuda_context_leave (cuda->context);
  if (!ok)
    return FALSE;
  cuda->in_flight++;
  report_families (cuda);
  return TRUE;
}

static gboolean
cuda_finish_oldest (CudaConvBackend * backend, GstBuffer ** out,
    GError ** error)
{
  CudaBackend *cuda = (CudaBackend *) backend;
  FrameSlot *slot;
  gboolean ok;

  *out = NULL;
  if (cuda->in_flight == 0) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "no frame in flight");
    return FALSE;
  }
  slot = &cuda->slots[cuda->oldest];
  /* the frame stays in flight: its copies may still run */
  if (!cudaconv_cuda_context_enter (cuda->context, cuda->device, error))
    return FALSE;
  ok = CUDACONV_CHECK (cudaEventSynchronize (slot->done), error);
  if (ok)
    cudaconv_cuda_complete_frame (cuda, slot);
  else {
    cudaStreamSynchronize (slot->stream);
    (void) cudaGetLastError ();
  }
  cudaconv_cuda_context_leave (cuda->context);
  *out = release_slot (slot, ok);
  advance_oldest (cuda);
  return ok;
}

static void
cuda_discard (CudaConvBackend * backend)
{
  CudaBackend *cuda = (CudaBackend *) backend;
  GError *err = NULL;

  if (cuda->in_flight == 0)
    return;
  /* frames whose copies may still run are kept rather than freed */
  if (!cudaconv_cuda_context_enter (cuda->context, cuda->device, &err)) {
    GST_WARNING ("%u frames left in flight: %s", cuda->in_flight,
        err->message);
    g_error_free (err);
    return;
  }
  while (cuda->in_flight > 0) {
    FrameSlot *slot = &cuda->slots[cuda->oldest];
    cudaStreamSynchronize (slot->stream);
    release_slot (slot, FALSE);
    advance_oldest (cuda);
  }
  (void) cudaGetLastError ();
  cudaconv_cuda_context_leave (cuda->context);
}

static const CudaConvBackendOps cuda_ops = {
  "CUDA", cuda_configure, cuda_submit, cuda_finish_oldest, cuda_in_flight,
  cuda_discard, cuda_describe, cuda_new_pool, cuda_allocator, cuda_close
};

CudaConvBackend *
cudaconv_cuda_backend_new (gint device_id, GstObject * context,
    GError ** error)
{
  CudaBackend *cuda = g_new0 (CudaBackend, 1);

  cuda->parent.ops = &cuda_ops;
  cudaconv_cuda_strategy_reset (&cuda->choice);
  if (context) {
    cuda->context = gst_object_ref (context);
    cuda->device = cudaconv_cuda_context_device (context);
  } else if (!cudaconv_cuda_backend_probe (device_id, error)) {
    goto failed;
  } else {
    cuda->device = device_id < 0 ? 0 : device_id;
  }
  if (!IN_CONTEXT (cuda, error, open_in_context (cuda, error)))
    goto failed;
  cuda->allocator = cudaconv_pinned_allocator_new (cuda->device,
      cuda->context);
  cudaconv_host_register_init (&cuda->registered, cuda->context,
      cuda->device);
  return &cuda->parent;

failed:
  cuda_close (&cuda->parent);
  return NULL;
}

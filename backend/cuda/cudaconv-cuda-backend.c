/* cudaconv: the CUDA back end's contract (cudaconv-backend.h): frame
 * slots, each with its own stream, in the CUDA context the element shares
 * with its pipeline; each frame routed once and run through its path's
 * stages (see cudaconv-cuda-backend-private.h). */
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
  cudaconv_cuda_slots_release (cuda);
  (void) cudaGetLastError ();
  return TRUE;
}

static void
cuda_close (CudaConvBackend * backend)
{
  CudaBackend *cuda = (CudaBackend *) backend;
  GError *err = NULL;

  /* no frame slot, nothing made on the device */
  if (backend->max_in_flight > 0 && !IN_CONTEXT (cuda, &err, close_in_context (cuda))) {
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

static gboolean
configure_in_context (CudaBackend * cuda, const CudaConvStreamConfig * config,
    GError ** error)
{
  const CudaConvLayout *layout = config->layout;

  cudaconv_cuda_slots_release (cuda);
  cuda->layout = layout;
  cuda->in_device = config->in_device;
  cuda->out_device = config->out_device;
  cuda->input_planes = !cuda->in_device;
  /* new geometries are timed again */
  cuda->choice.n_tuned = 0;
  cuda->graphs_failed = FALSE;
  if (!cudaconv_cuda_slots_make (cuda, CLAMP (config->max_in_flight, 1,
              CUDACONV_MAX_IN_FLIGHT), error)) {
    cudaconv_cuda_slots_release (cuda);
    return FALSE;
  }
  GST_DEBUG ("configured %s %dx%d: %u planes, %u frame slots; input in %s "
      "memory, output in %s memory, %" G_GSIZE_FORMAT " bytes of staging "
      "for each side in host memory", GST_VIDEO_INFO_NAME (&layout->info),
      GST_VIDEO_INFO_WIDTH (&layout->info),
      GST_VIDEO_INFO_HEIGHT (&layout->info), layout->n_planes,
      cuda->parent.max_in_flight, cuda->in_device ? "device" : "host",
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

static void
advance_oldest (CudaBackend * cuda)
{
  cuda->oldest = (cuda->oldest + 1) % cuda->parent.max_in_flight;
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

/* The frame's path through its stages, on the slot's stream; the event
 * that marks it done recorded last. */
static gboolean
run_stages (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    GError ** error)
{
  return cudaconv_cuda_upload (cuda, slot, error)
      && cudaconv_cuda_compute_prepare (cuda, slot, job, error)
      && (slot->route.path == CUDA_PATH_KERNELS || slot->route.replay ?
      cudaconv_cuda_compute_graphed (cuda, slot, job, error) :
      cudaconv_cuda_compute (cuda, slot, job, error))
      && cudaconv_cuda_download (cuda, slot, error)
      && CUDACONV_CHECK (cudaEventRecord (slot->done, slot->stream), error);
}

static gboolean
cuda_submit (CudaConvBackend * backend, const CudaConvJob * job,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  CudaBackend *cuda = (CudaBackend *) backend;
  FrameSlot *slot;
  CudaFrameRoute route;
  gboolean ok;

  if (cuda->in_flight >= backend->max_in_flight) {
    cudaconv_frames_unmap (in, out, job->in_place);
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "no free frame slot (%u frames in flight)", cuda->in_flight);
    return FALSE;
  }
  slot = &cuda->slots[(cuda->oldest + cuda->in_flight) % backend->max_in_flight];
  if (!cudaconv_cuda_context_enter (cuda->context, cuda->device, error)) {
    cudaconv_frames_unmap (in, out, job->in_place);
    return FALSE;
  }
  route = cudaconv_cuda_route (cuda, job, in, out);
  ok = cudaconv_cuda_slot_begin (cuda, slot, job, &route, in, out, error)
      && run_stages (cuda, slot, job, error);
  if (!ok) {
    /* copies already queued may still read or write the frames */
    cudaStreamSynchronize (slot->stream);
    (void) cudaGetLastError ();
    cudaconv_cuda_slot_end (slot, FALSE);
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
    cudaconv_cuda_complete (cuda, slot);
  else {
    cudaStreamSynchronize (slot->stream);
    (void) cudaGetLastError ();
  }
  cudaconv_cuda_context_leave (cuda->context);
  *out = cudaconv_cuda_slot_end (slot, ok);
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
    cudaconv_cuda_slot_end (slot, FALSE);
    advance_oldest (cuda);
  }
  (void) cudaGetLastError ();
  cudaconv_cuda_context_leave (cuda->context);
}

static void
cuda_set_options (CudaConvBackend * backend,
    const CudaConvRunOptions * options)
{
  ((CudaBackend *) backend)->options = *options;
}

static const CudaConvBackendOps cuda_ops = {
  "CUDA", cuda_set_options, cuda_configure, cuda_submit, cuda_finish_oldest, cuda_in_flight,
  cuda_discard, cuda_describe, cuda_new_pool, cuda_allocator, cuda_close
};

CudaConvBackend *
cudaconv_cuda_backend_new (gint device_id, GstObject * context,
    GError ** error)
{
  CudaBackend *cuda = g_new0 (CudaBackend, 1);

  cuda->parent.ops = &cuda_ops;
  cuda->parent.capabilities = CUDACONV_BACKEND_DEVICE_MEMORY |
      CUDACONV_BACKEND_STRATEGIES;
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

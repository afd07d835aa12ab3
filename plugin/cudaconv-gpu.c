/* cudaconv: the CUDA back end.
 *
 * A frame goes host -> device -> kernels -> host on one stream, then the
 * stream is synchronised so the buffers can be handed on. Planes in our
 * pinned memory are copied by DMA directly; other buffers go through pinned
 * staging, because a copy from pageable memory is both slower and blocking. */
#include <string.h>

#include "cudaconv-gpu.h"
#include "cudaconv-cuda.h"
#include "cudaconv-cuda-check.h"
#include "cudaconv-pinned-allocator.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* The oldest architecture the fat binary carries code for. */
#define MIN_COMPUTE_CAPABILITY 75

typedef struct {
  void *in, *out;               /* pitched device planes */
  size_t in_pitch, out_pitch;
  gsize staging_offset;
} DevicePlane;

struct _CudaConvGpu {
  gint device;
  gchar *description;
  cudaStream_t stream;
  gint filter_slot;
  guint uploaded_cookie;        /* 0: nothing uploaded yet */
  GstAllocator *allocator;

  GstVideoInfo info;
  guint n_planes;
  DevicePlane planes[GST_VIDEO_MAX_PLANES];
  guint8 *staging_in, *staging_out;     /* pinned, all planes back to back */
};

static void
release_planes (CudaConvGpu * gpu)
{
  for (guint p = 0; p < gpu->n_planes; p++) {
    cudaFree (gpu->planes[p].in);
    cudaFree (gpu->planes[p].out);
  }
  memset (gpu->planes, 0, sizeof (gpu->planes));
  gpu->n_planes = 0;
  cudaFreeHost (gpu->staging_in);
  cudaFreeHost (gpu->staging_out);
  gpu->staging_in = gpu->staging_out = NULL;
}

CudaConvGpu *
cudaconv_gpu_open (gint device_id, GError ** error)
{
  CudaConvGpu *gpu = g_new0 (CudaConvGpu, 1);
  struct cudaDeviceProp prop;
  int count = 0;

  gpu->filter_slot = -1;
  if (!CUDACONV_CHECK (cudaGetDeviceCount (&count), error))
    goto failed;
  if (count == 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "no CUDA device found");
    goto failed;
  }
  gpu->device = device_id < 0 ? 0 : device_id;
  if (gpu->device >= count) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "device-id %d does not exist: this machine has %d CUDA device(s)",
        device_id, count);
    goto failed;
  }
  if (!CUDACONV_CHECK (cudaSetDevice (gpu->device), error)
      || !CUDACONV_CHECK (cudaGetDeviceProperties (&prop, gpu->device), error))
    goto failed;
  gpu->description = g_strdup_printf ("device %d: %s (compute capability "
      "%d.%d)", gpu->device, prop.name, prop.major, prop.minor);
  if (prop.major * 10 + prop.minor < MIN_COMPUTE_CAPABILITY) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "%s is older than compute capability %d.%d, the oldest this build "
        "supports", gpu->description, MIN_COMPUTE_CAPABILITY / 10,
        MIN_COMPUTE_CAPABILITY % 10);
    goto failed;
  }
  if (!CUDACONV_CHECK (cudaStreamCreateWithFlags (&gpu->stream,
              cudaStreamNonBlocking), error))
    goto failed;
  gpu->filter_slot = cc_cuda_filter_slot_acquire ();
  if (gpu->filter_slot < 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
        "all %d constant-memory filter slots are taken: at most %d cudaconv "
        "elements can use CUDA in one process", CC_CUDA_FILTER_SLOTS,
        CC_CUDA_FILTER_SLOTS);
    goto failed;
  }
  gpu->allocator = cudaconv_pinned_allocator_new (gpu->device);
  return gpu;

failed:
  cudaconv_gpu_close (gpu);
  return NULL;
}

void
cudaconv_gpu_close (CudaConvGpu * gpu)
{
  if (!gpu)
    return;
  if (gpu->stream) {
    cudaSetDevice (gpu->device);
    cudaStreamSynchronize (gpu->stream);
  }
  release_planes (gpu);
  if (gpu->stream)
    cudaStreamDestroy (gpu->stream);
  cc_cuda_filter_slot_release (gpu->filter_slot);
  gst_clear_object (&gpu->allocator);
  (void) cudaGetLastError ();
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

gboolean
cudaconv_gpu_configure (CudaConvGpu * gpu, const GstVideoInfo * info,
    GError ** error)
{
  CudaConvPlan layout;
  gsize staging_size = 0;

  if (!CUDACONV_CHECK (cudaSetDevice (gpu->device), error)
      || !CUDACONV_CHECK (cudaStreamSynchronize (gpu->stream), error))
    return FALSE;
  release_planes (gpu);
  gpu->info = *info;
  /* only the plane geometry of the plan is used here */
  cudaconv_plan_make (&layout, info, 0, FALSE);
  for (guint p = 0; p < layout.n_planes; p++) {
    DevicePlane *dp = &gpu->planes[p];
    const CudaConvPlanePlan *pp = &layout.planes[p];

    gpu->n_planes = p + 1;
    if (!CUDACONV_CHECK (cudaMallocPitch (&dp->in, &dp->in_pitch,
                pp->row_bytes, pp->rows), error)
        || !CUDACONV_CHECK (cudaMallocPitch (&dp->out, &dp->out_pitch,
                pp->row_bytes, pp->rows), error))
      goto failed;
    dp->staging_offset = staging_size;
    staging_size += pp->row_bytes * pp->rows;
  }
  if (!CUDACONV_CHECK (cudaHostAlloc ((void **) &gpu->staging_in, staging_size,
              cudaHostAllocDefault), error)
      || !CUDACONV_CHECK (cudaHostAlloc ((void **) &gpu->staging_out,
              staging_size, cudaHostAllocDefault), error))
    goto failed;
  GST_DEBUG ("configured %s %dx%d: %u planes, %" G_GSIZE_FORMAT
      " bytes of staging", GST_VIDEO_INFO_NAME (info),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      gpu->n_planes, staging_size);
  return TRUE;

failed:
  release_planes (gpu);
  return FALSE;
}

static void
copy_rows (guint8 * dst, gsize dst_pitch, const guint8 * src, gsize src_pitch,
    gsize row_bytes, gint rows)
{
  for (gint y = 0; y < rows; y++)
    memcpy (dst + y * dst_pitch, src + y * src_pitch, row_bytes);
}

static gboolean
run_plane_kernels (CudaConvGpu * gpu, const CudaConvPlan * plan, guint p,
    const CudaConvFilter * filter, CcBorder border, CcStrategy strategy,
    GError ** error)
{
  const CudaConvPlanePlan *pp = &plan->planes[p];
  const DevicePlane *dp = &gpu->planes[p];

  for (gint i = 0; i < pp->n_components; i++) {
    gint c = pp->components[i];
    CcChannel s = cudaconv_plan_channel (&gpu->info, c, dp->in, dp->in_pitch);
    CcChannel d = cudaconv_plan_channel (&gpu->info, c, dp->out,
        dp->out_pitch);

    if (plan->action[c] == CUDACONV_ACTION_FILTER) {
      if (!CUDACONV_CHECK (cc_cuda_convolve (&s, &d, gpu->filter_slot,
                  filter->radius, filter->response, filter->offset, border,
                  strategy, gpu->stream), error))
        return FALSE;
    } else if (plan->action[c] == CUDACONV_ACTION_FILL) {
      if (!CUDACONV_CHECK (cc_cuda_fill (&d, plan->fill_value[c],
                  gpu->stream), error))
        return FALSE;
    }
  }
  return TRUE;
}

static gboolean
process_frame (CudaConvGpu * gpu, const CudaConvPlan * plan,
    const CudaConvFilter * filter, guint filter_cookie, CcBorder border,
    CudaConvGpuStrategy strategy, GstVideoFrame * in, GstVideoFrame * out,
    GError ** error)
{
  const gboolean in_pinned = cudaconv_buffer_is_pinned (in->buffer);
  const gboolean out_pinned = cudaconv_buffer_is_pinned (out->buffer);
  const CcStrategy cc_strategy = strategy == CUDACONV_GPU_CACHE_HALO ?
      CC_STRATEGY_CACHE_HALO : CC_STRATEGY_TILED_HALO;

  if (!CUDACONV_CHECK (cudaSetDevice (gpu->device), error))
    return FALSE;
  if (plan->any_filter && filter_cookie != gpu->uploaded_cookie) {
    CcFilter view = cudaconv_filter_view (filter);
    if (!CUDACONV_CHECK (cc_cuda_upload_filter (gpu->filter_slot, &view,
                gpu->stream), error))
      return FALSE;
    gpu->uploaded_cookie = filter_cookie;
  }

  for (guint p = 0; p < plan->n_planes; p++) {
    const CudaConvPlanePlan *pp = &plan->planes[p];
    const DevicePlane *dp = &gpu->planes[p];
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);

    if (!pp->process)
      continue;
    if (!in_pinned) {
      copy_rows (gpu->staging_in + dp->staging_offset, pp->row_bytes, src,
          src_pitch, pp->row_bytes, pp->rows);
      src = gpu->staging_in + dp->staging_offset;
      src_pitch = pp->row_bytes;
    }
    if (!CUDACONV_CHECK (cudaMemcpy2DAsync (dp->in, dp->in_pitch, src,
                src_pitch,
                pp->row_bytes, pp->rows, cudaMemcpyHostToDevice, gpu->stream),
            error))
      return FALSE;
    if (pp->copy_first
        && !CUDACONV_CHECK (cudaMemcpy2DAsync (dp->out, dp->out_pitch, dp->in,
                dp->in_pitch, pp->row_bytes, pp->rows, cudaMemcpyDeviceToDevice,
                gpu->stream), error))
      return FALSE;
    if (!run_plane_kernels (gpu, plan, p, filter, border, cc_strategy, error))
      return FALSE;
    if (out_pinned) {
      if (!CUDACONV_CHECK (cudaMemcpy2DAsync (GST_VIDEO_FRAME_PLANE_DATA (out,
                      p), GST_VIDEO_FRAME_PLANE_STRIDE (out, p), dp->out,
                  dp->out_pitch, pp->row_bytes, pp->rows, cudaMemcpyDeviceToHost,
                  gpu->stream), error))
        return FALSE;
    } else if (!CUDACONV_CHECK (cudaMemcpy2DAsync (gpu->staging_out +
                dp->staging_offset, pp->row_bytes, dp->out, dp->out_pitch,
                pp->row_bytes, pp->rows, cudaMemcpyDeviceToHost, gpu->stream),
            error)) {
      return FALSE;
    }
  }

  /* planes left as they are are copied while the GPU works */
  for (guint p = 0; p < plan->n_planes; p++)
    if (!plan->planes[p].process)
      gst_video_frame_copy_plane (out, in, p);

  if (!CUDACONV_CHECK (cudaStreamSynchronize (gpu->stream), error))
    return FALSE;

  if (!out_pinned) {
    for (guint p = 0; p < plan->n_planes; p++) {
      const CudaConvPlanePlan *pp = &plan->planes[p];
      if (pp->process)
        copy_rows (GST_VIDEO_FRAME_PLANE_DATA (out, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (out, p),
            gpu->staging_out + gpu->planes[p].staging_offset, pp->row_bytes,
            pp->row_bytes, pp->rows);
    }
  }
  return TRUE;
}

gboolean
cudaconv_gpu_process (CudaConvGpu * gpu, const CudaConvPlan * plan,
    const CudaConvFilter * filter, guint filter_cookie, CcBorder border,
    CudaConvGpuStrategy strategy, GstVideoFrame * in, GstVideoFrame * out,
    GError ** error)
{
  if (process_frame (gpu, plan, filter, filter_cookie, border, strategy, in,
          out, error))
    return TRUE;
  /* copies already queued may still read or write the frames, which the
   * caller unmaps as soon as this returns */
  cudaStreamSynchronize (gpu->stream);
  (void) cudaGetLastError ();
  return FALSE;
}

/* cudaconv: the CUDA back end of a build without CUDA: never usable. */
#include "config.h"
#include "cudaconv-gpu.h"

gboolean
cudaconv_gpu_probe (gint device_id, GError ** error)
{
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "cudaconv was built without CUDA support: %s", CUDACONV_NO_CUDA_REASON);
  return FALSE;
}

CudaConvGpu *
cudaconv_gpu_open (gint device_id, GstObject * context, GError ** error)
{
  cudaconv_gpu_probe (device_id, error);
  return NULL;
}

void
cudaconv_gpu_close (CudaConvGpu * gpu)
{
}

const gchar *
cudaconv_gpu_describe (CudaConvGpu * gpu)
{
  return "no CUDA support";
}

GstAllocator *
cudaconv_gpu_get_allocator (CudaConvGpu * gpu)
{
  return NULL;
}

GstBufferPool *
cudaconv_gpu_new_pool (CudaConvGpu * gpu, GstCaps * caps, guint size,
    guint min_buffers, guint max_buffers)
{
  return NULL;
}

gboolean
cudaconv_gpu_configure (CudaConvGpu * gpu, const GstVideoInfo * info,
    guint depth, GError ** error)
{
  g_return_val_if_reached (FALSE);
}

void
cudaconv_gpu_set_host_register (CudaConvGpu * gpu, gboolean enable)
{
}

void
cudaconv_gpu_set_device_frames (CudaConvGpu * gpu, gboolean in_device,
    gboolean out_device)
{
}

void
cudaconv_gpu_set_filter (CudaConvGpu * gpu, const CudaConvFilter * filter,
    CcBorder border, CcStrategy strategy)
{
}

gboolean
cudaconv_gpu_process (CudaConvGpu * gpu, const CudaConvPlan * plan,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  g_return_val_if_reached (FALSE);
}

gboolean
cudaconv_gpu_submit (CudaConvGpu * gpu, const CudaConvPlan * plan,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  g_return_val_if_reached (FALSE);
}

guint
cudaconv_gpu_in_flight (CudaConvGpu * gpu)
{
  return 0;
}

gchar *
cudaconv_gpu_take_kernel_report (CudaConvGpu * gpu)
{
  return NULL;
}

gboolean
cudaconv_gpu_finish_oldest (CudaConvGpu * gpu, GstBuffer ** out,
    GError ** error)
{
  *out = NULL;
  g_return_val_if_reached (FALSE);
}

void
cudaconv_gpu_discard (CudaConvGpu * gpu)
{
}

gboolean
cudaconv_gpu_configure_word_packed (CudaConvGpu * gpu,
    const GstVideoInfo * packed_info, GError ** error)
{
  return FALSE;
}

/* cudaconv: the CUDA back end of a build without CUDA: never usable. */
#include "config.h"
#include "cudaconv-backend.h"

gboolean
cudaconv_cuda_backend_probe (gint device_id, GError ** error)
{
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "cudaconv was built without CUDA support: %s", CUDACONV_NO_CUDA_REASON);
  return FALSE;
}

gint
cudaconv_cuda_device_count (void)
{
  return 0;
}

CudaConvBackend *
cudaconv_cuda_backend_new (gint device_id, GstObject * context,
    GError ** error)
{
  cudaconv_cuda_backend_probe (device_id, error);
  return NULL;
}

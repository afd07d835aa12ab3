/* cudaconv: turns a CUDA status into a GError that names the failed call. */
#include <gst/gst.h>

#include "cudaconv-cuda-check.h"

gboolean
cudaconv_cuda_check (cudaError_t status, const gchar * call, GError ** error)
{
  if (G_LIKELY (status == cudaSuccess))
    return TRUE;
  /* clears the error so a later call does not report this one again */
  (void) cudaGetLastError ();
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "%s failed: %s (%s)", call, cudaGetErrorString (status),
      cudaGetErrorName (status));
  return FALSE;
}

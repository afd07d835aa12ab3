/* cudaconv: the CUDA context of the CUDA backend's calls (see the header). */
#include "config.h"

#include <cuda_runtime_api.h>
#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#endif

#include "cudaconv-cuda-context.h"
#include "cudaconv-cuda-check.h"

gboolean
cudaconv_cuda_context_enter (GstObject * context, gint device,
    GError ** error)
{
#ifdef HAVE_GST_CUDA
  if (context) {
    if (gst_cuda_context_push (GST_CUDA_CONTEXT (context)))
      return TRUE;
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "cannot make the CUDA context of device %d current on this thread",
        cudaconv_cuda_context_device (context));
    return FALSE;
  }
#endif
  g_return_val_if_fail (context == NULL, FALSE);
  return CUDACONV_CHECK (cudaSetDevice (device), error);
}

void
cudaconv_cuda_context_leave (GstObject * context)
{
#ifdef HAVE_GST_CUDA
  if (context)
    gst_cuda_context_pop (NULL);
#endif
}

gint
cudaconv_cuda_context_device (GstObject * context)
{
  guint device = 0;

  g_object_get (context, "cuda-device-id", &device, NULL);
  return (gint) device;
}

gboolean
cudaconv_cuda_buffer_in_context (GstBuffer * buffer, GstObject * context)
{
#ifdef HAVE_GST_CUDA
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *memory = gst_buffer_peek_memory (buffer, i);
    if (!context || !gst_is_cuda_memory (memory)
        || GST_OBJECT (GST_CUDA_MEMORY_CAST (memory)->context) != context)
      return FALSE;
  }
  return TRUE;
#else
  return FALSE;
#endif
}

/* cudaconv: frames in CUDA memory in a build without GStreamer's CUDA
 * library: no caps are in CUDA memory, and no context is shared (the CUDA
 * back end, where built, works in the device's primary context). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv-cuda-memory.h"

gboolean
gst_cudaconv_caps_in_cuda_memory (GstCaps * caps)
{
  return FALSE;
}

GstCaps *
gst_cudaconv_order_caps_by_memory (GstCaps * same, gboolean offer_cuda)
{
  return same;
}

GstCaps *
gst_cudaconv_prefer_same_memory (GstCaps * caps, GstCaps * othercaps)
{
  return othercaps;
}

gboolean
gst_cudaconv_propose_cuda_pool (GstObject * context, GstQuery * query,
    GstCaps * caps, const GstVideoInfo * info, guint held)
{
  return FALSE;
}

gboolean
gst_cudaconv_decide_cuda_pool (GstObject * context, GstQuery * query,
    GstCaps * caps, const GstVideoInfo * info, guint held)
{
  return FALSE;
}

gboolean
gst_cudaconv_check_cuda_buffer (GstObject * context, GstBuffer * buffer,
    gboolean ours, GError ** error)
{
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "this build of cudaconv takes no CUDA memory");
  return FALSE;
}

GstMapFlags
gst_cudaconv_map_flag (gboolean cuda_memory)
{
  return 0;
}

gboolean
gst_cudaconv_ensure_cuda_context (GstElement * element, gint device_id,
    GstObject ** context, GError ** error)
{
  *context = NULL;
  return TRUE;
}

gboolean
gst_cudaconv_handle_context_query (GstElement * element, GstQuery * query,
    GstObject * context)
{
  return FALSE;
}

void
gst_cudaconv_handle_set_context (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context)
{
}

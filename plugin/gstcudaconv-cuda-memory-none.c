/* cudaconv: frames in CUDA memory in a build without GStreamer's CUDA
 * library: no caps are in CUDA memory, and no context is shared (the CUDA
 * back end, where built, works in the primary context of the device chosen
 * here). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv-cuda-memory.h"
#include "cudaconv-backend.h"
#include "cudaconv-device-load.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

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
    GstObject ** context, gint * device, GError ** error)
{
  gint n_devices;

  *context = NULL;
  *device = -1;
  if (!cudaconv_cuda_backend_probe (device_id, error))
    return FALSE;
  n_devices = cudaconv_cuda_device_count ();
  *device = cudaconv_device_load_acquire (device_id, n_devices);
  if (device_id < 0)
    GST_INFO_OBJECT (element, "device %d: the least busy of %d devices "
        "(%u cudaconv elements of this process started on it, this one "
        "included)", *device, n_devices,
        cudaconv_device_load_started (*device));
  else
    GST_INFO_OBJECT (element, "device %d: device-id names it", *device);
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

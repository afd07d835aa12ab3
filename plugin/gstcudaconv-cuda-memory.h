/* cudaconv: the element's side of frames in CUDA memory: caps with the
 * memory:CUDAMemory feature, GstCudaBufferPools, the GstCudaContext shared
 * with the pipeline's other CUDA elements, and the checks a buffer in CUDA
 * memory passes before it is mapped. Builds without GStreamer's CUDA
 * library get gstcudaconv-cuda-memory-none.c, where no caps are in CUDA
 * memory and no context is shared. */
#ifndef GST_CUDACONV_CUDA_MEMORY_H
#define GST_CUDACONV_CUDA_MEMORY_H

#include <gst/video/video.h>

G_BEGIN_DECLS

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
/* frames in CUDA memory come first in the pad templates */
#define GST_CUDACONV_CUDA_MEMORY_CAPS(formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      formats) "; "
#else
#define GST_CUDACONV_CUDA_MEMORY_CAPS(formats) ""
#endif

/* Whether the (first structure of the) caps are in CUDA memory. */
gboolean gst_cudaconv_caps_in_cuda_memory (GstCaps * caps);

/* same, the caps of the other pad in the memory of this one, ordered: in
 * the same memory first and then in the other (system memory in, CUDA
 * memory out uploads while it filters), CUDA memory before system memory
 * within each; without offer_cuda (the CPU back end) no CUDA memory.
 * Takes same. */
GstCaps *gst_cudaconv_order_caps_by_memory (GstCaps * same,
    gboolean offer_cuda);

/* othercaps narrowed to caps' memory where they allow it (takes and
 * returns othercaps): a neighbour that takes both memories (as cudadownload
 * does) would otherwise make the element copy every frame. */
GstCaps *gst_cudaconv_prefer_same_memory (GstCaps * caps, GstCaps * othercaps);

/* Allocation queries for caps in CUDA memory: upstream gets a pool of
 * context (so that its frames need no copy to be read here), of held
 * buffers at least; output goes into downstream's pool when it is of
 * context, else into one of ours. */
gboolean gst_cudaconv_propose_cuda_pool (GstObject * context,
    GstQuery * query, GstCaps * caps, const GstVideoInfo * info, guint held);
gboolean gst_cudaconv_decide_cuda_pool (GstObject * context, GstQuery * query,
    GstCaps * caps, const GstVideoInfo * info, guint held);

/* Whether every memory of buffer is CUDA memory, of context where ours is
 * set (output, which the kernels write; input of another context or
 * device is copied by the back end); where the library can say, what a
 * stream still writes to it is waited for first. */
gboolean gst_cudaconv_check_cuda_buffer (GstObject * context,
    GstBuffer * buffer, gboolean ours, GError ** error);

/* How a side's frames are mapped: GST_MAP_CUDA for CUDA memory. */
GstMapFlags gst_cudaconv_map_flag (gboolean cuda_memory);

/* The GstCudaContext for device_id in *context, and its device in *device,
 * counted as the element's in the process's device-load table
 * (cudaconv-device-load.h; the element releases it in stop). A context the
 * pipeline already has is kept: one set before, a neighbour's answer to
 * the context query, or one the application sets when asked with
 * need-context (for device_id, or any for -1). Only without one is a
 * device chosen, device_id or for -1 the one where the fewest elements of
 * this process are started, and a context taken there (for -1 the
 * process's context for that device, made if none is alive; else a new
 * one) and offered to the neighbours in turn. Says why when there is
 * none, with nothing counted (*device -1). Builds without the library share no context: they
 * leave *context NULL and choose and count the device alone. */
gboolean gst_cudaconv_ensure_cuda_context (GstElement * element,
    gint device_id, GstObject ** context, gint * device, GError ** error);
/* The context queries and set_context of an element sharing context. */
gboolean gst_cudaconv_handle_context_query (GstElement * element,
    GstQuery * query, GstObject * context);
void gst_cudaconv_handle_set_context (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context);

G_END_DECLS
#endif /* GST_CUDACONV_CUDA_MEMORY_H */

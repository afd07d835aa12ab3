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

/* The GstCudaContext for device_id in *context: one a neighbour or the
 * application gave (for device_id, or any for -1), else a new one that is
 * offered to them in turn. Says why when there is none. Builds without
 * the library leave *context NULL and succeed. */
gboolean gst_cudaconv_ensure_cuda_context (GstElement * element,
    gint device_id, GstObject ** context, GError ** error);
/* The context queries and set_context of an element sharing context. */
gboolean gst_cudaconv_handle_context_query (GstElement * element,
    GstQuery * query, GstObject * context);
void gst_cudaconv_handle_set_context (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context);

G_END_DECLS
#endif /* GST_CUDACONV_CUDA_MEMORY_H */

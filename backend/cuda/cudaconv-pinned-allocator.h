/* cudaconv: a GstAllocator of page-locked (pinned) host memory, which the GPU
 * copies to and from by DMA without a staging copy. */
#ifndef CUDACONV_PINNED_ALLOCATOR_H
#define CUDACONV_PINNED_ALLOCATOR_H

#include <gst/gst.h>

G_BEGIN_DECLS

#define CUDACONV_PINNED_MEMORY_TYPE "CudaConvPinnedMemory"

#define CUDACONV_TYPE_PINNED_ALLOCATOR (cudaconv_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (CudaConvPinnedAllocator, cudaconv_pinned_allocator,
    CUDACONV, PINNED_ALLOCATOR, GstAllocator);

/* Memory is allocated portable, usable from every context, in context (a
 * GstCudaContext, which the allocator keeps while memory of it lives) or,
 * for NULL, in device_id's primary context (cudaconv-cuda-context.h). */
GstAllocator *cudaconv_pinned_allocator_new (gint device_id,
    GstObject * context);

/* TRUE when every memory of the buffer is pinned memory of ours. */
gboolean cudaconv_buffer_is_pinned (GstBuffer * buffer);

/* A GstVideoBufferPool over allocator, configured for caps. */
GstBufferPool *cudaconv_pinned_pool_new (GstAllocator * allocator,
    GstCaps * caps, guint size, guint min_buffers, guint max_buffers);

G_END_DECLS
#endif /* CUDACONV_PINNED_ALLOCATOR_H */

/* cudaconv: pinned host memory for GstBuffers.
 *
 * Buffers of this allocator may outlive the element (a sink can hold the
 * last frame), so each memory frees itself with cudaFreeHost, in the CUDA
 * context it was allocated in: the allocator holds that context, and each
 * memory holds the allocator. */
#include "config.h"

#include <string.h>
#include <cuda_runtime_api.h>
#include <gst/video/video.h>
#include <gst/video/gstvideopool.h>

#include "cudaconv-pinned-allocator.h"
#include "cudaconv-cuda-context.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

typedef struct {
  GstMemory mem;
  guint8 *data;                 /* first byte of maxsize, aligned */
  void *base;                   /* what cudaHostAlloc returned; NULL in shares */
} PinnedMemory;

struct _CudaConvPinnedAllocator {
  GstAllocator parent;
  gint device_id;
  GstObject *context;           /* a GstCudaContext, or NULL */
};

G_DEFINE_TYPE (CudaConvPinnedAllocator, cudaconv_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_alloc (GstAllocator * allocator, gsize size, GstAllocationParams * params)
{
  CudaConvPinnedAllocator *self = CUDACONV_PINNED_ALLOCATOR (allocator);
  gsize align = params->align | gst_memory_alignment;
  gsize maxsize = size + params->prefix + params->padding;
  PinnedMemory *mem;
  void *base = NULL;
  cudaError_t status;

  GError *err = NULL;

  if (!cudaconv_cuda_context_enter (self->context, self->device_id, &err)) {
    GST_ERROR ("cannot allocate pinned memory: %s", err->message);
    g_error_free (err);
    return NULL;
  }
  /* over-allocate by align so any alignment can be honoured */
  status = cudaHostAlloc (&base, maxsize + align, cudaHostAllocPortable);
  cudaconv_cuda_context_leave (self->context);
  if (status != cudaSuccess) {
    (void) cudaGetLastError ();
    GST_ERROR ("cudaHostAlloc (%" G_GSIZE_FORMAT " bytes) failed: %s",
        maxsize + align, cudaGetErrorString (status));
    return NULL;
  }
  mem = g_new0 (PinnedMemory, 1);
  mem->base = base;
  mem->data = (guint8 *) (((guintptr) base + align) & ~(guintptr) align);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (mem);
}

static void
pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  CudaConvPinnedAllocator *self = CUDACONV_PINNED_ALLOCATOR (allocator);
  PinnedMemory *mem = (PinnedMemory *) memory;
  GError *err = NULL;

  if (mem->base
      && !cudaconv_cuda_context_enter (self->context, self->device_id, &err)) {
    /* the bytes stay pinned until the process ends */
    GST_ERROR ("cannot free pinned memory: %s", err->message);
    g_error_free (err);
  } else if (mem->base) {
    cudaError_t status = cudaFreeHost (mem->base);
    cudaconv_cuda_context_leave (self->context);
    if (status != cudaSuccess) {
      (void) cudaGetLastError ();
      GST_WARNING ("cudaFreeHost failed: %s", cudaGetErrorString (status));
    }
  }
  g_free (mem);
}

static gpointer
pinned_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((PinnedMemory *) memory)->data;
}

static void
pinned_unmap (GstMemory * memory)
{
}

static GstMemory *
pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  PinnedMemory *mem = (PinnedMemory *) memory;
  GstMemory *parent = memory->parent ? memory->parent : memory;
  PinnedMemory *sub;

  if (size == -1)
    size = memory->size - offset;
  sub = g_new0 (PinnedMemory, 1);
  sub->data = mem->data;
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  return GST_MEMORY_CAST (sub);
}

static void
pinned_allocator_dispose (GObject * object)
{
  CudaConvPinnedAllocator *self = CUDACONV_PINNED_ALLOCATOR (object);

  gst_clear_object (&self->context);
  G_OBJECT_CLASS (cudaconv_pinned_allocator_parent_class)->dispose (object);
}

static void
cudaconv_pinned_allocator_class_init (CudaConvPinnedAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = pinned_allocator_dispose;
  allocator_class->alloc = pinned_alloc;
  allocator_class->free = pinned_free;
}

static void
cudaconv_pinned_allocator_init (CudaConvPinnedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR (self);

  allocator->mem_type = CUDACONV_PINNED_MEMORY_TYPE;
  allocator->mem_map = pinned_map;
  allocator->mem_unmap = pinned_unmap;
  allocator->mem_share = pinned_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
cudaconv_pinned_allocator_new (gint device_id, GstObject * context)
{
  CudaConvPinnedAllocator *self =
      g_object_new (CUDACONV_TYPE_PINNED_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->device_id = device_id;
  self->context = context ? gst_object_ref (context) : NULL;
  return GST_ALLOCATOR (self);
}

gboolean
cudaconv_buffer_is_pinned (GstBuffer * buffer)
{
  guint n = gst_buffer_n_memory (buffer);

  for (guint i = 0; i < n; i++)
    if (!gst_memory_is_type (gst_buffer_peek_memory (buffer, i),
            CUDACONV_PINNED_MEMORY_TYPE))
      return FALSE;
  return n > 0;
}

GstBufferPool *
cudaconv_pinned_pool_new (GstAllocator * allocator, GstCaps * caps, guint size,
    guint min_buffers, guint max_buffers)
{
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocationParams params;

  gst_allocation_params_init (&params);
  gst_buffer_pool_config_set_params (config, caps, size, min_buffers,
      max_buffers);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING ("the pinned buffer pool rejected its configuration");
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

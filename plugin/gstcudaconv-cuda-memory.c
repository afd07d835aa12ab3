/* cudaconv: frames in CUDA memory, with GStreamer's CUDA library (see the
 * header). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudaconv-cuda-memory.h"
#include "cudaconv-backend.h"
#include "cudaconv-cuda-context.h"
#include "cudaconv-device-load.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

typedef enum {
  CAPS_IN_CUDA_MEMORY,
  CAPS_IN_SYSTEM_MEMORY,
  CAPS_IN_OTHER_MEMORY,         /* or with other features: never converted */
} CapsMemory;

static CapsMemory
structure_memory (GstCaps * caps, guint i)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, i);

  if (!features || gst_caps_features_is_equal (features,
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
    return CAPS_IN_SYSTEM_MEMORY;
  if (!gst_caps_features_is_any (features)
      && gst_caps_features_get_size (features) == 1
      && gst_caps_features_contains (features,
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    return CAPS_IN_CUDA_MEMORY;
  return CAPS_IN_OTHER_MEMORY;
}

/* The structures of caps in memory from, each in memory to. */
static GstCaps *
caps_moved (GstCaps * caps, CapsMemory from, CapsMemory to)
{
  GstCaps *result = gst_caps_new_empty ();

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    if (structure_memory (caps, i) != from)
      continue;
    if (to == CAPS_IN_CUDA_MEMORY)
      features = gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY,
          NULL);
    else if (to == CAPS_IN_SYSTEM_MEMORY)
      features = gst_caps_features_new
          (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL);
    else if (features)
      features = gst_caps_features_copy (features);
    gst_caps_append_structure_full (result,
        gst_structure_copy (gst_caps_get_structure (caps, i)), features);
  }
  return result;
}

gboolean
gst_cudaconv_caps_in_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *features = gst_caps_get_size (caps) > 0 ?
      gst_caps_get_features (caps, 0) : NULL;
  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

GstCaps *
gst_cudaconv_order_caps_by_memory (GstCaps * same, gboolean offer_cuda)
{
  GstCaps *result;

  if (!same || gst_caps_is_any (same))
    return same;
  result = gst_caps_new_empty ();
  if (offer_cuda)
    result = gst_caps_merge (result, caps_moved (same, CAPS_IN_CUDA_MEMORY,
            CAPS_IN_CUDA_MEMORY));
  result = gst_caps_merge (result, caps_moved (same, CAPS_IN_SYSTEM_MEMORY,
          CAPS_IN_SYSTEM_MEMORY));
  result = gst_caps_merge (result, caps_moved (same, CAPS_IN_OTHER_MEMORY,
          CAPS_IN_OTHER_MEMORY));
  if (offer_cuda) {
    result = gst_caps_merge (result, caps_moved (same, CAPS_IN_SYSTEM_MEMORY,
            CAPS_IN_CUDA_MEMORY));
    result = gst_caps_merge (result, caps_moved (same, CAPS_IN_CUDA_MEMORY,
            CAPS_IN_SYSTEM_MEMORY));
  }
  gst_caps_unref (same);
  return result;
}

GstCaps *
gst_cudaconv_prefer_same_memory (GstCaps * caps, GstCaps * othercaps)
{
  const CapsMemory memory = gst_caps_get_size (caps) > 0 ?
      structure_memory (caps, 0) : CAPS_IN_OTHER_MEMORY;
  GstCaps *same = caps_moved (othercaps, memory, memory);

  if (gst_caps_is_empty (same)) {
    gst_caps_unref (same);
    return othercaps;
  }
  gst_caps_unref (othercaps);
  return same;
}

/* A GstCudaBufferPool of context for caps, with video metas (its planes
 * are pitched); *size becomes the pool's buffer size. NULL when it takes
 * no such configuration. */
static GstBufferPool *
new_cuda_pool (GstObject * context, GstCaps * caps, guint * size, guint min,
    guint max)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new ((GstCudaContext *) context);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, *size, min, max);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

gboolean
gst_cudaconv_propose_cuda_pool (GstObject * context, GstQuery * query,
    GstCaps * caps, const GstVideoInfo * info, guint held)
{
  if (gst_query_get_n_allocation_pools (query) == 0) {
    guint size = info->size;
    GstBufferPool *pool = new_cuda_pool (context, caps, &size, held, 0);
    if (!pool)
      return FALSE;
    gst_query_add_allocation_pool (query, pool, size, held, 0);
    gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

gboolean
gst_cudaconv_decide_cuda_pool (GstObject * context, GstQuery * query,
    GstCaps * caps, const GstVideoInfo * info, guint held)
{
  GstBufferPool *pool = NULL, *ours;
  guint size = 0, min = 0, max = 0;
  const gboolean have_pool = gst_query_get_n_allocation_pools (query) > 0;

  if (have_pool)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool && GST_IS_CUDA_BUFFER_POOL (pool)
      && GST_CUDA_BUFFER_POOL (pool)->context == (GstCudaContext *) context) {
    gst_object_unref (pool);
    return TRUE;
  }
  gst_clear_object (&pool);
  size = MAX (size, info->size);
  min += held;
  if (max != 0 && max < min)
    max = min;
  ours = new_cuda_pool (context, caps, &size, min, max);
  if (!ours)
    return FALSE;
  if (have_pool)
    gst_query_set_nth_allocation_pool (query, 0, ours, size, min, max);
  else
    gst_query_add_allocation_pool (query, ours, size, min, max);
  gst_object_unref (ours);
  /* the pool allocates its own memory */
  while (gst_query_get_n_allocation_params (query) > 0)
    gst_query_remove_nth_allocation_param (query, 0);
  return TRUE;
}

typedef void (*CudaMemorySync) (GstCudaMemory * memory);

/* gst_cuda_memory_sync where the running library has it (1.24 and later,
 * whose CUDA memory may carry a stream still writing it), else NULL */
static CudaMemorySync
cuda_memory_sync (void)
{
  static CudaMemorySync sync;
  static gsize looked_up;

  if (g_once_init_enter (&looked_up)) {
    void *library = dlopen ("libgstcuda-1.0.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (library) {
      sync = (CudaMemorySync) dlsym (library, "gst_cuda_memory_sync");
      dlclose (library);
    }
    g_once_init_leave (&looked_up, 1);
  }
  return sync;
}

gboolean
gst_cudaconv_check_cuda_buffer (GstObject * context, GstBuffer * buffer,
    gboolean ours, GError ** error)
{
  const CudaMemorySync sync = cuda_memory_sync ();

  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *memory = gst_buffer_peek_memory (buffer, i);
    GstCudaContext *memory_context;

    if (!gst_is_cuda_memory (memory)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "the caps say CUDA memory, and the buffer holds other memory");
      return FALSE;
    }
    memory_context = GST_CUDA_MEMORY_CAST (memory)->context;
    if (ours && memory_context != (GstCudaContext *) context) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "its CUDA memory belongs to another CUDA context (device %d; this "
          "element works on device %d)",
          cudaconv_cuda_context_device (GST_OBJECT (memory_context)),
          cudaconv_cuda_context_device (context));
      return FALSE;
    }
    if (sync)
      sync (GST_CUDA_MEMORY_CAST (memory));
  }
  return TRUE;
}

GstMapFlags
gst_cudaconv_map_flag (gboolean cuda_memory)
{
  return cuda_memory ? GST_MAP_CUDA : 0;
}

/* Offers element the context its pad pad_name's peer answers the context
 * query with; the element's set_context takes it where its device fits. */
static void
ask_neighbour (GstElement * element, const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstContext *answer = NULL;

  if (pad && gst_pad_peer_query (pad, query)) {
    gst_query_parse_context (query, &answer);
    if (answer) {
      GST_DEBUG_OBJECT (element, "the %s side has a CUDA context",
          pad_name);
      gst_element_set_context (element, answer);
    }
  }
  gst_query_unref (query);
  gst_clear_object (&pad);
}

/* A context the pipeline already has, in *context (through the element's
 * set_context): downstream's, upstream's, else one the application or a
 * bin sets in answer to need-context. Makes none, so that a device is
 * chosen only where the pipeline has not chosen one. */
static void
find_shared_context (GstElement * element, GstObject ** context)
{
  if (!*context)
    ask_neighbour (element, "src");
  if (!*context)
    ask_neighbour (element, "sink");
  if (!*context)
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (element),
            GST_CUDA_CONTEXT_TYPE));
}

/* Gives the neighbours made, as gst_cuda_ensure_element_context does:
 * through the element's own contexts and a have-context message, which
 * the bins keep for the elements that ask later. */
static void
offer_context (GstElement * element, GstCudaContext * made)
{
  GstContext *shared = gst_context_new_cuda_context (made);

  gst_element_set_context (element, shared);
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT (element), shared));
}

/* The process's GstCudaContext for each device, alive while anything
 * holds it (elements, the contexts pipelines keep): the elements that choose their device (device-id=-1) share one
 * CUDA context per device, since a GPU takes turns between contexts instead
 * of overlapping their work (BENCHMARKS.md, "Many streams in one
 * process"). An element given device-id makes its own, as nvcodec's
 * elements do. Like any shared context, a sticky CUDA error in one element
 * breaks it for all of them. */
static GMutex device_contexts_lock;
static GWeakRef *device_contexts;
static gint n_device_contexts;

/* A reference to the process's context for device, made if none is
 * alive; NULL if GStreamer's CUDA library cannot make it. */
static GstCudaContext *
device_context (gint device)
{
  GstCudaContext *context = NULL;

  g_mutex_lock (&device_contexts_lock);
  /* the weak references stay where they are: the count of devices is
   * that of the process, read once */
  if (!device_contexts) {
    n_device_contexts = MAX (cudaconv_cuda_device_count (), device + 1);
    device_contexts = g_new0 (GWeakRef, n_device_contexts);
    for (gint d = 0; d < n_device_contexts; d++)
      g_weak_ref_init (&device_contexts[d], NULL);
  }
  if (device < n_device_contexts)
    context = g_weak_ref_get (&device_contexts[device]);
  if (!context) {
    context = gst_cuda_context_new ((guint) device);
    if (context && device < n_device_contexts)
      g_weak_ref_set (&device_contexts[device], context);
  }
  g_mutex_unlock (&device_contexts_lock);
  return context;
}

gboolean
gst_cudaconv_ensure_cuda_context (GstElement * element, gint device_id,
    GstObject ** context, gint * device, GError ** error)
{
  GstCudaContext *made;
  gint n_devices, chosen;

  *device = -1;
  /* what is missing is said before GStreamer's CUDA library is asked */
  if (!cudaconv_cuda_backend_probe (device_id, error))
    return FALSE;
  /* the library calls the driver through a table it fills once; nvcodec
   * fills it when it loads, which a pipeline without it never does */
  if (!gst_cuda_load_library ()) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "GStreamer's CUDA library cannot load the NVIDIA driver");
    return FALSE;
  }
  /* the CUDA allocator, which GstCudaBufferPool needs; nvcodec registers
   * it when it loads, which a pipeline without it never does */
  gst_cuda_memory_init_once ();
  find_shared_context (element, context);
  if (*context) {
    *device = cudaconv_device_load_acquire (cudaconv_cuda_context_device
        (*context), 0);
    GST_INFO_OBJECT (element, "device %d: the CUDA context the pipeline "
        "shares is on it", *device);
    return TRUE;
  }

  n_devices = cudaconv_cuda_device_count ();
  chosen = cudaconv_device_load_acquire (device_id, n_devices);
  if (device_id < 0)
    GST_INFO_OBJECT (element, "device %d: the least busy of %d devices "
        "(%u cudaconv elements of this process started on it, this one "
        "included)", chosen, n_devices,
        cudaconv_device_load_started (chosen));
  else
    GST_INFO_OBJECT (element, "device %d: device-id names it", chosen);
  made = device_id < 0 ? device_context (chosen) :
      gst_cuda_context_new ((guint) chosen);
  if (!made) {
    cudaconv_device_load_release (chosen);
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "GStreamer's CUDA library could not create a CUDA context for "
        "device %d", chosen);
    return FALSE;
  }
  *device = chosen;
  *context = GST_OBJECT (made);
  offer_context (element, made);
  return TRUE;
}

gboolean
gst_cudaconv_handle_context_query (GstElement * element, GstQuery * query,
    GstObject * context)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_cuda_handle_context_query (element, query,
      (GstCudaContext *) context);
}

void
gst_cudaconv_handle_set_context (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context)
{
  gst_cuda_handle_set_context (element, gst_context, device_id,
      (GstCudaContext **) context);
}

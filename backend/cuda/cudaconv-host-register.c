/* cudaconv: host registration cached on GstMemory (see the header). */
#include "config.h"

#include <cuda_runtime_api.h>

#include "cudaconv-host-register.h"
#include "cudaconv-cuda-context.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* After this many registrations the cache checks that buffers come back: a
 * pool recycles a handful of buffers, so hits soon outnumber registrations
 * several times over. */
#define PROBATION 16
#define MIN_HITS_PER_REGISTRATION 2

typedef struct {
  gpointer data;
  gsize size;
  /* where it was made, and is undone: the memory may outlive the element */
  GstObject *context;
  gint device;
} Registration;

static GQuark
registration_quark (void)
{
  static GQuark quark;
  if (!quark)
    quark = g_quark_from_static_string ("cudaconv-host-registration");
  return quark;
}

/* Runs when the memory is freed, before its bytes are. */
static void
registration_free (gpointer data)
{
  Registration *r = data;
  GError *err = NULL;

  if (cudaconv_cuda_context_enter (r->context, r->device, &err)) {
    cudaHostUnregister (r->data);
    (void) cudaGetLastError ();
    cudaconv_cuda_context_leave (r->context);
  } else {
    GST_WARNING ("memory stays registered: %s", err->message);
    g_error_free (err);
  }
  gst_clear_object (&r->context);
  g_free (r);
}

void
cudaconv_host_register_init (CudaConvHostRegister * cache,
    GstObject * context, gint device)
{
  cache->context = context;
  cache->device = device;
  cudaconv_host_register_reset (cache);
}

void
cudaconv_host_register_reset (CudaConvHostRegister * cache)
{
  cache->registrations = cache->hits = 0;
  cache->given_up = FALSE;
}

/* Elements that share a buffer (the branches of a tee, on one device or
 * several) register its memory once: the first makes the registration,
 * which is portable, and the others find it on the memory. */
static GMutex registering;

/* Whether memory at data is page-locked already, by another CUDA user
 * than this cache: registering it again fails */
static gboolean
locked_elsewhere (gpointer data)
{
  struct cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes (&attributes, data) != cudaSuccess) {
    (void) cudaGetLastError ();
    return FALSE;
  }
  return attributes.type == cudaMemoryTypeHost;
}

gboolean
cudaconv_host_register_frame (CudaConvHostRegister * cache,
    const GstVideoFrame * frame)
{
  GstMemory *mem;
  Registration *r;
  const GstMapInfo *map = &frame->map[0];
  cudaError_t status;
  gboolean registered = FALSE;

  /* one memory per buffer: the mapping is then that memory's own bytes */
  if (cache->given_up || gst_buffer_n_memory (frame->buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (frame->buffer, 0);
  g_mutex_lock (&registering);
  r = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      registration_quark ());
  if (r) {
    /* a memory type whose mappings move cannot use the cached one */
    registered = r->data == map->data && r->size >= map->size;
    if (registered)
      cache->hits++;
    goto done;
  }

  if (cache->registrations >= PROBATION
      && cache->hits < MIN_HITS_PER_REGISTRATION * cache->registrations) {
    GST_INFO ("input buffers are not recycled (%u registrations, %u reuses): "
        "staging from now on", cache->registrations, cache->hits);
    cache->given_up = TRUE;
    goto done;
  }
  /* whoever locked it decides how long it stays so: staged (either end
   * of the mapping, which may start or end in another's registration) */
  if (locked_elsewhere (map->data)
      || locked_elsewhere (map->data + map->size - 1))
    goto done;
  /* mapped too: kernels that move only a frame's regions read and write
   * it where it is */
  status = cudaHostRegister (map->data, map->size,
      cudaHostRegisterPortable | cudaHostRegisterMapped);
  if (status != cudaSuccess) {
    (void) cudaGetLastError ();
    GST_INFO ("cudaHostRegister of %" G_GSIZE_FORMAT " bytes failed (%s): "
        "staging from now on", map->size, cudaGetErrorString (status));
    cache->given_up = TRUE;
    goto done;
  }
  r = g_new (Registration, 1);
  r->data = map->data;
  r->size = map->size;
  r->context = cache->context ? gst_object_ref (cache->context) : NULL;
  r->device = cache->device;
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem),
      registration_quark (), r, registration_free);
  cache->registrations++;
  registered = TRUE;

done:
  g_mutex_unlock (&registering);
  return registered;
}

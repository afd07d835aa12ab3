/* cudaconv: the back end the element runs on, chosen in start, and what
 * it reports (see gstcudaconv.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv.h"
#include "gstcudaconv-cuda-memory.h"
#include "cudaconv-device-load.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* Posts what the back end reports, such as the kernel family each filtered
 * component runs (on the first frame and whenever it changes: a new
 * radius, strategy, format or plane alignment), in the debug log and as a
 * bus INFO. */
static void
post_backend_report (const gchar * report, gpointer user_data)
{
  GstCudaConv *self = GST_CUDACONV (user_data);

  GST_INFO_OBJECT (self, "CUDA kernels: %s", report);
  GST_ELEMENT_INFO (self, LIBRARY, SETTINGS, ("CUDA kernels: %s", report),
      ("%s", self->backend->ops->describe (self->backend)));
}

void
gst_cudaconv_release_device (GstCudaConv * self)
{
  cudaconv_device_load_release (self->device);
  self->device = -1;
}

CudaConvBackend *
gst_cudaconv_open_backend (GstCudaConv * self, const GstCudaConvSettings * s,
    GError ** error)
{
  CudaConvBackend *backend = NULL;
  GError *err = NULL;

  if (s->backend != GST_CUDACONV_BACKEND_CPU
      && gst_cudaconv_ensure_cuda_context (GST_ELEMENT (self), s->device_id,
          &self->cuda_context, &self->device, &err))
    backend = cudaconv_cuda_backend_new (self->device, self->cuda_context,
        &err);
  if (backend) {
    backend->report = post_backend_report;
    backend->report_data = self;
    return backend;
  }
  /* nothing runs on the device that was counted, and the next start
   * chooses again (device-id may change in READY) */
  gst_cudaconv_release_device (self);
  gst_clear_object (&self->cuda_context);
  if (s->backend == GST_CUDACONV_BACKEND_CUDA) {
    g_propagate_error (error, err);
    return NULL;
  }
  if (err) {
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device; using the CPU backend: %s", err->message),
        ("set backend=cpu to choose the CPU explicitly"));
    g_clear_error (&err);
  }
  return cudaconv_cpu_backend_new (self->n_threads);
}

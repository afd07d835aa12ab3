/* cudaconv: what every back end shares (see the header). */
#include "cudaconv-backend.h"

gboolean
cudaconv_backend_submit (CudaConvBackend * backend, const CudaConvJob * job,
    GstVideoFrame * in, GstVideoFrame * out, GstBuffer ** finished,
    GError ** error)
{
  *finished = NULL;
  if (!backend->ops->submit (backend, job, in, out, error))
    return FALSE;
  if (backend->ops->in_flight (backend) < backend->depth)
    return TRUE;
  return backend->ops->finish_oldest (backend, finished, error);
}

void
cudaconv_backend_close (CudaConvBackend * backend)
{
  if (!backend)
    return;
  backend->ops->discard (backend);
  backend->ops->close (backend);
}

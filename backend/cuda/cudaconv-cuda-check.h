/* cudaconv: the one CUDA error check of the plugin. */
#ifndef CUDACONV_CUDA_CHECK_H
#define CUDACONV_CUDA_CHECK_H

#include <glib.h>
#include <cuda_runtime_api.h>

G_BEGIN_DECLS

/* Evaluates a CUDA runtime call; on failure sets *error to
 * "<the call as written> failed: <CUDA's error string> (<error name>)" and
 * yields FALSE. Use as: if (!CUDACONV_CHECK (cudaFoo (...), error)) goto fail; */
#define CUDACONV_CHECK(call, error) \
  cudaconv_cuda_check ((call), #call, (error))

gboolean cudaconv_cuda_check (cudaError_t status, const gchar * call,
    GError ** error);

G_END_DECLS
#endif /* CUDACONV_CUDA_CHECK_H */

/* cudaconv: the CUDA context that the CUDA backend's calls run in.
 *
 * Built with GStreamer's CUDA library (HAVE_GST_CUDA), that is the
 * GstCudaContext the element shares with the other CUDA elements of its
 * pipeline: a driver context (cuCtxCreate), pushed on the calling thread
 * around each piece of work and popped after, so that the CUDA runtime's
 * calls in between run in it, and nothing selects the device's primary
 * context instead. Without that library, or without a context, it is the
 * device's primary context, selected with cudaSetDevice. The context is a
 * GstObject here so that builds without the library can name it. */
#ifndef CUDACONV_CUDA_CONTEXT_H
#define CUDACONV_CUDA_CONTEXT_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* Makes context (or, for NULL, device's primary context) current on this
 * thread; FALSE, with error set, when it cannot. Each successful enter is
 * paired with a leave. */
gboolean cudaconv_cuda_context_enter (GstObject * context, gint device,
    GError ** error);
void cudaconv_cuda_context_leave (GstObject * context);

/* The device a GstCudaContext was made for. */
gint cudaconv_cuda_context_device (GstObject * context);

/* Whether every memory of buffer is CUDA memory of context. */
gboolean cudaconv_cuda_buffer_in_context (GstBuffer * buffer,
    GstObject * context);

G_END_DECLS
#endif /* CUDACONV_CUDA_CONTEXT_H */

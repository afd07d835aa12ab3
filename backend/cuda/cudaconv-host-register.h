/* cudaconv: CUDA host registration of foreign input buffers, cached on their
 * memory.
 *
 * A buffer that is not our pinned memory (a decoder's, v4l2src's) is copied
 * by DMA only once it is page-locked. Registering it costs about as much as
 * copying a frame, so the registration is attached to the GstMemory and kept
 * while upstream recycles the buffer; it is undone when the memory is freed.
 * When buffers do not come back (a source that allocates every frame), the
 * cache says so and the caller goes back to staging instead of registering
 * every frame. */
#ifndef CUDACONV_HOST_REGISTER_H
#define CUDACONV_HOST_REGISTER_H

#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct {
  /* the context registrations are made in (cudaconv-cuda-context.h),
   * current on the thread that registers; the cache does not own it */
  GstObject *context;
  gint device;
  guint registrations;          /* memories registered so far */
  guint hits;                   /* frames that found theirs registered */
  gboolean given_up;            /* registration failed or does not pay */
} CudaConvHostRegister;

void cudaconv_host_register_init (CudaConvHostRegister * cache,
    GstObject * context, gint device);
/* Forgets the counts (a new stream of buffers). */
void cudaconv_host_register_reset (CudaConvHostRegister * cache);

/* TRUE when the frame's memory is (now) registered, so its planes can be
 * copied by DMA straight away; FALSE when the frame must be staged. */
gboolean cudaconv_host_register_frame (CudaConvHostRegister * cache,
    const GstVideoFrame * frame);

G_END_DECLS
#endif /* CUDACONV_HOST_REGISTER_H */

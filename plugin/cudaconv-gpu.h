/* cudaconv: the CUDA back end's per-element state and frame loop.
 *
 * Everything a frame needs (stream, filter slot, pitched device planes,
 * pinned staging) is made in open/configure and reused, so processing a
 * frame allocates nothing. Builds without CUDA get stubs whose open fails. */
#ifndef CUDACONV_GPU_H
#define CUDACONV_GPU_H

#include <gst/video/video.h>
#include "cudaconv-plan.h"
#include "cudaconv-filter.h"

G_BEGIN_DECLS

typedef struct _CudaConvGpu CudaConvGpu;

typedef enum {
  CUDACONV_GPU_TILED_HALO,
  CUDACONV_GPU_CACHE_HALO
} CudaConvGpuStrategy;

/* device_id -1 is CUDA's default device. Fails with a message that says why
 * no device is usable. */
CudaConvGpu *cudaconv_gpu_open (gint device_id, GError ** error);
void cudaconv_gpu_close (CudaConvGpu * gpu);

/* "device 0: NVIDIA H100 80GB HBM3 (compute capability 9.0)" */
const gchar *cudaconv_gpu_describe (CudaConvGpu * gpu);

/* Pinned host memory for buffer pools; borrowed, valid until close. */
GstAllocator *cudaconv_gpu_get_allocator (CudaConvGpu * gpu);

/* A video buffer pool of pinned memory, configured for caps. */
GstBufferPool *cudaconv_gpu_new_pool (CudaConvGpu * gpu, GstCaps * caps,
    guint size, guint min_buffers, guint max_buffers);

/* (Re)allocates device planes and staging for frames of this format. */
gboolean cudaconv_gpu_configure (CudaConvGpu * gpu, const GstVideoInfo * info,
    GError ** error);

/* filter_cookie changes whenever filter does; the filter is uploaded to
 * constant memory only then. */
gboolean cudaconv_gpu_process (CudaConvGpu * gpu, const CudaConvPlan * plan,
    const CudaConvFilter * filter, guint filter_cookie, CcBorder border,
    CudaConvGpuStrategy strategy, GstVideoFrame * in, GstVideoFrame * out,
    GError ** error);

G_END_DECLS
#endif /* CUDACONV_GPU_H */

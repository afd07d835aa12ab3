/* cudaconv: the CUDA back end's per-element state and frame loop.
 *
 * Frames go through up to `depth` frame slots, each with its own stream,
 * and device planes and pinned staging for a side of the frame in host
 * memory, so that frame N+1's host-to-device copy, frame N's kernels and
 * frame N-1's device-to-host copy run at once on the GPU's two copy
 * engines and its SMs. Everything a frame needs is made in
 * open/configure and reused: processing a frame allocates nothing. Builds
 * without CUDA get stubs whose open fails. */
#ifndef CUDACONV_GPU_H
#define CUDACONV_GPU_H

#include <gst/video/video.h>
#include "cudaconv-plan.h"
#include "cudaconv-filter.h"

G_BEGIN_DECLS

typedef struct _CudaConvGpu CudaConvGpu;

#define CUDACONV_GPU_MAX_DEPTH 8

/* Whether device_id (-1: CUDA's default device) can be used: FALSE with a
 * message that says why not. */
gboolean cudaconv_gpu_probe (gint device_id, GError ** error);

/* The backend on context's device, every call in context (a
 * GstCudaContext, see cudaconv-cuda-context.h, which the backend keeps a
 * reference to); or, for a NULL context, on device_id (-1: CUDA's default
 * device) in its primary context. Fails with a message that says why no
 * device is usable. */
CudaConvGpu *cudaconv_gpu_open (gint device_id, GstObject * context,
    GError ** error);
/* Waits for and drops frames still in flight. */
void cudaconv_gpu_close (CudaConvGpu * gpu);

/* "device 0: NVIDIA H100 80GB HBM3 (compute capability 9.0)" */
const gchar *cudaconv_gpu_describe (CudaConvGpu * gpu);

/* Pinned host memory for buffer pools; borrowed, valid until close. */
GstAllocator *cudaconv_gpu_get_allocator (CudaConvGpu * gpu);

/* A video buffer pool of pinned memory, configured for caps. */
GstBufferPool *cudaconv_gpu_new_pool (CudaConvGpu * gpu, GstCaps * caps,
    guint size, guint min_buffers, guint max_buffers);

/* (Re)allocates depth frame slots (1 .. CUDACONV_GPU_MAX_DEPTH) for frames
 * of this format. Nothing may be in flight. */
gboolean cudaconv_gpu_configure (CudaConvGpu * gpu, const GstVideoInfo * info,
    guint depth, GError ** error);

/* Whether the input and the output frames that process and submit take
 * are mapped with GST_MAP_CUDA: device memory in the backend's context,
 * read or written where it is, with no copy to or from the host; a side
 * in host memory is copied. Call before configure, which allocates device
 * planes and pinned staging for the host sides only. */
void cudaconv_gpu_set_device_frames (CudaConvGpu * gpu, gboolean in_device,
    gboolean out_device);

/* Whether input buffers that are not our pinned memory are registered with
 * CUDA (cached on the memory, see cudaconv-host-register.h) or copied
 * through pinned staging. */
void cudaconv_gpu_set_host_register (CudaConvGpu * gpu, gboolean enable);

/* The filter, border and strategy of the frames submitted from now on;
 * frames already queued keep theirs. Nothing is uploaded: each launch
 * passes its kernel the filter as it then is. strategy: CC_STRATEGY_AUTO
 * times the others on the first frame of each plane geometry and keeps the
 * fastest; separable runs tiled-halo for a filter without factors. Must be
 * called before the first frame that filters. */
void cudaconv_gpu_set_filter (CudaConvGpu * gpu,
    const CudaConvFilter * filter, CcBorder border, CcStrategy strategy);

/* Processes one frame and waits for it. */
gboolean cudaconv_gpu_process (CudaConvGpu * gpu, const CudaConvPlan * plan,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error);

/* Word-packed formats (cudaconv-word-packed.h): after configuring with the
 * planar twin, frames of packed_info, the caps' own format, are what
 * process and submit take. They are copied to the device as they are,
 * unpacked there into the twin's planes, filtered (the plan is the
 * twin's), packed there and copied back. Nothing may be in flight. */
gboolean cudaconv_gpu_configure_word_packed (CudaConvGpu * gpu,
    const GstVideoInfo * packed_info, GError ** error);

/* Queues one frame in a free slot (there must be one: see in_flight) and
 * returns without waiting. Takes over both mapped frames: they are unmapped
 * when the frame is finished or dropped. On failure the frames are unmapped
 * too. */
gboolean cudaconv_gpu_submit (CudaConvGpu * gpu, const CudaConvPlan * plan,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error);

guint cudaconv_gpu_in_flight (CudaConvGpu * gpu);

/* When the kernel family that some filtered component ran has changed
 * since the last call (the first frame included): a line that names each
 * component's, "component 0 (plane 0): 2d-strip-cache-halo; ...", to be
 * freed with g_free. NULL otherwise. */
gchar *cudaconv_gpu_take_kernel_report (CudaConvGpu * gpu);

/* Waits for the oldest submitted frame and hands back its output buffer
 * (a reference the caller owns); *out is NULL on failure. */
gboolean cudaconv_gpu_finish_oldest (CudaConvGpu * gpu, GstBuffer ** out,
    GError ** error);

/* Waits for every frame in flight and drops them (flush, stop). */
void cudaconv_gpu_discard (CudaConvGpu * gpu);

G_END_DECLS
#endif /* CUDACONV_GPU_H */

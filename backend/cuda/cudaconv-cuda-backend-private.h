/* cudaconv: the CUDA back end's state, shared by its files:
 * cudaconv-cuda-backend.c (the contract: open, configure, submit,
 * finish), cudaconv-cuda-transfer.c (a frame's copies and kernels on its
 * slot's stream) and cudaconv-cuda-strategy.c (which strategy each
 * component runs).
 *
 * Frames go through up to depth frame slots, each with its own stream,
 * and device planes and pinned staging for a side of the frame in host
 * memory, so that frame N+1's host-to-device copy, frame N's kernels and
 * frame N-1's device-to-host copy run at once on the GPU's two copy
 * engines and its SMs. Everything a frame needs is made in configure and
 * reused: processing a frame allocates nothing. */
#ifndef CUDACONV_CUDA_BACKEND_PRIVATE_H
#define CUDACONV_CUDA_BACKEND_PRIVATE_H

#include <cuda_runtime_api.h>

#include "cudaconv-backend.h"
#include "cudaconv-cuda.h"
#include "cudaconv-host-register.h"

G_BEGIN_DECLS

/* component geometries whose tuned strategy is remembered */
#define CUDACONV_MAX_TUNED 8

typedef struct {
  void *in, *out;               /* pitched device planes */
  size_t in_pitch, out_pitch;
  gsize staging_offset;
} DevicePlane;

typedef struct {
  cudaStream_t stream;
  cudaEvent_t done;
  /* whole frames in the layout of the negotiated caps, which the planes
   * point into (NULL: planes allocated one by one, pitched) */
  guint8 *frame_in, *frame_out;
  DevicePlane planes[GST_VIDEO_MAX_PLANES];
  guint8 *staging_in, *staging_out;     /* pinned, all planes back to back */
  /* word-packed frames as they travel */
  guint8 *packed_in, *packed_out;
  /* the windows of a component part's region pieces, filtered
   * (cudaconv-cuda-regions.c) */
  void *scratch;
  gsize scratch_size;
  /* the two-pass kernel families' intermediate (cc_cuda_workspace_bytes),
   * 4 bytes a sample of the largest component, which no filter outgrows */
  void *workspace;
  gsize workspace_bytes;
  /* the kernels of the slot's device frames, recorded for replay
   * (cudaconv-cuda-graph.c); NULL until the first */
  CcFrameGraph *graph;
  /* the frame's launches go into graph (recorded or bound); a strategy
   * the frame needed was not timed yet (the tuner cannot run then) */
  gboolean graph_open, wants_tuning;
  /* the frame in flight */
  gboolean out_staged;          /* copy staging_out into out when done */
  CudaConvPlan plan;
  GstVideoFrame in, out;
} FrameSlot;

/* The fastest strategy measured for one component geometry. */
typedef struct {
  gint width, height, pixel_stride;
  CcSampleType sample;
  CcStrategy strategy;
} Tuned;

/* What the measurements depend on besides the geometry. */
typedef struct {
  gint radius;
  CcShape shape;
  CcResponse response;
  gboolean separable;
  CcBorder border;
} TuneKey;

/* Which strategy each component geometry runs (cudaconv-cuda-strategy.c),
 * and the kernel family each component ran last. */
typedef struct {
  TuneKey key;
  Tuned tuned[CUDACONV_MAX_TUNED];
  guint n_tuned;
  gint families[GST_VIDEO_MAX_COMPONENTS];
  gboolean families_changed;
} StrategyChoice;

typedef struct {
  CudaConvBackend parent;
  gint device;
  /* the GstCudaContext every call runs in (cudaconv-cuda-context.h), or
   * NULL: the device's primary context */
  GstObject *context;
  gchar *description;
  GstAllocator *allocator;

  const CudaConvLayout *layout;
  /* device frames laid out as the caps say: slots hold frame_in and
   * frame_out, and a frame may travel as one copy each way */
  gboolean frame_layout;
  FrameSlot slots[CUDACONV_MAX_DEPTH];
  guint oldest, in_flight;      /* a ring of slots */
  gsize staging_size;
  /* input and output frames are device memory of the context */
  gboolean in_device, out_device;
  /* with in_device: the slots' input planes, made for the first input
   * frame of another context (or device), which is copied into them */
  gboolean input_planes;

  /* kernels may read and write pinned and registered host memory at its
   * host address (unified addressing) */
  gboolean maps_host_memory;
  CudaConvHostRegister registered;
  StrategyChoice choice;
  /* a recording failed: device frames launch their kernels one by one
   * until the next configure */
  gboolean graphs_failed;
} CudaBackend;

/* cudaconv-cuda-transfer.c: queues the slot's frame (its plan, frames
 * and job) on its stream, and completes what the host does once the
 * stream has run it. */
gboolean cudaconv_cuda_enqueue_frame (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error);
void cudaconv_cuda_complete_frame (CudaBackend * cuda, FrameSlot * slot);

/* Filters (or fills) every component of plane p that the plan processes,
 * from dp's input planes into its output planes. */
gboolean cudaconv_cuda_run_plane_kernels (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, guint p, const DevicePlane * dp, GError ** error);

/* cudaconv-cuda-graph.c: a frame whose both sides are device memory of
 * the context, and whose every plane is filtered or filled (nothing
 * copied), queued as its kernels only: replayed from the slot's graph, or
 * recorded into it, or launched one by one where neither works. */
gboolean cudaconv_cuda_enqueue_kernels (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error);

/* cudaconv-cuda-strategy.c */
void cudaconv_cuda_strategy_reset (StrategyChoice * choice);
/* Filters (or fills) src into dst, component comp of the frame, with the
 * strategy the job asks for: auto runs the fastest for this geometry and
 * filter (timed on the device the first time), separable a filter
 * without factors as tiled-halo. */
gboolean cudaconv_cuda_run_component (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, gint comp, const CcComponent * src,
    const CcComponent * dst, GError ** error);
/* When the family some component ran changed since the last call: a line
 * that names each one's, "component 0 (plane 0): 2d-strip-cache-halo;
 * ...", to be freed with g_free; else NULL. */
gchar *cudaconv_cuda_strategy_take_report (CudaBackend * cuda);

/* cudaconv-cuda-regions.c: frames with regions (cudaconv-plan.h). */
/* Filters (or fills) the pieces of one part of component comp, inside or
 * outside the regions as the slot's plan says. */
gboolean cudaconv_cuda_run_pieces (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, gint comp, guint part, const CcComponent * s,
    const CcComponent * d, GError ** error);
/* Inside the regions, plane p of a host frame: copies the windows' bytes
 * of src to dp's input plane and the rects' bytes from there to its
 * output plane; src through the slot's staging unless in_direct. */
gboolean cudaconv_cuda_regions_upload (CudaBackend * cuda, FrameSlot * slot,
    guint p, const guint8 * src, gsize src_pitch, gboolean in_direct,
    const DevicePlane * dp, GError ** error);
/* The rects' bytes of dp's output plane to dst (or the slot's staging
 * unless out_direct) */
gboolean cudaconv_cuda_regions_download (CudaBackend * cuda, FrameSlot * slot,
    guint p, guint8 * dst, gsize dst_pitch, gboolean out_direct,
    const DevicePlane * dp, GError ** error);
/* Whether the slot's frame (host memory on both sides, mapped into the
 * device's address space where in_mapped and out_mapped say so) is
 * filtered inside its regions by kernels that read and write it where it
 * is: one filter for every region, not pixelate (whose blocks a stack of
 * windows would cut), no word-packed format. */
gboolean cudaconv_cuda_regions_mapped (const CudaBackend * cuda,
    const FrameSlot * slot, const CudaConvJob * job, gboolean in_mapped,
    gboolean out_mapped);
/* Queues such a frame: its regions' windows gathered from the input into
 * a stack per component part, each stack filtered in one launch, the
 * rects scattered into the output; the rest of the output the input's. */
gboolean cudaconv_cuda_enqueue_regions_mapped (CudaBackend * cuda,
    FrameSlot * slot, const CudaConvJob * job, GError ** error);
/* The rects' bytes of plane p from the slot's staging to its output */
void cudaconv_cuda_regions_complete (CudaBackend * cuda, FrameSlot * slot,
    guint p);

G_END_DECLS
#endif /* CUDACONV_CUDA_BACKEND_PRIVATE_H */

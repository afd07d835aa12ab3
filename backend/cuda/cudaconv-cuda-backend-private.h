/* cudaconv: the CUDA back end's state and stages, shared by its files.
 *
 * Frames go through up to max_in_flight frame slots, each with its own
 * stream, and device planes and pinned staging for a side of the frame in
 * host memory, so that frame N+1's host-to-device copy, frame N's kernels
 * and frame N-1's device-to-host copy run at once on the GPU's two copy
 * engines and its SMs. A slot's buffers are made in configure and reused;
 * a frame allocates only where it outgrows them (region scratch, input of
 * another context) and in the host registration of foreign memory.
 *
 * A frame's path is chosen once, when it is submitted
 * (cudaconv-cuda-route.c), and stored on its slot; the contract
 * (cudaconv-cuda-backend.c) then runs the path's stages in order, each in
 * its own file and none calling back into another's:
 *   upload (cudaconv-cuda-upload.c): what the device reads, to the device;
 *   compute (cudaconv-cuda-compute.c, through cudaconv-cuda-graph.c for
 *     frames of kernels only): plane copies and kernels on the device,
 *     with the strategy of each kernel from cudaconv-cuda-strategy.c;
 *   download (cudaconv-cuda-download.c): what the device wrote, back to
 *     the host, and the planes the device does not touch copied there;
 * then the contract records the frame's event, and when it has passed,
 * the download file's completion puts staged output in place. The slot's
 * state is cudaconv-cuda-slot.c's. */
#ifndef CUDACONV_CUDA_BACKEND_PRIVATE_H
#define CUDACONV_CUDA_BACKEND_PRIVATE_H

#include <cuda_runtime_api.h>

#include "cudaconv-backend.h"
#include "cudaconv-cuda.h"
#include "cudaconv-host-register.h"

G_BEGIN_DECLS

/* component geometries whose tuned strategy is remembered */
#define CUDACONV_MAX_TUNED 8

/* Patches a launch takes as its parameters (the smallest room of
 * cc_cuda_copy_patches); more go in a table */
#define CUDACONV_PARAMETER_PATCHES 16

typedef struct {
  void *in, *out;               /* pitched device planes */
  size_t in_pitch, out_pitch;
  gsize staging_offset;
} DevicePlane;

/* The ways a frame travels; a frame takes one, chosen when it is
 * submitted. */
typedef enum {
  /* both sides device memory of the context, every plane filtered or
   * filled: the kernels alone, replayed from the slot's frame graph */
  CUDA_PATH_KERNELS,
  /* planes between host and device as each side's memory needs, or read
   * and written where they are on the device; the kernels in between */
  CUDA_PATH_PLANES,
  /* inside the regions, host frames filtered in place that the device
   * maps, whose regions are a small part of them: the windows gathered
   * into a stack per component part, each stack filtered in one launch,
   * the rects scattered back, all where the frames are */
  CUDA_PATH_REGIONS_MAPPED,
  /* inside the regions, other host frames filtered in place: each
   * region's bytes travel each way by DMA */
  CUDA_PATH_REGIONS_STAGED,
  /* v210, Y410, RGB10A2_LE, BGR10A2_LE: the packed frame travels, and the
   * device unpacks it into its planar twin and packs the result */
  CUDA_PATH_WORD_PACKED
} CudaFramePath;

/* What was decided about a frame when it was submitted */
typedef struct {
  CudaFramePath path;
  /* the device reads the input, or writes the output, where it is: device
   * memory, our pinned memory or registered host memory */
  gboolean in_direct, out_direct;
  /* a side in host memory goes as one copy of the whole frame */
  gboolean whole_in, whole_out;
  /* the input is device memory of another context, copied into the
   * slot's input planes */
  gboolean foreign_in;
  gboolean in_place;            /* the job's: the output is the input */
  /* inside the regions, the windows of each component part gathered into
   * a stack, filtered in one launch and the rects scattered back: where
   * the frames are on the regions mapped path, in the device planes on
   * the planes path */
  gboolean stacks;
  /* the output comes back through staging_out, put in place at finish */
  gboolean out_staged;
  /* a region frame whose compute stage is kernels only (its stacks where
   * the frames are, or in device memory of the context filtered in place)
   * and whose coverage is the last frame's (fixed boxes): replayed from
   * the slot's frame graph, as the kernels path is */
  gboolean replay;
} CudaFrameRoute;

/* A frame's stacks as the compute stage laid them out
 * (cudaconv-cuda-compute.c) */
typedef struct CudaStackFrame CudaStackFrame;

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
  /* filtered windows and stacks of the frame's region pieces */
  void *scratch;
  gsize scratch_size;
  /* the two-pass kernel families' intermediate (cc_cuda_workspace_bytes),
   * 4 bytes a sample of the largest component, which no filter on a part
   * outgrows (a stack of windows may: it grows then) */
  void *workspace;
  gsize workspace_bytes;
  /* the tables of the frame's patch copies (cc_cuda_copy_patch_table),
   * pinned: each launch's from patch_used on, back to 0 when the slot
   * takes a frame (the slot's last frame is done by then) */
  void *patch_table;
  gsize patch_table_size, patch_used;
  /* the frame's stacks, laid out before its work is queued (NULL until
   * the slot's first frame of stacks) */
  CudaStackFrame *stack_frame;
  /* the frame's compute stage only queues work, which a frame graph can
   * capture: no strategy to time, nothing to allocate */
  gboolean capturable;
  /* the kernels of the slot's device frames, recorded for replay
   * (cudaconv-cuda-graph.c); NULL until the first */
  CcFrameGraph *graph;
  /* the frame in flight: its route, plan, the regions' coverage (made
   * with the slot: a frame copies into it), frames, and the planes its
   * kernels read and write (device planes, or the frames' own) */
  CudaFrameRoute route;
  CudaConvPlan plan;
  CudaConvCoverage *coverage;
  GstVideoFrame in, out;
  DevicePlane bound[GST_VIDEO_MAX_PLANES];
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
  CudaConvRunOptions options;

  const CudaConvLayout *layout;
  /* the slots' device frames are laid out as the caps say: slots hold
   * frame_in and frame_out, and a frame may travel as one copy each way */
  gboolean whole_frames;
  FrameSlot slots[CUDACONV_MAX_IN_FLIGHT];
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
  /* the generation of the last region frame's coverage (the route's) */
  guint64 coverage_generation;
} CudaBackend;

/* Queues the copy of bytes [b->x, b->x + b->w) of rows [b->y, b->y +
 * b->h) from src to the same place in dst, planes of the given pitches. */
static inline cudaError_t
cudaconv_cuda_copy_box (void *dst, size_t dst_pitch, const void *src,
    size_t src_pitch, const GstVideoRectangle * b, enum cudaMemcpyKind kind,
    cudaStream_t stream)
{
  return cudaMemcpy2DAsync ((guint8 *) dst + (gsize) b->y * dst_pitch + b->x,
      dst_pitch, (const guint8 *) src + (gsize) b->y * src_pitch + b->x,
      src_pitch, b->w, b->h, kind, stream);
}

/* cudaconv-cuda-slot.c: the slots' memory, and the frame each holds. */
gboolean cudaconv_cuda_slots_make (CudaBackend * cuda, guint n,
    GError ** error);
void cudaconv_cuda_slots_release (CudaBackend * cuda);
/* Takes the frame into the slot: the route, a copy of the job's plan and
 * coverage, both frames, and the planes its kernels use. FALSE when the
 * slot's input planes for another context's memory cannot be made. */
gboolean cudaconv_cuda_slot_begin (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, const CudaFrameRoute * route,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error);
/* Gives the slot back; returns its output buffer when keep_output is set. */
GstBuffer *cudaconv_cuda_slot_end (FrameSlot * slot, gboolean keep_output);
/* The slot's scratch, or its workspace (*which), grown to hold bytes.
 * Growing waits for the device, which a stream of similar frames does
 * once, and takes half again, so that a region growing frame by frame
 * does not reallocate each time. */
gboolean cudaconv_cuda_slot_grow (void **buffer, gsize * size, gsize bytes,
    GError ** error);
/* Room for bytes more of the slot's patch tables, which the frame keeps
 * until it is done; growing the tables waits for the slot's stream (the
 * frame's earlier launches may read the old ones) and moves them, so a
 * frame reserves what its next launches take at once. */
gboolean cudaconv_cuda_slot_patch_tables_reserve (FrameSlot * slot,
    gsize bytes, GError ** error);
/* The next bytes (a multiple of 16) of the room reserved */
gpointer cudaconv_cuda_slot_patch_table (FrameSlot * slot, gsize bytes);

/* cudaconv-cuda-route.c: the one decision of a frame's path. */
CudaFrameRoute cudaconv_cuda_route (CudaBackend * cuda,
    const CudaConvJob * job, GstVideoFrame * in, GstVideoFrame * out);

/* The stages, each queued on the slot's stream for its route's path. */
gboolean cudaconv_cuda_upload (CudaBackend * cuda, FrameSlot * slot,
    GError ** error);
/* The compute stage's host work, before any of it is queued: the stacks
 * laid out, the scratch, workspace and patch tables grown, and whether
 * what it queues is capturable. */
gboolean cudaconv_cuda_compute_prepare (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error);
/* The compute stage's work queued, as prepared: the same for every run,
 * so that a frame graph may capture or bind it and the frame may still
 * be launched one by one after. */
gboolean cudaconv_cuda_compute (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error);
void cudaconv_cuda_stack_frame_free (CudaStackFrame * frame);
/* cudaconv-cuda-graph.c: the compute stage of a CUDA_PATH_KERNELS or a
 * replay frame, replayed from the slot's graph (or recorded into it)
 * where it can be. */
gboolean cudaconv_cuda_compute_graphed (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error);
gboolean cudaconv_cuda_download (CudaBackend * cuda, FrameSlot * slot,
    GError ** error);
/* After the frame's event: staged output put in place on the host. */
void cudaconv_cuda_complete (CudaBackend * cuda, FrameSlot * slot);

/* cudaconv-cuda-strategy.c: the one place that decides which strategy a
 * kernel runs, and the only caller of cc_cuda_fastest_strategy. */
void cudaconv_cuda_strategy_reset (StrategyChoice * choice);
/* Filters src into dst, component comp of the frame: a whole part
 * (whole) with the strategy the options ask for (auto: the fastest for
 * this geometry and filter, timed on the device the first time;
 * separable: tiled-halo for a filter without factors), or a window or a
 * stack of them, whose sizes change with every frame and so are not
 * timed (separable where the filter has factors, else tiled-halo). */
gboolean cudaconv_cuda_run_component (CudaBackend * cuda, FrameSlot * slot,
    gint comp, const CcComponent * src, const CcComponent * dst,
    const CcFilter * filter, CcBorder border, gboolean whole,
    GError ** error);
/* Records that component comp ran the family that component like ran (a
 * stack filtered with another's, in one launch), for the bus report */
void cudaconv_cuda_strategy_same_family (CudaBackend * cuda, gint comp,
    gint like);
/* Whether some whole part of the slot's frame would be timed first: a
 * frame that records a graph cannot wait for the device. */
gboolean cudaconv_cuda_strategy_untimed (CudaBackend * cuda,
    const FrameSlot * slot, const CudaConvJob * job);
/* Whether the whole part src would be timed first under filter */
gboolean cudaconv_cuda_strategy_untimed_part (CudaBackend * cuda,
    const CcComponent * src, const CcFilter * filter, CcBorder border);
/* When the family some component ran changed since the last call: a line
 * that names each one's, "component 0 (plane 0): 2d-strip-cache-halo;
 * ...", to be freed with g_free; else NULL. */
gchar *cudaconv_cuda_strategy_take_report (CudaBackend * cuda);

G_END_DECLS
#endif /* CUDACONV_CUDA_BACKEND_PRIVATE_H */

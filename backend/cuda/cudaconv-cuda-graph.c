/* cudaconv: device frames queued as their kernels only, replayed from the
 * slot's frame graph (see cudaconv-cuda-backend-private.h).
 *
 * A frame whose both sides are device memory costs the host little but
 * its launches, a few microseconds each: at 1920x1080 I420 the three
 * launches took longer than the three kernels ran. Each slot records its
 * frame's launches once as a CUDA graph (kernels/cuda/cudaconv-cuda.h),
 * and later frames replay it with their own planes, so a frame costs one
 * graph launch and the arguments that changed.
 *
 * The backend runs the same code for every frame; only the kernels'
 * launches behave differently, while a graph records or binds them. A
 * frame whose launches differ from the recording (another filter radius or
 * kernel, new strategies) finds the graph stale: that frame is launched one
 * by one, and the slot records again with the next. A frame whose
 * strategy is not timed yet runs without a graph, since the tuner waits
 * for its stream; a recording that fails otherwise leaves graphs off until
 * the next configure. */
#include "config.h"

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* Every plane's kernels, reading and writing the frames where they are */
static gboolean
run_kernels (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    GError ** error)
{
  for (guint p = 0; p < cuda->layout->n_planes; p++) {
    DevicePlane dp = slot->planes[p];
    dp.in = GST_VIDEO_FRAME_PLANE_DATA (&slot->in, p);
    dp.in_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->in, p);
    dp.out = GST_VIDEO_FRAME_PLANE_DATA (&slot->out, p);
    dp.out_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, p);
    if (!cudaconv_cuda_run_plane_kernels (cuda, slot, job, p, &dp, error))
      return FALSE;
  }
  return TRUE;
}

/* The slot's graph set to this frame's arguments and launched. FALSE with
 * *stale set where the frame's launches are not those recorded: nothing
 * ran. */
static gboolean
replay (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    gboolean * stale, GError ** error)
{
  cudaError_t err;

  *stale = FALSE;
  if (!CUDACONV_CHECK (cc_frame_graph_bind (slot->graph, slot->stream),
          error))
    return FALSE;
  if (!run_kernels (cuda, slot, job, error)) {
    cc_frame_graph_abandon (slot->graph);
    return FALSE;
  }
  err = cc_frame_graph_launch (slot->graph);
  *stale = err == cudaErrorGraphExecUpdateFailure;
  return *stale ? FALSE : CUDACONV_CHECK (err, error);
}

/* The frame's launches recorded into the slot's graph, which then runs
 * them. FALSE, with the reason in *why, where the recording failed:
 * nothing ran. */
static gboolean
record (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    GError ** why)
{
  gboolean ok;

  if (!CUDACONV_CHECK (cc_frame_graph_record (slot->graph, slot->stream),
          why))
    return FALSE;
  slot->recording = TRUE;
  ok = run_kernels (cuda, slot, job, why);
  slot->recording = FALSE;
  if (!ok) {
    cc_frame_graph_abandon (slot->graph);
    return FALSE;
  }
  if (!CUDACONV_CHECK (cc_frame_graph_launch (slot->graph), why)) {
    cc_frame_graph_abandon (slot->graph);
    return FALSE;
  }
  return TRUE;
}

gboolean
cudaconv_cuda_enqueue_kernels (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error)
{
  GError *why = NULL;
  gboolean stale;

  if (!slot->graph && !CUDACONV_CHECK (cc_frame_graph_new (&slot->graph),
          error))
    return FALSE;
  if (cc_frame_graph_ready (slot->graph)) {
    if (replay (cuda, slot, job, &stale, error))
      return TRUE;
    if (!stale)
      return FALSE;
    GST_DEBUG ("the frame's launches are not those its slot recorded: "
        "launched one by one, recorded again with the slot's next frame");
    return run_kernels (cuda, slot, job, error);
  }
  if (cuda->graphs_failed)
    return run_kernels (cuda, slot, job, error);
  if (record (cuda, slot, job, &why))
    return TRUE;
  if (!slot->wants_tuning) {
    cuda->graphs_failed = TRUE;
    GST_INFO ("device frames launch their kernels one by one: recording a "
        "frame's kernels failed: %s", why->message);
  }
  slot->wants_tuning = FALSE;
  g_clear_error (&why);
  return run_kernels (cuda, slot, job, error);
}

/* cudaconv: the compute stage of device frames, and of region frames of
 * fixed boxes whose work is kernels only, replayed from the slot's frame
 * graph (see cudaconv-cuda-backend-private.h).
 *
 * A frame whose both sides are device memory costs the host little but
 * its launches, a few microseconds each: at 1920x1080 I420 the three
 * launches took longer than the three kernels ran. Each slot records its
 * frame's launches once as a CUDA graph (kernels/cuda/cudaconv-cuda.h),
 * and later frames replay it with their own planes, so a frame costs one
 * graph launch. A region frame's gathers and scatters read their patches
 * from the slot's tables, whose place stays, so its launches keep their
 * arguments from frame to frame.
 *
 * The compute stage runs the same code for every frame; only the kernels'
 * launches behave differently, while a graph records or binds them. A
 * frame whose launches differ from the recording (another filter radius or
 * kernel, new strategies, other regions) finds the graph stale: that frame
 * is launched one by one, and the slot records again with the next. A
 * frame with a strategy still to time runs without a graph, since the
 * tuner launches and waits on its stream, and so does a region frame with
 * a part the plan fills (cudaconv_cuda_compute_prepare says which); any
 * other failure of a graph leaves graphs off
 * until the next configure. */
#include "config.h"

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* What became of a frame's launches into the slot's graph */
typedef enum {
  GRAPH_RAN,                    /* the graph runs the frame */
  GRAPH_STALE,                  /* not the recorded launches: nothing ran */
  GRAPH_FAILED                  /* nothing ran; why says why */
} GraphOutcome;

/* The frame's launches recorded into the slot's graph (record) or bound
 * to its recording, and the graph launched. */
static GraphOutcome
run_graph (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    gboolean record, GError ** why)
{
  cudaError_t err;

  if (!CUDACONV_CHECK (record ? cc_frame_graph_record (slot->graph,
              slot->stream) : cc_frame_graph_bind (slot->graph,
              slot->stream), why))
    return GRAPH_FAILED;
  if (!cudaconv_cuda_compute (cuda, slot, job, why)) {
    cc_frame_graph_abandon (slot->graph);
    return GRAPH_FAILED;
  }
  err = cc_frame_graph_launch (slot->graph);
  if (err == cudaErrorGraphExecUpdateFailure && !record)
    return GRAPH_STALE;
  if (!CUDACONV_CHECK (err, why)) {
    cc_frame_graph_abandon (slot->graph);
    return GRAPH_FAILED;
  }
  if (record)
    GST_DEBUG ("a frame slot recorded its frame's kernels");
  else
    GST_LOG ("a frame slot replayed its frame's kernels");
  return GRAPH_RAN;
}

gboolean
cudaconv_cuda_compute_graphed (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error)
{
  GError *why = NULL;

  if (!slot->graph && !CUDACONV_CHECK (cc_frame_graph_new (&slot->graph),
          error))
    return FALSE;
  if (cuda->graphs_failed || !slot->capturable)
    return cudaconv_cuda_compute (cuda, slot, job, error);
  switch (run_graph (cuda, slot, job, !cc_frame_graph_ready (slot->graph),
          &why)) {
    case GRAPH_RAN:
      return TRUE;
    case GRAPH_STALE:
      GST_DEBUG ("the frame's launches are not those its slot recorded: "
          "launched one by one, recorded again with the slot's next frame");
      break;
    case GRAPH_FAILED:
      /* a real CUDA failure fails the direct launches too, and says so */
      cuda->graphs_failed = TRUE;
      GST_INFO ("device frames launch their kernels one by one: their "
          "graph failed: %s", why->message);
      g_clear_error (&why);
      break;
  }
  return cudaconv_cuda_compute (cuda, slot, job, error);
}

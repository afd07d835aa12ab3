/* cudaconv: the CUDA back end's frame slots, their memory and the frame
 * each holds (see cudaconv-cuda-backend-private.h). Only this file writes
 * a slot's state; the stages read it, and grow its scratch. */
#include "config.h"

#include <string.h>

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

void
cudaconv_cuda_slots_release (CudaBackend * cuda)
{
  for (guint s = 0; s < CUDACONV_MAX_IN_FLIGHT; s++) {
    FrameSlot *slot = &cuda->slots[s];
    if (cuda->whole_frames) {
      cudaFree (slot->frame_in);
      cudaFree (slot->frame_out);
    } else {
      for (guint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
        cudaFree (slot->planes[p].in);
        cudaFree (slot->planes[p].out);
      }
    }
    cudaFreeHost (slot->staging_in);
    cudaFreeHost (slot->staging_out);
    cudaFree (slot->packed_in);
    cudaFree (slot->packed_out);
    cudaFree (slot->scratch);
    cudaFree (slot->workspace);
    cudaFreeHost (slot->patch_table);
    cudaconv_cuda_stack_frame_free (slot->stack_frame);
    cc_frame_graph_free (slot->graph);
    cudaconv_coverage_free (slot->coverage);
    if (slot->done)
      cudaEventDestroy (slot->done);
    if (slot->stream)
      cudaStreamDestroy (slot->stream);
    memset (slot, 0, sizeof (*slot));
  }
  cuda->parent.max_in_flight = 0;
  cuda->oldest = cuda->in_flight = 0;
  cuda->staging_size = 0;
}

gboolean
cudaconv_cuda_slots_make (CudaBackend * cuda, guint n, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const GstVideoInfo *info = &layout->work_info;
  gsize staging_size = 0, workspace_bytes = 0;

  for (guint p = 0; p < layout->n_planes; p++)
    staging_size += layout->planes[p].row_bytes * layout->planes[p].rows;
  /* 4 bytes a sample of the largest component: enough for every filter
   * the settings can make later (cc_cuda_workspace_bytes), so a change of
   * filter never allocates */
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    workspace_bytes = MAX (workspace_bytes, (gsize) 4 *
        GST_VIDEO_INFO_COMP_WIDTH (info, c) *
        GST_VIDEO_INFO_COMP_HEIGHT (info, c));
  /* a word-packed frame travels as it is: the staging holds its rows */
  if (layout->word_packed)
    staging_size = MAX (staging_size, layout->caps_planes[0].row_bytes *
        layout->caps_planes[0].rows);
  /* Device frames laid out like the host's let a frame travel as one copy
   * each way instead of one per plane (fewer, larger DMA transfers and
   * fewer calls per frame). Only layouts whose planes all start and step
   * on 16 bytes take it, so that every plane still moves as quads in the
   * kernels (the pitched planes of cudaMallocPitch do); other layouts keep
   * pitched planes. */
  cuda->whole_frames = TRUE;
  for (guint p = 0; p < layout->n_planes; p++)
    if ((GST_VIDEO_INFO_PLANE_OFFSET (info, p) |
            GST_VIDEO_INFO_PLANE_STRIDE (info, p)) & 15)
      cuda->whole_frames = FALSE;
  for (guint s = 0; s < n; s++) {
    FrameSlot *slot = &cuda->slots[s];
    gsize offset = 0;

    cuda->parent.max_in_flight = s + 1;
    slot->coverage = cudaconv_coverage_new ();
    if (!CUDACONV_CHECK (cudaStreamCreateWithFlags (&slot->stream,
                cudaStreamNonBlocking), error)
        || !CUDACONV_CHECK (cudaEventCreateWithFlags (&slot->done,
                cudaEventDisableTiming), error))
      return FALSE;
    /* a side in device memory is read or written where it is: it needs
     * neither staging nor device planes of the slot's own */
    if ((!cuda->in_device && !CUDACONV_CHECK (cudaHostAlloc ((void **)
                    &slot->staging_in, staging_size, cudaHostAllocDefault),
                error))
        || (!cuda->out_device && !CUDACONV_CHECK (cudaHostAlloc ((void **)
                    &slot->staging_out, staging_size, cudaHostAllocDefault),
                error)))
      return FALSE;
    if (cuda->whole_frames
        && ((!cuda->in_device && !CUDACONV_CHECK (cudaMalloc ((void **)
                        &slot->frame_in, GST_VIDEO_INFO_SIZE (info)), error))
            || (!cuda->out_device
                && (!CUDACONV_CHECK (cudaMalloc ((void **) &slot->frame_out,
                            GST_VIDEO_INFO_SIZE (info)), error)
                    /* row padding and gaps between planes, which no kernel
                     * writes, go out as zeros with the whole frame; on the
                     * slot's stream, since the legacy default stream does
                     * not order a non-blocking one, and the zeros could land
                     * after the first frame's plane copies */
                    || !CUDACONV_CHECK (cudaMemsetAsync (slot->frame_out, 0,
                            GST_VIDEO_INFO_SIZE (info), slot->stream),
                        error)))))
      return FALSE;
    if (!CUDACONV_CHECK (cudaMalloc (&slot->workspace, workspace_bytes),
            error))
      return FALSE;
    slot->workspace_bytes = workspace_bytes;
    if (layout->word_packed
        && (!CUDACONV_CHECK (cudaMalloc ((void **) &slot->packed_in,
                    GST_VIDEO_INFO_SIZE (&layout->info)), error)
            || !CUDACONV_CHECK (cudaMalloc ((void **) &slot->packed_out,
                    GST_VIDEO_INFO_SIZE (&layout->info)), error)))
      return FALSE;
    for (guint p = 0; p < layout->n_planes; p++) {
      DevicePlane *dp = &slot->planes[p];
      const CudaConvPlaneLayout *pl = &layout->planes[p];
      const gsize plane_offset = GST_VIDEO_INFO_PLANE_OFFSET (info, p);

      if (cuda->whole_frames) {
        dp->in = slot->frame_in ? slot->frame_in + plane_offset : NULL;
        dp->out = slot->frame_out ? slot->frame_out + plane_offset : NULL;
        dp->in_pitch = dp->out_pitch = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
      } else if ((!cuda->in_device && !CUDACONV_CHECK (cudaMallocPitch
                  (&dp->in, &dp->in_pitch, pl->row_bytes, pl->rows), error))
          || (!cuda->out_device && !CUDACONV_CHECK (cudaMallocPitch (&dp->out,
                      &dp->out_pitch, pl->row_bytes, pl->rows), error))) {
        return FALSE;
      }
      dp->staging_offset = offset;
      offset += pl->row_bytes * pl->rows;
    }
  }
  cuda->staging_size = staging_size;
  return TRUE;
}

/* Input planes of the slots' own for frames in device memory of another
 * context or device, which are copied into them (the kernels read memory
 * of their own context only): made once, for the first such frame. */
static gboolean
make_input_planes (CudaBackend * cuda, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const gsize frame_size = GST_VIDEO_INFO_SIZE (&layout->work_info);

  for (guint s = 0; s < cuda->parent.max_in_flight; s++) {
    FrameSlot *slot = &cuda->slots[s];
    if (cuda->whole_frames && !slot->frame_in
        && !CUDACONV_CHECK (cudaMalloc ((void **) &slot->frame_in,
                frame_size), error))
      return FALSE;
    for (guint p = 0; p < layout->n_planes; p++) {
      DevicePlane *dp = &slot->planes[p];
      if (cuda->whole_frames) {
        dp->in = slot->frame_in +
            GST_VIDEO_INFO_PLANE_OFFSET (&layout->work_info, p);
        dp->in_pitch = GST_VIDEO_INFO_PLANE_STRIDE (&layout->work_info, p);
      } else if (!dp->in && !CUDACONV_CHECK (cudaMallocPitch (&dp->in,
                  &dp->in_pitch, layout->planes[p].row_bytes,
                  layout->planes[p].rows), error)) {
        return FALSE;
      }
    }
  }
  cuda->input_planes = TRUE;
  GST_INFO ("input of another CUDA context: copied into %u frame slots of "
      "ours", cuda->parent.max_in_flight);
  return TRUE;
}

gboolean
cudaconv_cuda_slot_begin (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, const CudaFrameRoute * route,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  slot->route = *route;
  slot->plan = *job->plan;
  slot->patch_used = 0;
  slot->in = *in;
  slot->out = *out;
  /* a coverage of the generation the slot holds is what it holds already
   * (fixed boxes: a crowd's pieces are not copied again each frame) */
  if (job->coverage && (job->coverage->generation == 0
          || job->coverage->generation != slot->coverage->generation))
    cudaconv_coverage_copy (slot->coverage, job->coverage);
  if (route->foreign_in && !cuda->input_planes
      && !make_input_planes (cuda, error))
    return FALSE;
  /* a side of device memory of the context is read or written where it
   * is; the word-packed path's kernels work in the slot's twin planes */
  for (guint p = 0; p < cuda->layout->n_planes; p++) {
    DevicePlane *b = &slot->bound[p];
    *b = slot->planes[p];
    if (route->path == CUDA_PATH_WORD_PACKED)
      continue;
    if (cuda->in_device && !route->foreign_in) {
      b->in = GST_VIDEO_FRAME_PLANE_DATA (in, p);
      b->in_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
    }
    if (cuda->out_device) {
      b->out = GST_VIDEO_FRAME_PLANE_DATA (out, p);
      b->out_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    }
  }
  return TRUE;
}

GstBuffer *
cudaconv_cuda_slot_end (FrameSlot * slot, gboolean keep_output)
{
  GstBuffer *out = keep_output ? gst_buffer_ref (slot->out.buffer) : NULL;

  cudaconv_frames_unmap (&slot->in, &slot->out, slot->route.in_place);
  return out;
}

gboolean
cudaconv_cuda_slot_grow (void **buffer, gsize * size, gsize bytes,
    GError ** error)
{
  if (bytes <= *size)
    return TRUE;
  cudaFree (*buffer);
  *buffer = NULL;
  *size = 0;
  bytes += bytes / 2;
  if (!CUDACONV_CHECK (cudaMalloc (buffer, bytes), error))
    return FALSE;
  *size = bytes;
  return TRUE;
}

gboolean
cudaconv_cuda_slot_patch_tables_reserve (FrameSlot * slot, gsize bytes,
    GError ** error)
{
  const gsize size = (slot->patch_used + bytes) * 3 / 2;

  if (slot->patch_used + bytes <= slot->patch_table_size)
    return TRUE;
  if (!CUDACONV_CHECK (cudaStreamSynchronize (slot->stream), error))
    return FALSE;
  cudaFreeHost (slot->patch_table);
  slot->patch_table = NULL;
  slot->patch_table_size = slot->patch_used = 0;
  if (!CUDACONV_CHECK (cudaHostAlloc (&slot->patch_table, size,
              cudaHostAllocDefault), error))
    return FALSE;
  slot->patch_table_size = size;
  return TRUE;
}

gpointer
cudaconv_cuda_slot_patch_table (FrameSlot * slot, gsize bytes)
{
  gpointer table = (guint8 *) slot->patch_table + slot->patch_used;

  g_assert (bytes % 16 == 0
      && slot->patch_used + bytes <= slot->patch_table_size);
  slot->patch_used += bytes;
  return table;
}

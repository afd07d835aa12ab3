/* cudaconv: a frame's copies and kernels on its slot's stream (see
 * cudaconv-cuda-backend-private.h).
 *
 * A frame's planes go host -> device -> kernels -> host, where a side of
 * the frame is in host memory; a side in device memory of our context is
 * read or written where it is. Planes in our pinned memory, or in foreign
 * memory that the host registration cache has page-locked, are copied by
 * DMA directly; others go through the slot's pinned staging, because a
 * copy from pageable memory is both slower and blocking. */
#include "config.h"

#include <string.h>

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"
#include "cudaconv-cuda-context.h"
#include "cudaconv-pinned-allocator.h"
#include "cudaconv-word-packed.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

static void
copy_rows (guint8 * dst, gsize dst_pitch, const guint8 * src, gsize src_pitch,
    gsize row_bytes, gint rows)
{
  for (gint y = 0; y < rows; y++)
    memcpy (dst + y * dst_pitch, src + y * src_pitch, row_bytes);
}

gboolean
cudaconv_cuda_run_plane_kernels (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, guint p, const DevicePlane * dp, GError ** error)
{
  const CudaConvPlan *plan = &slot->plan;
  const CudaConvPlaneLayout *pl = &cuda->layout->planes[p];

  for (gint i = 0; i < pl->n_components; i++) {
    const gint c = pl->components[i];
    CcComponent s[CUDACONV_MAX_PARTS], d[CUDACONV_MAX_PARTS];
    guint n;

    if (plan->action[c] == CUDACONV_ACTION_COPY)
      continue;
    n = cudaconv_plan_parts (plan, c, dp->in, dp->in_pitch, s);
    cudaconv_plan_parts (plan, c, dp->out, dp->out_pitch, d);
    for (guint k = 0; k < n; k++)
      if (!(cudaconv_plan_has_regions (plan) ?
              cudaconv_cuda_run_pieces (cuda, slot, job, c, k, &s[k], &d[k],
                  error) :
              cudaconv_cuda_run_component (cuda, slot, job, c, &s[k], &d[k],
                  error)))
        return FALSE;
  }
  return TRUE;
}

/* Whether frame is one block of memory laid out as the negotiated caps
 * say, so that it can be copied whole into or out of a device frame: that
 * copy also takes the last row's padding and whatever follows the last
 * plane, which the frame check does not ask a buffer to hold. */
static gboolean
frame_is_whole (const CudaBackend * cuda, const GstVideoFrame * frame)
{
  const GstVideoInfo *info = &cuda->layout->work_info;
  const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  const GstMapInfo *map = &frame->map[0];
  const gsize frame_bytes = GST_VIDEO_INFO_SIZE (info) -
      GST_VIDEO_INFO_PLANE_OFFSET (info, 0);

  if (gst_buffer_n_memory (frame->buffer) != 1
      || (gsize) (map->data + map->size - base) < frame_bytes)
    return FALSE;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++)
    if (GST_VIDEO_FRAME_PLANE_STRIDE (frame, p) !=
        GST_VIDEO_INFO_PLANE_STRIDE (info, p)
        || (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, p) - base !=
        (gssize) (GST_VIDEO_INFO_PLANE_OFFSET (info, p) -
            GST_VIDEO_INFO_PLANE_OFFSET (info, 0)))
      return FALSE;
  return TRUE;
}

/* Whether plane p goes through the device: it is filtered there, or a
 * side of the frame is device memory. */
static gboolean
plane_on_device (const CudaBackend * cuda, const FrameSlot * slot, guint p)
{
  return slot->plan.planes[p].process || cuda->in_device || cuda->out_device;
}

/* Whether the slot's frame, in host memory on both sides, is filtered
 * inside its regions only: then only their pieces' bytes travel. */
static gboolean
moves_regions_only (const CudaBackend * cuda, const FrameSlot * slot)
{
  return slot->plan.region_mode == CUDACONV_REGION_MODE_INSIDE
      && !cuda->in_device && !cuda->out_device;
}

/* Whether one side of the slot's frame, in host memory, can travel as one
 * copy: device frames exist, the frame is copied by DMA and laid out as
 * the caps say, and every plane goes through the device (a copy back
 * carries them all). A crop's picture inside a larger buffer goes plane by
 * plane. */
static gboolean
copies_whole_frame (const CudaBackend * cuda, const FrameSlot * slot,
    const GstVideoFrame * frame, gboolean direct)
{
  if (!cuda->frame_layout || !direct || !frame_is_whole (cuda, frame)
      || moves_regions_only (cuda, slot))
    return FALSE;
  for (guint p = 0; p < cuda->layout->n_planes; p++)
    if (!plane_on_device (cuda, slot, p))
      return FALSE;
  return TRUE;
}

/* Whether the slot's frame is kernels only on device memory of the
 * context: both sides that memory, no regions, and every plane filtered
 * or filled (none copied). Word-packed formats go elsewhere. */
static gboolean
kernels_only (const CudaBackend * cuda, const FrameSlot * slot,
    gboolean foreign_in)
{
  if (!cuda->in_device || !cuda->out_device || foreign_in
      || cudaconv_plan_has_regions (&slot->plan))
    return FALSE;
  for (guint p = 0; p < cuda->layout->n_planes; p++)
    if (!slot->plan.planes[p].process || slot->plan.planes[p].copy_first)
      return FALSE;
  return TRUE;
}

/* Whether the input frame's planes are read by the device directly:
 * device memory, our pinned memory or memory the host registration cache
 * has page-locked. */
static gboolean
input_by_dma (CudaBackend * cuda, const CudaConvJob * job, GstVideoFrame * in)
{
  return cuda->in_device || cudaconv_buffer_is_pinned (in->buffer)
      || (job->host_register
      && cudaconv_host_register_frame (&cuda->registered, in));
}

/* Whether the output frame's planes are written by the device directly. */
static gboolean
output_by_dma (const CudaBackend * cuda, const GstVideoFrame * out)
{
  return cuda->out_device || cudaconv_buffer_is_pinned (out->buffer);
}

/* The kernels' name for a word-packed format */
static CcWordLayout
word_layout (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_v210:
      return CC_WORD_V210;
    case GST_VIDEO_FORMAT_Y410:
      return CC_WORD_Y410;
    case GST_VIDEO_FORMAT_RGB10A2_LE:
      return CC_WORD_RGB10A2;
    default:
      return CC_WORD_BGR10A2;
  }
}

/* The twin's device planes that hold the packed format's planes or fields,
 * on the input (in) or the output side */
static void
word_planes (const CudaBackend * cuda, const FrameSlot * slot,
    const gint comps[4], gboolean in, void *planes[4], size_t pitches[4])
{
  for (gint k = 0; k < 4; k++) {
    const DevicePlane *dp;
    if (comps[k] < 0) {
      planes[k] = NULL;
      pitches[k] = 0;
      continue;
    }
    dp = &slot->planes[GST_VIDEO_INFO_COMP_PLANE (&cuda->layout->work_info,
            comps[k])];
    planes[k] = in ? dp->in : dp->out;
    pitches[k] = in ? dp->in_pitch : dp->out_pitch;
  }
}

/* A word-packed frame on the slot's stream: copied to the device as it is,
 * unpacked there into the twin's planes, filtered, packed and copied back
 * (into staging_out when out is not copied by DMA). */
static gboolean
enqueue_word_packed (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const gboolean in_direct = input_by_dma (cuda, job, &slot->in);
  const gboolean out_direct = output_by_dma (cuda, &slot->out);
  const CudaConvPlan *plan = &slot->plan;
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (&layout->info);
  const CcWordLayout word = word_layout (format);
  const gsize pitch = GST_VIDEO_INFO_PLANE_STRIDE (&layout->info, 0);
  const gint width = GST_VIDEO_INFO_WIDTH (&layout->info);
  const gsize row_bytes = layout->caps_planes[0].row_bytes;
  const gint rows = layout->caps_planes[0].rows;
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&slot->in, 0);
  gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->in, 0);
  void *planes[4];
  size_t pitches[4];
  gint comps[4];

  cudaconv_word_packed_components (format, comps);
  if (!in_direct) {
    copy_rows (slot->staging_in, row_bytes, src, src_pitch, row_bytes, rows);
    src = slot->staging_in;
    src_pitch = row_bytes;
  }
  slot->out_staged = !out_direct;
  word_planes (cuda, slot, comps, TRUE, planes, pitches);
  if (!CUDACONV_CHECK (cudaMemcpy2DAsync (slot->packed_in, pitch, src,
              src_pitch, row_bytes, rows, cudaMemcpyHostToDevice,
              slot->stream), error)
      || !CUDACONV_CHECK (cc_cuda_word_packed_convert (word, 1,
              slot->packed_in, pitch, width, rows, planes, pitches,
              slot->stream), error))
    return FALSE;
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlanePlan *pp = &plan->planes[p];
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    const DevicePlane *dp = &slot->planes[p];
    /* the output planes are packed whole: what no action writes is the
     * input's */
    if ((!pp->process || pp->copy_first)
        && !CUDACONV_CHECK (cudaMemcpy2DAsync (dp->out, dp->out_pitch, dp->in,
                dp->in_pitch, pl->row_bytes, pl->rows,
                cudaMemcpyDeviceToDevice, slot->stream), error))
      return FALSE;
    if (pp->process && !cudaconv_cuda_run_plane_kernels (cuda, slot, job, p,
            dp, error))
      return FALSE;
  }
  word_planes (cuda, slot, comps, FALSE, planes, pitches);
  if (!CUDACONV_CHECK (cc_cuda_word_packed_convert (word, 0,
              slot->packed_out, pitch, width, rows, planes, pitches,
              slot->stream), error))
    return FALSE;
  return CUDACONV_CHECK (cudaMemcpy2DAsync (out_direct ?
          GST_VIDEO_FRAME_PLANE_DATA (&slot->out, 0) : slot->staging_out,
          out_direct ? (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, 0) :
          row_bytes, slot->packed_out, pitch, row_bytes, rows,
          cudaMemcpyDeviceToHost, slot->stream), error)
      && CUDACONV_CHECK (cudaEventRecord (slot->done, slot->stream), error);
}

/* Input planes of the slots' own for frames in device memory of another
 * context or device, which are copied into them (the kernels read memory
 * of their own context only): made once, for the first such frame. */
static gboolean
make_input_planes (CudaBackend * cuda, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const gsize frame_size = GST_VIDEO_INFO_SIZE (&layout->work_info);

  for (guint s = 0; s < cuda->parent.depth; s++) {
    FrameSlot *slot = &cuda->slots[s];
    if (cuda->frame_layout && !slot->frame_in
        && !CUDACONV_CHECK (cudaMalloc ((void **) &slot->frame_in,
                frame_size), error))
      return FALSE;
    for (guint p = 0; p < layout->n_planes; p++) {
      DevicePlane *dp = &slot->planes[p];
      if (cuda->frame_layout) {
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
      "ours", cuda->parent.depth);
  return TRUE;
}

/* A frame on the slot's stream. A side in host memory is copied to or
 * from the slot's device planes (by DMA where the memory is pinned or
 * registered, else through staging); a side in device memory of the
 * context is read or written where it is. Planes that no kernel writes
 * are copied on the device, or on the host while the GPU works when both
 * sides are host memory. */
static gboolean
enqueue_planes (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const CudaConvPlan *plan = &slot->plan;
  GstVideoFrame *in = &slot->in, *out = &slot->out;
  const gboolean in_direct = input_by_dma (cuda, job, in);
  const gboolean out_direct = output_by_dma (cuda, out);
  /* bytes from the first plane's first byte to the frame's end */
  const gsize frame_bytes = GST_VIDEO_INFO_SIZE (&layout->work_info) -
      GST_VIDEO_INFO_PLANE_OFFSET (&layout->work_info, 0);
  const gboolean whole_in = !cuda->in_device
      && copies_whole_frame (cuda, slot, in, in_direct);
  const gboolean whole_out = !cuda->out_device
      && copies_whole_frame (cuda, slot, out, out_direct);
  /* device memory of another context or device: CUDA copies it (peer to
   * peer where the GPUs allow, else through the host) */
  const gboolean foreign_in = cuda->in_device
      && !cudaconv_cuda_buffer_in_context (in->buffer, cuda->context);
  const gboolean regions_only = moves_regions_only (cuda, slot);
  const gboolean in_place = job->in_place;

  if (foreign_in && !cuda->input_planes && !make_input_planes (cuda, error))
    return FALSE;
  /* in place the output is the input's memory, registered or pinned */
  if (cudaconv_cuda_regions_mapped (cuda, slot, job, in_direct,
          in_place ? in_direct : out_direct))
    return cudaconv_cuda_enqueue_regions_mapped (cuda, slot, job, error);
  slot->out_staged = !out_direct;
  if (kernels_only (cuda, slot, foreign_in))
    return cudaconv_cuda_enqueue_kernels (cuda, slot, job, error)
        && CUDACONV_CHECK (cudaEventRecord (slot->done, slot->stream), error);
  if (whole_in && !CUDACONV_CHECK (cudaMemcpyAsync (slot->planes[0].in,
              GST_VIDEO_FRAME_PLANE_DATA (in, 0), frame_bytes,
              cudaMemcpyHostToDevice, slot->stream), error))
    return FALSE;
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlanePlan *pp = &plan->planes[p];
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    DevicePlane dp = slot->planes[p];
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);

    if (!plane_on_device (cuda, slot, p))
      continue;
    if (regions_only) {
      /* the output is the input but for the regions' rects */
      if (!in_place)
        cudaconv_layout_copy_plane (layout, p, out, in);
      if (pp->process && (!cudaconv_cuda_regions_upload (cuda, slot, p, src,
                  src_pitch, in_direct, &dp, error)
              || !cudaconv_cuda_run_plane_kernels (cuda, slot, job, p, &dp,
                  error)
              || !cudaconv_cuda_regions_download (cuda, slot, p,
                  GST_VIDEO_FRAME_PLANE_DATA (out, p),
                  GST_VIDEO_FRAME_PLANE_STRIDE (out, p), out_direct, &dp,
                  error)))
        return FALSE;
      continue;
    }
    if (foreign_in) {
      if (!CUDACONV_CHECK (cudaMemcpy2DAsync (dp.in, dp.in_pitch, src,
                  src_pitch, pl->row_bytes, pl->rows, cudaMemcpyDefault,
                  slot->stream), error))
        return FALSE;
    } else if (cuda->in_device) {
      dp.in = (void *) src;
      dp.in_pitch = src_pitch;
    } else if (!whole_in) {
      if (!in_direct) {
        copy_rows (slot->staging_in + dp.staging_offset, pl->row_bytes, src,
            src_pitch, pl->row_bytes, pl->rows);
        src = slot->staging_in + dp.staging_offset;
        src_pitch = pl->row_bytes;
      }
      if (!CUDACONV_CHECK (cudaMemcpy2DAsync (dp.in, dp.in_pitch, src,
                  src_pitch, pl->row_bytes, pl->rows, cudaMemcpyHostToDevice,
                  slot->stream), error))
        return FALSE;
    }
    if (cuda->out_device) {
      dp.out = GST_VIDEO_FRAME_PLANE_DATA (out, p);
      dp.out_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    }
    /* in place, the output holds the input already */
    if ((!pp->process || pp->copy_first) && dp.out != dp.in
        && !CUDACONV_CHECK (cudaMemcpy2DAsync (dp.out, dp.out_pitch, dp.in,
                dp.in_pitch, pl->row_bytes, pl->rows, cudaMemcpyDeviceToDevice,
                slot->stream), error))
      return FALSE;
    if (pp->process && !cudaconv_cuda_run_plane_kernels (cuda, slot, job, p,
            &dp, error))
      return FALSE;
    if (cuda->out_device || whole_out)
      continue;
    if (!CUDACONV_CHECK (cudaMemcpy2DAsync (out_direct ?
                GST_VIDEO_FRAME_PLANE_DATA (out, p) : slot->staging_out +
                dp.staging_offset, out_direct ? (gsize)
                GST_VIDEO_FRAME_PLANE_STRIDE (out, p) : pl->row_bytes, dp.out,
                dp.out_pitch, pl->row_bytes, pl->rows, cudaMemcpyDeviceToHost,
                slot->stream), error))
      return FALSE;
  }
  if (whole_out && !CUDACONV_CHECK (cudaMemcpyAsync (GST_VIDEO_FRAME_PLANE_DATA
              (out, 0), slot->planes[0].out, frame_bytes,
              cudaMemcpyDeviceToHost, slot->stream), error))
    return FALSE;
  if (!CUDACONV_CHECK (cudaEventRecord (slot->done, slot->stream), error))
    return FALSE;

  /* planes left as they are between host frames */
  for (guint p = 0; p < layout->n_planes && !in_place; p++)
    if (!plane_on_device (cuda, slot, p))
      cudaconv_layout_copy_plane (layout, p, out, in);
  return TRUE;
}

gboolean
cudaconv_cuda_enqueue_frame (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error)
{
  if (cuda->layout->word_packed)
    return enqueue_word_packed (cuda, slot, job, error);
  return enqueue_planes (cuda, slot, job, error);
}

void
cudaconv_cuda_complete_frame (CudaBackend * cuda, FrameSlot * slot)
{
  const CudaConvLayout *layout = cuda->layout;

  if (!slot->out_staged)
    return;
  if (layout->word_packed) {
    copy_rows (GST_VIDEO_FRAME_PLANE_DATA (&slot->out, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, 0), slot->staging_out,
        layout->caps_planes[0].row_bytes, layout->caps_planes[0].row_bytes,
        layout->caps_planes[0].rows);
    return;
  }
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    if (moves_regions_only (cuda, slot)) {
      if (slot->plan.planes[p].process)
        cudaconv_cuda_regions_complete (cuda, slot, p);
    } else if (plane_on_device (cuda, slot, p))
      copy_rows (GST_VIDEO_FRAME_PLANE_DATA (&slot->out, p),
          GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, p),
          slot->staging_out + slot->planes[p].staging_offset,
          pl->row_bytes, pl->row_bytes, pl->rows);
  }
}

/* cudaconv: the one decision of how a frame travels on the CUDA back end
 * (see cudaconv-cuda-backend-private.h for the paths).
 *
 * Planes in our pinned memory, or in foreign memory that the host
 * registration cache has page-locked, are copied by DMA directly; others
 * go through the slot's pinned staging, because a copy from pageable
 * memory is both slower and blocking. */
#include "config.h"

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-context.h"
#include "cudaconv-pinned-allocator.h"

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

/* Whether every plane of a host frame goes through the device: it is
 * filtered there, or a side of the frame is device memory. */
static gboolean
every_plane_on_device (const CudaBackend * cuda, const CudaConvPlan * plan)
{
  if (cuda->in_device || cuda->out_device)
    return TRUE;
  for (guint p = 0; p < cuda->layout->n_planes; p++)
    if (!plan->planes[p].process)
      return FALSE;
  return TRUE;
}

/* Whether the frame is its kernels only: both sides device memory of the
 * context, no regions, and every plane filtered or filled (none copied). */
static gboolean
kernels_only (const CudaBackend * cuda, const CudaConvPlan * plan,
    gboolean foreign_in)
{
  if (!cuda->in_device || !cuda->out_device || foreign_in
      || cudaconv_plan_has_regions (plan))
    return FALSE;
  for (guint p = 0; p < cuda->layout->n_planes; p++)
    if (!plan->planes[p].process || plan->planes[p].copy_first)
      return FALSE;
  return TRUE;
}

/* Whether a frame's regions can be filtered as stacks of their windows:
 * one filter for every region (one launch per stack), and not pixelate,
 * whose blocks a stack of windows would cut. */
static gboolean
stackable (const CudaConvJob * job)
{
  if (job->filter->shape == CC_SHAPE_BLOCKS)
    return FALSE;
  for (guint k = 0; k < job->coverage->n_regions; k++)
    if (job->region_filters[k] != job->filter)
      return FALSE;
  return TRUE;
}

/* Whether a host frame filtered inside its regions can be read and
 * written where it is by kernels: both sides mapped into the device's
 * address space, and its regions stackable. */
static gboolean
regions_mapped (const CudaBackend * cuda, const CudaConvJob * job,
    gboolean in_direct, gboolean out_direct)
{
  return cuda->maps_host_memory && in_direct && out_direct
      && stackable (job);
}

/* Whether the regions' bytes, read and written, are at most half the
 * frame's: the kernels of the mapped path move them over the bus in
 * requests of a warp's 512 bytes, about half as fast as the DMA engines
 * move whole planes both ways at once, so that past it the planes' copies
 * cost less */
static gboolean
regions_are_small (const CudaBackend * cuda, const CudaConvCoverage * cov)
{
  const CudaConvLayout *layout = cuda->layout;
  gsize frame = 0, regions = 0;

  for (guint p = 0; p < layout->n_planes; p++) {
    guint n;
    const CudaConvByteBox *boxes = cudaconv_coverage_boxes (cov, p, &n);

    frame += layout->planes[p].row_bytes * (gsize) layout->planes[p].rows;
    for (guint k = 0; k < n; k++)
      regions += (gsize) boxes[k].read.w * boxes[k].read.h
          + (gsize) boxes[k].written.w * boxes[k].written.h;
  }
  return regions <= frame / 2;
}

/* Whether a region frame's compute stage replays from the slot's frame
 * graph: its work kernels only, which a graph binds to each frame (its
 * stacks in device memory of the context filtered in place, with no
 * plane copy whose node would keep another frame's planes, or where the
 * frames are), its patches from tables in pinned memory the device maps,
 * and the coverage the last region frame had: fixed boxes keep their
 * launches, where moving boxes would record a graph a frame. Where the
 * frames are, only with more pieces than a launch's parameters take: a
 * table's patches cost each block two reads over the bus before its
 * copy, and a frame of a few boxes there is bound by the bus, not by the
 * host's launches, so that replaying it from tables made it slower. */
static gboolean
regions_replay (CudaBackend * cuda, const CudaConvJob * job,
    const CudaFrameRoute * r)
{
  const CudaConvCoverage *cov = job->coverage;
  const guint64 generation = cov ? cov->generation : 0;
  const gboolean same = generation == cuda->coverage_generation;

  cuda->coverage_generation = generation;
  return same && r->stacks && cuda->maps_host_memory
      && ((r->path == CUDA_PATH_REGIONS_MAPPED
              && cov->n_pieces > CUDACONV_PARAMETER_PATCHES)
          || (r->path == CUDA_PATH_PLANES && cuda->in_device
              && cuda->out_device && r->in_place && !r->foreign_in));
}

CudaFrameRoute
cudaconv_cuda_route (CudaBackend * cuda, const CudaConvJob * job,
    GstVideoFrame * in, GstVideoFrame * out)
{
  const CudaConvPlan *plan = job->plan;
  const gboolean host_frames = !cuda->in_device && !cuda->out_device;
  CudaFrameRoute r = { 0 };

  r.path = CUDA_PATH_PLANES;
  r.in_place = job->in_place;
  r.in_direct = cuda->in_device || cudaconv_buffer_is_pinned (in->buffer)
      || (cuda->options.host_register
      && cudaconv_host_register_frame (&cuda->registered, in));
  /* in place the output is the input's memory */
  r.out_direct = r.in_place ? r.in_direct : cuda->out_device
      || cudaconv_buffer_is_pinned (out->buffer);
  /* device memory of another context or device: CUDA copies it (peer to
   * peer where the GPUs allow, else through the host) */
  r.foreign_in = cuda->in_device
      && !cudaconv_cuda_buffer_in_context (in->buffer, cuda->context);

  if (cuda->layout->word_packed)
    r.path = CUDA_PATH_WORD_PACKED;
  /* inside the regions, a host frame not filtered in place goes whole
   * through the device: its planes' copies both ways take less than the
   * host's copy of the frame into the output that the region paths need */
  else if (plan->region_mode == CUDACONV_REGION_MODE_INSIDE && host_frames
      && r.in_place)
    r.path = regions_mapped (cuda, job, r.in_direct, r.out_direct)
        && regions_are_small (cuda, job->coverage) ?
        CUDA_PATH_REGIONS_MAPPED : CUDA_PATH_REGIONS_STAGED;
  else if (kernels_only (cuda, plan, r.foreign_in))
    r.path = CUDA_PATH_KERNELS;

  /* inside the regions, frames whose planes the device holds (device
   * memory, or host frames that travel whole): stacks too, in the device
   * planes after their copies, rather than a launch or two a window */
  r.stacks = r.path == CUDA_PATH_REGIONS_MAPPED || (r.path == CUDA_PATH_PLANES
      && plan->region_mode == CUDACONV_REGION_MODE_INSIDE && stackable (job));
  /* a crop's picture inside a larger buffer goes plane by plane, and so
   * does a frame with planes the device does not touch (a copy back
   * carries them all) */
  if (r.path == CUDA_PATH_PLANES && cuda->whole_frames
      && every_plane_on_device (cuda, plan)) {
    r.whole_in = !cuda->in_device && r.in_direct && frame_is_whole (cuda, in);
    r.whole_out = !cuda->out_device && r.out_direct
        && frame_is_whole (cuda, out);
  }
  r.out_staged = !r.out_direct && r.path != CUDA_PATH_REGIONS_MAPPED;
  r.replay = cudaconv_plan_has_regions (plan) && regions_replay (cuda, job,
      &r);
  return r;
}

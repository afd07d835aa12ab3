/* cudaconv: the upload stage of a frame on the CUDA back end (see
 * cudaconv-cuda-backend-private.h): what the device reads goes to the
 * slot's device planes, on the slot's stream, and where only the regions
 * are written, the output starts as a copy of the input on the host. */
#include "config.h"

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"
#include "cudaconv-cpu-pool.h"

/* The input's plane p, or its copy in the slot's pinned staging where the
 * device cannot read it directly. */
static const guint8 *
readable_plane (FrameSlot * slot, guint p, gsize row_bytes, gint rows,
    gsize * pitch)
{
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&slot->in, p);
  guint8 *staged = slot->staging_in + slot->planes[p].staging_offset;
  const GstVideoRectangle all = { 0, 0, (gint) row_bytes, rows };

  *pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->in, p);
  if (slot->route.in_direct)
    return src;
  cudaconv_copy_box (staged, row_bytes, src, *pitch, &all);
  *pitch = row_bytes;
  return staged;
}

/* Each plane the device touches, to the slot's input planes: one copy of
 * the whole frame, or a copy per plane (through staging from pageable
 * memory; from another context's device memory, peer to peer where the
 * GPUs allow). A side of our context's device memory stays where it is. */
static gboolean
upload_planes (CudaBackend * cuda, FrameSlot * slot, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const CudaFrameRoute *route = &slot->route;

  if (route->whole_in)
    return CUDACONV_CHECK (cudaMemcpyAsync (slot->planes[0].in,
            GST_VIDEO_FRAME_PLANE_DATA (&slot->in, 0),
            GST_VIDEO_INFO_SIZE (&layout->work_info) -
            GST_VIDEO_INFO_PLANE_OFFSET (&layout->work_info, 0),
            cudaMemcpyHostToDevice, slot->stream), error);
  if (cuda->in_device && !route->foreign_in)
    return TRUE;
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    const DevicePlane *dp = &slot->bound[p];
    const guint8 *src;
    gsize src_pitch;

    /* host frames: a plane no kernel writes is copied on the host */
    if (!slot->plan.planes[p].process && !cuda->in_device && !cuda->out_device)
      continue;
    if (route->foreign_in) {
      src = GST_VIDEO_FRAME_PLANE_DATA (&slot->in, p);
      src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->in, p);
    } else {
      src = readable_plane (slot, p, pl->row_bytes, pl->rows, &src_pitch);
    }
    if (!CUDACONV_CHECK (cudaMemcpy2DAsync (dp->in, dp->in_pitch, src,
                src_pitch, pl->row_bytes, pl->rows, route->foreign_in ?
                cudaMemcpyDefault : cudaMemcpyHostToDevice, slot->stream),
            error))
      return FALSE;
  }
  return TRUE;
}

/* Each region's windows' bytes of every filtered plane to the slot's
 * input planes, at their own places, through staging from pageable
 * memory. */
static gboolean
upload_regions (CudaBackend * cuda, FrameSlot * slot, GError ** error)
{
  for (guint p = 0; p < cuda->layout->n_planes; p++) {
    const DevicePlane *dp = &slot->bound[p];
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&slot->in, p);
    const gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->in, p);
    const gsize row_bytes = cuda->layout->planes[p].row_bytes;
    guint n;
    const CudaConvByteBox *boxes = cudaconv_coverage_boxes (slot->coverage,
        p, &n);

    if (!slot->plan.planes[p].process)
      continue;
    for (guint k = 0; k < n; k++) {
      const GstVideoRectangle *b = &boxes[k].read;
      const guint8 *from = src;
      gsize from_pitch = src_pitch;

      if (!slot->route.in_direct) {
        from = slot->staging_in + dp->staging_offset;
        from_pitch = row_bytes;
        cudaconv_copy_box ((guint8 *) from, from_pitch, src, src_pitch, b);
      }
      if (!CUDACONV_CHECK (cudaconv_cuda_copy_box (dp->in, dp->in_pitch, from,
                  from_pitch, b, cudaMemcpyHostToDevice, slot->stream),
              error))
        return FALSE;
    }
  }
  return TRUE;
}

/* The packed frame to the device as it is (the compute stage unpacks
 * it). */
static gboolean
upload_word_packed (CudaBackend * cuda, FrameSlot * slot, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const gsize row_bytes = layout->caps_planes[0].row_bytes;
  const gint rows = layout->caps_planes[0].rows;
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&slot->in, 0);
  gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->in, 0);

  if (!slot->route.in_direct) {
    const GstVideoRectangle all = { 0, 0, (gint) row_bytes, rows };
    cudaconv_copy_box (slot->staging_in, row_bytes, src, src_pitch, &all);
    src = slot->staging_in;
    src_pitch = row_bytes;
  }
  return CUDACONV_CHECK (cudaMemcpy2DAsync (slot->packed_in,
          GST_VIDEO_INFO_PLANE_STRIDE (&layout->info, 0), src, src_pitch,
          row_bytes, rows, cudaMemcpyHostToDevice, slot->stream), error);
}

gboolean
cudaconv_cuda_upload (CudaBackend * cuda, FrameSlot * slot, GError ** error)
{
  switch (slot->route.path) {
    case CUDA_PATH_KERNELS:
      return TRUE;
    case CUDA_PATH_PLANES:
      return upload_planes (cuda, slot, error);
    case CUDA_PATH_REGIONS_MAPPED:
      return TRUE;
    case CUDA_PATH_REGIONS_STAGED:
      return upload_regions (cuda, slot, error);
    case CUDA_PATH_WORD_PACKED:
      return upload_word_packed (cuda, slot, error);
  }
  g_return_val_if_reached (FALSE);
}

/* cudaconv: the download stage of a frame on the CUDA back end (see
 * cudaconv-cuda-backend-private.h): what the device wrote goes back to a
 * side in host memory (into the slot's pinned staging where the output
 * cannot take a DMA write, put in place when the frame is complete), and
 * the planes of host frames that no kernel writes are copied on the host
 * while the GPU works. */
#include "config.h"

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"
#include "cudaconv-cpu-pool.h"

/* Where the device's output plane p goes: the output frame's plane, or
 * its place in the slot's staging. */
static guint8 *
writable_plane (const CudaBackend * cuda, const FrameSlot * slot, guint p,
    gsize * pitch)
{
  if (slot->route.out_staged) {
    *pitch = cuda->layout->planes[p].row_bytes;
    return slot->staging_out + slot->planes[p].staging_offset;
  }
  *pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, p);
  return GST_VIDEO_FRAME_PLANE_DATA (&slot->out, p);
}

static gboolean
download_planes (CudaBackend * cuda, FrameSlot * slot, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const CudaFrameRoute *route = &slot->route;
  const gboolean host_frames = !cuda->in_device && !cuda->out_device;
  guint unfiltered = 0;

  if (route->whole_out && !CUDACONV_CHECK (cudaMemcpyAsync
          (GST_VIDEO_FRAME_PLANE_DATA (&slot->out, 0), slot->planes[0].out,
              GST_VIDEO_INFO_SIZE (&layout->work_info) -
              GST_VIDEO_INFO_PLANE_OFFSET (&layout->work_info, 0),
              cudaMemcpyDeviceToHost, slot->stream), error))
    return FALSE;
  for (guint p = 0; p < layout->n_planes && !cuda->out_device
      && !route->whole_out; p++) {
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    const DevicePlane *dp = &slot->bound[p];
    guint8 *dst;
    gsize dst_pitch;

    if (host_frames && !slot->plan.planes[p].process)
      continue;
    dst = writable_plane (cuda, slot, p, &dst_pitch);
    if (!CUDACONV_CHECK (cudaMemcpy2DAsync (dst, dst_pitch, dp->out,
                dp->out_pitch, pl->row_bytes, pl->rows,
                cudaMemcpyDeviceToHost, slot->stream), error))
      return FALSE;
  }
  /* planes left as they are between host frames */
  for (guint p = 0; p < layout->n_planes; p++)
    if (!slot->plan.planes[p].process)
      unfiltered |= 1u << p;
  if (host_frames && !route->in_place)
    cudaconv_layout_copy_planes (layout, unfiltered, &slot->out, &slot->in,
        CC_CPU_MAX_THREADS);
  return TRUE;
}

/* The rects' bytes of every filtered plane back to the output (or the
 * slot's staging) */
static gboolean
download_regions (CudaBackend * cuda, FrameSlot * slot, GError ** error)
{
  for (guint p = 0; p < cuda->layout->n_planes; p++) {
    const DevicePlane *dp = &slot->bound[p];
    guint n;
    const CudaConvByteBox *boxes = cudaconv_coverage_boxes (slot->coverage,
        p, &n);
    gsize dst_pitch;
    guint8 *dst = writable_plane (cuda, slot, p, &dst_pitch);

    if (!slot->plan.planes[p].process)
      continue;
    for (guint k = 0; k < n; k++) {
      const GstVideoRectangle *b = &boxes[k].written;
      if (!CUDACONV_CHECK (cudaconv_cuda_copy_box (dst, dst_pitch, dp->out,
                  dp->out_pitch, b, cudaMemcpyDeviceToHost, slot->stream),
              error))
        return FALSE;
    }
  }
  return TRUE;
}

/* The packed output back as it is (the compute stage packed it) */
static gboolean
download_word_packed (CudaBackend * cuda, FrameSlot * slot, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const gsize row_bytes = layout->caps_planes[0].row_bytes;
  const gboolean staged = slot->route.out_staged;

  return CUDACONV_CHECK (cudaMemcpy2DAsync (staged ? slot->staging_out :
          GST_VIDEO_FRAME_PLANE_DATA (&slot->out, 0), staged ? row_bytes :
          (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, 0),
          slot->packed_out, GST_VIDEO_INFO_PLANE_STRIDE (&layout->info, 0),
          row_bytes, layout->caps_planes[0].rows, cudaMemcpyDeviceToHost,
          slot->stream), error);
}

gboolean
cudaconv_cuda_download (CudaBackend * cuda, FrameSlot * slot,
    GError ** error)
{
  switch (slot->route.path) {
    case CUDA_PATH_KERNELS:
    case CUDA_PATH_REGIONS_MAPPED:
      return TRUE;
    case CUDA_PATH_PLANES:
      return download_planes (cuda, slot, error);
    case CUDA_PATH_REGIONS_STAGED:
      return download_regions (cuda, slot, error);
    case CUDA_PATH_WORD_PACKED:
      return download_word_packed (cuda, slot, error);
  }
  g_return_val_if_reached (FALSE);
}

void
cudaconv_cuda_complete (CudaBackend * cuda, FrameSlot * slot)
{
  const CudaConvLayout *layout = cuda->layout;
  const gboolean host_frames = !cuda->in_device && !cuda->out_device;

  if (!slot->route.out_staged)
    return;
  if (slot->route.path == CUDA_PATH_WORD_PACKED) {
    const GstVideoRectangle all = { 0, 0,
      (gint) layout->caps_planes[0].row_bytes, layout->caps_planes[0].rows
    };
    cudaconv_copy_box (GST_VIDEO_FRAME_PLANE_DATA (&slot->out, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, 0), slot->staging_out,
        layout->caps_planes[0].row_bytes, &all);
    return;
  }
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    const GstVideoRectangle all = { 0, 0, (gint) pl->row_bytes, pl->rows };
    guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (&slot->out, p);
    const gsize dst_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, p);
    const guint8 *src = slot->staging_out + slot->planes[p].staging_offset;
    guint n = 1;
    const CudaConvByteBox *boxes = NULL;

    if (host_frames && !slot->plan.planes[p].process)
      continue;
    /* only the rects' bytes came back where only the regions travel */
    if (slot->route.path == CUDA_PATH_REGIONS_STAGED)
      boxes = cudaconv_coverage_boxes (slot->coverage, p, &n);
    for (guint k = 0; k < n; k++)
      cudaconv_copy_box (dst, dst_pitch, src, pl->row_bytes,
          boxes ? &boxes[k].written : &all);
  }
}

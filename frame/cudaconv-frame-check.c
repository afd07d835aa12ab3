/* cudaconv: checked mapping of video frames (see the header). */
#include <string.h>

#include "cudaconv-frame-check.h"

#define FRAME_ERROR(error, ...) \
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, __VA_ARGS__)

/* Whether [start, start + length) lies inside [0, limit) */
static gboolean
span_inside (guint start, guint length, guint limit)
{
  return length <= limit && start <= limit - length;
}

CudaConvCropKind
cudaconv_frame_crop_kind (const GstVideoInfo * info, GstBuffer * buffer)
{
  const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buffer);
  const GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  const guint w = GST_VIDEO_INFO_WIDTH (info);
  const guint h = GST_VIDEO_INFO_FIELD_HEIGHT (info);

  if (!crop || (crop->x == 0 && crop->y == 0 && crop->width == w
          && crop->height == h))
    return CUDACONV_CROP_NONE;
  if (crop->width == 0 || crop->height == 0)
    return CUDACONV_CROP_INVALID;
  if (span_inside (crop->x, crop->width, w)
      && span_inside (crop->y, crop->height, h))
    return CUDACONV_CROP_INSIDE;
  if (meta && crop->width == w && crop->height == h
      && span_inside (crop->x, w, meta->width)
      && span_inside (crop->y, h, meta->height))
    return CUDACONV_CROP_PICTURE;
  return CUDACONV_CROP_INVALID;
}

/* Moves the frame's planes to the crop rectangle's origin (x, y). Each
 * plane's origin is rounded down to whole samples of its most subsampled
 * component, so that a packed or semi-planar plane starts on a whole pixel
 * group; v210 moves by groups of six pixels. */
static void
move_to_picture (GstVideoFrame * frame, guint x, guint y)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const gboolean v210 = GST_VIDEO_FORMAT_INFO_FORMAT (finfo) ==
      GST_VIDEO_FORMAT_v210;

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    guint w_sub = 0, h_sub = 0, px, py;
    gsize bytes_x;

    gst_video_format_info_component (finfo, p, comps);
    for (gint k = 0; k < GST_VIDEO_MAX_COMPONENTS && comps[k] >= 0; k++) {
      w_sub = MAX (w_sub, GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comps[k]));
      h_sub = MAX (h_sub, GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comps[k]));
    }
    px = x >> w_sub << w_sub;
    py = y >> h_sub << h_sub;
    if (v210)
      bytes_x = (gsize) (x / 6) * 16;
    else
      bytes_x = (gsize) (px >> GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comps[0]))
          * GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comps[0]);
    frame->data[p] = (guint8 *) frame->data[p] + bytes_x +
        (gsize) (py >> GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comps[0])) *
        GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  }
}

/* What gst_video_frame_map would refuse with a critical warning, or fail on
 * without saying why, is refused here first. */
static gboolean
check_before_map (const GstVideoInfo * info, GstBuffer * buffer,
    CudaConvCrop * crop_out, GError ** error)
{
  const GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buffer);
  const gsize size = gst_buffer_get_size (buffer);

  crop_out->kind = cudaconv_frame_crop_kind (info, buffer);
  if (crop) {
    const GstVideoRectangle rect = { crop->x, crop->y, crop->width,
      crop->height
    };
    crop_out->rect = rect;
  }
  if (crop_out->kind == CUDACONV_CROP_INVALID) {
    FRAME_ERROR (error, "the buffer's crop meta (%ux%u at %u,%u) neither "
        "lies inside the caps' %dx%d frame nor places a %dx%d picture "
        "inside the buffer's %ux%u frame", crop->width, crop->height,
        crop->x, crop->y, GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_FIELD_HEIGHT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_FIELD_HEIGHT (info), meta ? meta->width :
        (guint) GST_VIDEO_INFO_WIDTH (info), meta ? meta->height :
        (guint) GST_VIDEO_INFO_FIELD_HEIGHT (info));
    return FALSE;
  }

  if (!meta) {
    if (size < GST_VIDEO_INFO_SIZE (info)) {
      FRAME_ERROR (error, "a buffer of %" G_GSIZE_FORMAT " bytes is too short "
          "for a %s %dx%d frame (%" G_GSIZE_FORMAT " bytes)", size,
          GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_SIZE (info));
      return FALSE;
    }
    return TRUE;
  }
  if (meta->format != GST_VIDEO_INFO_FORMAT (info)
      || meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)) {
    FRAME_ERROR (error, "the buffer's video meta describes %s with %u planes, "
        "the caps %s with %u", gst_video_format_to_string (meta->format),
        meta->n_planes, GST_VIDEO_INFO_NAME (info),
        GST_VIDEO_INFO_N_PLANES (info));
    return FALSE;
  }
  if (meta->width < (guint) GST_VIDEO_INFO_WIDTH (info)
      || meta->height < (guint) GST_VIDEO_INFO_FIELD_HEIGHT (info)) {
    FRAME_ERROR (error, "the buffer's video meta is %ux%u, smaller than the "
        "caps' %dx%d", meta->width, meta->height, GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info));
    return FALSE;
  }
  for (guint p = 0; p < meta->n_planes; p++) {
    if (meta->offset[p] >= size) {
      FRAME_ERROR (error, "plane %u starts at byte %" G_GSIZE_FORMAT
          " of a %" G_GSIZE_FORMAT "-byte buffer", p, meta->offset[p], size);
      return FALSE;
    }
  }
  return TRUE;
}

/* Every row of every plane, at the caps' size, inside the mapping of the
 * memory the plane starts in (a meta maps each plane's memory on its own). */
static gboolean
check_planes (const GstVideoFrame * frame, const CudaConvLayout * layout,
    GError ** error)
{
  const GstVideoInfo *info = &layout->info;

  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    const GstMapInfo *map = &frame->map[frame->meta ? p : 0];
    const guint8 *data = frame->data[p];
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    const CudaConvPlaneLayout *pl = &layout->caps_planes[p];
    const gsize row_bytes = pl->row_bytes;
    const gint rows = pl->rows;
    const gboolean wide =
        GST_VIDEO_INFO_COMP_DEPTH (info, pl->components[0]) > 8;
    gsize start, needed;

    if (stride <= 0) {
      FRAME_ERROR (error, "plane %u has stride %d: only positive strides "
          "(rows top to bottom) are supported", p, stride);
      return FALSE;
    }
    if ((gsize) stride < row_bytes) {
      FRAME_ERROR (error, "plane %u has stride %d, shorter than its rows of "
          "%" G_GSIZE_FORMAT " bytes", p, stride, row_bytes);
      return FALSE;
    }
    if (data < map->data || data > map->data + map->size) {
      FRAME_ERROR (error, "plane %u does not start inside its memory", p);
      return FALSE;
    }
    start = (gsize) (data - map->data);
    needed = (gsize) (rows - 1) * (gsize) stride + row_bytes;
    if (needed > map->size - start) {
      FRAME_ERROR (error, "plane %u (%d rows of %" G_GSIZE_FORMAT " bytes, "
          "stride %d) needs %" G_GSIZE_FORMAT " bytes from byte %"
          G_GSIZE_FORMAT " of its memory, which holds %" G_GSIZE_FORMAT, p,
          rows, row_bytes, stride, needed, start, map->size);
      return FALSE;
    }
    if (wide && (((guintptr) data | (guintptr) stride) & 1)) {
      FRAME_ERROR (error, "plane %u holds 16-bit samples but starts or steps "
          "on an odd byte (byte %" G_GSIZE_FORMAT " of its memory, stride %d)",
          p, start, stride);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
cudaconv_frame_map_checked (GstVideoFrame * frame,
    const CudaConvLayout * layout, GstBuffer * buffer, GstMapFlags flags,
    CudaConvCrop * crop, GError ** error)
{
  const GstVideoInfo *info = &layout->info;

  memset (crop, 0, sizeof (*crop));
  if (!check_before_map (info, buffer, crop, error))
    return FALSE;
  if (!gst_video_frame_map (frame, info, buffer, flags)) {
    FRAME_ERROR (error, "the buffer could not be mapped for %s",
        (flags & GST_MAP_WRITE) ? "writing" : "reading");
    return FALSE;
  }
  /* a larger meta's extra rows and columns are padding to the back ends */
  frame->info.width = GST_VIDEO_INFO_WIDTH (info);
  frame->info.height = GST_VIDEO_INFO_HEIGHT (info);
  if (crop->kind == CUDACONV_CROP_PICTURE)
    move_to_picture (frame, crop->rect.x, crop->rect.y);
  if (!check_planes (frame, layout, error)) {
    gst_video_frame_unmap (frame);
    return FALSE;
  }
  return TRUE;
}

/* marks a memory cudaconv_frame_zero_new_memory has zeroed */
G_DEFINE_QUARK (cudaconv-zeroed, cudaconv_zeroed);

void
cudaconv_frame_zero_new_memory (GstVideoFrame * frame)
{
  const guint n_maps = frame->meta ? GST_VIDEO_FRAME_N_PLANES (frame) : 1;

  for (guint m = 0; m < n_maps; m++) {
    GstMapInfo *map = &frame->map[m];
    GstMiniObject *memory = GST_MINI_OBJECT_CAST (map->memory);

    if (gst_mini_object_get_qdata (memory, cudaconv_zeroed_quark ()))
      continue;
    memset (map->data, 0, map->size);
    gst_mini_object_set_qdata (memory, cudaconv_zeroed_quark (),
        GINT_TO_POINTER (1), NULL);
  }
}

/* cudaconv: where every plane and component of a frame lies, made once
 * per caps.
 *
 * The back ends filter each component in its own sample grid; this is
 * what they need to know of a format to address it: the bytes of a row
 * that hold pixels, the rows, and each component's offset, pixel stride,
 * depth and padding bits. Word-packed formats (cudaconv-word-packed.h) are
 * filtered in their planar twin, so a layout describes both: the caps'
 * own planes, which are checked, mapped and copied, and the planes the
 * kernels run on. */
#ifndef CUDACONV_LAYOUT_H
#define CUDACONV_LAYOUT_H

#include <gst/video/video.h>
#include "cudaconv-kernel-types.h"

G_BEGIN_DECLS

/* Where a component's samples lie in its plane: byte offset of the first,
 * bytes from one pixel to the next, significant bits and padding bits
 * below them. */
typedef struct {
  gint poffset, pstride, depth, shift;
} CudaConvComponentLayout;

typedef struct {
  gsize row_bytes;              /* bytes of a row that hold pixels */
  gint rows;
  gint n_components;
  gint components[GST_VIDEO_MAX_COMPONENTS];
} CudaConvPlaneLayout;

typedef struct {
  /* the caps, and their planes as buffers hold them */
  GstVideoInfo info;
  CudaConvPlaneLayout caps_planes[GST_VIDEO_MAX_PLANES];
  /* the format the kernels run on: info itself, or the planar twin of a
   * word-packed format, whose frames are unpacked into it */
  gboolean word_packed;
  GstVideoInfo work_info;
  guint n_planes;
  CudaConvPlaneLayout planes[GST_VIDEO_MAX_PLANES];
  CudaConvComponentLayout components[GST_VIDEO_MAX_COMPONENTS];
  /* the offset property is on the 8-bit scale; deeper formats take it
   * times 2^(depth - 8), as neutral chroma is 2^(depth - 1) */
  gfloat offset_scale;
} CudaConvLayout;

void cudaconv_layout_make (CudaConvLayout * layout, const GstVideoInfo * info);

/* Component comp of the work format, in a plane whose first row starts at
 * plane_data. */
CcComponent cudaconv_layout_component (const CudaConvLayout * layout,
    gint comp, gpointer plane_data, gsize pitch);

/* Copies bytes [b->x, b->x + b->w) of rows [b->y, b->y + b->h) from src
 * to the same place in dst, host memory with rows of the given pitches. */
void cudaconv_copy_box (guint8 * dst, gsize dst_pitch, const guint8 * src,
    gsize src_pitch, const GstVideoRectangle * b);

/* Copies the pixel rows of the planes of the work format that planes
 * names (bit p for plane p) from src to dst: row_bytes a row, which
 * gst_video_frame_copy_plane falls short of in odd-width packed 4:2:2 (it
 * leaves the last V). A frame's rows go in bands on up to n_threads of
 * the CPU pool, as many as the bytes are worth: one core copies a 1080p
 * I420 frame in about 300 us, a frame's filtering on the GPU takes less. */
void cudaconv_layout_copy_planes (const CudaConvLayout * layout,
    guint planes, GstVideoFrame * dst, const GstVideoFrame * src,
    gint n_threads);

G_END_DECLS
#endif /* CUDACONV_LAYOUT_H */

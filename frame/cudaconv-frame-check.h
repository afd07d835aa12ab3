/* cudaconv: maps a buffer as a video frame of the negotiated caps only when
 * every byte the back ends will touch lies in memory the buffer owns.
 *
 * GStreamer 1.22 maps a buffer that carries a GstVideoMeta without checking
 * the meta's strides and offsets against the buffer's memory, and answers a
 * meta that disagrees with the caps with a critical warning. Upstream
 * elements get these wrong (a short read from a capture driver, a hand-made
 * buffer, a truncated network frame), so every frame is checked here before
 * any copy or kernel runs. */
#ifndef CUDACONV_FRAME_CHECK_H
#define CUDACONV_FRAME_CHECK_H

#include <gst/video/video.h>
#include "cudaconv-layout.h"

G_BEGIN_DECLS

/* How a buffer's GstVideoCropMeta places the picture. */
typedef enum {
  /* no crop meta, or one whose rectangle is the caps' whole frame */
  CUDACONV_CROP_NONE,
  /* a rectangle inside the caps' frame: the caps describe the buffer and
   * the picture is part of it; it is filtered there and the meta goes on */
  CUDACONV_CROP_INSIDE,
  /* a rectangle of the caps' size elsewhere in a larger buffer (its video
   * meta's frame): the caps describe the picture, as decoders and
   * videocrop send it; it is read from there and the output is the
   * picture itself, so the crop is applied and the meta dropped */
  CUDACONV_CROP_PICTURE,
  /* neither: the frame check refuses it */
  CUDACONV_CROP_INVALID
} CudaConvCropKind;

/* How the buffer's crop meta sits against a frame of info, as
 * cudaconv_frame_map_checked classifies it. */
CudaConvCropKind cudaconv_frame_crop_kind (const GstVideoInfo * info,
    GstBuffer * buffer);

typedef struct {
  CudaConvCropKind kind;
  GstVideoRectangle rect;       /* the meta's, for any kind but NONE */
} CudaConvCrop;

/* Maps buffer as a frame of the layout's caps, or fails with a message that
 * says what is wrong: a crop meta that is not one of the kinds above; a
 * buffer too short for the caps; a video meta of
 * another format, plane count or a smaller size; a plane whose offset,
 * stride and rows reach past the memory it lies in; a stride that is not
 * positive or shorter than a row; 16-bit samples on odd bytes. A meta
 * larger than the caps is accepted and the frame keeps the caps' size:
 * the back ends read and write the caps' width and height only. A
 * CUDACONV_CROP_PICTURE frame's planes start at the rectangle's origin,
 * rounded down to whole chroma samples (and v210's groups of six pixels)
 * as videocrop rounds it. crop receives the buffer's crop as classified
 * here, once for the frame. */
gboolean cudaconv_frame_map_checked (GstVideoFrame * frame,
    const CudaConvLayout * layout, GstBuffer * buffer, GstMapFlags flags,
    CudaConvCrop * crop, GError ** error);

/* Zeroes every memory of a write-mapped frame the first time any cudaconv
 * sees that memory. The back ends write the pixels only, so row padding and
 * the bytes between planes would otherwise go downstream with whatever the
 * allocator left there; buffers of a pool are zeroed once, not per frame. */
void cudaconv_frame_zero_new_memory (GstVideoFrame * frame);

G_END_DECLS
#endif /* CUDACONV_FRAME_CHECK_H */

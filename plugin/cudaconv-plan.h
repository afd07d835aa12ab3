/* cudaconv: what happens to each component and plane of a frame. */
#ifndef CUDACONV_PLAN_H
#define CUDACONV_PLAN_H

#include <gst/video/video.h>
#include "cudaconv-kernel-types.h"

G_BEGIN_DECLS

typedef enum {
  CUDACONV_ACTION_COPY,
  CUDACONV_ACTION_FILTER,
  CUDACONV_ACTION_FILL          /* neutral chroma of an edge map */
} CudaConvAction;

typedef struct {
  gboolean process;             /* a back end writes it; else a plain copy */
  gboolean copy_first;          /* holds bytes no action writes (x, alpha) */
  gint n_components;
  gint components[GST_VIDEO_MAX_COMPONENTS];
  gsize row_bytes;              /* bytes of a row that hold pixels */
  gint rows;
} CudaConvPlanePlan;

typedef struct {
  guint n_planes;
  CudaConvPlanePlan planes[GST_VIDEO_MAX_PLANES];
  CudaConvAction action[GST_VIDEO_MAX_COMPONENTS];
  guint fill_value[GST_VIDEO_MAX_COMPONENTS];   /* raw, as stored */
  gboolean any_filter;
  /* the offset property is on the 8-bit scale; deeper formats take it
   * times 2^(depth - 8), as neutral chroma is 2^(depth - 1) */
  gfloat offset_scale;
  /* set per frame by cudaconv_plan_set_frame: */
  gboolean fields;              /* interleaved fields, filtered one by one */
  GstVideoRectangle picture;    /* the crop rectangle, or the whole frame */
} CudaConvPlan;

/* At most two parts of a component are filtered apart: its two fields. */
#define CUDACONV_MAX_REGIONS 2

/* channels: GstCudaConvChannels bits of the components to filter.
 * neutral_chroma: fill U and V of YUV formats with their mid value. */
void cudaconv_plan_make (CudaConvPlan * plan, const GstVideoInfo * info,
    guint channels, gboolean neutral_chroma);

/* Takes what the input buffer says about its frame: interleaved fields
 * (interlace-mode=interleaved, or mixed with the buffer's INTERLACED flag)
 * and a crop meta (cudaconv_crop_kind). Where only part of the frame is the
 * picture (CUDACONV_CROP_INSIDE), the planes are copied whole first so that
 * the rest leaves unchanged. */
void cudaconv_plan_set_frame (CudaConvPlan * plan, const GstVideoInfo * info,
    GstBuffer * buffer);

/* The channels of component comp that are filtered (or filled) each on its
 * own, with the border policy at their own edges: the component inside the
 * picture rectangle, split into its top and bottom field rows when the
 * frame has fields. plane_data and pitch are the plane's. Returns how many
 * (0 when the picture has no rows of this component). */
guint cudaconv_plan_regions (const CudaConvPlan * plan,
    const GstVideoInfo * info, gint comp, gpointer plane_data, gsize pitch,
    CcComponent regions[CUDACONV_MAX_REGIONS]);

/* Copies plane p's rows of pixels (row_bytes of the plan, which
 * gst_video_frame_copy_plane falls short of in odd-width packed 4:2:2: it
 * leaves the last V). */
void cudaconv_plan_copy_plane (const CudaConvPlan * plan, guint p,
    GstVideoFrame * dst, const GstVideoFrame * src);

/* Plane p of info at its caps' size: the bytes of a row that hold pixels
 * and the number of rows. Returns the plane's first component. */
gint cudaconv_plane_geometry (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, gint * rows);

/* Component comp of a plane whose first row starts at plane_data. */
CcComponent cudaconv_plan_channel (const GstVideoInfo * info, gint comp,
    gpointer plane_data, gsize pitch);

G_END_DECLS
#endif /* CUDACONV_PLAN_H */

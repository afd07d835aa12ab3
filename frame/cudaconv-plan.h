/* cudaconv: what happens to each component and plane of a frame.
 *
 * A plan is made from the layout (once per caps) and the settings that
 * choose components (channels, gray-edges), again only when those change;
 * each buffer then sets what it says of itself, its fields and its crop. */
#ifndef CUDACONV_PLAN_H
#define CUDACONV_PLAN_H

#include <gst/video/video.h>
#include "cudaconv-layout.h"
#include "cudaconv-frame-check.h"

G_BEGIN_DECLS

typedef enum {
  CUDACONV_ACTION_COPY,
  CUDACONV_ACTION_FILTER,
  CUDACONV_ACTION_FILL          /* neutral chroma of an edge map */
} CudaConvAction;

typedef struct {
  gboolean process;             /* a back end writes it; else a plain copy */
  /* the plane holds bytes no action writes (x, alpha, a component left
   * out), so it is copied whole before the actions write theirs */
  gboolean partial;
  /* partial, or the picture is only part of the frame: copy first */
  gboolean copy_first;
} CudaConvPlanePlan;

typedef struct {
  const CudaConvLayout *layout; /* the element's, valid while its caps are */
  CudaConvPlanePlan planes[GST_VIDEO_MAX_PLANES];
  CudaConvAction action[GST_VIDEO_MAX_COMPONENTS];
  guint fill_value[GST_VIDEO_MAX_COMPONENTS];   /* raw, as stored */
  gboolean any_filter;
  /* the buffer's (cudaconv_plan_set_buffer) */
  gboolean fields;              /* interleaved fields, filtered one by one */
  GstVideoRectangle picture;    /* the crop rectangle, or the whole frame */
} CudaConvPlan;

/* At most two parts of a component are filtered apart: its two fields. */
#define CUDACONV_MAX_PARTS 2

/* channels: GstCudaConvChannels bits of the components to filter.
 * neutral_chroma: fill U and V of YUV formats with their mid value. */
void cudaconv_plan_make (CudaConvPlan * plan, const CudaConvLayout * layout,
    guint channels, gboolean neutral_chroma);

/* Takes what the input buffer says about its frame: interleaved fields
 * (interlace-mode=interleaved, or mixed with the buffer's INTERLACED flag)
 * and its crop as the frame check classified it. Where only part of the
 * frame is the picture (CUDACONV_CROP_INSIDE), the planes are copied whole
 * first so that the rest leaves unchanged. */
void cudaconv_plan_set_buffer (CudaConvPlan * plan, GstBuffer * buffer,
    const CudaConvCrop * crop);

/* The parts of component comp that are filtered (or filled) each on its
 * own, with the border policy at their own edges: the component inside the
 * picture rectangle, split into its top and bottom field rows when the
 * frame has fields. plane_data and pitch are the plane's. Returns how many
 * (0 when the picture has no rows of this component). */
guint cudaconv_plan_parts (const CudaConvPlan * plan, gint comp,
    gpointer plane_data, gsize pitch, CcComponent parts[CUDACONV_MAX_PARTS]);

G_END_DECLS
#endif /* CUDACONV_PLAN_H */

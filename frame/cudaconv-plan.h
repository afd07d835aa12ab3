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
#include "cudaconv-regions.h"

G_BEGIN_DECLS

typedef enum {
  CUDACONV_ACTION_COPY,
  CUDACONV_ACTION_FILTER,
  CUDACONV_ACTION_FILL          /* neutral chroma of an edge map */
} CudaConvAction;

/* The components a plan filters, by their bits: bit n is the format's
 * component n in GstVideoFormatInfo order, where alpha is component 3. The
 * channels property's flags have the same values. */
typedef enum {
  CUDACONV_CHANNEL_0 = 1 << 0,  /* Y, R or gray */
  CUDACONV_CHANNEL_1 = 1 << 1,  /* U (Cb) or G */
  CUDACONV_CHANNEL_2 = 1 << 2,  /* V (Cr) or B */
  CUDACONV_CHANNEL_ALPHA = 1 << 3
} CudaConvChannels;

/* Where a frame is filtered: the region property's values */
typedef enum {
  CUDACONV_REGION_MODE_FRAME,
  CUDACONV_REGION_MODE_INSIDE,  /* only inside the regions */
  CUDACONV_REGION_MODE_OUTSIDE  /* all but the regions */
} CudaConvRegionMode;

typedef struct {
  gboolean process;             /* a back end writes it; else a plain copy */
  /* the plane holds bytes no action writes (x, alpha, a component left
   * out), so it is copied whole before the actions write theirs */
  gboolean partial;
  /* partial, or only part of the plane is written (the picture is part
   * of the frame, or region=inside): copy first */
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
  /* the frame's: with INSIDE, every processed plane is copied first and
   * the components are filtered in the regions' pieces only (the frame's
   * CudaConvCoverage); with OUTSIDE, the pieces' rects are copied back
   * from the input after the whole component is filtered */
  CudaConvRegionMode region_mode;
} CudaConvPlan;

/* Where a part of a component lies in its plane: from column x0 of the
 * component, rows first, first + step, ... of it, width x height samples */
typedef struct {
  gint x0, first, step, width, height;
} CudaConvPartGeometry;

/* At most two parts of a component are filtered apart: its two fields. */
#define CUDACONV_MAX_PARTS 2

/* channels: CudaConvChannels bits of the components to filter.
 * neutral_chroma: fill U and V of YUV formats with their mid value. */
void cudaconv_plan_make (CudaConvPlan * plan, const CudaConvLayout * layout,
    guint channels, gboolean neutral_chroma);

/* Takes what the input buffer says about its frame: interleaved fields
 * (interlace-mode=interleaved, or mixed with the buffer's INTERLACED flag)
 * and its crop as the frame check classified it; and the region mode it is
 * filtered with. Which planes are copied whole before they are written
 * follows from these and the components: where only part of the frame is
 * the picture (CUDACONV_CROP_INSIDE) or only the regions are filtered
 * (INSIDE), so that the rest leaves unchanged. */
void cudaconv_plan_set_buffer (CudaConvPlan * plan, GstBuffer * buffer,
    const CudaConvCrop * crop, CudaConvRegionMode mode);

/* The parts of component comp that are filtered (or filled) each on its
 * own, with the border policy at their own edges: the component inside the
 * picture rectangle, split into its top and bottom field rows when the
 * frame has fields. plane_data and pitch are the plane's. Returns how many
 * (0 when the picture has no rows of this component). */
guint cudaconv_plan_parts (const CudaConvPlan * plan, gint comp,
    gpointer plane_data, gsize pitch, CcComponent parts[CUDACONV_MAX_PARTS]);

/* Whether the regions decide what is filtered (INSIDE or OUTSIDE) */
static inline gboolean
cudaconv_plan_has_regions (const CudaConvPlan * plan)
{
  return plan->region_mode != CUDACONV_REGION_MODE_FRAME;
}

/* Where part number part of component comp lies (cudaconv_plan_parts
 * cuts the same parts); FALSE when there is no such part. */
gboolean cudaconv_plan_part (const CudaConvPlan * plan, gint comp,
    guint part, CudaConvPartGeometry * geometry);

/* The samples of c inside r (r inside c) */
CcComponent cudaconv_component_sub (const CcComponent * c,
    const GstVideoRectangle * r);

G_END_DECLS
#endif /* CUDACONV_PLAN_H */

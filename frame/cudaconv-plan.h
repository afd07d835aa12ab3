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
  /* the frame's (cudaconv_plan_set_regions): with INSIDE, every processed
   * plane is copied first and the components are filtered in the regions'
   * pieces only; with OUTSIDE, the regions' pieces are copied back from
   * the input after the whole component is filtered */
  CudaConvRegionMode region_mode;
  CudaConvRegionSet regions;
  /* each region's filter's reach: samples read beyond a written one (the
   * radius), or for block filters, the block side that windows snap to;
   * and whether the border wraps */
  gint reach[CUDACONV_MAX_REGIONS], block[CUDACONV_MAX_REGIONS];
  gboolean wrap;
} CudaConvPlan;

/* What one region writes and reads of one part of a component (as
 * cudaconv_plan_parts cuts it), in the part's sample coordinates: rect is
 * written; window, rect grown by the filter's reach and clipped to the
 * part, is what the filter reads to write it. Where the window meets the
 * part's edge, the border policy makes up what lies beyond, so a window
 * is filtered as a part of its own and its rect taken: samples inside the
 * frame are always the real ones. A wrapping border reads the far side:
 * there the window spans the part. */
typedef struct {
  GstVideoRectangle rect, window;
  guint region;                 /* its index in the plan's regions */
} CudaConvPiece;

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

/* Takes the frame's regions, the filter each is filtered with (for their
 * reach: the radius, or the block side of CC_SHAPE_BLOCKS) and the border.
 * With CUDACONV_REGION_MODE_FRAME the regions are ignored. */
void cudaconv_plan_set_regions (CudaConvPlan * plan, CudaConvRegionMode mode,
    const CudaConvRegionSet * regions, const CcFilter * const *filters,
    CcBorder border);

/* Whether the regions decide what is filtered (INSIDE or OUTSIDE) */
static inline gboolean
cudaconv_plan_has_regions (const CudaConvPlan * plan)
{
  return plan->region_mode != CUDACONV_REGION_MODE_FRAME;
}

/* The pieces of part number part of component comp, one per region that
 * meets it; returns how many. */
guint cudaconv_plan_pieces (const CudaConvPlan * plan, gint comp, guint part,
    CudaConvPiece pieces[CUDACONV_MAX_REGIONS]);

/* The bytes of plane p that region number region touches in the processed
 * components: their windows (reach) or their rects, as rows [y, y + h) and
 * bytes [x, x + w) of each row. FALSE when it touches none. */
gboolean cudaconv_plan_region_bytes (const CudaConvPlan * plan, guint p,
    guint region, gboolean reach, GstVideoRectangle * bytes);

/* The samples of c inside r (r inside c) */
CcComponent cudaconv_component_sub (const CcComponent * c,
    const GstVideoRectangle * r);

G_END_DECLS
#endif /* CUDACONV_PLAN_H */

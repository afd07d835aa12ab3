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
  guint fill_value[GST_VIDEO_MAX_COMPONENTS];
  gboolean any_filter;
} CudaConvPlan;

/* channels: GstCudaConvChannels bits of the components to filter.
 * neutral_chroma: fill U and V of YUV formats with their mid value. */
void cudaconv_plan_make (CudaConvPlan * plan, const GstVideoInfo * info,
    guint channels, gboolean neutral_chroma);

/* Plane p of info at its caps' size: the bytes of a row that hold pixels
 * and the number of rows. Returns the plane's first component. */
gint cudaconv_plane_geometry (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, gint * rows);

/* Component comp of a plane whose first row starts at plane_data. */
CcChannel cudaconv_plan_channel (const GstVideoInfo * info, gint comp,
    gpointer plane_data, gsize pitch);

G_END_DECLS
#endif /* CUDACONV_PLAN_H */

/* cudaconv: the CPU back end's frame loop. */
#include <string.h>

#include "cudaconv-cpu-backend.h"
#include "cudaconv-cpu.h"

/* The component whose samples start each pixel of plane p, when all the
 * plane's components are filtered and fill its pixels between them (RGB,
 * BGRA with alpha selected, NV12's UV, AYUV64 with alpha): those planes
 * are filtered a whole pixel at a time. Otherwise -1. */
static gint
pixel_leader (const GstVideoInfo * info, const CudaConvPlan * plan, guint p,
    gpointer plane_data)
{
  const CudaConvPlanePlan *pp = &plan->planes[p];
  guint seen = 0;
  gint leader = -1;
  CcComponent first;

  if (pp->n_components < 2 || pp->n_components > CC_MAX_LANES)
    return -1;
  for (gint i = 0; i < pp->n_components; i++) {
    const gint c = pp->components[i];
    const CcComponent ch = cudaconv_plan_channel (info, c, plane_data, 0);
    const gsize at = (gsize) ((guint8 *) ch.data - (guint8 *) plane_data);
    const gsize slot = at / ch.sample;

    if (i == 0)
      first = ch;
    if (plan->action[c] != CUDACONV_ACTION_FILTER
        || ch.pixel_stride != pp->n_components || at % ch.sample
        || slot >= (gsize) pp->n_components || (seen & (1u << slot))
        || ch.sample != first.sample || ch.depth != first.depth
        || ch.shift != first.shift || ch.width != first.width
        || ch.height != first.height)
      return -1;
    seen |= 1u << slot;
    if (slot == 0)
      leader = c;
  }
  return leader;
}

/* Filters (or fills) component c of one plane in each of its regions;
 * with whole_pixels, c leads pixels whose channels are all filtered in one
 * pass (pixel_leader). */
static int
process_component (const GstVideoInfo * info, const CudaConvPlan * plan,
    gint c, gboolean whole_pixels, guint8 * src, gsize src_pitch,
    guint8 * dst, gsize dst_pitch, const CcFilter * view, CcBorder border,
    gint n_threads)
{
  CcComponent s[CUDACONV_MAX_REGIONS], d[CUDACONV_MAX_REGIONS];
  const guint n = cudaconv_plan_regions (plan, info, c, src, src_pitch, s);
  int rc = 0;

  cudaconv_plan_regions (plan, info, c, dst, dst_pitch, d);
  for (guint k = 0; k < n && rc == 0; k++) {
    if (whole_pixels)
      rc = cc_cpu_convolve_pixels (&s[k], &d[k], view, border, n_threads);
    else if (plan->action[c] == CUDACONV_ACTION_FILTER)
      rc = cc_cpu_convolve (&s[k], &d[k], view, border, n_threads);
    else if (plan->action[c] == CUDACONV_ACTION_FILL)
      rc = cc_cpu_fill (&d[k], plan->fill_value[c]);
  }
  return rc;
}

gboolean
cudaconv_cpu_process (const GstVideoInfo * info, const CudaConvPlan * plan,
    const CudaConvFilter * filter, CcBorder border, gint n_threads,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  CcFilter view = cudaconv_filter_view (filter);

  view.offset *= plan->offset_scale;

  for (guint p = 0; p < plan->n_planes; p++) {
    const CudaConvPlanePlan *pp = &plan->planes[p];
    guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
    gsize dst_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    gint leader;

    if (!pp->process || pp->copy_first)
      cudaconv_plan_copy_plane (plan, p, out, in);
    if (!pp->process)
      continue;
    leader = pp->copy_first ? -1 : pixel_leader (info, plan, p, src);
    /* the leader alone stands for all the plane's components */
    for (gint i = 0; i < (leader >= 0 ? 1 : pp->n_components); i++) {
      const gint c = leader >= 0 ? leader : pp->components[i];
      const int rc = process_component (info, plan, c, leader >= 0, src,
          src_pitch, dst, dst_pitch, &view, border, n_threads);

      if (rc != 0) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
            "CPU convolution of component %d failed: %s", c, g_strerror (rc));
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* cudaconv: the CPU back end's frame loop. */
#include <string.h>

#include "cudaconv-cpu-backend.h"
#include "cudaconv-cpu.h"

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

    if (!pp->process || pp->copy_first)
      cudaconv_plan_copy_plane (plan, p, out, in);
    for (gint i = 0; pp->process && i < pp->n_components; i++) {
      gint c = pp->components[i];
      CcChannel s[CUDACONV_MAX_REGIONS], d[CUDACONV_MAX_REGIONS];
      const guint n = cudaconv_plan_regions (plan, info, c, src, src_pitch, s);
      int rc = 0;

      cudaconv_plan_regions (plan, info, c, dst, dst_pitch, d);
      for (guint k = 0; k < n && rc == 0; k++) {
        if (plan->action[c] == CUDACONV_ACTION_FILTER)
          rc = cc_cpu_convolve (&s[k], &d[k], &view, border, n_threads);
        else if (plan->action[c] == CUDACONV_ACTION_FILL)
          rc = cc_cpu_fill (&d[k], plan->fill_value[c]);
      }
      if (rc != 0) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
            "CPU convolution of component %d failed: %s", c, g_strerror (rc));
        return FALSE;
      }
    }
  }
  return TRUE;
}

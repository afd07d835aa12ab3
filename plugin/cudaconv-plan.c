/* cudaconv: per-component actions for a video format. */
#include "cudaconv-plan.h"
#include "gstcudaconv-enums.h"

static guint
channel_bit (const GstVideoFormatInfo * finfo, gint comp)
{
  if (comp == GST_VIDEO_COMP_A && GST_VIDEO_FORMAT_INFO_HAS_ALPHA (finfo))
    return GST_CUDACONV_CHANNEL_ALPHA;
  return 1u << comp;
}

void
cudaconv_plan_make (CudaConvPlan * plan, const GstVideoInfo * info,
    guint channels, gboolean neutral_chroma)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  const gboolean yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo);

  memset (plan, 0, sizeof (*plan));
  plan->n_planes = GST_VIDEO_INFO_N_PLANES (info);

  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    gboolean chroma = yuv && (c == GST_VIDEO_COMP_U || c == GST_VIDEO_COMP_V);
    if (neutral_chroma && chroma) {
      plan->action[c] = CUDACONV_ACTION_FILL;
      plan->fill_value[c] = 1u << (GST_VIDEO_INFO_COMP_DEPTH (info, c) - 1);
    } else if (channels & channel_bit (finfo, c)) {
      plan->action[c] = CUDACONV_ACTION_FILTER;
      plan->any_filter = TRUE;
    } else {
      plan->action[c] = CUDACONV_ACTION_COPY;
    }
  }

  for (guint p = 0; p < plan->n_planes; p++) {
    CudaConvPlanePlan *pp = &plan->planes[p];
    const gint first = cudaconv_plane_geometry (info, p, &pp->row_bytes,
        &pp->rows);
    gint written_bytes = 0;

    gst_video_format_info_component (finfo, p, pp->components);
    while (pp->n_components < GST_VIDEO_MAX_COMPONENTS
        && pp->components[pp->n_components] >= 0)
      pp->n_components++;
    for (gint i = 0; i < pp->n_components; i++) {
      gint c = pp->components[i];
      if (plan->action[c] != CUDACONV_ACTION_COPY)
        written_bytes += GST_ROUND_UP_8 (GST_VIDEO_INFO_COMP_DEPTH (info,
                c)) / 8;
    }
    pp->process = written_bytes > 0;
    pp->copy_first = pp->process
        && written_bytes < GST_VIDEO_INFO_COMP_PSTRIDE (info, first);
  }
}

/* A row ends with the last byte of its last sample of any component: in
 * YUY2 37 pixels wide that is V of the 19th pair, byte 75, one past the Y
 * samples' 74 bytes. */
gint
cudaconv_plane_geometry (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, gint * rows)
{
  gint components[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, components);
  *row_bytes = 0;
  for (gint i = 0; i < GST_VIDEO_MAX_COMPONENTS && components[i] >= 0; i++) {
    const gint c = components[i];
    const gsize end = GST_VIDEO_INFO_COMP_POFFSET (info, c) +
        (gsize) (GST_VIDEO_INFO_COMP_WIDTH (info, c) - 1) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, c) +
        GST_ROUND_UP_8 (GST_VIDEO_INFO_COMP_DEPTH (info, c)) / 8;
    *row_bytes = MAX (*row_bytes, end);
  }
  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, components[0]);
  return components[0];
}

CcChannel
cudaconv_plan_channel (const GstVideoInfo * info, gint comp,
    gpointer plane_data, gsize pitch)
{
  CcSampleType sample = GST_VIDEO_INFO_COMP_DEPTH (info, comp) > 8 ?
      CC_SAMPLE_U16 : CC_SAMPLE_U8;
  CcChannel ch = {
    (guint8 *) plane_data + GST_VIDEO_INFO_COMP_POFFSET (info, comp),
    pitch,
    GST_VIDEO_INFO_COMP_WIDTH (info, comp),
    GST_VIDEO_INFO_COMP_HEIGHT (info, comp),
    GST_VIDEO_INFO_COMP_PSTRIDE (info, comp) / (gint) sample,
    sample
  };
  return ch;
}

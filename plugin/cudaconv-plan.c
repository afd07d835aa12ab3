/* cudaconv: per-component actions for a video format. */
#include <math.h>
#include <string.h>

#include "cudaconv-plan.h"
#include "cudaconv-frame-check.h"
#include "gstcudaconv-enums.h"

/* Where a component's samples lie. GStreamer's format table describes
 * most formats sample by sample, but some only as its unpack functions
 * read them: Y210 with every component at byte 0 and its 10 bits
 * unshifted, and P010, P012 and P016 with V at byte 1 of each UV pair.
 * Their real layouts, from the formats' definitions: Y210 is Y0 U Y1 V in
 * 16-bit words with the 10 bits at the top; the P01x UV plane is U, V in
 * 16-bit words. */
typedef struct {
  gint poffset, pstride, depth, shift;
} ComponentLayout;

typedef struct {
  GstVideoFormat format;
  gint comp;
  ComponentLayout layout;
} LayoutFix;

static const LayoutFix layout_fixes[] = {
  {GST_VIDEO_FORMAT_Y210, 0, {0, 4, 10, 6}},
  {GST_VIDEO_FORMAT_Y210, 1, {2, 8, 10, 6}},
  {GST_VIDEO_FORMAT_Y210, 2, {6, 8, 10, 6}},
  {GST_VIDEO_FORMAT_P010_10LE, 2, {2, 4, 10, 6}},
  {GST_VIDEO_FORMAT_P012_LE, 2, {2, 4, 12, 4}},
  {GST_VIDEO_FORMAT_P016_LE, 2, {2, 4, 16, 0}},
};

static ComponentLayout
component_layout (const GstVideoInfo * info, gint comp)
{
  ComponentLayout l = { GST_VIDEO_INFO_COMP_POFFSET (info, comp),
    GST_VIDEO_INFO_COMP_PSTRIDE (info, comp),
    GST_VIDEO_INFO_COMP_DEPTH (info, comp), info->finfo->shift[comp]
  };
  for (guint k = 0; k < G_N_ELEMENTS (layout_fixes); k++)
    if (layout_fixes[k].format == GST_VIDEO_INFO_FORMAT (info)
        && layout_fixes[k].comp == comp)
      l = layout_fixes[k].layout;
  return l;
}

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
  plan->offset_scale = ldexpf (1.0f, component_layout (info, 0).depth - 8);
  plan->picture.w = GST_VIDEO_INFO_WIDTH (info);
  plan->picture.h = GST_VIDEO_INFO_FIELD_HEIGHT (info);

  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    gboolean chroma = yuv && (c == GST_VIDEO_COMP_U || c == GST_VIDEO_COMP_V);
    if (neutral_chroma && chroma) {
      plan->action[c] = CUDACONV_ACTION_FILL;
      const ComponentLayout l = component_layout (info, c);
      plan->fill_value[c] = 1u << (l.depth - 1) << l.shift;
    } else if (channels & channel_bit (finfo, c)) {
      plan->action[c] = CUDACONV_ACTION_FILTER;
      plan->any_filter = TRUE;
    } else {
      plan->action[c] = CUDACONV_ACTION_COPY;
    }
  }

  for (guint p = 0; p < plan->n_planes; p++) {
    CudaConvPlanePlan *pp = &plan->planes[p];
    gsize written_bytes = 0;

    cudaconv_plane_geometry (info, p, &pp->row_bytes, &pp->rows);

    gst_video_format_info_component (finfo, p, pp->components);
    while (pp->n_components < GST_VIDEO_MAX_COMPONENTS
        && pp->components[pp->n_components] >= 0)
      pp->n_components++;
    /* the bytes of a row that the actions write, against the row's bytes:
     * per row, not per pixel, since the components of a plane may have
     * different pixel strides (packed 4:2:2: Y every 2 bytes, U and V
     * every 4) */
    for (gint i = 0; i < pp->n_components; i++) {
      gint c = pp->components[i];
      if (plan->action[c] != CUDACONV_ACTION_COPY)
        written_bytes += (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
            (GST_ROUND_UP_8 (component_layout (info, c).depth) / 8);
    }
    pp->process = written_bytes > 0;
    pp->copy_first = pp->process && written_bytes < pp->row_bytes;
  }
}

/* A row ends with the last byte of its last sample of any component, or
 * of its last whole pixel: in YUY2 37 pixels wide that is V of the 19th
 * pair, byte 75, one past the Y samples' 74 bytes; in RGBx the last x. */
gint
cudaconv_plane_geometry (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, gint * rows)
{
  gint components[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, components);
  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, components[0]);
  /* samples in 32-bit words: 6 pixels to 16 bytes in v210, one pixel to
   * 4 in the others */
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_v210:
      *row_bytes = (gsize) (GST_VIDEO_INFO_WIDTH (info) + 5) / 6 * 16;
      return components[0];
    case GST_VIDEO_FORMAT_Y410:
    case GST_VIDEO_FORMAT_RGB10A2_LE:
    case GST_VIDEO_FORMAT_BGR10A2_LE:
      *row_bytes = (gsize) GST_VIDEO_INFO_WIDTH (info) * 4;
      return components[0];
    default:
      break;
  }
  *row_bytes = 0;
  for (gint i = 0; i < GST_VIDEO_MAX_COMPONENTS && components[i] >= 0; i++) {
    const gint c = components[i];
    const ComponentLayout l = component_layout (info, c);
    const gsize end = l.poffset +
        (gsize) (GST_VIDEO_INFO_COMP_WIDTH (info, c) - 1) * l.pstride +
        GST_ROUND_UP_8 (l.depth + l.shift) / 8;
    /* whole pixels: RGBx's last x byte lies past its last B */
    const gsize pixels = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
        l.pstride;
    *row_bytes = MAX (*row_bytes, MAX (end, pixels));
  }
  return components[0];
}

CcComponent
cudaconv_plan_channel (const GstVideoInfo * info, gint comp,
    gpointer plane_data, gsize pitch)
{
  const ComponentLayout l = component_layout (info, comp);
  CcSampleType sample = l.depth > 8 ? CC_SAMPLE_U16 : CC_SAMPLE_U8;
  CcComponent ch = {
    (guint8 *) plane_data + l.poffset,
    pitch,
    GST_VIDEO_INFO_COMP_WIDTH (info, comp),
    GST_VIDEO_INFO_COMP_HEIGHT (info, comp),
    l.pstride / (gint) sample,
    sample,
    l.depth,
    l.shift
  };
  return ch;
}

void
cudaconv_plan_copy_plane (const CudaConvPlan * plan, guint p,
    GstVideoFrame * dst, const GstVideoFrame * src)
{
  const CudaConvPlanePlan *pp = &plan->planes[p];
  const guint8 *s = GST_VIDEO_FRAME_PLANE_DATA (src, p);
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (dst, p);

  for (gint y = 0; y < pp->rows; y++)
    memcpy (d + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (dst, p),
        s + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (src, p), pp->row_bytes);
}

void
cudaconv_plan_set_frame (CudaConvPlan * plan, const GstVideoInfo * info,
    GstBuffer * buffer)
{
  const GstVideoRectangle whole = { 0, 0, GST_VIDEO_INFO_WIDTH (info),
    GST_VIDEO_INFO_FIELD_HEIGHT (info)
  };

  switch (GST_VIDEO_INFO_INTERLACE_MODE (info)) {
    case GST_VIDEO_INTERLACE_MODE_INTERLEAVED:
      plan->fields = TRUE;
      break;
    case GST_VIDEO_INTERLACE_MODE_MIXED:
      plan->fields = GST_BUFFER_FLAG_IS_SET (buffer,
          GST_VIDEO_BUFFER_FLAG_INTERLACED);
      break;
    default:
      plan->fields = FALSE;
      break;
  }
  plan->picture = whole;
  /* a CUDACONV_CROP_PICTURE frame was mapped at the picture's origin */
  if (cudaconv_crop_kind (info, buffer) == CUDACONV_CROP_INSIDE) {
    const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buffer);
    plan->picture.x = crop->x;
    plan->picture.y = crop->y;
    plan->picture.w = crop->width;
    plan->picture.h = crop->height;
    for (guint p = 0; p < plan->n_planes; p++)
      plan->planes[p].copy_first = plan->planes[p].process;
  }
}

/* [*begin, *end) of an axis of a subsampled component that covers
 * [start, start + length) of the frame's */
static void
component_span (gint start, gint length, gint sub, gint n, gint * begin,
    gint * end)
{
  *begin = start >> sub;
  *end = MIN (-((-(start + length)) >> sub), n);
}

guint
cudaconv_plan_regions (const CudaConvPlan * plan, const GstVideoInfo * info,
    gint comp, gpointer plane_data, gsize pitch,
    CcComponent regions[CUDACONV_MAX_REGIONS])
{
  const CcComponent whole = cudaconv_plan_channel (info, comp, plane_data,
      pitch);
  const GstVideoRectangle *r = &plan->picture;
  gint x0, x1, y0, y1;
  guint n = 0;

  component_span (r->x, r->w, GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, comp),
      whole.width, &x0, &x1);
  component_span (r->y, r->h, GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, comp),
      whole.height, &y0, &y1);
  if (x1 <= x0 || y1 <= y0)
    return 0;
  for (gint parity = 0; parity < (plan->fields ? 2 : 1); parity++) {
    /* a field's rows: the component's rows of one parity, counted from
     * the frame's top (in 4:2:0 video the chroma rows alternate too) */
    const gint first = plan->fields ? y0 + ((y0 ^ parity) & 1) : y0;
    const gint step = plan->fields ? 2 : 1;
    CcComponent *ch = &regions[n];

    if (first >= y1)
      continue;
    *ch = whole;
    ch->data = (guint8 *) whole.data + (gsize) first * pitch +
        (gsize) x0 * whole.pixel_stride * whole.sample;
    ch->pitch = pitch * step;
    ch->width = x1 - x0;
    ch->height = (y1 - first + step - 1) / step;
    n++;
  }
  return n;
}

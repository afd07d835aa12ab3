/* cudaconv: per-component actions for a frame (see the header). */
#include <string.h>

#include "cudaconv-plan.h"

/* The CudaConvChannels bit that selects component comp */
static guint
channel_bit (const GstVideoFormatInfo * finfo, gint comp)
{
  if (comp == GST_VIDEO_COMP_A && GST_VIDEO_FORMAT_INFO_HAS_ALPHA (finfo))
    return CUDACONV_CHANNEL_ALPHA;
  return 1u << comp;
}

/* Takes a frame's fields, picture and region mode, and from them and the
 * components which planes are copied whole before they are written: those
 * with bytes no action writes, and every processed one where only part of
 * it is written (a crop inside the frame, or only the regions). The one
 * place copy_first is decided, so that nothing depends on the order the
 * plan is set in. */
static void
set_frame (CudaConvPlan * plan, gboolean fields,
    const GstVideoRectangle * picture, gboolean crop_inside,
    CudaConvRegionMode mode)
{
  const gboolean part_written = crop_inside
      || mode == CUDACONV_REGION_MODE_INSIDE;

  plan->fields = fields;
  plan->picture = *picture;
  plan->region_mode = mode;
  for (guint p = 0; p < plan->layout->n_planes; p++)
    plan->planes[p].copy_first = plan->planes[p].partial
        || (part_written && plan->planes[p].process);
}

void
cudaconv_plan_make (CudaConvPlan * plan, const CudaConvLayout * layout,
    guint channels, gboolean neutral_chroma)
{
  const GstVideoInfo *info = &layout->work_info;
  const GstVideoFormatInfo *finfo = info->finfo;
  const gboolean yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo);
  const GstVideoRectangle whole = { 0, 0, GST_VIDEO_INFO_WIDTH (info),
    GST_VIDEO_INFO_FIELD_HEIGHT (info)
  };

  memset (plan, 0, sizeof (*plan));
  plan->layout = layout;

  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    gboolean chroma = yuv && (c == GST_VIDEO_COMP_U || c == GST_VIDEO_COMP_V);
    if (neutral_chroma && chroma) {
      const CudaConvComponentLayout *l = &layout->components[c];
      plan->action[c] = CUDACONV_ACTION_FILL;
      plan->fill_value[c] = 1u << (l->depth - 1) << l->shift;
    } else if (channels & channel_bit (finfo, c)) {
      plan->action[c] = CUDACONV_ACTION_FILTER;
      plan->any_filter = TRUE;
    } else {
      plan->action[c] = CUDACONV_ACTION_COPY;
    }
  }

  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    CudaConvPlanePlan *pp = &plan->planes[p];
    gsize written_bytes = 0;

    /* the bytes of a row that the actions write, against the row's bytes:
     * per row, not per pixel, since the components of a plane may have
     * different pixel strides (packed 4:2:2: Y every 2 bytes, U and V
     * every 4) */
    for (gint i = 0; i < pl->n_components; i++) {
      gint c = pl->components[i];
      if (plan->action[c] != CUDACONV_ACTION_COPY)
        written_bytes += (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
            (GST_ROUND_UP_8 (layout->components[c].depth) / 8);
    }
    pp->process = written_bytes > 0;
    pp->partial = pp->process && written_bytes < pl->row_bytes;
  }
  /* until a buffer says otherwise: a progressive whole frame, no regions */
  set_frame (plan, FALSE, &whole, FALSE, CUDACONV_REGION_MODE_FRAME);
}

void
cudaconv_plan_set_buffer (CudaConvPlan * plan, GstBuffer * buffer,
    const CudaConvCrop * crop, CudaConvRegionMode mode)
{
  const GstVideoInfo *info = &plan->layout->work_info;
  const GstVideoRectangle whole = { 0, 0, GST_VIDEO_INFO_WIDTH (info),
    GST_VIDEO_INFO_FIELD_HEIGHT (info)
  };
  const gboolean inside = crop->kind == CUDACONV_CROP_INSIDE;
  gboolean fields;

  switch (GST_VIDEO_INFO_INTERLACE_MODE (info)) {
    case GST_VIDEO_INTERLACE_MODE_INTERLEAVED:
      fields = TRUE;
      break;
    case GST_VIDEO_INTERLACE_MODE_MIXED:
      fields = GST_BUFFER_FLAG_IS_SET (buffer,
          GST_VIDEO_BUFFER_FLAG_INTERLACED);
      break;
    default:
      fields = FALSE;
      break;
  }
  /* a CUDACONV_CROP_PICTURE frame was mapped at the picture's origin */
  set_frame (plan, fields, inside ? &crop->rect : &whole, inside, mode);
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

gboolean
cudaconv_plan_part (const CudaConvPlan * plan, gint comp, guint part,
    CudaConvPartGeometry * g)
{
  const GstVideoInfo *info = &plan->layout->work_info;
  const GstVideoFormatInfo *finfo = info->finfo;
  const GstVideoRectangle *r = &plan->picture;
  gint x1, y0, y1;
  guint n = 0;

  component_span (r->x, r->w, GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp),
      GST_VIDEO_INFO_COMP_WIDTH (info, comp), &g->x0, &x1);
  component_span (r->y, r->h, GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp),
      GST_VIDEO_INFO_COMP_HEIGHT (info, comp), &y0, &y1);
  if (x1 <= g->x0 || y1 <= y0)
    return FALSE;
  for (gint parity = 0; parity < (plan->fields ? 2 : 1); parity++) {
    /* a field's rows: the component's rows of one parity, counted from
     * the frame's top (in 4:2:0 video the chroma rows alternate too) */
    g->first = plan->fields ? y0 + ((y0 ^ parity) & 1) : y0;
    g->step = plan->fields ? 2 : 1;
    if (g->first >= y1)
      continue;
    if (n++ == part) {
      g->width = x1 - g->x0;
      g->height = (y1 - g->first + g->step - 1) / g->step;
      return TRUE;
    }
  }
  return FALSE;
}

guint
cudaconv_plan_parts (const CudaConvPlan * plan, gint comp,
    gpointer plane_data, gsize pitch, CcComponent parts[CUDACONV_MAX_PARTS])
{
  const CcComponent whole = cudaconv_layout_component (plan->layout, comp,
      plane_data, pitch);
  CudaConvPartGeometry g;
  guint n = 0;

  while (n < CUDACONV_MAX_PARTS && cudaconv_plan_part (plan, comp, n, &g)) {
    CcComponent *part = &parts[n];
    *part = whole;
    part->data = (guint8 *) whole.data + (gsize) g.first * pitch +
        (gsize) g.x0 * whole.pixel_stride * whole.sample;
    part->pitch = pitch * g.step;
    part->width = g.width;
    part->height = g.height;
    n++;
  }
  return n;
}

CcComponent
cudaconv_component_sub (const CcComponent * c, const GstVideoRectangle * r)
{
  CcComponent s = *c;

  s.data = (guint8 *) c->data + (gsize) r->y * c->pitch +
      (gsize) r->x * c->pixel_stride * c->sample;
  s.width = r->w;
  s.height = r->h;
  return s;
}

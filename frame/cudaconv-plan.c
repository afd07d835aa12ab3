/* cudaconv: per-component actions for a frame (see the header). */
#include <string.h>

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
cudaconv_plan_make (CudaConvPlan * plan, const CudaConvLayout * layout,
    guint channels, gboolean neutral_chroma)
{
  const GstVideoInfo *info = &layout->work_info;
  const GstVideoFormatInfo *finfo = info->finfo;
  const gboolean yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo);

  memset (plan, 0, sizeof (*plan));
  plan->layout = layout;
  plan->picture.w = GST_VIDEO_INFO_WIDTH (info);
  plan->picture.h = GST_VIDEO_INFO_FIELD_HEIGHT (info);

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
    pp->copy_first = pp->partial;
  }
}

void
cudaconv_plan_set_buffer (CudaConvPlan * plan, GstBuffer * buffer,
    const CudaConvCrop * crop)
{
  const GstVideoInfo *info = &plan->layout->work_info;
  const GstVideoRectangle whole = { 0, 0, GST_VIDEO_INFO_WIDTH (info),
    GST_VIDEO_INFO_FIELD_HEIGHT (info)
  };
  const gboolean inside = crop->kind == CUDACONV_CROP_INSIDE;

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
  /* a CUDACONV_CROP_PICTURE frame was mapped at the picture's origin */
  plan->picture = inside ? crop->rect : whole;
  for (guint p = 0; p < plan->layout->n_planes; p++)
    plan->planes[p].copy_first = plan->planes[p].partial
        || (inside && plan->planes[p].process);
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

/* Where part number part of component comp lies: from column x0 of the
 * component, rows first, first + step, ... of it, width x height samples.
 * FALSE when there is no such part. */
static gboolean
part_geometry (const CudaConvPlan * plan, gint comp, guint part, gint * x0,
    gint * first, gint * step, gint * width, gint * height)
{
  const GstVideoInfo *info = &plan->layout->work_info;
  const GstVideoFormatInfo *finfo = info->finfo;
  const GstVideoRectangle *r = &plan->picture;
  gint x1, y0, y1;
  guint n = 0;

  component_span (r->x, r->w, GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp),
      GST_VIDEO_INFO_COMP_WIDTH (info, comp), x0, &x1);
  component_span (r->y, r->h, GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp),
      GST_VIDEO_INFO_COMP_HEIGHT (info, comp), &y0, &y1);
  if (x1 <= *x0 || y1 <= y0)
    return FALSE;
  for (gint parity = 0; parity < (plan->fields ? 2 : 1); parity++) {
    /* a field's rows: the component's rows of one parity, counted from
     * the frame's top (in 4:2:0 video the chroma rows alternate too) */
    *first = plan->fields ? y0 + ((y0 ^ parity) & 1) : y0;
    *step = plan->fields ? 2 : 1;
    if (*first >= y1)
      continue;
    if (n++ == part) {
      *width = x1 - *x0;
      *height = (y1 - *first + *step - 1) / *step;
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
  gint x0, first, step, width, height;
  guint n = 0;

  while (n < CUDACONV_MAX_PARTS && part_geometry (plan, comp, n, &x0, &first,
          &step, &width, &height)) {
    CcComponent *part = &parts[n];
    *part = whole;
    part->data = (guint8 *) whole.data + (gsize) first * pitch +
        (gsize) x0 * whole.pixel_stride * whole.sample;
    part->pitch = pitch * step;
    part->width = width;
    part->height = height;
    n++;
  }
  return n;
}

void
cudaconv_plan_set_regions (CudaConvPlan * plan, CudaConvRegionMode mode,
    const CudaConvRegionSet * regions, const CcFilter * const *filters,
    CcBorder border)
{
  plan->region_mode = mode;
  plan->regions.n = 0;
  if (mode == CUDACONV_REGION_MODE_FRAME)
    return;
  plan->regions.n = regions->n;
  memcpy (plan->regions.rects, regions->rects,
      regions->n * sizeof (CudaConvRegion));
  for (guint k = 0; k < regions->n; k++) {
    const CcFilter *f = filters[k];
    plan->block[k] = f->shape == CC_SHAPE_BLOCKS ? 2 * f->radius + 1 : 0;
    plan->reach[k] = plan->block[k] ? 0 : f->radius;
  }
  plan->wrap = border == CC_BORDER_WRAP;
  /* the rest of the frame is the input's */
  if (mode == CUDACONV_REGION_MODE_INSIDE)
    for (guint p = 0; p < plan->layout->n_planes; p++)
      plan->planes[p].copy_first = plan->planes[p].process;
}

/* [*begin, *end) of an axis of a part, of n samples, that region samples
 * [start, end) of the component's axis cover, the part starting at sample
 * origin and taking every step-th; FALSE when none. */
static gboolean
part_span (gint start, gint end, gint origin, gint step, gint n,
    gint * begin, gint * finish)
{
  /* the first part sample at or after start: ceil((start - origin) / step) */
  *begin = MAX (0, (start - origin + step - 1) / step);
  if (start - origin < 0)
    *begin = 0;
  *finish = MIN (n, end - origin <= 0 ? 0 : (end - origin + step - 1) / step);
  return *finish > *begin;
}

/* The window of [begin, end) on an axis of n samples */
static void
window_span (const CudaConvPlan * plan, guint region, gint begin, gint end,
    gint n, gint * wbegin, gint * wend)
{
  const gint block = plan->block[region];

  if (block) {
    /* whole blocks of the part's grid, as the frame's filter cuts them */
    *wbegin = begin / block * block;
    *wend = MIN (n, (end + block - 1) / block * block);
    return;
  }
  *wbegin = begin - plan->reach[region];
  *wend = end + plan->reach[region];
  if (plan->wrap && (*wbegin < 0 || *wend > n)) {
    *wbegin = 0;
    *wend = n;
  }
  *wbegin = MAX (*wbegin, 0);
  *wend = MIN (*wend, n);
}

guint
cudaconv_plan_pieces (const CudaConvPlan * plan, gint comp, guint part,
    CudaConvPiece pieces[CUDACONV_MAX_REGIONS])
{
  const GstVideoFormatInfo *finfo = plan->layout->work_info.finfo;
  const gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp);
  const gint hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp);
  gint x0, first, step, width, height;
  guint n = 0;

  if (!part_geometry (plan, comp, part, &x0, &first, &step, &width, &height))
    return 0;
  for (guint k = 0; k < plan->regions.n; k++) {
    const CudaConvRegion *r = &plan->regions.rects[k];
    CudaConvPiece *piece = &pieces[n];
    gint cx0, cx1, cy0, cy1, b, e, wb, we;

    /* the component samples that hold any of the region's pixels */
    component_span (r->x, r->w, wsub, G_MAXINT, &cx0, &cx1);
    component_span (r->y, r->h, hsub, G_MAXINT, &cy0, &cy1);
    if (!part_span (cx0, cx1, x0, 1, width, &b, &e))
      continue;
    piece->rect.x = b;
    piece->rect.w = e - b;
    window_span (plan, k, b, e, width, &wb, &we);
    piece->window.x = wb;
    piece->window.w = we - wb;
    if (!part_span (cy0, cy1, first, step, height, &b, &e))
      continue;
    piece->rect.y = b;
    piece->rect.h = e - b;
    window_span (plan, k, b, e, height, &wb, &we);
    piece->window.y = wb;
    piece->window.h = we - wb;
    piece->region = k;
    n++;
  }
  return n;
}

gboolean
cudaconv_plan_region_bytes (const CudaConvPlan * plan, guint p,
    guint region, gboolean reach, GstVideoRectangle * bytes)
{
  const CudaConvPlaneLayout *pl = &plan->layout->planes[p];
  gint64 bx0 = G_MAXINT64, bx1 = -1, y0 = G_MAXINT, y1 = -1;
  CudaConvPlan single = *plan;

  /* the pieces of this region alone */
  single.regions.n = 1;
  single.regions.rects[0] = plan->regions.rects[region];
  single.reach[0] = plan->reach[region];
  single.block[0] = plan->block[region];
  for (gint i = 0; i < pl->n_components; i++) {
    const gint c = pl->components[i];
    const CudaConvComponentLayout *l = &plan->layout->components[c];
    const gint sample = l->depth > 8 ? 2 : 1;
    CudaConvPiece piece[CUDACONV_MAX_REGIONS];
    gint x0, first, step, width, height;

    if (plan->action[c] == CUDACONV_ACTION_COPY)
      continue;
    for (guint part = 0; part_geometry (plan, c, part, &x0, &first, &step,
            &width, &height); part++) {
      const GstVideoRectangle *r;
      if (cudaconv_plan_pieces (&single, c, part, piece) == 0)
        continue;
      r = reach ? &piece[0].window : &piece[0].rect;
      bx0 = MIN (bx0, l->poffset + (gint64) (x0 + r->x) * l->pstride);
      bx1 = MAX (bx1, l->poffset + (gint64) (x0 + r->x + r->w - 1) *
          l->pstride + sample);
      y0 = MIN (y0, first + r->y * step);
      y1 = MAX (y1, first + (r->y + r->h - 1) * step + 1);
    }
  }
  if (bx1 < 0)
    return FALSE;
  bytes->x = (gint) bx0;
  bytes->w = (gint) (MIN (bx1, (gint64) pl->row_bytes) - bx0);
  bytes->y = (gint) y0;
  bytes->h = (gint) (y1 - y0);
  return TRUE;
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

/* cudaconv: what a frame's regions cover (see the header). */
#include <string.h>

#include "cudaconv-coverage.h"

/* How a region's filter reads around what it writes */
typedef struct {
  gint reach;                   /* samples beyond a written one: the radius */
  gint block;                   /* or, for block filters, the block side */
  gboolean wrap;                /* the border reads the far side */
} Reach;

/* a / b rounded down, for b > 0 and any a: C's division rounds toward 0,
 * which a region above a field's first row would make wrong */
static inline gint
floor_div (gint a, gint b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* a / b rounded up, for b > 0 and any a */
static inline gint
ceil_div (gint a, gint b)
{
  return -floor_div (-a, b);
}

/* Clips [*begin, *end) to [0, n); FALSE when nothing is left. */
static inline gboolean
clip_span (gint * begin, gint * end, gint n)
{
  *begin = MAX (*begin, 0);
  *end = MIN (*end, n);
  return *end > *begin;
}

/* The columns [*begin, *end) of part g (of a component subsampled by
 * wsub) that hold any of the frame's pixel columns [x, x + w); FALSE when
 * none. */
static gboolean
part_columns (const CudaConvPartGeometry * g, gint wsub, gint x, gint w,
    gint * begin, gint * end)
{
  *begin = floor_div (x, 1 << wsub) - g->x0;
  *end = ceil_div (x + w, 1 << wsub) - g->x0;
  return clip_span (begin, end, g->width);
}

/* The rows [*begin, *end) of part g (of a component subsampled by hsub)
 * that hold any of the frame's pixel rows [y, y + h); FALSE when none.
 *
 * A progressive part is the component's rows from g->first on. A field's
 * part holds the component's rows of one parity p (g->first's), and with
 * fields the chroma of 4:2:0 is the field's own: field p is the frame's
 * rows 2j + p, its component row k holds the field's rows j of
 * [k << hsub, (k + 1) << hsub), and lies in the component at row 2k + p,
 * which is the part's row k - (g->first >> 1). Mapping the frame's rows to
 * chroma rows as if the frame were progressive would leave a field's
 * chroma of the region's edge rows unfiltered. */
static gboolean
part_rows (const CudaConvPartGeometry * g, gint hsub, gint y, gint h,
    gint * begin, gint * end)
{
  if (g->step == 1) {
    *begin = floor_div (y, 1 << hsub) - g->first;
    *end = ceil_div (y + h, 1 << hsub) - g->first;
  } else {
    const gint p = g->first & 1;
    /* the field's rows, then its component's */
    const gint j0 = ceil_div (y - p, 2), j1 = ceil_div (y + h - p, 2);

    /* a region one row tall may have none of this field's: rounding out
     * below would give it a row */
    if (j1 <= j0)
      return FALSE;
    *begin = floor_div (j0, 1 << hsub) - (g->first >> 1);
    *end = ceil_div (j1, 1 << hsub) - (g->first >> 1);
  }
  return clip_span (begin, end, g->height);
}

/* The window of [begin, end) on an axis of n samples: grown by the reach
 * and clipped, or the whole axis where a wrapping border would read across
 * its edge, or the whole blocks of the axis's grid that hold it (as the
 * whole part's filter cuts them). */
static void
window_span (const Reach * r, gint begin, gint end, gint n, gint * wbegin,
    gint * wend)
{
  if (r->block) {
    *wbegin = begin / r->block * r->block;
    *wend = MIN (n, (end + r->block - 1) / r->block * r->block);
    return;
  }
  *wbegin = begin - r->reach;
  *wend = end + r->reach;
  if (r->wrap && (*wbegin < 0 || *wend > n)) {
    *wbegin = 0;
    *wend = n;
  }
  *wbegin = MAX (*wbegin, 0);
  *wend = MIN (*wend, n);
}

/* Appends the pieces of part g of component comp, one per region that
 * holds any of its samples, with their writes. */
static void
add_part_pieces (CudaConvCoverage * coverage, const CudaConvPlan * plan,
    gint comp, const CudaConvPartGeometry * g,
    const CudaConvRegionSet * regions, const Reach * reach)
{
  const GstVideoFormatInfo *finfo = plan->layout->work_info.finfo;
  const gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp);
  const gint hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp);

  for (guint k = 0; k < coverage->n_regions; k++) {
    const CudaConvRegion *r = &regions->rects[k];
    CudaConvPiece *piece = &coverage->pieces[coverage->n_pieces];
    gint x0, x1, y0, y1, wx0, wx1, wy0, wy1;

    /* an empty box would round out to a sample */
    if (r->w <= 0 || r->h <= 0
        || !part_columns (g, wsub, r->x, r->w, &x0, &x1)
        || !part_rows (g, hsub, r->y, r->h, &y0, &y1))
      continue;
    window_span (&reach[k], x0, x1, g->width, &wx0, &wx1);
    window_span (&reach[k], y0, y1, g->height, &wy0, &wy1);
    piece->window.x = wx0;
    piece->window.y = wy0;
    piece->window.w = wx1 - wx0;
    piece->window.h = wy1 - wy0;
    piece->bounds.x = x0;
    piece->bounds.y = y0;
    piece->bounds.w = x1 - x0;
    piece->bounds.h = y1 - y0;
    piece->region = k;
    /* a rectangle is written whole: one write, its bounds */
    piece->first_write = coverage->n_writes;
    piece->n_writes = 1;
    coverage->writes[coverage->n_writes++] = piece->bounds;
    coverage->n_pieces++;
  }
}

/* The bytes of one region in one plane, grown rect by rect */
typedef struct {
  gint64 x0, x1, y0, y1;
} Extent;

/* Grows e by the bytes and rows that rect r of part g of a component laid
 * out as l covers. */
static void
extent_add (Extent * e, const CudaConvComponentLayout * l,
    const CudaConvPartGeometry * g, const GstVideoRectangle * r)
{
  const gint sample = l->depth > 8 ? 2 : 1;

  e->x0 = MIN (e->x0, l->poffset + (gint64) (g->x0 + r->x) * l->pstride);
  e->x1 = MAX (e->x1, l->poffset + (gint64) (g->x0 + r->x + r->w - 1) *
      l->pstride + sample);
  e->y0 = MIN (e->y0, g->first + (gint64) r->y * g->step);
  e->y1 = MAX (e->y1, g->first + (gint64) (r->y + r->h - 1) * g->step + 1);
}

/* e as a box of a plane of row_bytes bytes a row */
static GstVideoRectangle
extent_box (const Extent * e, gsize row_bytes)
{
  GstVideoRectangle b;

  b.x = (gint) e->x0;
  b.w = (gint) (MIN (e->x1, (gint64) row_bytes) - e->x0);
  b.y = (gint) e->y0;
  b.h = (gint) (e->y1 - e->y0);
  return b;
}

/* Appends the byte boxes of plane p, one per region whose pieces touch it
 * in any of its covered components. */
static void
add_plane_boxes (CudaConvCoverage * coverage, const CudaConvPlan * plan,
    guint p)
{
  const CudaConvPlaneLayout *pl = &plan->layout->planes[p];
  Extent read[CUDACONV_MAX_REGIONS], written[CUDACONV_MAX_REGIONS];
  const Extent none = { G_MAXINT64, G_MININT64, G_MAXINT64, G_MININT64 };

  for (guint k = 0; k < coverage->n_regions; k++)
    read[k] = written[k] = none;
  for (gint i = 0; i < pl->n_components; i++) {
    const gint c = pl->components[i];
    const CudaConvComponentLayout *l = &plan->layout->components[c];
    CudaConvPartGeometry g;

    for (guint part = 0; part < CUDACONV_MAX_PARTS
        && cudaconv_plan_part (plan, c, part, &g); part++) {
      guint n;
      const CudaConvPiece *pieces = cudaconv_coverage_pieces (coverage, c,
          part, &n);

      for (guint j = 0; j < n; j++) {
        const CudaConvPiece *piece = &pieces[j];
        extent_add (&read[piece->region], l, &g, &piece->window);
        for (guint w = 0; w < piece->n_writes; w++)
          extent_add (&written[piece->region], l, &g,
              &coverage->writes[piece->first_write + w]);
      }
    }
  }
  coverage->planes[p].first = coverage->n_boxes;
  for (guint k = 0; k < coverage->n_regions; k++) {
    CudaConvByteBox *box;

    if (read[k].x1 == G_MININT64)
      continue;
    box = &coverage->boxes[coverage->n_boxes++];
    box->read = extent_box (&read[k], pl->row_bytes);
    box->written = extent_box (&written[k], pl->row_bytes);
  }
  coverage->planes[p].n = coverage->n_boxes - coverage->planes[p].first;
}

void
cudaconv_coverage_build (CudaConvCoverage * coverage,
    const CudaConvPlan * plan, const CudaConvRegionSet * regions,
    const CcFilter * const *filters, CcBorder border)
{
  const CudaConvLayout *layout = plan->layout;
  const guint n_comps = GST_VIDEO_INFO_N_COMPONENTS (&layout->work_info);
  Reach reach[CUDACONV_MAX_REGIONS];

  coverage->n_regions = MIN (regions->n, CUDACONV_MAX_REGIONS);
  coverage->n_pieces = coverage->n_writes = coverage->n_boxes = 0;
  memset (coverage->parts, 0, sizeof (coverage->parts));
  memset (coverage->planes, 0, sizeof (coverage->planes));
  for (guint k = 0; k < coverage->n_regions; k++) {
    const CcFilter *f = filters[k];
    reach[k].block = f->shape == CC_SHAPE_BLOCKS ? 2 * f->radius + 1 : 0;
    reach[k].reach = reach[k].block ? 0 : f->radius;
    reach[k].wrap = border == CC_BORDER_WRAP;
    coverage->reach[k] = reach[k].reach;
  }

  for (guint c = 0; c < n_comps; c++) {
    CudaConvPartGeometry g;

    if (plan->action[c] == CUDACONV_ACTION_COPY)
      continue;
    for (guint part = 0; part < CUDACONV_MAX_PARTS
        && cudaconv_plan_part (plan, c, part, &g); part++) {
      CudaConvSpan *span = &coverage->parts[c][part];
      span->first = coverage->n_pieces;
      add_part_pieces (coverage, plan, c, &g, regions, reach);
      span->n = coverage->n_pieces - span->first;
    }
  }
  for (guint p = 0; p < layout->n_planes; p++)
    add_plane_boxes (coverage, plan, p);
}

void
cudaconv_coverage_copy (CudaConvCoverage * dst, const CudaConvCoverage * src)
{
  /* everything before the arrays, then the arrays' used entries */
  memcpy (dst, src, G_STRUCT_OFFSET (CudaConvCoverage, pieces));
  memcpy (dst->pieces, src->pieces, src->n_pieces * sizeof (src->pieces[0]));
  memcpy (dst->writes, src->writes, src->n_writes * sizeof (src->writes[0]));
  memcpy (dst->boxes, src->boxes, src->n_boxes * sizeof (src->boxes[0]));
}

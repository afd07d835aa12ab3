/* cudaconv tests: what a frame's regions cover (frame/cudaconv-coverage.c)
 * against an oracle that asks of every sample which pixels it holds, the
 * pieces routine both back ends run (backend/cudaconv-pieces.c), what
 * the CPU back end keeps of the regions' samples with region=outside, and
 * the copies of the planes a region frame's output takes as they are
 * (frame/cudaconv-layout.c). */
#include <string.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cudaconv-coverage.h"
#include "cudaconv-cpu-pool.h"
#include "cudaconv-pieces.h"

/* One frame's geometry, regions and filters */
typedef struct {
  CudaConvLayout layout;
  CudaConvPlan plan;
  CudaConvRegionSet regions;
  CcFilter filters[CUDACONV_MAX_REGIONS];
  /* each region's filter: &filters[k], or another region's to share it */
  const CcFilter *filter_list[CUDACONV_MAX_REGIONS];
  CcBorder border;
} Frame;

/* ---- the oracle ---- */

/* Whether [a0, a1) and [b0, b1) meet */
static gboolean
spans_meet (gint a0, gint a1, gint b0, gint b1)
{
  return a0 < b1 && b0 < a1;
}

/* Whether the sample at column cx, row cy of a component subsampled by
 * wsub and hsub holds any pixel of r. Progressive, its pixel rows are
 * [cy << hsub, (cy + 1) << hsub). With fields, row cy is of field
 * p = cy & 1, whose own subsampled row k = cy >> 1 holds the field's rows
 * j of [k << hsub, (k + 1) << hsub), which are the frame's rows 2j + p. */
static gboolean
sample_holds (gint cx, gint cy, gint wsub, gint hsub, gboolean fields,
    const GstVideoRectangle * r)
{
  if (!spans_meet (cx << wsub, (cx + 1) << wsub, r->x, r->x + r->w))
    return FALSE;
  if (!fields)
    return spans_meet (cy << hsub, (cy + 1) << hsub, r->y, r->y + r->h);
  for (gint j = (cy >> 1) << hsub; j < ((cy >> 1) + 1) << hsub; j++) {
    const gint y = 2 * j + (cy & 1);
    if (y >= r->y && y < r->y + r->h)
      return TRUE;
  }
  return FALSE;
}

/* The window a filter of reach (radius) or block side reads to write
 * [b, e) of an axis of n samples: grown and clipped; the whole axis where
 * a wrapping border reads across its edge; whole blocks for pixelate. */
static void
expected_window (gint b, gint e, gint n, gint radius, gboolean blocks,
    gboolean wrap, gint * wb, gint * we)
{
  if (blocks) {
    const gint side = 2 * radius + 1;
    *wb = b - b % side;
    *we = MIN (n, e % side ? e + side - e % side : e);
    return;
  }
  *wb = b - radius;
  *we = e + radius;
  if (wrap && (*wb < 0 || *we > n)) {
    *wb = 0;
    *we = n;
  }
  *wb = MAX (*wb, 0);
  *we = MIN (*we, n);
}

/* Whether r lies inside [0, w) x [0, h) and is not empty */
static gboolean
rect_inside (const GstVideoRectangle * r, gint w, gint h)
{
  return r->w > 0 && r->h > 0 && r->x >= 0 && r->y >= 0 && r->x + r->w <= w
      && r->y + r->h <= h;
}

static gboolean
rect_within (const GstVideoRectangle * inner, const GstVideoRectangle * outer)
{
  return inner->x >= outer->x && inner->y >= outer->y
      && inner->x + inner->w <= outer->x + outer->w
      && inner->y + inner->h <= outer->y + outer->h;
}

static gboolean
rect_equal (const GstVideoRectangle * a, const GstVideoRectangle * b)
{
  return a->x == b->x && a->y == b->y && a->w == b->w && a->h == b->h;
}

/* The bytes of a plane a region's pieces touch, found byte by byte */
typedef struct {
  gint x0, x1, y0, y1;
} Bytes;

static const Bytes no_bytes = { G_MAXINT, G_MININT, G_MAXINT, G_MININT };

/* Grows b by every byte of every sample of rect r of part g of component
 * comp. */
static void
bytes_add (Bytes * b, const CudaConvLayout * layout, gint comp,
    const CudaConvPartGeometry * g, const GstVideoRectangle * r)
{
  const CudaConvComponentLayout *l = &layout->components[comp];
  const gint sample = l->depth > 8 ? 2 : 1;

  for (gint y = r->y; y < r->y + r->h; y++)
    for (gint x = r->x; x < r->x + r->w; x++)
      for (gint i = 0; i < sample; i++) {
        const gint byte = l->poffset + (g->x0 + x) * l->pstride + i;
        const gint row = g->first + y * g->step;
        b->x0 = MIN (b->x0, byte);
        b->x1 = MAX (b->x1, byte + 1);
        b->y0 = MIN (b->y0, row);
        b->y1 = MAX (b->y1, row + 1);
      }
}

/* Whether box is b, its bytes clipped to the row's */
static gboolean
box_is (const GstVideoRectangle * box, const Bytes * b, gsize row_bytes)
{
  const GstVideoRectangle want = { b->x0, b->y0,
    MIN (b->x1, (gint) row_bytes) - b->x0, b->y1 - b->y0
  };
  return rect_equal (box, &want);
}

/* The order the filters of overlapping regions write in */
static gint
write_key (const CcFilter * filter)
{
  return filter->shape == CC_SHAPE_BLOCKS ? 2 * filter->radius + 1 :
      filter->radius;
}

static gint64
rect_area (const GstVideoRectangle * r)
{
  return (gint64) r->w * r->h;
}

/* Checks the coverage of f's regions against the oracle: every sample a
 * region holds written once by each filter of the regions holding it, the
 * one that reads farthest last, from a window that holds all it reads;
 * nothing else written; a filter's pieces never write a sample twice, and
 * their windows overlap only where one window would cost more. */
static void
check_coverage (const Frame * f, const CudaConvCoverage * cov)
{
  const CudaConvPlan *plan = &f->plan;
  const CudaConvLayout *layout = &f->layout;
  const GstVideoFormatInfo *finfo = layout->work_info.finfo;
  const guint n_comps = GST_VIDEO_INFO_N_COMPONENTS (&layout->work_info);
  guint pieces_seen = 0;

  g_assert_cmpuint (cov->n_regions, ==, f->regions.n);
  for (guint c = 0; c < GST_VIDEO_MAX_COMPONENTS; c++) {
    const gint wsub = c < n_comps ? GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c) : 0;
    const gint hsub = c < n_comps ? GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c) : 0;

    for (guint part = 0; part < CUDACONV_MAX_PARTS; part++) {
      CudaConvPartGeometry g;
      guint n;
      const CudaConvPiece *pieces = cudaconv_coverage_pieces (cov, c, part,
          &n);
      guint *writes, *last;

      if (c >= n_comps || plan->action[c] == CUDACONV_ACTION_COPY
          || !cudaconv_plan_part (plan, c, part, &g)) {
        g_assert_cmpuint (n, ==, 0);
        continue;
      }
      g_assert_cmpint (g.step, ==, plan->fields ? 2 : 1);
      if (plan->fields && part == 1) {
        CudaConvPartGeometry g0;
        g_assert_true (cudaconv_plan_part (plan, c, 0, &g0));
        g_assert_cmpint (g0.first & 1, !=, g.first & 1);
      }
      pieces_seen += n;
      /* per sample: how many writes, and the last writer's piece + 1 */
      writes = g_new0 (guint, 2 * (gsize) g.width * g.height);
      last = writes + (gsize) g.width * g.height;

      for (guint j = 0; j < n; j++) {
        const CudaConvPiece *piece = &pieces[j];
        const CcFilter *filter;
        GstVideoRectangle hull = { 0, 0, 0, 0 };

        g_assert_cmpuint (piece->region, <, f->regions.n);
        filter = f->filter_list[piece->region];
        g_assert_cmpint (piece->reach, ==,
            filter->shape == CC_SHAPE_BLOCKS ? 0 : filter->radius);
        /* the filters that read farther come later */
        if (j > 0)
          g_assert_cmpint (write_key (f->filter_list[pieces[j - 1].region]),
              <=, write_key (filter));
        g_assert_cmpuint (piece->n_writes, >=, 1);
        g_assert_cmpuint (piece->first_write + piece->n_writes, <=,
            cov->n_writes);
        g_assert_true (rect_inside (&piece->window, g.width, g.height));
        g_assert_true (rect_within (&piece->bounds, &piece->window));
        for (guint w = 0; w < piece->n_writes; w++) {
          const GstVideoRectangle *wr = &cov->writes[piece->first_write + w];
          gint bx, ex, by, ey;

          g_assert_true (rect_inside (wr, g.width, g.height));
          g_assert_true (rect_within (wr, &piece->bounds));
          if (w == 0)
            hull = *wr;
          hull.w = MAX (hull.x + hull.w, wr->x + wr->w) - MIN (hull.x, wr->x);
          hull.h = MAX (hull.y + hull.h, wr->y + wr->h) - MIN (hull.y, wr->y);
          hull.x = MIN (hull.x, wr->x);
          hull.y = MIN (hull.y, wr->y);
          /* what the filter reads to write it, inside the window: for
           * blocks, the whole blocks of the write */
          expected_window (wr->x, wr->x + wr->w, g.width, filter->radius,
              filter->shape == CC_SHAPE_BLOCKS, f->border == CC_BORDER_WRAP,
              &bx, &ex);
          expected_window (wr->y, wr->y + wr->h, g.height, filter->radius,
              filter->shape == CC_SHAPE_BLOCKS, f->border == CC_BORDER_WRAP,
              &by, &ey);
          g_assert_cmpint (bx, >=, piece->window.x);
          g_assert_cmpint (ex, <=, piece->window.x + piece->window.w);
          g_assert_cmpint (by, >=, piece->window.y);
          g_assert_cmpint (ey, <=, piece->window.y + piece->window.h);
          for (gint y = wr->y; y < wr->y + wr->h; y++)
            for (gint x = wr->x; x < wr->x + wr->w; x++) {
              writes[y * g.width + x]++;
              last[y * g.width + x] = j + 1;
            }
        }
        g_assert_true (rect_equal (&hull, &piece->bounds));
        /* two pieces of one filter: windows apart, or one window would
         * cost more than the two */
        for (guint i = 0; i < j; i++) {
          const GstVideoRectangle *a = &pieces[i].window, *b = &piece->window;
          GstVideoRectangle box;
          if (f->filter_list[pieces[i].region] != filter
              || !(a->x < b->x + b->w && b->x < a->x + a->w
                  && a->y < b->y + b->h && b->y < a->y + a->h))
            continue;
          box.x = MIN (a->x, b->x);
          box.y = MIN (a->y, b->y);
          box.w = MAX (a->x + a->w, b->x + b->w) - box.x;
          box.h = MAX (a->y + a->h, b->y + b->h) - box.y;
          g_assert_cmpint (rect_area (&box), >, rect_area (a) + rect_area (b));
        }
      }

      /* each sample: written by every filter of the regions holding it,
       * once each, the farthest-reading last; else not written */
      for (gint y = 0; y < g.height; y++)
        for (gint x = 0; x < g.width; x++) {
          const CcFilter *seen[64];
          guint n_filters = 0;
          gint key = -1;
          const gsize at = (gsize) y * g.width + x;

          for (guint k = 0; k < f->regions.n; k++) {
            const CcFilter *filter = f->filter_list[k];
            gboolean known = FALSE;

            if (!sample_holds (g.x0 + x, g.first + y * g.step, wsub, hsub,
                    plan->fields, &f->regions.rects[k]))
              continue;
            key = MAX (key, write_key (filter));
            for (guint i = 0; i < n_filters && !known; i++)
              known = seen[i] == filter;
            if (!known && n_filters < G_N_ELEMENTS (seen))
              seen[n_filters++] = filter;
          }
          if (writes[at] != n_filters)
            g_error ("%s %dx%d: component %u part %u (x0 %d first %d step "
                "%d): sample %d,%d written %u times, by %u filters",
                GST_VIDEO_INFO_NAME (&layout->work_info),
                GST_VIDEO_INFO_WIDTH (&layout->work_info),
                GST_VIDEO_INFO_HEIGHT (&layout->work_info), c, part, g.x0,
                g.first, g.step, x, y, writes[at], n_filters);
          if (n_filters > 0)
            g_assert_cmpint (write_key (f->filter_list[pieces[last[at] -
                            1].region]), ==, key);
        }
      g_free (writes);
    }
  }
  g_assert_cmpuint (pieces_seen, ==, cov->n_pieces);

  /* each plane's bytes: one box per region it holds pieces of, in the
   * regions' order, the bytes of their windows and writes */
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    guint n_boxes, b = 0;
    const CudaConvByteBox *boxes = cudaconv_coverage_boxes (cov, p, &n_boxes);

    for (guint k = 0; k < f->regions.n; k++) {
      Bytes read = no_bytes, written = no_bytes;

      for (gint i = 0; i < pl->n_components; i++) {
        const gint c = pl->components[i];
        CudaConvPartGeometry g;

        for (guint part = 0; cudaconv_plan_part (plan, c, part, &g); part++) {
          guint n;
          const CudaConvPiece *pieces = cudaconv_coverage_pieces (cov, c,
              part, &n);
          for (guint j = 0; j < n; j++) {
            if (pieces[j].region != k)
              continue;
            bytes_add (&read, layout, c, &g, &pieces[j].window);
            for (guint w = 0; w < pieces[j].n_writes; w++)
              bytes_add (&written, layout, c, &g,
                  &cov->writes[pieces[j].first_write + w]);
          }
        }
      }
      if (read.x1 == G_MININT)
        continue;
      g_assert_cmpuint (b, <, n_boxes);
      g_assert_true (box_is (&boxes[b].read, &read, pl->row_bytes));
      g_assert_true (box_is (&boxes[b].written, &written, pl->row_bytes));
      g_assert_true (rect_within (&boxes[b].written, &boxes[b].read));
      b++;
    }
    g_assert_cmpuint (b, ==, n_boxes);
  }
}

/* ---- frames ---- */

/* Makes f a frame of format, w x h, interlace mode; buffer_fields sets
 * the buffer's INTERLACED flag (for mixed); crop NULL: none. */
static void
frame_make (Frame * f, GstVideoFormat format, gint w, gint h,
    GstVideoInterlaceMode mode, gboolean buffer_fields, guint channels,
    gboolean neutral_chroma, const GstVideoRectangle * crop,
    CudaConvRegionMode region_mode)
{
  GstVideoInfo info;
  GstBuffer *buffer = gst_buffer_new ();
  CudaConvCrop c = { CUDACONV_CROP_NONE, {0, 0, 0, 0} };

  gst_video_info_init (&info);
  g_assert_true (gst_video_info_set_interlaced_format (&info, format, mode, w,
          h));
  cudaconv_layout_make (&f->layout, &info);
  cudaconv_plan_make (&f->plan, &f->layout, channels, neutral_chroma);
  if (buffer_fields)
    GST_BUFFER_FLAG_SET (buffer, GST_VIDEO_BUFFER_FLAG_INTERLACED);
  if (crop) {
    c.kind = CUDACONV_CROP_INSIDE;
    c.rect = *crop;
  }
  cudaconv_plan_set_buffer (&f->plan, buffer, &c, region_mode);
  gst_buffer_unref (buffer);
  for (guint k = 0; k < CUDACONV_MAX_REGIONS; k++)
    f->filter_list[k] = &f->filters[k];
}

/* A filter of this radius that reads as its shape says: only the radius
 * and the shape matter to the coverage. */
static void
filter_make (CcFilter * filter, gint radius, gboolean blocks)
{
  memset (filter, 0, sizeof (*filter));
  filter->radius = radius;
  filter->shape = blocks ? CC_SHAPE_BLOCKS : CC_SHAPE_TAPS;
  filter->scale = 1.0;
}

static gint
rand_range (gint lo, gint hi)
{
  return g_test_rand_int_range (lo, hi);
}

static GstVideoRectangle
random_rect (gint w, gint h)
{
  GstVideoRectangle r;

  r.x = rand_range (0, w);
  r.y = rand_range (0, h);
  r.w = rand_range (1, w - r.x + 1);
  r.h = rand_range (1, h - r.y + 1);
  return r;
}

/* A box of at most 4x4 pixels inside the frame */
static GstVideoRectangle
small_rect (gint w, gint h)
{
  GstVideoRectangle r;

  r.x = rand_range (0, w);
  r.y = rand_range (0, h);
  r.w = MIN (rand_range (1, 5), w - r.x);
  r.h = MIN (rand_range (1, 5), h - r.y);
  return r;
}

/* Random small frames, planar, semi-planar and packed, 8- and 16-bit,
 * progressive and with fields, cropped or not, of random regions (up to
 * CUDACONV_MAX_REGIONS, large and small, with filters of their own or
 * shared), radii, pixelate blocks and borders: every sample of every part
 * against the oracle. */
static void
test_random (void)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_AYUV
  };
  static const CcBorder borders[] = { CC_BORDER_CLAMP, CC_BORDER_WRAP,
    CC_BORDER_ZERO, CC_BORDER_MIRROR
  };
  Frame *f = g_new0 (Frame, 1);
  CudaConvCoverage *cov = cudaconv_coverage_new ();
  const guint rounds = g_test_thorough ()? 40000 : 6000;
  guint interlaced_chroma = 0;

  for (guint round = 0; round < rounds; round++) {
    const GstVideoFormat format = formats[rand_range (0,
            G_N_ELEMENTS (formats))];
    const gint w = rand_range (1, 25), h = rand_range (1, 25);
    /* progressive, interleaved, mixed with and without the buffer's flag */
    const gint kind = rand_range (0, 4);
    const GstVideoInterlaceMode mode = kind == 0 ?
        GST_VIDEO_INTERLACE_MODE_PROGRESSIVE : kind == 1 ?
        GST_VIDEO_INTERLACE_MODE_INTERLEAVED : GST_VIDEO_INTERLACE_MODE_MIXED;
    /* every component, or a subset of them */
    const guint channels = rand_range (0, 2) ? 0xf : rand_range (1, 16);
    const gboolean neutral = rand_range (0, 4) == 0;
    GstVideoRectangle crop = random_rect (w, h);
    const gboolean cropped = rand_range (0, 3) == 0;
    const gboolean many = rand_range (0, 40) == 0;
    /* regions that share filters, as one kernel's regions do, are joined;
     * boxes of a few samples, as a crowd's faces, lie apart */
    const gboolean shared = many || rand_range (0, 2);
    const gboolean small = rand_range (0, 3) == 0;

    frame_make (f, format, w, h, mode, kind == 2, channels, neutral,
        cropped ? &crop : NULL, rand_range (0, 2) ?
        CUDACONV_REGION_MODE_INSIDE : CUDACONV_REGION_MODE_OUTSIDE);
    f->border = borders[rand_range (0, G_N_ELEMENTS (borders))];
    f->regions.n = many ? (guint) rand_range (65, CUDACONV_MAX_REGIONS + 1) :
        (guint) rand_range (1, 13);
    for (guint k = 0; k < f->regions.n; k++) {
      f->regions.rects[k] = small ? small_rect (w, h) : random_rect (w, h);
      filter_make (&f->filters[k], rand_range (0, 6), rand_range (0, 4) == 0);
      if (shared)
        f->filter_list[k] = &f->filters[rand_range (0, 3)];
    }
    cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
        f->border);
    check_coverage (f, cov);
    if (f->plan.fields && GST_VIDEO_FORMAT_INFO_H_SUB (f->layout.
            work_info.finfo, 1) > 0)
      interlaced_chroma++;
  }
  /* the case the per-field rule is for came up often enough */
  g_assert_cmpuint (interlaced_chroma, >, rounds / 10);
  cudaconv_coverage_free (cov);
  g_free (f);
}

/* The writes of region k in part part of component comp: its piece's
 * bounds, or FALSE. */
static gboolean
piece_bounds (const CudaConvCoverage * cov, gint comp, guint part, guint k,
    GstVideoRectangle * bounds)
{
  guint n;
  const CudaConvPiece *pieces = cudaconv_coverage_pieces (cov, comp, part, &n);

  for (guint j = 0; j < n; j++)
    if (pieces[j].region == k) {
      *bounds = pieces[j].bounds;
      return TRUE;
    }
  return FALSE;
}

/* Interleaved I420, 8x8: each field's chroma is its own 4:2:0, so frame
 * rows 0-1 (a row of each field) reach chroma row 0 of the top field and
 * chroma row 1 of the bottom one. Read as progressive, rows 0-1 are chroma
 * row 0 only, and the bottom field's chroma of the region's row 1 stays
 * as it was. */
static void
test_interlaced_chroma (void)
{
  Frame *f = g_new0 (Frame, 1);
  CudaConvCoverage *cov = cudaconv_coverage_new ();
  GstVideoRectangle b = { 0, 0, 0, 0 };
  /* frame rows [y, y + h) and the chroma part rows each field writes,
   * from top_y and bottom_y (-1: none) */
  static const struct {
    gint y, h, top_y, top_h, bottom_y, bottom_h;
  } rows[] = {
    {0, 2, 0, 1, 0, 1}, {2, 2, 0, 1, 0, 1}, {4, 2, 1, 1, 1, 1},
    {1, 1, -1, 0, 0, 1}, {2, 1, 0, 1, -1, 0}, {3, 3, 1, 1, 0, 2},
    {0, 8, 0, 2, 0, 2}, {7, 1, -1, 0, 1, 1},
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    frame_make (f, GST_VIDEO_FORMAT_I420, 8, 8,
        GST_VIDEO_INTERLACE_MODE_INTERLEAVED, FALSE, 0xf, FALSE, NULL,
        CUDACONV_REGION_MODE_INSIDE);
    f->border = CC_BORDER_CLAMP;
    f->regions.n = 1;
    f->regions.rects[0] = (GstVideoRectangle) {
    2, rows[i].y, 4, rows[i].h};
    filter_make (&f->filters[0], 1, FALSE);
    cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
        f->border);
    check_coverage (f, cov);
    for (gint comp = 1; comp <= 2; comp++) {
      g_assert_true (piece_bounds (cov, comp, 0, 0, &b) ==
          (rows[i].top_y >= 0));
      if (rows[i].top_y >= 0) {
        g_assert_cmpint (b.y, ==, rows[i].top_y);
        g_assert_cmpint (b.h, ==, rows[i].top_h);
        g_assert_cmpint (b.x, ==, 1);
        g_assert_cmpint (b.w, ==, 2);
      }
      g_assert_true (piece_bounds (cov, comp, 1, 0, &b) ==
          (rows[i].bottom_y >= 0));
      if (rows[i].bottom_y >= 0) {
        g_assert_cmpint (b.y, ==, rows[i].bottom_y);
        g_assert_cmpint (b.h, ==, rows[i].bottom_h);
      }
    }
  }
  cudaconv_coverage_free (cov);
  g_free (f);
}

/* With luma (no subsampling) the per-field rule is the progressive one
 * read on the field's rows: ceil((y0 - first) / 2) to ceil((y1 - first) /
 * 2) of the part, as before the rule was written per field. */
static void
test_fields_unsubsampled (void)
{
  Frame *f = g_new0 (Frame, 1);
  CudaConvCoverage *cov = cudaconv_coverage_new ();

  for (gint y = 0; y < 12; y++)
    for (gint h = 1; y + h <= 12; h++)
      for (gint crop_y = 0; crop_y < 3; crop_y++) {
        const GstVideoRectangle crop = { 0, crop_y, 6, 12 - crop_y };

        frame_make (f, GST_VIDEO_FORMAT_I420, 6, 12,
            GST_VIDEO_INTERLACE_MODE_INTERLEAVED, FALSE, 0x1, FALSE, &crop,
            CUDACONV_REGION_MODE_INSIDE);
        f->border = CC_BORDER_CLAMP;
        f->regions.n = 1;
        f->regions.rects[0] = (GstVideoRectangle) {
        0, y, 6, h};
        filter_make (&f->filters[0], 0, FALSE);
        cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
            f->border);
        for (guint part = 0; part < 2; part++) {
          CudaConvPartGeometry g;
          GstVideoRectangle b = { 0, 0, 0, 0 };
          gint begin, end;

          g_assert_true (cudaconv_plan_part (&f->plan, 0, part, &g));
          /* the old rule: the first part row at or after y, clipped */
          begin = MAX (0, y - g.first <= 0 ? 0 : (y - g.first + 1) / 2);
          end = MIN (g.height, y + h - g.first <= 0 ? 0 :
              (y + h - g.first + 1) / 2);
          g_assert_true (piece_bounds (cov, 0, part, 0, &b) == (end > begin));
          if (end > begin) {
            g_assert_cmpint (b.y, ==, begin);
            g_assert_cmpint (b.h, ==, end - begin);
          }
        }
      }
  cudaconv_coverage_free (cov);
  g_free (f);
}

/* A copy holds what the original does, into a fresh coverage and over a
 * fuller one. */
static void
test_copy (void)
{
  Frame *f = g_new0 (Frame, 1);
  CudaConvCoverage *cov = cudaconv_coverage_new ();
  CudaConvCoverage *copy = cudaconv_coverage_new ();

  frame_make (f, GST_VIDEO_FORMAT_NV12, 64, 48,
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED, FALSE, 0xf, FALSE, NULL,
      CUDACONV_REGION_MODE_INSIDE);
  f->border = CC_BORDER_MIRROR;
  f->regions.n = 5;
  for (guint k = 0; k < f->regions.n; k++) {
    f->regions.rects[k] = (GstVideoRectangle) {
    3 + 10 * k, 2 + 7 * k, 9, 11};
    filter_make (&f->filters[k], k, k == 3);
  }
  cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
      f->border);
  /* Y, U and V, two fields each */
  g_assert_cmpuint (cov->n_pieces, ==, 5 * 3 * 2);
  cudaconv_coverage_copy (copy, cov);
  g_assert_cmpuint (cov->generation, >, 0);
  g_assert_cmpuint (copy->generation, ==, cov->generation);

  g_assert_cmpmem (copy, G_STRUCT_OFFSET (CudaConvCoverage, pieces), cov,
      G_STRUCT_OFFSET (CudaConvCoverage, pieces));
  g_assert_cmpmem (copy->pieces, cov->n_pieces * sizeof (CudaConvPiece),
      cov->pieces, cov->n_pieces * sizeof (CudaConvPiece));
  g_assert_cmpmem (copy->writes, cov->n_writes * sizeof (GstVideoRectangle),
      cov->writes, cov->n_writes * sizeof (GstVideoRectangle));
  g_assert_cmpmem (copy->boxes, cov->n_boxes * sizeof (CudaConvByteBox),
      cov->boxes, cov->n_boxes * sizeof (CudaConvByteBox));
  /* and reads back the same through the accessors */
  check_coverage (f, copy);

  /* a coverage with fewer entries copied over a fuller one; a coverage of
   * its own, the same regions, is of another generation */
  f->regions.n = 1;
  cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
      f->border);
  cudaconv_coverage_copy (copy, cov);
  check_coverage (f, copy);
  g_assert_cmpuint (copy->generation, ==, cov->generation);
  {
    CudaConvCoverage *other = cudaconv_coverage_new ();
    cudaconv_coverage_build (other, &f->plan, &f->regions, f->filter_list,
        f->border);
    g_assert_cmpuint (other->generation, !=, cov->generation);
    cudaconv_coverage_free (other);
  }
  cudaconv_coverage_free (copy);
  cudaconv_coverage_free (cov);
  g_free (f);
}

/* Built again where anything it was built from changed, at the same
 * addresses: the caps (the layout remade in place: another format of the
 * same size, a smaller size), the crop, a filter's radius and shape, the
 * border, a region; and kept where nothing did. */
static void
test_rebuilt (void)
{
  Frame *f = g_new0 (Frame, 1);
  CudaConvCoverage *cov = cudaconv_coverage_new ();
  const GstVideoRectangle crop = { 2, 2, 14, 10 };
  CudaConvPiece *pieces;
  guint64 generation = 0;

  for (guint step = 0; step < 8; step++) {
    /* I420, then YV12 (U and V in each other's planes), smaller, cropped,
     * a filter's radius, its shape, the border, a region */
    const gboolean small = step >= 2;
    frame_make (f, step >= 1 ? GST_VIDEO_FORMAT_YV12 : GST_VIDEO_FORMAT_I420,
        small ? 20 : 40, small ? 16 : 30,
        GST_VIDEO_INTERLACE_MODE_PROGRESSIVE, FALSE, 0xf, FALSE,
        step >= 3 ? &crop : NULL, CUDACONV_REGION_MODE_INSIDE);
    f->border = step >= 6 ? CC_BORDER_WRAP : CC_BORDER_CLAMP;
    f->regions.n = 2;
    f->regions.rects[0] = (GstVideoRectangle) {
    3, 4, 9, 7};
    f->regions.rects[1] = (GstVideoRectangle) {
    step >= 7 ? 10 : 12, 8, 6, 5};
    filter_make (&f->filters[0], step >= 4 ? 4 : 2, step >= 5);
    filter_make (&f->filters[1], 1, FALSE);
    cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
        f->border);
    check_coverage (f, cov);
    /* each build a generation of its own */
    g_assert_cmpuint (cov->generation, >, generation);
    generation = cov->generation;
  }
  /* nothing changed: the same pieces, not built again, of the same
   * generation */
  pieces = cov->pieces;
  cov->pieces[0].window.w = -1;
  cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
      f->border);
  g_assert_true (cov->pieces == pieces);
  g_assert_cmpint (cov->pieces[0].window.w, ==, -1);
  g_assert_cmpuint (cov->generation, ==, generation);
  cudaconv_coverage_free (cov);
  g_free (f);
}

/* ---- the pieces routine ---- */

/* A back end in memory that records what the routine asks of it. The
 * "filter" is 255 - sample, which tells a filtered sample from a copied
 * one and reads nothing around it. */
typedef struct {
  guint8 *scratch;
  gsize scratch_size;
  guint convolves, wholes, fills, copies, batches, copy_batches;
  gboolean copied_before_filter;
  const CcFilter *filters_seen[64];
  gsize align;
} Recorder;

static gboolean
rec_convolve (gpointer ctx, gint comp, const CcComponent * src,
    const CcComponent * dst, const CcFilter * filter, gboolean whole,
    GError ** error)
{
  Recorder *rec = ctx;

  if (rec->copies)
    rec->copied_before_filter = TRUE;
  if (whole)
    rec->wholes++;
  else {
    /* a window in the scratch: rows on the routine's alignment */
    const gsize at = (guint8 *) dst->data - rec->scratch;
    g_assert_true ((guint8 *) dst->data >= rec->scratch);
    g_assert_cmpuint (at % rec->align, ==, 0);
    g_assert_cmpuint (dst->pitch % rec->align, ==, 0);
    g_assert_cmpuint (at + (dst->height - 1) * dst->pitch + dst->width, <=,
        rec->scratch_size);
  }
  rec->filters_seen[rec->convolves++] = filter;
  for (gint y = 0; y < src->height; y++)
    for (gint x = 0; x < src->width; x++)
      ((guint8 *) dst->data)[y * dst->pitch + x * dst->pixel_stride] =
          255 - ((guint8 *) src->data)[y * src->pitch + x * src->pixel_stride];
  return TRUE;
}

/* the windows at once, as the CPU back end takes them */
static gboolean
rec_convolve_windows (gpointer ctx, gint comp, guint n,
    const CcComponent * from, const CcComponent * to,
    const CcFilter * const *filters, GError ** error)
{
  ((Recorder *) ctx)->batches++;
  for (guint k = 0; k < n; k++)
    if (!rec_convolve (ctx, comp, &from[k], &to[k], filters[k], FALSE, error))
      return FALSE;
  return TRUE;
}

static gboolean
rec_fill (gpointer ctx, const CcComponent * dst, guint value, GError ** error)
{
  ((Recorder *) ctx)->fills++;
  for (gint y = 0; y < dst->height; y++)
    for (gint x = 0; x < dst->width; x++)
      ((guint8 *) dst->data)[y * dst->pitch + x * dst->pixel_stride] = value;
  return TRUE;
}

/* a part's rects at once, as the routine hands them */
static gboolean
rec_copy (gpointer ctx, guint n, const CcComponent * from,
    const CcComponent * to, GError ** error)
{
  ((Recorder *) ctx)->copy_batches++;
  for (guint k = 0; k < n; k++) {
    const CcComponent *src = &from[k], *dst = &to[k];

    ((Recorder *) ctx)->copies++;
    g_assert_cmpint (src->width, ==, dst->width);
    g_assert_cmpint (src->height, ==, dst->height);
    for (gint y = 0; y < src->height; y++)
      for (gint x = 0; x < src->width; x++)
        ((guint8 *) dst->data)[y * dst->pitch + x * dst->pixel_stride] =
            ((guint8 *) src->data)[y * src->pitch + x * src->pixel_stride];
  }
  return TRUE;
}

static gpointer
rec_scratch (gpointer ctx, gsize bytes, GError ** error)
{
  Recorder *rec = ctx;

  g_free (rec->scratch);
  rec->scratch = g_malloc (bytes);
  rec->scratch_size = bytes;
  return rec->scratch;
}

/* One GRAY8 part, 40x30, three regions of their own filters; inside and
 * outside, filtered and filled, in place and not: what is written, and in
 * which order. */
static void
test_pieces (void)
{
  Frame *f = g_new0 (Frame, 1);
  CudaConvCoverage *cov = cudaconv_coverage_new ();
  const gint w = 40, h = 30;
  guint8 *in = g_malloc (w * h), *out = g_malloc (w * h);
  CcFilter whole_filter;
  const GstVideoRectangle boxes[] = { {2, 3, 7, 5}, {30, 20, 10, 10},
  {5, 5, 8, 8}
  };

  filter_make (&whole_filter, 2, FALSE);
  for (gint i = 0; i < w * h; i++)
    in[i] = (guint8) (i * 7 + 3);
  /* inside: filtered, filled, in place, windows packed tight, the
   * windows in one call (in place and not); outside: filtered, filled */
  static const struct {
    gboolean outside, fill, in_place;
    gsize align;
    gboolean batched;
  } variants[] = {
    {FALSE, FALSE, FALSE, 16, FALSE}, {FALSE, TRUE, FALSE, 16, FALSE},
    {FALSE, FALSE, TRUE, 16, FALSE}, {FALSE, FALSE, FALSE, 1, FALSE},
    {FALSE, FALSE, FALSE, 1, TRUE}, {FALSE, FALSE, TRUE, 16, TRUE},
    {TRUE, FALSE, FALSE, 16, FALSE}, {TRUE, TRUE, FALSE, 16, FALSE},
    {TRUE, FALSE, FALSE, 16, TRUE},
  };

  for (guint v = 0; v < G_N_ELEMENTS (variants); v++) {
    const gboolean outside = variants[v].outside;
    const gboolean fill = variants[v].fill;
    const gboolean in_place = variants[v].in_place;
    static const CudaConvPieceOps base = { rec_convolve, rec_fill, rec_copy,
      rec_scratch, 16, NULL
    };
    CudaConvPieceOps ops = base;
    Recorder rec = { 0 };
    CudaConvJob job = { 0 };
    CcComponent s[CUDACONV_MAX_PARTS], d[CUDACONV_MAX_PARTS];
    guint8 *dst = in_place ? in : out;
    guint8 *orig = g_memdup2 (in, w * h);

    frame_make (f, GST_VIDEO_FORMAT_GRAY8, w, h,
        GST_VIDEO_INTERLACE_MODE_PROGRESSIVE, FALSE, 0xf, FALSE, NULL,
        outside ? CUDACONV_REGION_MODE_OUTSIDE : CUDACONV_REGION_MODE_INSIDE);
    if (fill) {
      f->plan.action[0] = CUDACONV_ACTION_FILL;
      f->plan.fill_value[0] = 128;
    }
    f->border = CC_BORDER_CLAMP;
    f->regions.n = G_N_ELEMENTS (boxes);
    for (guint k = 0; k < f->regions.n; k++) {
      f->regions.rects[k] = boxes[k];
      filter_make (&f->filters[k], k + 1, FALSE);
    }
    cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
        f->border);
    rec.align = ops.row_align = variants[v].align;
    if (variants[v].batched)
      ops.convolve_windows = rec_convolve_windows;
    job.filter = &whole_filter;
    job.border = f->border;
    job.plan = &f->plan;
    job.coverage = cov;
    job.region_filters = f->filter_list;
    job.in_place = in_place;
    if (!in_place)
      memcpy (out, in, w * h);  /* the plane's copy first */
    g_assert_cmpuint (cudaconv_plan_parts (&f->plan, 0, in, w, s), ==, 1);
    cudaconv_plan_parts (&f->plan, 0, dst, w, d);
    g_assert_true (cudaconv_pieces_run (&ops, &rec, &job, 0, 0, &s[0], &d[0],
            NULL));

    g_assert_false (rec.copied_before_filter);
    /* a part's rects are copied in one call */
    g_assert_cmpuint (rec.copy_batches, ==, rec.copies > 0 ? 1 : 0);
    if (outside) {
      g_assert_cmpuint (rec.wholes, ==, fill ? 0 : 1);
      g_assert_cmpuint (rec.convolves, ==, fill ? 0 : 1);
      g_assert_cmpuint (rec.fills, ==, fill ? 1 : 0);
      g_assert_cmpuint (rec.copies, ==, f->regions.n);
      if (!fill)
        g_assert_true (rec.filters_seen[0] == &whole_filter);
    } else if (fill) {
      g_assert_cmpuint (rec.fills, ==, f->regions.n);
      g_assert_cmpuint (rec.convolves + rec.copies, ==, 0);
    } else {
      g_assert_cmpuint (rec.wholes, ==, 0);
      g_assert_cmpuint (rec.convolves, ==, f->regions.n);
      g_assert_cmpuint (rec.batches, ==, variants[v].batched ? 1 : 0);
      g_assert_cmpuint (rec.copies, ==, f->regions.n);
      for (guint k = 0; k < f->regions.n; k++)
        g_assert_true (rec.filters_seen[k] == &f->filters[k]);
    }
    /* every sample: filtered (or filled) where the mode says, else the
     * input's; the overlapping regions read the input, in place too */
    for (gint y = 0; y < h; y++)
      for (gint x = 0; x < w; x++) {
        gboolean in_region = FALSE;
        guint want;
        for (guint k = 0; k < f->regions.n; k++)
          in_region |= x >= boxes[k].x && x < boxes[k].x + boxes[k].w
              && y >= boxes[k].y && y < boxes[k].y + boxes[k].h;
        if (in_region != outside)
          want = fill ? 128 : 255 - orig[y * w + x];
        else
          want = orig[y * w + x];
        g_assert_cmpuint (dst[y * w + x], ==, want);
      }
    if (in_place)
      memcpy (in, orig, w * h);
    g_free (orig);
    g_free (rec.scratch);
  }
  g_free (in);
  g_free (out);
  cudaconv_coverage_free (cov);
  g_free (f);
}

/* ---- the CPU back end with region=outside ---- */

/* A 16-bit frame whose samples carry bits no value of its depth has
 * (I420_10LE above bit 9, P010 below bit 6), filtered outside one region:
 * the region's samples leave bit for bit as they came. */
static void
check_outside_raw (GstVideoFormat format, guint16 sample,
    CudaConvRegionMode mode)
{
  const gint w = 32, h = 16;
  const GstVideoRectangle region = { 8, 4, 10, 6 };
  Frame *f = g_new0 (Frame, 1);
  CudaConvCoverage *cov = cudaconv_coverage_new ();
  CudaConvBackend *cpu = cudaconv_cpu_backend_new (2);
  CudaConvStreamConfig config = { 0 };
  CudaConvJob job = { 0 };
  GstVideoInfo info;
  GstBuffer *inbuf, *outbuf, *finished = NULL;
  GstVideoFrame in, out;
  CcFilter box;
  GError *error = NULL;

  frame_make (f, format, w, h, GST_VIDEO_INTERLACE_MODE_PROGRESSIVE, FALSE,
      0xf, FALSE, NULL, mode);
  f->border = CC_BORDER_CLAMP;
  f->regions.n = 1;
  f->regions.rects[0] = region;
  filter_make (&f->filters[0], 1, FALSE);
  /* the box blur 3x3, taps summing to 1 */
  filter_make (&box, 1, FALSE);
  for (gint i = 0; i < 9; i++)
    box.taps[i] = 1.0f / 9;
  f->filters[0] = box;
  cudaconv_coverage_build (cov, &f->plan, &f->regions, f->filter_list,
      f->border);

  info = f->layout.work_info;
  config.layout = &f->layout;
  config.max_in_flight = 1;
  g_assert_true (cpu->ops->configure (cpu, &config, &error));
  g_assert_no_error (error);
  inbuf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  outbuf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  g_assert_true (gst_video_frame_map (&in, &info, inbuf, GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&out, &info, outbuf, GST_MAP_WRITE));
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
    for (gint y = 0; y < f->layout.planes[p].rows; y++) {
      guint16 *row = (guint16 *) ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&in,
              p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&in, p));
      for (gsize x = 0; x < f->layout.planes[p].row_bytes / 2; x++)
        row[x] = sample + (guint16) (x + y) * 4;
    }
  job.filter = &box;
  job.border = f->border;
  job.plan = &f->plan;
  job.coverage = cov;
  job.region_filters = f->filter_list;
  g_assert_true (cudaconv_backend_submit (cpu, &job, &in, &out, &finished,
          NULL, &error));
  g_assert_no_error (error);
  g_assert_true (finished == outbuf);

  g_assert_true (gst_video_frame_map (&in, &info, inbuf, GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&out, &info, outbuf, GST_MAP_READ));
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    const guint p = GST_VIDEO_INFO_COMP_PLANE (&info, c);
    CcComponent s = cudaconv_layout_component (&f->layout, c,
        GST_VIDEO_FRAME_PLANE_DATA (&in, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (&in, p));
    CcComponent d = cudaconv_layout_component (&f->layout, c,
        GST_VIDEO_FRAME_PLANE_DATA (&out, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (&out, p));
    guint n, kept = 0;
    const CudaConvPiece *piece = cudaconv_coverage_pieces (cov, c, 0, &n);
    const GstVideoRectangle *rect;

    g_assert_cmpuint (n, ==, 1);
    rect = &cov->writes[piece->first_write];
    for (gint y = 0; y < s.height; y++)
      for (gint x = 0; x < s.width; x++) {
        const gsize at_s = y * s.pitch + x * s.pixel_stride * 2;
        const gsize at_d = y * d.pitch + x * d.pixel_stride * 2;
        const guint16 a = *(guint16 *) ((guint8 *) s.data + at_s);
        const guint16 b = *(guint16 *) ((guint8 *) d.data + at_d);
        const gboolean inside = x >= rect->x && x < rect->x + rect->w
            && y >= rect->y && y < rect->y + rect->h;
        /* what the mode leaves unfiltered is the input's, bit for bit */
        if (inside == (mode == CUDACONV_REGION_MODE_OUTSIDE)) {
          g_assert_cmphex (b, ==, a);
          kept++;
        } else {
          /* filtered: the padding is clear and the value in range */
          g_assert_cmphex (b & ~cc_component_kept_bits (&d), ==, 0);
          g_assert_cmphex (b, <=, cc_component_max_raw (&d));
        }
      }
    g_assert_cmpuint (kept, >, 0);
  }
  gst_video_frame_unmap (&in);
  gst_video_frame_unmap (&out);
  gst_buffer_unref (finished);
  gst_buffer_unref (inbuf);
  gst_buffer_unref (outbuf);
  cudaconv_backend_close (cpu);
  cudaconv_coverage_free (cov);
  g_free (f);
}

static void
test_cpu_outside_raw (void)
{
  /* bits above the 10 of I420_10LE */
  check_outside_raw (GST_VIDEO_FORMAT_I420_10LE, 0xa32e,
      CUDACONV_REGION_MODE_OUTSIDE);
  /* P010's padding bits below its 10 */
  check_outside_raw (GST_VIDEO_FORMAT_P010_10LE, 0x1235,
      CUDACONV_REGION_MODE_OUTSIDE);
  check_outside_raw (GST_VIDEO_FORMAT_GRAY16_LE, 0xfffe,
      CUDACONV_REGION_MODE_OUTSIDE);
  /* inside, what is outside the region is the plane's copy */
  check_outside_raw (GST_VIDEO_FORMAT_P010_10LE, 0x1235,
      CUDACONV_REGION_MODE_INSIDE);
}

/* A frame of info in a buffer of its own, every byte set to fill */
static GstBuffer *
filled_frame (const GstVideoInfo * info, GstVideoFrame * frame, guint8 fill)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);

  gst_buffer_memset (buf, 0, fill, info->size);
  g_assert_true (gst_video_frame_map (frame, info, buf, GST_MAP_READWRITE));
  return buf;
}

/* cudaconv_layout_copy_planes, in 1 to 7 bands, for every set of planes
 * of formats of odd sizes, the output's rows longer than the input's:
 * the planes named hold the input's pixel rows, and every other byte of
 * the output (other planes, the rows' padding) is left as it was. */
static void
test_copy_planes (void)
{
  static const struct {
    GstVideoFormat format;
    gint w, h;
  } cases[] = {
    {GST_VIDEO_FORMAT_I420, 33, 17}, {GST_VIDEO_FORMAT_NV12, 37, 21},
    {GST_VIDEO_FORMAT_YUY2, 35, 9}, {GST_VIDEO_FORMAT_RGB, 29, 13},
    {GST_VIDEO_FORMAT_P010_10LE, 31, 11}, {GST_VIDEO_FORMAT_A420, 7, 5},
    {GST_VIDEO_FORMAT_v210, 13, 3}, {GST_VIDEO_FORMAT_GRAY8, 1, 1},
  };
  static const gint threads[] = { 1, 2, 3, 7 };
  GRand *rand = g_rand_new_with_seed (11);

  cc_cpu_pool_size_by_work (0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstVideoInfo info, wide;
    GstVideoAlignment align;
    CudaConvLayout layout;
    GstVideoFrame in, out;
    GstBuffer *inbuf, *outbuf;
    guint8 *bytes;

    gst_video_info_set_format (&info, cases[i].format, cases[i].w,
        cases[i].h);
    cudaconv_layout_make (&layout, &info);
    /* frames of the format the planes are copied in */
    info = layout.work_info;
    wide = info;
    gst_video_alignment_reset (&align);
    align.padding_right = 9;
    g_assert_true (gst_video_info_align (&wide, &align));
    bytes = g_malloc (info.size);
    for (gsize b = 0; b < info.size; b++)
      bytes[b] = (guint8) g_rand_int (rand);
    inbuf = gst_buffer_new_wrapped (bytes, info.size);
    g_assert_true (gst_video_frame_map (&in, &info, inbuf, GST_MAP_READ));
    for (guint planes = 0; planes < 1u << layout.n_planes; planes++) {
      for (guint t = 0; t < G_N_ELEMENTS (threads); t++) {
        outbuf = filled_frame (&wide, &out, 0xa5);
        cudaconv_layout_copy_planes (&layout, planes, &out, &in, threads[t]);
        for (guint p = 0; p < layout.n_planes; p++) {
          const CudaConvPlaneLayout *pl = &layout.planes[p];
          const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&out, p);
          for (gint y = 0; y < pl->rows; y++) {
            const guint8 *o = (const guint8 *)
                GST_VIDEO_FRAME_PLANE_DATA (&out, p) + (gsize) y * stride;
            const guint8 *s = (const guint8 *)
                GST_VIDEO_FRAME_PLANE_DATA (&in, p) +
                (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&in, p);
            for (gint x = 0; x < stride; x++) {
              const gboolean copied = planes & (1u << p)
                  && x < (gint) pl->row_bytes;
              if (o[x] != (copied ? s[x] : 0xa5))
                g_error ("%s %dx%d, planes 0x%x, %d threads: plane %u, row "
                    "%d, byte %d is %u", GST_VIDEO_INFO_NAME (&info),
                    cases[i].w, cases[i].h, planes, threads[t], p, y, x,
                    o[x]);
            }
          }
        }
        gst_video_frame_unmap (&out);
        gst_buffer_unref (outbuf);
      }
    }
    gst_video_frame_unmap (&in);
    gst_buffer_unref (inbuf);
  }
  cc_cpu_pool_size_by_work (1);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/coverage/random", test_random);
  g_test_add_func ("/coverage/interlaced-chroma", test_interlaced_chroma);
  g_test_add_func ("/coverage/fields-unsubsampled", test_fields_unsubsampled);
  g_test_add_func ("/coverage/copy", test_copy);
  g_test_add_func ("/coverage/rebuilt", test_rebuilt);
  g_test_add_func ("/coverage/pieces", test_pieces);
  g_test_add_func ("/coverage/cpu-outside-raw", test_cpu_outside_raw);
  g_test_add_func ("/coverage/copy-planes", test_copy_planes);
  return g_test_run ();
}

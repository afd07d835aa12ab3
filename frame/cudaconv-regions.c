/* cudaconv: the regions of a frame, from metas and fixed boxes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudaconv-regions.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

/* A region held from an earlier frame: the frame it was last reported in */
typedef struct {
  CudaConvRegion rect;
  guint64 seen;
} HeldRegion;

struct _CudaConvRegionHistory {
  /* each distinct rect once, in the order first reported */
  GArray *held;                 /* HeldRegion */
  /* an open-addressing index of held by rect, remade every frame: an
   * entry's position + 1, 0 where empty; index_size this frame's power
   * of 2, at most index_room, the entries allocated */
  guint *index;
  guint index_size, index_room;
  guint64 frame;                /* frames collected since cleared */
  guint hold;
};

gboolean
cudaconv_regions_have_analytics (void)
{
#ifdef HAVE_GST_ANALYTICS
  return TRUE;
#else
  return FALSE;
#endif
}

static gboolean
parse_int (const gchar * s, gint * value)
{
  gchar *end;
  gint64 v;

  s += strspn (s, " \t");
  if (*s == '\0')
    return FALSE;
  v = g_ascii_strtoll (s, &end, 10);
  end += strspn (end, " \t");
  if (*end != '\0' || end == s || v < -CUDACONV_MAX_REGION_COORD
      || v > CUDACONV_MAX_REGION_COORD)
    return FALSE;
  *value = (gint) v;
  return TRUE;
}

gboolean
cudaconv_regions_parse_boxes (const gchar * text, GBytes ** parsed,
    GError ** error)
{
  CudaConvRegion *boxes;
  gchar **parts;
  guint n = 0;
  gboolean ok = TRUE;

  *parsed = NULL;
  if (!text || text[strspn (text, " \t;")] == '\0')
    return TRUE;
  boxes = g_new (CudaConvRegion, CUDACONV_MAX_FIXED_BOXES);
  parts = g_strsplit (text, ";", -1);
  for (guint k = 0; ok && parts[k]; k++) {
    gchar **v;
    gint x[4];

    if (parts[k][strspn (parts[k], " \t")] == '\0')
      continue;                 /* "1,2,3,4;" */
    if (n == CUDACONV_MAX_FIXED_BOXES) {
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
          "more than %d boxes", CUDACONV_MAX_FIXED_BOXES);
      ok = FALSE;
      break;
    }
    v = g_strsplit (parts[k], ",", -1);
    ok = g_strv_length (v) == 4;
    for (guint i = 0; ok && i < 4; i++)
      ok = parse_int (v[i], &x[i]);
    if (!ok)
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
          "box %u, \"%s\", is not x,y,width,height in integer pixels "
          "(at most %d)", n + 1, parts[k], CUDACONV_MAX_REGION_COORD);
    g_strfreev (v);
    if (ok) {
      boxes[n].x = x[0];
      boxes[n].y = x[1];
      boxes[n].w = x[2];
      boxes[n].h = x[3];
      n++;
    }
  }
  g_strfreev (parts);
  if (ok && n > 0)
    *parsed = g_bytes_new (boxes, n * sizeof (CudaConvRegion));
  g_free (boxes);
  return ok;
}

const CudaConvRegion *
cudaconv_regions_fixed_boxes (const CudaConvRegionRules * rules, guint * n)
{
  gsize size = 0;
  const CudaConvRegion *boxes = rules->boxes ?
      g_bytes_get_data (rules->boxes, &size) : NULL;

  *n = size / sizeof (CudaConvRegion);
  return boxes;
}

gboolean
cudaconv_regions_parse_types (const gchar * text, GQuark types[16],
    guint * n_types, GError ** error)
{
  gchar **names;
  guint n = 0;

  *n_types = 0;
  if (!text)
    return TRUE;
  names = g_strsplit (text, ",", -1);
  for (guint k = 0; names[k]; k++) {
    gchar *name = g_strstrip (names[k]);
    if (*name == '\0')
      continue;
    if (n == 16) {
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
          "more than 16 types");
      g_strfreev (names);
      return FALSE;
    }
    types[n++] = g_quark_from_string (name);
  }
  g_strfreev (names);
  *n_types = n;
  return TRUE;
}

static guint
rect_hash (const CudaConvRegion * r)
{
  return ((guint) r->x * 2654435761u) ^ ((guint) r->y * 40503u)
      ^ ((guint) r->w << 16) ^ (guint) r->h;
}

static gboolean
rect_equal (const CudaConvRegion * r, const CudaConvRegion * s)
{
  return r->x == s->x && r->y == s->y && r->w == s->w && r->h == s->h;
}

CudaConvRegionHistory *
cudaconv_region_history_new (void)
{
  CudaConvRegionHistory *history = g_new0 (CudaConvRegionHistory, 1);

  history->held = g_array_new (FALSE, FALSE, sizeof (HeldRegion));
  return history;
}

void
cudaconv_region_history_clear (CudaConvRegionHistory * history)
{
  g_array_set_size (history->held, 0);
  history->frame = 0;
  history->hold = 0;
}

void
cudaconv_region_history_free (CudaConvRegionHistory * history)
{
  if (!history)
    return;
  g_array_unref (history->held);
  g_free (history->index);
  g_free (history);
}

static gboolean
wanted (const CudaConvRegionRules * rules, GQuark type)
{
  if (rules->n_types == 0)
    return TRUE;
  for (guint k = 0; k < rules->n_types; k++)
    if (rules->types[k] == type)
      return TRUE;
  return FALSE;
}

/* Adds the box grown by the margin and clipped to the frame; FALSE for a
 * bad one. 64-bit sums: no box can overflow them. */
static gboolean
add_box (GArray * to, gint64 x, gint64 y, gint64 w, gint64 h, gdouble margin,
    gint width, gint height)
{
  gint64 mx, my, x0, y0, x1, y1;
  CudaConvRegion r;

  if (w <= 0 || h <= 0 || llabs (x) > CUDACONV_MAX_REGION_COORD
      || llabs (y) > CUDACONV_MAX_REGION_COORD
      || w > CUDACONV_MAX_REGION_COORD || h > CUDACONV_MAX_REGION_COORD)
    return FALSE;
  /* no margin, the usual case, costs a crowd no rounding */
  mx = margin > 0.0 ? (gint64) ceil (margin * (gdouble) w) : 0;
  my = margin > 0.0 ? (gint64) ceil (margin * (gdouble) h) : 0;
  x0 = MAX (x - mx, 0);
  y0 = MAX (y - my, 0);
  x1 = MIN (x + w + mx, (gint64) width);
  y1 = MIN (y + h + my, (gint64) height);
  if (x1 <= x0 || y1 <= y0)
    return FALSE;               /* all of it outside the frame */
  r.x = (gint) x0;
  r.y = (gint) y0;
  r.w = (gint) (x1 - x0);
  r.h = (gint) (y1 - y0);
  g_array_append_val (to, r);
  return TRUE;
}

static void
reported_boxes (const CudaConvRegionRules * rules, GstBuffer * buffer,
    gint width, gint height, GArray * to, guint * n_bad)
{
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    if (wanted (rules, roi->roi_type)
        && !add_box (to, roi->x, roi->y, roi->w, roi->h, rules->margin,
            width, height))
      (*n_bad)++;
  }
#ifdef HAVE_GST_ANALYTICS
  state = NULL;
  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_ANALYTICS_RELATION_META_API_TYPE))) {
    GstAnalyticsRelationMeta *relations = (GstAnalyticsRelationMeta *) meta;
    GstAnalyticsODMtd od;
    gpointer od_state = NULL;

    while (gst_analytics_relation_meta_iterate (relations, &od_state,
            gst_analytics_od_mtd_get_mtd_type (), &od)) {
      gint x, y, w, h;
      gfloat confidence;
      if (!gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &h,
              &confidence)) {
        (*n_bad)++;
        continue;
      }
      if (wanted (rules, gst_analytics_od_mtd_get_obj_type (&od))
          && !add_box (to, x, y, w, h, rules->margin, width, height))
        (*n_bad)++;
    }
  }
#endif
}

/* The edge of the merge grid's cells before cell c on an axis of size
 * samples: cell c holds [cell_edge (c), cell_edge (c + 1)), so that the
 * cell of sample x is x * CUDACONV_MERGE_GRID / size, rounded down. */
static gint
cell_edge (gint c, gint size)
{
  return (gint) (((gint64) c * size + CUDACONV_MERGE_GRID - 1) /
      CUDACONV_MERGE_GRID);
}

static gint
cell_of (gint x, gint size)
{
  return (gint) ((gint64) x * CUDACONV_MERGE_GRID / size);
}

/* The cells [*x0, *x1) x [*y0, *y1) of the merge grid that r touches */
static void
touched_cells (const CudaConvRegion * r, gint width, gint height, gint * x0,
    gint * y0, gint * x1, gint * y1)
{
  *x0 = cell_of (r->x, width);
  *y0 = cell_of (r->y, height);
  *x1 = cell_of (r->x + r->w - 1, width) + 1;
  *y1 = cell_of (r->y + r->h - 1, height) + 1;
}

#define N_CELLS (CUDACONV_MERGE_GRID * CUDACONV_MERGE_GRID)

/* The cells of the merge grid whose mark is not 0, as rects into to (at
 * most N_CELLS / 2 of them), each with the largest mark of its cells in
 * marks_to where that is not NULL: each row of cells' runs of marked
 * cells, a run grown down while the row below has the same run. */
static guint
cells_to_rects (const guint64 * marks, gint width, gint height,
    CudaConvRegion * to, guint64 * marks_to)
{
  enum { G = CUDACONV_MERGE_GRID };
  /* the runs of the row of cells above, as cell spans, and their rects */
  gint above[G][2], below[G][2];
  guint above_rect[G], below_rect[G], n_above = 0, n = 0;

  for (gint y = 0; y < G; y++) {
    guint n_below = 0, a = 0;
    /* a frame less than G rows tall has rows of cells with none */
    if (cell_edge (y + 1, height) == cell_edge (y, height))
      continue;
    for (gint x = 0; x < G;) {
      guint64 most = 0;
      gint e = x;
      if (marks[y * G + x] == 0) {
        x++;
        continue;
      }
      for (; e < G && marks[y * G + e] != 0; e++)
        most = MAX (most, marks[y * G + e]);
      below[n_below][0] = x;
      below[n_below][1] = e;
      while (a < n_above && above[a][0] < x)
        a++;
      if (a < n_above && above[a][0] == x && above[a][1] == e) {
        below_rect[n_below] = above_rect[a];
        to[above_rect[a]].h = cell_edge (y + 1, height) - to[above_rect[a]].y;
      } else {
        to[n].x = cell_edge (x, width);
        to[n].y = cell_edge (y, height);
        to[n].w = cell_edge (e, width) - to[n].x;
        to[n].h = cell_edge (y + 1, height) - to[n].y;
        if (marks_to)
          marks_to[n] = 0;
        below_rect[n_below] = n++;
      }
      if (marks_to)
        marks_to[below_rect[n_below]] = MAX (marks_to[below_rect[n_below]],
            most);
      n_below++;
      x = e;
    }
    memcpy (above, below, n_below * sizeof (above[0]));
    memcpy (above_rect, below_rect, n_below * sizeof (above_rect[0]));
    n_above = n_below;
  }
  return n;
}

/* The regions past CUDACONV_MAX_REGIONS: every cell of the merge grid
 * that any of them touches, as rects. A region is counted on its cells'
 * corners and the counts summed over the grid, so the cost follows the
 * count of regions and not their sizes. */
static void
merge_on_grid (GArray * all, gint width, gint height)
{
  enum { G = CUDACONV_MERGE_GRID };
  gint counts[(G + 1) * (G + 1)] = { 0 };
  guint64 marks[N_CELLS];
  const CudaConvRegion *r = (const CudaConvRegion *) all->data;

  for (guint k = 0; k < all->len; k++) {
    gint x0, y0, x1, y1;
    touched_cells (&r[k], width, height, &x0, &y0, &x1, &y1);
    counts[y0 * (G + 1) + x0]++;
    counts[y0 * (G + 1) + x1]--;
    counts[y1 * (G + 1) + x0]--;
    counts[y1 * (G + 1) + x1]++;
  }
  for (gint y = 0; y < G; y++)
    for (gint x = 0; x < G; x++) {
      counts[y * (G + 1) + x] += (x ? counts[y * (G + 1) + x - 1] : 0)
          + (y ? counts[(y - 1) * (G + 1) + x] : 0)
          - (x && y ? counts[(y - 1) * (G + 1) + x - 1] : 0);
      marks[y * G + x] = counts[y * (G + 1) + x] > 0;
    }
  /* the rects, at most N_CELLS / 2, are fewer than the regions already
   * read (more than CUDACONV_MAX_REGIONS): they go over them */
  g_array_set_size (all, cells_to_rects (marks, width, height,
          (CudaConvRegion *) all->data, NULL));
}

/* Past CUDACONV_MAX_HELD_REGIONS, the held regions merged on the grid:
 * the cells they touch, as rects, each seen when the newest region in its
 * cells was. Each region marks its cells: the cost follows their area,
 * at most the grid's cells a region. */
static void
held_merge (CudaConvRegionHistory * history, gint width, gint height)
{
  guint64 marks[N_CELLS] = { 0 }, seen[N_CELLS / 2];
  CudaConvRegion rects[N_CELLS / 2];
  const HeldRegion *held = (const HeldRegion *) history->held->data;
  guint n;

  for (guint k = 0; k < history->held->len; k++) {
    gint x0, y0, x1, y1;
    touched_cells (&held[k].rect, width, height, &x0, &y0, &x1, &y1);
    for (gint y = y0; y < y1; y++)
      for (gint x = x0; x < x1; x++)
        marks[y * CUDACONV_MERGE_GRID + x] =
            MAX (marks[y * CUDACONV_MERGE_GRID + x], held[k].seen);
  }
  n = cells_to_rects (marks, width, height, rects, seen);
  g_array_set_size (history->held, n);
  for (guint k = 0; k < n; k++) {
    HeldRegion *h = &g_array_index (history->held, HeldRegion, k);
    h->rect = rects[k];
    h->seen = seen[k];
  }
}

/* The slot of the index where rect r is, or the empty one where it would
 * go */
static guint
index_slot (const CudaConvRegionHistory * history, const CudaConvRegion * r)
{
  const HeldRegion *held = (const HeldRegion *) history->held->data;
  const guint mask = history->index_size - 1;
  guint j = rect_hash (r) & mask;

  while (history->index[j] != 0
      && !rect_equal (&held[history->index[j] - 1].rect, r))
    j = (j + 1) & mask;
  return j;
}

/* This frame's reports into the history, each rect once; then every
 * region reported in the last frames hold (this one included) into all.
 * The history is an array, its index remade each frame over what is left
 * of it: no allocation a region, and a cost that follows the count. */
static void
hold (CudaConvRegionHistory * history, guint frames, GArray * reported,
    GArray * all, gint width, gint height)
{
  HeldRegion *held;
  guint64 oldest;
  guint kept = 0, size = 16;

  if (frames != history->hold) {
    cudaconv_region_history_clear (history);
    history->hold = frames;
  }
  history->frame++;
  if (frames == 0) {
    g_array_append_vals (all, reported->data, reported->len);
    return;
  }
  oldest = history->frame > frames ? history->frame - frames : 0;
  held = (HeldRegion *) history->held->data;
  for (guint k = 0; k < history->held->len; k++)
    if (held[k].seen >= oldest)
      held[kept++] = held[k];
  g_array_set_size (history->held, kept);
  /* at most half full once this frame's reports are in */
  while (size < 2 * (kept + reported->len))
    size *= 2;
  if (size > history->index_room) {
    g_free (history->index);
    history->index = g_new (guint, size);
    history->index_room = size;
  }
  /* a few regions after a crowd clear a few entries, not the crowd's */
  history->index_size = size;
  memset (history->index, 0, size * sizeof (guint));
  for (guint k = 0; k < kept; k++)
    history->index[index_slot (history, &held[k].rect)] = k + 1;
  for (guint k = 0; k < reported->len; k++) {
    const CudaConvRegion *r = &g_array_index (reported, CudaConvRegion, k);
    const guint j = index_slot (history, r);

    if (history->index[j] == 0) {
      const HeldRegion h = { *r, 0 };
      g_array_append_val (history->held, h);
      history->index[j] = history->held->len;
    }
    g_array_index (history->held, HeldRegion, history->index[j] - 1).seen =
        history->frame;
  }
  if (history->held->len > CUDACONV_MAX_HELD_REGIONS)
    held_merge (history, width, height);
  held = (HeldRegion *) history->held->data;
  for (guint k = 0; k < history->held->len; k++)
    g_array_append_val (all, held[k].rect);
}

void
cudaconv_regions_collect (const CudaConvRegionRules * rules,
    CudaConvRegionHistory * history, GstBuffer * buffer, gint width,
    gint height, CudaConvRegionSet * set, guint * n_bad, guint * n_merged)
{
  guint n_fixed;
  const CudaConvRegion *fixed = cudaconv_regions_fixed_boxes (rules,
      &n_fixed);
  GArray *reported = g_array_new (FALSE, FALSE, sizeof (CudaConvRegion));
  GArray *all;

  *n_bad = *n_merged = 0;
  set->n = 0;
  reported_boxes (rules, buffer, width, height, reported, n_bad);
  /* room for the reported and fixed boxes at once: a crowd's array does
   * not grow box by box */
  all = g_array_sized_new (FALSE, FALSE, sizeof (CudaConvRegion),
      reported->len + n_fixed);
  if (history)
    hold (history, MIN (rules->hold, CUDACONV_MAX_REGION_HOLD), reported,
        all, width, height);
  else
    g_array_append_vals (all, reported->data, reported->len);
  for (guint k = 0; k < n_fixed; k++) {
    const CudaConvRegion *b = &fixed[k];
    if (!add_box (all, b->x, b->y, b->w, b->h, rules->margin, width, height))
      (*n_bad)++;
  }
  if (all->len > CUDACONV_MAX_REGIONS) {
    *n_merged = all->len;
    merge_on_grid (all, width, height);
  }
  set->n = all->len;
  /* an empty GArray's data is NULL, which memcpy must not be given */
  if (all->len > 0)
    memcpy (set->rects, all->data, all->len * sizeof (CudaConvRegion));
  g_array_unref (reported);
  g_array_unref (all);
}

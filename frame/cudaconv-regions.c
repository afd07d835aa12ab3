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
  /* each distinct rect once (a set of HeldRegion, keyed by the rect) */
  GHashTable *held;
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
rect_hash (gconstpointer p)
{
  const CudaConvRegion *r = p;

  return ((guint) r->x * 2654435761u) ^ ((guint) r->y * 40503u)
      ^ ((guint) r->w << 16) ^ (guint) r->h;
}

static gboolean
rect_equal (gconstpointer a, gconstpointer b)
{
  const CudaConvRegion *r = a, *s = b;

  return r->x == s->x && r->y == s->y && r->w == s->w && r->h == s->h;
}

CudaConvRegionHistory *
cudaconv_region_history_new (void)
{
  CudaConvRegionHistory *history = g_new0 (CudaConvRegionHistory, 1);

  /* the rect is a HeldRegion's first member: the key is the entry */
  history->held = g_hash_table_new_full (rect_hash, rect_equal, g_free, NULL);
  return history;
}

void
cudaconv_region_history_clear (CudaConvRegionHistory * history)
{
  g_hash_table_remove_all (history->held);
  history->frame = 0;
  history->hold = 0;
}

void
cudaconv_region_history_free (CudaConvRegionHistory * history)
{
  if (!history)
    return;
  g_hash_table_unref (history->held);
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
  mx = (gint64) ceil (margin * (gdouble) w);
  my = (gint64) ceil (margin * (gdouble) h);
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

/* The cell of the merge grid that holds r's centre */
static guint
merge_cell (const CudaConvRegion * r, gint width, gint height)
{
  const gint64 cx = (gint64) r->x + r->w / 2, cy = (gint64) r->y + r->h / 2;
  const guint gx = (guint) MIN (cx * CUDACONV_MERGE_GRID / width,
      CUDACONV_MERGE_GRID - 1);
  const guint gy = (guint) MIN (cy * CUDACONV_MERGE_GRID / height,
      CUDACONV_MERGE_GRID - 1);

  return gy * CUDACONV_MERGE_GRID + gx;
}

/* Grows *into to hold r as well (into->w == 0: empty) */
static void
rect_join (CudaConvRegion * into, const CudaConvRegion * r)
{
  gint x1, y1;

  if (into->w == 0) {
    *into = *r;
    return;
  }
  x1 = MAX (into->x + into->w, r->x + r->w);
  y1 = MAX (into->y + into->h, r->y + r->h);
  into->x = MIN (into->x, r->x);
  into->y = MIN (into->y, r->y);
  into->w = x1 - into->x;
  into->h = y1 - into->y;
}

/* The regions past CUDACONV_MAX_REGIONS: those whose centres share a cell
 * of the merge grid become their bounding box, in the cells' order. */
static void
merge_on_grid (GArray * all, gint width, gint height)
{
  CudaConvRegion *cells = g_new0 (CudaConvRegion,
      CUDACONV_MERGE_GRID * CUDACONV_MERGE_GRID);
  const CudaConvRegion *r = (const CudaConvRegion *) all->data;
  guint kept = 0;

  for (guint k = 0; k < all->len; k++)
    rect_join (&cells[merge_cell (&r[k], width, height)], &r[k]);
  for (guint c = 0; c < CUDACONV_MERGE_GRID * CUDACONV_MERGE_GRID; c++)
    if (cells[c].w > 0)
      g_array_index (all, CudaConvRegion, kept++) = cells[c];
  g_array_set_size (all, kept);
  g_free (cells);
}

typedef struct {
  guint64 oldest;               /* seen before it: expired */
  GArray *to;
} HeldVisit;

static gboolean
held_expired (gpointer key, gpointer value, gpointer user_data)
{
  const HeldVisit *v = user_data;

  return ((HeldRegion *) key)->seen < v->oldest;
}

static void
held_append (gpointer key, gpointer value, gpointer user_data)
{
  const HeldVisit *v = user_data;

  g_array_append_val (v->to, ((HeldRegion *) key)->rect);
}

/* Past CUDACONV_MAX_HELD_REGIONS, the held regions merged on the grid,
 * each merged box seen when the newest of its boxes was. */
static void
held_merge (CudaConvRegionHistory * history, gint width, gint height)
{
  HeldRegion *cells = g_new0 (HeldRegion,
      CUDACONV_MERGE_GRID * CUDACONV_MERGE_GRID);
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, history->held);
  while (g_hash_table_iter_next (&iter, &key, NULL)) {
    const HeldRegion *h = key;
    HeldRegion *cell = &cells[merge_cell (&h->rect, width, height)];
    rect_join (&cell->rect, &h->rect);
    cell->seen = MAX (cell->seen, h->seen);
  }
  g_hash_table_remove_all (history->held);
  for (guint c = 0; c < CUDACONV_MERGE_GRID * CUDACONV_MERGE_GRID; c++)
    if (cells[c].rect.w > 0)
      g_hash_table_add (history->held, g_memdup2 (&cells[c],
              sizeof (HeldRegion)));
  g_free (cells);
}

/* This frame's reports into the history, each rect once; then every
 * region reported in the last frames hold (this one included) into all. */
static void
hold (CudaConvRegionHistory * history, guint frames, GArray * reported,
    GArray * all, gint width, gint height)
{
  HeldVisit visit;

  if (frames != history->hold) {
    cudaconv_region_history_clear (history);
    history->hold = frames;
  }
  history->frame++;
  if (frames == 0) {
    g_array_append_vals (all, reported->data, reported->len);
    return;
  }
  visit.oldest = history->frame > frames ? history->frame - frames : 0;
  visit.to = all;
  g_hash_table_foreach_remove (history->held, held_expired, &visit);
  for (guint k = 0; k < reported->len; k++) {
    const CudaConvRegion *r = &g_array_index (reported, CudaConvRegion, k);
    HeldRegion *h = g_hash_table_lookup (history->held, r);

    if (!h) {
      h = g_new (HeldRegion, 1);
      h->rect = *r;
      g_hash_table_add (history->held, h);
    }
    h->seen = history->frame;
  }
  if (g_hash_table_size (history->held) > CUDACONV_MAX_HELD_REGIONS)
    held_merge (history, width, height);
  g_hash_table_foreach (history->held, held_append, &visit);
}

void
cudaconv_regions_collect (const CudaConvRegionRules * rules,
    CudaConvRegionHistory * history, GstBuffer * buffer, gint width,
    gint height, CudaConvRegionSet * set, guint * n_bad, guint * n_merged)
{
  GArray *reported = g_array_new (FALSE, FALSE, sizeof (CudaConvRegion));
  GArray *all = g_array_new (FALSE, FALSE, sizeof (CudaConvRegion));
  const CudaConvRegion *fixed;
  guint n_fixed;

  *n_bad = *n_merged = 0;
  set->n = 0;
  reported_boxes (rules, buffer, width, height, reported, n_bad);
  if (history)
    hold (history, MIN (rules->hold, CUDACONV_MAX_REGION_HOLD), reported,
        all, width, height);
  else
    g_array_append_vals (all, reported->data, reported->len);
  fixed = cudaconv_regions_fixed_boxes (rules, &n_fixed);
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

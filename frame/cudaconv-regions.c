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

struct _CudaConvRegionHistory {
  /* frames[k], k < hold: the regions reported k + 1 frames ago */
  GArray *frames[CUDACONV_MAX_REGION_HOLD];
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
cudaconv_regions_parse_boxes (const gchar * text,
    CudaConvRegion boxes[CUDACONV_MAX_FIXED_BOXES], guint * n_boxes,
    GError ** error)
{
  gchar **parts;
  guint n = 0;
  gboolean ok = TRUE;

  *n_boxes = 0;
  if (!text || text[strspn (text, " \t;")] == '\0')
    return TRUE;
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
  if (ok)
    *n_boxes = n;
  return ok;
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

CudaConvRegionHistory *
cudaconv_region_history_new (void)
{
  return g_new0 (CudaConvRegionHistory, 1);
}

void
cudaconv_region_history_clear (CudaConvRegionHistory * history)
{
  for (guint k = 0; k < history->hold; k++)
    g_clear_pointer (&history->frames[k], g_array_unref);
  history->hold = 0;
}

void
cudaconv_region_history_free (CudaConvRegionHistory * history)
{
  if (!history)
    return;
  cudaconv_region_history_clear (history);
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

static gboolean
contains (const CudaConvRegion * a, const CudaConvRegion * b)
{
  return a->x <= b->x && a->y <= b->y && a->x + a->w >= b->x + b->w
      && a->y + a->h >= b->y + b->h;
}

/* Drops every region another one contains (of two equal ones, the later):
 * filtering the larger covers it. */
static void
prune (GArray * all)
{
  CudaConvRegion *r = (CudaConvRegion *) all->data;
  guint n = all->len, kept = 0;

  for (guint i = 0; i < n; i++) {
    gboolean covered = FALSE;
    for (guint j = 0; j < n && !covered; j++)
      covered = j != i && contains (&r[j], &r[i])
          && (!contains (&r[i], &r[j]) || j < i);
    if (!covered)
      r[kept++] = r[i];
  }
  g_array_set_size (all, kept);
}

static void
hold (CudaConvRegionHistory * history, guint frames, GArray * reported,
    GArray * all)
{
  if (frames != history->hold) {
    cudaconv_region_history_clear (history);
    history->hold = frames;
    for (guint k = 0; k < frames; k++)
      history->frames[k] = g_array_new (FALSE, FALSE, sizeof (CudaConvRegion));
  }
  if (frames == 0)
    return;
  for (guint k = 0; k < frames; k++)
    g_array_append_vals (all, history->frames[k]->data,
        history->frames[k]->len);
  /* the oldest frame's array takes this frame's reports */
  g_array_unref (history->frames[frames - 1]);
  memmove (&history->frames[1], &history->frames[0],
      (frames - 1) * sizeof (GArray *));
  history->frames[0] = g_array_ref (reported);
}

void
cudaconv_regions_collect (const CudaConvRegionRules * rules,
    CudaConvRegionHistory * history, GstBuffer * buffer, gint width,
    gint height, CudaConvRegionSet * set, guint * n_bad)
{
  GArray *reported = g_array_new (FALSE, FALSE, sizeof (CudaConvRegion));
  GArray *all = g_array_new (FALSE, FALSE, sizeof (CudaConvRegion));

  *n_bad = 0;
  set->n = 0;
  reported_boxes (rules, buffer, width, height, reported, n_bad);
  prune (reported);
  g_array_append_vals (all, reported->data, reported->len);
  if (history)
    hold (history, MIN (rules->hold, CUDACONV_MAX_REGION_HOLD), reported,
        all);
  for (guint k = 0; k < rules->n_boxes; k++) {
    const CudaConvRegion *b = &rules->boxes[k];
    if (!add_box (all, b->x, b->y, b->w, b->h, rules->margin, width, height))
      (*n_bad)++;
  }
  prune (all);

  if (all->len <= CUDACONV_MAX_REGIONS) {
    set->n = all->len;
    /* an empty GArray's data is NULL, which memcpy must not be given */
    if (all->len > 0)
      memcpy (set->rects, all->data, all->len * sizeof (CudaConvRegion));
  } else {
    const CudaConvRegion *r = (const CudaConvRegion *) all->data;
    gint x0 = width, y0 = height, x1 = 0, y1 = 0;
    for (guint k = 0; k < all->len; k++) {
      x0 = MIN (x0, r[k].x);
      y0 = MIN (y0, r[k].y);
      x1 = MAX (x1, r[k].x + r[k].w);
      y1 = MAX (y1, r[k].y + r[k].h);
    }
    set->rects[0] = (CudaConvRegion) {x0, y0, x1 - x0, y1 - y0};
    set->n = 1;
  }
  g_array_unref (reported);
  g_array_unref (all);
}

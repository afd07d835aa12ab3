/* cudaconv: what a frame's regions cover (see the header). */
#include <stdlib.h>
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

/* Makes room for n entries of size bytes in *array of *size entries */
static void
ensure (gpointer * array, guint * size, guint n, gsize bytes)
{
  if (n <= *size)
    return;
  *size = MAX (n, 2 * *size);
  *array = g_realloc_n (*array, *size, bytes);
}

/* One region's rect in a part and the window its filter reads; in a
 * cluster's root, also the cluster's bounding boxes of both */
typedef struct {
  gint x0, y0, x1, y1;          /* rect */
  gint wx0, wy0, wx1, wy1;      /* window */
  gint cx0, cy0, cx1, cy1;      /* the cluster's rects' bounding box */
  gint cwx0, cwy0, cwx1, cwy1;  /* the cluster's windows' bounding box */
  guint region;
  guint parent;                 /* union-find over a group's items */
  /* its rect lies inside another of the group's: it adds no writes */
  gboolean inside;
} Item;

static guint
find (Item * items, guint i)
{
  while (items[i].parent != i) {
    items[i].parent = items[items[i].parent].parent;
    i = items[i].parent;
  }
  return i;
}

/* Joins the clusters of items a and b; the lower index stays the root,
 * so that a cluster's root is its first region. */
static void
join (Item * items, guint a, guint b)
{
  Item *r, *o;

  a = find (items, a);
  b = find (items, b);
  if (a == b)
    return;
  r = &items[MIN (a, b)];
  o = &items[MAX (a, b)];
  o->parent = MIN (a, b);
  r->cx0 = MIN (r->cx0, o->cx0);
  r->cy0 = MIN (r->cy0, o->cy0);
  r->cx1 = MAX (r->cx1, o->cx1);
  r->cy1 = MAX (r->cy1, o->cy1);
  r->cwx0 = MIN (r->cwx0, o->cwx0);
  r->cwy0 = MIN (r->cwy0, o->cwy0);
  r->cwx1 = MAX (r->cwx1, o->cwx1);
  r->cwy1 = MAX (r->cwy1, o->cwy1);
}

static gint64
area (gint x0, gint y0, gint x1, gint y1)
{
  return (gint64) (x1 - x0) * (y1 - y0);
}

/* An index to sort, by key, then tie, then itself. qsort takes no
 * context, and elements on several streaming threads build coverages at
 * once: the keys travel with the indexes rather than in a static. */
typedef struct {
  gint key, tie;
  guint index;
} SortKey;

static int
by_sort_key (const void *a, const void *b)
{
  const SortKey *p = a, *q = b;

  if (p->key != q->key)
    return p->key < q->key ? -1 : 1;
  if (p->tie != q->tie)
    return p->tie < q->tie ? -1 : 1;
  return (p->index > q->index) - (p->index < q->index);
}

/* Sorts keys[0..n) and writes their indexes in that order to order */
static void
sort_indexes (SortKey * keys, guint n, guint * order)
{
  qsort (keys, n, sizeof (SortKey), by_sort_key);
  for (guint i = 0; i < n; i++)
    order[i] = keys[i].index;
}

/* Writes to order the positions 0..n-1 of keys, sorted by key and, among
 * equal keys, by position: a radix sort, a byte a pass, of the keys with
 * their sign bit flipped (so that unsigned order is the ints' order),
 * skipping the passes whose byte all keys share; a part's coordinates
 * mostly take two. The sweeps sort every frame's rects several times,
 * where a comparison sort cost more than the sweeps themselves. scratch
 * holds n entries. */
static void
radix_order (const gint * keys, guint n, guint * order, guint * scratch)
{
  guint *from = order, *to = scratch;

  for (guint i = 0; i < n; i++)
    order[i] = i;
  for (guint shift = 0; shift < 32; shift += 8) {
    guint count[256] = { 0 }, at = 0;
    gboolean one_byte = FALSE;
    guint *t;

    for (guint i = 0; i < n; i++)
      count[(((guint) keys[i] ^ 0x80000000u) >> shift) & 0xff]++;
    for (guint b = 0; b < 256; b++) {
      const guint c = count[b];
      one_byte |= c == n;
      count[b] = at;
      at += c;
    }
    if (one_byte)
      continue;
    for (guint i = 0; i < n; i++)
      to[count[(((guint) keys[from[i]] ^ 0x80000000u) >> shift) & 0xff]++] =
          from[i];
    t = from;
    from = to;
    to = t;
  }
  if (from != order)
    memcpy (order, from, n * sizeof (guint));
}

/* The first of open[lo..hi) whose rect's top edge is at least y (open
 * kept sorted by top edges) */
static guint
first_top_at (const Item * items, const guint * open, guint lo, guint hi,
    gint y)
{
  while (lo < hi) {
    const guint mid = lo + (hi - lo) / 2;
    if (items[open[mid]].y0 < y)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Joins every two items whose rects overlap: a sweep over the rects in
 * the order of their left edges, each compared with those open (whose
 * right edge may lie beyond its left one) whose rows can meet its own.
 * The open rects are kept sorted by their top edges, so that a rect is
 * compared only with those whose top lies at most the tallest rect's
 * height above its own top and above its bottom (no other can reach its
 * rows): a crowd's rects meet few of the many open beside them. Rects
 * left behind by the sweep (right edge at or before the left one of the
 * rect in hand, and so of every later one) are dropped every few rects.
 * A rect inside an open one joins it and is not opened, and is marked to
 * add no writes: a held crowd inside the box its hold merged into costs a
 * comparison a rect. */
static void
join_overlapping_rects (Item * items, guint n, guint * order, guint * open)
{
  gint *keys = g_new (gint, MAX (n, 1));
  guint n_open = 0;
  gint tallest = 0;

  for (guint i = 0; i < n; i++) {
    keys[i] = items[i].x0;
    tallest = MAX (tallest, items[i].y1 - items[i].y0);
  }
  /* open is free until the sweep */
  radix_order (keys, n, order, open);
  g_free (keys);
  for (guint k = 0; k < n; k++) {
    const Item *it = &items[order[k]];
    gboolean contained = FALSE;
    guint at;

    for (guint j = first_top_at (items, open, 0, n_open, it->y0 - tallest);
        j < n_open && items[open[j]].y0 < it->y1; j++) {
      const Item *o = &items[open[j]];
      if (o->x1 > it->x0 && it->y0 < o->y1) {
        join (items, open[j], order[k]);
        /* inside an open rect (whose left edge comes no later): every
         * open rect it meets meets that one too, and is joined with it
         * already, and so is every later rect it would meet; it need not
         * be open itself */
        contained = o->x1 >= it->x1 && o->y0 <= it->y0 && o->y1 >= it->y1;
        if (contained) {
          items[order[k]].inside = TRUE;
          break;
        }
      }
    }
    if (k % 32 == 31) {
      guint kept = 0;
      for (guint j = 0; j < n_open; j++)
        if (items[open[j]].x1 > it->x0)
          open[kept++] = open[j];
      n_open = kept;
    }
    if (contained)
      continue;
    at = first_top_at (items, open, 0, n_open, it->y0);
    memmove (&open[at + 1], &open[at], (n_open - at) * sizeof (guint));
    open[at] = order[k];
    n_open++;
  }
}

/* Joins clusters whose windows overlap where their bounding box costs no
 * more samples than the two, until no two more do: one sweep over the
 * clusters in the order of their windows' left edges a round. */
static void
join_paying_windows (Item * items, guint n, guint * order)
{
  gint *keys = g_new (gint, MAX (n, 1));
  guint *roots = g_new (guint, 2 * MAX (n, 1)), *scratch = roots + n;
  gboolean joined = TRUE;

  while (joined) {
    guint m = 0;

    joined = FALSE;
    for (guint i = 0; i < n; i++)
      if (find (items, i) == i) {
        roots[m] = i;
        keys[m++] = items[i].cwx0;
      }
    radix_order (keys, m, order, scratch);
    for (guint a = 0; a < m; a++)
      order[a] = roots[order[a]];
    for (guint a = 0; a < m; a++) {
      for (guint b = a + 1; b < m; b++) {
        const Item *p = &items[order[a]], *q = &items[order[b]];
        if (p->parent != order[a])
          break;                /* joined into an earlier root */
        if (q->cwx0 >= p->cwx1)
          break;
        if (q->parent != order[b] || q->cwy0 >= p->cwy1
            || p->cwy0 >= q->cwy1)
          continue;
        if (area (MIN (p->cwx0, q->cwx0), MIN (p->cwy0, q->cwy0),
                MAX (p->cwx1, q->cwx1), MAX (p->cwy1, q->cwy1))
            > area (p->cwx0, p->cwy0, p->cwx1, p->cwy1)
            + area (q->cwx0, q->cwy0, q->cwx1, q->cwy1))
          continue;
        join (items, order[a], order[b]);
        joined = TRUE;
      }
    }
  }
  g_free (keys);
  g_free (roots);
}

/* Appends the union of rects[0..m) to the writes as disjoint rects: bands
 * between the rects' distinct top and bottom edges, the runs of each band
 * (the rects across it, kept sorted by their left edges as the sweep
 * down the bands takes them in and lets them go, merged), a run grown
 * down while the next band has the same one. */
static void
add_union_writes (CudaConvCoverage * coverage, const GstVideoRectangle * rects,
    guint m)
{
  gint *ys = g_new (gint, 4 * m), *edges = ys + 2 * m;
  gint *runs = g_new (gint, 4 * m), *prev = runs + 2 * m;
  guint *open = g_new (guint, 2 * m), *open_next = open + m;
  guint *order = g_new (guint, 2 * m), *active = order + m;
  guint *edge_order = g_new (guint, 4 * m), *scratch = edge_order + 2 * m;
  guint n_ys = 0, n_prev = 0, n_active = 0, next = 0;

  for (guint i = 0; i < m; i++) {
    edges[n_ys++] = rects[i].y;
    edges[n_ys++] = rects[i].y + rects[i].h;
    ys[i] = rects[i].y;
  }
  radix_order (ys, m, order, scratch);
  radix_order (edges, n_ys, edge_order, scratch);
  for (guint i = 0; i < n_ys; i++)
    ys[i] = edges[edge_order[i]];
  g_free (edge_order);
  for (guint b = 0; b + 1 < n_ys; b++) {
    const gint y0 = ys[b], y1 = ys[b + 1];
    guint n_runs = 0, p = 0, kept = 0;

    if (y0 == y1)
      continue;
    /* the rects across the band: those that ended let go, those that
     * start taken in at their place */
    for (guint i = 0; i < n_active; i++)
      if (rects[active[i]].y + rects[active[i]].h > y0)
        active[kept++] = active[i];
    n_active = kept;
    for (; next < m && rects[order[next]].y <= y0; next++) {
      const guint r = order[next];
      guint at = n_active;
      while (at > 0 && rects[active[at - 1]].x > rects[r].x)
        at--;
      memmove (&active[at + 1], &active[at], (n_active - at) * sizeof (guint));
      active[at] = r;
      n_active++;
    }
    /* the band's runs: the active spans, merged */
    for (guint i = 0; i < n_active; i++) {
      const GstVideoRectangle *r = &rects[active[i]];
      if (n_runs > 0 && r->x <= runs[2 * n_runs - 1]) {
        runs[2 * n_runs - 1] = MAX (runs[2 * n_runs - 1], r->x + r->w);
        continue;
      }
      runs[2 * n_runs] = r->x;
      runs[2 * n_runs + 1] = r->x + r->w;
      n_runs++;
    }
    /* a run the band above had too grows that band's rect (bands follow
     * each other: the one above ended at y0); any other starts a rect */
    for (guint i = 0; i < n_runs; i++) {
      GstVideoRectangle *w;
      while (p < n_prev && prev[2 * p] < runs[2 * i])
        p++;
      if (p < n_prev && prev[2 * p] == runs[2 * i]
          && prev[2 * p + 1] == runs[2 * i + 1]) {
        w = &coverage->writes[open[p]];
        w->h = y1 - w->y;
        open_next[i] = open[p];
        continue;
      }
      ensure ((gpointer *) & coverage->writes, &coverage->writes_size,
          coverage->n_writes + 1, sizeof (GstVideoRectangle));
      w = &coverage->writes[coverage->n_writes];
      w->x = runs[2 * i];
      w->y = y0;
      w->w = runs[2 * i + 1] - runs[2 * i];
      w->h = y1 - y0;
      open_next[i] = coverage->n_writes++;
    }
    memcpy (prev, runs, 2 * n_runs * sizeof (gint));
    memcpy (open, open_next, n_runs * sizeof (guint));
    n_prev = n_runs;
  }
  g_free (ys);
  g_free (runs);
  g_free (open);
  g_free (order);
}

/* Appends the pieces of part g of component comp for the regions of one
 * filter (group[0..n_group), in the regions' order): the rects of each
 * region that holds any of the part's samples, joined into clusters, one
 * piece per cluster. */
static void
add_group_pieces (CudaConvCoverage * coverage, const CudaConvPlan * plan,
    gint comp, const CudaConvPartGeometry * g,
    const CudaConvRegionSet * regions, const guint * group, guint n_group,
    const Reach * reach)
{
  const GstVideoFormatInfo *finfo = plan->layout->work_info.finfo;
  const gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp);
  const gint hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp);
  Item *items = g_new (Item, MAX (n_group, 1));
  /* order and open for the sweeps; then each cluster's next member */
  guint *order = g_new (guint, 3 * MAX (n_group, 1));
  guint *open = order + n_group, *next = open + n_group;
  GstVideoRectangle *rects = g_new (GstVideoRectangle, MAX (n_group, 1));
  guint n = 0;

  for (guint k = 0; k < n_group; k++) {
    const CudaConvRegion *r = &regions->rects[group[k]];
    Item *it = &items[n];

    /* an empty box would round out to a sample */
    if (r->w <= 0 || r->h <= 0
        || !part_columns (g, wsub, r->x, r->w, &it->x0, &it->x1)
        || !part_rows (g, hsub, r->y, r->h, &it->y0, &it->y1))
      continue;
    window_span (reach, it->x0, it->x1, g->width, &it->wx0, &it->wx1);
    window_span (reach, it->y0, it->y1, g->height, &it->wy0, &it->wy1);
    it->cx0 = it->x0;
    it->cy0 = it->y0;
    it->cx1 = it->x1;
    it->cy1 = it->y1;
    it->cwx0 = it->wx0;
    it->cwy0 = it->wy0;
    it->cwx1 = it->wx1;
    it->cwy1 = it->wy1;
    it->region = group[k];
    it->parent = n;
    it->inside = FALSE;
    n++;
  }
  join_overlapping_rects (items, n, order, open);
  join_paying_windows (items, n, order);

  /* each cluster's members as a list from its root, in the items' order */
  for (guint i = 0; i < n; i++)
    next[i] = G_MAXUINT;
  for (guint i = n; i-- > 0;) {
    const guint root = find (items, i);
    if (root != i) {
      next[i] = next[root];
      next[root] = i;
    }
  }
  for (guint root = 0; root < n; root++) {
    const Item *c = &items[root];
    CudaConvPiece *piece;
    guint m = 0;

    if (c->parent != root)
      continue;
    for (guint i = root; i != G_MAXUINT; i = next[i]) {
      if (items[i].inside)
        continue;
      rects[m].x = items[i].x0;
      rects[m].y = items[i].y0;
      rects[m].w = items[i].x1 - items[i].x0;
      rects[m].h = items[i].y1 - items[i].y0;
      m++;
    }
    ensure ((gpointer *) & coverage->pieces, &coverage->pieces_size,
        coverage->n_pieces + 1, sizeof (CudaConvPiece));
    piece = &coverage->pieces[coverage->n_pieces++];
    piece->window.x = c->cwx0;
    piece->window.y = c->cwy0;
    piece->window.w = c->cwx1 - c->cwx0;
    piece->window.h = c->cwy1 - c->cwy0;
    piece->bounds.x = c->cx0;
    piece->bounds.y = c->cy0;
    piece->bounds.w = c->cx1 - c->cx0;
    piece->bounds.h = c->cy1 - c->cy0;
    piece->region = c->region;
    piece->reach = reach->reach;
    piece->first_write = coverage->n_writes;
    if (m == 1) {
      ensure ((gpointer *) & coverage->writes, &coverage->writes_size,
          coverage->n_writes + 1, sizeof (GstVideoRectangle));
      coverage->writes[coverage->n_writes++] = rects[0];
    } else {
      add_union_writes (coverage, rects, m);
    }
    piece->n_writes = coverage->n_writes - piece->first_write;
  }
  g_free (items);
  g_free (order);
  g_free (rects);
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

/* Appends the byte boxes of plane p, one per region that is the first of
 * pieces touching it in any of its covered components. */
static void
add_plane_boxes (CudaConvCoverage * coverage, const CudaConvPlan * plan,
    guint p)
{
  const CudaConvPlaneLayout *pl = &plan->layout->planes[p];
  Extent *read = g_new (Extent, 2 * MAX (coverage->n_regions, 1));
  Extent *written = read + coverage->n_regions;
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
    ensure ((gpointer *) & coverage->boxes, &coverage->boxes_size,
        coverage->n_boxes + 1, sizeof (CudaConvByteBox));
    box = &coverage->boxes[coverage->n_boxes++];
    box->read = extent_box (&read[k], pl->row_bytes);
    box->written = extent_box (&written[k], pl->row_bytes);
  }
  coverage->planes[p].n = coverage->n_boxes - coverage->planes[p].first;
  g_free (read);
}

/* Where an earlier component c0 < c has a part of the same geometry and
 * subsampling (whose pieces are then the same), appends copies of its
 * pieces and their writes as those of part part of c; FALSE where none has. */
static gboolean
copy_like_part (CudaConvCoverage * coverage, const CudaConvPlan * plan,
    guint c, guint part, const CudaConvPartGeometry * g)
{
  const GstVideoFormatInfo *finfo = plan->layout->work_info.finfo;

  for (guint c0 = 0; c0 < c; c0++) {
    CudaConvPartGeometry g0;
    const CudaConvSpan *from = &coverage->parts[c0][part];

    if (plan->action[c0] == CUDACONV_ACTION_COPY
        || !cudaconv_plan_part (plan, c0, part, &g0)
        || memcmp (&g0, g, sizeof (g0)) != 0
        || GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c0) !=
        GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c)
        || GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c0) !=
        GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c))
      continue;
    ensure ((gpointer *) & coverage->pieces, &coverage->pieces_size,
        coverage->n_pieces + from->n, sizeof (CudaConvPiece));
    for (guint k = 0; k < from->n; k++) {
      CudaConvPiece piece = coverage->pieces[from->first + k];
      const guint first = piece.first_write;

      ensure ((gpointer *) & coverage->writes, &coverage->writes_size,
          coverage->n_writes + piece.n_writes, sizeof (GstVideoRectangle));
      piece.first_write = coverage->n_writes;
      memcpy (&coverage->writes[coverage->n_writes], &coverage->writes[first],
          piece.n_writes * sizeof (GstVideoRectangle));
      coverage->n_writes += piece.n_writes;
      coverage->pieces[coverage->n_pieces++] = piece;
    }
    return TRUE;
  }
  return FALSE;
}

/* What a filter reads around a write, as the coverage takes it */
static gint
filter_reach (const CcFilter * f)
{
  return f->shape == CC_SHAPE_BLOCKS ? -(2 * f->radius + 1) : f->radius;
}

/* Whether coverage was built from these, and if not, keeps them */
static gboolean
built_from (CudaConvCoverage * coverage, const CudaConvPlan * plan,
    const CudaConvRegionSet * regions, const CcFilter * const *filters,
    CcBorder border, guint n)
{
  gboolean same = coverage->built && coverage->built_size == n
      && coverage->built_border == border
      && memcmp (&coverage->built_plan, plan, sizeof (*plan)) == 0
      && memcmp (&coverage->built_layout, plan->layout,
      sizeof (*plan->layout)) == 0
      && (n == 0 || memcmp (coverage->built_rects, regions->rects,
              n * sizeof (CudaConvRegion)) == 0);

  for (guint k = 0; same && k < n; k++)
    same = coverage->built_filters[k] == filters[k]
        && coverage->built_reach[k] == filter_reach (filters[k]);
  if (same)
    return TRUE;
  coverage->built_rects = g_renew (CudaConvRegion, coverage->built_rects,
      MAX (n, 1));
  coverage->built_filters = g_renew (const CcFilter *,
      coverage->built_filters, MAX (n, 1));
  coverage->built_reach = g_renew (gint, coverage->built_reach, MAX (n, 1));
  coverage->built_plan = *plan;
  coverage->built_layout = *plan->layout;
  coverage->built_border = border;
  coverage->built_size = n;
  if (n > 0)
    memcpy (coverage->built_rects, regions->rects, n * sizeof (CudaConvRegion));
  for (guint k = 0; k < n; k++) {
    coverage->built_filters[k] = filters[k];
    coverage->built_reach[k] = filter_reach (filters[k]);
  }
  coverage->built = TRUE;
  return FALSE;
}

void
cudaconv_coverage_build (CudaConvCoverage * coverage,
    const CudaConvPlan * plan, const CudaConvRegionSet * regions,
    const CcFilter * const *filters, CcBorder border)
{
  const CudaConvLayout *layout = plan->layout;
  const guint n_comps = GST_VIDEO_INFO_N_COMPONENTS (&layout->work_info);
  const guint n = MIN (regions->n, CUDACONV_MAX_REGIONS);
  Reach *reach;
  SortKey *keys;
  guint *first, *order;

  static guint64 generations;
  G_LOCK_DEFINE_STATIC (generations);

  if (built_from (coverage, plan, regions, filters, border, n))
    return;
  /* elements build their coverages on their own streaming threads; 64
   * bits on every host, so that no count comes back to 0 ("never built") */
  G_LOCK (generations);
  coverage->generation = ++generations;
  G_UNLOCK (generations);
  reach = g_new (Reach, MAX (n, 1));
  keys = g_new (SortKey, MAX (n, 1));
  first = g_new (guint, 2 * MAX (n, 1));
  order = first + n;
  coverage->n_regions = n;
  coverage->n_pieces = coverage->n_writes = coverage->n_boxes = 0;
  memset (coverage->parts, 0, sizeof (coverage->parts));
  memset (coverage->planes, 0, sizeof (coverage->planes));
  for (guint k = 0; k < n; k++) {
    const CcFilter *f = filters[k];
    reach[k].block = f->shape == CC_SHAPE_BLOCKS ? 2 * f->radius + 1 : 0;
    reach[k].reach = reach[k].block ? 0 : f->radius;
    reach[k].wrap = border == CC_BORDER_WRAP;
    /* a filter's first region: few filters, the default's first */
    first[k] = k;
    for (guint j = 0; j < k; j++)
      if (filters[j] == f) {
        first[k] = first[j];
        break;
      }
  }
  /* the order the filters write in: by the reach their filter reads (or
   * the block side), then by their first region, so that a filter's
   * regions lie together in the regions' order */
  for (guint k = 0; k < n; k++) {
    const Reach *r = &reach[first[k]];
    keys[k] = (SortKey) {
    r->block ? r->block : r->reach, (gint) first[k], k};
  }
  sort_indexes (keys, n, order);
  g_free (keys);

  for (guint c = 0; c < n_comps; c++) {
    CudaConvPartGeometry g;

    if (plan->action[c] == CUDACONV_ACTION_COPY)
      continue;
    for (guint part = 0; part < CUDACONV_MAX_PARTS
        && cudaconv_plan_part (plan, c, part, &g); part++) {
      CudaConvSpan *span = &coverage->parts[c][part];
      span->first = coverage->n_pieces;
      /* 4:2:0's U and V lie alike: the pieces of one are the other's */
      if (copy_like_part (coverage, plan, c, part, &g)) {
        span->n = coverage->n_pieces - span->first;
        continue;
      }
      for (guint k = 0; k < n;) {
        guint e = k + 1;
        while (e < n && first[order[e]] == first[order[k]])
          e++;
        add_group_pieces (coverage, plan, c, &g, regions, &order[k], e - k,
            &reach[first[order[k]]]);
        k = e;
      }
      span->n = coverage->n_pieces - span->first;
    }
  }
  for (guint p = 0; p < layout->n_planes; p++)
    add_plane_boxes (coverage, plan, p);
  g_free (reach);
  g_free (first);
}

CudaConvCoverage *
cudaconv_coverage_new (void)
{
  return g_new0 (CudaConvCoverage, 1);
}

void
cudaconv_coverage_free (CudaConvCoverage * coverage)
{
  if (!coverage)
    return;
  g_free (coverage->pieces);
  g_free (coverage->writes);
  g_free (coverage->boxes);
  g_free (coverage->built_rects);
  g_free (coverage->built_filters);
  g_free (coverage->built_reach);
  g_free (coverage);
}

void
cudaconv_coverage_copy (CudaConvCoverage * dst, const CudaConvCoverage * src)
{
  ensure ((gpointer *) & dst->pieces, &dst->pieces_size, src->n_pieces,
      sizeof (CudaConvPiece));
  ensure ((gpointer *) & dst->writes, &dst->writes_size, src->n_writes,
      sizeof (GstVideoRectangle));
  ensure ((gpointer *) & dst->boxes, &dst->boxes_size, src->n_boxes,
      sizeof (CudaConvByteBox));
  /* a copy is read, never built again */
  dst->built = FALSE;
  dst->n_regions = src->n_regions;
  dst->generation = src->generation;
  memcpy (dst->parts, src->parts, sizeof (src->parts));
  memcpy (dst->planes, src->planes, sizeof (src->planes));
  dst->n_pieces = src->n_pieces;
  dst->n_writes = src->n_writes;
  dst->n_boxes = src->n_boxes;
  /* an empty array's pointer may be NULL, which memcpy must not be given */
  if (src->n_pieces)
    memcpy (dst->pieces, src->pieces, src->n_pieces * sizeof (CudaConvPiece));
  if (src->n_writes)
    memcpy (dst->writes, src->writes,
        src->n_writes * sizeof (GstVideoRectangle));
  if (src->n_boxes)
    memcpy (dst->boxes, src->boxes, src->n_boxes * sizeof (CudaConvByteBox));
}

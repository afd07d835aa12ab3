/* cudaconv: a component part filtered inside or outside the frame's
 * regions (see the header). */
#include "cudaconv-pieces.h"

/* The filtered window of a piece in the scratch: its samples one after
 * the other, rows pitch bytes apart, from byte offset of base. */
static CcComponent
scratch_window (gpointer base, gsize offset, gsize pitch,
    const CcComponent * like, const GstVideoRectangle * window)
{
  CcComponent c = *like;

  c.data = (guint8 *) base + offset;
  c.pitch = pitch;
  c.width = window->w;
  c.height = window->h;
  c.pixel_stride = 1;
  return c;
}

/* The bytes a window's row takes in the scratch: whole steps of align, so
 * that every row of every window starts on one. */
static gsize
scratch_pitch (const CcComponent * like, const GstVideoRectangle * window,
    gsize align)
{
  const gsize bytes = (gsize) window->w * like->sample;

  return (bytes + align - 1) / align * align;
}

/* The number of writes of n pieces */
static guint
count_writes (const CudaConvPiece * pieces, guint n)
{
  guint writes = 0;

  for (guint k = 0; k < n; k++)
    writes += pieces[k].n_writes;
  return writes;
}

/* Outside the regions: the whole part filtered (or filled), then what the
 * regions' pieces write copied back from the input as it is. */
static gboolean
run_outside (const CudaConvPieceOps * ops, gpointer ctx,
    const CudaConvJob * job, gint comp, const CudaConvPiece * pieces,
    guint n, const CcComponent * s, const CcComponent * d, GError ** error)
{
  const CudaConvPlan *plan = job->plan;
  const CudaConvCoverage *coverage = job->coverage;

  if (plan->action[comp] == CUDACONV_ACTION_FILL) {
    if (!ops->fill (ctx, d, plan->fill_value[comp], error))
      return FALSE;
  } else if (!ops->convolve (ctx, comp, s, d, job->filter, TRUE, error)) {
    return FALSE;
  }
  {
    const guint writes = count_writes (pieces, n);
    CcComponent *from = g_new (CcComponent, 2 * MAX (writes, 1));
    CcComponent *to = from + writes;
    guint m = 0;
    gboolean ok;

    for (guint k = 0; k < n; k++)
      for (guint w = 0; w < pieces[k].n_writes; w++, m++) {
        const GstVideoRectangle *rect =
            &coverage->writes[pieces[k].first_write + w];
        from[m] = cudaconv_component_sub (s, rect);
        to[m] = cudaconv_component_sub (d, rect);
      }
    ok = writes == 0 || ops->copy (ctx, writes, from, to, error);
    g_free (from);
    return ok;
  }
}

/* Every piece's window filtered into the scratch, where the windows lie
 * one after the other in piece order: in one call where the back end
 * takes them so, else one by one. */
static gboolean
convolve_windows (const CudaConvPieceOps * ops, gpointer ctx,
    const CudaConvJob * job, gint comp, const CudaConvPiece * pieces,
    guint n, const CcComponent * s, gpointer scratch, GError ** error)
{
  const gsize align = MAX (ops->row_align, 1);
  CcComponent *from = g_new (CcComponent, 2 * n), *to = from + n;
  const CcFilter **filters = g_new (const CcFilter *, n);
  gboolean ok = TRUE;
  gsize offset = 0;

  for (guint k = 0; k < n; k++) {
    const GstVideoRectangle *window = &pieces[k].window;
    const gsize pitch = scratch_pitch (s, window, align);

    from[k] = cudaconv_component_sub (s, window);
    to[k] = scratch_window (scratch, offset, pitch, s, window);
    filters[k] = job->region_filters[pieces[k].region];
    offset += pitch * window->h;
  }
  if (ops->convolve_windows)
    ok = ops->convolve_windows (ctx, comp, n, from, to, filters, error);
  for (guint k = 0; ok && !ops->convolve_windows && k < n; k++)
    ok = ops->convolve (ctx, comp, &from[k], &to[k], filters[k], FALSE,
        error);
  g_free (from);
  g_free (filters);
  return ok;
}

gboolean
cudaconv_pieces_run (const CudaConvPieceOps * ops, gpointer ctx,
    const CudaConvJob * job, gint comp, guint part, const CcComponent * s,
    const CcComponent * d, GError ** error)
{
  const CudaConvPlan *plan = job->plan;
  const CudaConvCoverage *coverage = job->coverage;
  const gsize align = MAX (ops->row_align, 1);
  gsize need = 0, offset;
  const CudaConvPiece *pieces;
  gpointer scratch;
  guint n;

  if (plan->action[comp] == CUDACONV_ACTION_COPY)
    return TRUE;
  pieces = cudaconv_coverage_pieces (coverage, comp, part, &n);
  if (plan->region_mode == CUDACONV_REGION_MODE_OUTSIDE)
    return run_outside (ops, ctx, job, comp, pieces, n, s, d, error);
  if (n == 0)
    return TRUE;

  if (plan->action[comp] == CUDACONV_ACTION_FILL) {
    for (guint k = 0; k < n; k++)
      for (guint w = 0; w < pieces[k].n_writes; w++) {
        const CcComponent to = cudaconv_component_sub (d,
            &coverage->writes[pieces[k].first_write + w]);

        if (!ops->fill (ctx, &to, plan->fill_value[comp], error))
          return FALSE;
      }
    return TRUE;
  }

  /* every window is filtered before any write, so that in place no filter
   * reads a sample another piece wrote */
  for (guint k = 0; k < n; k++)
    need += scratch_pitch (s, &pieces[k].window, align) * pieces[k].window.h;
  scratch = ops->scratch (ctx, need, error);
  if (!scratch)
    return FALSE;
  if (!convolve_windows (ops, ctx, job, comp, pieces, n, s, scratch, error))
    return FALSE;
  offset = 0;
  {
    const guint writes = count_writes (pieces, n);
    CcComponent *from = g_new (CcComponent, 2 * MAX (writes, 1));
    CcComponent *to = from + writes;
    guint m = 0;
    gboolean ok;

    for (guint k = 0; k < n; k++) {
      const GstVideoRectangle *window = &pieces[k].window;
      const gsize pitch = scratch_pitch (s, window, align);
      const CcComponent filtered = scratch_window (scratch, offset, pitch, s,
          window);

      offset += pitch * window->h;
      for (guint w = 0; w < pieces[k].n_writes; w++, m++) {
        const GstVideoRectangle *rect =
            &coverage->writes[pieces[k].first_write + w];
        /* the write in the window's samples */
        const GstVideoRectangle in_window = { rect->x - window->x,
          rect->y - window->y, rect->w, rect->h
        };
        from[m] = cudaconv_component_sub (&filtered, &in_window);
        to[m] = cudaconv_component_sub (d, rect);
      }
    }
    ok = writes == 0 || ops->copy (ctx, writes, from, to, error);
    g_free (from);
    return ok;
  }
}

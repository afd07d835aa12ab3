/* cudaconv: a component part filtered inside or outside the frame's
 * regions, the one routine both back ends run (cudaconv-coverage.h for
 * the pieces).
 *
 * Inside, every piece's window is filtered into scratch memory before any
 * write, so that in place no filter reads a sample another wrote; then
 * each piece's rects are copied out of its filtered window. Outside, the
 * whole part is filtered and the rects copied back from the input. A back
 * end gives the operations, on its own memory and queue. */
#ifndef CUDACONV_PIECES_H
#define CUDACONV_PIECES_H

#include "cudaconv-backend.h"

G_BEGIN_DECLS

typedef struct {
  /* Filters src into dst, both of component comp: a whole part (whole
   * set) or a piece's window into scratch. */
  gboolean (*convolve) (gpointer ctx, gint comp, const CcComponent * src,
      const CcComponent * dst, const CcFilter * filter, gboolean whole,
      GError ** error);
  /* Sets every sample of dst to value (raw, as stored) */
  gboolean (*fill) (gpointer ctx, const CcComponent * dst, guint value,
      GError ** error);
  /* Copies the samples of the n rects from[k] into to[k] as they are,
   * bits beyond the depth included: a part's rects in one call */
  gboolean (*copy) (gpointer ctx, guint n, const CcComponent * from,
      const CcComponent * to, GError ** error);
  /* Memory for bytes of filtered windows, which convolve and copy reach,
   * kept until the next call; NULL (error set) when there is none. */
  gpointer (*scratch) (gpointer ctx, gsize bytes, GError ** error);
  /* each window's rows in the scratch start on a multiple of this many
   * bytes */
  gsize row_align;
  /* Where not NULL: filters the n windows from[k] into to[k], of
   * component comp, with filters[k], all at once (what convolve would do
   * to each, as one piece of work); else convolve runs for each. */
  gboolean (*convolve_windows) (gpointer ctx, gint comp, guint n,
      const CcComponent * from, const CcComponent * to,
      const CcFilter * const *filters, GError ** error);
} CudaConvPieceOps;

/* Filters (or fills) part number part of component comp, s into d, as the
 * job's plan and coverage say: inside the pieces (s and d may be one, in
 * place), or outside them (s and d apart: the rects are copied back from
 * s). A component the plan copies is left alone. */
gboolean cudaconv_pieces_run (const CudaConvPieceOps * ops, gpointer ctx,
    const CudaConvJob * job, gint comp, guint part, const CcComponent * s,
    const CcComponent * d, GError ** error);

G_END_DECLS
#endif /* CUDACONV_PIECES_H */

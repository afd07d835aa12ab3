/* cudaconv: what a frame's regions cover, in the form the back ends take.
 *
 * Once per frame, the regions (cudaconv-regions.h) and the filter of each
 * become a coverage of the plan's component parts (cudaconv-plan.h): for
 * each part, the pieces to filter, each a window its filter reads and the
 * rects it writes; and for each plane, the bytes those windows and rects
 * touch, which is what travels when only the regions cross the bus. A back
 * end reads nothing else of the regions: a new source of regions (a mask)
 * changes the builder here and nothing below it.
 *
 * What regions of one filter cover is filtered once, whatever their
 * number and overlaps: regions whose rects overlap are one piece (their
 * windows' bounding box), and so are regions whose windows overlap where
 * one window costs no more samples than the two; a piece's writes are the
 * union of its regions' rects cut into disjoint rects. Where regions of
 * different filters overlap (region-radius-scale), the pieces of the
 * filter that reads farther come later in a part and write last.
 *
 * Coordinates are a part's samples: a part is a component inside the
 * picture, or one field of it (cudaconv_plan_parts). A sample is covered
 * where it holds a pixel of a region; with fields, subsampled rows are the
 * field's own (4:2:0 chroma row 2k + p holds rows of field p only). */
#ifndef CUDACONV_COVERAGE_H
#define CUDACONV_COVERAGE_H

#include "cudaconv-plan.h"
#include "cudaconv-regions.h"

G_BEGIN_DECLS

/* One window filtered on its own. Where the window meets the part's edge
 * the border policy makes up what lies beyond, so a window is filtered as
 * a part of its own and its writes taken: samples inside the frame are
 * always the real ones. A wrapping border reads the far side: there the
 * window spans the part. */
typedef struct {
  GstVideoRectangle window;     /* read by the filter */
  GstVideoRectangle bounds;     /* the writes' bounding box, inside window */
  guint region;                 /* the first of its regions: their filter */
  /* samples its filter reads beyond a written one (the radius; 0 for
   * block filters, whose windows snap to whole blocks instead) */
  gint reach;
  guint first_write, n_writes;  /* disjoint rects of the coverage's writes */
} CudaConvPiece;

/* A run of a coverage's array: [first, first + n) */
typedef struct {
  guint first, n;
} CudaConvSpan;

/* The bytes of a plane that the pieces of one region (their first,
 * CudaConvPiece.region) read (their windows) and write (their rects) in
 * the filtered components: rows [y, y + h), bytes [x, x + w) of each
 * row. */
typedef struct {
  GstVideoRectangle read, written;
} CudaConvByteBox;

typedef struct {
  guint n_regions;
  CudaConvSpan parts[GST_VIDEO_MAX_COMPONENTS][CUDACONV_MAX_PARTS];
  CudaConvSpan planes[GST_VIDEO_MAX_PLANES];    /* of boxes */
  guint n_pieces, n_writes, n_boxes;
  CudaConvPiece *pieces;
  GstVideoRectangle *writes;
  CudaConvByteBox *boxes;
  /* entries allocated */
  guint pieces_size, writes_size, boxes_size;
  /* the build it holds: each build from other inputs than the last
   * numbers it anew, from one count of the process's (0: never built),
   * and a copy keeps its source's, so that two coverages of one
   * generation hold the same pieces (a back end that keeps work made for
   * them, a frame graph, knows it fits) */
  guint64 generation;
  /* what the coverage was built from, where the builder may take it again
   * (a copy holds none): the plan and its layout (remade in place when
   * the caps change), the border, and each region's rect, filter and its
   * reach */
  gboolean built;
  CudaConvPlan built_plan;
  CudaConvLayout built_layout;
  CcBorder built_border;
  guint built_size;
  CudaConvRegion *built_rects;
  const CcFilter **built_filters;
  gint *built_reach;
} CudaConvCoverage;

CudaConvCoverage *cudaconv_coverage_new (void);
void cudaconv_coverage_free (CudaConvCoverage * coverage);

/* Builds the coverage of the regions for a frame of plan (its buffer's
 * fields and crop already set), each region filtered with filters[k]
 * under border. Every component the plan filters or fills is covered.
 * Where the plan, the border, the regions, their filters and the filters'
 * shapes and radii are those it was last built from, it is left as it is,
 * its generation too: fixed boxes cost their coverage once. */
void cudaconv_coverage_build (CudaConvCoverage * coverage,
    const CudaConvPlan * plan, const CudaConvRegionSet * regions,
    const CcFilter * const *filters, CcBorder border);

/* Copies what src holds into dst (the used entries, dst's arrays grown
 * where they are too short). */
void cudaconv_coverage_copy (CudaConvCoverage * dst,
    const CudaConvCoverage * src);

/* The pieces of part number part of component comp; *n receives how many. */
static inline const CudaConvPiece *
cudaconv_coverage_pieces (const CudaConvCoverage * coverage, gint comp,
    guint part, guint * n)
{
  const CudaConvSpan *s = &coverage->parts[comp][part];

  *n = s->n;
  return &coverage->pieces[s->first];
}

/* The byte boxes of plane p, one per region that is the first of pieces
 * touching it, in the regions' order; *n receives how many. */
static inline const CudaConvByteBox *
cudaconv_coverage_boxes (const CudaConvCoverage * coverage, guint p,
    guint * n)
{
  const CudaConvSpan *s = &coverage->planes[p];

  *n = s->n;
  return &coverage->boxes[s->first];
}

G_END_DECLS
#endif /* CUDACONV_COVERAGE_H */

/* cudaconv: the regions of a frame that region=inside and region=outside
 * act on.
 *
 * They come from the buffer's metas (GstVideoRegionOfInterestMeta, and the
 * object detections of GStreamer's analytics metas where the build has that
 * library) and from fixed boxes the application gives, in pixels of the
 * caps' frame. Each is grown by the margin, clipped to the frame, and kept
 * for the hold's frames after it was last reported, so that a missed
 * detection or a fast head does not uncover what it hid. Bad boxes (empty,
 * negative, outside the frame, coordinates no frame has) are counted and
 * left out; nothing here reads or writes a pixel. */
#ifndef CUDACONV_REGIONS_H
#define CUDACONV_REGIONS_H

#include <gst/video/video.h>

G_BEGIN_DECLS

/* Most regions a frame is filtered in, each as itself; past it, every
 * cell of a CUDACONV_MERGE_GRID x CUDACONV_MERGE_GRID grid over the frame
 * that any region touches is filtered (the cells as a few rects), which
 * hides no less. */
#define CUDACONV_MAX_REGIONS 1024
#define CUDACONV_MERGE_GRID 32
/* Most fixed boxes (the region-boxes property) */
#define CUDACONV_MAX_FIXED_BOXES CUDACONV_MAX_REGIONS
/* Most distinct regions a stream holds from earlier frames; past it, the
 * held ones become the cells of the grid above that they touch (as a few
 * rects), each rect held as long as the newest region in its cells. */
#define CUDACONV_MAX_HELD_REGIONS (4 * CUDACONV_MAX_REGIONS)
/* Most frames a region is held for (the region-hold property) */
#define CUDACONV_MAX_REGION_HOLD 300
/* Coordinates beyond this are taken as garbage, not a frame's */
#define CUDACONV_MAX_REGION_COORD (1 << 20)

/* A rectangle of the frame in pixels: x, y, w, h, inside the frame and not
 * empty once collected. */
typedef GstVideoRectangle CudaConvRegion;

/* Where the regions come from, and how they are grown and held; the
 * element's settings. */
typedef struct {
  /* ROI types or analytics labels to take, as quarks; none: all */
  GQuark types[16];
  guint n_types;
  /* the fixed boxes, CudaConvRegion after CudaConvRegion; NULL: none.
   * Immutable and shared: whoever copies the rules takes a reference. */
  GBytes *boxes;
  gdouble margin;               /* of the box's own width and height, per side */
  guint hold;                   /* frames */
} CudaConvRegionRules;

/* The regions of one frame. */
typedef struct {
  CudaConvRegion rects[CUDACONV_MAX_REGIONS];
  guint n;
} CudaConvRegionSet;

/* What a stream remembers between frames: the regions reported in each of
 * the last hold frames. */
typedef struct _CudaConvRegionHistory CudaConvRegionHistory;

/* Parses "x,y,w,h;x,y,w,h": integer pixels, up to CUDACONV_MAX_FIXED_BOXES
 * boxes, into *boxes (NULL for "" or NULL: none). Fails with a message
 * that names the box. */
gboolean cudaconv_regions_parse_boxes (const gchar * text, GBytes ** boxes,
    GError ** error);

/* The fixed boxes of rules; *n receives how many. */
const CudaConvRegion *cudaconv_regions_fixed_boxes (const CudaConvRegionRules *
    rules, guint * n);

/* Parses "face,licence-plate": names separated by ',' (spaces around them
 * ignored), at most 16; "" or NULL takes every type. */
gboolean cudaconv_regions_parse_types (const gchar * text, GQuark types[16],
    guint * n_types, GError ** error);

/* Whether the build reads the analytics library's object detections */
gboolean cudaconv_regions_have_analytics (void);

CudaConvRegionHistory *cudaconv_region_history_new (void);
void cudaconv_region_history_free (CudaConvRegionHistory * history);
/* Forgets every region held (flush, new caps) */
void cudaconv_region_history_clear (CudaConvRegionHistory * history);

/* The regions of buffer, a frame of width x height pixels: those its metas
 * report (of the rules' types) and the fixed boxes, grown, clipped, joined
 * with those reported in the last rules->hold frames (history, which it
 * updates; NULL holds nothing). A box reported again as it was is held
 * once. *n_bad receives how many boxes were left out as bad, *n_merged how
 * many regions the frame had where they were more than
 * CUDACONV_MAX_REGIONS and were merged (0 where they were not). Regions
 * may overlap or contain each other: the coverage filters what they cover
 * once (cudaconv-coverage.h). */
void cudaconv_regions_collect (const CudaConvRegionRules * rules,
    CudaConvRegionHistory * history, GstBuffer * buffer, gint width,
    gint height, CudaConvRegionSet * set, guint * n_bad, guint * n_merged);

G_END_DECLS
#endif /* CUDACONV_REGIONS_H */

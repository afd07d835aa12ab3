/* The regions of the privacy-blur rows, shared by cudaconv-bench (the
 * element end to end) and cudaconv-region-host-cost (the host's collect
 * and coverage of the same regions), on a 1920x1080 frame. */
#ifndef BENCH_CROWDS_H
#define BENCH_CROWDS_H

#include <gst/gst.h>

#include "cudaconv-coverage.h"

/* four 288x180 boxes, one near each corner: 4 * 51840 pixels, 10% of
 * 1920x1080 (region-boxes) */
#define BENCH_FOUR_BOXES \
  "100,100,288,180;1532,100,288,180;100,800,288,180;1532,800,288,180"

/* 200 boxes of 16x16 on a 20x10 grid over 1920x1080 (region-boxes) */
gchar *bench_crowd_boxes (void);

/* 64 boxes of 1600x900, each most of the frame, shifted a few pixels
 * (region-boxes) */
gchar *bench_overlapping_boxes (void);

/* Adds to the writable buf the n ROI metas of frame i of a width x height
 * stream: a crowd of boxes of 8 to 40 pixels drifting 3,2 pixels a frame,
 * so that no frame repeats another's boxes. */
void bench_add_moving_metas (GstBuffer * buf, int width, int height, int n,
    int i);

/* A 1920x1080 I420 frame filtered inside its regions, as the element
 * sets the frame library up for it: the plan of its three components,
 * region-boxes and region-hold as rules, every region with one filter */
typedef struct {
  GstVideoInfo info;
  CudaConvLayout layout;
  CudaConvPlan plan;
  CudaConvRegionRules rules;
  CudaConvRegionHistory *history;
  CudaConvRegionSet *set;
  CudaConvCoverage *coverage;
  const CcFilter **filters;
} BenchRegionFrame;

/* boxes as region-boxes takes them (NULL: none); aborts where they do not
 * parse */
void bench_region_frame_init (BenchRegionFrame * f, const char *boxes,
    guint hold, const CcFilter * filter);
void bench_region_frame_clear (BenchRegionFrame * f);

#endif /* BENCH_CROWDS_H */

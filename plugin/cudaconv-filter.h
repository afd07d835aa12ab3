/* cudaconv: a filter ready for the back ends, made from weights, divisor and
 * offset. */
#ifndef CUDACONV_FILTER_H
#define CUDACONV_FILTER_H

#include <glib.h>
#include "cudaconv-weights.h"

G_BEGIN_DECLS

typedef struct {
  int radius;
  CcResponse response;
  float offset;
  float taps[CC_MAX_TAPS];      /* weights / divisor */
  gboolean identity;            /* output == input for every sample */
  /* taps[i][j] == col_taps[i] * row_taps[j], found by
   * cudaconv_filter_prepare for any linear filter of rank one */
  gboolean separable;
  float col_taps[CC_MAX_SIDE];
  float row_taps[CC_MAX_SIDE];
} CudaConvFilter;

/* The divisor actually used: divisor when non-zero, else the sum of the
 * (first filter's) weights, else 1 when that sum is 0 (to within rounding:
 * 1e-9 of the sum of the weights' magnitudes). */
double cudaconv_effective_divisor (const CudaConvWeights * weights,
    double divisor);

/* Folds the divisor into the weights. Fails, with a message that names the
 * divisor or the matrix, when the resulting taps are too large for the back
 * ends' single-precision sums; every filter it makes gives finite sums for
 * every input. */
gboolean cudaconv_filter_prepare (const CudaConvWeights * weights,
    double divisor, double offset, CudaConvFilter * out, GError ** error);

/* The back ends' view of the filter, with its factors when it is separable;
 * valid while filter lives. */
CcFilter cudaconv_filter_view (const CudaConvFilter * filter);

G_END_DECLS
#endif /* CUDACONV_FILTER_H */

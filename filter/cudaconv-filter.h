/* cudaconv: the filter both back ends run (CcFilter), made from weights,
 * divisor and offset. */
#ifndef CUDACONV_FILTER_H
#define CUDACONV_FILTER_H

#include <glib.h>
#include "cudaconv-weights.h"

G_BEGIN_DECLS

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
    double divisor, double offset, CcFilter * out, GError ** error);

/* Whether the filter leaves every sample as it is: a 1x1 [1] with no
 * offset. */
gboolean cudaconv_filter_is_identity (const CcFilter * filter);

G_END_DECLS
#endif /* CUDACONV_FILTER_H */

/* cudaconv: the presets that run as wide shapes (cudaconv-kernel-types.h),
 * made straight as a CcFilter: pixelate at every radius, and box, gaussian
 * and sharpen beyond CC_MAX_RADIUS, whose (2r+1)^2 table would not fit. */
#ifndef CUDACONV_WIDE_FILTER_H
#define CUDACONV_WIDE_FILTER_H

#include <glib.h>
#include "cudaconv-kernel-enum.h"
#include "cudaconv-kernel-types.h"

G_BEGIN_DECLS

/* Whether the preset at this radius is made here rather than from weights */
gboolean cudaconv_preset_is_wide (GstCudaConvKernel kernel, int radius);

/* The filter the preset's weights (cudaconv-presets.h) would make with this
 * divisor and offset (cudaconv-filter.h): box and pixelate sum (2r+1)^2
 * ones, so divisor 0 divides by that count; gaussian and sharpen weights
 * sum to 1. Fails, with a message that names the divisor, where the
 * result is too large for the back ends' sums. */
gboolean cudaconv_wide_filter_make (GstCudaConvKernel kernel, int radius,
    double sigma, double divisor, double offset, CcFilter * out,
    GError ** error);

G_END_DECLS
#endif /* CUDACONV_WIDE_FILTER_H */

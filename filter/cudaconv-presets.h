/* cudaconv: the preset filters of the kernel property. */
#ifndef CUDACONV_PRESETS_H
#define CUDACONV_PRESETS_H

#include <glib.h>
#include "cudaconv-kernel-enum.h"
#include "cudaconv-weights.h"

G_BEGIN_DECLS

/* The sigma a gaussian of this radius uses: sigma itself when > 0, else
 * 0.3 * (radius - 1) + 0.8 (OpenCV's rule for a (2r+1)-tap kernel), which
 * puts the kernel's edge near 2.5 to 3 sigma for every radius. */
double cudaconv_gaussian_sigma (int radius, double sigma);

/* Fills out with the preset's weights. radius is used by box, gaussian and
 * sharpen (at most CC_MAX_RADIUS here) and ignored by the fixed 3x3
 * presets. Returns FALSE for GST_CUDACONV_KERNEL_CUSTOM, whose weights come
 * from the matrix, and for pixelate, which has none (cudaconv-wide-filter.h). */
gboolean cudaconv_preset_weights (GstCudaConvKernel kernel, int radius,
    double sigma, CudaConvWeights * out);

/* Presets whose output is an edge map rather than a picture: on YUV formats
 * their chroma is made neutral by default. */
gboolean cudaconv_kernel_is_edge_map (GstCudaConvKernel kernel);

G_END_DECLS
#endif /* CUDACONV_PRESETS_H */

/* cudaconv: presets as wide shapes.
 *
 * A 2D gaussian exp(-(x^2 + y^2) / (2 sigma^2)) is the outer product of
 * the 1D g(x) = exp(-x^2 / (2 sigma^2)) with itself, and normalising g to
 * sum 1 normalises the product: so the wide gaussian is the table the
 * narrow one holds, factored exactly. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <gst/gst.h>

#include "cudaconv-wide-filter.h"
#include "cudaconv-presets.h"

/* As cudaconv-filter.c: the magnitudes of what multiplies the samples must
 * add up to less than this for single-precision sums of samples up to
 * 65535 to stay finite. */
#define MAX_TAP_MAGNITUDES (FLT_MAX / 2 / 65535.0)

gboolean
cudaconv_preset_is_wide (GstCudaConvKernel kernel, int radius)
{
  switch (kernel) {
    case GST_CUDACONV_KERNEL_PIXELATE:
      return TRUE;
    case GST_CUDACONV_KERNEL_BOX:
    case GST_CUDACONV_KERNEL_GAUSSIAN:
    case GST_CUDACONV_KERNEL_SHARPEN:
      return radius > CC_MAX_RADIUS;
    default:
      return FALSE;
  }
}

/* g(x) = exp(-(x / sigma)^2 / 2) over |x| <= r, normalised to sum 1 */
static void
gaussian_factor (int radius, double sigma, double *g)
{
  const double s = cudaconv_gaussian_sigma (radius, sigma);
  double sum = 0.0;

  for (int i = 0; i <= 2 * radius; i++) {
    double u = (i - radius) / s;
    g[i] = exp (-0.5 * u * u);
    sum += g[i];
  }
  for (int i = 0; i <= 2 * radius; i++)
    g[i] /= sum;
}

static gboolean
too_large (double magnitudes, double divisor, GError ** error)
{
  if (magnitudes < MAX_TAP_MAGNITUDES)
    return FALSE;
  g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "the weights divided by divisor=%g add up to %g in magnitude, more "
      "than single-precision sums hold (%g)", divisor, magnitudes,
      MAX_TAP_MAGNITUDES);
  return TRUE;
}

gboolean
cudaconv_wide_filter_make (GstCudaConvKernel kernel, int radius,
    double sigma, double divisor, double offset, CcFilter * out,
    GError ** error)
{
  const int side = 2 * radius + 1;
  double g[CC_MAX_WIDE_SIDE], d, magnitudes = 0.0;

  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (radius >= 0 && radius <= CC_MAX_WIDE_RADIUS, FALSE);
  g_return_val_if_fail (cudaconv_preset_is_wide (kernel, radius), FALSE);

  memset (out, 0, sizeof (*out));
  out->radius = radius;
  out->response = CC_RESPONSE_LINEAR;
  out->offset = (float) offset;
  switch (kernel) {
    case GST_CUDACONV_KERNEL_BOX:
    case GST_CUDACONV_KERNEL_PIXELATE:
      d = divisor != 0.0 ? divisor : (double) side * side;
      if (too_large ((double) side * side / fabs (d), divisor, error))
        return FALSE;
      out->shape = kernel == GST_CUDACONV_KERNEL_BOX ? CC_SHAPE_BOX :
          CC_SHAPE_BLOCKS;
      out->scale = 1.0 / d;
      return TRUE;
    case GST_CUDACONV_KERNEL_GAUSSIAN:
    case GST_CUDACONV_KERNEL_SHARPEN:
      /* both sum to 1, so divisor 0 divides by 1 */
      d = divisor != 0.0 ? divisor : 1.0;
      gaussian_factor (radius, sigma, g);
      out->shape = CC_SHAPE_WIDE;
      if (kernel == GST_CUDACONV_KERNEL_SHARPEN) {
        /* 2 * identity - gaussian: the centre adds 2 in, the factors take
         * the gaussian away */
        out->centre = (float) (2.0 / d);
        magnitudes = 2.0 / fabs (d);
        d = -d;
      }
      for (int i = 0; i < side; i++) {
        out->col_taps[i] = (float) (g[i] / d);
        out->row_taps[i] = (float) g[i];
      }
      /* the factors sum to 1 / |d| in magnitude, their product as well */
      magnitudes += 1.0 / fabs (d);
      return !too_large (magnitudes, divisor, error);
    default:
      g_return_val_if_reached (FALSE);
  }
}

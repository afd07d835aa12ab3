/* cudaconv: preset filters.
 *
 * Fixed-size presets are 3x3 tables; their radius property is ignored. Weights
 * are before the divisor: with divisor=0 (the default) the element divides by
 * their sum, or by 1 where they sum to 0 (the edge filters). */
#include <math.h>
#include <string.h>

#include "cudaconv-presets.h"

/* 8-neighbour Laplacian, sign flipped so bright lines on dark come out
 * bright: 8 * centre - sum of the 8 neighbours. Sums to 0. */
static const double laplacian_3x3[9] = {
  -1, -1, -1,
  -1, 8, -1,
  -1, -1, -1,
};

/* Sobel derivative along x: central difference [-1 0 1] smoothed by [1 2 1]
 * across. Sums to 0; positive where brightness rises to the right. */
static const double sobel_x_3x3[9] = {
  -1, 0, 1,
  -2, 0, 2,
  -1, 0, 1,
};

/* Sobel derivative along y, the transpose: positive where brightness rises
 * downwards. */
static const double sobel_y_3x3[9] = {
  -1, -2, -1,
  0, 0, 0,
  1, 2, 1,
};

/* Emboss lit from the top left: the gradient along the main diagonal plus the
 * centre, so it sums to 1 and flat areas keep their value. */
static const double emboss_3x3[9] = {
  -2, -1, 0,
  -1, 1, 1,
  0, 1, 2,
};

double
cudaconv_gaussian_sigma (int radius, double sigma)
{
  return sigma > 0.0 ? sigma : 0.3 * (radius - 1) + 0.8;
}

/* w(x, y) = exp(-(x^2 + y^2) / (2 sigma^2)) over |x|, |y| <= r, divided by
 * its sum so that flat areas keep their value. Written with x / sigma, which
 * only overflows to a weight of 0, so that a sigma too small to square
 * (1e-170) gives the limit, the identity, instead of 0 / 0 at the centre. */
static void
gaussian (int radius, double sigma, CudaConvWeights * out)
{
  const int side = 2 * radius + 1;
  const double s = cudaconv_gaussian_sigma (radius, sigma);
  double sum = 0.0;

  out->side = side;
  out->response = CC_RESPONSE_LINEAR;
  for (int i = 0; i < side; i++) {
    for (int j = 0; j < side; j++) {
      double dy = i - radius, dx = j - radius;
      double u = dx / s, v = dy / s;
      double w = exp (-0.5 * (u * u + v * v));
      out->coeffs[i * side + j] = w;
      sum += w;
    }
  }
  for (int k = 0; k < side * side; k++)
    out->coeffs[k] /= sum;
}

static void
fixed_3x3 (const double *table, CcResponse response, const double *second,
    CudaConvWeights * out)
{
  out->side = 3;
  out->response = response;
  memcpy (out->coeffs, table, 9 * sizeof (double));
  if (second)
    memcpy (out->coeffs + 9, second, 9 * sizeof (double));
}

gboolean
cudaconv_preset_weights (GstCudaConvKernel kernel, int radius, double sigma,
    CudaConvWeights * out)
{
  const int side = 2 * radius + 1;

  g_return_val_if_fail (out != NULL, FALSE);
  /* the 3x3 presets ignore the radius, which may be up to 127; wider box,
   * gaussian and sharpen filters are made by cudaconv-wide-filter.c */
  if (kernel == GST_CUDACONV_KERNEL_BOX
      || kernel == GST_CUDACONV_KERNEL_GAUSSIAN
      || kernel == GST_CUDACONV_KERNEL_SHARPEN)
    g_return_val_if_fail (radius >= 0 && radius <= CC_MAX_RADIUS, FALSE);

  switch (kernel) {
    case GST_CUDACONV_KERNEL_IDENTITY:
      out->side = 1;
      out->response = CC_RESPONSE_LINEAR;
      out->coeffs[0] = 1.0;
      return TRUE;
    case GST_CUDACONV_KERNEL_BOX:
      /* (2r+1)^2 ones; the default divisor makes it their mean */
      out->side = side;
      out->response = CC_RESPONSE_LINEAR;
      for (int k = 0; k < side * side; k++)
        out->coeffs[k] = 1.0;
      return TRUE;
    case GST_CUDACONV_KERNEL_GAUSSIAN:
      gaussian (radius, sigma, out);
      return TRUE;
    case GST_CUDACONV_KERNEL_SHARPEN:
      /* unsharp mask of amount 1: in + (in - blur) = 2 * identity - gaussian,
       * which sums to 1 */
      gaussian (radius, sigma, out);
      for (int k = 0; k < side * side; k++)
        out->coeffs[k] = -out->coeffs[k];
      out->coeffs[radius * side + radius] += 2.0;
      return TRUE;
    case GST_CUDACONV_KERNEL_EDGE:
      fixed_3x3 (laplacian_3x3, CC_RESPONSE_LINEAR, NULL, out);
      return TRUE;
    case GST_CUDACONV_KERNEL_SOBEL:
      fixed_3x3 (sobel_x_3x3, CC_RESPONSE_MAGNITUDE, sobel_y_3x3, out);
      return TRUE;
    case GST_CUDACONV_KERNEL_SOBEL_X:
      fixed_3x3 (sobel_x_3x3, CC_RESPONSE_LINEAR, NULL, out);
      return TRUE;
    case GST_CUDACONV_KERNEL_SOBEL_Y:
      fixed_3x3 (sobel_y_3x3, CC_RESPONSE_LINEAR, NULL, out);
      return TRUE;
    case GST_CUDACONV_KERNEL_EMBOSS:
      fixed_3x3 (emboss_3x3, CC_RESPONSE_LINEAR, NULL, out);
      return TRUE;
    case GST_CUDACONV_KERNEL_CUSTOM:
    default:
      return FALSE;
  }
}

gboolean
cudaconv_kernel_is_edge_map (GstCudaConvKernel kernel)
{
  switch (kernel) {
    case GST_CUDACONV_KERNEL_EDGE:
    case GST_CUDACONV_KERNEL_SOBEL:
    case GST_CUDACONV_KERNEL_SOBEL_X:
    case GST_CUDACONV_KERNEL_SOBEL_Y:
    case GST_CUDACONV_KERNEL_EMBOSS:
      return TRUE;
    default:
      return FALSE;
  }
}

/* cudaconv: weights, divisor and offset folded into one float filter.
 *
 * Dividing the weights once here, in double, instead of the sum in every
 * sample saves a multiply per output and keeps float sums near the sample
 * range, where float has ample precision for 16-bit samples. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <gst/gst.h>

#include "cudaconv-filter.h"

/* The sum of the first filter's weights is sum * scale, where scale is the
 * largest weight's magnitude, so that nine weights of 1e308 do not add up
 * to infinity. A sum within SUM_IS_ZERO of the sum of the weights'
 * magnitudes is rounding residue of weights meant to cancel (0.1 + 0.2 -
 * 0.3): such filters are divided by 1, however small the weights are. */
#define SUM_IS_ZERO 1e-9

static double
scaled_sum (const CudaConvWeights * weights, double *scale)
{
  const int n = weights->side * weights->side;
  double largest = 0.0, sum = 0.0, magnitudes = 0.0;

  for (int k = 0; k < n; k++)
    largest = MAX (largest, fabs (weights->coeffs[k]));
  *scale = largest;
  if (largest == 0.0)
    return 0.0;
  for (int k = 0; k < n; k++) {
    sum += weights->coeffs[k] / largest;
    magnitudes += fabs (weights->coeffs[k]) / largest;
  }
  return fabs (sum) <= SUM_IS_ZERO * magnitudes ? 0.0 : sum;
}

double
cudaconv_effective_divisor (const CudaConvWeights * weights, double divisor)
{
  double scale, sum;

  if (divisor != 0.0)
    return divisor;
  sum = scaled_sum (weights, &scale);
  return sum == 0.0 ? 1.0 : sum * scale;
}

/* The back ends add up taps times samples of up to 65535 in single
 * precision: with the magnitudes of the taps summing to less than this, no
 * partial sum can be infinite, so none can become NaN (inf - inf) either. */
#define MAX_TAP_MAGNITUDES (FLT_MAX / 2 / 65535.0)

/* A rank-one matrix is the outer product of any of its non-zero columns and
 * rows: taking the largest tap t[p][q] as pivot, col[i] = t[i][q] and
 * row[j] = t[p][j] / t[p][q]. The filter counts as separable when that
 * product rebuilds every tap to within a float's rounding of the largest;
 * the two passes then differ from the 2D sum by less than that, far below
 * the half a sample step that rounding the output hides. */
#define SEPARABLE_TOLERANCE 1e-6

static gboolean
factor_rank_one (const double *t, int side, float *col, float *row)
{
  int p = 0, q = 0;
  double max = 0.0;

  for (int i = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      if (fabs (t[i * side + j]) > max) {
        max = fabs (t[i * side + j]);
        p = i;
        q = j;
      }
  if (max == 0.0)
    return FALSE;
  for (int i = 0; i < side; i++)
    for (int j = 0; j < side; j++) {
      double rebuilt = t[i * side + q] * (t[p * side + j] / t[p * side + q]);
      if (fabs (rebuilt - t[i * side + j]) > SEPARABLE_TOLERANCE * max)
        return FALSE;
    }
  for (int i = 0; i < side; i++) {
    col[i] = (float) t[i * side + q];
    row[i] = (float) (t[p * side + i] / t[p * side + q]);
  }
  return TRUE;
}

gboolean
cudaconv_filter_prepare (const CudaConvWeights * weights, double divisor,
    double offset, CcFilter * out, GError ** error)
{
  const int side = weights->side, n = side * side *
      (weights->response == CC_RESPONSE_MAGNITUDE ? 2 : 1);
  double scale = 1.0, sum = 0.0, taps[CC_MAX_TAPS], magnitudes[2] = { 0.0, 0.0 };

  if (divisor == 0.0)
    sum = scaled_sum (weights, &scale);
  for (int k = 0; k < n; k++) {
    if (divisor != 0.0)
      taps[k] = weights->coeffs[k] / divisor;
    else if (sum != 0.0)
      taps[k] = weights->coeffs[k] / scale / sum;
    else
      taps[k] = weights->coeffs[k];
    magnitudes[k / (side * side)] += fabs (taps[k]);
  }
  if (!(MAX (magnitudes[0], magnitudes[1]) < MAX_TAP_MAGNITUDES)) {
    if (divisor != 0.0)
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
          "the weights divided by divisor=%g add up to %g in magnitude, "
          "more than single-precision sums hold (%g)", divisor,
          MAX (magnitudes[0], magnitudes[1]), MAX_TAP_MAGNITUDES);
    else
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
          "the matrix's weights sum to 0, so they are divided by 1, and add "
          "up to %g in magnitude, more than single-precision sums hold (%g)",
          MAX (magnitudes[0], magnitudes[1]), MAX_TAP_MAGNITUDES);
    return FALSE;
  }

  memset (out, 0, sizeof (*out));
  out->radius = side / 2;
  out->response = weights->response;
  out->offset = (float) offset;
  for (int k = 0; k < n; k++)
    out->taps[k] = (float) taps[k];
  out->separable = weights->response == CC_RESPONSE_LINEAR && side > 1
      && factor_rank_one (taps, side, out->col_taps, out->row_taps);
  return TRUE;
}

gboolean
cudaconv_filter_is_identity (const CcFilter * filter)
{
  return filter->radius == 0 && filter->response == CC_RESPONSE_LINEAR
      && filter->taps[0] == 1.0f && filter->offset == 0.0f;
}

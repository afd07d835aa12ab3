/* cudaconv: weights, divisor and offset folded into one float filter.
 *
 * Dividing the weights once here, in double, instead of the sum in every
 * sample saves a multiply per output and keeps float sums near the sample
 * range, where float has ample precision for 16-bit samples. */
#include <math.h>

#include "cudaconv-filter.h"

double
cudaconv_effective_divisor (const CudaConvWeights * weights, double divisor)
{
  double sum = 0.0;

  if (divisor != 0.0)
    return divisor;
  for (int k = 0; k < weights->side * weights->side; k++)
    sum += weights->coeffs[k];
  /* sums like 1e-17 are rounding residue of weights meant to cancel */
  return fabs (sum) < 1e-9 ? 1.0 : sum;
}

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

void
cudaconv_filter_prepare (const CudaConvWeights * weights, double divisor,
    double offset, CudaConvFilter * out)
{
  const int n = weights->side * weights->side *
      (weights->response == CC_RESPONSE_MAGNITUDE ? 2 : 1);
  const double d = cudaconv_effective_divisor (weights, divisor);

  out->radius = weights->side / 2;
  out->response = weights->response;
  out->offset = (float) offset;
  for (int k = 0; k < n; k++)
    out->taps[k] = (float) (weights->coeffs[k] / d);
  out->separable = FALSE;
  if (weights->response == CC_RESPONSE_LINEAR && weights->side > 1) {
    double scaled[CC_MAX_TAPS];
    for (int k = 0; k < n; k++)
      scaled[k] = weights->coeffs[k] / d;
    out->separable = factor_rank_one (scaled, weights->side, out->col_taps,
        out->row_taps);
  }
  out->identity = weights->side == 1
      && weights->response == CC_RESPONSE_LINEAR
      && weights->coeffs[0] / d == 1.0 && offset == 0.0;
}

CcFilter
cudaconv_filter_view (const CudaConvFilter * filter)
{
  CcFilter view = { filter->radius, filter->response, filter->offset,
    filter->taps, filter->separable ? filter->col_taps : NULL,
    filter->separable ? filter->row_taps : NULL
  };
  return view;
}

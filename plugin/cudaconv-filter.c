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
  out->identity = weights->side == 1
      && weights->response == CC_RESPONSE_LINEAR
      && weights->coeffs[0] / d == 1.0 && offset == 0.0;
}

CcFilter
cudaconv_filter_view (const CudaConvFilter * filter)
{
  CcFilter view = { filter->radius, filter->response, filter->offset,
    filter->taps
  };
  return view;
}

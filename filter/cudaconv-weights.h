/* cudaconv: filter weights as the user or a preset gives them, before the
 * divisor and offset are applied. */
#ifndef CUDACONV_WEIGHTS_H
#define CUDACONV_WEIGHTS_H

#include "cudaconv-kernel-types.h"

/* side x side weights, row-major; a CC_RESPONSE_MAGNITUDE filter holds a
 * second side x side filter right after the first. Weight (i, j) multiplies
 * the input sample at (x + j - r, y + i - r): a correlation, as image filters
 * are usually written, so sobel-x is positive where brightness rises to the
 * right. */
typedef struct {
  int side;
  CcResponse response;
  double coeffs[CC_MAX_TAPS];
} CudaConvWeights;

#endif /* CUDACONV_WEIGHTS_H */

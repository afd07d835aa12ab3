/* cudaconv: the one definition of the border policies, for host and device.
 *
 * Both back ends call this so that the CPU and the GPU agree on every ghost
 * cell; the tests use their own, independent definition. */
#ifndef CUDACONV_BORDER_H
#define CUDACONV_BORDER_H

#include "cudaconv-kernel-types.h"

/* Maps coordinate i of an axis of n samples to the sample that stands in for
 * it, or -1 when the ghost cell is zero. Works for any i, also when the filter
 * is wider than the plane (a 1x1 frame under a 31x31 filter). */
CC_HOST_DEVICE int
cc_border_index (int i, int n, CcBorder border)
{
  if (i >= 0 && i < n)
    return i;
  switch (border) {
    case CC_BORDER_ZERO:
      return -1;
    case CC_BORDER_CLAMP:
      return i < 0 ? 0 : n - 1;
    case CC_BORDER_MIRROR: {
      /* reflect-101 is periodic with period 2(n-1); fold into one period. */
      int period = 2 * (n - 1);
      if (period == 0)
        return 0;
      i %= period;
      if (i < 0)
        i += period;
      return i < n ? i : period - i;
    }
    case CC_BORDER_WRAP:
    default:
      i %= n;
      return i < 0 ? i + n : i;
  }
}

#endif /* CUDACONV_BORDER_H */

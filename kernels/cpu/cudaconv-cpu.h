/* cudaconv: host API of the CPU convolution back end.
 *
 * The same component and filter descriptions as cudaconv-cuda.h, on host
 * memory. Returns 0 on success or an errno value (EINVAL, ENOMEM). */
#ifndef CUDACONV_CPU_H
#define CUDACONV_CPU_H

#include "cudaconv-kernel-types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Convolves src into dst (distinct buffers) using up to n_threads threads.
 * Every shape of CcFilter: CC_SHAPE_BOX and CC_SHAPE_BLOCKS exactly
 * (floor(S * scale + offset + 0.5) on values, S the integer sum), at a
 * cost per sample that does not grow with the radius for box and blocks.
 * The wide shapes keep an intermediate the size of the plane (4 bytes a
 * sample) between calls. */
int cc_cpu_convolve (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads);

/* The n convolutions of src[k] into dst[k] with filters[k], as
 * cc_cpu_convolve would run them one after another (each dst apart from
 * every src), the bands of all those of CC_SHAPE_TAPS in one job of the
 * thread pool, so that many small ones (a frame's region windows) share
 * one wake-up of its threads; the other shapes after them, one by one.
 * Every convolution is checked first: none runs when one is invalid
 * (EINVAL). */
int cc_cpu_convolve_batch (const CcComponent *src, const CcComponent *dst,
    const CcFilter *const *filters, int n, CcBorder border, int n_threads);

/* All pixel_stride channels of each pixel at once, alike: src and dst
 * describe the first, at the start of each pixel (packed RGB, BGRA with
 * its alpha, NV12's UV). One pass over whole pixels, which vectorises
 * where a component at a time reads and writes every pixel_stride-th sample.
 * At most CC_MAX_LANES channels. The wide shapes run channel by channel. */
#define CC_MAX_LANES 4
int cc_cpu_convolve_pixels (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads);

/* Sets every sample of the component to value, saturated to its type. */
int cc_cpu_fill (const CcComponent *dst, unsigned value);

#ifdef __cplusplus
}
#endif
#endif /* CUDACONV_CPU_H */

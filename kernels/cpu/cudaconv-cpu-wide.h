/* cudaconv: the CPU back end's wide shapes (CC_SHAPE_WIDE, CC_SHAPE_BOX,
 * CC_SHAPE_BLOCKS), private to kernels/cpu. cudaconv-cpu.c checks the
 * arguments and hands these shapes here, one component at a time, or a
 * batch's all at once. */
#ifndef CUDACONV_CPU_WIDE_H
#define CUDACONV_CPU_WIDE_H

#include "cudaconv-kernel-types.h"

/* Convolves src into dst (valid, distinct, same geometry and bits) with a
 * valid filter of shape CC_SHAPE_WIDE, CC_SHAPE_BOX or CC_SHAPE_BLOCKS;
 * 0 or an errno value (EINVAL for another shape, ENOMEM). */
int cc_cpu_convolve_shape (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads);

/* cc_cpu_convolve_shape over n convolutions (src[i] into dst[i] with
 * filters[i], each of those shapes, lanes of one sample): the wide ones
 * together, each phase of all of them one pool job, the others one at a
 * time; 0 or the first errno value. */
int cc_cpu_convolve_shapes (const CcComponent *src, const CcComponent *dst,
    const CcFilter *const *filters, int n, CcBorder border, int n_threads);

#endif /* CUDACONV_CPU_WIDE_H */

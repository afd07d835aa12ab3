/* cudaconv: a sweep of up to TAPS_PER_SWEEP taps over a row, shared by
 * the CPU back end's files (private to kernels/cpu). Inline, so that each
 * file compiles it under its own floating-point flags: cudaconv-cpu-wide.c
 * contracts no multiply-add (kernels/meson.build), cudaconv-cpu.c may. */
#ifndef CUDACONV_CPU_SWEEP_H
#define CUDACONV_CPU_SWEEP_H

/* Up to 4 taps per sweep over a row: each sweep loads the partial sums
 * once for 4 multiply-adds instead of once per tap, which keeps the loops
 * on the FMA units rather than on loads and stores. */
#define TAPS_PER_SWEEP 4

/* Nanoseconds of one core per sample of a pass of sweeps with madds
 * multiply-adds a sample, for the pool to size jobs by: (4 + madds) / 16,
 * measured on 1080p planes (AMD EPYC, AVX2: 0.87 ns at 10 multiply-adds,
 * the separable r2 box, and 4.1 at 62, the separable r15 gaussian) */
#define CC_CPU_SWEEP_NS(madds) ((4.0 + (madds)) / 16.0)

/* acc[x] += sum_k w[k] * p[k][x] for n = 1 .. TAPS_PER_SWEEP terms, or
 * with assign acc[x] = that sum */
static inline __attribute__ ((always_inline)) void
cc_cpu_sweep (float *restrict acc, const float *const *p, const float *w, int n,
    int width, int assign)
{
  const float w0 = w[0], w1 = n > 1 ? w[1] : 0.0f;
  const float w2 = n > 2 ? w[2] : 0.0f, w3 = n > 3 ? w[3] : 0.0f;
  const float *restrict p0 = p[0];
  const float *restrict p1 = n > 1 ? p[1] : p[0];
  const float *restrict p2 = n > 2 ? p[2] : p[0];
  const float *restrict p3 = n > 3 ? p[3] : p[0];

/* clang-format would read "acc[x] OP w0 * p0[x]" as a declaration */
/* clang-format off */
#define SWEEP_LOOPS(OP) \
  switch (n) { \
    case 1: \
      for (int x = 0; x < width; x++) \
        acc[x] OP w0 * p0[x]; \
      break; \
    case 2: \
      for (int x = 0; x < width; x++) \
        acc[x] OP w0 * p0[x] + w1 * p1[x]; \
      break; \
    case 3: \
      for (int x = 0; x < width; x++) \
        acc[x] OP w0 * p0[x] + w1 * p1[x] + w2 * p2[x]; \
      break; \
    default: \
      for (int x = 0; x < width; x++) \
        acc[x] OP (w0 * p0[x] + w1 * p1[x]) + (w2 * p2[x] + w3 * p3[x]); \
      break; \
  }
  /* clang-format on */
  /* the first sweep of a sum writes it, saving a pass that zeroes it */
  if (assign)
    SWEEP_LOOPS (=)
  else
    SWEEP_LOOPS (+=)
#undef SWEEP_LOOPS
}

#endif /* CUDACONV_CPU_SWEEP_H */

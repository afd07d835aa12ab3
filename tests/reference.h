/* cudaconv tests: an independent double-precision reference convolution.
 *
 * Written from the element's documented formula only; it shares no code with
 * the back ends (its own border rule, its own rounding, double throughout). */
#ifndef CUDACONV_TEST_REFERENCE_H
#define CUDACONV_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  REF_BORDER_ZERO, REF_BORDER_CLAMP, REF_BORDER_MIRROR, REF_BORDER_WRAP
} RefBorder;

typedef struct {
  const void *data;             /* first sample of the channel */
  size_t pitch;                 /* bytes */
  int width, height;
  int pixel_stride;             /* samples */
  int bytes;                    /* 1 or 2 */
  /* a 16-bit sample's value is its bits shift .. shift + depth - 1
   * (depth 0: all 8 * bytes of them) */
  int depth, shift;
} RefImage;

/* The largest value of a sample of im. */
uint32_t ref_max_value (const RefImage * im);

/* out[y * width + x] = saturate(round(sum(w * in) / divisor + offset)), or
 * with magnitude, saturate(round(hypot(sum(w * in), sum(w2 * in)) / divisor
 * + offset)); weights are side x side, row-major, weight (i, j) on sample
 * (x + j - r, y + i - r). Uses several threads. */
void ref_convolve (const RefImage * in, const double *weights,
    const double *weights2, int side, double divisor, double offset,
    RefBorder border, uint32_t * out);

/* The wide shapes (cudaconv-kernel-types.h), on values, each out[y * width
 * + x] rounded half up (floor(v + 0.5)) and saturated:
 * ref_wide: v = centre * in(x, y) + sum(col[i] * row[j] * in(x + j - r,
 *   y + i - r)) + offset, i and j in 0 .. 2r;
 * ref_box: v = S * scale + offset, S the integer sum of the (2r+1)^2
 *   samples around (x, y), ghost cells by the border;
 * ref_blocks: v = S * scale * (2r+1)^2 / n + offset, S the integer sum of
 *   the n samples of the 2r+1 square block, counted from (0, 0), that
 *   holds (x, y) (edge blocks smaller: their mean); scale as given for a
 *   whole block. */
void ref_wide (const RefImage * in, int radius, const double *col,
    const double *row, double centre, double offset, RefBorder border,
    uint32_t * out);
void ref_box (const RefImage * in, int radius, double scale, double offset,
    RefBorder border, uint32_t * out);
void ref_blocks (const RefImage * in, int radius, double scale,
    double offset, uint32_t * out);

/* The sample of axis length n standing in for coordinate i, or -1 for 0. */
int ref_border_index (int i, int n, RefBorder border);

/* Deterministic random numbers for test data. */
typedef struct { uint64_t s; } RefRng;
void ref_rng_seed (RefRng * rng, uint64_t seed);
uint32_t ref_rng_u32 (RefRng * rng);
double ref_rng_uniform (RefRng * rng);   /* [0, 1) */
/* A seed from CUDACONV_TEST_SEED, or from the clock; printed either way so a
 * failure can be replayed. */
uint64_t ref_test_seed (void);

#endif

/* cudaconv kernel tests: what the topic files share.
 *
 * Each topic file (convolve.c, samples.c, wide.c, api.c) is built with
 * harness.c into a test program of its own, twice: as
 * test-kernels-cpu-<topic> (the 2D and the separable CPU paths), and with
 * KERNELS_CUDA as test-kernels-cuda-<topic>, which exits 77 (skip) when no
 * CUDA device is usable and runs, by name, every kernel family of the
 * catalogue that takes the case (cc_cuda_family_takes), plus the tuner's
 * pick through the selector. 2D families run the 2D cases, separable ones
 * the cases whose filters carry factors. Every case poisons the output
 * first and checks that each sample of the channel is within 1 of the
 * double reference (reference.c) and that every other byte (row padding,
 * other channels) still holds the poison. Each program ends with the line
 * "N passed, N failed". */
#ifndef CUDACONV_TEST_KERNELS_HARNESS_H
#define CUDACONV_TEST_KERNELS_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reference.h"
#include "cudaconv-kernel-types.h"
#include "cudaconv-cpu.h"
#ifdef KERNELS_CUDA
#include "cudaconv-cuda.h"
#endif

#define POISON 0xA5

/* What a topic file gives the harness's main(): its tests, run in order
 * on the one random stream main() seeds. */
void run_topic (RefRng * rng);

typedef struct {
  const char *name;
  int family;                   /* CcFamily, or TUNED */
  int separable;                /* needs a filter with factors */
} Variant;

/* cc_cuda_convolve with the strategy the tuner picks; also runs fills */
#define TUNED -1

/* The CUDA build's variants are the families in CcFamily's order, then the
 * tuner's pick; the CPU build's are its 2D and its separable path. */
extern const Variant variants[];
extern const int n_variants;

#ifdef KERNELS_CUDA
/* ran[family][bytes - 1][radius][border]: a case of it passed */
extern unsigned char ran[CC_N_FAMILIES][2][CC_MAX_WIDE_RADIUS + 1][4];
#endif

extern const char *const border_names[4];

extern int n_cases, n_failed;
/* how far an output may be from the reference: 1 for sums in float, 0
 * for the shapes summed exactly (box, blocks) */
extern unsigned tolerance;
/* CUDACONV_TEST_VERBOSE is set */
extern int verbose;

/* Runs a test function, named first where verbose */
#define RUN(test, ...) \
  do { \
    if (verbose) \
      printf ("test %s\n", #test); \
    test (__VA_ARGS__); \
  } while (0)

typedef struct {
  int width, height, pixel_stride, channel, bytes;
  int depth, shift;             /* CcComponent's; 0, 0 for whole samples */
  size_t pitch;
  unsigned char *in, *out;      /* host, pitch * height bytes each */
} Image;

/* How rows start: the kernels store whole 16-byte vectors, whole quads (4
 * samples) or single samples, depending on it. */
typedef enum {
  ROWS_UNALIGNED = 0,
  ROWS_16_BYTES = 1,
  ROWS_QUADS = 2                /* every other row on 16 bytes */
} RowLayout;

void image_init (Image * im, RefRng * rng, int width, int height, int bytes,
    int pixel_stride, int channel, RowLayout layout);
void image_set_bits (Image * im, int depth, int shift);
void image_clear (Image * im);
CcComponent channel_of (const Image * im, unsigned char *base);
RefImage ref_image (const Image * im);

/* Runs one case on every variant and checks it against ref. */
void check_case (const char *what, const Image * im, const CcFilter * f,
    CcBorder border, const uint32_t * ref, int fill, unsigned fill_value);
void check_all_borders (const char *what, const Image * im, const double *w,
    const double *w2, int side, double divisor, double offset,
    const CcFilter * f, uint32_t * ref);

#ifndef KERNELS_CUDA
/* The whole-pixel tests' checks (the CPU back end's
 * cc_cpu_convolve_pixels) */
int samples_off (const Image * im, const uint32_t * ref, unsigned within);
size_t stray_past_pixels (const Image * im);
#endif

void random_weights (RefRng * rng, int side, int signed_weights, double *w,
    double *divisor, double *offset, double max);
void to_filter (const double *w, const double *w2, int side, double divisor,
    double offset, CcFilter * f);

/* One test case's filter: weights w (for the reference), divisor and
 * offset, and the back ends' filter f. */
typedef struct {
  double w[CC_MAX_TAPS];
  double divisor, offset;
  CcFilter f;
} Filters;

typedef void (*MakeFilters) (RefRng * rng, int side, int signed_weights,
    double max, Filters * out);

void random_filters (RefRng * rng, int side, int signed_weights, double max,
    Filters * out);
void separable_filters (RefRng * rng, int side, int signed_weights,
    double max, Filters * out);

/* The radii the tests run the taps at (lists ending in 0) and the wide
 * shapes at (lists ending in -1); the families' coverage is checked at
 * them. */
extern const int radii_2d[];
extern const int radii_separable[];
extern const int radii_wide[];
extern const int radii_sums[];

#ifdef KERNELS_CUDA
void check_family_coverage (int wide_families);
#endif

#endif /* CUDACONV_TEST_KERNELS_HARNESS_H */

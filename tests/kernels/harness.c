/* cudaconv kernel tests: the shared harness (harness.h says what it
 * holds): the variants and how a case runs on each, the checks against
 * the double reference, the filters the topics draw, the families'
 * coverage, and main(), which skips where no CUDA device is usable, runs
 * the topic's tests and prints the summary line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#ifndef KERNELS_CUDA
#include "cudaconv-cpu-pool.h"
#endif

#ifdef KERNELS_CUDA
const Variant variants[] = {
  {"2d-strip-tiled-halo", CC_FAMILY_2D_STRIP_TILED_HALO, 0},
  {"2d-strip-cache-halo", CC_FAMILY_2D_STRIP_CACHE_HALO, 0},
  {"2d-row-block", CC_FAMILY_2D_ROW_BLOCK, 0},
  {"2d-tiled-halo", CC_FAMILY_2D_TILED_HALO, 0},
  {"2d-cache-halo", CC_FAMILY_2D_CACHE_HALO, 0},
  {"separable-strip-mma", CC_FAMILY_SEPARABLE_STRIP_MMA, 1},
  {"separable-strip-fp32", CC_FAMILY_SEPARABLE_STRIP_FP32, 1},
  {"separable-tile-mma", CC_FAMILY_SEPARABLE_TILE_MMA, 1},
  {"separable-tile-fp32", CC_FAMILY_SEPARABLE_TILE_FP32, 1},
  {"separable-wide-mma", CC_FAMILY_SEPARABLE_WIDE_MMA, 0},
  {"separable-wide", CC_FAMILY_SEPARABLE_WIDE, 0},
  {"box-strip", CC_FAMILY_BOX_STRIP, 0},
  {"box-lines", CC_FAMILY_BOX_LINES, 0},
  {"box-running-sum", CC_FAMILY_BOX_RUNNING_SUM, 0},
  {"block-mean", CC_FAMILY_BLOCK_MEAN, 0},
  {"fastest", TUNED, 0},
};
unsigned char ran[CC_N_FAMILIES][2][CC_MAX_WIDE_RADIUS + 1][4];
#else
const Variant variants[] = { {"cpu", 0, 0}, {"cpu-separable", 0, 1} };
#endif
const int n_variants = (int) (sizeof (variants) / sizeof (variants[0]));
/* run_variant's answer for a family that does not take the case */
#define NOT_TAKEN 1

const char *const border_names[4] = { "zero", "clamp", "mirror", "wrap" };

int n_cases, n_failed;
unsigned tolerance = 1;
int verbose;

void
image_init (Image * im, RefRng * rng, int width, int height, int bytes,
    int pixel_stride, int channel, RowLayout layout)
{
  im->width = width;
  im->height = height;
  im->bytes = bytes;
  im->pixel_stride = pixel_stride;
  im->channel = channel;
  im->depth = im->shift = 0;
  /* row padding that nothing may write: 3 samples, which leaves rows
   * unaligned; up to the next 16 bytes and 16 more, which lets the kernels
   * move their windows and store their outputs as quads and 16-byte
   * vectors; or 8 bytes less, which leaves every other row off 16 bytes.
   * 300x150 and larger planes with quad rows have tiles whose whole window
   * lies inside, which take the row-block kernel's fast staging */
  im->pitch = (size_t) width * pixel_stride * bytes;
  im->pitch = layout == ROWS_UNALIGNED ? im->pitch + 3 * bytes :
      (im->pitch + 15) / 16 * 16 + (layout == ROWS_16_BYTES ? 16 : 8);
  im->in = malloc (im->pitch * height);
  im->out = malloc (im->pitch * height);
  for (size_t k = 0; k < im->pitch * height; k++)
    im->in[k] = (unsigned char) ref_rng_u32 (rng);
}

/* Makes the 16-bit samples of im depth bits above shift zero bits, as
 * 10- and 12-bit video holds them, and keeps them so. */
void
image_set_bits (Image * im, int depth, int shift)
{
  const unsigned kept = ((1u << depth) - 1u) << shift;
  im->depth = depth;
  im->shift = shift;
  for (size_t k = 0; k + 1 < im->pitch * im->height; k += 2) {
    uint16_t v;
    memcpy (&v, im->in + k, 2);
    v &= kept;
    memcpy (im->in + k, &v, 2);
  }
}

void
image_clear (Image * im)
{
  free (im->in);
  free (im->out);
}

CcComponent
channel_of (const Image * im, unsigned char *base)
{
  CcComponent c = { base + (size_t) im->channel * im->bytes, im->pitch,
    im->width, im->height, im->pixel_stride,
    im->bytes == 1 ? CC_SAMPLE_U8 : CC_SAMPLE_U16, im->depth, im->shift
  };
  return c;
}

/* 0 when it ran, NOT_TAKEN, -1 on an error */
static int
run_variant (const Variant * v, const Image * im, const CcFilter * f,
    CcBorder border, int fill, unsigned fill_value)
{
  CcComponent src = channel_of (im, im->in), dst = channel_of (im, im->out);
  CcFilter plain;
  /* the 2D variants get the filter without its factors */
  if (f && !v->separable) {
    plain = *f;
    plain.separable = 0;
    f = &plain;
  }
#ifdef KERNELS_CUDA
  size_t bytes = im->pitch * im->height;
  unsigned char *d_in = NULL, *d_out = NULL;
  void *d_work = NULL;
  size_t work_bytes = 0;
  cudaError_t e;

  if ((e = cudaMalloc ((void **) &d_in, bytes)) != cudaSuccess
      || (e = cudaMalloc ((void **) &d_out, bytes)) != cudaSuccess
      || (e = cudaMemcpy (d_in, im->in, bytes,
              cudaMemcpyHostToDevice)) != cudaSuccess
      || (e = cudaMemcpy (d_out, im->out, bytes,
              cudaMemcpyHostToDevice)) != cudaSuccess)
    goto done;
  src = channel_of (im, d_in);
  dst = channel_of (im, d_out);
  /* what the family asks, or for the tuned variant what the selector's
   * family asks */
  work_bytes = !f ? 0 : v->family != TUNED ?
      cc_cuda_family_workspace_bytes ((CcFamily) v->family, &src, f) :
      cc_cuda_workspace_bytes (&src, f);
  if (work_bytes && (e = cudaMalloc (&d_work, work_bytes)) != cudaSuccess)
    goto done;
  if (fill)
    e = cc_cuda_fill (&dst, fill_value, 0);
  else if (!cc_filter_valid (f)) {
    /* an error, not a family that does not take the case */
    e = cudaErrorInvalidValue;
    goto done;
  } else if (v->family != TUNED) {
    if (!cc_cuda_family_takes ((CcFamily) v->family, &src, &dst, f)) {
      cudaFree (d_in);
      cudaFree (d_out);
      cudaFree (d_work);
      return NOT_TAKEN;
    }
    e = cc_cuda_convolve_family ((CcFamily) v->family, &src, &dst, f,
        border, d_work, work_bytes, 0, CC_LAUNCH_SRC_READY);
  } else {
    CcStrategy strategy = CC_STRATEGY_AUTO;
    CcFamily picked, family;
    float ms[CC_N_FAMILIES];
    e = cc_cuda_fastest_strategy (&src, &dst, f, border, d_work, work_bytes,
        0, &strategy, ms);
    /* the tuner wrote dst; start again from poison */
    if (e == cudaSuccess)
      e = cudaMemcpy (d_out, im->out, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
      e = cc_cuda_select_family (&src, &dst, f, strategy, &picked);
    /* the wide shapes' families do not depend on the strategy, and the
     * tuner does not time them */
    if (e == cudaSuccess && f->shape == CC_SHAPE_TAPS && ms[picked] < 0.0f) {
      printf ("  the tuner picked strategy %d (%s), which it did not time\n",
          (int) strategy, cc_family_name (picked));
      e = cudaErrorUnknown;
    }
    if (e == cudaSuccess)
      e = cc_cuda_convolve (&src, &dst, f, border, strategy, d_work,
          work_bytes, 0, CC_LAUNCH_SRC_READY, &family);
    if (e == cudaSuccess && family != picked) {
      printf ("  cc_cuda_convolve ran %s, the selector said %s\n",
          cc_family_name (family), cc_family_name (picked));
      e = cudaErrorUnknown;
    }
  }
  if (e == cudaSuccess)
    e = cudaMemcpy (im->out, d_out, bytes, cudaMemcpyDeviceToHost);
done:
  cudaFree (d_in);
  cudaFree (d_out);
  cudaFree (d_work);
  if (e != cudaSuccess)
    printf ("  CUDA error: %s\n", cudaGetErrorString (e));
  return e == cudaSuccess ? 0 : -1;
#else
  (void) v;
  return fill ? cc_cpu_fill (&dst, fill_value) :
      cc_cpu_convolve (&src, &dst, f, border, 4);
#endif
}

static unsigned
out_sample (const Image * im, int x, int y)
{
  const unsigned char *p = im->out + y * im->pitch +
      ((size_t) x * im->pixel_stride + im->channel) * im->bytes;
  return im->bytes == 1 ? p[0] : (unsigned) (p[0] | p[1] << 8);
}

static int
is_channel_byte (const Image * im, size_t offset)
{
  size_t in_row = offset % im->pitch;
  size_t sample = in_row / im->bytes;
  return in_row < (size_t) im->width * im->pixel_stride * im->bytes
      && (int) (sample % im->pixel_stride) == im->channel;
}

#ifndef KERNELS_CUDA
/* How many samples of im's channel differ from ref by more than within */
int
samples_off (const Image * im, const uint32_t * ref, unsigned within)
{
  int off = 0;

  for (int y = 0; y < im->height; y++)
    for (int x = 0; x < im->width; x++) {
      const unsigned o = out_sample (im, x, y);
      const unsigned r = ref[(size_t) y * im->width + x];
      off += (o > r ? o - r : r - o) > within;
    }
  return off;
}

/* The first byte of im's output past a row's pixels that is no longer
 * POISON, (size_t) -1 for none */
size_t
stray_past_pixels (const Image * im)
{
  const size_t row_bytes = (size_t) im->width * im->pixel_stride * im->bytes;

  for (size_t i = 0; i < im->pitch * im->height; i++)
    if (i % im->pitch >= row_bytes && im->out[i] != POISON)
      return i;
  return (size_t) -1;
}
#endif

void
check_case (const char *what, const Image * im, const CcFilter * f,
    CcBorder border, const uint32_t * ref, int fill, unsigned fill_value)
{
  for (int v = 0; v < n_variants; v++) {
    int bad = 0, worst_x = -1, worst_y = -1;
    unsigned got = 0, want = 0;
    size_t stray = (size_t) -1;

    int rc;
    if (variants[v].separable && (fill || !cc_filter_is_separable (f)))
      continue;
    /* CUDACONV_TEST_VERBOSE=1 names each case before it runs, line by
     * line, so that a crash shows where it happened */
    if (verbose)
      printf ("case %s [%s]\n", what, variants[v].name);
#ifdef KERNELS_CUDA
    /* the 2D families run the 2D cases; one variant fills */
    if (fill ? variants[v].family != TUNED : !variants[v].separable
        && variants[v].family != TUNED && cc_filter_is_separable (f))
      continue;
    /* the tuner launches every strategy some 20 times: under the
     * sanitizers (CUDACONV_TEST_QUICK) that would take an hour */
    if (!fill && variants[v].family == TUNED && getenv ("CUDACONV_TEST_QUICK"))
      continue;
#endif
    memset (im->out, POISON, im->pitch * im->height);
    rc = run_variant (&variants[v], im, f, border, fill, fill_value);
    if (rc == NOT_TAKEN)
      continue;
    n_cases++;
    if (rc != 0) {
      printf ("FAIL %s [%s]: the back end returned an error\n", what,
          variants[v].name);
      n_failed++;
      continue;
    }
    for (int y = 0; y < im->height; y++) {
      for (int x = 0; x < im->width; x++) {
        const unsigned raw = out_sample (im, x, y);
        const unsigned o = raw >> im->shift;
        const unsigned r = ref[(size_t) y * im->width + x];
        /* a 10-bit sample never exceeds 1023, and the bits below an
         * MSB-aligned one stay zero: exactly, not within 1 */
        if ((raw & ((1u << im->shift) - 1u)) != 0
            || (im->depth && o > (1u << im->depth) - 1u)) {
          if (!bad++) {
            worst_x = x;
            worst_y = y;
            got = raw;
            want = r << im->shift;
          }
        } else if ((o > r ? o - r : r - o) > tolerance) {
          if (!bad++) {
            worst_x = x;
            worst_y = y;
            got = o;
            want = r;
          }
        }
      }
    }
    for (size_t k = 0; k < im->pitch * im->height && stray == (size_t) -1; k++)
      if (!is_channel_byte (im, k) && im->out[k] != POISON)
        stray = k;
    if (bad || stray != (size_t) -1) {
      n_failed++;
      printf ("FAIL %s [%s]: %d samples off by more than %u", what,
          variants[v].name, bad, tolerance);
      if (bad)
        printf (" (first at %d,%d: got %u, want %u)", worst_x, worst_y, got,
            want);
      if (stray != (size_t) -1)
        printf ("; byte %zu outside the channel was written", stray);
      printf ("\n");
    }
#ifdef KERNELS_CUDA
    else if (!fill && variants[v].family != TUNED)
      ran[variants[v].family][im->bytes - 1][f->radius][border] = 1;
#endif
  }
}

RefImage
ref_image (const Image * im)
{
  RefImage r = { im->in + (size_t) im->channel * im->bytes, im->pitch,
    im->width, im->height, im->pixel_stride, im->bytes, im->depth, im->shift
  };
  return r;
}

/* Checks one filter on im under every border policy against the reference;
 * w2 is NULL for a linear filter, ref is scratch of width x height. */
void
check_all_borders (const char *what, const Image * im, const double *w,
    const double *w2, int side, double divisor, double offset,
    const CcFilter * f, uint32_t * ref)
{
  RefImage rim = ref_image (im);

  for (int b = 0; b < 4; b++) {
    char name[200];
    snprintf (name, sizeof (name), "%s border %s", what, border_names[b]);
    ref_convolve (&rim, w, w2, side, divisor, offset, (RefBorder) b, ref);
    check_case (name, im, f, (CcBorder) b, ref, 0, 0);
  }
}

/* Random weights: positive and normalised, or of both signs with a
 * divisor and an offset that keep outputs mostly in range. */
void
random_weights (RefRng * rng, int side, int signed_weights, double *w,
    double *divisor, double *offset, double max)
{
  double sum = 0.0;
  for (int k = 0; k < side * side; k++) {
    w[k] = signed_weights ? 2.0 * ref_rng_uniform (rng) - 1.0 :
        ref_rng_uniform (rng);
    sum += fabs (w[k]);
  }
  *divisor = sum > 0.0 ? sum : 1.0;
  *offset = signed_weights ? floor (max / 2) : 0.0;
}

/* A 2D (or, with w2, gradient magnitude) filter without factors */
void
to_filter (const double *w, const double *w2, int side, double divisor,
    double offset, CcFilter * f)
{
  int n = side * side;
  for (int k = 0; k < n; k++) {
    f->taps[k] = (float) (w[k] / divisor);
    if (w2)
      f->taps[n + k] = (float) (w2[k] / divisor);
  }
  f->radius = side / 2;
  f->shape = CC_SHAPE_TAPS;
  f->response = w2 ? CC_RESPONSE_MAGNITUDE : CC_RESPONSE_LINEAR;
  f->offset = (float) offset;
  f->separable = 0;
}

/* Random weights, positive or signed, as a 2D filter. */
void
random_filters (RefRng * rng, int side, int signed_weights, double max,
    Filters * out)
{
  random_weights (rng, side, signed_weights, out->w, &out->divisor,
      &out->offset, max);
  to_filter (out->w, NULL, side, out->divisor, out->offset, &out->f);
}

/* An outer product of random column and row factors, with the factors. */
void
separable_filters (RefRng * rng, int side, int signed_weights, double max,
    Filters * out)
{
  double col[CC_MAX_SIDE], row[CC_MAX_SIDE], sum = 0.0;

  for (int i = 0; i < side; i++) {
    col[i] = signed_weights ? 2.0 * ref_rng_uniform (rng) - 1.0 :
        ref_rng_uniform (rng);
    row[i] = ref_rng_uniform (rng) + 0.05;
  }
  for (int i = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      sum += fabs (out->w[i * side + j] = col[i] * row[j]);
  out->divisor = sum;
  out->offset = signed_weights ? floor (max / 2) : 0.0;
  to_filter (out->w, NULL, side, out->divisor, out->offset, &out->f);
  /* the divisor goes into the column factor, as the plugin does */
  for (int i = 0; i < side; i++) {
    out->f.col_taps[i] = (float) (col[i] / sum);
    out->f.row_taps[i] = (float) row[i];
  }
  out->f.separable = 1;
}

/* 1 and 2 unroll the loop over filter columns, 3 and up loop; 4 starts
 * windows on a 4-sample boundary, and is the FP32 separable streaming
 * kernel's largest; 15 is the largest */
const int radii_2d[] = { 1, 2, 3, 4, 7, 15, 0 };
/* and for separable filters 5 and 8, the tensor-core streaming kernel's
 * first for 16-bit planes and its last */
const int radii_separable[] = { 1, 2, 3, 4, 5, 7, 8, 15, 0 };
/* The wide shapes' radii: factor lengths past the taps' 15 to the
 * largest, either side of a power of two; box and blocks also at the
 * smallest, where their sums are a few samples (4 and 5 either side of
 * box-strip's one lane of halo, 8 its largest) */
const int radii_wide[] = { 16, 17, 31, 63, 64, 127, -1 };
const int radii_sums[] = { 0, 1, 2, 4, 5, 8, 15, 16, 17, 31, 63, 64, 127, -1 };

#ifdef KERNELS_CUDA
/* Every family ran, and passed, at each of its radii among those the
 * tests use, under every border, at 8 and 16 bits: the taps families
 * (wide 0, from convolve.c's cases) or those of the wide shapes (wide 1,
 * from wide.c's). */
void
check_family_coverage (int wide_families)
{
  for (int f = 0; f < CC_N_FAMILIES; f++) {
    const int wide = f >= CC_FAMILY_SEPARABLE_WIDE_MMA;
    const int *radii = f == CC_FAMILY_SEPARABLE_WIDE_MMA
        || f == CC_FAMILY_SEPARABLE_WIDE ? radii_wide :
        wide ? radii_sums : variants[f].separable ? radii_separable :
        radii_2d;
    if (wide != wide_families)
      continue;
    for (int bytes = 1; bytes <= 2; bytes++) {
      int lo, hi;
      if (!cc_family_radii ((CcFamily) f, (CcSampleType) bytes, &lo, &hi))
        continue;
      /* the taps' lists end in 0, the wide shapes' in -1 */
      for (int ri = 0; wide ? radii[ri] >= 0 : radii[ri] > 0; ri++) {
        if (radii[ri] < lo || radii[ri] > hi)
          continue;
        for (int b = 0; b < 4; b++) {
          n_cases++;
          if (!ran[f][bytes - 1][radii[ri]][b]) {
            n_failed++;
            printf ("FAIL coverage: %s never ran at %d-bit radius %d border "
                "%s\n", cc_family_name ((CcFamily) f), 8 * bytes, radii[ri],
                border_names[b]);
          }
        }
      }
    }
  }
}
#endif

int
main (void)
{
  RefRng rng;

  verbose = getenv ("CUDACONV_TEST_VERBOSE") != NULL;
  if (verbose)
    setvbuf (stdout, NULL, _IOLBF, 0);

#ifdef KERNELS_CUDA
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0) {
    printf ("SKIP: no usable CUDA device (%s)\n",
        e != cudaSuccess ? cudaGetErrorString (e) : "none found");
    return 77;
  }
#else
  /* every job cut into as many bands as the threads a test asks for,
   * however small the plane and however few the machine's cores: so that
   * the tests cross band edges */
  cc_cpu_pool_size_by_work (0);
#endif
  ref_rng_seed (&rng, ref_test_seed ());
  run_topic (&rng);
  printf ("%d passed, %d failed\n", n_cases - n_failed, n_failed);
  return n_failed ? 1 : 0;
}

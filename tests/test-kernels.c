/* cudaconv tests: the convolution back ends against the double reference.
 *
 * Built twice: as test-kernels-cpu (the 2D and the separable CPU paths), and
 * with KERNELS_CUDA as test-kernels-cuda, which exits 77 (skip) when no
 * CUDA device is usable and runs, by name, every kernel family of the
 * catalogue that takes the case (cc_cuda_family_takes), plus the tuner's
 * pick through the selector; at the end it checks that each family ran at
 * each of its radii among those tested, under every border, at 8 and 16
 * bits, and that the selector reaches every family. 2D families run the 2D
 * cases, separable ones the cases whose filters carry factors. Every case
 * poisons the output first and checks that
 * each sample of the channel is within 1 of the reference and that every
 * other byte (row padding, other channels) still holds the poison. The
 * CUDA build also queues kernels back to back, unsynchronised, and checks
 * that each waits for what it must (test_launch_order). The wide shapes
 * (test_wide_shapes) are checked the same way, box and blocks exactly. */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "cudaconv-kernel-types.h"
#include "cudaconv-cpu.h"
#ifdef KERNELS_CUDA
#include "cudaconv-cuda.h"
#endif

#define POISON 0xA5

typedef struct {
  const char *name;
  int family;                   /* CcFamily, or TUNED */
  int separable;                /* needs a filter with factors */
} Variant;

/* cc_cuda_convolve with the strategy the tuner picks; also runs fills */
#define TUNED -1

#ifdef KERNELS_CUDA
static const Variant variants[] = {
  {"2d-strip-tiled-halo", CC_FAMILY_2D_STRIP_TILED_HALO, 0},
  {"2d-strip-cache-halo", CC_FAMILY_2D_STRIP_CACHE_HALO, 0},
  {"2d-row-block", CC_FAMILY_2D_ROW_BLOCK, 0},
  {"2d-tiled-halo", CC_FAMILY_2D_TILED_HALO, 0},
  {"2d-cache-halo", CC_FAMILY_2D_CACHE_HALO, 0},
  {"separable-strip-mma", CC_FAMILY_SEPARABLE_STRIP_MMA, 1},
  {"separable-strip-fp32", CC_FAMILY_SEPARABLE_STRIP_FP32, 1},
  {"separable-tile-mma", CC_FAMILY_SEPARABLE_TILE_MMA, 1},
  {"separable-tile-fp32", CC_FAMILY_SEPARABLE_TILE_FP32, 1},
  {"separable-wide", CC_FAMILY_SEPARABLE_WIDE, 0},
  {"box-running-sum", CC_FAMILY_BOX_RUNNING_SUM, 0},
  {"block-mean", CC_FAMILY_BLOCK_MEAN, 0},
  {"fastest", TUNED, 0},
};
/* ran[family][bytes - 1][radius][border]: a case of it passed */
static unsigned char ran[CC_N_FAMILIES][2][CC_MAX_WIDE_RADIUS + 1][4];
#else
static const Variant variants[] = { {"cpu", 0, 0}, {"cpu-separable", 0, 1} };
#endif
#define N_VARIANTS ((int) (sizeof (variants) / sizeof (variants[0])))
/* run_variant's answer for a family that does not take the case */
#define NOT_TAKEN 1

static const char *border_names[] = { "zero", "clamp", "mirror", "wrap" };

static int n_cases, n_failed;
/* how far an output may be from the reference: 1 for sums in float, 0
 * for the shapes summed exactly (box, blocks) */
static unsigned tolerance = 1;

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

static void
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
static void
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

static void
image_clear (Image * im)
{
  free (im->in);
  free (im->out);
}

static CcComponent
channel_of (const Image * im, unsigned char *base)
{
  CcComponent c = { base + (size_t) im->channel * im->bytes, im->pitch,
    im->width, im->height, im->pixel_stride,
    im->bytes == 1 ? CC_SAMPLE_U8 : CC_SAMPLE_U16, im->depth, im->shift
  };
  return c;
}

static int verbose;
/* Runs a test function, named first where verbose */
#define RUN(test, ...) \
  do { \
    if (verbose) \
      printf ("test %s\n", #test); \
    test (__VA_ARGS__); \
  } while (0)

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
  work_bytes = f ? cc_cuda_workspace_bytes (&src, f) : 0;
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
    /* the wide shapes have one family, which the tuner does not time */
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
/* The whole-pixel tests' checks (the CPU back end's cc_cpu_convolve_pixels).
 * How many samples of im's channel differ from ref by more than within */
static int
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
static size_t
stray_past_pixels (const Image * im)
{
  const size_t row_bytes = (size_t) im->width * im->pixel_stride * im->bytes;

  for (size_t i = 0; i < im->pitch * im->height; i++)
    if (i % im->pitch >= row_bytes && im->out[i] != POISON)
      return i;
  return (size_t) -1;
}
#endif

/* Runs one case on every variant and checks it against ref. */
static void
check_case (const char *what, const Image * im, const CcFilter * f,
    CcBorder border, const uint32_t * ref, int fill, unsigned fill_value)
{
  for (int v = 0; v < N_VARIANTS; v++) {
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

static RefImage
ref_image (const Image * im)
{
  RefImage r = { im->in + (size_t) im->channel * im->bytes, im->pitch,
    im->width, im->height, im->pixel_stride, im->bytes, im->depth, im->shift
  };
  return r;
}

/* Checks one filter on im under every border policy against the reference;
 * w2 is NULL for a linear filter, ref is scratch of width x height. */
static void
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
static void
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
static void
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

/* One test case's filter: weights w (for the reference), divisor and
 * offset, and the back ends' filter f. */
typedef struct {
  double w[CC_MAX_TAPS];
  double divisor, offset;
  CcFilter f;
} Filters;

typedef void (*MakeFilters) (RefRng * rng, int side, int signed_weights,
    double max, Filters * out);

/* Random weights, positive or signed, as a 2D filter. */
static void
random_filters (RefRng * rng, int side, int signed_weights, double max,
    Filters * out)
{
  random_weights (rng, side, signed_weights, out->w, &out->divisor,
      &out->offset, max);
  to_filter (out->w, NULL, side, out->divisor, out->offset, &out->f);
}

/* An outer product of random column and row factors, with the factors. */
static void
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
static const int radii_2d[] = { 1, 2, 3, 4, 7, 15, 0 };
/* and for separable filters 5 and 8, the tensor-core streaming kernel's
 * first for 16-bit planes and its last */
static const int radii_separable[] = { 1, 2, 3, 4, 5, 7, 8, 15, 0 };

/* Every radius (a list ending in 0) on random 8- and 16-bit planes of every
 * size, the filter made by make, under every border policy. */
static void
check_sizes_and_radii (RefRng * rng, const int (*sizes)[2], size_t n_sizes,
    const int *radii, const char *kind, MakeFilters make)
{
  static Filters filters;

  /* compute-sanitizer runs kernels far slower: CUDACONV_TEST_QUICK=1 skips
   * the full-HD plane, which no other size is needed to cover */
  const int quick = getenv ("CUDACONV_TEST_QUICK") != NULL;

  for (size_t s = 0; s < n_sizes; s++) {
    if (quick && sizes[s][0] * sizes[s][1] > 100000) {
      printf ("quick: %s %dx%d skipped\n", kind, sizes[s][0], sizes[s][1]);
      continue;
    }
    for (int bytes = 1; bytes <= 2; bytes++) {
      Image im;
      uint32_t *ref;
      /* the three layouts in turn at the small sizes, 16-byte rows for the
       * big ones, as device planes have */
      const RowLayout layout = sizes[s][0] * sizes[s][1] > 100000 ?
          ROWS_16_BYTES : (RowLayout) ((s + bytes) % 3);
      image_init (&im, rng, sizes[s][0], sizes[s][1], bytes, 1, 0, layout);
      ref = malloc (sizeof (uint32_t) * im.width * im.height);
      for (size_t ri = 0; radii[ri] > 0; ri++) {
        int side = 2 * radii[ri] + 1, signed_weights = (ri + s) % 2;
        char what[160];

        make (rng, side, signed_weights, bytes == 1 ? 255.0 : 65535.0,
            &filters);
        snprintf (what, sizeof (what), "%s %dx%d %d-bit radius %d %s "
            "weights", kind, im.width, im.height, 8 * bytes, radii[ri],
            signed_weights ? "signed" : "positive");
        check_all_borders (what, &im, filters.w, NULL, side, filters.divisor,
            filters.offset, &filters.f, ref);
      }
      free (ref);
      image_clear (&im);
    }
  }
}

static void
test_sizes_radii_borders (RefRng * rng)
{
  /* 300x150: blocks with neighbours on every side. Widths in whole
   * 8-sample vectors take the strip kernel at r <= 2 where the plane is a
   * strip and r rows tall (9 rows at r <= 1, 13 for magnitudes, 6 at r2),
   * also in quick runs: 8x16 (one lane spans the row), 72x9 (the right side
   * mid-warp; r0 and r2 only, the 2D kernels' smallest strip-shaped plane
   * otherwise), 264x43 (the right side in lane 0 of a second tile; at r2
   * the strip above the last one reaches a row below the plane), 1032x58
   * (the last strip moved up over the one above it). Planes in whole
   * quads but not whole 8-sample vectors take it with 4 samples per lane:
   * 260x20 (8-bit), and the 16-bit planes whose rows are 8 bytes past a
   * multiple of 16 (ROWS_QUADS). */
  static const int sizes[][2] = { {1, 1}, {2, 3}, {8, 5}, {8, 16},
  {31, 17}, {33, 33}, {72, 9}, {264, 43}, {300, 150}, {1032, 58},
  {1920, 1080}, {4097, 7}, {260, 20}
  };
  check_sizes_and_radii (rng, sizes, sizeof (sizes) / sizeof (sizes[0]),
      radii_2d, "2D", random_filters);
}

/* Filters that are outer products, with their factors: the 2D variants run
 * them as 2D filters and the separable ones as a row and a column pass; all
 * are checked against the 2D double reference. */
static void
test_separable (RefRng * rng)
{
  /* Planes in whole quads with quad rows and at least a strip tall take
   * the streaming kernel at r <= 4 (warps of 120 output columns; on
   * these small planes strips of one chunk, 8 to 17 rows), also in quick
   * runs: 8x40 (8-bit; every lane reaches past a side), 264x43 (16-bit;
   * three warps across, the last strip moved up over the one above),
   * 1032x90 (both; nine warps across, the last one mostly past the right
   * side), 120x33 (8-bit; one warp, its right halo lane past the side).
   * 1920x1080 takes strips of two chunks at r1 (not in quick runs).
   * Planes of one sample per pixel with rows on 8 bytes (every layout but
   * ROWS_UNALIGNED) take the tensor-core streaming kernel at r3 to r8
   * (8-bit) and r5 to r8 (16-bit), one step per strip at these sizes
   * (test_long_strips takes more): 8x40 and 1x1 (ghost columns
   * on both sides), 31x17, 67x130, 259x200 and 4097x7 (the right edge
   * inside a piece), 264x43 and 1032x90 (a last strip 8 columns wide). */
  static const int sizes[][2] = { {1, 1}, {2, 3}, {31, 17}, {67, 130},
  {259, 200}, {1920, 1080}, {4097, 7}, {8, 40}, {264, 43}, {1032, 90},
  {120, 33}
  };
  check_sizes_and_radii (rng, sizes, sizeof (sizes) / sizeof (sizes[0]),
      radii_separable, "separable", separable_filters);
}

/* Packed layouts (RGB, RGBA, NV12's UV): one channel among others, which
 * must stay untouched. */
static void
test_interleaved (RefRng * rng)
{
  static const int layouts[][2] = { {2, 1}, {3, 0}, {3, 2}, {4, 3} };
  double w[25], divisor, offset;

  for (size_t l = 0; l < sizeof (layouts) / sizeof (layouts[0]); l++) {
    for (int bytes = 1; bytes <= 2; bytes++) {
      Image im;
      uint32_t *ref;
      CcFilter f;
      char what[160];
      image_init (&im, rng, 37, 19, bytes, layouts[l][0], layouts[l][1],
          ROWS_UNALIGNED);
      ref = malloc (sizeof (uint32_t) * im.width * im.height);
      random_weights (rng, 5, 0, w, &divisor, &offset, 255.0);
      to_filter (w, NULL, 5, divisor, offset, &f);
      snprintf (what, sizeof (what), "interleaved stride %d channel %d "
          "%d-bit", layouts[l][0], layouts[l][1], 8 * bytes);
      check_all_borders (what, &im, w, NULL, 5, divisor, offset, &f, ref);
      free (ref);
      image_clear (&im);
    }
  }
}

#ifndef KERNELS_CUDA
/* cc_cpu_convolve_pixels: every channel of a pixel at once (packed RGB,
 * RGBA with alpha, NV12's UV), each channel within 1 of the reference, the
 * row padding untouched; 2D, separable and magnitude filters, every
 * border, 8 and 16 bits, odd sizes. */
static void
test_whole_pixels (RefRng * rng)
{
  static const int strides[] = { 2, 3, 4 };
  static Filters filters;
  static const double sx[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const double sy[9] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };

  for (size_t k = 0; k < sizeof (strides) / sizeof (strides[0]); k++) {
    for (int bytes = 1; bytes <= 2; bytes++) {
      for (int kind = 0; kind < 3; kind++) {
        const int ps = strides[k], side = kind == 2 ? 3 : 2 * (int) k + 3;
        Image im;
        uint32_t *ref;
        CcFilter mag;
        const CcFilter *f = &filters.f;

        image_init (&im, rng, 37 + (int) k, 21, bytes, ps, 0,
            (RowLayout) ((k + bytes) % 3));
        ref = malloc (sizeof (uint32_t) * im.width * im.height);
        if (kind == 0)
          random_filters (rng, side, 1, bytes == 1 ? 255.0 : 65535.0,
              &filters);
        else if (kind == 1)
          separable_filters (rng, side, 0, 0.0, &filters);
        else {
          to_filter (sx, sy, 3, 1.0, 0.0, &mag);
          f = &mag;
        }
        for (int b = 0; b < 4; b++) {
          CcComponent src = channel_of (&im, im.in), dst = channel_of (&im,
              im.out);
          int bad = 0, rc;
          size_t stray = (size_t) -1;

          memset (im.out, POISON, im.pitch * im.height);
          n_cases++;
          rc = cc_cpu_convolve_pixels (&src, &dst, f, (CcBorder) b, 3);
          for (int c = 0; c < ps && rc == 0; c++) {
            RefImage rim;
            im.channel = c;
            rim = ref_image (&im);
            ref_convolve (&rim, kind == 2 ? sx : filters.w,
                kind == 2 ? sy : NULL, side, kind == 2 ? 1.0 :
                filters.divisor, kind == 2 ? 0.0 : filters.offset,
                (RefBorder) b, ref);
            bad += samples_off (&im, ref, 1);
          }
          im.channel = 0;
          stray = stray_past_pixels (&im);
          if (rc != 0 || bad || stray != (size_t) -1) {
            n_failed++;
            printf ("FAIL whole pixels stride %d %d-bit %s border %s: rc %d, "
                "%d samples off by more than 1, stray byte %lld\n", ps,
                8 * bytes, kind == 0 ? "2D" : kind == 1 ? "separable" :
                "magnitude", border_names[b], rc, bad,
                stray == (size_t) -1 ? -1LL : (long long) stray);
          }
        }
        free (ref);
        image_clear (&im);
      }
    }
  }
}
#endif

/* Gradient magnitude: Sobel, and random pairs of 5x5 and 7x7 filters (the
 * largest magnitude radius), on a plane of one tile and on one whose inner
 * tiles read their halo from L1/L2 (cache-halo), with quads and without. */
static void
test_magnitude (RefRng * rng)
{
  static const double sx[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const double sy[9] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
  static const int sizes[][2] = { {45, 29}, {300, 150} };
  double wa[49], wb[49];

  for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++) {
    for (int bytes = 1; bytes <= 2; bytes++) {
      for (int pair = 0; pair < 3; pair++) {
        const int side = 2 * pair + 3;
        const double *a = pair ? wa : sx, *b = pair ? wb : sy;
        double divisor = pair == 0 ? 1.0 : pair == 1 ? 8.0 : 16.0;
        double offset = pair ? 3.0 : 0.0;
        const RowLayout layout = s == 0 ? (bytes == 1 ? ROWS_16_BYTES :
            ROWS_UNALIGNED) : (bytes == 1 ? ROWS_QUADS : ROWS_UNALIGNED);
        Image im;
        uint32_t *ref;
        CcFilter f;
        char what[160];
        for (int k = 0; k < side * side; k++) {
          wa[k] = 2.0 * ref_rng_uniform (rng) - 1.0;
          wb[k] = 2.0 * ref_rng_uniform (rng) - 1.0;
        }
        image_init (&im, rng, sizes[s][0], sizes[s][1], bytes, 1, 0, layout);
        ref = malloc (sizeof (uint32_t) * im.width * im.height);
        to_filter (a, b, side, divisor, offset, &f);
        snprintf (what, sizeof (what), "magnitude %s %dx%d %d-bit",
            pair ? (pair == 1 ? "random 5x5" : "random 7x7") : "sobel",
            im.width, im.height, 8 * bytes);
        check_all_borders (what, &im, a, b, side, divisor, offset, &f, ref);
        free (ref);
        image_clear (&im);
      }
    }
  }
}

static void
test_fill (RefRng * rng)
{
  for (int bytes = 1; bytes <= 2; bytes++) {
    Image im;
    uint32_t *ref;
    unsigned value = bytes == 1 ? 128 : 32768;
    image_init (&im, rng, 41, 13, bytes, 2, 1, ROWS_16_BYTES);
    ref = malloc (sizeof (uint32_t) * im.width * im.height);
    for (int k = 0; k < im.width * im.height; k++)
      ref[k] = value;
    check_case (bytes == 1 ? "fill 8-bit" : "fill 16-bit", &im, NULL,
        CC_BORDER_CLAMP, ref, 1, value);
    free (ref);
    image_clear (&im);
  }
}

/* 10- and 12-bit samples in 16 bits, LSB-aligned (I420_10LE) and
 * MSB-aligned (P010, P012): every output within 1 of the reference in
 * values, never above 2^depth - 1, padding bits zero; signed weights with
 * an offset of half the range saturate at both ends. The sizes take every
 * 16-bit kernel: 37x23 unaligned rows (sample by sample), 264x43 and
 * 1032x90 (the strip and streaming kernels), 300x150 with quad rows (the
 * tiles), 1920x1080 at the radii of the fast paths (not in quick runs);
 * then P010's interleaved UV channel, a gradient magnitude and a fill. */
static void
test_depths (RefRng * rng)
{
  static const int bits[][2] = { {10, 0}, {12, 0}, {10, 6}, {12, 4} };
  static const struct {
    int width, height;
    RowLayout layout;
    int radii[7];
  } planes[] = {
    {37, 23, ROWS_UNALIGNED, {1, 2, 3, 7, 15, 0}},
    {264, 43, ROWS_16_BYTES, {1, 2, 3, 5, 0}},
    {300, 150, ROWS_QUADS, {1, 2, 3, 7, 15, 0}},
    {1032, 90, ROWS_16_BYTES, {1, 2, 4, 5, 8, 0}},
    {1920, 1080, ROWS_16_BYTES, {1, 2, 5, 0}},
  };
  const int quick = getenv ("CUDACONV_TEST_QUICK") != NULL;
  static Filters filters;

  for (size_t b = 0; b < sizeof (bits) / sizeof (bits[0]); b++) {
    const int depth = bits[b][0], shift = bits[b][1];
    const double max = (double) ((1u << depth) - 1u);

    for (size_t p = 0; p < sizeof (planes) / sizeof (planes[0]); p++) {
      Image im;
      uint32_t *ref;
      if (quick && planes[p].width * planes[p].height > 100000)
        continue;
      image_init (&im, rng, planes[p].width, planes[p].height, 2, 1, 0,
          planes[p].layout);
      image_set_bits (&im, depth, shift);
      ref = malloc (sizeof (uint32_t) * im.width * im.height);
      for (int ri = 0; planes[p].radii[ri] > 0; ri++) {
        const int side = 2 * planes[p].radii[ri] + 1;
        char what[160];
        for (int kind = 0; kind < 2; kind++) {
          const int signed_weights = (ri + kind) % 2;
          (kind ? separable_filters : random_filters) (rng, side,
              signed_weights, max, &filters);
          snprintf (what, sizeof (what), "%d-bit << %d %dx%d radius %d %s "
              "%s weights", depth, shift, im.width, im.height,
              planes[p].radii[ri], kind ? "separable" : "2D",
              signed_weights ? "signed" : "positive");
          check_all_borders (what, &im, filters.w, NULL, side,
              filters.divisor, filters.offset, &filters.f, ref);
        }
      }
      free (ref);
      image_clear (&im);
    }
    {
      /* P010's UV plane: U and V interleaved, V filtered */
      static const double sx[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
      static const double sy[9] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
      CcFilter f;
      Image im;
      uint32_t *ref;
      char what[160];

      image_init (&im, rng, 45, 29, 2, 2, 1, ROWS_UNALIGNED);
      image_set_bits (&im, depth, shift);
      ref = malloc (sizeof (uint32_t) * im.width * im.height);
      random_filters (rng, 5, 1, max, &filters);
      snprintf (what, sizeof (what), "%d-bit << %d interleaved", depth, shift);
      check_all_borders (what, &im, filters.w, NULL, 5, filters.divisor,
          filters.offset, &filters.f, ref);
      to_filter (sx, sy, 3, 1.0, 0.0, &f);
      snprintf (what, sizeof (what), "%d-bit << %d sobel magnitude", depth,
          shift);
      check_all_borders (what, &im, sx, sy, 3, 1.0, 0.0, &f, ref);
      for (int k = 0; k < im.width * im.height; k++)
        ref[k] = 1u << (depth - 1);
      snprintf (what, sizeof (what), "%d-bit << %d fill", depth, shift);
      check_case (what, &im, NULL, CC_BORDER_CLAMP, ref, 1,
          (1u << (depth - 1)) << shift);
      free (ref);
      image_clear (&im);
    }
  }
}

/* Weights whose 2^24-fold overflows a float (|w| >= 2^104) cannot take
 * the strip kernels' scaled copy: an infinite weight times a zero sample
 * would make a NaN. Positive weights this large saturate every window
 * with a nonzero sample. */
static void
test_huge_weights (RefRng * rng)
{
  Image im;
  Filters *f = calloc (1, sizeof (Filters));
  uint32_t *ref = malloc (sizeof (uint32_t) * 64 * 32);

  image_init (&im, rng, 64, 32, 1, 1, 0, ROWS_16_BYTES);
  for (int k = 0; k < 9; k++)
    f->w[k] = 1e33 * (1.0 + ref_rng_uniform (rng));
  f->divisor = 1.0;
  f->offset = 0.0;
  to_filter (f->w, NULL, 3, f->divisor, f->offset, &f->f);
  check_all_borders ("weights near 1e33, 64x32 8-bit", &im, f->w, NULL, 3,
      f->divisor, f->offset, &f->f, ref);
  image_clear (&im);
  free (ref);
  free (f);
}


/* The wide shapes' radii: every factor length past the taps' 15 to the
 * largest; box and blocks also at the smallest, where their sums are a
 * few samples (lists end in -1) */
static const int radii_wide[] = { 16, 31, 63, 127, -1 };
static const int radii_sums[] = { 0, 1, 2, 15, 16, 31, 63, 127, -1 };

static const char *
shape_name (CcShape shape)
{
  return shape == CC_SHAPE_WIDE ? "wide" : shape == CC_SHAPE_BOX ? "box" :
      "blocks";
}

/* A filter of the shape: for wide, gaussian-like factors with jitter,
 * a blur (centre and factors summing to 1) or a sharpen (centre 2, the
 * factors' sum -1); for box and blocks, a scale around 1 / (2r+1)^2 that
 * at times saturates, and an offset with a fraction. */
static void
shape_filter (RefRng * rng, CcShape shape, int radius, CcFilter * f)
{
  const int side = 2 * radius + 1;
  memset (f, 0, sizeof (*f));
  f->shape = shape;
  f->radius = radius;
  f->response = CC_RESPONSE_LINEAR;
  if (shape == CC_SHAPE_WIDE) {
    const double sigma = radius / 2.5 + 0.5;
    const int sharpen = ref_rng_u32 (rng) % 2;
    double col = 0.0, row = 0.0;
    f->centre = sharpen ? 2.0f : (float) (0.5 * ref_rng_uniform (rng));
    for (int i = 0; i < side; i++) {
      const double d = i - radius, g = exp (-d * d / (2.0 * sigma * sigma));
      col += f->col_taps[i] = (float) (g * (0.8 + 0.4 * ref_rng_uniform (rng)));
      row += f->row_taps[i] = (float) (g * (0.8 + 0.4 * ref_rng_uniform (rng)));
    }
    for (int i = 0; i < side; i++) {
      f->col_taps[i] = (float) (f->col_taps[i] / col * (1.0 - f->centre));
      f->row_taps[i] = (float) (f->row_taps[i] / row);
    }
    f->offset = sharpen ? 0.0f : 3.0f;
  } else {
    f->scale = (0.6 + 0.6 * ref_rng_uniform (rng)) / ((double) side * side);
    f->offset = (float) ((int) (ref_rng_u32 (rng) % 33) - 16) * 0.25f;
  }
}

/* The reference of the filter's shape on im, under border */
static void
shape_reference (const Image * im, const CcFilter * f, CcBorder border,
    uint32_t * ref)
{
  RefImage rim = ref_image (im);
  if (f->shape == CC_SHAPE_WIDE) {
    static double col[CC_MAX_WIDE_SIDE], row[CC_MAX_WIDE_SIDE];
    for (int i = 0; i < 2 * f->radius + 1; i++) {
      col[i] = f->col_taps[i];
      row[i] = f->row_taps[i];
    }
    ref_wide (&rim, f->radius, col, row, f->centre, f->offset,
        (RefBorder) border, ref);
  } else if (f->shape == CC_SHAPE_BOX) {
    ref_box (&rim, f->radius, f->scale, f->offset, (RefBorder) border, ref);
  } else {
    ref_blocks (&rim, f->radius, f->scale, f->offset, ref);
  }
}

/* One filter of a wide shape on im under every border, wide within 1 of
 * the reference, box and blocks exactly (blocks ignore the border: every
 * policy must give the same) */
static void
check_shape (const char *what, const Image * im, const CcFilter * f,
    uint32_t * ref)
{
  tolerance = f->shape == CC_SHAPE_WIDE ? 1 : 0;
  for (int b = 0; b < 4; b++) {
    char name[240];
    snprintf (name, sizeof (name), "%s %s r%d border %s", what,
        shape_name (f->shape), f->radius, border_names[b]);
    shape_reference (im, f, (CcBorder) b, ref);
    check_case (name, im, f, (CcBorder) b, ref, 0, 0);
  }
  tolerance = 1;
}

/* The wide shapes on random planes: 1x1, 3x700 and 5x4 (smaller than every
 * filter here but r0-r1), 257x129 (odd, several blocks and tiles), 40x33;
 * 8-bit, 16-bit and 10 bits above 6 padding bits (P010); one sample per
 * pixel and components of 2- and 4-sample pixels; every radius of
 * radii_wide and radii_sums under every border. 1920x1080 (not in quick
 * runs) 8-bit at the largest radius: many tiles and column chunks. */
static void
test_wide_shapes (RefRng * rng)
{
  static const struct {
    int width, height, pixel_stride;
  } planes[] = { {1, 1, 1}, {3, 700, 2}, {257, 129, 1}, {5, 4, 4},
  {40, 33, 2}, {1920, 1080, 1}
  };
  static const CcShape shapes[] = { CC_SHAPE_WIDE, CC_SHAPE_BOX,
    CC_SHAPE_BLOCKS
  };
  const int quick = getenv ("CUDACONV_TEST_QUICK") != NULL;
  static CcFilter f;

  for (size_t p = 0; p < sizeof (planes) / sizeof (planes[0]); p++) {
    const int big = planes[p].width * planes[p].height > 100000;
    if (big && quick) {
      printf ("quick: wide shapes %dx%d skipped\n", planes[p].width,
          planes[p].height);
      continue;
    }
    for (int kind = 0; kind < 3; kind++) {
      /* 8-bit, 16-bit, P010-like 10 bits << 6 */
      const int bytes = kind ? 2 : 1, ps = planes[p].pixel_stride;
      Image im;
      uint32_t *ref;
      char what[160];
      if (big && kind != 0)
        continue;
      image_init (&im, rng, planes[p].width, planes[p].height, bytes, ps,
          ps - 1, (RowLayout) ((p + kind) % 3));
      if (kind == 2)
        image_set_bits (&im, 10, 6);
      ref = malloc (sizeof (uint32_t) * im.width * im.height);
      snprintf (what, sizeof (what), "%dx%d stride %d %s", im.width,
          im.height, ps, kind == 0 ? "8-bit" : kind == 1 ? "16-bit" :
          "10-bit << 6");
      for (size_t k = 0; k < sizeof (shapes) / sizeof (shapes[0]); k++) {
        const int *radii = shapes[k] == CC_SHAPE_WIDE ? radii_wide :
            radii_sums;
        for (int ri = 0; radii[ri] >= 0; ri++) {
          if (big && radii[ri] != 127)
            continue;
          shape_filter (rng, shapes[k], radii[ri], &f);
          check_shape (what, &im, &f, ref);
        }
      }
      free (ref);
      image_clear (&im);
    }
  }
}

#ifndef KERNELS_CUDA
/* cc_cpu_convolve_pixels with the wide shapes: each component of 2- and
 * 4-sample pixels as cc_cpu_convolve gives it, the row padding untouched */
static void
test_shape_pixels (RefRng * rng)
{
  static const CcShape shapes[] = { CC_SHAPE_WIDE, CC_SHAPE_BOX,
    CC_SHAPE_BLOCKS
  };
  static CcFilter f;

  for (int ps = 2; ps <= 4; ps += 2) {
    for (int bytes = 1; bytes <= 2; bytes++) {
      for (size_t k = 0; k < sizeof (shapes) / sizeof (shapes[0]); k++) {
        Image im;
        uint32_t *ref;
        int bad = 0, rc;
        size_t stray = (size_t) -1;

        image_init (&im, rng, 45, 38, bytes, ps, 0, ROWS_UNALIGNED);
        ref = malloc (sizeof (uint32_t) * im.width * im.height);
        shape_filter (rng, shapes[k], ps == 2 ? 16 : 2, &f);
        CcComponent src = channel_of (&im, im.in);
        CcComponent dst = channel_of (&im, im.out);
        memset (im.out, POISON, im.pitch * im.height);
        n_cases++;
        rc = cc_cpu_convolve_pixels (&src, &dst, &f, CC_BORDER_MIRROR, 3);
        for (int c = 0; c < ps && rc == 0; c++) {
          im.channel = c;
          shape_reference (&im, &f, CC_BORDER_MIRROR, ref);
          bad += samples_off (&im, ref, f.shape == CC_SHAPE_WIDE);
        }
        im.channel = 0;
        stray = stray_past_pixels (&im);
        if (rc != 0 || bad || stray != (size_t) -1) {
          n_failed++;
          printf ("FAIL whole pixels %s stride %d %d-bit: rc %d, %d samples "
              "off, stray byte %lld\n", shape_name (shapes[k]), ps,
              8 * bytes, rc, bad,
              stray == (size_t) -1 ? -1LL : (long long) stray);
        }
        free (ref);
        image_clear (&im);
      }
    }
  }
}
#endif

#ifdef KERNELS_CUDA
#define ORDER_WIDTH 3840
#define ORDER_HEIGHT 2160
#define ORDER_REPEATS 20

static void
expect_same (const char *what, const unsigned char *want,
    const unsigned char *d_got, unsigned char *got, size_t bytes)
{
  n_cases++;
  if (cudaMemcpy (got, d_got, bytes, cudaMemcpyDeviceToHost) != cudaSuccess
      || memcmp (want, got, bytes) != 0) {
    n_failed++;
    printf ("FAIL %s\n", what);
  }
}

/* One of two launches queued back to back */
typedef struct {
  const CcComponent *src, *dst;
  const CcFilter *filter;
  CcLaunchFlags flags;
} QueuedLaunch;

static cudaError_t
launch_pair (const QueuedLaunch * pair, CcStrategy strategy, int synchronise)
{
  cudaError_t e = cudaSuccess;
  for (int k = 0; k < 2 && e == cudaSuccess; k++) {
    if (k == 1 && synchronise)
      e = cudaDeviceSynchronize ();
    if (e == cudaSuccess)
      e = cc_cuda_convolve (pair[k].src, pair[k].dst, pair[k].filter,
          CC_BORDER_CLAMP, strategy, NULL, 0, 0, pair[k].flags, NULL);
  }
  return e;
}

static cudaError_t
poison_pair (const QueuedLaunch * pair, size_t bytes)
{
  cudaError_t e = cudaMemset (pair[0].dst->data, POISON, bytes);
  return e == cudaSuccess ? cudaMemset (pair[1].dst->data, POISON, bytes) : e;
}

/* The second launch's output, with a synchronisation between the two, then
 * ORDER_REPEATS times without: it must be the same each time. */
static cudaError_t
check_queued_pair (const char *what, const QueuedLaunch * pair,
    CcStrategy strategy, unsigned char *want, unsigned char *got,
    size_t bytes)
{
  cudaError_t e;
  if ((e = poison_pair (pair, bytes)) != cudaSuccess
      || (e = launch_pair (pair, strategy, 1)) != cudaSuccess
      || (e = cudaMemcpy (want, pair[1].dst->data, bytes,
              cudaMemcpyDeviceToHost)) != cudaSuccess)
    return e;
  for (int r = 0; r < ORDER_REPEATS && e == cudaSuccess; r++) {
    char name[200];
    snprintf (name, sizeof (name), "[%s] %s, repeat %d",
        strategy == CC_STRATEGY_CACHE_HALO ? "cache-halo" : "tiled-halo",
        what, r);
    if ((e = poison_pair (pair, bytes)) == cudaSuccess
        && (e = launch_pair (pair, strategy, 0)) == cudaSuccess)
      expect_same (name, want, pair[1].dst->data, got, bytes);
  }
  return e;
}

/* Kernels queued back to back, without a synchronisation between them,
 * must give what they give one at a time, whatever each may start before
 * the one ahead of it ends (programmatic dependent launch on compute
 * capability 9.0+): a kernel reading the previous kernel's output waits
 * for it (CC_LAUNCH_DEFAULT), and one that only reads what is ready still
 * stores after the kernel ahead of it (CC_LAUNCH_SRC_READY). A 3840x2160
 * plane, where kernels take microseconds, r1 then r2, each strategy,
 * ORDER_REPEATS times, as a race shows only now and then. */
static void
test_launch_order (RefRng * rng)
{
  const size_t bytes = (size_t) ORDER_WIDTH * ORDER_HEIGHT;
  unsigned char *host = malloc (bytes), *want = malloc (bytes);
  unsigned char *got = malloc (bytes), *d[3] = { NULL, NULL, NULL };
  Filters *f = calloc (2, sizeof (Filters));
  cudaError_t e = host && want && got && f ? cudaSuccess :
      cudaErrorMemoryAllocation;

  for (size_t k = 0; host && k < bytes; k++)
    host[k] = (unsigned char) ref_rng_u32 (rng);
  for (int k = 0; k < 3 && e == cudaSuccess; k++)
    e = cudaMalloc ((void **) &d[k], bytes);
  if (e == cudaSuccess)
    e = cudaMemcpy (d[0], host, bytes, cudaMemcpyHostToDevice);
  if (f) {
    random_filters (rng, 3, 0, 255.0, &f[0]);
    random_filters (rng, 5, 1, 255.0, &f[1]);
  }

  CcComponent a = { d[0], ORDER_WIDTH, ORDER_WIDTH, ORDER_HEIGHT, 1,
    CC_SAMPLE_U8, 0, 0
  };
  CcComponent b = a, c = a;
  b.data = d[1];
  c.data = d[2];
  const CcFilter *first = f ? &f[0].f : NULL, *second = f ? &f[1].f : NULL;
  /* a -> b -> c: the second reads the first one's output */
  const QueuedLaunch chained[2] = { {&a, &b, first, CC_LAUNCH_SRC_READY},
  {&b, &c, second, CC_LAUNCH_DEFAULT}
  };
  /* a -> b twice: the second filter's output must stay */
  const QueuedLaunch same_dst[2] = { {&a, &b, first, CC_LAUNCH_SRC_READY},
  {&a, &b, second, CC_LAUNCH_SRC_READY}
  };
  for (int s = 0; s < 2 && e == cudaSuccess; s++) {
    const CcStrategy strategy = s ? CC_STRATEGY_CACHE_HALO :
        CC_STRATEGY_TILED_HALO;
    e = check_queued_pair ("a kernel reading the output of the one queued "
        "just before it", chained, strategy, want, got, bytes);
    if (e == cudaSuccess)
      e = check_queued_pair ("two kernels ready to read, writing the same "
          "plane", same_dst, strategy, want, got, bytes);
  }
  if (e != cudaSuccess) {
    n_cases++;
    n_failed++;
    printf ("FAIL launch order: CUDA error: %s\n", cudaGetErrorString (e));
  }
  for (int k = 0; k < 3; k++)
    cudaFree (d[k]);
  free (f);
  free (got);
  free (want);
  free (host);
}
#endif

#ifdef KERNELS_CUDA
/* 3840x2160 planes, where the streaming separable families take several
 * steps (2 or 3 on an H100) or chunks per strip (not in quick runs) */
static void
test_long_strips (RefRng * rng)
{
  static const int sizes[][2] = { {3840, 2160} };
  static const int radii[] = { 4, 5, 0 };
  check_sizes_and_radii (rng, sizes, 1, radii, "long strips",
      separable_filters);
}

/* Every family ran, and passed, at each of its radii among those the
 * tests use, under every border, at 8 and 16 bits. */
static void
test_family_coverage (void)
{
  for (int f = 0; f < CC_N_FAMILIES; f++) {
    const int wide = f >= CC_FAMILY_SEPARABLE_WIDE;
    const int *radii = f == CC_FAMILY_SEPARABLE_WIDE ? radii_wide :
        wide ? radii_sums : variants[f].separable ? radii_separable :
        radii_2d;
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

/* The selector reaches every family, each from a plain case of its own;
 * and a plane too tall for a strip kernel's grid goes to the next family
 * of the list. Selection reads the planes' addresses, not their samples. */
static void
test_selector (void)
{
  static const struct {
    CcStrategy strategy;
    int bytes, radius, separable, width, height, unaligned;
    CcFamily want;
    CcShape shape;
  } cases[] = {
    {CC_STRATEGY_TILED_HALO, 1, 1, 0, 1920, 1080, 0,
        CC_FAMILY_2D_STRIP_TILED_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_CACHE_HALO, 2, 2, 0, 1920, 1080, 0,
        CC_FAMILY_2D_STRIP_CACHE_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_TILED_HALO, 1, 2, 0, 1920, 1080, 1, CC_FAMILY_2D_ROW_BLOCK, CC_SHAPE_TAPS},
    {CC_STRATEGY_TILED_HALO, 2, 3, 0, 1920, 1080, 0, CC_FAMILY_2D_TILED_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_CACHE_HALO, 1, 3, 0, 1920, 1080, 0, CC_FAMILY_2D_CACHE_HALO, CC_SHAPE_TAPS},
    /* rows that do not move as quads: cache-halo runs the tiled-halo ones */
    {CC_STRATEGY_CACHE_HALO, 1, 1, 0, 1920, 1080, 1, CC_FAMILY_2D_ROW_BLOCK, CC_SHAPE_TAPS},
    {CC_STRATEGY_CACHE_HALO, 2, 3, 0, 1920, 1080, 1, CC_FAMILY_2D_TILED_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 1, 3, 1, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_STRIP_MMA, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 2, 2, 1, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_STRIP_FP32, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 1, 9, 1, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_TILE_MMA, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 2, 9, 1, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_TILE_FP32, CC_SHAPE_TAPS},
    /* more strips of rows than a grid has rows of blocks */
    {CC_STRATEGY_CACHE_HALO, 1, 1, 0, 32, 3000000, 0,
        CC_FAMILY_2D_CACHE_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 1, 1, 1, 32, 3000000, 0,
        CC_FAMILY_SEPARABLE_TILE_FP32, CC_SHAPE_TAPS},
    /* the wide shapes run their family whatever the strategy */
    {CC_STRATEGY_AUTO, 1, 127, 0, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_WIDE, CC_SHAPE_WIDE},
    {CC_STRATEGY_SEPARABLE, 2, 16, 0, 1920, 1080, 1,
        CC_FAMILY_SEPARABLE_WIDE, CC_SHAPE_WIDE},
    {CC_STRATEGY_TILED_HALO, 1, 2, 0, 1920, 1080, 0,
        CC_FAMILY_BOX_RUNNING_SUM, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 2, 127, 0, 32, 3000000, 0,
        CC_FAMILY_BOX_RUNNING_SUM, CC_SHAPE_BOX},
    {CC_STRATEGY_CACHE_HALO, 1, 0, 0, 1920, 1080, 1,
        CC_FAMILY_BLOCK_MEAN, CC_SHAPE_BLOCKS},
  };
  static CcFilter f;
  int reached[CC_N_FAMILIES] = { 0 };

  for (size_t k = 0; k < sizeof (cases) / sizeof (cases[0]); k++) {
    const int side = 2 * cases[k].radius + 1;
    /* 16-byte rows, or rows 3 samples past them */
    const size_t pitch = ((size_t) cases[k].width * cases[k].bytes + 15) / 16
        * 16 + (cases[k].unaligned ? 3 * cases[k].bytes : 0);
    CcComponent src = { (void *) (uintptr_t) 0x100000, pitch, cases[k].width,
      cases[k].height, 1, (CcSampleType) cases[k].bytes, 0, 0
    };
    CcComponent dst = src;
    CcFamily got = CC_N_FAMILIES;
    cudaError_t e;

    f.radius = cases[k].radius;
    f.shape = cases[k].shape;
    f.scale = 1.0;
    f.response = CC_RESPONSE_LINEAR;
    f.offset = 0.0f;
    f.separable = cases[k].separable;
    /* the wide shapes hold no 2D table: their sides pass its size */
    for (int i = 0; f.shape == CC_SHAPE_TAPS && i < side * side; i++)
      f.taps[i] = 1.0f / (side * side);
    for (int i = 0; i < side; i++)
      f.col_taps[i] = f.row_taps[i] = 1.0f / side;
    dst.data = (void *) (uintptr_t) 0x200000;
    n_cases++;
    e = cc_cuda_select_family (&src, &dst, &f, cases[k].strategy, &got);
    if (e != cudaSuccess || got != cases[k].want) {
      n_failed++;
      printf ("FAIL selector case %zu (%dx%d %d-bit radius %d): got %s, want "
          "%s\n", k, cases[k].width, cases[k].height, 8 * cases[k].bytes,
          cases[k].radius, e == cudaSuccess ? cc_family_name (got) :
          cudaGetErrorString (e), cc_family_name (cases[k].want));
    } else {
      reached[got] = 1;
    }
  }
  for (int f = 0; f < CC_N_FAMILIES; f++) {
    n_cases++;
    if (!reached[f]) {
      n_failed++;
      printf ("FAIL selector: no case reached %s\n",
          cc_family_name ((CcFamily) f));
    }
  }
}
#endif

static void
expect_rejected (const char *what, int rc)
{
  n_cases++;
  if (rc == 0) {
    n_failed++;
    printf ("FAIL %s: accepted\n", what);
  }
}

/* Bad arguments come back as errors, never as a crash or a launch. */
static void
test_invalid_arguments (void)
{
  unsigned char a[64], b[64];
  CcComponent good = { a, 8, 8, 8, 1, CC_SAMPLE_U8, 0, 0 };
  CcComponent out = { b, 8, 8, 8, 1, CC_SAMPLE_U8, 0, 0 };
  CcComponent null_data = good, narrow_pitch = good, other_size = out;
  CcComponent deep = good, shifted = good, other_bits = out;
  CcFilter too_wide = { .radius = CC_MAX_RADIUS + 1,
    .response = CC_RESPONSE_LINEAR, .taps = {1.0f}
  };
  CcFilter mag_too_wide = { .radius = CC_MAX_MAGNITUDE_RADIUS + 1,
    .response = CC_RESPONSE_MAGNITUDE, .taps = {1.0f}
  };
  CcFilter ok = { .radius = 0, .response = CC_RESPONSE_LINEAR, .taps = {1.0f} };
  CcFilter negative = ok, unknown_response = ok;
  null_data.data = NULL;
  narrow_pitch.pitch = 4;
  other_size.width = 7;
  deep.depth = 9;               /* more bits than an 8-bit sample has */
  shifted.depth = 6;
  shifted.shift = 3;            /* 6 bits above 3 do not fit 8 */
  other_bits.depth = 7;         /* src and dst of different depths */
  negative.radius = -1;
  unknown_response.response = (CcResponse) 7;
  CcFilter wide_128 = ok, box_128 = ok, blocks_128 = ok, unknown_shape = ok;
  CcFilter wide_magnitude = ok;
  wide_128.shape = CC_SHAPE_WIDE;
  wide_128.radius = CC_MAX_WIDE_RADIUS + 1;
  box_128.shape = CC_SHAPE_BOX;
  box_128.radius = CC_MAX_WIDE_RADIUS + 1;
  blocks_128.shape = CC_SHAPE_BLOCKS;
  blocks_128.radius = CC_MAX_WIDE_RADIUS + 1;
  unknown_shape.shape = (CcShape) 7;
  wide_magnitude.shape = CC_SHAPE_WIDE;
  wide_magnitude.radius = 1;
  wide_magnitude.response = CC_RESPONSE_MAGNITUDE;

#ifdef KERNELS_CUDA
  CcFilter box_ok = ok;
  box_ok.shape = CC_SHAPE_BOX;
  box_ok.radius = 2;
  box_ok.scale = 1.0 / 25.0;
  unsigned char *d;
  if (cudaMalloc ((void **) &d, 128) != cudaSuccess)
    return;
  good.data = d;
  out.data = d + 64;
  narrow_pitch.data = d;
  other_size.data = d + 64;
  deep.data = shifted.data = d;
  other_bits.data = d + 64;
  /* every entry point checks the filter (cc_filter_valid) */
#define CONVOLVE(s, o, f, border) \
  cc_cuda_convolve (s, o, f, border, CC_STRATEGY_TILED_HALO, NULL, 0, 0, \
      CC_LAUNCH_DEFAULT, NULL)
  CcFamily family;
  expect_rejected ("select for radius 16", cc_cuda_select_family (&good, &out,
          &too_wide, CC_STRATEGY_TILED_HALO, &family));
  expect_rejected ("convolve with no filter", cc_cuda_convolve (&good, &out,
          NULL, CC_BORDER_CLAMP, CC_STRATEGY_TILED_HALO, NULL, 0, 0,
          CC_LAUNCH_DEFAULT, NULL));
  expect_rejected ("unknown strategy", cc_cuda_convolve (&good, &out,
          &ok, CC_BORDER_CLAMP, (CcStrategy) 7, NULL, 0, 0,
          CC_LAUNCH_DEFAULT, NULL));
  expect_rejected ("strategy auto, which the tuner resolves",
      cc_cuda_convolve (&good, &out, &ok, CC_BORDER_CLAMP,
          CC_STRATEGY_AUTO, NULL, 0, 0, CC_LAUNCH_DEFAULT, NULL));
  expect_rejected ("separable strategy on a 2D filter",
      cc_cuda_convolve (&good, &out, &ok, CC_BORDER_CLAMP,
          CC_STRATEGY_SEPARABLE, NULL, 0, 0, CC_LAUNCH_DEFAULT, NULL));
  expect_rejected ("a separable family on a 2D filter",
      cc_cuda_convolve_family (CC_FAMILY_SEPARABLE_TILE_FP32, &good, &out,
          &ok, CC_BORDER_CLAMP, NULL, 0, 0, CC_LAUNCH_DEFAULT));
  expect_rejected ("a taps family on a box",
      cc_cuda_convolve_family (CC_FAMILY_2D_TILED_HALO, &good, &out,
          &box_ok, CC_BORDER_CLAMP, NULL, 0, 0, CC_LAUNCH_DEFAULT));
  expect_rejected ("unknown family", cc_cuda_convolve_family
      ((CcFamily) CC_N_FAMILIES, &good, &out, &ok, CC_BORDER_CLAMP,
          NULL, 0, 0, CC_LAUNCH_DEFAULT));
  expect_rejected ("unknown launch flag", cc_cuda_convolve (&good, &out,
          &ok, CC_BORDER_CLAMP, CC_STRATEGY_TILED_HALO, NULL, 0, 0,
          (CcLaunchFlags) 6, NULL));
  expect_rejected ("tuner without a result pointer",
      cc_cuda_fastest_strategy (&good, &out, &ok, CC_BORDER_CLAMP, NULL, 0,
          0, NULL, NULL));
  {
    /* a box needs its workspace: none, or a byte too little, is refused
     * by every entry point */
    const size_t need = cc_cuda_workspace_bytes (&good, &box_ok);
    void *work = NULL;
    CcStrategy st;
    n_cases++;
    if (need == 0 || cudaMalloc (&work, need) != cudaSuccess) {
      n_failed++;
      printf ("FAIL a box's workspace: %zu bytes\n", need);
    } else {
      expect_rejected ("box without workspace", cc_cuda_convolve (&good,
              &out, &box_ok, CC_BORDER_CLAMP, CC_STRATEGY_AUTO, NULL, 0, 0,
              CC_LAUNCH_DEFAULT, NULL));
      expect_rejected ("box with a workspace too small",
          cc_cuda_convolve (&good, &out, &box_ok, CC_BORDER_CLAMP,
              CC_STRATEGY_AUTO, work, need - 1, 0, CC_LAUNCH_DEFAULT, NULL));
      expect_rejected ("box family with a workspace too small",
          cc_cuda_convolve_family (CC_FAMILY_BOX_RUNNING_SUM, &good, &out,
              &box_ok, CC_BORDER_CLAMP, work, need - 1, 0,
              CC_LAUNCH_DEFAULT));
      expect_rejected ("tuner with a workspace too small",
          cc_cuda_fastest_strategy (&good, &out, &box_ok, CC_BORDER_CLAMP,
              work, need - 1, 0, &st, NULL));
      n_cases++;
      if (cc_cuda_convolve (&good, &out, &box_ok, CC_BORDER_CLAMP,
              CC_STRATEGY_AUTO, work, need, 0, CC_LAUNCH_DEFAULT,
              NULL) != cudaSuccess || cudaDeviceSynchronize () != cudaSuccess) {
        n_failed++;
        printf ("FAIL box with its workspace refused\n");
      }
    }
    cudaFree (work);
  }
#else
#define CONVOLVE(s, o, f, border) cc_cpu_convolve (s, o, f, border, 1)
#endif
  expect_rejected ("radius 16", CONVOLVE (&good, &out, &too_wide,
          CC_BORDER_CLAMP));
  expect_rejected ("magnitude radius past the limit", CONVOLVE (&good, &out,
          &mag_too_wide, CC_BORDER_CLAMP));
  expect_rejected ("negative radius", CONVOLVE (&good, &out, &negative,
          CC_BORDER_CLAMP));
  expect_rejected ("unknown response", CONVOLVE (&good, &out,
          &unknown_response, CC_BORDER_CLAMP));
  expect_rejected ("null data", CONVOLVE (&null_data, &out, &ok,
          CC_BORDER_CLAMP));
  expect_rejected ("pitch narrower than a row", CONVOLVE (&narrow_pitch, &out,
          &ok, CC_BORDER_CLAMP));
  expect_rejected ("different sizes", CONVOLVE (&good, &other_size, &ok,
          CC_BORDER_CLAMP));
  expect_rejected ("unknown border", CONVOLVE (&good, &out, &ok,
          (CcBorder) 9));
  expect_rejected ("depth past the sample", CONVOLVE (&deep, &out, &ok,
          CC_BORDER_CLAMP));
  expect_rejected ("depth and shift past the sample", CONVOLVE (&shifted,
          &out, &ok, CC_BORDER_CLAMP));
  expect_rejected ("different depths", CONVOLVE (&good, &other_bits, &ok,
          CC_BORDER_CLAMP));
  expect_rejected ("wide radius 128", CONVOLVE (&good, &out, &wide_128,
          CC_BORDER_CLAMP));
  expect_rejected ("box radius 128", CONVOLVE (&good, &out, &box_128,
          CC_BORDER_CLAMP));
  expect_rejected ("blocks radius 128", CONVOLVE (&good, &out, &blocks_128,
          CC_BORDER_CLAMP));
  expect_rejected ("unknown shape", CONVOLVE (&good, &out, &unknown_shape,
          CC_BORDER_CLAMP));
  expect_rejected ("a wide shape with a magnitude response", CONVOLVE (&good,
          &out, &wide_magnitude, CC_BORDER_CLAMP));
#ifdef KERNELS_CUDA
  cudaFree (d);
#endif
}

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
#endif
  ref_rng_seed (&rng, ref_test_seed ());
  RUN (test_sizes_radii_borders, &rng);
  RUN (test_separable, &rng);
  RUN (test_interleaved, &rng);
  RUN (test_magnitude, &rng);
  RUN (test_fill, &rng);
#ifndef KERNELS_CUDA
  RUN (test_whole_pixels, &rng);
#endif
  RUN (test_depths, &rng);
  RUN (test_huge_weights, &rng);
  RUN (test_wide_shapes, &rng);
#ifndef KERNELS_CUDA
  RUN (test_shape_pixels, &rng);
#endif
#ifdef KERNELS_CUDA
  RUN (test_long_strips, &rng);
  RUN (test_launch_order, &rng);
  RUN (test_family_coverage);
  RUN (test_selector);
#endif
  RUN (test_invalid_arguments);
  printf ("%d passed, %d failed\n", n_cases - n_failed, n_failed);
  return n_failed ? 1 : 0;
}

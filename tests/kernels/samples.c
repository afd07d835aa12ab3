/* cudaconv kernel tests: samples. How a plane's samples may be laid out
 * and filtered beyond one plain channel: one channel among others in
 * packed pixels (and, on the CPU, every channel of a pixel at once),
 * gradient magnitudes, fills, 10- and 12-bit samples in 16 bits (LSB- and
 * MSB-aligned), and weights too large for a float's scaled copy; each
 * checked as every case is, against the double reference. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

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


void
run_topic (RefRng * rng)
{
  RUN (test_interleaved, rng);
  RUN (test_magnitude, rng);
  RUN (test_fill, rng);
#ifndef KERNELS_CUDA
  RUN (test_whole_pixels, rng);
#endif
  RUN (test_depths, rng);
  RUN (test_huge_weights, rng);
}

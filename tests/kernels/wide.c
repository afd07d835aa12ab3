/* cudaconv kernel tests: wide. The filter shapes other than taps: wide
 * separable factors with a centre weight (radii past the taps' 15), box
 * sums and block means (from radius 0), at every radius of radii_wide and
 * radii_sums, under every border, on 8-, 10-, 12- and 16-bit planes; wide
 * within 1 of the double reference, box and blocks exactly (and, on the
 * CPU, every component of a pixel at once, and the box cut into bands for
 * 1 to 64 threads).
 * The CUDA build checks at the end that each of their families ran at
 * each of those radii, under every border, at 8 and 16 bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

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
 * filter here but r0-r1), 257x129 (odd, several blocks and tiles), 40x33,
 * 2101x9 and 1030x37 (rows of several warp windows, the last one cut short,
 * the vector loads' edges in every row layout; columns shorter than the
 * radius);
 * 8-bit, 16-bit, 10 bits above 6 padding bits (P010) and 12 bits in the
 * low ones (I420_12LE); one sample per pixel and components of 2- and
 * 4-sample pixels; every radius of
 * radii_wide and radii_sums under every border. 1920x1080 (not in quick
 * runs) 8-bit at the largest radius: many tiles and column chunks. */
static void
test_wide_shapes (RefRng * rng)
{
  static const struct {
    int width, height, pixel_stride;
  } planes[] = { {1, 1, 1}, {3, 700, 2}, {257, 129, 1}, {5, 4, 4},
  {40, 33, 2}, {2101, 9, 1}, {1030, 37, 1}, {1920, 1080, 1}
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
    for (int kind = 0; kind < 4; kind++) {
      /* 8-bit, 16-bit, P010-like 10 bits << 6, 12 bits */
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
      if (kind == 3)
        image_set_bits (&im, 12, 0);
      ref = malloc (sizeof (uint32_t) * im.width * im.height);
      snprintf (what, sizeof (what), "%dx%d stride %d %s", im.width,
          im.height, ps, kind == 0 ? "8-bit" : kind == 1 ? "16-bit" :
          kind == 2 ? "10-bit << 6" : "12-bit");
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

#ifndef KERNELS_CUDA
/* Samples of the output whose value (raw >> shift) is not ref's, or whose
 * padding bits are set */
static int
values_off (const Image * im, const uint32_t * ref)
{
  int off = 0;

  for (int y = 0; y < im->height; y++)
    for (int x = 0; x < im->width; x++) {
      const unsigned char *p = im->out + y * im->pitch +
          ((size_t) x * im->pixel_stride + im->channel) * im->bytes;
      const unsigned raw = im->bytes == 1 ? p[0] : (unsigned) (p[0] | p[1]
          << 8);
      off += (raw & ((1u << im->shift) - 1u)) != 0
          || raw >> im->shift != ref[(size_t) y * im->width + x];
    }
  return off;
}

/* Bytes of the output other than the channel's samples that are no longer
 * POISON (row padding, the pixels' other samples) */
static size_t
stray_bytes (const Image * im)
{
  const size_t row_bytes = (size_t) im->width * im->pixel_stride * im->bytes;
  size_t stray = 0;

  for (size_t i = 0; i < im->pitch * im->height; i++) {
    const size_t in_row = i % im->pitch;
    const int ours = in_row < row_bytes
        && (int) (in_row / im->bytes % im->pixel_stride) == im->channel;
    stray += !ours && im->out[i] != POISON;
  }
  return stray;
}

/* The CPU box in bands: each band of rows starts its own window of column
 * sums, so each band edge is checked, exactly against the reference, with
 * the job cut into as many bands as threads asked for (main() turns the
 * pool's sizing by work off): bands of at least max(8, (2r+1) / 8) rows,
 * else as many as the threads. Radii 1 to 127 (bands of 8 rows up to r35,
 * of (2r+1) / 8 rows above), a plane of one sample, odd widths, heights
 * and widths below the radius, components of 2-, 3- and 4-sample pixels;
 * 8-, 16- and 10-bit << 6 samples; every border; 1, 2, 3, 16 and 64
 * threads. */
static void
test_box_bands (RefRng * rng)
{
  static const struct {
    int width, height, pixel_stride, channel;
  } planes[] = { {1, 1, 1, 0}, {7, 3, 1, 0}, {33, 70, 2, 1}, {130, 17, 1, 0},
  {129, 300, 3, 2}, {40, 257, 4, 0}
  };
  static const int radii[] = { 1, 2, 16, 17, 63, 127 };
  static const int threads[] = { 1, 2, 3, 16, 64 };
  static CcFilter f;

  for (size_t p = 0; p < sizeof (planes) / sizeof (planes[0]); p++) {
    for (int kind = 0; kind < 3; kind++) {
      /* 8-bit, 16-bit, P010-like 10 bits << 6 */
      Image im;
      uint32_t *ref;
      image_init (&im, rng, planes[p].width, planes[p].height, kind ? 2 : 1,
          planes[p].pixel_stride, planes[p].channel, (RowLayout) (p % 3));
      if (kind == 2)
        image_set_bits (&im, 10, 6);
      ref = malloc (sizeof (uint32_t) * im.width * im.height);
      for (size_t k = 0; k < sizeof (radii) / sizeof (radii[0]); k++) {
        shape_filter (rng, CC_SHAPE_BOX, radii[k], &f);
        for (int b = 0; b < 4; b++) {
          RefImage rim = ref_image (&im);
          ref_box (&rim, f.radius, f.scale, f.offset, (RefBorder) b, ref);
          for (size_t t = 0; t < sizeof (threads) / sizeof (threads[0]); t++) {
            CcComponent src = channel_of (&im, im.in);
            CcComponent dst = channel_of (&im, im.out);
            int rc, off = 0;
            size_t stray = 0;
            memset (im.out, POISON, im.pitch * im.height);
            n_cases++;
            rc = cc_cpu_convolve (&src, &dst, &f, (CcBorder) b, threads[t]);
            if (rc == 0) {
              off = values_off (&im, ref);
              stray = stray_bytes (&im);
            }
            if (rc != 0 || off || stray) {
              n_failed++;
              printf ("FAIL box bands %dx%d stride %d %s r%d border %s, %d "
                  "threads: rc %d, %d samples off, %zu stray bytes\n",
                  im.width, im.height, im.pixel_stride, kind == 0 ?
                  "8-bit" : kind == 1 ? "16-bit" : "10-bit << 6", f.radius,
                  border_names[b], threads[t], rc, off, stray);
            }
          }
        }
      }
      free (ref);
      image_clear (&im);
    }
  }
}
#endif

#ifdef KERNELS_CUDA
/* Every family of the wide shapes ran, and passed, at each of its radii
 * among those above, under every border, at 8 and 16 bits. */
static void
test_family_coverage (void)
{
  check_family_coverage (1);
}
#endif

void
run_topic (RefRng * rng)
{
  RUN (test_wide_shapes, rng);
#ifndef KERNELS_CUDA
  RUN (test_shape_pixels, rng);
  RUN (test_box_bands, rng);
#else
  RUN (test_family_coverage);
#endif
}

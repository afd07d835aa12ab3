/* cudaconv kernel tests: convolve. Random 2D filters and outer products
 * with their factors, on 8- and 16-bit planes of every size the kernels
 * tell apart, at every radius, under every border, against the double
 * reference; the CUDA build adds 3840x2160 planes for the streaming
 * separable families and at the end checks that each taps family ran at
 * each of its radii among those tested, under every border, at 8 and 16
 * bits. */
#include <stdlib.h>

#include "harness.h"

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

/* Every taps family ran, and passed, at each of its radii among those
 * above, under every border, at 8 and 16 bits: the cases of this program
 * are the ones that cover them. */
static void
test_family_coverage (void)
{
  check_family_coverage (0);
}
#endif

void
run_topic (RefRng * rng)
{
  RUN (test_sizes_radii_borders, rng);
  RUN (test_separable, rng);
#ifdef KERNELS_CUDA
  RUN (test_long_strips, rng);
  RUN (test_family_coverage);
#endif
}

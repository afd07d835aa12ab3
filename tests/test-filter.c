/* cudaconv tests: filter preparation at the numeric edges, and a bounded
 * fuzz of matrix texts, presets and divisors asserting that every filter
 * made gives finite sums for every input. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <glib.h>

#include "cudaconv-presets.h"
#include "cudaconv-matrix.h"
#include "cudaconv-filter.h"
#include "reference.h"

/* What cudaconv_filter_prepare promises: finite taps and factors, and a
 * sum of |taps| times the largest sample that single precision holds. */
static void
assert_runnable (const CcFilter * f, const gchar * what)
{
  const int side = 2 * f->radius + 1;
  const int n = cc_filter_n_taps (f->radius, f->response);
  double magnitudes[2] = { 0.0, 0.0 };

  for (int k = 0; k < n; k++) {
    if (!isfinite (f->taps[k]))
      g_error ("%s: tap %d is %g", what, k, f->taps[k]);
    magnitudes[k / (side * side)] += fabs (f->taps[k]);
  }
  for (int h = 0; h < 2; h++)
    if (!(magnitudes[h] * 65535.0 < FLT_MAX))
      g_error ("%s: taps add up to %g in magnitude", what, magnitudes[h]);
  if (f->separable) {
    for (int k = 0; k < side; k++)
      if (!isfinite (f->col_taps[k]) || !isfinite (f->row_taps[k]))
        g_error ("%s: factor %d is %g, %g", what, k, f->col_taps[k],
            f->row_taps[k]);
  }
}

static void
prepare_ok (const CudaConvWeights * w, double divisor, CcFilter * f,
    const gchar * what)
{
  GError *err = NULL;

  if (!cudaconv_filter_prepare (w, divisor, 0.0, f, &err))
    g_error ("%s: refused: %s", what, err->message);
  assert_runnable (f, what);
}

static void
uniform_3x3 (double value, CudaConvWeights * w)
{
  w->side = 3;
  w->response = CC_RESPONSE_LINEAR;
  for (int k = 0; k < 9; k++)
    w->coeffs[k] = value;
}

/* sigma too small to square: the gaussian's limit, the identity */
static void
test_tiny_sigma (void)
{
  static const double sigmas[] = { 1e-170, 1e-200, 1e-320, 1e-9 };

  for (guint i = 0; i < G_N_ELEMENTS (sigmas); i++) {
    for (int kernel = 0; kernel < 2; kernel++) {
      CudaConvWeights w;
      CcFilter f;
      const int r = 3, side = 2 * r + 1;

      g_assert_true (cudaconv_preset_weights (kernel ?
              GST_CUDACONV_KERNEL_SHARPEN : GST_CUDACONV_KERNEL_GAUSSIAN, r,
              sigmas[i], &w));
      prepare_ok (&w, 0.0, &f, "tiny sigma");
      for (int k = 0; k < side * side; k++)
        g_assert_cmpfloat (f.taps[k], ==, k == r * side + r ? 1.0f : 0.0f);
    }
  }
}

/* nine 1e308 overflow a plain sum: still the mean */
static void
test_huge_weights_sum (void)
{
  static const double values[] = { 1e308, -1e308, 1.7e308, 1e-10, 1e-300,
    4.9e-324
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++) {
    CudaConvWeights w;
    CcFilter f;

    uniform_3x3 (values[i], &w);
    g_assert_cmpfloat (cudaconv_effective_divisor (&w, 0.0), !=, 1.0);
    prepare_ok (&w, 0.0, &f, "uniform weights");
    for (int k = 0; k < 9; k++)
      g_assert_cmpfloat (f.taps[k], ==, (float) (1.0 / 9.0));
    g_assert_true (f.separable);
  }
}

/* A sum of zero is judged relative to the weights' size: 1e-10 ones do not
 * sum to zero, a Laplacian of any size does, and so does residue. */
static void
test_relative_zero_sum (void)
{
  CudaConvWeights w;
  CcFilter f;

  uniform_3x3 (1e-10, &w);
  g_assert_cmpfloat_with_epsilon (cudaconv_effective_divisor (&w, 0.0), 9e-10,
      1e-24);
  uniform_3x3 (-1e-300, &w);
  w.coeffs[4] = 8e-300;
  g_assert_cmpfloat (cudaconv_effective_divisor (&w, 0.0), ==, 1.0);
  prepare_ok (&w, 0.0, &f, "tiny laplacian");
  g_assert_cmpfloat (f.taps[4], ==, 0.0f);      /* 8e-300 as a float */
  uniform_3x3 (0.0, &w);
  w.coeffs[0] = 0.1;
  w.coeffs[1] = 0.2;
  w.coeffs[2] = -0.3;
  g_assert_cmpfloat (cudaconv_effective_divisor (&w, 0.0), ==, 1.0);
}

/* taps no float sum can hold are refused, naming the culprit */
static void
test_refused (void)
{
  CudaConvWeights w;
  CcFilter f;
  GError *err = NULL;

  uniform_3x3 (1.0, &w);
  g_assert_false (cudaconv_filter_prepare (&w, 1e-320, 0.0, &f, &err));
  g_assert_nonnull (strstr (err->message, "divisor"));
  g_clear_error (&err);
  g_assert_false (cudaconv_filter_prepare (&w, 1e-34, 0.0, &f, &err));
  g_clear_error (&err);
  prepare_ok (&w, 1e-28, &f, "large taps that fit");

  /* four 1e308 and four -1e308 sum to 0: divided by 1 */
  uniform_3x3 (1e308, &w);
  w.coeffs[4] = -1e308;
  w.coeffs[5] = -1e308;
  w.coeffs[6] = -1e308;
  w.coeffs[7] = -1e308;
  w.coeffs[8] = 0.0;
  g_assert_false (cudaconv_filter_prepare (&w, 0.0, 0.0, &f, &err));
  g_assert_nonnull (strstr (err->message, "matrix"));
  g_clear_error (&err);
}

/* a number from 1e-330 to 1e308, or 0, of either sign */
static double
random_magnitude (RefRng * rng)
{
  const double e = -330.0 + 638.0 * ref_rng_uniform (rng);
  double v = pow (10.0, e) * (ref_rng_u32 (rng) & 1 ? -1.0 : 1.0);

  switch (ref_rng_u32 (rng) % 8) {
    case 0:
      return 0.0;
    case 1:
      return (double) (int) (ref_rng_u32 (rng) % 19) - 9.0;
    default:
      return isfinite (v) ? v : 1e308;
  }
}

static void
random_matrix_text (RefRng * rng, GString * text)
{
  static const char *junk[] = { "", " ", "x", "1e", "nan", "inf", "-inf",
    "1e999", "0x10", ",", ";", "--1", "1.5.5", "\t7"
  };
  const int side = 1 + 2 * (int) (ref_rng_u32 (rng) % 16);

  g_string_truncate (text, 0);
  for (int i = 0; i < side; i++) {
    for (int j = 0; j < side; j++) {
      if (j)
        g_string_append_c (text, ',');
      if (ref_rng_u32 (rng) % 200 == 0)
        g_string_append (text, junk[ref_rng_u32 (rng) % G_N_ELEMENTS (junk)]);
      else
        g_string_append_printf (text, "%.17g", random_magnitude (rng));
    }
    if (i + 1 < side)
      g_string_append_c (text, ';');
  }
}

/* Random filters the element could be asked for, for a bounded time: each
 * is refused with a message or made runnable. */
static void
test_fuzz (void)
{
  RefRng rng;
  GString *text = g_string_new (NULL);
  const gint64 end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  guint made = 0, refused = 0;

  ref_rng_seed (&rng, ref_test_seed ());
  while (g_get_monotonic_time () < end) {
    CudaConvWeights w;
    CcFilter f;
    GError *err = NULL;
    const double divisor = ref_rng_u32 (&rng) % 2 ? 0.0 :
        random_magnitude (&rng);
    const int kernel = ref_rng_u32 (&rng) % (GST_CUDACONV_KERNEL_CUSTOM + 1);

    if (kernel == GST_CUDACONV_KERNEL_CUSTOM) {
      random_matrix_text (&rng, text);
      if (!cudaconv_matrix_parse (text->str, &w, &err)) {
        g_assert_nonnull (err);
        g_clear_error (&err);
        refused++;
        continue;
      }
    } else {
      const double sigma = ref_rng_u32 (&rng) % 4 ? 0.0 :
          fabs (random_magnitude (&rng));
      g_assert_true (cudaconv_preset_weights (kernel,
              1 + ref_rng_u32 (&rng) % CC_MAX_RADIUS, MIN (sigma, 1000.0),
              &w));
    }
    if (cudaconv_filter_prepare (&w, divisor, 0.0, &f, &err)) {
      assert_runnable (&f, text->str);
      made++;
    } else {
      g_assert_nonnull (err);
      g_clear_error (&err);
      refused++;
    }
  }
  g_test_message ("%u filters made, %u refused", made, refused);
  g_assert_cmpuint (made, >, 100);
  g_assert_cmpuint (refused, >, 100);
  g_string_free (text, TRUE);
}

/* The box's integer division (cc_box_divider) gives what the contract's
 * formula, floor(s * scale + offset + 0.5) in double, gives for every sum
 * s of 8-bit values at the radii that stress it, and stays off where the
 * filter is not a plain mean. */
static void
test_box_divide (void)
{
  static const int radii[] = { 0, 1, 2, 3, 7, 15, 16, 31, 63, 64, 126, 127 };
  CcBoxDivider d = { 0, 0, 0 };

  for (guint k = 0; k < G_N_ELEMENTS (radii); k++) {
    const unsigned n = (2 * radii[k] + 1) * (2 * radii[k] + 1);
    const double scale = 1.0 / (double) n;

    g_assert_true (cc_box_divider (radii[k], scale, 0.0, &d));
    for (unsigned s = 0; s <= 255 * n; s++) {
      /* each operation rounded on its own, as the contract says */
      volatile double product = (double) s * scale;
      volatile double sum = product + 0.0;
      const unsigned want = (unsigned) floor (sum + 0.5);
      const unsigned got = cc_box_divide (s, d);
      if (got != want)
        g_error ("radius %d, sum %u: divided %u, the formula %u", radii[k], s,
            got, want);
    }
  }
  /* an offset, another divisor, a radius past the wide shapes' */
  g_assert_false (cc_box_divider (2, 1.0 / 25.0, 1.0, &d));
  g_assert_false (cc_box_divider (2, 1.0 / 24.0, 0.0, &d));
  g_assert_false (cc_box_divider (CC_MAX_WIDE_RADIUS + 1, 1.0 / 65536.0,
          0.0, &d));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/filter/tiny-sigma", test_tiny_sigma);
  g_test_add_func ("/filter/huge-weights-sum", test_huge_weights_sum);
  g_test_add_func ("/filter/relative-zero-sum", test_relative_zero_sum);
  g_test_add_func ("/filter/refused", test_refused);
  g_test_add_func ("/filter/fuzz", test_fuzz);
  g_test_add_func ("/filter/box-divide", test_box_divide);
  return g_test_run ();
}

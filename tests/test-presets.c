/* cudaconv tests: preset weights and the divisor rule, against their
 * documented formulas. */
#include <math.h>
#include <glib.h>

#include "cudaconv-presets.h"
#include "cudaconv-filter.h"

static double
sum_of (const CudaConvWeights * w)
{
  double s = 0.0;
  for (int k = 0; k < w->side * w->side; k++)
    s += w->coeffs[k];
  return s;
}

static void
test_gaussian (void)
{
  for (int r = 1; r <= CC_MAX_RADIUS; r++) {
    for (int with_sigma = 0; with_sigma < 2; with_sigma++) {
      CudaConvWeights w;
      double sigma = with_sigma ? 0.7 * r : 0.0;
      double s = sigma > 0 ? sigma : 0.3 * (r - 1) + 0.8;
      int side = 2 * r + 1;

      g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_GAUSSIAN, r,
              sigma, &w));
      g_assert_cmpint (w.side, ==, side);
      g_assert_cmpint (w.response, ==, CC_RESPONSE_LINEAR);
      g_assert_cmpfloat_with_epsilon (sum_of (&w), 1.0, 1e-12);
      for (int i = 0; i < side; i++) {
        for (int j = 0; j < side; j++) {
          double v = w.coeffs[i * side + j];
          /* symmetric under transposition and both mirrorings */
          g_assert_cmpfloat (v, ==, w.coeffs[j * side + i]);
          g_assert_cmpfloat_with_epsilon (v,
              w.coeffs[(side - 1 - i) * side + j], 1e-15);
          g_assert_cmpfloat_with_epsilon (v,
              w.coeffs[i * side + side - 1 - j], 1e-15);
          /* ratio to the centre is exp(-d^2 / (2 sigma^2)) */
          double dy = i - r, dx = j - r;
          g_assert_cmpfloat_with_epsilon (v / w.coeffs[r * side + r],
              exp (-(dx * dx + dy * dy) / (2 * s * s)), 1e-12);
        }
      }
    }
  }
  g_assert_cmpfloat_with_epsilon (cudaconv_gaussian_sigma (3, 0.0), 1.4, 1e-12);
  g_assert_cmpfloat (cudaconv_gaussian_sigma (3, 2.5), ==, 2.5);
}

static void
test_box (void)
{
  for (int r = 1; r <= CC_MAX_RADIUS; r++) {
    CudaConvWeights w;
    CcFilter f;
    int n = (2 * r + 1) * (2 * r + 1);

    g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_BOX, r, 0, &w));
    g_assert_cmpint (w.side, ==, 2 * r + 1);
    for (int k = 0; k < n; k++)
      g_assert_cmpfloat (w.coeffs[k], ==, 1.0);
    g_assert_cmpfloat (cudaconv_effective_divisor (&w, 0.0), ==, n);
    g_assert_true (cudaconv_filter_prepare (&w, 0.0, 0.0, &f, NULL));
    g_assert_cmpint (f.radius, ==, r);
    for (int k = 0; k < n; k++)
      g_assert_cmpfloat (f.taps[k], ==, (float) (1.0 / n));
  }
}

static void
assert_table (const CudaConvWeights * w, const double *want, int n)
{
  for (int k = 0; k < n; k++)
    g_assert_cmpfloat (w->coeffs[k], ==, want[k]);
}

static void
test_fixed_presets (void)
{
  static const double sobel_x[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const double sobel_y[9] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
  static const double laplacian[9] = { -1, -1, -1, -1, 8, -1, -1, -1, -1 };
  static const double emboss[9] = { -2, -1, 0, -1, 1, 1, 0, 1, 2 };
  CudaConvWeights w;

  /* radius is ignored by the 3x3 presets */
  g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_SOBEL_X, 7, 0,
          &w));
  g_assert_cmpint (w.side, ==, 3);
  assert_table (&w, sobel_x, 9);
  g_assert_cmpfloat (cudaconv_effective_divisor (&w, 0.0), ==, 1.0);

  g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_SOBEL_Y, 1, 0,
          &w));
  assert_table (&w, sobel_y, 9);

  g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_SOBEL, 4, 0,
          &w));
  g_assert_cmpint (w.response, ==, CC_RESPONSE_MAGNITUDE);
  assert_table (&w, sobel_x, 9);
  for (int k = 0; k < 9; k++)
    g_assert_cmpfloat (w.coeffs[9 + k], ==, sobel_y[k]);

  g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_EDGE, 2, 0, &w));
  assert_table (&w, laplacian, 9);
  g_assert_cmpfloat (cudaconv_effective_divisor (&w, 0.0), ==, 1.0);

  g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_EMBOSS, 2, 0,
          &w));
  assert_table (&w, emboss, 9);
  g_assert_cmpfloat (sum_of (&w), ==, 1.0);

  g_assert_true (cudaconv_kernel_is_edge_map (GST_CUDACONV_KERNEL_SOBEL));
  g_assert_false (cudaconv_kernel_is_edge_map (GST_CUDACONV_KERNEL_GAUSSIAN));
  g_assert_false (cudaconv_preset_weights (GST_CUDACONV_KERNEL_CUSTOM, 1, 0,
          &w));
}

static void
test_sharpen (void)
{
  for (int r = 1; r <= CC_MAX_RADIUS; r++) {
    CudaConvWeights s, g;
    int side = 2 * r + 1;
    g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_SHARPEN, r, 0,
            &s));
    g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_GAUSSIAN, r, 0,
            &g));
    g_assert_cmpfloat_with_epsilon (sum_of (&s), 1.0, 1e-12);
    for (int k = 0; k < side * side; k++) {
      double want = (k == r * side + r ? 2.0 : 0.0) - g.coeffs[k];
      g_assert_cmpfloat_with_epsilon (s.coeffs[k], want, 1e-15);
    }
  }
}

static void
test_divisor_offset_identity (void)
{
  CudaConvWeights w;
  CcFilter f;

  g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_IDENTITY, 5, 0,
          &w));
  g_assert_true (cudaconv_filter_prepare (&w, 0.0, 0.0, &f, NULL));
  g_assert_true (cudaconv_filter_is_identity (&f));
  g_assert_cmpint (f.radius, ==, 0);
  g_assert_true (cudaconv_filter_prepare (&w, 0.0, 10.0, &f, NULL));
  g_assert_false (cudaconv_filter_is_identity (&f));
  g_assert_cmpfloat (f.offset, ==, 10.0f);
  g_assert_true (cudaconv_filter_prepare (&w, 2.0, 0.0, &f, NULL));
  g_assert_false (cudaconv_filter_is_identity (&f));
  g_assert_cmpfloat (f.taps[0], ==, 0.5f);
  /* a given divisor wins over the sum, also a negative one */
  g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_BOX, 1, 0, &w));
  g_assert_true (cudaconv_filter_prepare (&w, -3.0, 0.0, &f, NULL));
  g_assert_cmpfloat (f.taps[4], ==, (float) (-1.0 / 3.0));
  /* magnitude filters carry both halves through the divisor */
  g_assert_true (cudaconv_preset_weights (GST_CUDACONV_KERNEL_SOBEL, 1, 0,
          &w));
  g_assert_true (cudaconv_filter_prepare (&w, 4.0, 0.0, &f, NULL));
  g_assert_cmpfloat (f.taps[2], ==, 0.25f);
  g_assert_cmpfloat (f.taps[9 + 7], ==, 0.5f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/presets/gaussian", test_gaussian);
  g_test_add_func ("/presets/box", test_box);
  g_test_add_func ("/presets/fixed-3x3", test_fixed_presets);
  g_test_add_func ("/presets/sharpen", test_sharpen);
  g_test_add_func ("/presets/divisor-offset-identity",
      test_divisor_offset_identity);
  return g_test_run ();
}

/* cudaconv tests: the matrix property's parser. */
#include <glib.h>

#include "cudaconv-matrix.h"

static void
test_valid (void)
{
  CudaConvWeights w;
  GError *err = NULL;

  g_assert_true (cudaconv_matrix_parse ("1,2,1;2,4,2;1,2,1", &w, &err));
  g_assert_no_error (err);
  g_assert_cmpint (w.side, ==, 3);
  g_assert_cmpfloat (w.coeffs[4], ==, 4.0);
  g_assert_cmpfloat (w.coeffs[8], ==, 1.0);

  g_assert_true (cudaconv_matrix_parse (" -0.5 , 1e1 ,+2;0,0,0; 3.25,0,-7 ",
          &w, &err));
  g_assert_cmpfloat (w.coeffs[0], ==, -0.5);
  g_assert_cmpfloat (w.coeffs[1], ==, 10.0);
  g_assert_cmpfloat (w.coeffs[2], ==, 2.0);
  g_assert_cmpfloat (w.coeffs[6], ==, 3.25);
  g_assert_cmpfloat (w.coeffs[8], ==, -7.0);

  g_assert_true (cudaconv_matrix_parse ("2", &w, &err));
  g_assert_cmpint (w.side, ==, 1);
  g_assert_cmpfloat (w.coeffs[0], ==, 2.0);
}

static gchar *
square_matrix (int side)
{
  GString *s = g_string_new (NULL);
  for (int i = 0; i < side; i++) {
    for (int j = 0; j < side; j++)
      g_string_append_printf (s, "%s%d", j ? "," : "", i * side + j);
    if (i < side - 1)
      g_string_append_c (s, ';');
  }
  return g_string_free (s, FALSE);
}

static void
test_largest (void)
{
  g_autofree gchar *m31 = square_matrix (31);
  CudaConvWeights w;

  g_assert_true (cudaconv_matrix_parse (m31, &w, NULL));
  g_assert_cmpint (w.side, ==, 31);
  g_assert_cmpfloat (w.coeffs[960], ==, 960.0);
}

/* Each bad input fails, leaves the output alone and says why. */
static void
expect_error (const gchar * text, const gchar * must_mention)
{
  CudaConvWeights w;
  GError *err = NULL;

  w.side = -42;
  g_assert_false (cudaconv_matrix_parse (text, &w, &err));
  g_assert_nonnull (err);
  g_assert_cmpint (w.side, ==, -42);
  if (!strstr (err->message, must_mention))
    g_error ("parsing \"%s\": \"%s\" does not mention \"%s\"",
        text ? text : "(null)", err->message, must_mention);
  g_error_free (err);
}

static void
test_invalid (void)
{
  g_autofree gchar *m33 = square_matrix (33);
  g_autofree gchar *m4 = square_matrix (4);

  expect_error (NULL, "empty");
  expect_error ("", "empty");
  expect_error ("   ", "empty");
  expect_error ("1,2,x;1,2,1;1,2,1", "'x' is not a number");
  expect_error ("1,2,1;1,2a,1;1,2,1", "'2a' is not a number");
  expect_error ("1,,1;1,2,1;1,2,1", "row 1, value 2 is empty");
  expect_error ("1,2,1;1,2,1", "square");
  expect_error ("1,2,1;1,2;1,2,1", "row 2 has 2 values");
  expect_error ("1,2,1;1,2,1;1,2,1;", "square");
  expect_error (m4, "odd");
  expect_error (m33, "largest");
  expect_error ("1,nan,1;1,1,1;1,1,1", "not a finite number");
  expect_error ("1,1,1;1,inf,1;1,1,1", "not a finite number");
  expect_error ("-infinity", "not a finite number");
  expect_error ("1e999", "not a finite number");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/matrix/valid", test_valid);
  g_test_add_func ("/matrix/largest", test_largest);
  g_test_add_func ("/matrix/invalid", test_invalid);
  return g_test_run ();
}

/* cudaconv: parser of the matrix property. */
#include <math.h>

#include "cudaconv-matrix.h"

G_DEFINE_QUARK (cudaconv - matrix - error - quark, cudaconv_matrix_error);

static gboolean
parse_value (const gchar * text, guint row, guint col, double *value,
    GError ** error)
{
  g_autofree gchar *token = g_strstrip (g_strdup (text));
  gchar *end = NULL;

  if (*token == '\0') {
    g_set_error (error, CUDACONV_MATRIX_ERROR, 0,
        "row %u, value %u is empty", row, col);
    return FALSE;
  }
  *value = g_ascii_strtod (token, &end);
  if (end == token || *end != '\0') {
    g_set_error (error, CUDACONV_MATRIX_ERROR, 0,
        "row %u, value %u: '%s' is not a number", row, col, token);
    return FALSE;
  }
  if (!isfinite (*value)) {
    g_set_error (error, CUDACONV_MATRIX_ERROR, 0,
        "row %u, value %u: '%s' is not a finite number", row, col, token);
    return FALSE;
  }
  return TRUE;
}

gboolean
cudaconv_matrix_parse (const gchar * text, CudaConvWeights * out,
    GError ** error)
{
  g_auto (GStrv) rows = NULL;
  g_autofree gchar *trimmed = g_strstrip (g_strdup (text ? text : ""));
  CudaConvWeights parsed;
  guint n_rows;

  g_return_val_if_fail (out != NULL, FALSE);

  if (*trimmed == '\0') {
    g_set_error (error, CUDACONV_MATRIX_ERROR, 0,
        "the matrix is empty; write rows separated by ';' and values by ',', "
        "e.g. \"1,2,1;2,4,2;1,2,1\"");
    return FALSE;
  }
  rows = g_strsplit (trimmed, ";", -1);
  n_rows = g_strv_length (rows);
  if (n_rows > CC_MAX_SIDE) {
    g_set_error (error, CUDACONV_MATRIX_ERROR, 0,
        "the matrix has %u rows; the largest allowed is %dx%d", n_rows,
        CC_MAX_SIDE, CC_MAX_SIDE);
    return FALSE;
  }
  for (guint i = 0; i < n_rows; i++) {
    g_auto (GStrv) values = g_strsplit (rows[i], ",", -1);
    guint n_values = g_strv_length (values);

    if (n_values != n_rows) {
      g_set_error (error, CUDACONV_MATRIX_ERROR, 0,
          "row %u has %u values but the matrix has %u rows; it must be square",
          i + 1, n_values, n_rows);
      return FALSE;
    }
    for (guint j = 0; j < n_values; j++)
      if (!parse_value (values[j], i + 1, j + 1,
              &parsed.coeffs[i * n_rows + j], error))
        return FALSE;
  }
  if (n_rows % 2 == 0) {
    g_set_error (error, CUDACONV_MATRIX_ERROR, 0,
        "the matrix is %ux%u; its side must be odd (1, 3, 5, ... %d) so that "
        "it has a centre", n_rows, n_rows, CC_MAX_SIDE);
    return FALSE;
  }
  parsed.side = (int) n_rows;
  parsed.response = CC_RESPONSE_LINEAR;
  *out = parsed;
  return TRUE;
}

/* cudaconv: the custom matrix property's text format. */
#ifndef CUDACONV_MATRIX_H
#define CUDACONV_MATRIX_H

#include <glib.h>
#include "cudaconv-weights.h"

G_BEGIN_DECLS

#define CUDACONV_MATRIX_ERROR (cudaconv_matrix_error_quark ())
GQuark cudaconv_matrix_error_quark (void);

/* Parses "1,2,1;2,4,2;1,2,1": rows separated by ';', values by ',', blanks
 * around either allowed, numbers in C locale. The matrix must be square with
 * an odd side from 1 to CC_MAX_SIDE and every value finite. On failure out is
 * untouched and error says what is wrong and where. */
gboolean cudaconv_matrix_parse (const gchar * text, CudaConvWeights * out,
    GError ** error);

G_END_DECLS
#endif /* CUDACONV_MATRIX_H */

/* cudaconv benchmark: the helpers every table uses (bench-common.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"

const int bench_sizes[BENCH_N_SIZES][2] = { {1920, 1080}, {3840, 2160} };

gboolean
cuda_device_present (void)
{
#ifdef HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount (&count) == cudaSuccess && count > 0)
    return TRUE;
  (void) cudaGetLastError ();
#endif
  return FALSE;
}

int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
median (double *v, int n)
{
  qsort (v, n, sizeof (double), compare_doubles);
  return v[n / 2];
}

/* A 2D filter of fixed pseudo-random positive weights summing to 1 */
void
normalised_filter (int radius, CcFilter * f)
{
  int side = 2 * radius + 1, n = side * side;
  double sum = 0.0;
  f->radius = radius;
  f->shape = CC_SHAPE_TAPS;
  f->response = CC_RESPONSE_LINEAR;
  f->offset = 0.0f;
  f->separable = 0;
  for (int k = 0; k < n; k++)
    sum += f->taps[k] = (float) (1.0 + (k * 7919 % 13));
  for (int k = 0; k < n; k++)
    f->taps[k] = (float) (f->taps[k] / sum);
}

unsigned char *
random_plane (size_t bytes)
{
  unsigned char *p = malloc (bytes);
  unsigned x = 12345;
  for (size_t k = 0; k < bytes; k++) {
    x = x * 1103515245u + 12345u;
    p[k] = (unsigned char) (x >> 16);
  }
  return p;
}

void
csv_row (const Bench * b, const char *what, int w, int h, int bits,
    int radius, const char *variant, double value)
{
  if (b->csv) {
    /* labels like "cuda, foreign input" keep their meaning without commas */
    gchar *name = g_strdelimit (g_strdup (variant), ",", ';');
    fprintf (b->csv, "%s,%dx%d,%d,%d,%s,%.6f\n", what, w, h, bits, radius,
        name, value);
    g_free (name);
  }
}

/* The gaussian of gaussian_filter's sigma as wide factors, no centre */
void
wide_gaussian (int radius, CcFilter * f)
{
  const double sigma = 0.3 * (radius - 1) + 0.8;
  double sum = 0.0;
  memset (f, 0, sizeof (*f));
  f->shape = CC_SHAPE_WIDE;
  f->radius = radius;
  for (int i = 0; i <= 2 * radius; i++)
    sum += f->col_taps[i] = (float) exp (-(i - radius) * (i - radius) /
        (2.0 * sigma * sigma));
  for (int i = 0; i <= 2 * radius; i++)
    f->row_taps[i] = f->col_taps[i] = (float) (f->col_taps[i] / sum);
}

/* The 1D gaussian the element's kernel=gaussian uses for this radius, with
 * sigma 0, as both factors; its outer product is the 2D filter. */
void
gaussian_filter (int radius, CcFilter * g)
{
  const int side = 2 * radius + 1;
  const double sigma = 0.3 * (radius - 1) + 0.8;
  float *factor = g->col_taps;
  double sum = 0.0;
  g->radius = radius;
  g->shape = CC_SHAPE_TAPS;
  g->response = CC_RESPONSE_LINEAR;
  g->offset = 0.0f;
  g->separable = 1;
  for (int i = 0; i < side; i++)
    sum += factor[i] = (float) exp (-(i - radius) * (i - radius) /
        (2.0 * sigma * sigma));
  for (int i = 0; i < side; i++)
    factor[i] = (float) (factor[i] / sum);
  memcpy (g->row_taps, factor, sizeof (float) * side);
  for (int i = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      g->taps[i * side + j] = factor[i] * factor[j];
}

void
start_gate_init (StartGate * gate, int total)
{
  g_mutex_init (&gate->lock);
  g_cond_init (&gate->all_here);
  gate->arrived = 0;
  gate->total = total;
}

void
start_gate_clear (StartGate * gate)
{
  g_mutex_clear (&gate->lock);
  g_cond_clear (&gate->all_here);
}

void
gate_arrive (StartGate * gate)
{
  g_mutex_lock (&gate->lock);
  if (++gate->arrived >= gate->total)
    g_cond_broadcast (&gate->all_here);
  g_mutex_unlock (&gate->lock);
}

void
gate_wait (StartGate * gate)
{
  const gint64 until = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&gate->lock);
  while (gate->arrived < gate->total
      && g_cond_wait_until (&gate->all_here, &gate->lock, until));
  g_mutex_unlock (&gate->lock);
}

void
start_gate_pass (StartGate * gate)
{
  gate_arrive (gate);
  gate_wait (gate);
}

/* The transfer floor in frames/s for frames of bytes, -1 without a GPU */
double
floor_fps (size_t bytes)
{
#ifdef HAVE_CUDA
  if (bytes > 0 && cuda_device_present ()) {
    const double ms = transfer_floor_ms (bytes);
    return ms > 0 ? 1e3 / ms : -1.0;
  }
#endif
  return -1.0;
}

/* cudaconv: CPU convolution back end.
 *
 * Row-oriented so the compiler can vectorise the inner loop: each source row
 * the filter touches is widened once into a float row padded with its ghost
 * cells, then every tap of that filter row is a contiguous multiply-add over
 * the whole output row. Rows are split between threads. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "cudaconv-cpu.h"
#include "cudaconv-border.h"

#define CC_CPU_MAX_THREADS 64

typedef struct {
  const CcChannel *src;
  const CcChannel *dst;
  const CcFilter *filter;
  CcBorder border;
  int y_begin, y_end;
  int status;
} RowJob;

static float
read_sample (const CcChannel * c, int x, int y)
{
  const char *row = (const char *) c->data + (size_t) y * c->pitch;
  size_t i = (size_t) x * c->pixel_stride;
  return c->sample == CC_SAMPLE_U8 ? ((const uint8_t *) row)[i] :
      ((const uint16_t *) row)[i];
}

static void
write_sample (const CcChannel * c, int x, int y, float v)
{
  float max = c->sample == CC_SAMPLE_U8 ? 255.0f : 65535.0f;
  char *row = (char *) c->data + (size_t) y * c->pitch;
  size_t i = (size_t) x * c->pixel_stride;
  v = fminf (fmaxf (floorf (v + 0.5f), 0.0f), max);
  if (c->sample == CC_SAMPLE_U8)
    ((uint8_t *) row)[i] = (uint8_t) v;
  else
    ((uint16_t *) row)[i] = (uint16_t) v;
}

/* Source row sy widened to floats, with radius ghost cells on each side. */
static void
widen_row (const CcChannel * c, int sy, int radius, CcBorder border,
    float *padded)
{
  for (int x = -radius; x < c->width + radius; x++) {
    int bx = cc_border_index (x, c->width, border);
    padded[x + radius] = bx < 0 ? 0.0f : read_sample (c, bx, sy);
  }
}

static void
accumulate (float *restrict acc, const float *restrict padded,
    const float *restrict taps, int side, int width)
{
  for (int j = 0; j < side; j++) {
    const float w = taps[j];
    if (w == 0.0f)
      continue;
    const float *restrict in = padded + j;
    for (int x = 0; x < width; x++)
      acc[x] += w * in[x];
  }
}

static void *
convolve_rows (void *data)
{
  RowJob *job = data;
  const CcChannel *src = job->src;
  const CcFilter *f = job->filter;
  const int r = f->radius, side = 2 * r + 1, w = src->width;
  const int magnitude = f->response == CC_RESPONSE_MAGNITUDE;
  float *padded = malloc (sizeof (float) * (w + 2 * r));
  float *acc_a = calloc ((size_t) w, sizeof (float));
  float *acc_b = magnitude ? calloc ((size_t) w, sizeof (float)) : NULL;

  if (!padded || !acc_a || (magnitude && !acc_b)) {
    job->status = ENOMEM;
    goto done;
  }
  for (int y = job->y_begin; y < job->y_end; y++) {
    for (int x = 0; x < w; x++)
      acc_a[x] = 0.0f;
    if (magnitude)
      for (int x = 0; x < w; x++)
        acc_b[x] = 0.0f;
    for (int i = 0; i < side; i++) {
      int sy = cc_border_index (y + i - r, src->height, job->border);
      if (sy < 0)
        continue;               /* a zero ghost row adds nothing */
      widen_row (src, sy, r, job->border, padded);
      accumulate (acc_a, padded, f->taps + i * side, side, w);
      if (magnitude)
        accumulate (acc_b, padded, f->taps + side * side + i * side, side, w);
    }
    for (int x = 0; x < w; x++) {
      float v = magnitude ? sqrtf (acc_a[x] * acc_a[x] + acc_b[x] * acc_b[x]) :
          acc_a[x];
      write_sample (job->dst, x, y, v + f->offset);
    }
  }
  job->status = 0;
done:
  free (padded);
  free (acc_a);
  free (acc_b);
  return NULL;
}

static int
channel_valid (const CcChannel * c)
{
  return c && c->data && c->width > 0 && c->height > 0 && c->pixel_stride > 0
      && (c->sample == CC_SAMPLE_U8 || c->sample == CC_SAMPLE_U16)
      && c->pitch >= (size_t) ((c->width - 1) * c->pixel_stride + 1) *
      (size_t) c->sample;
}

int
cc_cpu_convolve (const CcChannel * src, const CcChannel * dst,
    const CcFilter * filter, CcBorder border, int n_threads)
{
  if (!channel_valid (src) || !channel_valid (dst) || !filter || !filter->taps
      || src->width != dst->width || src->height != dst->height
      || src->sample != dst->sample || (unsigned) border > CC_BORDER_WRAP
      || filter->radius < 0 || filter->radius > CC_MAX_RADIUS
      || (filter->response == CC_RESPONSE_MAGNITUDE
          && filter->radius > CC_MAX_MAGNITUDE_RADIUS))
    return EINVAL;

  if (n_threads < 1)
    n_threads = 1;
  if (n_threads > CC_CPU_MAX_THREADS)
    n_threads = CC_CPU_MAX_THREADS;
  /* below a few rows per thread, starting threads costs more than it saves */
  if (n_threads > src->height / 8)
    n_threads = src->height / 8 > 0 ? src->height / 8 : 1;

  RowJob jobs[CC_CPU_MAX_THREADS];
  pthread_t threads[CC_CPU_MAX_THREADS];
  int started[CC_CPU_MAX_THREADS] = { 0 };
  int status = 0;

  for (int t = 0; t < n_threads; t++) {
    jobs[t] = (RowJob) {
    src, dst, filter, border,
          (int) ((long long) src->height * t / n_threads),
          (int) ((long long) src->height * (t + 1) / n_threads), 0};
    /* the calling thread takes the last share itself */
    if (t < n_threads - 1)
      started[t] = pthread_create (&threads[t], NULL, convolve_rows,
          &jobs[t]) == 0;
  }
  for (int t = 0; t < n_threads; t++)
    if (!started[t])
      convolve_rows (&jobs[t]);
  for (int t = 0; t < n_threads; t++) {
    if (started[t])
      pthread_join (threads[t], NULL);
    if (jobs[t].status)
      status = jobs[t].status;
  }
  return status;
}

int
cc_cpu_fill (const CcChannel * dst, unsigned value)
{
  if (!channel_valid (dst))
    return EINVAL;
  for (int y = 0; y < dst->height; y++)
    for (int x = 0; x < dst->width; x++)
      write_sample (dst, x, y, (float) value);
  return 0;
}

/* cudaconv: CPU convolution back end.
 *
 * Row-oriented so that every inner loop is a contiguous multiply-add over a
 * whole row, which GCC vectorises (and, through target_clones, also builds
 * for AVX2 with FMA, picked at load time on CPUs that have it). Each thread
 * takes a band of output rows and keeps the 2r+1 source rows its current
 * output row needs in a ring, widened to floats with their ghost cells, so
 * every source row is widened once per band rather than once per tap row.
 *
 * Separable filters (their factors set) take a column pass over the ring into
 * one padded row, then a row pass: 2(2r+1) multiply-adds per sample.
 *
 * The wide shapes (wide factors, box, blocks) run in cudaconv-cpu-wide.c,
 * a component at a time. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudaconv-cpu.h"
#include "cudaconv-cpu-pool.h"
#include "cudaconv-cpu-sweep.h"
#include "cudaconv-cpu-wide.h"
#include "cudaconv-border.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT_LOOP __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define HOT_LOOP
#endif

/* below this many rows a band is not worth a thread */
#define MIN_ROWS_PER_BAND 8

typedef struct {
  const CcComponent *src;
  const CcComponent *dst;
  const CcFilter *filter;
  CcBorder border;
  int lanes; /* channels of a pixel filtered together */
  int n_bands;
  int status[CC_CPU_MAX_THREADS];
} Job;

/* One row of samples to floats, every ps-th sample. Inlined with ps a
 * constant (1; 2 for packed 4:2:2's Y, 3 for RGB, 4 for its U and V and the
 * 4-byte formats: AYUV, RGBA, BGRx...),
 * these loops vectorise; with ps a variable they stay scalar. */
static inline __attribute__ ((always_inline)) void
widen_u8 (float *restrict out, const uint8_t *restrict p, int w, int ps)
{
  for (int x = 0; x < w; x++)
    out[x] = p[(size_t) x * ps];
}

static inline __attribute__ ((always_inline)) void
widen_u16 (float *restrict out, const uint16_t *restrict p, int w, int ps)
{
  for (int x = 0; x < w; x++)
    out[x] = p[(size_t) x * ps];
}

static inline __attribute__ ((always_inline)) void
widen_samples (float *restrict out, const char *row, CcSampleType sample, int w,
    int ps)
{
  if (sample == CC_SAMPLE_U8)
    widen_u8 (out, (const uint8_t *) row, w, ps);
  else
    widen_u16 (out, (const uint16_t *) row, w, ps);
}

/* Source row sy (already border-resolved) widened to floats, with r ghost
 * cells on each side. With lanes > 1 the row is lanes interleaved channels
 * (pixel_stride == lanes), widened whole and its ghost cells whole pixels. */
HOT_LOOP static void
widen_row (const CcComponent *c, int sy, int radius, CcBorder border, int lanes,
    float *padded)
{
  const char *row = (const char *) c->data + (size_t) sy * c->pitch;
  const int ps = c->pixel_stride, w = c->width;
  float *interior = padded + (size_t) radius * lanes;

  /* the pixel strides of planar, packed 4:2:2, RGB and 4-byte formats */
  if (lanes > 1)
    widen_samples (interior, row, c->sample, w * lanes, 1);
  else
    switch (ps) {
      case 1:
        widen_samples (interior, row, c->sample, w, 1);
        break;
      case 2:
        widen_samples (interior, row, c->sample, w, 2);
        break;
      case 3:
        widen_samples (interior, row, c->sample, w, 3);
        break;
      case 4:
        widen_samples (interior, row, c->sample, w, 4);
        break;
      default:
        widen_samples (interior, row, c->sample, w, ps);
        break;
    }
  for (int k = 1; k <= radius; k++) {
    int left = cc_border_index (-k, w, border);
    int right = cc_border_index (w - 1 + k, w, border);
    for (int l = 0; l < lanes; l++) {
      interior[-k * lanes + l] = left < 0 ? 0.0f : interior[left * lanes + l];
      interior[(w - 1 + k) * lanes + l] = right < 0 ?
          0.0f :
          interior[right * lanes + l];
    }
  }
}

/* acc[x] += sum_k w[k] * p[k][x] over n terms, zero weights dropped; with
 * assign acc[x] = that sum */
static inline __attribute__ ((always_inline)) void
sweep_all (float *restrict acc, const float *const *p, const float *w, int n,
    int width, int assign)
{
  const float *live_p[CC_MAX_SIDE];
  float live_w[CC_MAX_SIDE];
  int live = 0;

  for (int k = 0; k < n; k++) {
    if (w[k] == 0.0f || !p[k])
      continue;
    live_p[live] = p[k];
    live_w[live++] = w[k];
  }
  if (live == 0 && assign)
    for (int x = 0; x < width; x++)
      acc[x] = 0.0f;
  for (int k = 0; k < live; k += TAPS_PER_SWEEP)
    cc_cpu_sweep (acc, live_p + k, live_w + k,
        live - k < TAPS_PER_SWEEP ? live - k : TAPS_PER_SWEEP, width,
        assign && k == 0);
}

/* acc[x] += sum_j taps[j] * in[x + j * step] (with assign, acc[x] = that
 * sum): step is the floats from one pixel to the next (the lanes) */
HOT_LOOP static void
accumulate_row (float *restrict acc, const float *restrict in,
    const float *restrict taps, int side, int width, int step, int assign)
{
  const float *p[CC_MAX_SIDE];

  for (int j = 0; j < side; j++)
    p[j] = in + (size_t) j * step;
  sweep_all (acc, p, taps, side, width, assign);
}

/* out[x] = sum_i taps[i] * rows[i][x] (rows[i] NULL: a zero ghost row) */
HOT_LOOP static void
combine_rows (float *restrict out, float *const *rows,
    const float *restrict taps, int side, int width)
{
  sweep_all (out, (const float *const *) rows, taps, side, width, 1);
}

/* floor (v + offset + 0.5) within [0, max]: rounds half up and saturates,
 * as the GPU kernels do. Clamped first, the sum is never negative, so the
 * conversion's truncation is the floor, and NaN gives 0 as fmaxf would:
 * GCC vectorises comparisons and conversions, but neither fminf/fmaxf nor,
 * without -fno-trapping-math, floorf. */
static inline __attribute__ ((always_inline)) int
rounded_sample (float v, float offset, float max)
{
  const float sum = v + offset + 0.5f;
  const float low = sum > 0.0f ? sum : 0.0f;
  return (int) (low < max ? low : max);
}

/* Every ps-th sample of a row, rounded (see widen_u8) */
static inline __attribute__ ((always_inline)) void
round_u8 (uint8_t *restrict p, const float *restrict v, float offset, int w,
    int ps)
{
  for (int x = 0; x < w; x++)
    p[(size_t) x * ps] = (uint8_t) rounded_sample (v[x], offset, 255.0f);
}

/* 16-bit samples saturate to the component's depth and keep their padding
 * bits clear (max and kept, cudaconv-kernel-types.h) */
static inline __attribute__ ((always_inline)) void
round_u16 (uint16_t *restrict p, const float *restrict v, float offset, int w,
    int ps, float max, unsigned kept)
{
  for (int x = 0; x < w; x++)
    p[(size_t) x * ps] = (uint16_t) (rounded_sample (v[x], offset, max) & kept);
}

static inline __attribute__ ((always_inline)) void
round_samples (const CcComponent *c, char *row, const float *restrict v,
    float offset, int w, int ps)
{
  if (c->sample == CC_SAMPLE_U8)
    round_u8 ((uint8_t *) row, v, offset, w, ps);
  else
    round_u16 ((uint16_t *) row, v, offset, w, ps,
        (float) cc_component_max_raw (c), cc_component_kept_bits (c));
}

/* offset: the raw offset (cc_component_raw_offset); lanes > 1: whole pixels
 * of lanes interleaved channels */
HOT_LOOP static void
store_row (const CcComponent *c, int y, const float *restrict v, float offset,
    int lanes)
{
  char *row = (char *) c->data + (size_t) y * c->pitch;
  const int ps = c->pixel_stride, w = c->width;
  if (lanes > 1) {
    round_samples (c, row, v, offset, w * lanes, 1);
    return;
  }
  switch (ps) {
    case 1:
      round_samples (c, row, v, offset, w, 1);
      break;
    case 2:
      round_samples (c, row, v, offset, w, 2);
      break;
    case 3:
      round_samples (c, row, v, offset, w, 3);
      break;
    case 4:
      round_samples (c, row, v, offset, w, 4);
      break;
    default:
      round_samples (c, row, v, offset, w, ps);
      break;
  }
}

static void
convolve_band (void *data, int band)
{
  Job *job = data;
  const CcComponent *src = job->src;
  const CcFilter *f = job->filter;
  const int r = f->radius, side = 2 * r + 1, h = src->height;
  /* a row of lanes interleaved channels is filtered as one: w counts
   * their samples, and taps step over whole pixels */
  const int lanes = job->lanes, w = src->width * lanes;
  const int padded_w = (src->width + 2 * r) * lanes;
  const int magnitude = f->response == CC_RESPONSE_MAGNITUDE;
  const int separable = cc_filter_is_separable (f);
  const float raw_offset = cc_component_raw_offset (job->dst, f->offset);
  const int y_begin = (int) ((long long) h * band / job->n_bands);
  const int y_end = (int) ((long long) h * (band + 1) / job->n_bands);
  /* ring[k] holds logical source row (y + k - r) of the current y, or NULL
   * for a zero ghost row */
  float *store = malloc (sizeof (float) * (size_t) padded_w * (side + 3));
  float *ring[CC_MAX_SIDE], *slots[CC_MAX_SIDE];
  float *acc_a, *acc_b, *tmp;

  if (!store) {
    job->status[band] = ENOMEM;
    return;
  }
  for (int k = 0; k < side; k++)
    slots[k] = store + (size_t) k * padded_w;
  acc_a = store + (size_t) side * padded_w;
  acc_b = acc_a + padded_w;
  tmp = acc_b + padded_w;

  for (int y = y_begin; y < y_end; y++) {
    /* the row y + r enters the ring; the others were widened already */
    for (int k = (y == y_begin ? 0 : side - 1); k < side; k++) {
      const int logical = y + k - r;
      const int sy = cc_border_index (logical, h, job->border);
      /* slot by logical row, so each source row keeps its slot */
      float *slot = slots[((logical % side) + side) % side];
      if (sy < 0) {
        ring[k] = NULL;
      } else {
        widen_row (src, sy, r, job->border, lanes, slot);
        ring[k] = slot;
      }
    }
    if (separable) {
      combine_rows (tmp, ring, f->col_taps, side, padded_w);
      accumulate_row (acc_a, tmp, f->row_taps, side, w, lanes, 1);
    } else {
      for (int x = 0; x < w; x++)
        acc_a[x] = acc_b[x] = 0.0f;
      for (int i = 0; i < side; i++) {
        if (!ring[i])
          continue; /* a zero ghost row adds nothing */
        accumulate_row (acc_a, ring[i], f->taps + i * side, side, w, lanes, 0);
        if (magnitude)
          accumulate_row (acc_b, ring[i], f->taps + side * side + i * side,
              side, w, lanes, 0);
      }
      if (magnitude)
        for (int x = 0; x < w; x++)
          acc_a[x] = sqrtf (acc_a[x] * acc_a[x] + acc_b[x] * acc_b[x]);
    }
    store_row (job->dst, y, acc_a, raw_offset, lanes);
    /* shift the ring: row k + 1 becomes row k */
    for (int k = 0; k + 1 < side; k++)
      ring[k] = ring[k + 1];
  }
  free (store);
}

/* The job's work in nanoseconds of one core, for the pool to size it */
static double
job_ns (const CcComponent *src, const CcFilter *f, int lanes)
{
  const double side = 2 * f->radius + 1;
  const double madds = cc_filter_is_separable (f) ? 2.0 * side :
      (f->response == CC_RESPONSE_MAGNITUDE ? 2.0 : 1.0) * side * side;
  return (double) src->width * lanes * src->height * CC_CPU_SWEEP_NS (madds);
}

static int
args_valid (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border)
{
  return cc_component_valid (src) && cc_component_valid (dst)
      && cc_filter_valid (filter) && src->width == dst->width
      && src->height == dst->height && src->sample == dst->sample
      && cc_component_depth (src) == cc_component_depth (dst)
      && src->shift == dst->shift && (unsigned) border <= CC_BORDER_WRAP;
}

/* The shapes other than taps, channel by channel: whole pixels go
 * component by component, these shapes' passes being bound by their sums,
 * not by the strided loads */
static int
convolve_shape (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads, int lanes)
{
  for (int c = 0; c < lanes; c++) {
    const size_t skip = (size_t) c * src->sample;
    CcComponent s = *src, d = *dst;
    int err;
    s.data = (char *) s.data + skip;
    d.data = (char *) d.data + skip;
    if ((err = cc_cpu_convolve_shape (&s, &d, filter, border, n_threads)))
      return err;
  }
  return 0;
}

/* A taps job cut into the bands its work is worth */
static Job
taps_job (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads, int lanes)
{
  Job job = { src, dst, filter, border, lanes, 1, { 0 } };
  job.n_bands = cc_cpu_pool_threads (job_ns (src, filter, lanes), n_threads);
  if (job.n_bands > src->height / MIN_ROWS_PER_BAND)
    job.n_bands = src->height / MIN_ROWS_PER_BAND > 0 ?
        src->height / MIN_ROWS_PER_BAND :
        1;
  return job;
}

/* The first band that failed, or 0 */
static int
job_status (const Job *job)
{
  for (int b = 0; b < job->n_bands; b++)
    if (job->status[b])
      return job->status[b];
  return 0;
}

static int
convolve (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads, int lanes)
{
  if (!args_valid (src, dst, filter, border))
    return EINVAL;
  if (filter->shape != CC_SHAPE_TAPS)
    return convolve_shape (src, dst, filter, border, n_threads, lanes);

  Job job = taps_job (src, dst, filter, border, n_threads, lanes);
  /* a pool that could not grow still ran every band on this thread */
  (void) cc_cpu_pool_run (job.n_bands, convolve_band, &job);
  return job_status (&job);
}

/* The bands of a batch's taps jobs as one pool job: item i is band
 * i - first[j] of jobs[j], first[j] <= i < first[j + 1] */
typedef struct {
  Job *jobs;
  int *first;
  int n;
} Batch;

static void
batch_band (void *data, int item)
{
  const Batch *batch = data;
  const int j = cc_cpu_pool_job_of (batch->first, batch->n, item);

  convolve_band (&batch->jobs[j], item - batch->first[j]);
}

int
cc_cpu_convolve_batch (const CcComponent *src, const CcComponent *dst,
    const CcFilter *const *filters, int n, CcBorder border, int n_threads)
{
  Batch batch = { NULL, NULL, 0 };
  int status = 0, items = 0;

  if (n < 0 || (n > 0 && (!src || !dst || !filters)))
    return EINVAL;
  for (int i = 0; i < n; i++)
    if (!args_valid (&src[i], &dst[i], filters[i], border))
      return EINVAL;
  batch.jobs = malloc (sizeof (Job) * (size_t) (n > 0 ? n : 1));
  batch.first = malloc (sizeof (int) * (size_t) (n + 1));
  if (!batch.jobs || !batch.first) {
    free (batch.jobs);
    free (batch.first);
    return ENOMEM;
  }
  for (int i = 0; i < n; i++) {
    if (filters[i]->shape != CC_SHAPE_TAPS)
      continue;
    batch.jobs[batch.n] = taps_job (&src[i], &dst[i], filters[i], border,
        n_threads, 1);
    batch.first[batch.n] = items;
    items += batch.jobs[batch.n].n_bands;
    batch.n++;
  }
  batch.first[batch.n] = items;
  if (items > 0)
    (void) cc_cpu_pool_run (items, batch_band, &batch);
  for (int j = 0; j < batch.n && !status; j++)
    status = job_status (&batch.jobs[j]);
  /* the other shapes after them, the wide ones as one pool job a phase */
  if (!status && batch.n < n) {
    CcComponent *shaped = malloc (sizeof (CcComponent) * (size_t) (2 * n));
    const CcFilter **shaped_filters = malloc (sizeof (void *) * (size_t) n);
    int m = 0;
    status = shaped && shaped_filters ? 0 : ENOMEM;
    for (int i = 0; i < n && !status; i++) {
      if (filters[i]->shape == CC_SHAPE_TAPS)
        continue;
      shaped[m] = src[i];
      shaped[n + m] = dst[i];
      shaped_filters[m++] = filters[i];
    }
    if (!status)
      status = cc_cpu_convolve_shapes (shaped, shaped + n, shaped_filters, m,
          border, n_threads);
    free (shaped);
    free (shaped_filters);
  }
  free (batch.jobs);
  free (batch.first);
  return status;
}

int
cc_cpu_convolve (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads)
{
  return convolve (src, dst, filter, border, n_threads, 1);
}

/* Whole pixels: the rows hold pixel_stride * width samples */
static int
pixels_valid (const CcComponent *c)
{
  return c && c->pixel_stride >= 1 && c->pixel_stride <= CC_MAX_LANES
      && c->width > 0
      && c->pitch >= (size_t) c->width * c->pixel_stride * (size_t) c->sample;
}

int
cc_cpu_convolve_pixels (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads)
{
  if (!pixels_valid (src) || !pixels_valid (dst)
      || src->pixel_stride != dst->pixel_stride)
    return EINVAL;
  return convolve (src, dst, filter, border, n_threads, src->pixel_stride);
}

int
cc_cpu_fill (const CcComponent *dst, unsigned value)
{
  if (!cc_component_valid (dst))
    return EINVAL;
  const unsigned max = cc_component_max_raw (dst);
  const unsigned v = (value > max ? max : value) & cc_component_kept_bits (dst);
  for (int y = 0; y < dst->height; y++) {
    char *row = (char *) dst->data + (size_t) y * dst->pitch;
    for (int x = 0; x < dst->width; x++) {
      size_t i = (size_t) x * dst->pixel_stride;
      if (dst->sample == CC_SAMPLE_U8)
        ((uint8_t *) row)[i] = (uint8_t) v;
      else
        ((uint16_t *) row)[i] = (uint16_t) v;
    }
  }
  return 0;
}

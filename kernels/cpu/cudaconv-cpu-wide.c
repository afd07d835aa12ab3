/* cudaconv: the CPU back end's wide shapes (cudaconv-cpu-wide.h).
 *
 * Box runs in two phases over a uint32 plane of row sums: the sums of
 * 2r+1 values along each row (prefix sums, then their differences) over
 * bands of whole rows, then the column sums over strips of columns, each
 * thread walking one strip down the plane: the row entering the window
 * added, the row leaving taken off. No sum is made twice, so the cost is a
 * few integer operations per sample whatever r; a strip's window of rows
 * stays in cache.
 * Wide runs in two phases over an fp32 intermediate the size of the plane,
 * so that no thread redoes another's rows: the row factor over bands of
 * source rows, then the column factor and the centre term over strips of
 * columns, whose window of intermediate rows stays in cache.
 * Blocks needs one phase: per band of block rows, column sums, then block
 * sums.
 *
 * Box and blocks work on values (raw >> shift) and scale their exact
 * integer sums in double, floor(S * scale + offset + 0.5): this file is
 * compiled with -ffp-contract=off (kernels/meson.build), because a fused
 * multiply-add rounds S * scale + offset once where the contract rounds
 * twice, and the result must be that of the formula for every S. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudaconv-cpu-wide.h"
#include "cudaconv-cpu-pool.h"
#include "cudaconv-cpu-sweep.h"
#include "cudaconv-border.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT_LOOP __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define HOT_LOOP
#endif

/* below this many rows a band is not worth a thread */
#define MIN_ROWS_PER_BAND 8
/* below this many columns a strip's rows are too short to vectorise well */
#define MIN_STRIP_COLUMNS 64

typedef struct {
  const CcComponent *src, *dst;
  const CcFilter *filter;
  CcBorder border;
  void *mid;   /* the row phase's output: one row of width entries per
                * source row */
  int n_tasks; /* bands or strips of the phase running */
  int n_strips; /* the column phase of wide: strips, each cut into
                 * n_tasks / n_strips bands of rows */
  int status[CC_CPU_MAX_THREADS];
} ShapeJob;

/* stmt with K the pixel stride, a constant where it is 1, 2, 3 or 4 so
 * that the loops in stmt vectorise */
#define WITH_STRIDE(ps, K, stmt) \
  do { \
    switch (ps) { \
      case 1: { \
        enum { K = 1 }; \
        stmt; \
      } break; \
      case 2: { \
        enum { K = 2 }; \
        stmt; \
      } break; \
      case 3: { \
        enum { K = 3 }; \
        stmt; \
      } break; \
      case 4: { \
        enum { K = 4 }; \
        stmt; \
      } break; \
      default: { \
        const int K = (ps); \
        stmt; \
      } break; \
    } \
  } while (0)

/* The intermediate of the last call stays for the next: a 1080p plane's is
 * 8 MB, whose first touch cost about as much as a box pass over it. */
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static void *scratch;
static size_t scratch_bytes;

/* bytes of scratch: the kept buffer (*kept set), or a fresh one while
 * another call holds that; NULL when memory ran out */
static void *
scratch_take (size_t bytes, int *kept)
{
  if (pthread_mutex_trylock (&scratch_lock) == 0) {
    if (scratch_bytes < bytes) {
      free (scratch);
      scratch = malloc (bytes);
      scratch_bytes = scratch ? bytes : 0;
    }
    if (scratch) {
      *kept = 1;
      return scratch;
    }
    pthread_mutex_unlock (&scratch_lock);
  }
  *kept = 0;
  return malloc (bytes);
}

static void
scratch_give (void *p, int kept)
{
  if (kept)
    pthread_mutex_unlock (&scratch_lock);
  else
    free (p);
}

static const char *
row_of (const CcComponent *c, int y)
{
  return (const char *) c->data + (size_t) y * c->pitch;
}

/* The values (raw >> shift) of n samples of row y from column x0 */
HOT_LOOP static void
load_values (const CcComponent *c, int y, int x0, int n, uint32_t *restrict out)
{
  const int shift = c->shift;
  if (c->sample == CC_SAMPLE_U8) {
    const uint8_t *restrict p = (const uint8_t *) row_of (c, y)
        + (size_t) x0 * c->pixel_stride;
    WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++) out[x] =
                                         (uint32_t) p[(size_t) x * K] >> shift);
  } else {
    const uint16_t *restrict p = (const uint16_t *) row_of (c, y)
        + (size_t) x0 * c->pixel_stride;
    WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++) out[x] =
                                         (uint32_t) p[(size_t) x * K] >> shift);
  }
}

/* n raw samples of row y from column x0, as floats */
HOT_LOOP static void
load_floats (const CcComponent *c, int y, int x0, int n, float *restrict out)
{
  if (c->sample == CC_SAMPLE_U8) {
    const uint8_t *restrict p = (const uint8_t *) row_of (c, y)
        + (size_t) x0 * c->pixel_stride;
    WITH_STRIDE (c->pixel_stride, K,
        for (int x = 0; x < n; x++) out[x] = p[(size_t) x * K]);
  } else {
    const uint16_t *restrict p = (const uint16_t *) row_of (c, y)
        + (size_t) x0 * c->pixel_stride;
    WITH_STRIDE (c->pixel_stride, K,
        for (int x = 0; x < n; x++) out[x] = p[(size_t) x * K]);
  }
}

/* Stores values v (at most the component's largest) as raw samples */
HOT_LOOP static void
store_values (const CcComponent *c, int y, int x0, int n,
    const uint32_t *restrict v)
{
  const int shift = c->shift;
  char *row = (char *) row_of (c, y);
  if (c->sample == CC_SAMPLE_U8) {
    uint8_t *restrict p = (uint8_t *) row + (size_t) x0 * c->pixel_stride;
    WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++) p[(size_t) x
                                         * K] = (uint8_t) (v[x] << shift));
  } else {
    uint16_t *restrict p = (uint16_t *) row + (size_t) x0 * c->pixel_stride;
    WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++) p[(size_t) x
                                         * K] = (uint16_t) (v[x] << shift));
  }
}

/* floor(v + offset + 0.5) saturated to [0, max] and its padding bits
 * cleared: a wide filter's raw sums rounded as the taps path rounds them
 * (clamped first, the truncation is the floor, and NaN gives 0) */
HOT_LOOP static void
store_rounded (const CcComponent *c, int y, int x0, int n,
    const float *restrict v, float offset)
{
  const float max = (float) cc_component_max_raw (c);
  const unsigned kept = cc_component_kept_bits (c);
  char *row = (char *) row_of (c, y);
#define ROUNDED(x) \
  ((unsigned) ((v[x] + offset + 0.5f > 0.0f ? v[x] + offset + 0.5f : 0.0f) \
                       < max ? \
          (v[x] + offset + 0.5f > 0.0f ? v[x] + offset + 0.5f : 0.0f) : \
          max) \
      & kept)
  if (c->sample == CC_SAMPLE_U8) {
    uint8_t *restrict p = (uint8_t *) row + (size_t) x0 * c->pixel_stride;
    WITH_STRIDE (c->pixel_stride, K,
        for (int x = 0; x < n; x++) p[(size_t) x * K] = (uint8_t) ROUNDED (x));
  } else {
    uint16_t *restrict p = (uint16_t *) row + (size_t) x0 * c->pixel_stride;
    WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++) p[(size_t) x
                                         * K] = (uint16_t) ROUNDED (x));
  }
#undef ROUNDED
}

/* out[k] = floor(sum[k] * scale + offset + 0.5) saturated to [0, max], in
 * double as the contract says: clamped first, the truncation is the floor.
 * Conversions go through int32_t, which x86's vector units have and
 * uint32_t not: sums below 2^31 (below_2_31: every sum of 8-bit samples)
 * vectorise whole, and max (a value) is below 2^16. */
HOT_LOOP static void
scale_sums (uint32_t *restrict out, const uint32_t *restrict sum, int n,
    double scale, double offset, double max, int below_2_31)
{
  if (below_2_31)
    for (int k = 0; k < n; k++) {
      const double v = (double) (int32_t) sum[k] * scale + offset + 0.5;
      const double low = v > 0.0 ? v : 0.0;
      out[k] = (uint32_t) (int32_t) (low < max ? low : max);
    }
  else
    for (int k = 0; k < n; k++) {
      const double v = (double) sum[k] * scale + offset + 0.5;
      const double low = v > 0.0 ? v : 0.0;
      out[k] = (uint32_t) (int32_t) (low < max ? low : max);
    }
}

/* The r ghost cells on each side of a row stored from p[r] on, by the
 * border policy; zero is T's 0 */
#define PAD_GHOSTS(p, w, r, border) \
  for (int k = 1; k <= (r); k++) { \
    const int left = cc_border_index (-k, (w), (border)); \
    const int right = cc_border_index ((w) - 1 + k, (w), (border)); \
    (p)[(r) - k] = left < 0 ? 0 : (p)[(r) + left]; \
    (p)[(r) + (w) - 1 + k] = right < 0 ? 0 : (p)[(r) + right]; \
  }

/* out[x] = p[x] + ... + p[x + side - 1]: prefix sums in place of p (one
 * add per sample on the dependency chain, where a running sum has an add
 * and a subtract), then their differences, which vectorise; modulo 2^32,
 * which the differences undo */
HOT_LOOP static void
window_sums (uint32_t *restrict out, uint32_t *restrict p, int w, int side)
{
  uint32_t s = 0;
  for (int k = 0; k < w + side - 1; k++) {
    const uint32_t v = p[k];
    p[k] = s;
    s += v;
  }
  p[w + side - 1] = s;
  for (int x = 0; x < w; x++)
    out[x] = p[x + side] - p[x];
}

/* acc[x] (+)= a[x] - b[x] (a or b NULL: none), modulo 2^32: sums of values
 * are below 2^32, so the running sums come out exact */
HOT_LOOP static void
slide_sums (uint32_t *restrict acc, const uint32_t *restrict a,
    const uint32_t *restrict b, int n)
{
  if (a && b)
    for (int x = 0; x < n; x++)
      acc[x] += a[x] - b[x];
  else if (a)
    for (int x = 0; x < n; x++)
      acc[x] += a[x];
  else if (b)
    for (int x = 0; x < n; x++)
      acc[x] -= b[x];
}

static void
band_of (int n, int parts, int part, int *begin, int *end)
{
  *begin = (int) ((long long) n * part / parts);
  *end = (int) ((long long) n * (part + 1) / parts);
}

static int
max_value (const CcComponent *c)
{
  return (int) ((1u << cc_component_depth (c)) - 1u);
}

/* Row y's sums of 2r+1 values for columns x0 .. x0 + n - 1: the row's
 * values from x0 - r to x0 + n + r (ghost columns by the border) in
 * padded (n + 2r + 1 entries), then a running sum */
static void
box_row_sums (const ShapeJob *job, int y, int x0, int n, uint32_t *padded,
    uint32_t *out)
{
  const CcComponent *src = job->src;
  const int r = job->filter->radius, w = src->width;
  /* the columns inside the plane in one load, the ghosts one by one from
   * the source (wrap and mirror reach columns outside the strip's span) */
  const int in0 = x0 - r > 0 ? x0 - r : 0;
  const int in1 = x0 + n + r < w ? x0 + n + r : w;
  load_values (src, y, in0, in1 - in0, padded + (in0 - (x0 - r)));
  for (int x = x0 - r; x < x0 + n + r; x++) {
    if (x == in0)
      x = in1;
    if (x >= x0 + n + r)
      break;
    const int bx = cc_border_index (x, w, job->border);
    if (bx < 0)
      padded[x - (x0 - r)] = 0;
    else
      load_values (src, y, bx, 1, padded + (x - (x0 - r)));
  }
  window_sums (out, padded, n, 2 * r + 1);
}

/* Box, row phase: each source row's sums of 2r+1 values along the row
 * (ghost columns by the border), for a band of whole rows, into the
 * plane of row sums; whole rows, so no column's sum is made twice. */
static void
box_rows (void *data, int band)
{
  ShapeJob *job = data;
  const int r = job->filter->radius, w = job->src->width;
  uint32_t *sums = job->mid;
  int y0, y1;

  band_of (job->src->height, job->n_tasks, band, &y0, &y1);
  /* the padded values, ghosts of a plane narrower than the filter
   * included, and the prefix sum's last entry */
  uint32_t *padded = malloc (sizeof (uint32_t) * ((size_t) w + 2 * r + 1));
  if (!padded) {
    job->status[band] = ENOMEM;
    return;
  }
  for (int y = y0; y < y1; y++)
    box_row_sums (job, y, 0, w, padded, sums + (size_t) y * w);
  free (padded);
}

/* The row sums of logical row i (a ghost row by the border) from column
 * x0; NULL for a zero ghost row */
static const uint32_t *
strip_row (const ShapeJob *job, int i, int x0)
{
  const int y = cc_border_index (i, job->dst->height, job->border);

  return y < 0 ? NULL :
      (const uint32_t *) job->mid + (size_t) y * job->dst->width + x0;
}

/* Box, column phase: a strip of columns down the whole plane, the column
 * sums of the row sums running: the row entering the window added, the
 * row leaving it taken off (ghost rows by the border; a zero ghost row
 * adds nothing). The 2r+1 rows of a narrow strip stay in the core's
 * cache, so each row sum is read from memory once. */
static void
box_columns (void *data, int strip)
{
  ShapeJob *job = data;
  const CcComponent *dst = job->dst;
  const CcFilter *f = job->filter;
  const int r = f->radius, h = dst->height;
  int x0, x1;

  band_of (dst->width, job->n_tasks, strip, &x0, &x1);
  const int n = x1 - x0;
  uint32_t *acc = calloc ((size_t) n * 2, sizeof (uint32_t));
  uint32_t *out = acc + n;
  if (!acc) {
    job->status[strip] = ENOMEM;
    return;
  }
  for (int i = -r; i <= r; i++)
    slide_sums (acc, strip_row (job, i, x0), NULL, n);
  for (int y = 0; y < h; y++) {
    scale_sums (out, acc, n, f->scale, f->offset, max_value (dst),
        dst->sample == CC_SAMPLE_U8);
    store_values (dst, y, x0, n, out);
    if (y + 1 < h)
      slide_sums (acc, strip_row (job, y + r + 1, x0),
          strip_row (job, y - r, x0), n);
  }
  free (acc);
}

/* The taps' sweep in a function of its own, so that it is built for
 * each instruction set HOT_LOOP names (its callers are not) */
HOT_LOOP static void
sweep4 (float *restrict acc, const float *const *p, const float *w, int n,
    int width, int assign)
{
  cc_cpu_sweep (acc, p, w, n, width, assign);
}

/* Wide, row phase: mid row y = the row factor along source row y */
static void
wide_rows (void *data, int band)
{
  ShapeJob *job = data;
  const CcComponent *src = job->src;
  const CcFilter *f = job->filter;
  const int r = f->radius, side = 2 * r + 1, w = src->width;
  float *padded = malloc (sizeof (float) * (size_t) (w + 2 * r));
  int y0, y1;

  if (!padded) {
    job->status[band] = ENOMEM;
    return;
  }
  band_of (src->height, job->n_tasks, band, &y0, &y1);
  for (int y = y0; y < y1; y++) {
    float *out = (float *) job->mid + (size_t) y * w;
    load_floats (src, y, 0, w, padded + r);
    PAD_GHOSTS (padded, w, r, job->border);
    for (int j = 0; j < side; j += TAPS_PER_SWEEP) {
      const float *p[TAPS_PER_SWEEP];
      const int n = side - j < TAPS_PER_SWEEP ? side - j : TAPS_PER_SWEEP;
      for (int k = 0; k < n; k++)
        p[k] = padded + j + k;
      sweep4 (out, p, f->row_taps + j, n, w, j == 0);
    }
  }
  free (padded);
}

/* Wide, column phase: the centre term, then the column factor over the
 * mid rows, a band of rows of a strip of columns. Planes narrower than a
 * strip per thread (a region's window) are cut into bands too, so that
 * every thread works. */
static void
wide_columns (void *data, int task)
{
  ShapeJob *job = data;
  const CcComponent *dst = job->dst;
  const CcFilter *f = job->filter;
  const int r = f->radius, side = 2 * r + 1, w = dst->width, h = dst->height;
  const float *mid = job->mid;
  const float raw_offset = cc_component_raw_offset (dst, f->offset);
  int x0, x1, y0, y1;

  band_of (w, job->n_strips, task % job->n_strips, &x0, &x1);
  band_of (h, job->n_tasks / job->n_strips, task / job->n_strips, &y0, &y1);
  const int n = x1 - x0;
  /* the accumulator, the centre samples, and a zero row for zero ghosts */
  float *acc = calloc ((size_t) n, 3 * sizeof (float));
  float *centre = acc + n, *zero = centre + n;
  if (!acc) {
    job->status[task] = ENOMEM;
    return;
  }
  for (int y = y0; y < y1; y++) {
    const float c = f->centre;
    load_floats (job->src, y, x0, n, centre);
    for (int x = 0; x < n; x++)
      acc[x] = c * centre[x];
    for (int i = 0; i < side; i += TAPS_PER_SWEEP) {
      const float *p[TAPS_PER_SWEEP];
      const int m = side - i < TAPS_PER_SWEEP ? side - i : TAPS_PER_SWEEP;
      for (int k = 0; k < m; k++) {
        const int sy = cc_border_index (y + i + k - r, h, job->border);
        p[k] = sy < 0 ? zero : mid + (size_t) sy * w + x0;
      }
      sweep4 (acc, p, f->col_taps + i, m, n, 0);
    }
    store_rounded (dst, y, x0, n, acc, raw_offset);
  }
  free (acc);
}

/* Blocks: per band of block rows, column sums over the block's rows, then
 * each block's sum, scaled by its own count, into every sample of the
 * block */
static void
blocks_band (void *data, int band)
{
  ShapeJob *job = data;
  const CcComponent *src = job->src, *dst = job->dst;
  const CcFilter *f = job->filter;
  const int side = 2 * f->radius + 1, w = src->width, h = src->height;
  const int blocks_x = (w + side - 1) / side;
  const int blocks_y = (h + side - 1) / side;
  /* column sums, a row of values, block sums and their scaled values */
  uint32_t *cols = malloc (sizeof (uint32_t) * ((size_t) 2 * w + 2 * blocks_x));
  uint32_t *row = cols + w, *sums = row + w, *vals = sums + blocks_x;
  int b0, b1;

  if (!cols) {
    job->status[band] = ENOMEM;
    return;
  }
  band_of (blocks_y, job->n_tasks, band, &b0, &b1);
  for (int by = b0; by < b1; by++) {
    const int y0 = by * side, y1 = y0 + side < h ? y0 + side : h;
    memset (cols, 0, sizeof (uint32_t) * (size_t) w);
    for (int y = y0; y < y1; y++) {
      load_values (src, y, 0, w, row);
      slide_sums (cols, row, NULL, w);
    }
    for (int bx = 0; bx < blocks_x; bx++) {
      const int x0 = bx * side, x1 = x0 + side < w ? x0 + side : w;
      uint32_t s = 0;
      for (int x = x0; x < x1; x++)
        s += cols[x];
      sums[bx] = s;
      /* an edge block is the mean of the samples it holds */
      scale_sums (&vals[bx], &sums[bx], 1, cc_block_scale (f->scale, side,
              (x1 - x0) * (y1 - y0)), f->offset, max_value (dst),
          dst->sample == CC_SAMPLE_U8);
    }
    for (int x = 0; x < w; x++)
      row[x] = vals[x / side];
    for (int y = y0; y < y1; y++)
      store_values (dst, y, 0, w, row);
  }
  free (cols);
}

/* Runs task over n parts on the pool; the first error of a part */
static int
run_parts (ShapeJob *job, int n, CcPoolTask task)
{
  job->n_tasks = n < 1 ? 1 : n > CC_CPU_MAX_THREADS ? CC_CPU_MAX_THREADS : n;
  memset (job->status, 0, sizeof (job->status));
  /* a pool that could not grow still ran every part on this thread */
  (void) cc_cpu_pool_run (job->n_tasks, task, job);
  for (int k = 0; k < job->n_tasks; k++)
    if (job->status[k])
      return job->status[k];
  return 0;
}

static int
parts (int n, int per_part, int n_threads)
{
  const int most = n / per_part > 0 ? n / per_part : 1;
  return n_threads < most ? n_threads : most;
}

int
cc_cpu_convolve_shape (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads)
{
  ShapeJob job = { src, dst, filter, border, NULL, 1, 1, { 0 } };
  const int w = src->width, h = src->height;
  int kept = 0, err;

  if (n_threads < 1)
    n_threads = 1;
  if (n_threads > CC_CPU_MAX_THREADS)
    n_threads = CC_CPU_MAX_THREADS;
  switch (filter->shape) {
    case CC_SHAPE_BLOCKS: {
      const int side = 2 * filter->radius + 1;
      return run_parts (&job, parts ((h + side - 1) / side, 1, n_threads),
          blocks_band);
    }
    case CC_SHAPE_BOX:
      /* row sums, one per sample */
      job.mid = scratch_take (sizeof (uint32_t) * (size_t) w * h, &kept);
      if (!job.mid)
        return ENOMEM;
      err = run_parts (&job, parts (h, MIN_ROWS_PER_BAND, n_threads),
          box_rows);
      if (!err)
        err = run_parts (&job, parts (w, MIN_STRIP_COLUMNS, n_threads),
            box_columns);
      scratch_give (job.mid, kept);
      return err;
    case CC_SHAPE_WIDE:
      /* floats, one per sample */
      job.mid = scratch_take (sizeof (float) * (size_t) w * h, &kept);
      if (!job.mid)
        return ENOMEM;
      err = run_parts (&job, parts (h, MIN_ROWS_PER_BAND, n_threads),
          wide_rows);
      job.n_strips = parts (w, MIN_STRIP_COLUMNS, n_threads);
      if (!err)
        err = run_parts (&job, job.n_strips * parts (h, MIN_ROWS_PER_BAND,
                n_threads / job.n_strips), wide_columns);
      scratch_give (job.mid, kept);
      return err;
    default:
      return EINVAL;
  }
}

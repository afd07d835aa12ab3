/* cudaconv: the CPU back end's wide shapes (cudaconv-cpu-wide.h).
 *
 * Box runs in one pass over bands of rows: each band keeps one row of
 * column sums of the 2r+1 source rows around its output row, updated from
 * the row entering and the row leaving, and sums 2r+1 of them along the
 * row (prefix sums, then their differences). A few integer operations per
 * sample whatever r, in cache: the two passes it replaced moved 10 bytes a
 * sample through a uint32 plane of row sums. Each band starts by adding
 * its first window's rows, so bands are kept no shorter than (2r+1) / 8
 * rows (BOX_MIN_BAND_ROWS).
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

/* floor(sum * scale + offset + 0.5) saturated to [0, max], in double as
 * the contract says: clamped first, the truncation is the floor. The
 * clamps as two assignments, which GCC makes a maximum and a minimum in
 * double (a clamp that converts, then blends, ran 15% slower). Conversions
 * go through int32_t, which x86's vector units have and uint32_t not, and
 * max (a value) is below 2^16. */
static inline __attribute__ ((always_inline)) uint32_t
scaled (double sum, double scale, double offset, double max)
{
  double v = sum * scale + offset + 0.5;
  v = v > 0.0 ? v : 0.0;
  v = max > v ? v : max;
  return (uint32_t) (int32_t) v;
}

/* out[k] = sum[k] scaled; sums below 2^31 (below_2_31: every sum of 8-bit
 * samples) convert through int32_t, so that the loop vectorises whole */
HOT_LOOP static void
scale_sums (uint32_t *restrict out, const uint32_t *restrict sum, int n,
    double scale, double offset, double max, int below_2_31)
{
  if (below_2_31)
    for (int k = 0; k < n; k++)
      out[k] = scaled ((int32_t) sum[k], scale, offset, max);
  else
    for (int k = 0; k < n; k++)
      out[k] = scaled (sum[k], scale, offset, max);
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

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
/* vector types with shuffles, for the prefix sums below */
#define VECTOR_PREFIX 1
typedef uint32_t V4u32 __attribute__ ((vector_size (16)));
typedef uint16_t V4u16 __attribute__ ((vector_size (8)));

/* four entries of in from k on as uint32_t lanes */
static inline __attribute__ ((always_inline)) V4u32
load4 (const void *in, int u16, int k)
{
  V4u32 x;
  if (u16) {
    V4u16 h;
    memcpy (&h, (const uint16_t *) in + k, sizeof (h));
    x = __builtin_convertvector (h, V4u32);
  } else {
    memcpy (&x, (const uint32_t *) in + k, sizeof (x));
  }
  return x;
}

/* x[i] = x[0] + ... + x[i] in two shifted adds */
static inline __attribute__ ((always_inline)) V4u32
scan4 (V4u32 x)
{
  const V4u32 zero = { 0 };
  x += __builtin_shufflevector (zero, x, 0, 4, 5, 6);
  return x + __builtin_shufflevector (zero, x, 0, 0, 4, 5);
}
#endif

/* p[k] = s + in[0] + ... + in[k] for k < n, in[] uint16_t (u16, a
 * constant where inlined) or uint32_t; returns s plus them all, modulo
 * 2^32. With vector types, eight entries a step, each four scanned in
 * their lanes and the running total added: the total's chain is one add
 * per step where the plain sum's is one per entry, twice as fast on rows
 * of 1920. */
static inline __attribute__ ((always_inline)) uint32_t
prefix_run (uint32_t *restrict p, const void *in, int u16, int n, uint32_t s)
{
  int k = 0;
#ifdef VECTOR_PREFIX
  V4u32 total = { s, s, s, s };
  for (; k + 8 <= n; k += 8) {
    V4u32 a = scan4 (load4 (in, u16, k)), b = scan4 (load4 (in, u16, k + 4));
    const V4u32 a_end = __builtin_shufflevector (a, a, 3, 3, 3, 3);
    const V4u32 b_end = __builtin_shufflevector (b, b, 3, 3, 3, 3);
    a += total;
    b += total + a_end;
    total += a_end + b_end;
    memcpy (p + k, &a, sizeof (a));
    memcpy (p + k + 4, &b, sizeof (b));
  }
  s = total[0];
#endif
  for (; k < n; k++)
    p[k] = s += u16 ? ((const uint16_t *) in)[k] : ((const uint32_t *) in)[k];
  return s;
}

/* p[k], k = 0 .. w + 2r: the prefix sums (p[0] = 0) of a row of column
 * sums, uint16_t (u16) or uint32_t, with r ghost columns on each side:
 * ghost[k] and ghost[r + k] are the columns standing in for k - r and
 * w + k, -1 for a zero column. Modulo 2^32, which their differences undo:
 * p[x + 2r + 1] - p[x] is the box sum of column x. */
HOT_LOOP static void
box_prefix (uint32_t *restrict p, const void *col, int u16, int w, int r,
    const int *ghost)
{
#define COLUMN(x) (u16 ? ((const uint16_t *) col)[x] : \
    ((const uint32_t *) col)[x])
  uint32_t s = 0;
  p[0] = 0;
  for (int k = 0; k < r; k++)
    p[1 + k] = s += ghost[k] < 0 ? 0 : COLUMN (ghost[k]);
  if (u16)
    s = prefix_run (p + 1 + r, col, 1, w, s);
  else
    s = prefix_run (p + 1 + r, col, 0, w, s);
  for (int k = 0; k < r; k++)
    p[1 + r + w + k] = s += ghost[r + k] < 0 ? 0 : COLUMN (ghost[r + k]);
#undef COLUMN
}

/* out[x] = the box sum p[x + side] - p[x] scaled, for x < n, as
 * scale_sums scales sums */
HOT_LOOP static void
scale_window_sums (uint32_t *restrict out, const uint32_t *restrict p,
    int side, int n, double scale, double offset, double max, int below_2_31)
{
  if (below_2_31)
    for (int k = 0; k < n; k++)
      out[k] = scaled ((int32_t) (p[k + side] - p[k]), scale, offset, max);
  else
    for (int k = 0; k < n; k++)
      out[k] = scaled (p[k + side] - p[k], scale, offset, max);
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

/* col[x] += the value of sample x of row a - that of row b, for the n
 * samples from the rows' start: 8-bit values keep their column sums in
 * uint16_t (2r+1 values, at most 255 * 255), wider ones in uint32_t, both
 * modulo their width, which the running sums undo. 8-bit samples without
 * padding bits (all of them but in theory) in 16-bit lanes throughout. */
HOT_LOOP static void
slide_columns (const CcComponent *c, void *col, const char *a, const char *b,
    int n)
{
  const int shift = c->shift;
  if (c->sample == CC_SAMPLE_U8) {
    uint16_t *restrict s = col;
    const uint8_t *restrict pa = (const uint8_t *) a;
    const uint8_t *restrict pb = (const uint8_t *) b;
    if (shift == 0)
      WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++)
          s[x] = (uint16_t) (s[x] + pa[(size_t) x * K]
              - pb[(size_t) x * K]));
    else
      WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++)
          s[x] = (uint16_t) (s[x] + (pa[(size_t) x * K] >> shift)
              - (pb[(size_t) x * K] >> shift)));
  } else {
    uint32_t *restrict s = col;
    const uint16_t *restrict pa = (const uint16_t *) a;
    const uint16_t *restrict pb = (const uint16_t *) b;
    WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++)
        s[x] += (uint32_t) (pa[(size_t) x * K] >> shift)
        - (uint32_t) (pb[(size_t) x * K] >> shift));
  }
}

/* col[x] += the values of sample x of rows p[0] to p[3]: a window's
 * first column sums, four rows a pass over them (types as slide_columns;
 * four values fit) */
HOT_LOOP static void
add_columns (const CcComponent *c, void *col, const char *const *p, int n)
{
  const int shift = c->shift;
  if (c->sample == CC_SAMPLE_U8) {
    uint16_t *restrict s = col;
    const uint8_t *restrict p0 = (const uint8_t *) p[0];
    const uint8_t *restrict p1 = (const uint8_t *) p[1];
    const uint8_t *restrict p2 = (const uint8_t *) p[2];
    const uint8_t *restrict p3 = (const uint8_t *) p[3];
    if (shift == 0)
      WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++)
          s[x] = (uint16_t) (s[x] + ((p0[(size_t) x * K] + p1[(size_t) x * K])
                  + (p2[(size_t) x * K] + p3[(size_t) x * K]))));
    else
      for (int x = 0; x < n; x++) {
        const size_t i = (size_t) x * c->pixel_stride;
        s[x] = (uint16_t) (s[x] + (p0[i] >> shift) + (p1[i] >> shift)
            + (p2[i] >> shift) + (p3[i] >> shift));
      }
  } else {
    uint32_t *restrict s = col;
    const uint16_t *restrict p0 = (const uint16_t *) p[0];
    const uint16_t *restrict p1 = (const uint16_t *) p[1];
    const uint16_t *restrict p2 = (const uint16_t *) p[2];
    const uint16_t *restrict p3 = (const uint16_t *) p[3];
    WITH_STRIDE (c->pixel_stride, K, for (int x = 0; x < n; x++)
        s[x] += ((uint32_t) (p0[(size_t) x * K] >> shift)
            + (uint32_t) (p1[(size_t) x * K] >> shift))
        + ((uint32_t) (p2[(size_t) x * K] >> shift)
            + (uint32_t) (p3[(size_t) x * K] >> shift)));
  }
}

/* Source row i (a ghost row by the border), or zero_row for a zero one */
static const char *
box_source_row (const ShapeJob *job, int i, const char *zero_row)
{
  const int y = cc_border_index (i, job->src->height, job->border);
  return y < 0 ? zero_row : row_of (job->src, y);
}

/* Box in one pass over a band of output rows: the column sums of the 2r+1
 * source rows around the output row (ghost rows by the border), each row
 * updated from the row entering and the row leaving, then the sums of
 * 2r+1 of them along the row (ghost columns by the border) as prefix-sum
 * differences, scaled. The column sums are one row, which stays in the
 * core's cache: a few integer operations per sample whatever r, and no
 * plane of sums between two passes. A band starts with the 2r+1 rows of
 * its first window, which cc_cpu_convolve_shape's bands keep small beside
 * the band. */
static void
box_band (void *data, int band)
{
  ShapeJob *job = data;
  const CcComponent *src = job->src, *dst = job->dst;
  const CcFilter *f = job->filter;
  const int r = f->radius, side = 2 * r + 1, w = src->width;
  const int u16 = src->sample == CC_SAMPLE_U8;
  const double max = max_value (dst);
  int y0, y1;

  band_of (src->height, job->n_tasks, band, &y0, &y1);
  /* the column sums (room for uint32_t), the prefix sums, the scaled
   * box sums, a zero source row and the ghost columns */
  uint32_t *col = calloc ((size_t) 3 * w + side, sizeof (uint32_t));
  char *zero_row = calloc ((size_t) (w - 1) * src->pixel_stride + 1,
      src->sample);
  int *ghost = malloc (sizeof (int) * (size_t) side);
  if (!col || !zero_row || !ghost) {
    free (col);
    free (zero_row);
    free (ghost);
    job->status[band] = ENOMEM;
    return;
  }
  uint32_t *prefix = col + w, *vals = prefix + w + side;
  for (int k = 0; k < r; k++) {
    ghost[k] = cc_border_index (k - r, w, job->border);
    ghost[r + k] = cc_border_index (w + k, w, job->border);
  }
  /* the first window's rows, only added, four a pass: 24 rows added cost
   * about as much as an output row, where one slide costs an eighth */
  for (int i = y0 - r; i <= y0 + r; i += 4) {
    const char *rows[4];
    for (int k = 0; k < 4; k++)
      rows[k] = i + k <= y0 + r ? box_source_row (job, i + k, zero_row) :
          zero_row;
    add_columns (src, col, rows, w);
  }
  for (int y = y0; y < y1; y++) {
    box_prefix (prefix, col, u16, w, r, ghost);
    /* 8-bit sums and those of up to 15 bits stay below 2^31 */
    scale_window_sums (vals, prefix, side, w, f->scale, f->offset, max,
        (double) side * side * max < 2147483648.0);
    store_values (dst, y, 0, w, vals);
    if (y + 1 < y1)
      slide_columns (src, col, box_source_row (job, y + r + 1, zero_row),
          box_source_row (job, y - r, zero_row), w);
  }
  free (ghost);
  free (zero_row);
  free (col);
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

/* Parts of n items (rows, columns, blocks) with at least per_part items
 * in each, at most n_threads of them, at least one */
static int
parts (int n, int per_part, int n_threads)
{
  const int most = n / per_part > 0 ? n / per_part : 1;
  return n_threads < most ? n_threads : most;
}

/* One phase of several jobs as one pool run: item i is part i - first[j]
 * of jobs[j], first[j] <= i < first[j + 1] */
typedef struct {
  ShapeJob *jobs;
  int *first;
  int n;
  CcPoolTask task;
} ShapeBatch;

static void
batch_part (void *data, int item)
{
  const ShapeBatch *batch = data;
  const int j = cc_cpu_pool_job_of (batch->first, batch->n, item);

  batch->task (&batch->jobs[j], item - batch->first[j]);
}

/* Runs task over every job's n_tasks parts in one pool run; the first
 * error of a part */
static int
run_batch (ShapeBatch *batch, CcPoolTask task)
{
  int items = 0;

  for (int j = 0; j < batch->n; j++) {
    ShapeJob *job = &batch->jobs[j];
    memset (job->status, 0, sizeof (job->status));
    batch->first[j] = items;
    items += job->n_tasks;
  }
  batch->first[batch->n] = items;
  batch->task = task;
  /* a pool that could not grow still ran every part on this thread */
  (void) cc_cpu_pool_run (items, batch_part, batch);
  for (int j = 0; j < batch->n; j++)
    for (int k = 0; k < batch->jobs[j].n_tasks; k++)
      if (batch->jobs[j].status[k])
        return batch->jobs[j].status[k];
  return 0;
}

/* Nanoseconds of one core per sample, measured on a 1080p I420 frame
 * (AMD EPYC, AVX2): the wide factors' two passes of sweeps, as the taps
 * path's; box, one pass, about 1.2 whatever the radius; blocks 0.25 */
#define WIDE_NS(side) CC_CPU_SWEEP_NS (2.0 * (side))
#define BOX_NS 1.2
#define BLOCKS_NS 0.25

/* A box band's restart adds its first window's 2r+1 rows, which costs
 * about as much as filtering (2r+1) / 24 rows (8-bit): bands of at least
 * (2r+1) / 8 rows keep it within a third of the band's own work, while a
 * plane of 1080 rows still takes 33 threads at r127. More bands than that
 * would be faster still on idle cores, but each would pay more for its
 * restart than for its rows. */
#define BOX_MIN_BAND_ROWS(side) \
  ((side) / 8 > MIN_ROWS_PER_BAND ? (side) / 8 : MIN_ROWS_PER_BAND)

/* n_threads within 1 .. CC_CPU_MAX_THREADS */
static int
clamp_threads (int n_threads)
{
  return n_threads < 1 ? 1 : n_threads > CC_CPU_MAX_THREADS ?
      CC_CPU_MAX_THREADS : n_threads;
}

/* n wide convolutions (CC_SHAPE_WIDE) in both phases, each phase of every
 * one of them a single pool run: the windows of a frame's regions, a dozen
 * of them small, so that the pool's threads share them all rather than
 * each window's few parts in turn. Each is cut into the parts its own
 * work is worth, its intermediate a slice of one scratch buffer. */
static int
convolve_wide (const CcComponent *src, const CcComponent *dst,
    const CcFilter *const *filters, int n, CcBorder border, int n_threads)
{
  ShapeJob *jobs = calloc ((size_t) n, sizeof (ShapeJob));
  int *first = malloc (sizeof (int) * (size_t) (n + 1));
  int *threads = malloc (sizeof (int) * (size_t) n);
  ShapeBatch batch = { jobs, first, n, NULL };
  size_t floats = 0;
  float *mid = NULL;
  int kept = 0, err = ENOMEM;

  for (int j = 0; j < n; j++)
    floats += (size_t) src[j].width * src[j].height;
  if (jobs && first && threads)
    mid = scratch_take (sizeof (float) * floats, &kept);
  if (mid) {
    floats = 0;
    for (int j = 0; j < n; j++) {
      const int w = src[j].width, h = src[j].height;
      const int side = 2 * filters[j]->radius + 1;
      ShapeJob *job = &jobs[j];
      job->src = &src[j];
      job->dst = &dst[j];
      job->filter = filters[j];
      job->border = border;
      job->mid = mid + floats;
      floats += (size_t) w * h;
      /* each phase about half the work */
      threads[j] = cc_cpu_pool_threads ((double) w * h * WIDE_NS (side) / 2.0,
          n_threads);
      job->n_tasks = parts (h, MIN_ROWS_PER_BAND, threads[j]);
    }
    err = run_batch (&batch, wide_rows);
    for (int j = 0; j < n; j++) {
      ShapeJob *job = &jobs[j];
      job->n_strips = parts (src[j].width, MIN_STRIP_COLUMNS, threads[j]);
      job->n_tasks = job->n_strips * parts (src[j].height, MIN_ROWS_PER_BAND,
          threads[j] / job->n_strips);
    }
    if (!err)
      err = run_batch (&batch, wide_columns);
    scratch_give (mid, kept);
  }
  free (jobs);
  free (first);
  free (threads);
  return err;
}

int
cc_cpu_convolve_shapes (const CcComponent *src, const CcComponent *dst,
    const CcFilter *const *filters, int n, CcBorder border, int n_threads)
{
  CcComponent *wide = malloc (sizeof (CcComponent) * (size_t) (2 * n));
  const CcFilter **wide_filters = malloc (sizeof (void *) * (size_t) n);
  int n_wide = 0, err = 0;

  if (n > 0 && (!wide || !wide_filters))
    err = ENOMEM;
  /* the wide ones in one batch, the others one at a time on the pool */
  for (int i = 0; i < n && !err; i++) {
    if (filters[i]->shape != CC_SHAPE_WIDE) {
      err = cc_cpu_convolve_shape (&src[i], &dst[i], filters[i], border,
          n_threads);
      continue;
    }
    wide[n_wide] = src[i];
    wide[n + n_wide] = dst[i];
    wide_filters[n_wide++] = filters[i];
  }
  if (!err && n_wide > 0)
    err = convolve_wide (wide, wide + n, wide_filters, n_wide, border,
        clamp_threads (n_threads));
  free (wide);
  free (wide_filters);
  return err;
}

int
cc_cpu_convolve_shape (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, int n_threads)
{
  ShapeJob job = { src, dst, filter, border, NULL, 1, 1, { 0 } };
  const int w = src->width, h = src->height;
  const int side = 2 * filter->radius + 1;
  const double samples = (double) w * h;

  n_threads = clamp_threads (n_threads);
  switch (filter->shape) {
    case CC_SHAPE_BLOCKS:
      return run_parts (&job, parts ((h + side - 1) / side, 1,
              cc_cpu_pool_threads (samples * BLOCKS_NS, n_threads)),
          blocks_band);
    case CC_SHAPE_BOX:
      return run_parts (&job, parts (h, BOX_MIN_BAND_ROWS (side),
              cc_cpu_pool_threads (samples * BOX_NS, n_threads)), box_band);
    case CC_SHAPE_WIDE:
      return convolve_wide (src, dst, &filter, 1, border, n_threads);
    default:
      return EINVAL;
  }
}

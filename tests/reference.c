/* cudaconv tests: reference convolution in double precision. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "reference.h"

int
ref_border_index (int i, int n, RefBorder border)
{
  if (i >= 0 && i < n)
    return i;
  switch (border) {
    case REF_BORDER_ZERO:
      return -1;
    case REF_BORDER_CLAMP:
      return i < 0 ? 0 : n - 1;
    case REF_BORDER_MIRROR:
      if (n == 1)
        return 0;
      /* reflect about the edge samples until inside */
      while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
      return i;
    case REF_BORDER_WRAP:
    default:
      while (i < 0)
        i += n;
      return i % n;
  }
}

uint32_t
ref_max_value (const RefImage * im)
{
  const int depth = im->depth > 0 ? im->depth : 8 * im->bytes;
  return (uint32_t) ((1ul << depth) - 1);
}

static double
sample_at (const RefImage * im, int x, int y)
{
  const unsigned char *row = (const unsigned char *) im->data + y * im->pitch;
  size_t k = (size_t) x * im->pixel_stride;
  unsigned raw = im->bytes == 1 ? row[k] : ((const uint16_t *) row)[k];
  return (raw >> im->shift) & ref_max_value (im);
}

typedef struct {
  const RefImage *in;
  const double *w, *w2;
  int side;
  double divisor, offset;
  RefBorder border;
  uint32_t *out;
  int y0, y1;
} Job;

static void *
run_rows (void *p)
{
  Job *j = p;
  const RefImage *in = j->in;
  const int r = j->side / 2;
  const double max = ref_max_value (in);

  /* column of each (x, tap) pair, so the inner loop does no border logic */
  int *cols = malloc (sizeof (int) * (size_t) in->width * j->side);

  for (int x = 0; x < in->width; x++)
    for (int k = 0; k < j->side; k++)
      cols[x * j->side + k] = ref_border_index (x + k - r, in->width,
          j->border);
  for (int y = j->y0; y < j->y1; y++) {
    for (int x = 0; x < in->width; x++) {
      const int *xs = cols + x * j->side;
      double a = 0.0, b = 0.0, v;
      for (int i = 0; i < j->side; i++) {
        int sy = ref_border_index (y + i - r, in->height, j->border);
        if (sy < 0)
          continue;
        for (int k = 0; k < j->side; k++) {
          double s = xs[k] < 0 ? 0.0 : sample_at (in, xs[k], sy);
          a += j->w[i * j->side + k] * s;
          if (j->w2)
            b += j->w2[i * j->side + k] * s;
        }
      }
      v = (j->w2 ? sqrt (a * a + b * b) : a) / j->divisor + j->offset;
      v = floor (v + 0.5);
      j->out[(size_t) y * in->width + x] =
          (uint32_t) (v < 0.0 ? 0.0 : v > max ? max : v);
    }
  }
  free (cols);
  return NULL;
}

void
ref_convolve (const RefImage * in, const double *weights,
    const double *weights2, int side, double divisor, double offset,
    RefBorder border, uint32_t * out)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  int n_threads = n < 1 ? 1 : n > 32 ? 32 : (int) n;
  pthread_t threads[32];
  Job jobs[32];

  if (n_threads > in->height)
    n_threads = in->height;
  for (int t = 0; t < n_threads; t++) {
    jobs[t] = (Job) {
    in, weights, weights2, side, divisor, offset, border, out,
          in->height * t / n_threads, in->height * (t + 1) / n_threads};
    pthread_create (&threads[t], NULL, run_rows, &jobs[t]);
  }
  for (int t = 0; t < n_threads; t++)
    pthread_join (threads[t], NULL);
}

/* floor(v + 0.5) within [0, max] */
static uint32_t
rounded (double v, double max)
{
  v = floor (v + 0.5);
  return (uint32_t) (v < 0.0 ? 0.0 : v > max ? max : v);
}

/* For each column x and tap j of a row of 2r+1, the column standing in for
 * x + j - r, or -1 for a zero ghost */
static int *
ghost_columns (const RefImage * in, int radius, RefBorder border)
{
  const int side = 2 * radius + 1;
  int *xs = malloc (sizeof (int) * (size_t) in->width * side);
  for (int x = 0; x < in->width; x++)
    for (int j = 0; j < side; j++)
      xs[(size_t) x * side + j] = ref_border_index (x + j - radius, in->width,
          border);
  return xs;
}

/* In double, the row factor along each row, then the column factor down
 * the columns: a 2D sum in another order, which double keeps within far
 * less than a rounding step of it. */
void
ref_wide (const RefImage * in, int radius, const double *col,
    const double *row, double centre, double offset, RefBorder border,
    uint32_t * out)
{
  const int w = in->width, h = in->height, side = 2 * radius + 1;
  double *mid = malloc (sizeof (double) * (size_t) w * h);

  int *xs = ghost_columns (in, radius, border);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double s = 0.0;
      for (int j = 0; j < side; j++) {
        const int sx = xs[(size_t) x * side + j];
        if (sx >= 0)
          s += row[j] * sample_at (in, sx, y);
      }
      mid[(size_t) y * w + x] = s;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double s = centre * sample_at (in, x, y);
      for (int i = 0; i < side; i++) {
        const int sy = ref_border_index (y + i - radius, h, border);
        if (sy >= 0)
          s += col[i] * mid[(size_t) sy * w + x];
      }
      out[(size_t) y * w + x] = rounded (s + offset, ref_max_value (in));
    }
  free (xs);
  free (mid);
}

/* Exact integer sums along each row, then down each column, every sample
 * of the window counted (no running sums) */
void
ref_box (const RefImage * in, int radius, double scale, double offset,
    RefBorder border, uint32_t * out)
{
  const int w = in->width, h = in->height, side = 2 * radius + 1;
  uint64_t *mid = malloc (sizeof (uint64_t) * (size_t) w * h);

  int *xs = ghost_columns (in, radius, border);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint64_t s = 0;
      for (int j = 0; j < side; j++) {
        const int sx = xs[(size_t) x * side + j];
        if (sx >= 0)
          s += (uint64_t) sample_at (in, sx, y);
      }
      mid[(size_t) y * w + x] = s;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint64_t s = 0;
      for (int i = 0; i < side; i++) {
        const int sy = ref_border_index (y + i - radius, h, border);
        if (sy >= 0)
          s += mid[(size_t) sy * w + x];
      }
      double v = (double) s * scale + offset;
      out[(size_t) y * w + x] = rounded (v, ref_max_value (in));
    }
  free (xs);
  free (mid);
}

void
ref_blocks (const RefImage * in, int radius, double scale, double offset,
    uint32_t * out)
{
  const int w = in->width, h = in->height, side = 2 * radius + 1;

  for (int by = 0; by < h; by += side)
    for (int bx = 0; bx < w; bx += side) {
      uint64_t s = 0;
      for (int y = by; y < by + side && y < h; y++)
        for (int x = bx; x < bx + side && x < w; x++)
          s += (uint64_t) sample_at (in, x, y);
      /* the real samples of a block cut short by the edge, whose mean it
       * takes: scale is a whole block's */
      const int bw = bx + side < w ? side : w - bx;
      const int bh = by + side < h ? side : h - by;
      const int n = bw * bh;
      const double block_scale = n == side * side ? scale :
          scale * (double) (side * side) / (double) n;
      double v = (double) s * block_scale + offset;
      const uint32_t o = rounded (v, ref_max_value (in));
      for (int y = by; y < by + side && y < h; y++)
        for (int x = bx; x < bx + side && x < w; x++)
          out[(size_t) y * w + x] = o;
    }
}

void
ref_rng_seed (RefRng * rng, uint64_t seed)
{
  rng->s = seed ? seed : 0x9E3779B97F4A7C15ull;
}

uint32_t
ref_rng_u32 (RefRng * rng)
{
  /* xorshift64* */
  rng->s ^= rng->s >> 12;
  rng->s ^= rng->s << 25;
  rng->s ^= rng->s >> 27;
  return (uint32_t) ((rng->s * 0x2545F4914F6CDD1Dull) >> 32);
}

double
ref_rng_uniform (RefRng * rng)
{
  return ref_rng_u32 (rng) / 4294967296.0;
}

uint64_t
ref_test_seed (void)
{
  const char *env = getenv ("CUDACONV_TEST_SEED");
  uint64_t seed = env ? strtoull (env, NULL, 0) :
      (uint64_t) time (NULL) ^ ((uint64_t) getpid () << 32);
  printf ("random seed: CUDACONV_TEST_SEED=%llu\n", (unsigned long long) seed);
  return seed;
}

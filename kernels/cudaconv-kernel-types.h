/* cudaconv: types shared by the CUDA and CPU convolution back ends.
 *
 * Plain C, no GStreamer, no CUDA headers: the plugin, the CPU back end and the
 * .cu launch wrappers all include this file. */
#ifndef CUDACONV_KERNEL_TYPES_H
#define CUDACONV_KERNEL_TYPES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Filters given by their taps (custom matrices, the edge presets, blurs of
 * small radius) reach CC_MAX_RADIUS; the wide shapes below, which never
 * hold a 2D table, reach CC_MAX_WIDE_RADIUS. */
#define CC_MAX_RADIUS 15
#define CC_MAX_SIDE (2 * CC_MAX_RADIUS + 1)
#define CC_MAX_TAPS (CC_MAX_SIDE * CC_MAX_SIDE)
#define CC_MAX_WIDE_RADIUS 127
#define CC_MAX_WIDE_SIDE (2 * CC_MAX_WIDE_RADIUS + 1)
/* Gradient-magnitude filters (two filters, hypot of both) serve the 3x3
 * sobel; the CUDA kernels are compiled for each radius, so this bound keeps
 * the number of compiled variants small. */
#define CC_MAX_MAGNITUDE_RADIUS 3

/* How ghost cells (samples outside the plane) are made up. */
typedef enum {
  CC_BORDER_ZERO = 0, /* ghost cells are 0, as in PMPP chapter 7 */
  CC_BORDER_CLAMP,    /* replicate the nearest edge sample: aaa|abcd|ddd */
  CC_BORDER_MIRROR,   /* reflect without repeating the edge: cb|abcd|cb */
  CC_BORDER_WRAP      /* periodic: cd|abcd|ab */
} CcBorder;

/* How the CUDA back end convolves (PMPP chapter 7); the element's strategy
 * property has these values. The CPU back end has one way. */
typedef enum {
  CC_STRATEGY_AUTO = 0,   /* the fastest of the others, timed */
  CC_STRATEGY_TILED_HALO, /* PMPP 7.4: tile and halo in shared memory */
  CC_STRATEGY_CACHE_HALO, /* PMPP 7.5: tile in shared memory, halo
                           * through L1/L2 */
  CC_STRATEGY_SEPARABLE   /* a row pass and a column pass, for
                           * filters that carry their factors */
} CcStrategy;
#define CC_N_STRATEGIES 4

/* The value is the size of one sample in bytes. */
typedef enum {
  CC_SAMPLE_U8 = 1,
  CC_SAMPLE_U16 = 2
} CcSampleType;

typedef enum {
  CC_RESPONSE_LINEAR = 0, /* out = sum(w * in) + offset */
  CC_RESPONSE_MAGNITUDE   /* out = hypot(sum(wa * in), sum(wb * in)) + offset */
} CcResponse;

/* The samples of one component (Y, U, V, R, G, B or A) in one plane, or a
 * part of them (a field, a crop's rectangle). Sample (x, y) lives at
 * (char *) data + y * pitch + x * pixel_stride * sample_bytes, so interleaved
 * components (NV12's UV, packed RGB) are addressed in their own sample grid.
 *
 * A 16-bit sample may carry fewer significant bits: depth of them, above
 * shift padding bits (10-bit video LSB-aligned is depth 10, shift 0; P010
 * MSB-aligned is depth 10, shift 6). The value of a sample is then
 * raw >> shift, at most 2^depth - 1; filters, offsets and rounding work on
 * values, and stored samples keep their padding bits zero. Input padding
 * bits must be zero, as those formats define them. depth 0 means every bit
 * of the sample. */
typedef struct {
  void *data;
  size_t pitch; /* bytes from one row to the next */
  int width;    /* in samples of this component */
  int height;
  int pixel_stride; /* samples from one pixel to the next */
  CcSampleType sample;
  int depth; /* significant bits, or 0: 8 * sample */
  int shift; /* padding bits below them */
} CcComponent;

static inline int
cc_component_depth (const CcComponent *c)
{
  return c->depth > 0 ? c->depth : 8 * (int) c->sample;
}

static inline int
cc_component_bits_valid (const CcComponent *c)
{
  return c->depth >= 0 && c->depth <= 8 * (int) c->sample && c->shift >= 0
      && c->shift <= 8 * (int) c->sample - cc_component_depth (c);
}

/* Whether both back ends can take the component: data, a size, a known
 * sample type, its bits, and rows long enough for their samples */
static inline int
cc_component_valid (const CcComponent *c)
{
  return c && c->data && c->width > 0 && c->height > 0 && c->pixel_stride > 0
      && (c->sample == CC_SAMPLE_U8 || c->sample == CC_SAMPLE_U16)
      && cc_component_bits_valid (c)
      && c->pitch
      >= (size_t) ((c->width - 1) * c->pixel_stride + 1) * (size_t) c->sample;
}

/* The largest raw sample the component stores: (2^depth - 1) << shift */
static inline unsigned
cc_component_max_raw (const CcComponent *c)
{
  return ((1u << cc_component_depth (c)) - 1u) << c->shift;
}

/* The raw bits a stored sample may have set: all but the padding below */
static inline unsigned
cc_component_kept_bits (const CcComponent *c)
{
  return (0xffffu << c->shift) & (c->sample == CC_SAMPLE_U8 ? 0xffu : 0xffffu);
}

/* The back ends compute floor(sum of raw samples + offset + 0.5) and clear
 * the padding bits; this is the offset that makes that the value rounded
 * half up: the value offset in raw units, and half a value step less half
 * a raw step. For shift 0 it is offset itself. */
static inline float
cc_component_raw_offset (const CcComponent *c, float offset)
{
  const float step = (float) (1u << c->shift);
  return offset * step + 0.5f * (step - 1.0f);
}

/* What a filter's numbers describe. */
typedef enum {
  /* taps: (2r+1)^2 taps, r <= CC_MAX_RADIUS, and their factors where
   * separable is set */
  CC_SHAPE_TAPS = 0,
  /* factors only, r <= CC_MAX_WIDE_RADIUS: out = centre * in(x, y) +
   * sum(col_taps[i] * row_taps[j] * in(x + j - r, y + i - r)) + offset;
   * gaussian and sharpen wider than CC_MAX_RADIUS */
  CC_SHAPE_WIDE,
  /* box, r <= CC_MAX_WIDE_RADIUS: out = scale * (the sum of the (2r+1)^2
   * samples around, ghost cells by the border policy) + offset, summed
   * exactly in integers at a cost that does not grow with r */
  CC_SHAPE_BOX,
  /* pixelate, r <= CC_MAX_WIDE_RADIUS: the component is cut into blocks
   * of 2r+1 x 2r+1 samples from its first sample (those at the right and
   * bottom edges smaller); every sample of a block becomes
   * cc_block_scale (scale, 2r+1, n) * (the sum of the block's n samples)
   * + offset, scale being that of a whole block. No ghost cells: the
   * border policy does not apply. */
  CC_SHAPE_BLOCKS
} CcShape;

/* A filter ready to run, made from the user's weights by folding in the
 * divisor: out = saturate(round(sum(taps * in) + offset)) for
 * CC_SHAPE_TAPS, as shape says for the others. For
 * CC_RESPONSE_MAGNITUDE taps holds two (2r+1)^2 filters back to back. Both
 * back ends take it by pointer and copy what they need when a call returns,
 * so it may change between calls.
 *
 * A linear filter whose taps are an outer product, taps[i][j] ==
 * col_taps[i] * row_taps[j] (gaussian, box, sobel-x), may also carry the two
 * factors (separable set); the back ends then run it as a row pass and a
 * column pass, 2(2r+1) multiply-adds per sample instead of (2r+1)^2. */
typedef struct {
  int radius;
  CcShape shape;
  CcResponse response; /* CC_RESPONSE_LINEAR but for some CC_SHAPE_TAPS */
  float offset;
  int separable;           /* CC_SHAPE_TAPS: col_taps and row_taps hold
                            * its factors */
  float centre;            /* CC_SHAPE_WIDE */
  double scale;            /* CC_SHAPE_BOX, CC_SHAPE_BLOCKS */
  float taps[CC_MAX_TAPS]; /* CC_SHAPE_TAPS, row-major */
  float col_taps[CC_MAX_WIDE_SIDE]; /* 2r+1 used */
  float row_taps[CC_MAX_WIDE_SIDE];
} CcFilter;

static inline int
cc_filter_is_separable (const CcFilter *f)
{
  return f->shape == CC_SHAPE_TAPS && f->response == CC_RESPONSE_LINEAR
      && f->separable;
}

/* Whether a back end can run the filter: a radius in range for its shape
 * and response */
static inline int
cc_filter_valid (const CcFilter *f)
{
  if (!f || f->radius < 0)
    return 0;
  switch (f->shape) {
    case CC_SHAPE_TAPS:
      if (f->response == CC_RESPONSE_MAGNITUDE)
        return f->radius <= CC_MAX_MAGNITUDE_RADIUS;
      return f->response == CC_RESPONSE_LINEAR && f->radius <= CC_MAX_RADIUS;
    case CC_SHAPE_WIDE:
    case CC_SHAPE_BOX:
    case CC_SHAPE_BLOCKS:
      return f->response == CC_RESPONSE_LINEAR
          && f->radius <= CC_MAX_WIDE_RADIUS;
    default:
      return 0;
  }
}

/* A function both the host and the device run (the border policies, the
 * blocks' scale), so that the back ends agree to the bit */
#ifdef __CUDACC__
#define CC_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define CC_HOST_DEVICE static inline
#endif

/* The scale of a CC_SHAPE_BLOCKS block of n samples, scale being that of
 * a whole block of side x side: a block cut short by the component's edge
 * holds only its real samples, so each weighs side^2 / n times as much
 * (a pixelated edge keeps its brightness). Every back end and the tests'
 * reference compute it so, to the bit. */
CC_HOST_DEVICE double
cc_block_scale (double scale, int side, int n)
{
  return n == side * side ? scale :
      scale * (double) (side * side) / (double) n;
}

/* A box sum of 8-bit values scaled by integer arithmetic alone:
 * ((s + half) * magic) >> shift */
typedef struct {
  unsigned half, magic;
  int shift;
} CcBoxDivider;

/* Whether the contract's floor(s * scale + offset + 0.5), in double, is
 * round(s / n) for every sum s of n = (2 radius + 1)^2 values of 8 bits
 * (a plain mean: offset 0, scale the double nearest 1 / n), and then the
 * divider that computes it. It is: n is odd, so s / n + 0.5 lies at least
 * 1 / 2n from an integer, far beyond the double's rounding errors; and
 * round(s / n) = floor((s + (n - 1) / 2) / n), a division of a value below
 * 2^24 by n, which magic = ceil(2^shift / n), shift = 24 + ceil(log2 n),
 * makes exact (Granlund and Montgomery 1994). tests/test-filter.c checks
 * every sum at several radii against the formula. */
static inline int
cc_box_divider (int radius, double scale, double offset, CcBoxDivider * d)
{
  const unsigned long long n = (unsigned long long) (2 * radius + 1) *
      (unsigned long long) (2 * radius + 1);
  int bits = 0;

  if (radius < 0 || radius > CC_MAX_WIDE_RADIUS || offset != 0.0
      || scale != 1.0 / (double) n)
    return 0;
  while ((1ull << bits) < n)
    bits++;
  d->half = (unsigned) ((n - 1) / 2);
  d->shift = 24 + bits;
  d->magic = (unsigned) (((1ull << d->shift) + n - 1) / n);
  return 1;
}

CC_HOST_DEVICE unsigned
cc_box_divide (unsigned s, CcBoxDivider d)
{
  return (unsigned) (((unsigned long long) (s + d.half) * d.magic) >>
      d.shift);
}

static inline int
cc_filter_n_taps (int radius, CcResponse response)
{
  int side = 2 * radius + 1;
  return side * side * (response == CC_RESPONSE_MAGNITUDE ? 2 : 1);
}

#ifdef __cplusplus
}
#endif
#endif /* CUDACONV_KERNEL_TYPES_H */

/* cudaconv kernel tests: api. The back ends' entry points beyond a case's
 * result: bad arguments come back as errors, never as a crash or a
 * launch; in the CUDA build, kernels queued back to back, unsynchronised,
 * each wait for what they must (test_launch_order), and the selector
 * reaches every family, and patches of samples are copied between device
 * and mapped host memory as the regions' gathers and scatters do
 * (test_patches); in the CPU build, a batch of convolutions gives
 * what they give one by one (test_cpu_batch). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#ifndef KERNELS_CUDA
#include "cudaconv-cpu-pool.h"
#endif

#ifdef KERNELS_CUDA
#define ORDER_WIDTH 3840
#define ORDER_HEIGHT 2160
#define ORDER_REPEATS 20

static void
expect_same (const char *what, const unsigned char *want,
    const unsigned char *d_got, unsigned char *got, size_t bytes)
{
  n_cases++;
  if (cudaMemcpy (got, d_got, bytes, cudaMemcpyDeviceToHost) != cudaSuccess
      || memcmp (want, got, bytes) != 0) {
    n_failed++;
    printf ("FAIL %s\n", what);
  }
}

/* One of two launches queued back to back */
typedef struct {
  const CcComponent *src, *dst;
  const CcFilter *filter;
  CcLaunchFlags flags;
} QueuedLaunch;

static cudaError_t
launch_pair (const QueuedLaunch * pair, CcStrategy strategy, int synchronise)
{
  cudaError_t e = cudaSuccess;
  for (int k = 0; k < 2 && e == cudaSuccess; k++) {
    if (k == 1 && synchronise)
      e = cudaDeviceSynchronize ();
    if (e == cudaSuccess)
      e = cc_cuda_convolve (pair[k].src, pair[k].dst, pair[k].filter,
          CC_BORDER_CLAMP, strategy, NULL, 0, 0, pair[k].flags, NULL);
  }
  return e;
}

static cudaError_t
poison_pair (const QueuedLaunch * pair, size_t bytes)
{
  cudaError_t e = cudaMemset (pair[0].dst->data, POISON, bytes);
  return e == cudaSuccess ? cudaMemset (pair[1].dst->data, POISON, bytes) : e;
}

/* The second launch's output, with a synchronisation between the two, then
 * ORDER_REPEATS times without: it must be the same each time. */
static cudaError_t
check_queued_pair (const char *what, const QueuedLaunch * pair,
    CcStrategy strategy, unsigned char *want, unsigned char *got,
    size_t bytes)
{
  cudaError_t e;
  if ((e = poison_pair (pair, bytes)) != cudaSuccess
      || (e = launch_pair (pair, strategy, 1)) != cudaSuccess
      || (e = cudaMemcpy (want, pair[1].dst->data, bytes,
              cudaMemcpyDeviceToHost)) != cudaSuccess)
    return e;
  for (int r = 0; r < ORDER_REPEATS && e == cudaSuccess; r++) {
    char name[200];
    snprintf (name, sizeof (name), "[%s] %s, repeat %d",
        strategy == CC_STRATEGY_CACHE_HALO ? "cache-halo" : "tiled-halo",
        what, r);
    if ((e = poison_pair (pair, bytes)) == cudaSuccess
        && (e = launch_pair (pair, strategy, 0)) == cudaSuccess)
      expect_same (name, want, pair[1].dst->data, got, bytes);
  }
  return e;
}

/* Kernels queued back to back, without a synchronisation between them,
 * must give what they give one at a time, whatever each may start before
 * the one ahead of it ends (programmatic dependent launch on compute
 * capability 9.0+): a kernel reading the previous kernel's output waits
 * for it (CC_LAUNCH_DEFAULT), and one that only reads what is ready still
 * stores after the kernel ahead of it (CC_LAUNCH_SRC_READY). A 3840x2160
 * plane, where kernels take microseconds, r1 then r2, each strategy,
 * ORDER_REPEATS times, as a race shows only now and then. */
static void
test_launch_order (RefRng * rng)
{
  const size_t bytes = (size_t) ORDER_WIDTH * ORDER_HEIGHT;
  unsigned char *host = malloc (bytes), *want = malloc (bytes);
  unsigned char *got = malloc (bytes), *d[3] = { NULL, NULL, NULL };
  Filters *f = calloc (2, sizeof (Filters));
  cudaError_t e = host && want && got && f ? cudaSuccess :
      cudaErrorMemoryAllocation;

  for (size_t k = 0; host && k < bytes; k++)
    host[k] = (unsigned char) ref_rng_u32 (rng);
  for (int k = 0; k < 3 && e == cudaSuccess; k++)
    e = cudaMalloc ((void **) &d[k], bytes);
  if (e == cudaSuccess)
    e = cudaMemcpy (d[0], host, bytes, cudaMemcpyHostToDevice);
  if (f) {
    random_filters (rng, 3, 0, 255.0, &f[0]);
    random_filters (rng, 5, 1, 255.0, &f[1]);
  }

  CcComponent a = { d[0], ORDER_WIDTH, ORDER_WIDTH, ORDER_HEIGHT, 1,
    CC_SAMPLE_U8, 0, 0
  };
  CcComponent b = a, c = a;
  b.data = d[1];
  c.data = d[2];
  const CcFilter *first = f ? &f[0].f : NULL, *second = f ? &f[1].f : NULL;
  /* a -> b -> c: the second reads the first one's output */
  const QueuedLaunch chained[2] = { {&a, &b, first, CC_LAUNCH_SRC_READY},
  {&b, &c, second, CC_LAUNCH_DEFAULT}
  };
  /* a -> b twice: the second filter's output must stay */
  const QueuedLaunch same_dst[2] = { {&a, &b, first, CC_LAUNCH_SRC_READY},
  {&a, &b, second, CC_LAUNCH_SRC_READY}
  };
  for (int s = 0; s < 2 && e == cudaSuccess; s++) {
    const CcStrategy strategy = s ? CC_STRATEGY_CACHE_HALO :
        CC_STRATEGY_TILED_HALO;
    e = check_queued_pair ("a kernel reading the output of the one queued "
        "just before it", chained, strategy, want, got, bytes);
    if (e == cudaSuccess)
      e = check_queued_pair ("two kernels ready to read, writing the same "
          "plane", same_dst, strategy, want, got, bytes);
  }
  if (e != cudaSuccess) {
    n_cases++;
    n_failed++;
    printf ("FAIL launch order: CUDA error: %s\n", cudaGetErrorString (e));
  }
  for (int k = 0; k < 3; k++)
    cudaFree (d[k]);
  free (f);
  free (got);
  free (want);
  free (host);
}

/* The selector reaches every family, each from a plain case of its own;
 * and a plane too tall for a strip kernel's grid goes to the next family
 * of the list. Selection reads the planes' addresses, not their samples. */
static void
test_selector (void)
{
  static const struct {
    CcStrategy strategy;
    int bytes, radius, separable, width, height, unaligned;
    CcFamily want;
    CcShape shape;
  } cases[] = {
    {CC_STRATEGY_TILED_HALO, 1, 1, 0, 1920, 1080, 0,
        CC_FAMILY_2D_STRIP_TILED_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_CACHE_HALO, 2, 2, 0, 1920, 1080, 0,
        CC_FAMILY_2D_STRIP_CACHE_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_TILED_HALO, 1, 2, 0, 1920, 1080, 1, CC_FAMILY_2D_ROW_BLOCK, CC_SHAPE_TAPS},
    {CC_STRATEGY_TILED_HALO, 2, 3, 0, 1920, 1080, 0, CC_FAMILY_2D_TILED_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_CACHE_HALO, 1, 3, 0, 1920, 1080, 0, CC_FAMILY_2D_CACHE_HALO, CC_SHAPE_TAPS},
    /* rows that do not move as quads: cache-halo runs the tiled-halo ones */
    {CC_STRATEGY_CACHE_HALO, 1, 1, 0, 1920, 1080, 1, CC_FAMILY_2D_ROW_BLOCK, CC_SHAPE_TAPS},
    {CC_STRATEGY_CACHE_HALO, 2, 3, 0, 1920, 1080, 1, CC_FAMILY_2D_TILED_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 1, 3, 1, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_STRIP_MMA, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 2, 2, 1, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_STRIP_FP32, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 1, 9, 1, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_TILE_MMA, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 2, 9, 1, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_TILE_FP32, CC_SHAPE_TAPS},
    /* more strips of rows than a grid has rows of blocks */
    {CC_STRATEGY_CACHE_HALO, 1, 1, 0, 32, 3000000, 0,
        CC_FAMILY_2D_CACHE_HALO, CC_SHAPE_TAPS},
    {CC_STRATEGY_SEPARABLE, 1, 1, 1, 32, 3000000, 0,
        CC_FAMILY_SEPARABLE_TILE_FP32, CC_SHAPE_TAPS},
    /* the wide shapes run their family whatever the strategy */
    {CC_STRATEGY_AUTO, 1, 127, 0, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_WIDE_MMA, CC_SHAPE_WIDE},
    {CC_STRATEGY_SEPARABLE, 2, 16, 0, 1920, 1080, 1,
        CC_FAMILY_SEPARABLE_WIDE_MMA, CC_SHAPE_WIDE},
    /* below the tensor cores' radii, and on planes too small to fill the
     * GPU with their blocks, the FP32 family */
    {CC_STRATEGY_AUTO, 1, 15, 0, 1920, 1080, 0,
        CC_FAMILY_SEPARABLE_WIDE, CC_SHAPE_WIDE},
    {CC_STRATEGY_AUTO, 1, 63, 0, 32, 32, 0,
        CC_FAMILY_SEPARABLE_WIDE, CC_SHAPE_WIDE},
    /* the box: one pass up to r4, and up to r8 on planes whose warps
     * fill the GPU; line passes from the radius where they pay (r24 on
     * 8-bit samples, r96 on 16-bit ones), running sums between */
    {CC_STRATEGY_TILED_HALO, 1, 2, 0, 1920, 1080, 0,
        CC_FAMILY_BOX_STRIP, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 2, 4, 0, 1920, 1080, 0,
        CC_FAMILY_BOX_STRIP, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 2, 8, 0, 7680, 4320, 0,
        CC_FAMILY_BOX_STRIP, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 1, 8, 0, 1920, 1080, 0,
        CC_FAMILY_BOX_RUNNING_SUM, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 1, 0, 0, 1920, 1080, 0,
        CC_FAMILY_BOX_RUNNING_SUM, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 1, 9, 0, 7680, 4320, 0,
        CC_FAMILY_BOX_RUNNING_SUM, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 1, 23, 0, 1920, 1080, 0,
        CC_FAMILY_BOX_RUNNING_SUM, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 1, 24, 0, 1920, 1080, 0,
        CC_FAMILY_BOX_LINES, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 2, 95, 0, 1920, 1080, 0,
        CC_FAMILY_BOX_RUNNING_SUM, CC_SHAPE_BOX},
    {CC_STRATEGY_AUTO, 2, 127, 0, 32, 3000000, 0,
        CC_FAMILY_BOX_LINES, CC_SHAPE_BOX},
    {CC_STRATEGY_CACHE_HALO, 1, 0, 0, 1920, 1080, 1,
        CC_FAMILY_BLOCK_MEAN, CC_SHAPE_BLOCKS},
  };
  static CcFilter f;
  int reached[CC_N_FAMILIES] = { 0 };

  for (size_t k = 0; k < sizeof (cases) / sizeof (cases[0]); k++) {
    const int side = 2 * cases[k].radius + 1;
    /* 16-byte rows, or rows 3 samples past them */
    const size_t pitch = ((size_t) cases[k].width * cases[k].bytes + 15) / 16
        * 16 + (cases[k].unaligned ? 3 * cases[k].bytes : 0);
    CcComponent src = { (void *) (uintptr_t) 0x100000, pitch, cases[k].width,
      cases[k].height, 1, (CcSampleType) cases[k].bytes, 0, 0
    };
    CcComponent dst = src;
    CcFamily got = CC_N_FAMILIES;
    cudaError_t e;

    f.radius = cases[k].radius;
    f.shape = cases[k].shape;
    f.scale = 1.0;
    f.response = CC_RESPONSE_LINEAR;
    f.offset = 0.0f;
    f.separable = cases[k].separable;
    /* the wide shapes hold no 2D table: their sides pass its size */
    for (int i = 0; f.shape == CC_SHAPE_TAPS && i < side * side; i++)
      f.taps[i] = 1.0f / (side * side);
    for (int i = 0; i < side; i++)
      f.col_taps[i] = f.row_taps[i] = 1.0f / side;
    dst.data = (void *) (uintptr_t) 0x200000;
    n_cases++;
    e = cc_cuda_select_family (&src, &dst, &f, cases[k].strategy, &got);
    if (e != cudaSuccess || got != cases[k].want) {
      n_failed++;
      printf ("FAIL selector case %zu (%dx%d %d-bit radius %d): got %s, want "
          "%s\n", k, cases[k].width, cases[k].height, 8 * cases[k].bytes,
          cases[k].radius, e == cudaSuccess ? cc_family_name (got) :
          cudaGetErrorString (e), cc_family_name (cases[k].want));
    } else {
      reached[got] = 1;
    }
  }
  for (int f = 0; f < CC_N_FAMILIES; f++) {
    n_cases++;
    if (!reached[f]) {
      n_failed++;
      printf ("FAIL selector: no case reached %s\n",
          cc_family_name ((CcFamily) f));
    }
  }
}
#endif

static void
expect_rejected (const char *what, int rc)
{
  n_cases++;
  if (rc == 0) {
    n_failed++;
    printf ("FAIL %s: accepted\n", what);
  }
}

/* Bad arguments come back as errors, never as a crash or a launch. */
static void
test_invalid_arguments (void)
{
  unsigned char a[64], b[64];
  CcComponent good = { a, 8, 8, 8, 1, CC_SAMPLE_U8, 0, 0 };
  CcComponent out = { b, 8, 8, 8, 1, CC_SAMPLE_U8, 0, 0 };
  CcComponent null_data = good, narrow_pitch = good, other_size = out;
  CcComponent deep = good, shifted = good, other_bits = out;
  CcFilter too_wide = { .radius = CC_MAX_RADIUS + 1,
    .response = CC_RESPONSE_LINEAR, .taps = {1.0f}
  };
  CcFilter mag_too_wide = { .radius = CC_MAX_MAGNITUDE_RADIUS + 1,
    .response = CC_RESPONSE_MAGNITUDE, .taps = {1.0f}
  };
  CcFilter ok = { .radius = 0, .response = CC_RESPONSE_LINEAR, .taps = {1.0f} };
  CcFilter negative = ok, unknown_response = ok;
  null_data.data = NULL;
  narrow_pitch.pitch = 4;
  other_size.width = 7;
  deep.depth = 9;               /* more bits than an 8-bit sample has */
  shifted.depth = 6;
  shifted.shift = 3;            /* 6 bits above 3 do not fit 8 */
  other_bits.depth = 7;         /* src and dst of different depths */
  negative.radius = -1;
  unknown_response.response = (CcResponse) 7;
  CcFilter wide_128 = ok, box_128 = ok, blocks_128 = ok, unknown_shape = ok;
  CcFilter wide_magnitude = ok;
  wide_128.shape = CC_SHAPE_WIDE;
  wide_128.radius = CC_MAX_WIDE_RADIUS + 1;
  box_128.shape = CC_SHAPE_BOX;
  box_128.radius = CC_MAX_WIDE_RADIUS + 1;
  blocks_128.shape = CC_SHAPE_BLOCKS;
  blocks_128.radius = CC_MAX_WIDE_RADIUS + 1;
  unknown_shape.shape = (CcShape) 7;
  wide_magnitude.shape = CC_SHAPE_WIDE;
  wide_magnitude.radius = 1;
  wide_magnitude.response = CC_RESPONSE_MAGNITUDE;

#ifdef KERNELS_CUDA
  CcFilter box_ok = ok;
  box_ok.shape = CC_SHAPE_BOX;
  /* past box-strip's radii, where the box needs a workspace */
  box_ok.radius = 9;
  box_ok.scale = 1.0 / 361.0;
  unsigned char *d;
  if (cudaMalloc ((void **) &d, 128) != cudaSuccess)
    return;
  good.data = d;
  out.data = d + 64;
  narrow_pitch.data = d;
  other_size.data = d + 64;
  deep.data = shifted.data = d;
  other_bits.data = d + 64;
  /* every entry point checks the filter (cc_filter_valid) */
#define CONVOLVE(s, o, f, border) \
  cc_cuda_convolve (s, o, f, border, CC_STRATEGY_TILED_HALO, NULL, 0, 0, \
      CC_LAUNCH_DEFAULT, NULL)
  CcFamily family;
  expect_rejected ("select for radius 16", cc_cuda_select_family (&good, &out,
          &too_wide, CC_STRATEGY_TILED_HALO, &family));
  expect_rejected ("convolve with no filter", cc_cuda_convolve (&good, &out,
          NULL, CC_BORDER_CLAMP, CC_STRATEGY_TILED_HALO, NULL, 0, 0,
          CC_LAUNCH_DEFAULT, NULL));
  expect_rejected ("unknown strategy", cc_cuda_convolve (&good, &out,
          &ok, CC_BORDER_CLAMP, (CcStrategy) 7, NULL, 0, 0,
          CC_LAUNCH_DEFAULT, NULL));
  expect_rejected ("strategy auto, which the tuner resolves",
      cc_cuda_convolve (&good, &out, &ok, CC_BORDER_CLAMP,
          CC_STRATEGY_AUTO, NULL, 0, 0, CC_LAUNCH_DEFAULT, NULL));
  expect_rejected ("separable strategy on a 2D filter",
      cc_cuda_convolve (&good, &out, &ok, CC_BORDER_CLAMP,
          CC_STRATEGY_SEPARABLE, NULL, 0, 0, CC_LAUNCH_DEFAULT, NULL));
  expect_rejected ("a separable family on a 2D filter",
      cc_cuda_convolve_family (CC_FAMILY_SEPARABLE_TILE_FP32, &good, &out,
          &ok, CC_BORDER_CLAMP, NULL, 0, 0, CC_LAUNCH_DEFAULT));
  expect_rejected ("a taps family on a box",
      cc_cuda_convolve_family (CC_FAMILY_2D_TILED_HALO, &good, &out,
          &box_ok, CC_BORDER_CLAMP, NULL, 0, 0, CC_LAUNCH_DEFAULT));
  expect_rejected ("unknown family", cc_cuda_convolve_family
      ((CcFamily) CC_N_FAMILIES, &good, &out, &ok, CC_BORDER_CLAMP,
          NULL, 0, 0, CC_LAUNCH_DEFAULT));
  expect_rejected ("unknown launch flag", cc_cuda_convolve (&good, &out,
          &ok, CC_BORDER_CLAMP, CC_STRATEGY_TILED_HALO, NULL, 0, 0,
          (CcLaunchFlags) 6, NULL));
  expect_rejected ("tuner without a result pointer",
      cc_cuda_fastest_strategy (&good, &out, &ok, CC_BORDER_CLAMP, NULL, 0,
          0, NULL, NULL));
  {
    /* a box needs its workspace: none, or a byte too little, is refused
     * by every entry point */
    const size_t need = cc_cuda_workspace_bytes (&good, &box_ok);
    void *work = NULL;
    CcStrategy st;
    n_cases++;
    if (need == 0 || cudaMalloc (&work, need) != cudaSuccess) {
      n_failed++;
      printf ("FAIL a box's workspace: %zu bytes\n", need);
    } else {
      expect_rejected ("box without workspace", cc_cuda_convolve (&good,
              &out, &box_ok, CC_BORDER_CLAMP, CC_STRATEGY_AUTO, NULL, 0, 0,
              CC_LAUNCH_DEFAULT, NULL));
      expect_rejected ("box with a workspace too small",
          cc_cuda_convolve (&good, &out, &box_ok, CC_BORDER_CLAMP,
              CC_STRATEGY_AUTO, work, need - 1, 0, CC_LAUNCH_DEFAULT, NULL));
      expect_rejected ("box family with a workspace too small",
          cc_cuda_convolve_family (CC_FAMILY_BOX_LINES, &good, &out,
              &box_ok, CC_BORDER_CLAMP, work, need - 1, 0,
              CC_LAUNCH_DEFAULT));
      expect_rejected ("tuner with a workspace too small",
          cc_cuda_fastest_strategy (&good, &out, &box_ok, CC_BORDER_CLAMP,
              work, need - 1, 0, &st, NULL));
      n_cases++;
      if (cc_cuda_convolve (&good, &out, &box_ok, CC_BORDER_CLAMP,
              CC_STRATEGY_AUTO, work, need, 0, CC_LAUNCH_DEFAULT,
              NULL) != cudaSuccess || cudaDeviceSynchronize () != cudaSuccess) {
        n_failed++;
        printf ("FAIL box with its workspace refused\n");
      }
    }
    cudaFree (work);
  }
  {
    /* each family asks its own workspace: on 8-bit samples the tensor
     * cores' fp16 intermediate is half the FP32 family's 4 bytes a
     * sample, what the selector asks is its family's (on this small
     * plane the FP32 one), and a family that does not take the filter
     * asks none */
    CcFilter wide31 = ok;
    wide31.shape = CC_SHAPE_WIDE;
    wide31.radius = 31;
    const size_t samples = (size_t) good.width * good.height;
    const struct {
      const char *what;
      size_t got, want;
    } asks[] = {
      {"separable-wide-mma", cc_cuda_family_workspace_bytes
            (CC_FAMILY_SEPARABLE_WIDE_MMA, &good, &wide31), 2 * samples},
      {"separable-wide", cc_cuda_family_workspace_bytes
            (CC_FAMILY_SEPARABLE_WIDE, &good, &wide31), 4 * samples},
      {"box-lines for a wide filter", cc_cuda_family_workspace_bytes
            (CC_FAMILY_BOX_LINES, &good, &wide31), 0},
      {"an unknown family", cc_cuda_family_workspace_bytes
            ((CcFamily) CC_N_FAMILIES, &good, &wide31), 0},
      {"the selector's", cc_cuda_workspace_bytes (&good, &wide31),
          4 * samples},
    };
    for (size_t k = 0; k < sizeof (asks) / sizeof (asks[0]); k++) {
      n_cases++;
      if (asks[k].got != asks[k].want) {
        n_failed++;
        printf ("FAIL the workspace of %s: %zu bytes, want %zu\n",
            asks[k].what, asks[k].got, asks[k].want);
      }
    }
  }
#else
#define CONVOLVE(s, o, f, border) cc_cpu_convolve (s, o, f, border, 1)
#endif
  expect_rejected ("radius 16", CONVOLVE (&good, &out, &too_wide,
          CC_BORDER_CLAMP));
  expect_rejected ("magnitude radius past the limit", CONVOLVE (&good, &out,
          &mag_too_wide, CC_BORDER_CLAMP));
  expect_rejected ("negative radius", CONVOLVE (&good, &out, &negative,
          CC_BORDER_CLAMP));
  expect_rejected ("unknown response", CONVOLVE (&good, &out,
          &unknown_response, CC_BORDER_CLAMP));
  expect_rejected ("null data", CONVOLVE (&null_data, &out, &ok,
          CC_BORDER_CLAMP));
  expect_rejected ("pitch narrower than a row", CONVOLVE (&narrow_pitch, &out,
          &ok, CC_BORDER_CLAMP));
  expect_rejected ("different sizes", CONVOLVE (&good, &other_size, &ok,
          CC_BORDER_CLAMP));
  expect_rejected ("unknown border", CONVOLVE (&good, &out, &ok,
          (CcBorder) 9));
  expect_rejected ("depth past the sample", CONVOLVE (&deep, &out, &ok,
          CC_BORDER_CLAMP));
  expect_rejected ("depth and shift past the sample", CONVOLVE (&shifted,
          &out, &ok, CC_BORDER_CLAMP));
  expect_rejected ("different depths", CONVOLVE (&good, &other_bits, &ok,
          CC_BORDER_CLAMP));
  expect_rejected ("wide radius 128", CONVOLVE (&good, &out, &wide_128,
          CC_BORDER_CLAMP));
  expect_rejected ("box radius 128", CONVOLVE (&good, &out, &box_128,
          CC_BORDER_CLAMP));
  expect_rejected ("blocks radius 128", CONVOLVE (&good, &out, &blocks_128,
          CC_BORDER_CLAMP));
  expect_rejected ("unknown shape", CONVOLVE (&good, &out, &unknown_shape,
          CC_BORDER_CLAMP));
  expect_rejected ("a wide shape with a magnitude response", CONVOLVE (&good,
          &out, &wide_magnitude, CC_BORDER_CLAMP));
#ifdef KERNELS_CUDA
  cudaFree (d);
#endif
}

#ifdef KERNELS_CUDA
/* A plane for the patch tests: device memory, or pinned host memory the
 * device maps (as the element's pool and registered buffers are) */
typedef struct {
  unsigned char *data;
  size_t bytes;
  int host;
} PatchPlane;

static int
patch_plane_alloc (PatchPlane * p, size_t bytes, int host)
{
  p->bytes = bytes;
  p->host = host;
  return (host ? cudaHostAlloc ((void **) &p->data, bytes,
          cudaHostAllocMapped) : cudaMalloc ((void **) &p->data,
          bytes)) == cudaSuccess;
}

static void
patch_plane_free (PatchPlane * p)
{
  if (p->host)
    cudaFreeHost (p->data);
  else
    cudaFree (p->data);
}

/* What cc_cuda_copy_patches must leave in dst (a host copy of the plane
 * whose device address is dst_dev): every sample of each patch from src
 * (a host copy of src_dev) through the tests' own border rule, every
 * other byte as it was */
static void
patch_reference (const CcPatch * patches, int n, const unsigned char *src,
    const unsigned char *src_dev, unsigned char *dst,
    const unsigned char *dst_dev, RefBorder border)
{
  for (int k = 0; k < n; k++) {
    const CcPatch *p = &patches[k];
    const int bytes = p->src.sample == CC_SAMPLE_U8 ? 1 : 2;
    const unsigned char *s0 = src + ((const unsigned char *) p->src.data
        - src_dev);
    unsigned char *d0 = dst + ((unsigned char *) p->dst.data - dst_dev);
    for (int j = 0; j < p->height; j++)
      for (int i = 0; i < p->width; i++) {
        const int sx = ref_border_index (p->x + i, p->src.width, border);
        const int sy = ref_border_index (p->y + j, p->src.height, border);
        unsigned char *d = d0 + (size_t) j * p->dst.pitch
            + (size_t) i * p->dst.pixel_stride * bytes;
        if (sx < 0 || sy < 0)
          memset (d, 0, bytes);
        else
          memcpy (d, s0 + (size_t) sy * p->src.pitch
              + (size_t) sx * p->src.pixel_stride * bytes, bytes);
      }
  }
}

/* cc_cuda_copy_patch_table's refusals: no table, one too small by a
 * byte, one off 16 bytes; nothing copied */
static cudaError_t
table_refusals (const CcPatch * patches, int n, CcBorder border,
    CcPatchWide wide, unsigned char *table, size_t bytes, char *why,
    size_t why_size)
{
  struct {
    void *table;
    size_t bytes;
    const char *what;
  } bad[] = { {NULL, bytes, "no table"}, {table, bytes - 1, "a table a byte "
        "short"}, {table + 1, bytes, "a table off 16 bytes"}
  };
  for (size_t k = 0; k < sizeof (bad) / sizeof (bad[0]); k++)
    if (cc_cuda_copy_patch_table (patches, n, border, wide, bad[k].table,
            bad[k].bytes, 0) != cudaErrorInvalidValue) {
      snprintf (why, why_size, "%s was taken", bad[k].what);
      return cudaErrorUnknown;
    }
  return cudaSuccess;
}

/* cc_cuda_copy_patches and cc_cuda_copy_patch_table against
 * patch_reference: random patches of 8- and 16-bit samples, side by side
 * or interleaved, at every byte alignment, from 1 to 300 samples wide,
 * reaching past every edge of their source under every border, between
 * device memory and mapped host memory both ways, either side wide, 1 to
 * 24 of them a launch (the two smaller rooms of the launch's parameters)
 * and now and then 320, or every third round from a table, 1,000 now and
 * then; the bytes around the patches poisoned and kept. */
static void
test_patches (RefRng * rng)
{
  enum { SRC_W = 331, SRC_H = 67, DST_PITCH = 1024,
    DST_ROWS = 4 * CC_MAX_PATCHES, TABLE_MANY = 1000
  };
  for (int round = 0; round < 144; round++) {
    const int from_table = round % 3 == 2;
    /* a launch's worth of patches now and then */
    const int max_n = round % 8 == 7 ? (from_table ? TABLE_MANY :
        CC_MAX_PATCHES) : 24;
    const int bytes = 1 + round % 2, stride = 1 + (round / 2) % 2;
    const int src_host = (round / 4) % 2, dst_host = (round / 8) % 2;
    const CcPatchWide wide = (CcPatchWide) ((round / 16) % 2);
    const RefBorder border = (RefBorder) ((round / 32 + round) % 4);
    const size_t src_pitch = (size_t) (SRC_W * stride + round % 7) * bytes;
    const size_t src_bytes = src_pitch * SRC_H;
    const size_t dst_bytes = (size_t) DST_PITCH * DST_ROWS;
    const int band = DST_ROWS / max_n;
    CcPatch *patches = malloc (TABLE_MANY * sizeof (CcPatch));
    unsigned char *table = NULL;
    size_t table_bytes = 0;
    char why[120] = "";
    PatchPlane src, dst;
    unsigned char *want = malloc (dst_bytes), *got = malloc (dst_bytes);
    unsigned char *fill = malloc (src_bytes);
    const int n = round % 8 == 7 ? max_n :
        1 + (int) (ref_rng_u32 (rng) % max_n);
    char what[200];
    cudaError_t e;

    n_cases++;
    if (!patch_plane_alloc (&src, src_bytes, src_host)) {
      n_failed++;
      printf ("FAIL patches: no memory\n");
      free (want);
      free (got);
      free (fill);
      free (patches);
      return;
    }
    if (!patch_plane_alloc (&dst, dst_bytes, dst_host)) {
      n_failed++;
      printf ("FAIL patches: no memory\n");
      patch_plane_free (&src);
      free (want);
      free (got);
      free (fill);
      free (patches);
      return;
    }
    for (size_t i = 0; i < src_bytes; i++)
      fill[i] = (unsigned char) ref_rng_u32 (rng);
    memset (want, POISON, dst_bytes);
    e = cudaMemcpy (src.data, fill, src_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
      e = cudaMemcpy (dst.data, want, dst_bytes, cudaMemcpyHostToDevice);
    for (int k = 0; k < n; k++) {
      CcPatch *p = &patches[k];
      /* each patch its own band of dst's rows, starting at any byte */
      const int max_w = (DST_PITCH - 32) / (2 * bytes);
      memset (p, 0, sizeof (*p));
      p->src.data = src.data;
      p->src.pitch = src_pitch;
      p->src.width = SRC_W;
      p->src.height = SRC_H;
      p->src.pixel_stride = stride;
      p->src.sample = bytes == 1 ? CC_SAMPLE_U8 : CC_SAMPLE_U16;
      p->width = 1 + (int) (ref_rng_u32 (rng) % (ref_rng_u32 (rng) % 2 ?
              300 : 20));
      p->width = p->width < max_w ? p->width : max_w;
      p->height = 1 + (int) (ref_rng_u32 (rng) % band);
      /* from well left of and above the source to well past it */
      p->x = (int) (ref_rng_u32 (rng) % (SRC_W + 80)) - 40;
      p->y = (int) (ref_rng_u32 (rng) % (SRC_H + 20)) - 10;
      p->dst = p->src;
      p->dst.data = dst.data + (size_t) k * band * DST_PITCH
          + ref_rng_u32 (rng) % 16 * bytes;
      p->dst.pitch = DST_PITCH;
      p->dst.pixel_stride = ref_rng_u32 (rng) % 4 ? stride : 3 - stride;
    }
    patch_reference (patches, n, fill, src.data, want, dst.data, border);
    if (from_table) {
      table_bytes = cc_cuda_patch_table_bytes (patches, n);
      if (e == cudaSuccess)
        e = table_bytes ? cudaHostAlloc ((void **) &table, table_bytes,
            cudaHostAllocDefault) : cudaErrorUnknown;
      if (e == cudaSuccess)
        e = table_refusals (patches, n, (CcBorder) border, wide, table,
            table_bytes, why, sizeof (why));
      if (e == cudaSuccess)
        e = cc_cuda_copy_patch_table (patches, n, (CcBorder) border, wide,
            table, table_bytes, 0);
    } else if (e == cudaSuccess) {
      e = cc_cuda_copy_patches (patches, n, (CcBorder) border, wide, 0);
    }
    if (e == cudaSuccess)
      e = cudaDeviceSynchronize ();
    if (e == cudaSuccess)
      e = cudaMemcpy (got, dst.data, dst_bytes, cudaMemcpyDeviceToHost);
    snprintf (what, sizeof (what), "patches round %d: %d of %d-bit%s, "
        "pixel stride %d, %s to %s, %s wide, %s border", round, n, 8 * bytes,
        from_table ? " from a table" : "", stride, src_host ? "host" :
        "device", dst_host ? "host" : "device", wide == CC_PATCH_WIDE_SRC ?
        "source" : "destination", border_names[border]);
    if (e != cudaSuccess) {
      n_failed++;
      printf ("FAIL %s: %s%s%s\n", what, cudaGetErrorString (e),
          why[0] ? ": " : "", why);
    } else {
      size_t at = 0;
      while (at < dst_bytes && got[at] == want[at])
        at++;
      if (at < dst_bytes) {
        n_failed++;
        printf ("FAIL %s: byte %zu (row %zu, column %zu) is 0x%02x, "
            "expected 0x%02x\n", what, at, at / DST_PITCH, at % DST_PITCH,
            got[at], want[at]);
      } else if (verbose) {
        printf ("ok %s\n", what);
      }
    }
    patch_plane_free (&src);
    patch_plane_free (&dst);
    cudaFreeHost (table);
    free (want);
    free (got);
    free (fill);
    free (patches);
  }
}
#endif

#ifndef KERNELS_CUDA
/* cc_cpu_convolve_batch against cc_cpu_convolve one convolution at a
 * time, bit for bit: windows from 1x1 to 300x70 (odd, shorter than a
 * band, taller than wide), 8- and 16-bit, 2D and separable taps of radius
 * 0 to 7 and a box and two wide gaussians among them (shapes that run
 * apart, the wide ones batched together), every border,
 * with the CPU pool's sizing off and on; and a batch holding one invalid
 * convolution runs none of them. */
static void
test_cpu_batch (RefRng * rng)
{
  enum { N = 8 };
  static const int sizes[N][2] = { {1, 1}, {300, 70}, {17, 5}, {64, 9},
  {3, 200}, {129, 33}, {40, 40}, {255, 3}
  };
  Image a[N], b[N];
  Filters filters[N];
  CcComponent src[N], dst_a[N], dst_b[N];
  const CcFilter *batch_filters[N];

  for (int k = 0; k < N; k++) {
    const int bytes = 1 + k % 2, side = 2 * (k % 4) + 1;
    const double max = bytes == 1 ? 255.0 : 65535.0;
    image_init (&a[k], rng, sizes[k][0], sizes[k][1], bytes, 1, 0,
        (RowLayout) (k % 3));
    image_init (&b[k], rng, sizes[k][0], sizes[k][1], bytes, 1, 0,
        (RowLayout) (k % 3));
    memcpy (b[k].in, a[k].in, a[k].pitch * a[k].height);
    (k % 2 ? separable_filters : random_filters) (rng, side, k % 3 == 0, max,
        &filters[k]);
    if (k == 5) {
      /* a box: it runs after the taps, on its own */
      memset (&filters[k].f, 0, sizeof (filters[k].f));
      filters[k].f.shape = CC_SHAPE_BOX;
      filters[k].f.radius = 3;
      filters[k].f.response = CC_RESPONSE_LINEAR;
      filters[k].f.scale = 1.0 / 49.0;
    }
    if (k >= 6) {
      /* wide factors: r17 on 40x40, r40 on 255x3 (rows shorter than the
       * radius), batched with each other */
      const int r = k == 6 ? 17 : 40;
      memset (&filters[k].f, 0, sizeof (filters[k].f));
      filters[k].f.shape = CC_SHAPE_WIDE;
      filters[k].f.radius = r;
      filters[k].f.response = CC_RESPONSE_LINEAR;
      filters[k].f.centre = 0.25f;
      for (int i = 0; i <= 2 * r; i++) {
        filters[k].f.col_taps[i] = 0.75f / (2 * r + 1);
        filters[k].f.row_taps[i] = (float) (1.0 + 0.01 * i) / (2 * r + 1);
      }
    }
    src[k] = channel_of (&a[k], a[k].in);
    dst_a[k] = channel_of (&a[k], a[k].out);
    dst_b[k] = channel_of (&b[k], b[k].out);
    batch_filters[k] = &filters[k].f;
  }
  for (int sized = 0; sized < 2; sized++)
    for (int border = 0; border < 4; border++) {
      char what[120];
      int rc, differ = -1;

      cc_cpu_pool_size_by_work (sized);
      for (int k = 0; k < N; k++) {
        memset (a[k].out, POISON, a[k].pitch * a[k].height);
        memset (b[k].out, POISON, b[k].pitch * b[k].height);
      }
      rc = cc_cpu_convolve_batch (src, dst_a, batch_filters, N,
          (CcBorder) border, 16);
      for (int k = 0; k < N && rc == 0; k++)
        rc = cc_cpu_convolve (&src[k], &dst_b[k], &filters[k].f,
            (CcBorder) border, 16);
      for (int k = 0; k < N && differ < 0; k++)
        if (memcmp (a[k].out, b[k].out, a[k].pitch * a[k].height) != 0)
          differ = k;
      snprintf (what, sizeof (what), "CPU batch of %d, %s border, pool "
          "sized %s", N, border_names[border], sized ? "by work" : "to all");
      n_cases++;
      if (rc != 0 || differ >= 0) {
        n_failed++;
        printf ("FAIL %s: %s%d\n", what, rc ? "error " : "differs at "
            "convolution ", rc ? rc : differ);
      } else if (verbose) {
        printf ("ok %s\n", what);
      }
    }
  cc_cpu_pool_size_by_work (0);

  /* one invalid convolution (a radius past the taps' largest): none runs */
  {
    CcFilter bad = filters[2].f;
    int untouched = 1;
    bad.radius = CC_MAX_RADIUS + 1;
    batch_filters[N - 1] = &bad;
    for (int k = 0; k < N; k++)
      memset (a[k].out, POISON, a[k].pitch * a[k].height);
    n_cases++;
    for (int k = 0; k < N; k++)
      for (size_t i = 0; i < a[k].pitch * a[k].height; i++)
        untouched &= a[k].out[i] == POISON;
    if (cc_cpu_convolve_batch (src, dst_a, batch_filters, N, CC_BORDER_CLAMP,
            16) != EINVAL) {
      n_failed++;
      printf ("FAIL CPU batch with an invalid convolution: not EINVAL\n");
    }
    for (int k = 0; k < N; k++)
      for (size_t i = 0; i < a[k].pitch * a[k].height; i++)
        untouched &= a[k].out[i] == POISON;
    if (!untouched) {
      n_failed++;
      printf ("FAIL CPU batch with an invalid convolution wrote\n");
    }
  }
  for (int k = 0; k < N; k++) {
    image_clear (&a[k]);
    image_clear (&b[k]);
  }
}
#endif

void
run_topic (RefRng * rng)
{
#ifdef KERNELS_CUDA
  RUN (test_launch_order, rng);
  RUN (test_selector);
  RUN (test_patches, rng);
#else
  (void) rng;
#endif
  RUN (test_invalid_arguments);
#ifndef KERNELS_CUDA
  RUN (test_cpu_batch, rng);
#endif
}

/* cudaconv: the separable kernels side by side, for choosing between them
 * (SS_MAX_RADIUS, SS_MIN_SM_WARPS in kernels/cudaconv-separable-strip.cuh;
 * MS_MIN_RADIUS, MS_MIN_RADIUS_16 and ms_strip_steps() in
 * kernels/cudaconv-separable-mma-strip.cuh), and a check of the two
 * streaming kernels at strip shapes that test-kernels cannot reach.
 *
 *   build/tests/bench-separable-strip           check, then time
 *   build/tests/bench-separable-strip --check   check only (the meson test
 *                                                separable-strips)
 *
 * Calls the kernels directly, whatever cc_cuda_convolve would pick, on the
 * gaussian of each radius (sigma 0.3 (r - 1) + 0.8).
 *
 * Check: the FP32 streaming kernel (cudaconv-separable-strip.cuh) with the
 * chunks sep_strip_chunks() picks, and the tensor-core streaming kernel
 * (cudaconv-separable-mma-strip.cuh) at 1, 2 and 3 steps per strip (the
 * library picks more than one only for planes too large for test-kernels'
 * double-precision reference), at small sizes, 8- and 16-bit, every
 * border, against a double-precision 2D sum: within 1, and the poisoned
 * row padding untouched. Prints CHECK FAIL for a miss; exit 1 if any, 77
 * without a GPU.
 *
 * Time: border clamp, 8- and 16-bit 3840x2160 and 1920x1080 planes, CUDA
 * events around 10 back-to-back launches, median of 31 after 5 warm-up
 * launches, us per plane: the tile kernel the separable path takes
 * otherwise (tensor cores for 8-bit from r2, FP32 else); the FP32
 * streaming kernel (r <= SS_MAX_RADIUS) with the chunks picked and each
 * count from 1 up; the tensor-core streaming kernel (r >= 3) with the
 * steps picked and 1 to 4. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cudaconv-separable-strip.cuh"
#include "cudaconv-separable-mma-strip.cuh"
#include "cudaconv-separable.cuh"
#include "cudaconv-separable-fp32.cuh"

#define WARMUP 5
#define BATCH 10
#define SAMPLES 31

static int device_sm_count;
static int failures;

/* us per launch */
template < typename Launch > static float
median_us (Launch launch)
{
  cudaEvent_t start, stop;
  std::vector < float >t;
  cudaEventCreate (&start);
  cudaEventCreate (&stop);
  for (int i = 0; i < WARMUP; i++)
    launch ();
  for (int s = 0; s < SAMPLES; s++) {
    float ms;
    cudaEventRecord (start);
    for (int i = 0; i < BATCH; i++)
      launch ();
    cudaEventRecord (stop);
    cudaEventSynchronize (stop);
    cudaEventElapsedTime (&ms, start, stop);
    t.push_back (ms / BATCH);
  }
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  std::sort (t.begin (), t.end ());
  return t[t.size () / 2] * 1000.0f;
}

/* the benchmark's gaussian: sigma 0.3 (r - 1) + 0.8, sum 1 */
static void
gaussian (int r, float *f)
{
  const double sigma = 0.3 * (r - 1) + 0.8;
  double sum = 0.0;
  for (int j = -r; j <= r; j++)
    sum += f[j + r] = (float) exp (-j * j / (2 * sigma * sigma));
  for (int j = 0; j < 2 * r + 1; j++)
    f[j] = (float) (f[j] / sum);
}

/* A random plane and its output on the device; rows pitch bytes apart, a
 * multiple of 8 plus `extra` */
template < typename T > struct Plane {
  int w, h;
  size_t pitch, stride;
  std::vector < T > in, out;
  char *d_in = nullptr, *d_out = nullptr;
  ChannelArgs src, dst;

  Plane (int width, int height, int extra, unsigned seed)
  : w (width), h (height) {
    pitch = ((size_t) w * sizeof (T) + 7) / 8 * 8 + extra;
    stride = pitch / sizeof (T);
    in.resize (stride * h);
    out.resize (stride * h);
    srand (seed);
    for (auto & v:in)
      v = (T) (rand () & (sizeof (T) == 1 ? 0xFF : 0xFFFF));
    cudaMalloc (&d_in, pitch * h);
    cudaMalloc (&d_out, pitch * h);
    cudaMemcpy (d_in, in.data (), pitch * h, cudaMemcpyHostToDevice);
    /* whole 16-bit samples: nothing limits them */
    src = ChannelArgs { d_in, pitch, 1, w, h, ~0u, ~0u, false };
    dst = ChannelArgs { d_out, pitch, 1, w, h, ~0u, ~0u, false };
  }
  ~Plane () {
    cudaFree (d_in);
    cudaFree (d_out);
  }
};

/* The gaussian of radius R in filter slot 0, its taps in g */
template < int R > static void
upload_gaussian (float *g)
{
  static float slot[CC_SLOT_FLOATS];
  gaussian (R, g);
  for (int j = 0; j < 2 * R + 1; j++)
    slot[CC_SLOT_COL_TAPS + j] = slot[CC_SLOT_ROW_TAPS + j] = g[j];
  cudaMemcpyToSymbol (c_filters, slot, sizeof (slot));
}

/* Runs launch(border) on a poisoned output for every border and compares
 * with the double-precision 2D sum. */
template < typename T, int R, typename Launch > static void
check (Plane < T > &p, const float *g, const char *what, Launch launch)
{
  const T poison = (T) (sizeof (T) == 1 ? 0xA5 : 0xA5A5);
  for (int border = 0; border <= CC_BORDER_WRAP; border++) {
    cudaMemset (p.d_out, 0xA5, p.pitch * p.h);
    launch ((CcBorder) border);
    if (cudaDeviceSynchronize () != cudaSuccess) {
      printf ("CHECK FAIL %s %dx%d: launch failed: %s\n", what, p.w, p.h,
          cudaGetErrorString (cudaGetLastError ()));
      exit (1);
    }
    cudaMemcpy (p.out.data (), p.d_out, p.pitch * p.h,
        cudaMemcpyDeviceToHost);
    int bad = 0, stray = 0;
    double worst = 0.0;
    for (int y = 0; y < p.h; y++) {
      for (int x = 0; x < p.w; x++) {
        double sum = 0.0;
        for (int i = -R; i <= R; i++) {
          const int yy = cc_border_index (y + i, p.h, (CcBorder) border);
          for (int j = -R; j <= R; j++) {
            const int xx = cc_border_index (x + j, p.w, (CcBorder) border);
            if (yy >= 0 && xx >= 0)
              sum += (double) g[i + R] * g[j + R] * p.in[yy * p.stride + xx];
          }
        }
        const double d = fabs (sum - p.out[y * p.stride + x]);
        worst = std::max (worst, d);
        bad += d > 1.0;
      }
      for (size_t x = p.w; x < p.stride; x++)
        stray += p.out[y * p.stride + x] != poison;
    }
    if (bad || stray) {
      printf ("CHECK FAIL %s %dx%d %d-bit r%d border %d: %d off by more "
          "than 1 (worst %.2f), %d padding samples written\n", what, p.w,
          p.h, 8 * (int) sizeof (T), R, border, bad, worst, stray);
      failures++;
    }
  }
}

template < typename T, int R > static void
check_fp32_streaming (int w, int h)
{
  Plane < T > p (w, h, 0, R * 7 + w);
  float g[2 * CC_MAX_RADIUS + 1];
  upload_gaussian < R > (g);
  const int chunks = sep_strip_chunks < R > (w, h, device_sm_count);
  if (!chunks)
    return;
  check < T, R > (p, g, "fp32 streaming", [&](CcBorder border) {
        conv_separable_strip < T, R > <<<sep_strip_grid < R > (w, h, chunks),
            dim3 (SS_LANES, SS_WARPS)>>> (p.src, p.dst, 0, 0.0f, border,
            chunks);});
}

template < typename T, int R > static void
check_mma_streaming (int w, int h, int extra)
{
  Plane < T > p (w, h, extra, R * 5 + w);
  float g[2 * CC_MAX_RADIUS + 1];
  upload_gaussian < R > (g);
  for (int steps = 1; steps <= 3; steps++) {
    char what[64];
    snprintf (what, sizeof (what), "tensor streaming, %d steps", steps);
    check < T, R > (p, g, what, [&](CcBorder border) {
          conv_separable_mma_strip < T, R > <<<ms_strip_grid (w, h, steps),
              MS_LANES>>> (p.src, p.dst, 0, 0.0f, border, steps);});
  }
}

template < typename T, int R > static void
time_kernels (int w, int h)
{
  Plane < T > p (w, h, 0, R);
  float g[2 * CC_MAX_RADIUS + 1];
  upload_gaussian < R > (g);
  TileGrid tiles;
  tiles.columns = (w + NS_TILE_W - 1) / NS_TILE_W;
  tiles.count = tiles.columns * ((h + NS_TILE_H - 1) / NS_TILE_H);
  const dim3 block (NS_THREADS_X, NS_THREADS_Y);
  float tile_us;
  if constexpr (sizeof (T) == 1 && R >= 2) {
    cudaFuncSetAttribute (conv_separable < R >,
        cudaFuncAttributeMaxDynamicSharedMemorySize,
        (int) SepLayout < R >::BYTES);
    tile_us = median_us ([&] {
          conv_separable < R > <<<tiles.count, block,
              SepLayout < R >::BYTES>>> (p.src, p.dst, 0, 0.0f,
              CC_BORDER_CLAMP, tiles);});
  } else {
    cudaFuncSetAttribute (conv_separable_fp32 < T, R >,
        cudaFuncAttributeMaxDynamicSharedMemorySize,
        (int) SepFp32Layout < R >::BYTES);
    tile_us = median_us ([&] {
          conv_separable_fp32 < T, R > <<<tiles.count, block,
              SepFp32Layout < R >::BYTES>>> (p.src, p.dst, 0, 0.0f,
              CC_BORDER_CLAMP, tiles);});
  }
  printf ("%dx%d %2d-bit r%d: tile kernel %.2f", w, h, 8 * (int) sizeof (T),
      R, tile_us);
  if constexpr (R <= SS_MAX_RADIUS) {
    auto streaming =[&](int chunks) {
      conv_separable_strip < T, R > <<<sep_strip_grid < R > (w, h, chunks),
          dim3 (SS_LANES, SS_WARPS)>>> (p.src, p.dst, 0, 0.0f,
          CC_BORDER_CLAMP, chunks);
    };
    const int picked = sep_strip_chunks < R > (w, h, device_sm_count);
    printf (" | fp32 streaming (%d chunks) %.2f:", picked, median_us ([&] {
              streaming (picked);}));
    for (int c = 1; c <= ss_chunks < R > (); c++)
      printf (" c%d %.2f", c, median_us ([&] {
                streaming (c);}));
  }
  if constexpr (R >= MS_MIN_RADIUS && R <= MS_MAX_RADIUS) {
    auto tensor =[&](int steps) {
      conv_separable_mma_strip < T, R > <<<ms_strip_grid (w, h, steps),
          MS_LANES>>> (p.src, p.dst, 0, 0.0f, CC_BORDER_CLAMP, steps);
    };
    int blocks = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks,
        conv_separable_mma_strip < T, R >, MS_LANES, 0);
    const int picked = ms_strip_steps (w, h,
        (long long) blocks * device_sm_count);
    printf (" | tensor streaming (%d steps, %d resident) %.2f:", picked,
        blocks * device_sm_count, median_us ([&] {
              tensor (picked);}));
    for (int s = 1; s <= 4; s++)
      printf (" s%d %.2f", s, median_us ([&] {
                tensor (s);}));
  }
  printf ("\n");
}

template < int R > static void
time_both (int w, int h)
{
  time_kernels < uint8_t, R > (w, h);
  time_kernels < uint16_t, R > (w, h);
}

int
main (int argc, char **argv)
{
  const bool check_only = argc > 1 && strcmp (argv[1], "--check") == 0;
  int count = 0;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("no usable CUDA device\n");
    return 77;
  }
  cudaDeviceGetAttribute (&device_sm_count, cudaDevAttrMultiProcessorCount,
      0);
  printf ("%d SMs\n", device_sm_count);

  /* the FP32 streaming kernel: whole quads, a strip tall */
  static const int fp32_sizes[][2] = { {8, 40}, {120, 35}, {264, 43},
  {1032, 90}, {16, 64}
  };
  for (auto & s:fp32_sizes) {
    check_fp32_streaming < uint8_t, 1 > (s[0], s[1]);
    check_fp32_streaming < uint8_t, 2 > (s[0], s[1]);
    check_fp32_streaming < uint16_t, 3 > (s[0], s[1]);
    check_fp32_streaming < uint8_t, 4 > (s[0], s[1]);
  }
  /* the tensor-core streaming kernel: 1x1 and 8x40 (both sides in one
   * strip), 129x17 and 130x35 (a second strip 1 or 2 columns wide, the
   * plane's right edge inside a piece), 264x43 (the last strip 8 columns
   * wide), 1032x90 and 300x200 (several strips each way), 1000x300 with
   * rows 8 bytes longer than they need */
  static const int mma_sizes[][3] = { {1, 1, 0}, {8, 40, 0}, {129, 17, 0},
  {130, 35, 0}, {264, 43, 0}, {1032, 90, 0}, {300, 200, 0}, {1000, 300, 8}
  };
  for (auto & s:mma_sizes) {
    check_mma_streaming < uint8_t, 3 > (s[0], s[1], s[2]);
    check_mma_streaming < uint8_t, 7 > (s[0], s[1], s[2]);
    check_mma_streaming < uint8_t, 8 > (s[0], s[1], s[2]);
    check_mma_streaming < uint16_t, 5 > (s[0], s[1], s[2]);
    check_mma_streaming < uint16_t, 8 > (s[0], s[1], s[2]);
  }
  printf ("checks done: %d failed\n", failures);
  if (check_only)
    return failures ? 1 : 0;

  for (int big = 1; big >= 0; big--) {
    const int w = big ? 3840 : 1920, h = big ? 2160 : 1080;
    time_both < 1 > (w, h);
    time_both < 2 > (w, h);
    time_both < 3 > (w, h);
    time_both < 4 > (w, h);
    time_both < 5 > (w, h);
    time_both < 7 > (w, h);
    time_both < 8 > (w, h);
  }
  return failures ? 1 : 0;
}

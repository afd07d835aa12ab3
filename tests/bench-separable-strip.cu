/* cudaconv: the separable kernels side by side, for choosing between them
 * (SS_MAX_RADIUS, SS_MIN_SM_WARPS in kernels/cudaconv-separable-strip.cuh).
 *
 *   build/tests/bench-separable-strip      (GPU machine; built with CUDA)
 *
 * Calls the kernels directly, whatever cc_cuda_convolve would pick: the
 * streaming kernel (cudaconv-separable-strip.cuh) with the chunks per strip
 * sep_strip_chunks() picks and with each count from 1 up, against the tile
 * kernel the separable path takes otherwise (tensor cores for 8-bit from
 * r2, FP32 else), on the gaussian of each radius, border clamp, 8- and
 * 16-bit 3840x2160 and 1920x1080 planes: CUDA events around 10
 * back-to-back launches, median of 31 after 5 warm-up launches, us per
 * plane. First it checks the streaming kernel at a few small sizes and
 * every border against a double-precision 2D sum (within 1; a poisoned
 * output whose row padding must stay untouched) and prints CHECK FAIL for
 * any miss; tests/test-kernels.c is the real check. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cudaconv-separable-strip.cuh"
#include "cudaconv-separable.cuh"
#include "cudaconv-separable-fp32.cuh"

#define WARMUP 5
#define BATCH 10
#define SAMPLES 31

static int device_sm_count;

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

template < typename T, int R > static void
check_or_time (int w, int h, bool check)
{
  const T poison = (T) (sizeof (T) == 1 ? 0xA5 : 0xA5A5);
  const size_t pitch = ((size_t) w * sizeof (T) + 255) / 256 * 256;
  const size_t stride = pitch / sizeof (T);
  std::vector < T > in (stride * h), out (in.size ());
  srand (R * 7 + w);
  for (auto & v:in)
    v = (T) (rand () & (sizeof (T) == 1 ? 0xFF : 0xFFFF));
  char *d_in, *d_out;
  cudaMalloc (&d_in, pitch * h);
  cudaMalloc (&d_out, pitch * h);
  cudaMemcpy (d_in, in.data (), pitch * h, cudaMemcpyHostToDevice);

  static float slot[CC_SLOT_FLOATS];
  float g[2 * SS_MAX_RADIUS + 32];
  gaussian (R, g);
  for (int j = 0; j < 2 * R + 1; j++)
    slot[CC_SLOT_COL_TAPS + j] = slot[CC_SLOT_ROW_TAPS + j] = g[j];
  cudaMemcpyToSymbol (c_filters, slot, sizeof (slot));

  ChannelArgs a = { d_in, pitch, 1, w, h }, b = { d_out, pitch, 1, w, h };
  const int picked = sep_strip_chunks < R > (w, h, device_sm_count);
  auto streaming =[&](int chunks, CcBorder border) {
    conv_separable_strip < T, R > <<<sep_strip_grid < R > (w, h, chunks),
        dim3 (SS_LANES, SS_WARPS)>>> (a, b, 0, 0.0f, border, chunks);
  };

  if (check) {
    if (!picked)
      printf ("%dx%d r%d: too short for a strip\n", w, h, R);
    for (int border = 0; picked && border <= CC_BORDER_WRAP; border++) {
      cudaMemset (d_out, 0xA5, pitch * h);
      streaming (picked, (CcBorder) border);
      if (cudaDeviceSynchronize () != cudaSuccess) {
        printf ("launch failed: %s\n", cudaGetErrorString (cudaGetLastError ()));
        exit (1);
      }
      cudaMemcpy (out.data (), d_out, pitch * h, cudaMemcpyDeviceToHost);
      int bad = 0, stray = 0;
      double worst = 0.0;
      for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
          double sum = 0.0;
          for (int i = -R; i <= R; i++) {
            const int yy = cc_border_index (y + i, h, (CcBorder) border);
            for (int j = -R; j <= R; j++) {
              const int xx = cc_border_index (x + j, w, (CcBorder) border);
              if (yy >= 0 && xx >= 0)
                sum += (double) g[i + R] * g[j + R] * in[yy * stride + xx];
            }
          }
          const double d = fabs (sum - out[y * stride + x]);
          worst = std::max (worst, d);
          bad += d > 1.0;
        }
        for (size_t x = w; x < stride; x++)
          stray += out[y * stride + x] != poison;
      }
      if (bad || stray)
        printf ("CHECK FAIL %dx%d %d-bit r%d border %d chunks %d: %d off by "
            "more than 1 (worst %.2f), %d padding samples written\n", w, h,
            8 * (int) sizeof (T), R, border, picked, bad, worst, stray);
    }
  } else {
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
                SepLayout < R >::BYTES>>> (a, b, 0, 0.0f, CC_BORDER_CLAMP,
                tiles);});
    } else {
      cudaFuncSetAttribute (conv_separable_fp32 < T, R >,
          cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int) SepFp32Layout < R >::BYTES);
      tile_us = median_us ([&] {
            conv_separable_fp32 < T, R > <<<tiles.count, block,
                SepFp32Layout < R >::BYTES>>> (a, b, 0, 0.0f,
                CC_BORDER_CLAMP, tiles);});
    }
    printf ("%dx%d %2d-bit r%d: tile kernel %.2f  streaming (%d chunks) "
        "%.2f |", w, h, 8 * (int) sizeof (T), R, tile_us, picked,
        median_us ([&] {
              streaming (picked, CC_BORDER_CLAMP);}));
    for (int c = 1; c <= ss_chunks < R > (); c++)
      printf (" c%d %.2f", c, median_us ([&] {
                streaming (c, CC_BORDER_CLAMP);}));
    printf ("\n");
  }
  cudaFree (d_in);
  cudaFree (d_out);
}

template < int R > static void
time_both (int w, int h)
{
  check_or_time < uint8_t, R > (w, h, false);
  check_or_time < uint16_t, R > (w, h, false);
}

int
main (void)
{
  int count = 0;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("no usable CUDA device\n");
    return 77;
  }
  cudaDeviceGetAttribute (&device_sm_count, cudaDevAttrMultiProcessorCount,
      0);
  printf ("%d SMs, SS_MIN_SM_WARPS %d\n", device_sm_count, SS_MIN_SM_WARPS);

  static const int sizes[][2] = { {8, 40}, {120, 35}, {264, 43}, {1032, 90},
  {16, 64}, {1920, 1080}
  };
  for (auto & s:sizes) {
    check_or_time < uint8_t, 1 > (s[0], s[1], true);
    check_or_time < uint8_t, 2 > (s[0], s[1], true);
    check_or_time < uint16_t, 3 > (s[0], s[1], true);
    check_or_time < uint8_t, 4 > (s[0], s[1], true);
    check_or_time < uint8_t, 5 > (s[0], s[1], true);
    check_or_time < uint16_t, 5 > (s[0], s[1], true);
  }
  printf ("checks done\n");
  for (int big = 1; big >= 0; big--) {
    const int w = big ? 3840 : 1920, h = big ? 2160 : 1080;
    time_both < 1 > (w, h);
    time_both < 2 > (w, h);
    time_both < 3 > (w, h);
    time_both < 4 > (w, h);
    time_both < 5 > (w, h);
    time_both < 7 > (w, h);
  }
  return 0;
}

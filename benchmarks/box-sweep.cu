/* cudaconv-box-sweep: the box families' kernels timed on their own under
 * several policies (box-lines.cuh's BoxLineTuning, box-running-sum.cuh's
 * BoxTuning and box-strip.cuh's BoxStripTuning, and variants of them), on one
 * plane of 8 and of 16 bits, against a cudaMemcpy2D plane copy: which design
 * and tiling fills the GPU best at each radius. Each variant's output is
 * checked against the box-running-sum family's (the sums are exact: equal
 * bytes). CUDA events, launches queued behind a busy kernel, median of RUNS
 * samples of BATCH launches. cudaconv-box-sweep [WIDTHxHEIGHT [RADIUS...]]
 * (default 3840x2160, radii 2 and 127) */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "box-lines.cuh"
#include "box-strip.cuh"
#include "box-running-sum.cuh"

#define RUNS 21
#define BATCH 10

template <int I, int L, int W, int B> struct Lines : BoxLineTuning {
  static constexpr int ITEMS = I;
  static constexpr int LINES = L;
  static constexpr int WARPS = W;
  static constexpr int BLOCKS = B;
};

/* box-lines' policy with its second pass launched only after the first
 * ends */
template <typename P> struct Independent : P {
  static constexpr bool DEPENDENT = false;
};

template <int A, int ROWS, int SM_WARPS> struct Strip : BoxStripTuning {
  static constexpr int AHEAD = A;
  static constexpr int MAX_ROWS = ROWS;
  static constexpr int MIN_SM_WARPS = SM_WARPS;
};

__global__ void
busy (long long cycles)
{
  const long long start = clock64 ();
  while (clock64 () - start < cycles) {
  }
}

struct Plane {
  int width, height, bytes;
  size_t pitch;
  char *in, *out, *ref;
  void *work;
};

static ComponentArgs
args_of (const Plane &p, char *data)
{
  const unsigned max = p.bytes == 1 ? 0xffu : 0xffffu;
  ComponentArgs a = { data, p.pitch, 1, p.width, p.height, max | max << 16,
    max | max << 16, false };
  return a;
}

static Launch
launch_of (const Plane &p, const CcFilter &f, char *out)
{
  Launch l = {};
  l.width = p.width;
  l.height = p.height;
  l.src = args_of (p, p.in);
  l.dst = args_of (p, out);
  l.sample = p.bytes == 1 ? CC_SAMPLE_U8 : CC_SAMPLE_U16;
  l.filter = &f;
  l.shift = 0;
  l.max_value = p.bytes == 1 ? 255u : 65535u;
  l.border = CC_BORDER_CLAMP;
  l.workspace = p.work;
  l.workspace_bytes = (size_t) 4 * p.width * p.height;
  return l;
}

/* median ms of one call of run (), queued behind a busy kernel */
template <typename Run> static double
time_ms (Run run)
{
  cudaEvent_t a, b;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  std::vector<float> t;
  for (int i = 0; i < 3; i++)
    run ();
  for (int i = 0; i < RUNS; i++) {
    busy<<<1, 1>>> (2000000);
    cudaEventRecord (a);
    for (int k = 0; k < BATCH; k++)
      run ();
    cudaEventRecord (b);
    cudaEventSynchronize (b);
    float ms = 0.0f;
    cudaEventElapsedTime (&ms, a, b);
    t.push_back (ms / BATCH);
  }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  std::sort (t.begin (), t.end ());
  return cudaGetLastError () == cudaSuccess ? t[RUNS / 2] : -1.0;
}

static bool
same_output (const Plane &p)
{
  const size_t n = p.pitch * p.height;
  std::vector<char> a (n), b (n);
  cudaMemcpy (a.data (), p.out, n, cudaMemcpyDeviceToHost);
  cudaMemcpy (b.data (), p.ref, n, cudaMemcpyDeviceToHost);
  return a == b;
}

/* One policy's rows, columns and both, as a row of the table */
template <typename P, typename T, typename H> static void
row (const char *name, Plane &p, const CcFilter &f, double copy_ms)
{
  const Launch l = launch_of (p, f, p.out);
  cudaMemset (p.out, 0, p.pitch * p.height);
  const double rows = time_ms ([&] { box_launch<P, T, H> (l, BOX_ROWS); });
  const double columns = time_ms (
      [&] { box_launch<P, T, H> (l, BOX_COLUMNS); });
  const double both = time_ms ([&] { box_launch<P, T, H> (l, BOX_BOTH); });
  printf ("  %-26s rows %8.4f  columns %8.4f  both %8.4f ms  %5.2fx copy"
          "  %s\n",
      name, rows, columns, both, both / copy_ms,
      same_output (p) ? "exact" : "DIFFERS");
}

/* One box-strip policy (one pass), as a row of the table */
template <typename P, typename T> static void
strip_row (const char *name, Plane &p, const CcFilter &f, double copy_ms)
{
  const Launch l = launch_of (p, f, p.out);
  cudaMemset (p.out, 0, p.pitch * p.height);
  const double both = time_ms ([&] { box_strip_launch<P, T> (l); });
  printf ("  %-26s one pass %8.4f ms  %5.2fx copy  %s\n", name, both,
      both / copy_ms, same_output (p) ? "exact" : "DIFFERS");
}

/* One box-lines policy's passes, both, and both with the scaling in
 * double, as a row of the table */
template <typename P, typename T, typename H> static void
lines_row (const char *name, Plane &p, const CcFilter &f, double copy_ms)
{
  const Launch l = launch_of (p, f, p.out);
  cudaMemset (p.out, 0, p.pitch * p.height);
  const double first = time_ms (
      [&] { box_lines_launch<P, T, H> (l, BOX_LINES_FIRST); });
  const double second = time_ms (
      [&] { box_lines_launch<P, T, H> (l, BOX_LINES_SECOND); });
  const double in_double = time_ms (
      [&] { box_lines_launch<P, T, H> (l, BOX_LINES_BOTH, false); });
  const bool same_in_double = same_output (p);
  cudaMemset (p.out, 0, p.pitch * p.height);
  const double both = time_ms ([&] { box_lines_launch<P, T, H> (l); });
  printf ("  %-26s rows %8.4f  columns %8.4f  both %8.4f ms  %5.2fx copy"
          "  %s; scaled in double %8.4f ms %s\n",
      name, first, second, both, both / copy_ms,
      same_output (p) ? "exact" : "DIFFERS", in_double,
      same_in_double ? "exact" : "DIFFERS");
}

template <typename T, typename H> static void
sweep (int width, int height, int radius)
{
  Plane p;
  p.width = width;
  p.height = height;
  p.bytes = sizeof (T);
  p.pitch = ((size_t) width * sizeof (T) + 255) / 256 * 256;
  const size_t n = p.pitch * height;
  cudaMalloc (&p.in, n);
  cudaMalloc (&p.out, n);
  cudaMalloc (&p.ref, n);
  cudaMalloc (&p.work, (size_t) 4 * width * height);
  std::vector<unsigned char> host (n);
  srand (radius);
  for (auto &c : host)
    c = (unsigned char) rand ();
  cudaMemcpy (p.in, host.data (), n, cudaMemcpyHostToDevice);

  CcFilter f;
  memset (&f, 0, sizeof (f));
  f.shape = CC_SHAPE_BOX;
  f.radius = radius;
  f.scale = 1.0 / ((2.0 * radius + 1) * (2.0 * radius + 1));
  box_launch<BoxTuning, T, H> (launch_of (p, f, p.ref));
  const double copy_ms = time_ms ([&] {
    cudaMemcpy2DAsync (p.out, p.pitch, p.in, p.pitch,
        (size_t) width * sizeof (T), height, cudaMemcpyDeviceToDevice);
  });
  printf ("%dx%d %d-bit, box r%d: plane copy %.4f ms\n", width, height,
      8 * (int) sizeof (T), radius, copy_ms);
  lines_row<BoxLineTuning, T, H> ("box-lines (BoxLineTuning)", p, f, copy_ms);
  lines_row<Independent<BoxLineTuning>, T, H> ("lines, not dependent", p, f,
      copy_ms);
  lines_row<Lines<16, 16, 8, 4>, T, H> ("lines, 8 warps", p, f, copy_ms);
  lines_row<Independent<Lines<16, 16, 8, 4> >, T, H> (
      "lines, 8 warps, not dependent", p, f, copy_ms);
  lines_row<Lines<16, 16, 8, 3>, T, H> ("lines, 3 blocks", p, f, copy_ms);
  lines_row<Lines<16, 32, 8, 2>, T, H> ("lines, 32 lines", p, f, copy_ms);
  row<BoxTuning, T, H> ("running sums (BoxTuning)", p, f, copy_ms);
  if (radius >= 1 && radius <= BOX_STRIP_MAX_RADIUS) {
    strip_row<BoxStripTuning, T> ("box-strip (BoxStripTuning)", p, f, copy_ms);
    strip_row<Strip<2, 64, 32>, T> ("strip, 2 rows ahead", p, f, copy_ms);
    strip_row<Strip<8, 64, 32>, T> ("strip, 8 rows ahead", p, f, copy_ms);
    strip_row<Strip<4, 64, 32>, T> ("strip, 32 warps an SM", p, f, copy_ms);
    strip_row<Strip<4, 64, 128>, T> ("strip, 128 warps an SM", p, f, copy_ms);
  }
  cudaFree (p.in);
  cudaFree (p.out);
  cudaFree (p.ref);
  cudaFree (p.work);
}

int
main (int argc, char **argv)
{
  int width = 3840, height = 2160, count = 0;
  std::vector<int> radii;
  for (int k = 2; k < argc; k++)
    radii.push_back (atoi (argv[k]));
  if (radii.empty ())
    radii = { 2, 127 };
  if ((argc > 1 && sscanf (argv[1], "%dx%d", &width, &height) != 2)
      || width <= 0 || height <= 0) {
    fprintf (stderr, "usage: %s [WIDTHxHEIGHT [RADIUS...]]\n", argv[0]);
    return 2;
  }
  for (int r : radii) {
    if (r < 0 || r > CC_MAX_WIDE_RADIUS) {
      fprintf (stderr, "radius %d: not 0 .. %d\n", r, CC_MAX_WIDE_RADIUS);
      return 2;
    }
  }
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP: no usable CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties (&prop, 0);
  printf ("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (int radius : radii) {
    sweep<uint8_t, uint16_t> (width, height, radius);
    sweep<uint16_t, uint32_t> (width, height, radius);
  }
  return 0;
}

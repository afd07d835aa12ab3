/* cudaconv: CC_SHAPE_BOX at wide radii in one pass over the plane, after
 * a short pass of band totals: exact integer sums, the column sums kept on
 * the chip, no walk whose length grows with the radius.
 *
 * The first kernel sums every band of BoxBandTuning::TOTAL_ROWS rows of
 * the plane per column (a thread a quad of columns and a band) into the
 * caller's workspace: a sixteenth of the plane's samples, as uint16_t for
 * 8-bit samples (16 * 255 < 2^16) and uint32_t else.
 * The second gives each block a strip of columns and a band of output
 * rows. Each thread holds the running column sums of one quad (4
 * consecutive columns) of a span of 4 * THREADS columns, the strip and r
 * more on each side: its sums start as the band totals that the window of
 * the band's first row holds and the rows at its ends that no total
 * covers (at most TOTAL_ROWS - 1 each side, and those outside the plane,
 * through the border), so that a band of any height starts after a few
 * dozen loads at any radius. Then for each output row the block makes the
 * span's exclusive prefix sums of the column sums in shared memory (each
 * thread's 4, a warp scan, the warps' totals), a thread writes the 4 box
 * sums of a quad of the strip as differences of two prefix sums each, and
 * the column sums take the row entering and give back the row leaving,
 * loaded BoxBandTuning::AHEAD rows early. The plane is read about twice
 * (the totals, then each row entering and leaving a band's window, mostly
 * from L2) and written once; the workspace is small.
 * Prefix sums wrap modulo 2^32 and their differences are exact, since
 * every box sum is below 2^32 ((2r+1)^2 * 65535 at r 127). The border maps
 * columns and rows on their own, so a quad outside the plane sums the
 * columns its border maps it to. */
#ifndef CUDACONV_BOX_BANDS_CUH
#define CUDACONV_BOX_BANDS_CUH

#include <algorithm>
#include <atomic>
#include <climits>

#include "box.cuh"

/* The family's tuning, the kernels' policy: box_bands_launch<P> runs them
 * with another (benchmarks/box-sweep.cu times several) */
struct BoxBandTuning {
  /* a block's threads, a quad of columns each: a span of 4 * THREADS
   * columns, of which 4 * THREADS - 2r - 3 (rounded down to quads) are
   * the strip it writes */
  static constexpr int THREADS = 256;
  /* rows a band total sums */
  static constexpr int TOTAL_ROWS = 16;
  /* rows loaded before they enter and leave the sums */
  static constexpr int AHEAD = 4;
  /* the fewest output rows a block walks; more where the plane gives more
   * blocks than the GPU holds at once, so that the grid is one wave */
  static constexpr int MIN_ROWS = 8;
  /* the radius from which the selector prefers the family: box-strip's
   * last is 8 */
  static constexpr int MIN_RADIUS = 9;
};

/* Where prefix sum j of the span lies in shared memory: a word of padding
 * after every 32, so that the lanes of a warp, reading words 4 apart, fall
 * on 32 different banks */
__host__ __device__ constexpr int
box_band_slot (int j)
{
  return j + (j >> 5);
}

/* 4 band totals of consecutive columns: 16-bit (8-bit samples) or 32-bit
 * sums, one vector */
template <typename T> struct BoxTotalQuad;
template <> struct BoxTotalQuad<uint8_t> {
  typedef uint16_t Total;
  typedef uint2 Word;
  __device__ __forceinline__ static unsigned get (const Word &w, int k)
  {
    return ((k < 2 ? w.x : w.y) >> (16 * (k & 1))) & 0xffffu;
  }
  __device__ __forceinline__ static Word make (const unsigned (&s)[4])
  {
    return make_uint2 (s[0] | s[1] << 16, s[2] | s[3] << 16);
  }
};
template <> struct BoxTotalQuad<uint16_t> {
  typedef uint32_t Total;
  typedef uint4 Word;
  __device__ __forceinline__ static unsigned get (const Word &w, int k)
  {
    return k == 0 ? w.x : k == 1 ? w.y : k == 2 ? w.z : w.w;
  }
  __device__ __forceinline__ static Word make (const unsigned (&s)[4])
  {
    return make_uint4 (s[0], s[1], s[2], s[3]);
  }
};

/* Both kernels' arguments */
struct BoxBandArgs {
  ComponentArgs src, dst;
  bool src_quads, dst_quads; /* rows move as quads */
  int shift;                 /* values are raw >> shift */
  unsigned max_value;
  CcBorder border;
  int radius;
  /* the band totals: groups rows (whole bands inside the plane) of pitch
   * bytes, a total per column and up to 3 unused after the last */
  char *totals;
  size_t totals_pitch;
  int groups;
  /* output columns a strip holds (quads), strips across the plane, output
   * rows a block walks */
  int strip, strips, rows;
  double scale, offset;
  CcBoxDivider divider;
};

/* The first kernel: thread i sums band i / quads over the columns of
 * quad i % quads */
/* clang-format off */
template <typename P, typename T>
__global__ void __launch_bounds__ (256)
box_band_totals (const __grid_constant__ BoxBandArgs a)
/* clang-format on */
{
  using Q = BoxTotalQuad<T>;
  static_assert (sizeof (T) > 1 || P::TOTAL_ROWS * 255 <= 0xffff,
      "a band's 8-bit total fits 16 bits");
  const int quads = (a.src.width + 3) / 4;
  const long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x;
  const int g = (int) (i / quads);
  if (g >= a.groups)
    return;
  const int qx = 4 * (int) (i - (long long) g * quads);
  const bool vec = a.src_quads && qx + 4 <= a.src.width;
  unsigned s[4] = {};
#pragma unroll
  for (int k = 0; k < P::TOTAL_ROWS; k++) {
    const int y = g * P::TOTAL_ROWS + k;
    BoxQuad<T> q;
    if (vec) {
      q.w = __ldg (reinterpret_cast<const typename BoxQuad<T>::Word *> (
          a.src.data + (size_t) y * a.src.pitch + (size_t) qx * sizeof (T)));
    } else {
      /* the plane's last quad, or packed pixels: the columns past the
       * plane sum nothing and are never read */
      const T *row = reinterpret_cast<const T *> (
          a.src.data + (size_t) y * a.src.pitch);
      unsigned raw[4] = {};
      for (int c = 0; c < 4 && qx + c < a.src.width; c++)
        raw[c] = __ldg (row + (size_t) (qx + c) * a.src.pixel_stride);
      q.set (raw);
    }
#pragma unroll
    for (int c = 0; c < 4; c++)
      s[c] += q.get (c) >> a.shift;
  }
  *reinterpret_cast<typename Q::Word *> (a.totals + (size_t) g * a.totals_pitch
      + (size_t) qx * sizeof (typename Q::Total)) = Q::make (s);
}

/* Adds row y of the plane (any row: the border maps it) at the quad's
 * columns to the sums c */
template <typename T> __device__ __forceinline__ void
box_band_add_row (unsigned (&c)[4], const BoxBandArgs &a, int qx, int y,
    bool vec)
{
  const BoxQuad<T> q = box_quad_load<T> (a.src, a.border, qx, y, vec);
#pragma unroll
  for (int k = 0; k < 4; k++)
    c[k] += q.get (k) >> a.shift;
}

/* Adds band total g (a band inside the plane) at the quad's columns, the
 * columns outside the plane through the border, to the sums c */
template <typename T> __device__ __forceinline__ void
box_band_add_total (unsigned (&c)[4], const BoxBandArgs &a, int qx, int g,
    bool vec)
{
  using Q = BoxTotalQuad<T>;
  const char *row = a.totals + (size_t) g * a.totals_pitch;
  if (vec) {
    const typename Q::Word w = __ldg (reinterpret_cast<const typename Q::Word *> (
        row + (size_t) qx * sizeof (typename Q::Total)));
#pragma unroll
    for (int k = 0; k < 4; k++)
      c[k] += Q::get (w, k);
    return;
  }
  const typename Q::Total *t = reinterpret_cast<const typename Q::Total *> (row);
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const int x = qx + k;
    const int bx = (unsigned) x < (unsigned) a.src.width ?
        x :
        cc_border_index (x, a.src.width, a.border);
    if (bx >= 0)
      c[k] += __ldg (t + bx);
  }
}

/* The column sums of rows [y0 - r, y0 + r] at the quad's columns: the
 * rows outside the plane through the border, whole bands from their
 * totals, the rows between one by one */
template <typename P, typename T> __device__ __forceinline__ void
box_band_start (unsigned (&c)[4], const BoxBandArgs &a, int qx, int y0,
    bool vec)
{
  constexpr int G = P::TOTAL_ROWS;
  const int h = a.src.height;
  const int first = y0 - a.radius, last = y0 + a.radius;
  for (int y = first; y <= min (last, -1); y++)
    box_band_add_row<T> (c, a, qx, y, vec);
  for (int y = max (first, h); y <= last; y++)
    box_band_add_row<T> (c, a, qx, y, vec);
  const int lo = max (first, 0), hi = min (last, h - 1);
  if (lo > hi)
    return;
  /* the bands [g0, g1) lie inside [lo, hi] */
  const int g0 = (lo + G - 1) / G, g1 = min ((hi + 1) / G, a.groups);
  const int head = g0 < g1 ? g0 * G : hi + 1;
#pragma unroll 4
  for (int y = lo; y < head; y++)
    box_band_add_row<T> (c, a, qx, y, vec);
  if (g0 >= g1)
    return;
#pragma unroll 4
  for (int g = g0; g < g1; g++)
    box_band_add_total<T> (c, a, qx, g, vec);
#pragma unroll 4
  for (int y = g1 * G; y <= hi; y++)
    box_band_add_row<T> (c, a, qx, y, vec);
}

/* A box sum as the value it stands for */
template <bool DIVIDE> __device__ __forceinline__ unsigned
box_band_scaled (unsigned sum, const BoxBandArgs &a)
{
  if constexpr (DIVIDE)
    return cc_box_divide (sum, a.divider);
  else
    return scale_exact (sum, a.scale, a.offset, a.max_value);
}

/* Output row y of the block's strip from the column sums c of every
 * thread's quad: the span's exclusive prefix sums into prefix, then the
 * quad at strip column 4t. Every thread of the block calls it. */
template <typename P, typename T, bool DIVIDE> __device__ __forceinline__ void
box_band_emit (const BoxBandArgs &a, const unsigned (&c)[4], unsigned *prefix,
    unsigned *warp_totals, int x0, int sx, int y)
{
  constexpr int WARPS = P::THREADS / 32, SPAN = 4 * P::THREADS;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const unsigned e1 = c[0], e2 = e1 + c[1], e3 = e2 + c[2], total = e3 + c[3];
  const unsigned before = warp_exclusive_sum (total, lane);
  if (lane == 31)
    warp_totals[warp] = before + total;
  __syncthreads ();
  unsigned base = before;
#pragma unroll
  for (int w = 0; w < WARPS - 1; w++)
    if (w < warp)
      base += warp_totals[w];
  prefix[box_band_slot (4 * t)] = base;
  prefix[box_band_slot (4 * t + 1)] = base + e1;
  prefix[box_band_slot (4 * t + 2)] = base + e2;
  prefix[box_band_slot (4 * t + 3)] = base + e3;
  if (t == P::THREADS - 1)
    prefix[box_band_slot (SPAN)] = base + total;
  __syncthreads ();

  const int ox = x0 + 4 * t;
  if (4 * t >= a.strip || ox >= a.dst.width)
    return;
  /* sum(x) = E(x + r + 1) - E(x - r), E indexed from sx */
  const int i = ox - sx;
  unsigned out[4];
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const unsigned sum = prefix[box_band_slot (i + k + a.radius + 1)]
        - prefix[box_band_slot (i + k - a.radius)];
    out[k] = box_band_scaled<DIVIDE> (sum, a) << a.shift;
  }
  T *row = reinterpret_cast<T *> (a.dst.data + (size_t) y * a.dst.pitch);
  if (a.dst_quads && ox + 4 <= a.dst.width) {
    BoxQuad<T> q;
    q.set (out);
    *reinterpret_cast<typename BoxQuad<T>::Word *> (row + ox) = q.w;
  } else {
    for (int k = 0; k < 4 && ox + k < a.dst.width; k++)
      row[(size_t) (ox + k) * a.dst.pixel_stride] = (T) out[k];
  }
}

/* The second kernel: block b takes strip b % strips of band b / strips.
 * Two barriers a row: a row's writes of the warps' totals come after every
 * thread passed the previous row's second barrier, its writes of the
 * prefix sums after every thread left the previous row's reads. */
/* clang-format off */
template <typename P, typename T, bool DIVIDE>
__global__ void __launch_bounds__ (P::THREADS)
box_bands (const __grid_constant__ BoxBandArgs a)
/* clang-format on */
{
  constexpr int SPAN = 4 * P::THREADS, A = P::AHEAD;
  constexpr int PREFIX = (box_band_slot (SPAN) + 4) / 4 * 4;
  __shared__ unsigned prefix[PREFIX];
  __shared__ unsigned warp_totals[P::THREADS / 32];
  const int band = blockIdx.x / a.strips;
  const int x0 = (blockIdx.x - band * a.strips) * a.strip;
  const int y0 = band * a.rows;
  const int y1 = min (y0 + a.rows, a.dst.height);
  /* the span's first column, on a quad; the mask rounds toward minus
   * infinity, negative columns included */
  const int sx = (x0 - a.radius) & -4;
  const int qx = sx + 4 * (int) threadIdx.x;
  const bool vec = a.src_quads && qx >= 0 && qx + 4 <= a.src.width;
  const int r = a.radius;

  unsigned c[4] = {};
  box_band_start<P, T> (c, a, qx, y0, vec);
  /* the rows entering and leaving at output rows y0 + i, i < A */
  BoxQuad<T> in[A], out[A];
#pragma unroll
  for (int i = 0; i < A; i++) {
    in[i] = box_quad_load<T> (a.src, a.border, qx, y0 + i + r + 1, vec);
    out[i] = box_quad_load<T> (a.src, a.border, qx, y0 + i - r, vec);
  }
  for (int y = y0; y < y1; y += A) {
#pragma unroll
    for (int i = 0; i < A; i++) {
      /* the same for every thread of the block */
      if (y + i >= y1)
        return;
      box_band_emit<P, T, DIVIDE> (a, c, prefix, warp_totals, x0, sx, y + i);
#pragma unroll
      for (int k = 0; k < 4; k++)
        c[k] += (in[i].get (k) >> a.shift) - (out[i].get (k) >> a.shift);
      const int next = y + i + A;
      if (next < y1) {
        in[i] = box_quad_load<T> (a.src, a.border, qx, next + r + 1, vec);
        out[i] = box_quad_load<T> (a.src, a.border, qx, next - r, vec);
      }
    }
  }
}

/* The band totals' row: a total per column, rounded up to a quad */
template <typename T> __host__ __device__ constexpr size_t
box_band_totals_pitch (int width)
{
  return (size_t) (width + 3) / 4 * 4 * sizeof (typename BoxTotalQuad<T>::Total);
}

/* The workspace of the band totals */
template <typename P, typename T> static size_t
box_bands_workspace_bytes (int width, int height)
{
  return (size_t) (height / P::TOTAL_ROWS) * box_band_totals_pitch<T> (width);
}

/* Blocks of kernel an SM holds (asked once per device and kernel) */
template <typename Kernel> static int
box_bands_resident (Kernel kernel, int threads)
{
  static std::atomic<int> known[CC_CUDA_MAX_DEVICES];
  return per_device (known, [&] (int) {
    int blocks = 0;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, kernel,
               threads, 0)
            == cudaSuccess ?
        blocks :
        0;
  });
}

/* The family's two kernels with policy P on l's plane, T the sample type */
template <typename P, typename T, bool DIVIDE> static cudaError_t
box_bands_run (BoxBandArgs a, const Launch &l)
{
  const auto kernel = box_bands<P, T, DIVIDE>;
  const int quads = (l.width + 3) / 4;
  if (a.groups > 0) {
    const long long threads = (long long) quads * a.groups;
    const long long blocks = (threads + 255) / 256;
    if (blocks > INT_MAX)
      return cudaErrorInvalidValue;
    const cudaError_t err = launch_kernel (box_band_totals<P, T>,
        (unsigned) blocks, 256, 0, l.stream, false, a);
    if (err != cudaSuccess)
      return err;
  }
  /* as many bands as make the grid one wave of resident blocks, each at
   * least MIN_ROWS rows */
  const long long resident = (long long) box_bands_resident (kernel, P::THREADS)
      * device_sms ();
  const long long bands = std::max (1LL, resident / a.strips);
  a.rows = std::max ((long long) P::MIN_ROWS, (l.height + bands - 1) / bands);
  const long long blocks = (long long) a.strips
      * ((l.height + a.rows - 1) / a.rows);
  if (blocks > INT_MAX)
    return cudaErrorInvalidValue;
  return launch_kernel (kernel, (unsigned) blocks, P::THREADS, 0, l.stream,
      false, a);
}

/* The family's launch with policy P, T the sample type; l's workspace
 * holds at least box_bands_workspace_bytes */
template <typename P, typename T> static cudaError_t
box_bands_launch (const Launch &l)
{
  const int r = l.radius ();
  BoxBandArgs a = {};
  a.src = l.src;
  a.dst = l.dst;
  a.src_quads = moves_as_quads<T> (l.src);
  a.dst_quads = moves_as_quads<T> (l.dst);
  a.shift = l.shift;
  a.max_value = l.max_value;
  a.border = l.border;
  a.radius = r;
  a.scale = l.filter->scale;
  a.offset = l.filter->offset;
  a.totals = static_cast<char *> (l.workspace);
  a.totals_pitch = box_band_totals_pitch<T> (l.width);
  a.groups = l.height / P::TOTAL_ROWS;
  if (a.groups > 0
      && (a.totals == nullptr
          || l.workspace_bytes
              < box_bands_workspace_bytes<P, T> (l.width, l.height)))
    return cudaErrorInvalidValue;
  a.strip = (4 * P::THREADS - 2 * r - 3) & -4;
  if (r < 0 || a.strip <= 0)
    return cudaErrorInvalidValue;
  a.strips = (l.width + a.strip - 1) / a.strip;
  /* 8-bit sums divide exactly in integers where the filter is a plain
   * mean (cc_box_divider) */
  if constexpr (sizeof (T) == 1) {
    if (cc_box_divider (r, a.scale, a.offset, &a.divider))
      return box_bands_run<P, T, true> (a, l);
  }
  return box_bands_run<P, T, false> (a, l);
}

#endif /* CUDACONV_BOX_BANDS_CUH */

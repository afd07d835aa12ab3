/* cudaconv: CC_SHAPE_BOX at small radii in one pass: exact integer sums
 * with no intermediate in memory.
 *
 * A warp takes a strip of columns and walks a band of rows down it. Each
 * lane holds one quad (4 consecutive samples) of every row: a ring of the
 * last 2r + 1 rows and BoxStripTuning::AHEAD rows loaded ahead, in
 * registers, and the running column sums of its 4 columns (the row
 * entering added, the row leaving taken off). A row's box sums are then
 * the lane's column sums and its neighbours' (HALO lanes either side, by
 * warp shuffles): the lanes at the strip's ends only lend their columns,
 * so a warp writes 4 (32 - 2 HALO) columns. Nothing goes through memory
 * but the plane and the output, each row of the plane read by the bands
 * that need it (the band's rows and r more on each side).
 * The two-pass families (box-running-sum, box-lines) move three times a
 * plane copy's bytes through their workspace; this one moves the plane's
 * bytes once each way. It stops at r8 (BOX_STRIP_MAX_RADIUS), where the
 * ring already holds 21 quads a lane, two lanes a side only lend their
 * columns, and on 1080p planes the running sums were faster
 * (BoxStripTuning::ALWAYS_RADIUS). */
#ifndef CUDACONV_BOX_STRIP_CUH
#define CUDACONV_BOX_STRIP_CUH

#include <climits>

#include "launch.cuh"
#include "radii.cuh"

/* The family's tuning, the kernel's policy: box_strip_launch<P> runs it
 * with another (benchmarks/box-sweep.cu times several) */
struct BoxStripTuning {
  static constexpr int WARPS = 4; /* warps a block */
  /* rows loaded before they enter the sums: loads in flight per warp */
  static constexpr int AHEAD = 4;
  /* output rows a warp walks: the most, halved while the plane gives
   * fewer than MIN_SM_WARPS warps an SM, down to the least. A warp's walk
   * is a serial chain, so more warps pay: 64 an SM against 32 took 3840x2160
   * 8-bit r2 from 0.0292 to 0.0248 ms (box-sweep, H100) */
  static constexpr int MAX_ROWS = 64;
  static constexpr int MIN_ROWS = 8;
  static constexpr int MIN_SM_WARPS = 64;
  /* the selector prefers the family up to this radius on every plane, and
   * up to its largest on planes that give MIN_SM_WARPS warps an SM at
   * MIN_ROWS rows: below that, each warp's walk starts over every 8 rows
   * with 2r + 1 rows, and box-running-sum was faster at r8 on 1920x1080
   * (0.0232 against 0.0267 ms; at 3840x2160 0.0464 against 0.0447) */
  static constexpr int ALWAYS_RADIUS = 4;
};

/* A warp's shape at radius R: the lanes either side that only lend their
 * columns, and the columns it writes */
template <int R> struct BoxStripShape {
  static constexpr int HALO = (R + 3) / 4;
  static constexpr int COLUMNS = 4 * (32 - 2 * HALO);
};

/* 4 consecutive raw samples of a row, as one word (8-bit) or two */
template <typename T> struct BoxQuad {
  typedef typename Quad<T>::type Word;
  Word w;
  /* raw sample k (0..3) */
  __device__ __forceinline__ unsigned get (int k) const
  {
    if constexpr (sizeof (T) == 1)
      return (w >> (8 * k)) & 0xffu;
    else
      return ((k < 2 ? w.x : w.y) >> (16 * (k & 1))) & 0xffffu;
  }
  __device__ __forceinline__ void set (const unsigned (&raw)[4])
  {
    if constexpr (sizeof (T) == 1)
      w = raw[0] | raw[1] << 8 | raw[2] << 16 | raw[3] << 24;
    else
      w = make_uint2 (raw[0] | raw[1] << 16, raw[2] | raw[3] << 16);
  }
};

/* The kernel's arguments */
struct BoxStripArgs {
  ComponentArgs src, dst;
  bool src_quads, dst_quads; /* rows move as quads */
  int shift;                 /* values are raw >> shift */
  unsigned max_value;
  CcBorder border;
  int strips, rows; /* warps across the plane; output rows a warp walks */
  double scale, offset;
  CcBoxDivider divider;
};

/* Columns [qx, qx + 4) of plane row y one sample at a time, through the
 * border (the plane's rim, packed pixels, rows not on quads); kept out of
 * line, so that the walk's unrolled rows stay small */
template <typename T> __device__ __noinline__ BoxQuad<T>
box_strip_load_samples (const BoxStripArgs &a, int qx, int y)
{
  const ComponentArgs &c = a.src;
  const int by = (unsigned) y < (unsigned) c.height ?
      y :
      cc_border_index (y, c.height, a.border);
  unsigned raw[4] = {};
  if (by >= 0) {
    const T *row = reinterpret_cast<const T *> (c.data + (size_t) by * c.pitch);
#pragma unroll
    for (int k = 0; k < 4; k++) {
      const int bx = (unsigned) (qx + k) < (unsigned) c.width ?
          qx + k :
          cc_border_index (qx + k, c.width, a.border);
      raw[k] = bx < 0 ? 0u : __ldg (row + (size_t) bx * c.pixel_stride);
    }
  }
  BoxQuad<T> q;
  q.set (raw);
  return q;
}

/* The lane's quad of plane row y: one vector load where the quad and the
 * row lie inside the plane (vec: the lane's columns do) */
template <typename T> __device__ __forceinline__ BoxQuad<T>
box_strip_load (const BoxStripArgs &a, int qx, int y, bool vec)
{
  if (vec && (unsigned) y < (unsigned) a.src.height) {
    BoxQuad<T> q;
    q.w = __ldg (reinterpret_cast<const typename BoxQuad<T>::Word *> (
        a.src.data + (size_t) y * a.src.pitch + (size_t) qx * sizeof (T)));
    return q;
  }
  return box_strip_load_samples<T> (a, qx, y);
}

/* A box sum as the value it stands for */
template <bool DIVIDE> __device__ __forceinline__ unsigned
box_strip_scaled (unsigned sum, const BoxStripArgs &a)
{
  if constexpr (DIVIDE)
    return cc_box_divide (sum, a.divider);
  else
    return scale_exact (sum, a.scale, a.offset, a.max_value);
}

/* Row y's outputs at the lane's columns [qx, qx + 4), from the column sums
 * v of the lane and of its HALO neighbours either side; every lane takes
 * part in the shuffles, the halo lanes write nothing */
template <typename T, int R, bool DIVIDE> __device__ __forceinline__ void
box_strip_emit (const BoxStripArgs &a, const unsigned (&v)[4], int lane, int qx,
    int y)
{
  constexpr int HALO = BoxStripShape<R>::HALO;
  constexpr int MID = 4 * HALO; /* the lane's first column in c */
  unsigned c[4 * (2 * HALO + 1)];
#pragma unroll
  for (int h = 0; h < 2 * HALO + 1; h++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      c[4 * h + k] = h == HALO ?
          v[k] :
          __shfl_sync (0xffffffffu, v[k], lane + h - HALO);
  if (lane < HALO || lane >= 32 - HALO || qx >= a.dst.width)
    return;
  unsigned out[4];
  unsigned s = 0;
#pragma unroll
  for (int d = -R; d <= R; d++)
    s += c[MID + d];
#pragma unroll
  for (int k = 0; k < 4; k++) {
    out[k] = box_strip_scaled<DIVIDE> (s, a) << a.shift;
    if (k < 3)
      s += c[MID + k + R + 1] - c[MID + k - R];
  }
  T *row = reinterpret_cast<T *> (a.dst.data + (size_t) y * a.dst.pitch);
  if (a.dst_quads && qx + 4 <= a.dst.width) {
    BoxQuad<T> q;
    q.set (out);
    *reinterpret_cast<typename BoxQuad<T>::Word *> (row + qx) = q.w;
  } else {
    for (int k = 0; k < 4 && qx + k < a.dst.width; k++)
      row[(size_t) (qx + k) * a.dst.pixel_stride] = (T) out[k];
  }
}

/* One warp a strip of BoxStripShape<R>::COLUMNS columns and a band of
 * a.rows rows: warp task t takes strip t % strips of band t / strips, so
 * that a block's warps share their halo quads in L1. The ring holds plane
 * rows y0 - R + i in slot i % RING; at output row y0 + t the sums hold
 * rows [t - R, t + R], slot t % RING leaves and slot (t + 2R + 1) % RING
 * enters, and the freed slot takes the row AHEAD rows past the last one
 * in the ring: the walk is unrolled by RING, so every slot is a register. */
/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename P, typename T, int R, bool DIVIDE>
__global__ void __launch_bounds__ (32 * P::WARPS)
box_strip (const __grid_constant__ BoxStripArgs a)
/* clang-format on */
{
  using S = BoxStripShape<R>;
  constexpr int RING = 2 * R + 1 + P::AHEAD;
  const int lane = threadIdx.x & 31;
  const int task = blockIdx.x * P::WARPS + (threadIdx.x >> 5);
  const int band = task / a.strips;
  const int x0 = (task - band * a.strips) * S::COLUMNS;
  const int y0 = band * a.rows;
  const int h = a.src.height;
  if (y0 >= h)
    return;
  const int y1 = min (y0 + a.rows, h);
  /* the last plane row the band's sums read */
  const int last = y1 - 1 + R;
  const int qx = x0 + 4 * (lane - S::HALO);
  const bool vec = a.src_quads && qx >= 0 && qx + 4 <= a.src.width;
  const int shift = a.shift;

  BoxQuad<T> ring[RING] = {};
  unsigned v[4] = {};
#pragma unroll
  for (int i = 0; i < RING; i++) {
    const int y = y0 - R + i;
    if (y <= last)
      ring[i] = box_strip_load<T> (a, qx, y, vec);
    if (i < 2 * R + 1)
#pragma unroll
      for (int k = 0; k < 4; k++)
        v[k] += ring[i].get (k) >> shift;
  }
  for (int t0 = 0;; t0 += RING) {
#pragma unroll
    for (int i = 0; i < RING; i++) {
      const int y = y0 + t0 + i;
      if (y >= y1)
        return;
      box_strip_emit<T, R, DIVIDE> (a, v, lane, qx, y);
      const BoxQuad<T> in = ring[(i + 2 * R + 1) % RING];
#pragma unroll
      for (int k = 0; k < 4; k++)
        v[k] += (in.get (k) >> shift) - (ring[i].get (k) >> shift);
      const int next = y - R + RING;
      if (next <= last)
        ring[i] = box_strip_load<T> (a, qx, next, vec);
    }
  }
}

/* Output rows a warp walks on a plane of strips strips and height rows:
 * the most that still gives P::MIN_SM_WARPS warps an SM, within the
 * policy's bounds */
template <typename P> static int
box_strip_rows (int strips, int height)
{
  const long long want = (long long) P::MIN_SM_WARPS * device_sms ();
  int rows = P::MAX_ROWS;
  while (rows > P::MIN_ROWS
      && (long long) strips * ((height + rows - 1) / rows) < want)
    rows /= 2;
  return rows;
}

/* Whether a plane cut into strips of columns columns and bands of
 * P::MIN_ROWS rows gives P::MIN_SM_WARPS warps an SM */
template <typename P> static bool
box_strip_fills (int width, int height, int columns)
{
  const long long strips = (width + columns - 1) / columns;
  return strips * ((height + P::MIN_ROWS - 1) / P::MIN_ROWS)
      >= (long long) P::MIN_SM_WARPS * device_sms ();
}

/* The family's launch with policy P, T the sample type */
template <typename P, typename T> static cudaError_t
box_strip_launch (const Launch &l)
{
  const int r = l.radius ();
  BoxStripArgs a = {};
  a.src = l.src;
  a.dst = l.dst;
  a.src_quads = moves_as_quads<T> (l.src);
  a.dst_quads = moves_as_quads<T> (l.dst);
  a.shift = l.shift;
  a.max_value = l.max_value;
  a.border = l.border;
  a.scale = l.filter->scale;
  a.offset = l.filter->offset;
  /* 8-bit sums divide exactly in integers where the filter is a plain
   * mean (cc_box_divider) */
  const bool divide = sizeof (T) == 1
      && cc_box_divider (r, a.scale, a.offset, &a.divider);
  return with_radius<1, BOX_STRIP_MAX_RADIUS> (r, cudaErrorInvalidValue,
      [&] (auto radius) {
        constexpr int R = decltype (radius)::value;
        a.strips = (l.width + BoxStripShape<R>::COLUMNS - 1)
            / BoxStripShape<R>::COLUMNS;
        a.rows = box_strip_rows<P> (a.strips, l.height);
        const long long warps = (long long) a.strips
            * ((l.height + a.rows - 1) / a.rows);
        const long long blocks = (warps + P::WARPS - 1) / P::WARPS;
        if (blocks > INT_MAX)
          return cudaErrorInvalidValue;
        if constexpr (sizeof (T) == 1) {
          if (divide)
            return launch_kernel (box_strip<P, T, R, true>, (unsigned) blocks,
                32 * P::WARPS, 0, l.stream, false, a);
        }
        return launch_kernel (box_strip<P, T, R, false>, (unsigned) blocks,
            32 * P::WARPS, 0, l.stream, false, a);
      });
}

#endif /* CUDACONV_BOX_STRIP_CUH */

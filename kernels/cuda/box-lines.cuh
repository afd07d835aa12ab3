/* cudaconv: CC_SHAPE_BOX as two line passes, each writing its lines
 * transposed: exact integer sums with no walk along a line at all, at a
 * cost that grows with the radius only through the windows' overlap
 * (each segment reads r more values on each side).
 *
 * A line pass gives each block BoxLineTuning::LINES consecutive lines of
 * its source and a segment of positions along them:
 *  - per line, each lane of a warp loads ITEMS consecutive values of the
 *    window (the segment and r more on each side, started on a multiple of
 *    ALIGN positions, the part outside the line through the border) as
 *    16-byte vectors where it lies inside, adds them up in registers, and
 *    a warp scan of the lanes' totals makes the window's exclusive prefix
 *    sums, which go to shared memory as 16-byte stores;
 *  - then each thread takes a position, works out its LINES sums as the
 *    differences of two prefix sums each, and stores them as one row of
 *    the transposed result: 16-byte vectors where the row allows.
 * (Resident blocks that took one group and segment after another, the
 * next one's loads in flight during the current one's stores, were 20%
 * to 40% slower: docs/kernels.md.)
 * The first pass reads the plane's rows and writes mid^T into the
 * caller's workspace (mid^T row x holds the row sums of column x:
 * uint16_t for 8-bit samples, as 255 * 255 < 2^16; uint32_t else); the
 * second reads mid^T's rows and writes the plane, each sum scaled exactly
 * (cc_box_divide where cc_box_divider applies, else scale_exact). Prefix
 * sums wrap modulo 2^32 and their differences are exact, since every box
 * sum is below 2^32 ((2r+1)^2 * 65535 at r 127). What separates the two
 * passes is the border: it maps columns and rows on their own, so the 2D
 * box is the column box of the row boxes under every policy. */
#ifndef CUDACONV_BOX_LINES_CUH
#define CUDACONV_BOX_LINES_CUH

#include <climits>
#include <type_traits>

#include "box.cuh"
#include "dependent-launch.cuh"

/* The family's tuning, the kernels' policy: box_lines_launch<P> runs them
 * with another (benchmarks/box-sweep.cu times several) */
struct BoxLineTuning {
  /* lines a block takes: a position's sums are one 16-byte store of 8-bit
   * samples, two of 16-bit sums */
  static constexpr int LINES = 16;
  static constexpr int WARPS = 16;
  /* window values a lane holds: the window is 32 * ITEMS positions */
  static constexpr int ITEMS = 16;
  /* windows start on multiples of ALIGN positions, so that a lane's
   * values are whole 16-byte vectors of every element type */
  static constexpr int ALIGN = 16;
  /* blocks an SM should hold (64 registers a thread) */
  static constexpr int BLOCKS = 2;
  /* the radii from which the selector prefers the family to
   * box-running-sum, whose column pass grows with the radius where these
   * passes hardly do: measured crossings (box-sweep, H100, 3840x2160 and
   * 1920x1080) near r24 on 8-bit planes and r100 at 4K on 16-bit ones,
   * whose transposed sums take twice the bytes */
  static constexpr int MIN_RADIUS_8 = 24;
  static constexpr int MIN_RADIUS_16 = 96;
  /* the second pass starts before the first ends (dependent-launch.cuh),
   * its blocks waiting on the SMs through the first's last wave */
  static constexpr bool DEPENDENT = true;
};

/* Where prefix sum j of a line lies in its shared row: 4 words of padding
 * after every 32, so that the 16-byte stores of 8 lanes 16 words apart
 * fall on 32 different banks */
__host__ __device__ constexpr int
box_line_slot (int j)
{
  return j + 4 * (j >> 5);
}

/* A line's row in shared memory: the window's WINDOW + 1 exclusive prefix
 * sums, on 16 bytes */
template <typename P> __host__ __device__ constexpr int
box_line_stride ()
{
  return (box_line_slot (32 * P::ITEMS) + 4) / 4 * 4;
}

template <typename P> constexpr size_t
box_lines_shared_bytes ()
{
  return sizeof (unsigned) * P::LINES * box_line_stride<P> ();
}

/* One pass's arguments. Lines are src's rows, positions its columns; the
 * sums of line l at position p go to dst's row p, column l. */
struct BoxLineArgs {
  ComponentArgs src, dst;
  bool src_vectors, dst_vectors; /* rows move as 16-byte vectors */
  int shift_in, shift_out;       /* values are raw >> shift_in */
  int radius, segment, segments;
  CcBorder border;
  /* the second pass's scaling */
  double scale, offset;
  unsigned max_value;
  CcBoxDivider divider;
};

/* A box sum of the second pass as the value it stands for */
template <bool DIVIDE> __device__ __forceinline__ unsigned
box_line_scaled (unsigned sum, const BoxLineArgs &a)
{
  if constexpr (DIVIDE)
    return cc_box_divide (sum, a.divider);
  else
    return scale_exact (sum, a.scale, a.offset, a.max_value);
}

/* What a pass stores of a box sum: the first pass the sum, the second
 * the value it stands for, shifted into a raw sample */
template <bool SECOND, bool DIVIDE> __device__ __forceinline__ unsigned
box_line_value (unsigned sum, const BoxLineArgs &a)
{
  return SECOND ? box_line_scaled<DIVIDE> (sum, a) << a.shift_out : sum;
}

/* The LINES sums of position p, lines line0 on, read off the block's
 * prefix sums at slots high and low, to dst's row p: the first pass's as
 * they are, the second's scaled and shifted into raw samples; packed as
 * they come into whole 16-byte vectors where every line is there and the
 * row allows */
template <typename P, typename Out, bool SECOND, bool DIVIDE>
__device__ __forceinline__ void
box_line_store (const BoxLineArgs &a, const unsigned *sums, int high, int low,
    int line0, int p)
{
  constexpr int L = P::LINES, STRIDE = box_line_stride<P> ();
  constexpr int PER_WORD = 4 / sizeof (Out);
  const int lines = a.src.height;
  Out *row = reinterpret_cast<Out *> (a.dst.data + (size_t) p * a.dst.pitch);
  if (line0 + L <= lines && a.dst_vectors) {
    static_assert ((L * sizeof (Out)) % 16 == 0, "whole vectors");
    unsigned words[L / PER_WORD];
#pragma unroll
    for (int k = 0; k < L; k++) {
      const unsigned sum = sums[k * STRIDE + high] - sums[k * STRIDE + low];
      const unsigned v = box_line_value<SECOND, DIVIDE> (sum, a);
      if (k % PER_WORD == 0)
        words[k / PER_WORD] = v;
      else
        words[k / PER_WORD] |= v << (8 * sizeof (Out) * (k % PER_WORD));
    }
    uint4 *out = reinterpret_cast<uint4 *> (row + line0);
#pragma unroll
    for (int q = 0; q < L / PER_WORD / 4; q++)
      out[q] = make_uint4 (words[4 * q], words[4 * q + 1], words[4 * q + 2],
          words[4 * q + 3]);
    return;
  }
  for (int k = 0; k < L && line0 + k < lines; k++) {
    const unsigned sum = sums[k * STRIDE + high] - sums[k * STRIDE + low];
    row[(size_t) (line0 + k) * a.dst.pixel_stride] =
        (Out) box_line_value<SECOND, DIVIDE> (sum, a);
  }
}

/* One line pass: In the values read (samples, or mid^T's sums), Out the
 * values written (mid^T's sums, or samples). The block takes line group
 * blockIdx.x / segments and segment blockIdx.x % segments of it. */
/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename P, typename In, typename Out, bool SECOND, bool DIVIDE>
__global__ void __launch_bounds__ (32 * P::WARPS, P::BLOCKS)
box_lines (const __grid_constant__ BoxLineArgs a)
/* clang-format on */
{
  constexpr int L = P::LINES, ITEMS = P::ITEMS, WINDOW = 32 * ITEMS;
  constexpr int STRIDE = box_line_stride<P> ();
  constexpr int PER_WARP = L / P::WARPS;
  static_assert (L % P::WARPS == 0 && ITEMS % 4 == 0,
      "whole lines a warp, whole quads a lane");
  extern __shared__ uint4 shared_vec[];
  unsigned *sums = reinterpret_cast<unsigned *> (shared_vec);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int group = blockIdx.x / a.segments;
  const int line0 = group * L;
  const int x0 = (blockIdx.x - group * a.segments) * a.segment;
  /* the mask rounds toward minus infinity, negative starts included */
  const int ws = (x0 - a.radius) & -P::ALIGN;

  /* the second pass, launched to start early, waits here for the first
   * to end; either pass then lets the kernel after it start */
  join_previous_grid ();
  /* every load of the warp's lines in flight before the first scan */
  unsigned v[PER_WARP][ITEMS];
#pragma unroll
  for (int m = 0; m < PER_WARP; m++) {
    const int line = line0 + warp + m * P::WARPS;
    if (line >= a.src.height)
      continue;
    if (a.src_vectors)
      box_load_window<In, true, ITEMS, ITEMS> (v[m], a.src, ws + lane * ITEMS,
          line, a.shift_in, a.border);
    else
      box_load_window<In, false, ITEMS, ITEMS> (v[m], a.src, ws + lane * ITEMS,
          line, a.shift_in, a.border);
  }
#pragma unroll
  for (int m = 0; m < PER_WARP; m++) {
    const int k = warp + m * P::WARPS;
    if (line0 + k >= a.src.height)
      break;
    /* exclusive prefix sums of the lane's values, then of the lanes */
    unsigned e[ITEMS];
    e[0] = 0;
#pragma unroll
    for (int i = 1; i < ITEMS; i++)
      e[i] = e[i - 1] + v[m][i - 1];
    const unsigned total = e[ITEMS - 1] + v[m][ITEMS - 1];
    const unsigned before = warp_exclusive_sum (total, lane);
    unsigned *s = sums + k * STRIDE;
#pragma unroll
    for (int i = 0; i < ITEMS; i += 4)
      *reinterpret_cast<uint4 *> (
          s + box_line_slot (lane * ITEMS + i)) = make_uint4 (before + e[i],
          before + e[i + 1], before + e[i + 2], before + e[i + 3]);
    if (lane == 31)
      s[box_line_slot (WINDOW)] = before + total;
  }
  __syncthreads ();

  /* sum(x) = E(x + r + 1) - E(x - r), E the window's exclusive prefix
   * sums indexed from ws; both lie in 0 .. WINDOW (the segment's choice) */
  const int end = min (x0 + a.segment, a.src.width);
  for (int x = x0 + (int) threadIdx.x; x < end; x += 32 * P::WARPS)
    box_line_store<P, Out, SECOND, DIVIDE> (a, sums,
        box_line_slot (x + a.radius + 1 - ws),
        box_line_slot (x - a.radius - ws), line0, x);
}

/* Which of the two passes box_lines_launch runs: both (the family), or one
 * on its own (benchmarks/box-sweep.cu times them apart) */
enum BoxLinePasses {
  BOX_LINES_FIRST = 1,
  BOX_LINES_SECOND = 2,
  BOX_LINES_BOTH = 3
};

/* A pass over a's lines with policy P */
template <typename P, typename In, typename Out, bool SECOND, bool DIVIDE>
static cudaError_t
box_lines_pass (BoxLineArgs a, cudaStream_t stream)
{
  const auto kernel = box_lines<P, In, Out, SECOND, DIVIDE>;
  constexpr size_t shared = box_lines_shared_bytes<P> ();
  /* the window holds the segment, r on each side and up to ALIGN - 1
   * positions before the first */
  a.segment = 32 * P::ITEMS - 2 * a.radius - (P::ALIGN - 1);
  if (a.segment <= 0)
    return cudaErrorInvalidValue;
  a.segments = (a.src.width + a.segment - 1) / a.segment;
  const long long blocks = (long long) a.segments
      * ((a.src.height + P::LINES - 1) / P::LINES);
  if (blocks > INT_MAX)
    return cudaErrorInvalidValue;
  cudaError_t err = allow_shared_bytes (kernel, shared);
  if (err != cudaSuccess)
    return err;
  return launch_kernel (kernel, (unsigned) blocks, 32 * P::WARPS, shared,
      stream, SECOND && P::DEPENDENT, a);
}

/* mid^T as a component: l.height positions a row, a row per column of
 * the plane */
template <typename H> static ComponentArgs
box_lines_mid (const Launch &l)
{
  const unsigned max = sizeof (H) == 2 ? 0xffffu : 0xffffffffu;
  ComponentArgs m = { static_cast<char *> (l.workspace),
    (size_t) l.height * sizeof (H), 1, l.height, l.width, max, max, false };
  return m;
}

/* The first pass from l.src into mid^T in l's workspace, then the second
 * from it into l.dst, with policy P; T the sample type, H the sums'.
 * divide false keeps the scaling in double (box-sweep.cu times both). */
template <typename P, typename T, typename H> static cudaError_t
box_lines_launch (const Launch &l, BoxLinePasses passes = BOX_LINES_BOTH,
    bool divide = true)
{
  const ComponentArgs mid = box_lines_mid<H> (l);
  const bool mid_vectors = moves_as_vectors<uint4> (mid);
  BoxLineArgs a = {};
  a.radius = l.radius ();
  a.border = l.border;
  if (passes & BOX_LINES_FIRST) {
    a.src = l.src;
    a.dst = mid;
    a.src_vectors = moves_as_vectors<uint4> (l.src);
    a.dst_vectors = mid_vectors;
    a.shift_in = l.shift;
    const cudaError_t err = box_lines_pass<P, T, H, false, false> (a, l.stream);
    if (err != cudaSuccess || !(passes & BOX_LINES_SECOND))
      return err;
  }
  a.src = mid;
  a.dst = l.dst;
  a.src_vectors = mid_vectors;
  a.dst_vectors = moves_as_vectors<uint4> (l.dst);
  a.shift_in = 0;
  a.shift_out = l.shift;
  /* the filter's offset in values, as the sums are */
  a.scale = l.filter->scale;
  a.offset = l.filter->offset;
  a.max_value = l.max_value;
  /* 8-bit sums divide exactly in integers where the filter is a plain
   * mean (cc_box_divider) */
  if (sizeof (T) == 1 && divide
      && cc_box_divider (a.radius, a.scale, a.offset, &a.divider))
    return box_lines_pass<P, H, T, true, true> (a, l.stream);
  return box_lines_pass<P, H, T, true, false> (a, l.stream);
}

#endif /* CUDACONV_BOX_LINES_CUH */

/* cudaconv: CC_SHAPE_WIDE filters from radius WIDE_MMA_MIN_RADIUS on, on
 * the tensor cores.
 *
 * Both factors run as banded (Toeplitz) matrix products on mma.sync
 * m16n8k16, as the r <= 15 families do, in one kernel used twice: a line
 * pass, which filters lines of a source along their positions and writes
 * the result transposed. The first pass takes the plane's rows (lines)
 * along x and writes mid^T, the rows of which are the plane's columns; the
 * second takes mid^T's rows along y and writes the plane. Each pass so
 * reads whole lines, which is what the band needs, and neither needs a
 * window 2r rows tall.
 *
 * A block takes LINES lines and POSITIONS consecutive outputs of each:
 *  1. the window (the outputs and r on either side, the border resolved)
 *     goes to shared memory as fp16 planes, every load of a thread in
 *     flight before the first is used;
 *  2. each warp computes WARP_POSITIONS outputs of the LINES lines as
 *     16 x 8 tiles C = A x B: A 16 lines by 16 window positions (ldmatrix
 *     from the window), B the 16 x 8 band B[k][n] = taps[k - n - lead],
 *     held in registers for the whole block. A tile 8 outputs further on
 *     needs the same band and the window 8 positions further on, so each
 *     16 x 16 block of the window that a warp loads feeds every tile it
 *     overlaps (up to TILES of them): STEPS + TILES - 1 loads for TILES x
 *     STEPS products;
 *  3. each phase's sums go through shared memory, so that a lane holds
 *     the LINES outputs of one position: the first pass scales them below
 *     fp16's largest and stores them in mid^T, the second adds the centre
 *     term and the offset and stores rounded samples, as 16-byte vectors
 *     where the rows allow.
 * How exact (WideMmaFormat): an 8-bit sample is exact in fp16, and the
 * band's taps and mid in one fp16 each carry a relative error of at most
 * 2^-11, which keeps a sum of 8-bit samples within 0.4 of the exact one
 * (the tests hold it within 1 of the reference): one product per step. 16-bit samples go as their two
 * bytes, the taps and mid as two fp16 halves each (mma.cuh): three
 * products per step, the rounding of an fp32 sum.
 * The number of 16-position steps a tile takes (STEPS) is compiled in
 * buckets; the taps past 2r are zero, so a bucket larger than the radius
 * needs only costs its extra steps. */
#ifndef CUDACONV_SEPARABLE_WIDE_MMA_CUH
#define CUDACONV_SEPARABLE_WIDE_MMA_CUH

#include <type_traits>

#include "device.cuh"
#include "mma.cuh"

/* The family's tuning */
struct WideMmaTuning {
  static constexpr int WARPS = 4;
  static constexpr int THREADS = 32 * WARPS;
  /* the selector takes the family where both passes have this many
   * blocks per SM: below, the FP32 family was faster (stacks of region
   * windows: 350x968 planes, 122 blocks on 132 SMs), and blocks of one
   * warp slower still */
  static constexpr int FILL_BLOCKS_PER_SM = 2;
  /* lines of a block: one tile's 16 rows */
  static constexpr int LINES = MMA_M;
  /* a warp's outputs of each line, in two phases of TILES tiles 16
   * positions apart (the second 8 positions on from the first) */
  static constexpr int TILES = 4;
  static constexpr int WARP_POSITIONS = 2 * TILES * MMA_N;
  static constexpr int POSITIONS = WARPS * WARP_POSITIONS;
  /* the largest bucket: 16 + 2 * 127 + 7 positions of window a tile reads
   * (lead below) */
  static constexpr int MAX_STEPS = 17;
  /* blocks an SM should hold, which caps the registers: 8-bit passes 6;
   * 16-bit ones 4, but for the second pass's largest buckets, whose two
   * bands need more registers than 4 blocks leave (ptxas spilled up to
   * 88 bytes) */
  __host__ __device__ static constexpr int min_blocks (int bytes, bool second,
      int steps)
  {
    return bytes == 1 ? 6 : second && steps >= 13 ? 3 : 4;
  }
  /* window positions of a line: what the last tile's last step reads; a
   * multiple of 8, and an odd one of them for STEPS odd, so that the 8
   * lines one ldmatrix reads fall in 8 different bank groups */
  __host__ __device__ static constexpr int window (int steps)
  {
    return POSITIONS - MMA_N + MMA_K * steps;
  }
  /* a pass's blocks over lines x positions */
  __host__ __device__ static constexpr long long blocks (int lines,
      int positions)
  {
    return (long long) ((lines + LINES - 1) / LINES)
        * ((positions + POSITIONS - 1) / POSITIONS);
  }
  /* a warp's outputs of one phase go out through shared memory, a row of
   * LINES per position: 4 floats more, so that the lanes' stores of a
   * tile and their 16-byte loads of a row hit different banks */
  static constexpr int OUT_ROWS = TILES * MMA_N;
  static constexpr int OUT_PITCH = LINES + 4;
  /* band pairs a lane may read: index 8 i + q + BAND_ZERO for i < 2 STEPS,
   * q = 2 (l % 4) - l / 4 - lead >= -14 */
  static constexpr int BAND_ZERO = 16;
  static constexpr int BAND_PAIRS = MMA_K * MAX_STEPS + BAND_ZERO;
};

/* What a sample type's passes hold: fp16 planes of the window (8-bit:
 * the samples, then mid; 16-bit: a sample's high byte times 256 and its
 * low byte, then mid's high and low halves), the band's halves, and
 * mid^T's element (8-bit: one fp16; 16-bit: a word of two, the high half
 * in the low 16 bits). */
template <typename T> struct WideMmaFormat {
  static constexpr bool SPLIT = sizeof (T) == 2;
  static constexpr int PLANES = SPLIT ? 2 : 1;
  static constexpr int BANDS = SPLIT ? 2 : 1;
  typedef typename std::conditional<SPLIT, unsigned, __half>::type Mid;
};

/* A factor as the band's fp16 pairs, scaled by 2^e: hi[p] holds taps p -
 * BAND_ZERO and p - BAND_ZERO + 1 (zero outside 0 .. 2r), the high halves,
 * lo[p] the low ones. */
struct WideMmaBand {
  unsigned hi[WideMmaTuning::BAND_PAIRS];
  unsigned lo[WideMmaTuning::BAND_PAIRS];
};

/* One line pass. The first: lines are the plane's rows (src), positions
 * its columns, out mid^T; the second: lines the plane's columns, read from
 * mid^T, positions its rows, out dst (src for the centre term). mid^T holds
 * position p of line l of the first pass at element p * mid_pitch + l. */
struct WideMmaArgs {
  ComponentArgs src, dst;
  void *mid;
  int mid_pitch;
  int lines, positions;
  /* the window starts r8 = r rounded up to 8 before the block's first
   * output, lead = r8 - r positions earlier than the taps reach */
  int r8, lead;
  /* first pass: sums to mid as stored; second: to raw sample units */
  float scale;
  float centre, offset;
  CcBorder border;
  int position_blocks;
  WideMmaBand band;
};

static_assert (sizeof (WideMmaArgs) <= 4096, "a launch's parameters fit 4 KB");

/* Eight window positions of a line in the form a thread loads them: the
 * vectors of 8 samples (uint2 of 8-bit ones, uint4 of 16-bit ones) or of
 * 8 mid elements (two uint4 of words, one of halves) */
template <typename T, bool SECOND> struct WideMmaChunk {
  typedef
      typename std::conditional<!SECOND && sizeof (T) == 1, uint2, uint4>::type
          Vec;
  static constexpr int VECS = SECOND && sizeof (T) == 2 ? 2 : 1;
  Vec v[VECS];
};

/* Whether every chunk inside the source can load as vectors */
template <typename T, bool SECOND> __device__ __forceinline__ bool
wide_mma_vectors (const WideMmaArgs &a)
{
  if (SECOND)
    /* rows of mid^T on 8 bytes (halves: 4 of them, as a pair of uint2) or
     * 16 (words) */
    return a.mid_pitch % 4 == 0;
  return moves_as_vectors<typename WideMmaChunk<T, false>::Vec> (a.src);
}

/* The chunk at position p of line `line`, where it lies inside */
template <typename T, bool SECOND> __device__ __forceinline__ void
wide_mma_load (WideMmaChunk<T, SECOND> &c, const WideMmaArgs &a, int line,
    int p)
{
  if constexpr (SECOND) {
    typedef typename WideMmaFormat<T>::Mid Mid;
    const Mid *row = static_cast<const Mid *> (a.mid)
        + (size_t) line * a.mid_pitch + p;
    if constexpr (sizeof (T) == 2) {
      c.v[0] = __ldg (reinterpret_cast<const uint4 *> (row));
      c.v[1] = __ldg (reinterpret_cast<const uint4 *> (row) + 1);
    } else {
      const uint2 lo = __ldg (reinterpret_cast<const uint2 *> (row));
      const uint2 hi = __ldg (reinterpret_cast<const uint2 *> (row) + 1);
      c.v[0] = make_uint4 (lo.x, lo.y, hi.x, hi.y);
    }
  } else {
    c.v[0] = __ldg (
        reinterpret_cast<const typename WideMmaChunk<T, false>::Vec *> (
            a.src.data + (size_t) line * a.src.pitch
            + (size_t) p * sizeof (T)));
  }
}

/* A word's two 16-bit samples' high bytes times 256 as an exact half2
 * (at most 65280, 8 significant bits) */
__device__ __forceinline__ unsigned
high_bytes_to_half2 (unsigned w)
{
  const unsigned h = bytes_to_half2 (w, 0x4341u);
  return half2_bits (__hmul2 (*reinterpret_cast<const __half2 *> (&h),
      __float2half2_rn (256.0f)));
}

/* A loaded chunk as the window's planes */
template <typename T, bool SECOND> __device__ __forceinline__ void
wide_mma_convert (uint4 (&out)[WideMmaFormat<T>::PLANES],
    const WideMmaChunk<T, SECOND> &c)
{
  if constexpr (SECOND && sizeof (T) == 1) {
    out[0] = c.v[0];
  } else if constexpr (SECOND) {
    /* the words' low halves side by side, then their high ones */
    const uint4 a = c.v[0], b = c.v[1];
    out[0] = make_uint4 (__byte_perm (a.x, a.y, 0x5410),
        __byte_perm (a.z, a.w, 0x5410), __byte_perm (b.x, b.y, 0x5410),
        __byte_perm (b.z, b.w, 0x5410));
    out[1] = make_uint4 (__byte_perm (a.x, a.y, 0x7632),
        __byte_perm (a.z, a.w, 0x7632), __byte_perm (b.x, b.y, 0x7632),
        __byte_perm (b.z, b.w, 0x7632));
  } else if constexpr (sizeof (T) == 1) {
    const uint2 w = c.v[0];
    out[0] = make_uint4 (bytes_to_half2 (w.x, SEL_BYTES_01),
        bytes_to_half2 (w.x, SEL_BYTES_23), bytes_to_half2 (w.y, SEL_BYTES_01),
        bytes_to_half2 (w.y, SEL_BYTES_23));
  } else {
    /* bytes 1 and 3 of a word are its two samples' high bytes, which
     * weigh 256 */
    const uint4 w = c.v[0];
    out[0] = make_uint4 (high_bytes_to_half2 (w.x), high_bytes_to_half2 (w.y),
        high_bytes_to_half2 (w.z), high_bytes_to_half2 (w.w));
    out[1] = make_uint4 (bytes_to_half2 (w.x, 0x4240u),
        bytes_to_half2 (w.y, 0x4240u), bytes_to_half2 (w.z, 0x4240u),
        bytes_to_half2 (w.w, 0x4240u));
  }
}

/* The same for a chunk that reaches past the source's ends (or a source
 * that does not move as vectors): element by element, the border
 * resolved */
template <typename T, bool SECOND> __device__ __forceinline__ void
wide_mma_rim (uint4 (&out)[WideMmaFormat<T>::PLANES], const WideMmaArgs &a,
    int line, int p)
{
  unsigned h[WideMmaFormat<T>::PLANES][4];
#pragma unroll
  for (int k = 0; k < 8; k += 2) {
    if constexpr (SECOND) {
      typedef typename WideMmaFormat<T>::Mid Mid;
      const Mid *row = static_cast<const Mid *> (a.mid)
          + (size_t) line * a.mid_pitch;
      const int i0 = cc_border_index (p + k, a.positions, a.border);
      const int i1 = cc_border_index (p + k + 1, a.positions, a.border);
      if constexpr (sizeof (T) == 2) {
        const unsigned w0 = i0 < 0 ? 0u : __ldg (row + i0);
        const unsigned w1 = i1 < 0 ? 0u : __ldg (row + i1);
        h[0][k / 2] = __byte_perm (w0, w1, 0x5410);
        h[WideMmaFormat<T>::PLANES - 1][k / 2] = __byte_perm (w0, w1, 0x7632);
      } else {
        const unsigned short *bits = reinterpret_cast<const unsigned short *> (
            row);
        const unsigned b0 = i0 < 0 ? 0u : __ldg (bits + i0);
        const unsigned b1 = i1 < 0 ? 0u : __ldg (bits + i1);
        h[0][k / 2] = b0 | b1 << 16;
      }
    } else {
      const float v0 = load_bordered<T> (a.src, p + k, line, a.border);
      const float v1 = load_bordered<T> (a.src, p + k + 1, line, a.border);
      if constexpr (sizeof (T) == 1) {
        h[0][k / 2] = half2_bits (__floats2half2_rn (v0, v1));
      } else {
        /* the high byte times 256, and the low byte */
        const float t0 = 256.0f * floorf (v0 * (1.0f / 256.0f));
        const float t1 = 256.0f * floorf (v1 * (1.0f / 256.0f));
        h[0][k / 2] = half2_bits (__floats2half2_rn (t0, t1));
        h[WideMmaFormat<T>::PLANES - 1][k / 2] = half2_bits (
            __floats2half2_rn (v0 - t0, v1 - t1));
      }
    }
  }
#pragma unroll
  for (int pl = 0; pl < WideMmaFormat<T>::PLANES; pl++)
    out[pl] = make_uint4 (h[pl][0], h[pl][1], h[pl][2], h[pl][3]);
}

/* The block's window: plane pl's line i at win + (pl LINES + i) WINDOW,
 * window position j standing for source position first + j. A thread's
 * vector loads are issued BATCH at a time (8, or 5 of 16-bit mid, whose
 * chunks take 8 registers each) before the first is converted. */
template <typename T, bool SECOND, int WINDOW> __device__ __forceinline__ void
wide_mma_stage (__half *win, const WideMmaArgs &a, int line0, int first,
    int tid)
{
  constexpr int PLANES = WideMmaFormat<T>::PLANES;
  constexpr int CHUNKS = WINDOW / 8;
  constexpr int L = WideMmaTuning::LINES;
  constexpr int THREADS = WideMmaTuning::THREADS;
  constexpr int N = (L * CHUNKS + THREADS - 1) / THREADS;
  constexpr int MOST = SECOND && sizeof (T) == 2 ? 5 : 8;
  constexpr int BATCH = N < MOST ? N : MOST;
  const bool vectors = wide_mma_vectors<T, SECOND> (a);
#pragma unroll
  for (int n0 = 0; n0 < N; n0 += BATCH) {
    WideMmaChunk<T, SECOND> chunk[BATCH];
    unsigned loaded = 0;
#pragma unroll
    for (int n = 0; n < BATCH; n++) {
      const int k = tid + (n0 + n) * THREADS;
      const int i = k / CHUNKS, p = first + 8 * (k - i * CHUNKS);
      if (n0 + n < N && k < L * CHUNKS && vectors && line0 + i < a.lines
          && p >= 0 && p + 8 <= a.positions) {
        wide_mma_load<T, SECOND> (chunk[n], a, line0 + i, p);
        loaded |= 1u << n;
      }
    }
#pragma unroll
    for (int n = 0; n < BATCH; n++) {
      const int k = tid + (n0 + n) * THREADS;
      if (n0 + n >= N || k >= L * CHUNKS)
        break;
      const int i = k / CHUNKS, c = k - i * CHUNKS;
      uint4 v[PLANES];
      if (loaded & (1u << n)) {
        wide_mma_convert<T, SECOND> (v, chunk[n]);
      } else if (line0 + i < a.lines) {
        wide_mma_rim<T, SECOND> (v, a, line0 + i, first + 8 * c);
      } else {
        /* lines past the source's last: no output reads them, but they
         * must not hold NaN */
#pragma unroll
        for (int pl = 0; pl < PLANES; pl++)
          v[pl] = make_uint4 (0, 0, 0, 0);
      }
#pragma unroll
      for (int pl = 0; pl < PLANES; pl++)
        *reinterpret_cast<uint4 *> (
            win + (pl * L + i) * WINDOW + 8 * c) = v[pl];
    }
  }
}

/* acc += the products of one 16 x 16 block of the window (a[plane]) and
 * one step of the band (b: its halves, two registers each): 8-bit, the
 * one product; 16-bit, the high plane (a sample's high byte times 256, or
 * mid's high half) with both halves of the band and the low plane with
 * the high half. A low by low product is below the fp32 sum's rounding. */
template <typename T> __device__ __forceinline__ void
wide_mma_products (float (&acc)[4],
    const unsigned (&a)[WideMmaFormat<T>::PLANES][4],
    const unsigned (&b)[WideMmaFormat<T>::BANDS][2])
{
  mma_16x8x16 (acc, a[0], b[0][0], b[0][1]);
  if constexpr (sizeof (T) == 2) {
    mma_16x8x16 (acc, a[0], b[1][0], b[1][1]);
    mma_16x8x16 (acc, a[1], b[0][0], b[0][1]);
  }
}

/* One position's LINES outputs (row, in units of the scaled taps) from
 * line line0 on: to mid^T (first pass), or with the centre term and the
 * offset as rounded samples of plane row p (second), as 16-byte vectors
 * where the row allows */
template <typename T, bool SECOND> __device__ __forceinline__ void
wide_mma_emit (const WideMmaArgs &a, const float *row, int line0, int p)
{
  constexpr int L = WideMmaTuning::LINES;
  const bool whole = line0 + L <= a.lines;
  float v[L];
#pragma unroll
  for (int k = 0; k < L; k += 4) {
    const float4 q = *reinterpret_cast<const float4 *> (row + k);
    v[k] = q.x * a.scale;
    v[k + 1] = q.y * a.scale;
    v[k + 2] = q.z * a.scale;
    v[k + 3] = q.w * a.scale;
  }
  if constexpr (!SECOND) {
    typedef typename WideMmaFormat<T>::Mid Mid;
    Mid *out = static_cast<Mid *> (a.mid) + (size_t) p * a.mid_pitch + line0;
    if constexpr (sizeof (T) == 2) {
      /* (high, low) words: L of them */
      unsigned words[L];
#pragma unroll
      for (int k = 0; k < L; k += 2) {
        unsigned hi, lo;
        split_to_halves (make_float2 (v[k], v[k + 1]), hi, lo);
        words[k] = __byte_perm (hi, lo, 0x5410);
        words[k + 1] = __byte_perm (hi, lo, 0x7632);
      }
      if (whole && a.mid_pitch % 4 == 0) {
#pragma unroll
        for (int k = 0; k < L; k += 4)
          *reinterpret_cast<uint4 *> (out + k) = make_uint4 (words[k],
              words[k + 1], words[k + 2], words[k + 3]);
        return;
      }
      for (int k = 0; k < L && line0 + k < a.lines; k++)
        out[k] = words[k];
    } else {
      unsigned w[L / 2];
#pragma unroll
      for (int k = 0; k < L; k += 2)
        w[k / 2] = half2_bits (__floats2half2_rn (v[k], v[k + 1]));
      if (whole && a.mid_pitch % 8 == 0) {
        *reinterpret_cast<uint4 *> (out) = make_uint4 (w[0], w[1], w[2], w[3]);
        *reinterpret_cast<uint4 *> (
            out + 8) = make_uint4 (w[4], w[5], w[6], w[7]);
        return;
      }
      if (whole && a.mid_pitch % 4 == 0) {
#pragma unroll
        for (int k = 0; k < L / 2; k += 2)
          *reinterpret_cast<uint2 *> (
              out + 2 * k) = make_uint2 (w[k], w[k + 1]);
        return;
      }
      const unsigned short *bits = reinterpret_cast<const unsigned short *> (w);
      for (int k = 0; k < L && line0 + k < a.lines; k++)
        reinterpret_cast<unsigned short *> (out)[k] = bits[k];
    }
  } else {
    /* plane row p, columns line0 .. line0 + L - 1 */
    const bool vectors = whole && moves_as_vectors<uint4> (a.dst)
        && (a.centre == 0.0f || moves_as_vectors<uint4> (a.src));
    if (!vectors) {
      for (int k = 0; k < L && line0 + k < a.lines; k++) {
        float out = v[k] + a.offset;
        if (a.centre != 0.0f)
          out = fmaf (a.centre, load_sample<T> (a.src, line0 + k, p), out);
        store_sample<T> (a.dst, line0 + k, p, out);
      }
      return;
    }
    const float bias = a.offset + 0.5f;
    if (a.centre != 0.0f) {
      const uint4 *in = reinterpret_cast<const uint4 *> (
          a.src.data + (size_t) p * a.src.pitch + (size_t) line0 * sizeof (T));
#pragma unroll
      for (int q = 0; q < (int) (L * sizeof (T) / 16); q++) {
        const uint4 s4 = __ldg (in + q);
        const unsigned s[4] = { s4.x, s4.y, s4.z, s4.w };
        constexpr int PER_WORD = 4 / sizeof (T);
#pragma unroll
        for (int k = 0; k < 4 * PER_WORD; k++)
          v[q * 4 * PER_WORD + k] = fmaf (a.centre,
              word_sample ((T *) nullptr, s[k / PER_WORD], k % PER_WORD),
              v[q * 4 * PER_WORD + k]);
      }
    }
#pragma unroll
    for (int k = 0; k < L; k++)
      v[k] += bias;
    char *out = a.dst.data + (size_t) p * a.dst.pitch
        + (size_t) line0 * sizeof (T);
    if constexpr (sizeof (T) == 1) {
      unsigned w[L / 4];
#pragma unroll
      for (int k = 0; k < L; k += 4) {
        const float f[4] = { v[k], v[k + 1], v[k + 2], v[k + 3] };
        w[k / 4] = pack_floor_saturated ((uint8_t *) nullptr, f);
      }
      *reinterpret_cast<uint4 *> (out) = make_uint4 (w[0], w[1], w[2], w[3]);
    } else {
      uint2 w[L / 4];
#pragma unroll
      for (int k = 0; k < L; k += 4) {
        const float f[4] = { v[k], v[k + 1], v[k + 2], v[k + 3] };
        w[k / 4] = pack_floor_saturated ((uint16_t *) nullptr, f, a.dst);
      }
      reinterpret_cast<uint4 *> (
          out)[0] = make_uint4 (w[0].x, w[0].y, w[1].x, w[1].y);
      reinterpret_cast<uint4 *> (
          out)[1] = make_uint4 (w[2].x, w[2].y, w[3].x, w[3].y);
    }
  }
}

/* The line pass: block b takes lines LINES (b / position_blocks) on and
 * positions POSITIONS (b % position_blocks) on; STEPS the bucket of the
 * radius (separable-wide-mma.cu). */
/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename T, bool SECOND, int STEPS>
__global__ void __launch_bounds__ (WideMmaTuning::THREADS,
    blocks_that_fit (WideMmaTuning::THREADS,
        WideMmaTuning::min_blocks (sizeof (T), SECOND, STEPS)))
wide_mma_lines (const __grid_constant__ WideMmaArgs a)
/* clang-format on */
{
  typedef WideMmaTuning W;
  constexpr int PLANES = WideMmaFormat<T>::PLANES;
  constexpr int BANDS = WideMmaFormat<T>::BANDS;
  constexpr int WINDOW = W::window (STEPS);
  static_assert (STEPS % 2 == 1 && STEPS <= W::MAX_STEPS,
      "odd buckets: window / 8 stays odd");
  static_assert (W::BAND_ZERO - 14 >= 0
          && 8 * (2 * STEPS - 1) + 6 + W::BAND_ZERO < W::BAND_PAIRS,
      "every pair a lane reads is in the band");
  __shared__ __align__ (16) __half win[PLANES * W::LINES * WINDOW];
  __shared__ unsigned band[BANDS][W::BAND_PAIRS];
  __shared__ __align__ (16) float out[W::WARPS][W::OUT_ROWS][W::OUT_PITCH];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int line_block = blockIdx.x / a.position_blocks;
  const int line0 = line_block * W::LINES;
  const int p0 = (blockIdx.x - line_block * a.position_blocks) * W::POSITIONS;

  wide_mma_stage<T, SECOND, WINDOW> (win, a, line0, p0 - a.r8, tid);
  for (int k = tid; k < W::BAND_PAIRS; k += W::THREADS) {
    band[0][k] = a.band.hi[k];
    if (BANDS > 1)
      band[BANDS - 1][k] = a.band.lo[k];
  }
  __syncthreads ();

  /* the band's fragments: b0 of step s is pair 16 s + q, b1 pair 16 s + 8
   * + q, for q = 2 (l % 4) - l / 4 - lead: u[h][i] is pair 8 i + q */
  const int g = lane >> 2, t = lane & 3;
  const int q = 2 * t - g - a.lead + W::BAND_ZERO;
  unsigned u[BANDS][2 * STEPS];
#pragma unroll
  for (int h = 0; h < BANDS; h++)
#pragma unroll
    for (int i = 0; i < 2 * STEPS; i++)
      u[h][i] = band[h][8 * i + q];

  const int wp = warp * W::WARP_POSITIONS;
  /* ldmatrix: lane l gives line l % 16, window positions 8 (l / 16) on */
  const __half *rows = win + (lane & 15) * WINDOW + wp + 8 * (lane >> 4);
#pragma unroll 1
  for (int phase = 0; phase < 2; phase++) {
    float acc[W::TILES][4] = {};
    const __half *at = rows + MMA_N * phase;
#pragma unroll
    for (int b = 0; b < W::TILES + STEPS - 1; b++) {
      unsigned m[PLANES][4];
#pragma unroll
      for (int pl = 0; pl < PLANES; pl++)
        load_a_matrix (m[pl], at + pl * W::LINES * WINDOW + MMA_K * b);
        /* window block b is step b - j of tile j */
#pragma unroll
      for (int j = 0; j < W::TILES; j++) {
        const int s = b - j;
        if (s < 0 || s >= STEPS)
          continue;
        unsigned bs[BANDS][2];
#pragma unroll
        for (int h = 0; h < BANDS; h++) {
          bs[h][0] = u[h][2 * s];
          bs[h][1] = u[h][2 * s + 1];
        }
        wide_mma_products<T> (acc[j], m, bs);
      }
    }
    /* the phase's outputs through shared memory: tile j's position n at
     * row 8 j + n, then a row (a position) per lane */
    float (*o)[W::OUT_PITCH] = out[warp];
#pragma unroll
    for (int j = 0; j < W::TILES; j++)
#pragma unroll
      for (int k = 0; k < 4; k++)
        o[MMA_N * j + 2 * t + k % 2][g + 8 * (k / 2)] = acc[j][k];
    __syncwarp ();
    static_assert (W::OUT_ROWS == 32, "a row per lane");
    const int p = p0 + wp + MMA_N * phase + 2 * MMA_N * (lane / MMA_N)
        + lane % MMA_N;
    if (p < a.positions)
      wide_mma_emit<T, SECOND> (a, o[lane], line0, p);
    __syncwarp ();
  }
}

#endif /* CUDACONV_SEPARABLE_WIDE_MMA_CUH */

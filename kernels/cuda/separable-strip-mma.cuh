/* cudaconv: the separable path at radii 3 to STRIP_MMA_MAX_RADIUS on planes of
 * one sample per pixel, on the tensor cores, streaming: each warp walks
 * down a strip of its own, with no block-wide staging and no
 * __syncthreads.
 *
 * A warp owns StripMma::TILE_W output columns and 16 S output rows (S steps,
 * picked by the host). Its input arrives 16 rows at a time ("blocks": plane
 * rows y0 - 8 + 16 b .. + 15, StripMma::WINDOW samples wide from 8 columns left
 * of the strip), copied as raw bytes into a per-warp ring of shared memory
 * (cp.async), a step ahead of use. Per step and per group of 16 columns:
 *  - column pass: mid (16 rows x 16 columns) = A x window, A the 16 x 32
 *    band of the column taps (two k-steps: the two blocks that reach 8 rows
 *    above and below the 16 output rows) in two fp16 halves. The window
 *    comes from the ring through ldmatrix.trans, whose 16-bit elements
 *    pair two bytes of a row: for 8-bit samples two neighbouring columns,
 *    the even and the odd columns of the group, which become two n-tiles;
 *    for 16-bit samples the low and the high byte of one sample, two
 *    n-tiles of the same 8 columns, added as low + 256 high. A byte under
 *    the exponent of 1024 is the exact fp16 number 1024 + byte (one logic
 *    op); the 1024s are not subtracted per sample but once, by starting
 *    the sums at -1024 times the sum of the taps;
 *  - mid stays in registers: its accumulators, split into fp16 halves, are
 *    the A operand of the row pass (the C and A fragments of mma.sync
 *    share their rows); for 8-bit samples its columns stay in the order
 *    the byte split left them (ms_mid_column);
 *  - row pass: output group u takes mid groups u and u + 1 (the mid grid
 *    starts 8 columns left of the outputs, so the 16 + 2r <= 32 columns it
 *    reads are two groups), three products each (hi hi, hi lo, lo hi); the
 *    output n-tiles are the even and the odd columns, so that each lane
 *    ends with 4 neighbouring samples of two rows: one store each.
 * The tensor cores do all multiply-adds; the other units copy, convert,
 * split and round.
 *
 * Exactness as in mma.cuh, with one difference: the column taps
 * are scaled so that mid (at most the largest sample times the sum of the
 * taps' magnitudes) lands below 2^15, and is split as it comes out with no
 * multiply; a tap so small that its low half is an fp16 subnormal loses at
 * most 2^-25 of a sample's weight there.
 *
 * Ghost cells: rows outside the plane come through the border row by row
 * (zero rows are written as zeros). Outputs inside the plane read plane
 * columns -8 .. width + 7 only: only the strip at column 0 has ghost
 * columns on the left, 8 of them, and only the last strip on the right,
 * the 8 from the plane's right edge on. Under clamp and mirror they are
 * copies of window columns within 8 of the side, filled in shared memory
 * once the block has landed; under zero they are zeros; under wrap, and
 * for the bytes of a piece that the plane's right edge cuts, they are
 * loaded sample by sample at copy time (ms_gather_columns). Outputs past
 * the plane's right or bottom edge are not stored.
 *
 * On an H100 this kernel beats the tile kernels at r3 to r8 and the FP32
 * streaming kernel at r3 and r4 on 8-bit planes only (docs/kernels.md). */
#ifndef CUDACONV_SEPARABLE_STRIP_MMA_CUH
#define CUDACONV_SEPARABLE_STRIP_MMA_CUH

#include "device.cuh"
#include "mma.cuh"
#include "radii.cuh"

/* The family's tuning. */
struct StripMma {
  static constexpr int LANES = 32;
  /* a group: the 16 columns of one column-pass item and one row-pass item */
  static constexpr int GROUP_W = 16;
  /* output groups per warp: 128 columns, 2,040 warps on a 3840x2160 plane
   * at 2 steps */
  static constexpr int GROUPS = 8;
  static constexpr int TILE_W = GROUPS * GROUP_W;
  /* one more group for the column pass, which starts 8 columns left of the
   * outputs */
  static constexpr int MID_GROUPS = GROUPS + 1;
  static constexpr int WINDOW = MID_GROUPS * GROUP_W;
  static constexpr int BLOCK_ROWS = 16;
  /* blocks in the ring: the two a step reads and the one copied meanwhile */
  static constexpr int RING = 3;
  /* the bytes one cp.async copies: the window starts 8 columns left of a
   * 16-column boundary, so 8 bytes keep every piece aligned in 8-bit rows */
  static constexpr int PIECE = 8;
  /* warps per SM that the register budget is set for (128 registers) */
  static constexpr int SM_WARPS = 16;
};

/* bytes of a sample, of a window row, and the pieces of a block */
template <typename T> struct MsShape {
  static constexpr int ROW_BYTES = StripMma::WINDOW * (int) sizeof (T);
  static constexpr int PIECE_SAMPLES = StripMma::PIECE / (int) sizeof (T);
  static constexpr int PIECES_PER_ROW = ROW_BYTES / StripMma::PIECE;
  static constexpr int PIECES_PER_LANE = StripMma::BLOCK_ROWS * PIECES_PER_ROW
      / StripMma::LANES;
  static constexpr int BLOCK_BYTES = StripMma::BLOCK_ROWS * ROW_BYTES;
  static_assert (StripMma::BLOCK_ROWS * PIECES_PER_ROW % StripMma::LANES == 0,
      "every lane copies as many pieces");
  static_assert (8 % PIECE_SAMPLES == 0, "the left ghosts are whole pieces");
};

/* Whether a plane can take the kernel: one sample per pixel, start and
 * pitch multiples of a piece (cp.async copies aligned pieces), which also
 * aligns the stores of 4 samples. */
__host__ __device__ __forceinline__ bool
ms_strip_fits (const ComponentArgs &c)
{
  return moves_as_vectors<uint2> (c);
}

/* Warp strips across, strips down. */
__host__ __forceinline__ dim3
ms_strip_grid (int width, int height, int steps)
{
  const int rows = StripMma::BLOCK_ROWS * steps;
  return dim3 ((width + StripMma::TILE_W - 1) / StripMma::TILE_W,
      (height + rows - 1) / rows);
}

/* Steps per strip where the GPU holds `resident` warps of the kernel at
 * once: the fewest whose warps all fit. Fewer steps mean more warps to
 * hide each one's latency, but each strip copies one block more than it
 * has steps, and a second wave of warps costs more than either
 * (docs/kernels.md). */
__host__ __forceinline__ int
ms_strip_steps (int width, int height, long long resident)
{
  int steps = 1;
  while (resident > 0 && StripMma::BLOCK_ROWS * steps < height) {
    const dim3 g = ms_strip_grid (width, height, steps);
    if ((long long) g.x * g.y <= resident)
      break;
    steps++;
  }
  return steps;
}

/* Column p of the two rows that an ldmatrix.trans element pair holds
 * (bytes p and 2 + p of the word), each as the fp16 number 1024 + byte. */
__device__ __forceinline__ unsigned
ms_biased_bytes (unsigned w, int p)
{
  return ((p ? w >> 8 : w) & 0x00ff00ffu) | 0x64006400u;
}

/* The column of a mid group that k-index k of a row-pass A fragment holds.
 * 8-bit: k = 2t, 2t + 1 are the even-column n-tile's columns 4t and
 * 4t + 2, k = 2t + 8, 2t + 9 the odd one's 4t + 1 and 4t + 3. 16-bit: the
 * n-tiles are the group's halves, so k is the column. */
template <typename T> __device__ __forceinline__ int
ms_mid_column (int k)
{
  if (sizeof (T) == 2)
    return k;
  return 4 * ((k & 7) >> 1) + 2 * (k & 1) + (k >> 3);
}

/* The fragments of the taps, each in a high and a low fp16 half (index 0
 * and 1), and what undoes their scaling. */
struct MsBands {
  /* column pass: A of k-step kb (rows 16 kb - 8 .. from the outputs' first) */
  unsigned col[2][2][4];
  /* row pass: B of mid group u + kb for the output n-tile of parity q */
  unsigned row[2][2][2][2];
  float unscale;
  /* -1024 times the sum of the column taps as the band holds them: where
   * the column sums start, which takes out the 1024 of every biased
   * sample (ms_biased_bytes), as each output row's band holds every tap
   * once */
  float bias_sum;
};

/* taps[0] the column taps, taps[1] the row taps, in shared memory: the
 * lanes want different taps, which constant-bank loads would serialize */
template <typename T, int R> __device__ __forceinline__ void
ms_build_bands (const float (*taps)[2 * STRIP_MMA_MAX_RADIUS + 1], MsBands &b)
{
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int e_col = scale_exponent (tap_magnitudes<2 * R + 1> (taps[0]).y
          * SampleTraits<T>::max,
      15);
  const int e_row = scale_exponent (tap_magnitudes<2 * R + 1> (taps[1]).x,
      HALF_TAP_TOP);
  const float scale[2] = { pow2f (e_col), pow2f (e_row) };
  b.unscale = pow2f (-e_col) * pow2f (-e_row);
  b.bias_sum = 0.0f;
#pragma unroll
  for (int j = 0; j <= 2 * R; j++) {
    const float tap = taps[0][j] * scale[0];
    const float hi = __half2float (__float2half_rn (tap));
    b.bias_sum -= 1024.0f * (hi + __half2float (__float2half_rn (tap - hi)));
  }
  auto tap = [&] (int side, int d) {
    return d >= 0 && d <= 2 * R ? taps[side][d] * scale[side] : 0.0f;
  };

  /* A[m][k] = column tap 16 kb + k - 8 - m + R; lane rows g, g + 8, g,
   * g + 8 at columns 2t, 2t, 2t + 8, 2t + 8 */
  const int rows[4] = { g, g + 8, g, g + 8 };
  const int cols[4] = { 2 * t, 2 * t, 2 * t + 8, 2 * t + 8 };
#pragma unroll
  for (int kb = 0; kb < 2; kb++)
#pragma unroll
    for (int i = 0; i < 4; i++) {
      const int d = 16 * kb + cols[i] - 8 - rows[i] + R;
      split_to_halves (make_float2 (tap (0, d), tap (0, d + 1)),
          b.col[kb][0][i], b.col[kb][1][i]);
    }
    /* B[k][n] = row tap (mid column (k) + 16 kb - 8 - (2n + q) + R); lane
     * k = 2t, 2t + 1 (register 0) and 2t + 8, 2t + 9 (register 1) at n = g */
#pragma unroll
  for (int kb = 0; kb < 2; kb++)
#pragma unroll
    for (int q = 0; q < 2; q++)
#pragma unroll
      for (int i = 0; i < 2; i++) {
        const int k = 2 * t + 8 * i;
        const int base = 16 * kb - 8 - (2 * g + q) + R;
        split_to_halves (make_float2 (tap (1, ms_mid_column<T> (k) + base),
                             tap (1, ms_mid_column<T> (k + 1) + base)),
            b.row[kb][q][0][i], b.row[kb][q][1][i]);
      }
}

/* An 8-byte piece from global to shared memory, asynchronously where the
 * GPU can (cp.async, sm_80 on); complete after ms_copies_wait. */
__device__ __forceinline__ void
ms_copy_piece (uint8_t *to, const char *from)
{
#if __CUDA_ARCH__ >= 800
  const unsigned addr = (unsigned) __cvta_generic_to_shared (to);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(addr),
      "l"(from));
#else
  *reinterpret_cast<uint2 *> (to) = __ldg (
      reinterpret_cast<const uint2 *> (from));
#endif
}

__device__ __forceinline__ void
ms_copies_commit ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;");
#endif
}

/* all but the last N committed groups of this lane's copies are done */
template <int N> __device__ __forceinline__ void
ms_copies_wait ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
#endif
}

/* Which window columns of a strip at x0 need what (window column w is
 * plane column x0 - 8 + w). Pieces lo .. hi - 1 of a row lie inside the
 * plane's columns and are copied. Where the plane's width is not a
 * multiple of a piece, the piece it ends in ("partial") is loaded sample
 * by sample. Ghost columns are the 8 left of column 0 (the strip at 0
 * only) and those from the right edge to 8 past it that lie in the
 * window. */
template <typename T> struct MsColumns {
  typedef MsShape<T> S;
  int lo, hi;
  /* window columns of the partial piece that lie inside the plane */
  int partial_from, partial_to;
  /* the right ghost columns: right .. right_end - 1 */
  int right, right_end;
  bool left_ghosts;

  __device__ __forceinline__ MsColumns (int x0, int width)
  {
    const int edge = width - (x0 - 8); /* the right edge's window column */
    left_ghosts = x0 < 8;
    lo = left_ghosts ? 8 / S::PIECE_SAMPLES : 0;
    hi = max (lo, min (S::PIECES_PER_ROW, edge / S::PIECE_SAMPLES));
    partial_from = S::PIECE_SAMPLES * hi;
    partial_to = edge % S::PIECE_SAMPLES && hi < S::PIECES_PER_ROW ?
        edge :
        partial_from;
    right = min (edge, StripMma::WINDOW);
    right_end = min (edge + 8, StripMma::WINDOW);
  }
  __device__ __forceinline__ bool has_ghosts () const
  {
    return left_ghosts || right < right_end;
  }
};

/* Block rows first .. first + 15 into `to`: the pieces inside the plane's
 * columns, rows through the border (zero rows as zeros). Lane l copies
 * pieces l, l + 32, ... of the block, so that a warp's copy is a run of
 * 256 bytes of the window and the shared address of each is a constant
 * offset from the lane's first; lane r < 16 maps row r for all. */
template <typename T> __device__ __forceinline__ void
ms_load_block (uint8_t *to, const ComponentArgs &src, int x0, int first,
    const MsColumns<T> &cols, CcBorder border)
{
  typedef MsShape<T> S;
  const int lane = threadIdx.x & 31;
  const int mapped = cc_border_index (first + (lane & 15), src.height, border);
  int row = lane / S::PIECES_PER_ROW, piece = lane % S::PIECES_PER_ROW;
  const int left = (x0 - 8) * (int) sizeof (T);
  to += StripMma::PIECE * lane;
#pragma unroll
  for (int j = 0; j < S::PIECES_PER_LANE; j++) {
    const int y = __shfl_sync (0xffffffffu, mapped, row);
    uint8_t *at = to + StripMma::PIECE * StripMma::LANES * j;
    if (piece >= cols.lo && piece < cols.hi) {
      if (y >= 0)
        ms_copy_piece (at,
            src.data + (size_t) y * src.pitch
                + (left + StripMma::PIECE * piece));
      else
        *reinterpret_cast<uint2 *> (at) = make_uint2 (0u, 0u);
    }
    piece += StripMma::LANES % S::PIECES_PER_ROW;
    row += StripMma::LANES / S::PIECES_PER_ROW;
    if (piece >= S::PIECES_PER_ROW) {
      piece -= S::PIECES_PER_ROW;
      row++;
    }
  }
}

/* Window columns from .. to_col - 1 of block rows first .. first + 15,
 * sample by sample through the border, four loads in flight per lane: the
 * partial piece, and the ghost columns of a wrap border (which lie far
 * from the window). Out of line: only warps at the plane's sides come
 * here, and only for such widths or that border. */
template <typename T> __device__ __noinline__ void
ms_gather_columns (uint8_t *to, ComponentArgs src, int x0, int first, int from,
    int to_col, CcBorder border)
{
  const int lane = threadIdx.x & 31;
  const int n = to_col - from;
  constexpr int IN_FLIGHT = 4;
  T *block = reinterpret_cast<T *> (to);
#pragma unroll 1
  for (int k0 = 0; k0 < StripMma::BLOCK_ROWS * n;
       k0 += IN_FLIGHT * StripMma::LANES) {
    int at[IN_FLIGHT];
    unsigned v[IN_FLIGHT];
#pragma unroll
    for (int q = 0; q < IN_FLIGHT; q++) {
      const int k = k0 + q * StripMma::LANES + lane;
      const int r = k / n, col = from + k - r * n;
      const int y = cc_border_index (first + r, src.height, border);
      const int x = cc_border_index (x0 - 8 + col, src.width, border);
      at[q] = k < StripMma::BLOCK_ROWS * n ? StripMma::WINDOW * r + col : -1;
      const bool inside = at[q] >= 0 && y >= 0 && x >= 0;
      const T *row = reinterpret_cast<const T *> (
          src.data + (size_t) y * src.pitch);
      v[q] = inside ? (unsigned) __ldg (row + x) : 0u;
    }
#pragma unroll
    for (int q = 0; q < IN_FLIGHT; q++)
      if (at[q] >= 0)
        block[at[q]] = (T) v[q];
  }
}

/* What ms_load_block leaves to the side warps of a block, at the time it
 * is copied: the partial piece, and the ghost columns under wrap. */
template <typename T> __device__ __forceinline__ void
ms_gather_block (uint8_t *to, const ComponentArgs &src, int x0, int first,
    const MsColumns<T> &cols, CcBorder border)
{
  if (cols.partial_to > cols.partial_from)
    ms_gather_columns<T> (to, src, x0, first, cols.partial_from,
        cols.partial_to, border);
  if (border == CC_BORDER_WRAP && cols.left_ghosts)
    ms_gather_columns<T> (to, src, x0, first, 0, 8, border);
  if (border == CC_BORDER_WRAP && cols.right < cols.right_end)
    ms_gather_columns<T> (to, src, x0, first, cols.right, cols.right_end,
        border);
}

/* The ghost columns of a side warp's blocks under a zero, clamp or mirror
 * border: lanes 0-15 fill the left ones of rows 0-15, lanes 16-31 the
 * right ones. Clamp and mirror name window columns within 8 of the plane's
 * side, so filling is a copy in shared memory once the block has landed;
 * the columns are the same for every block of the strip. */
template <typename T> struct MsGhostFill {
  int at;           /* window column of the first */
  int n;            /* 0 .. 8 of them */
  unsigned from[2]; /* 8 source window columns, 0xff: zero */

  __device__ __forceinline__ MsGhostFill (const MsColumns<T> &cols, int x0,
      int width, CcBorder border)
  {
    const int side = (threadIdx.x & 31) >> 4;
    at = 0;
    n = 0;
    from[0] = from[1] = 0u;
    if (border == CC_BORDER_WRAP)
      return;
    if (side == 0 && cols.left_ghosts) {
      n = 8;
    } else if (side == 1 && cols.right < cols.right_end) {
      at = cols.right;
      n = cols.right_end - cols.right;
    }
#pragma unroll
    for (int k = 0; k < 8; k++) {
      const int b = cc_border_index (x0 - 8 + at + k, width, border);
      const unsigned w = b < 0 ? 0xffu : (unsigned) (b - (x0 - 8));
      from[k >> 2] |= w << (8 * (k & 3));
    }
  }

  __device__ __forceinline__ void fill (uint8_t *block) const
  {
    T *row = reinterpret_cast<T *> (block)
        + StripMma::WINDOW * (threadIdx.x & 15);
    T v[8];
#pragma unroll
    for (int k = 0; k < 8; k++) {
      const unsigned f = (from[k >> 2] >> (8 * (k & 3))) & 0xffu;
      v[k] = k < n && f != 0xffu ? row[f] : (T) 0;
    }
#pragma unroll
    for (int k = 0; k < 8; k++)
      if (k < n)
        row[at + k] = v[k];
  }
};

/* The 4 samples at plane column x of rows y and y + 8 where the group
 * reaches past the plane's right or bottom edge: what lies inside. Out of
 * line: only the warps at those edges come here. */
template <typename T, typename Packed> __device__ __noinline__ void
ms_store_clipped (ComponentArgs dst, int x, int y, Packed top, Packed bottom)
{
#pragma unroll 1
  for (int r = 0; r < 2; r++) {
    const int yy = y + 8 * r;
    if (yy >= dst.height)
      continue;
    const Packed p = r ? bottom : top;
    const T *samples = reinterpret_cast<const T *> (&p);
    T *at = reinterpret_cast<T *> (dst.data + (size_t) yy * dst.pitch);
#pragma unroll 1
    for (int k = 0; k < 4 && x + k < dst.width; k++)
      at[x + k] = samples[k];
  }
}

/* The column pass of mid group u: c[h] is n-tile h (register layout of
 * mma's C), started at the bias sum. 8-bit: one ldmatrix of the group's
 * 16 bytes per block row; n-tile h is the columns of parity h. 16-bit:
 * one per half of the group (16 bytes: 8 samples); n-tile h is half h,
 * low bytes plus 256 times high bytes. */
template <typename T> __device__ __forceinline__ void
ms_column_pass (const uint8_t *ld, int u, const MsBands &bands,
    float (&c)[2][4])
{
  unsigned m[4];
#pragma unroll
  for (int h = 0; h < 2; h++) {
    const int planes = sizeof (T); /* byte planes per n-tile */
    float part[2][4];
    if (sizeof (T) == 2 || h == 0)
      load_matrices_transposed<4> (m,
          reinterpret_cast<const __half *> (ld
              + StripMma::GROUP_W * sizeof (T) * u
              + 16 * h * (sizeof (T) - 1)));
#pragma unroll
    for (int b = 0; b < planes; b++) {
      /* 8-bit: bytes of parity h; 16-bit: byte b of each sample */
      const int p = sizeof (T) == 1 ? h : b;
#pragma unroll
      for (int k = 0; k < 4; k++)
        part[b][k] = bands.bias_sum;
#pragma unroll
      for (int kb = 0; kb < 2; kb++) {
        const unsigned b0 = ms_biased_bytes (m[2 * kb], p);
        const unsigned b1 = ms_biased_bytes (m[2 * kb + 1], p);
        mma_16x8x16 (part[b], bands.col[kb][0], b0, b1);
        mma_16x8x16 (part[b], bands.col[kb][1], b0, b1);
      }
    }
#pragma unroll
    for (int k = 0; k < 4; k++)
      c[h][k] = sizeof (T) == 1 ?
          part[0][k] :
          fmaf (part[planes - 1][k], 256.0f, part[0][k]);
  }
}

/* acc += mid x B for one k-step of the row pass: the three products of
 * the fp16 halves that matter (hi x hi, hi x lo, lo x hi); band[h] is
 * B's half h */
__device__ __forceinline__ void
ms_row_products (float (&acc)[4], const unsigned (&hi)[4],
    const unsigned (&lo)[4], const unsigned (&band)[2][2])
{
  mma_16x8x16 (acc, hi, band[0][0], band[0][1]);
  mma_16x8x16 (acc, hi, band[1][0], band[1][1]);
  mma_16x8x16 (acc, lo, band[0][0], band[0][1]);
}

/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename T, int R>
__global__ void __launch_bounds__ (StripMma::LANES,
    blocks_that_fit (StripMma::LANES, StripMma::SM_WARPS))
conv_separable_mma_strip (ComponentArgs src, ComponentArgs dst,
    const __grid_constant__ TapsSeparable<R> filter, float offset,
    CcBorder border, int steps)
/* clang-format on */
{
  typedef MsShape<T> S;
  static_assert (R <= STRIP_MMA_MAX_RADIUS, "two k-steps of 16 rows");
  __shared__ __align__ (16) uint8_t ring[StripMma::RING][S::BLOCK_BYTES];
  __shared__ float taps[2][2 * STRIP_MMA_MAX_RADIUS + 1];

  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  const int x0 = blockIdx.x * StripMma::TILE_W;
  const int y0 = blockIdx.y * StripMma::BLOCK_ROWS * steps;
  /* the strip's steps that hold rows of the plane */
  const int n_steps = min (steps,
      (src.height - y0 + StripMma::BLOCK_ROWS - 1) / StripMma::BLOCK_ROWS);
  const MsColumns<T> cols (x0, src.width);
  const bool gathers = cols.partial_to > cols.partial_from
      || (border == CC_BORDER_WRAP && cols.has_ghosts ());
  const bool fills = border != CC_BORDER_WRAP && cols.has_ghosts ();
  const MsGhostFill<T> ghosts (cols, x0, src.width, border);

  /* one lane copies the taps: the same address on every load is a
   * constant-bank broadcast, where an address per lane would serialize */
  if (lane == 0) {
#pragma unroll
    for (int j = 0; j <= 2 * R; j++) {
      taps[0][j] = filter.col[j];
      taps[1][j] = filter.row[j];
    }
  }
  __syncwarp ();
  MsBands bands;
  ms_build_bands<T, R> (taps, bands);
  const float bias = offset + 0.5f;

  /* ldmatrix rows: lanes 0-15 give the rows of the step's first block,
   * 16-31 of its second */
  const int ld_row = lane & 15;
  const int ld_block = lane >> 4;

  /* iteration i copies block i + 2 and, from i = 0 on, runs step i on
   * blocks i and i + 1: one copy site, two blocks ahead at the start */
#pragma unroll 1
  for (int i = -2; i < n_steps; i++) {
    /* every lane is past step i - 1, whose first block's slot the copy
     * of block i + 2 takes */
    __syncwarp ();
    if (i + 2 <= n_steps) {
      const int first = y0 - 8 + StripMma::BLOCK_ROWS * (i + 2);
      ms_load_block<T> (ring[(i + 2) % StripMma::RING], src, x0, first, cols,
          border);
      if (gathers)
        ms_gather_block<T> (ring[(i + 2) % StripMma::RING], src, x0, first,
            cols, border);
    }
    ms_copies_commit ();
    if (i < 0)
      continue;
    ms_copies_wait<1> ();
    __syncwarp ();
    if (fills) {
      /* the blocks that just landed: i + 1, and at the start block 0 */
      if (i == 0)
        ghosts.fill (ring[0]);
      ghosts.fill (ring[(i + 1) % StripMma::RING]);
      __syncwarp ();
    }

    const uint8_t *ld = ring[(i + ld_block) % StripMma::RING]
        + S::ROW_BYTES * ld_row;
    const int y = y0 + StripMma::BLOCK_ROWS * i;
    const bool rows_inside = y + StripMma::BLOCK_ROWS <= dst.height;
    char *out = dst.data + (size_t) (y + g) * dst.pitch
        + (x0 + 4 * t) * sizeof (T);
    /* the sums of output group u, started by mid group u */
    float open[2][4];
#pragma unroll
    for (int u = 0; u < StripMma::MID_GROUPS; u++) {
      float c[2][4];
      ms_column_pass<T> (ld, u, bands, c);
      /* as the row pass's A: rows g, g + 8 of k 2t, 2t + 1 (n-tile 0),
       * then of k 2t + 8, 2t + 9 (n-tile 1) */
      unsigned hi[4], lo[4];
#pragma unroll
      for (int k = 0; k < 4; k++)
        split_to_halves (make_float2 (c[k >> 1][2 * (k & 1)],
                             c[k >> 1][2 * (k & 1) + 1]),
            hi[k], lo[k]);

      /* row pass: mid group u finishes output group u - 1 (as its
       * second k-step) and starts output group u (as its first) */
      if (u > 0) {
#pragma unroll
        for (int q = 0; q < 2; q++)
          ms_row_products (open[q], hi, lo, bands.row[1][q]);
        /* lane: columns 4t .. 4t + 3 of rows g and g + 8; n-tile q's
         * registers 0, 1 (2, 3 for row g + 8) are columns 4t + q, 4t + 2
         * + q */
        float top[4], bottom[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
          top[k] = fmaf (open[k & 1][k >> 1], bands.unscale, bias);
          bottom[k] = fmaf (open[k & 1][2 + (k >> 1)], bands.unscale, bias);
        }
        typedef decltype (pack_floor_saturated ((T *) nullptr, top,
            dst)) Packed;
        const Packed top_packed = pack_floor_saturated ((T *) nullptr, top,
            dst);
        const Packed bottom_packed = pack_floor_saturated ((T *) nullptr,
            bottom, dst);
        const int gx = StripMma::GROUP_W * (u - 1);
        if (rows_inside && x0 + gx + StripMma::GROUP_W <= dst.width) {
          *reinterpret_cast<Packed *> (out + gx * sizeof (T)) = top_packed;
          *reinterpret_cast<Packed *> (
              out + gx * sizeof (T) + 8 * dst.pitch) = bottom_packed;
        } else {
          ms_store_clipped<T, Packed> (dst, x0 + gx + 4 * t, y + g, top_packed,
              bottom_packed);
        }
      }
      if (u + 1 < StripMma::MID_GROUPS) {
#pragma unroll
        for (int q = 0; q < 2; q++) {
#pragma unroll
          for (int k = 0; k < 4; k++)
            open[q][k] = 0.0f;
          ms_row_products (open[q], hi, lo, bands.row[0][q]);
        }
      }
    }
  }
  /* no copy may be left in flight at exit */
  ms_copies_wait<0> ();
}

#endif /* CUDACONV_SEPARABLE_STRIP_MMA_CUH */

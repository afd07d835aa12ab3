/* cudaconv: the separable path on the FP32 units, for 16-bit planes and
 * for 8-bit ones up to r = 1. An fp16 copy of a 16-bit sample takes two
 * planes (its high and low bytes), which doubles the staging and the
 * matrix loads of the tensor-core kernel (separable-tile-mma.cuh); on an
 * H100 this kernel is the faster of the two for 16-bit planes at every
 * radius and for 8-bit ones at r = 1 (docs/kernels.md).
 *
 * One kernel, two passes through shared memory: the block loads its 64 x 64
 * tile with its halo (as tiled-halo does), filters every row of it with the
 * row factor into a second shared array (the tile's rows plus the r rows
 * above and below), then filters the columns of that with the column factor
 * into registers and stores. Neither pass touches global memory and nothing
 * is rounded between them, so the result matches the 2D filter. 2(2r+1)
 * multiply-adds per sample instead of (2r+1)^2.
 *
 * Row pass: a thread computes TileFp32::RUN consecutive outputs of one row from
 * TileFp32::RUN + 2r samples read as 16-byte vectors. Consecutive lanes take
 * consecutive rows, and both row pitches are 4 floats past a multiple of 8,
 * so the eight lanes of each vector phase hit eight different bank groups. */
#ifndef CUDACONV_SEPARABLE_TILE_FP32_CUH
#define CUDACONV_SEPARABLE_TILE_FP32_CUH

#include "device.cuh"

/* The family's tuning: outputs per thread in each pass. */
struct TileFp32 {
  static constexpr int RUN = 8;
};

/* the smallest multiple of 4 >= n that is 4 more than a multiple of 8 */
constexpr int
sep_fp32_pitch (int n)
{
  return round_up4 (n) % 8 == 0 ? round_up4 (n) + 4 : round_up4 (n);
}

/* The window starts LEAD columns left of the tile's halo (WindowStage), so
 * run q's outputs read shared columns q * TileFp32::RUN + LEAD onwards: its
 * vector window starts at the aligned q * TileFp32::RUN and is LEAD
 * longer. */
template <int R> struct SepFp32Layout {
  static constexpr int LEAD = quad_lead<R> ();
  static constexpr int IN_W = Tile64::TILE_W + 2 * R;
  static constexpr int IN_H = Tile64::TILE_H + 2 * R;
  static constexpr int RUN_WIN = round_up4 (LEAD + TileFp32::RUN + 2 * R);
  static constexpr int RUNS = Tile64::TILE_W / TileFp32::RUN;
  static constexpr int IN_PITCH = sep_fp32_pitch (LEAD + IN_W);
  static constexpr int MID_PITCH = sep_fp32_pitch (Tile64::TILE_W);
  static constexpr size_t BYTES = sizeof (float) * IN_H
      * (IN_PITCH + MID_PITCH);
  static_assert ((RUNS - 1) * TileFp32::RUN + RUN_WIN <= IN_PITCH,
      "the last run's vector window stays inside its row");
};

/* out[p] = sum_j taps[j] * win[SKIP + p + j]: one 1D pass over a window held
 * in registers, the same for the row and the column pass. */
template <int SKIP, int SIDE, int N, int WIN> __device__ __forceinline__ void
correlate_run (const float (&taps)[SIDE], const float (&win)[WIN],
    float (&out)[N])
{
  static_assert (SKIP + N + SIDE - 1 <= WIN, "the window covers every output");
#pragma unroll
  for (int p = 0; p < N; p++) {
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < SIDE; j++)
      s = fmaf (taps[j], win[SKIP + p + j], s);
    out[p] = s;
  }
}

/* From r8 the budget of 3 blocks per SM: left to itself, ptxas held 16-bit
 * r10 to 64 registers and spilled (7% slower at 3840x2160). */
/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename T, int R>
__global__ void __launch_bounds__ (Tile64::THREADS, R >= 8 ? 3 : 1)
conv_separable_fp32 (ComponentArgs src, ComponentArgs dst,
    const __grid_constant__ TapsSeparable<R> taps, float offset,
    CcBorder border, TileGrid tiles)
/* clang-format on */
{
  typedef SepFp32Layout<R> L;
  constexpr int SIDE = 2 * R + 1;
  constexpr int WIN = Tile64::RUN + 2 * R;
  extern __shared__ float4 shared_vec[];
  float *tile = reinterpret_cast<float *> (shared_vec);
  float *mid = tile + L::IN_H * L::IN_PITCH;
  const int tid = threadIdx.y * Tile64::THREADS_X + threadIdx.x;

  float wr[SIDE], wc[SIDE];
#pragma unroll
  for (int j = 0; j < SIDE; j++) {
    wr[j] = taps.row[j];
    wc[j] = taps.col[j];
  }

  const int x0 = tile_x0 (tiles, blockIdx.x, Tile64::TILE_W);
  const int y0 = tile_y0 (tiles, blockIdx.x, Tile64::TILE_H);
  WindowStage<T, L::IN_W, L::IN_H, L::LEAD, L::IN_PITCH, Tile64::THREADS> ()
      .fill (tile, src, x0 - R, y0 - R, border);
  __syncthreads ();

  for (int item = tid; item < L::IN_H * L::RUNS; item += Tile64::THREADS) {
    const int run = item / L::IN_H, row = item - run * L::IN_H;
    const float4 *in = reinterpret_cast<const float4 *> (
        tile + row * L::IN_PITCH + run * TileFp32::RUN);
    float win[L::RUN_WIN];
#pragma unroll
    for (int q = 0; q < L::RUN_WIN / 4; q++) {
      const float4 v = in[q];
      win[4 * q] = v.x;
      win[4 * q + 1] = v.y;
      win[4 * q + 2] = v.z;
      win[4 * q + 3] = v.w;
    }
    float out[TileFp32::RUN];
    correlate_run<L::LEAD> (wr, win, out);
    float4 *to = reinterpret_cast<float4 *> (
        mid + row * L::MID_PITCH + run * TileFp32::RUN);
#pragma unroll
    for (int q = 0; q < TileFp32::RUN / 4; q++)
      to[q] = make_float4 (out[4 * q], out[4 * q + 1], out[4 * q + 2],
          out[4 * q + 3]);
  }
  __syncthreads ();

  const float *column = mid + threadIdx.y * Tile64::RUN * L::MID_PITCH
      + threadIdx.x;
  float win[WIN];
#pragma unroll
  for (int m = 0; m < WIN; m++)
    win[m] = column[m * L::MID_PITCH];
  float acc[Tile64::RUN];
  correlate_run<0> (wc, win, acc);
  store_column<T, Tile64::RUN> (dst, x0 + threadIdx.x,
      y0 + threadIdx.y * Tile64::RUN, acc, offset);
}

#endif /* CUDACONV_SEPARABLE_TILE_FP32_CUH */

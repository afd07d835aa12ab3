/* cudaconv: the tiled-halo strategy (PMPP 7.4).
 *
 * The block loads its 64 x 64 input tile plus a halo of r cells on each side
 * into shared memory once, then computes only from shared memory. Beyond the
 * book:
 *  - the radius is a template parameter, so every loop over the window is
 *    unrolled;
 *  - each thread keeps Tile64::RUN outputs in registers, consecutive along a
 *    row: per filter row i it reads the Tile64::RUN + 2r samples of one window
 *    row as 16-byte loads (8 loads for 240 multiply-adds at r = 7) and
 *    leaves its outputs as 4-sample stores. The 32 lanes of a warp take 32
 *    consecutive rows, and rows are PITCH floats apart with PITCH 4 more
 *    than a multiple of 8, so the 8 lanes of each phase of a 16-byte load
 *    hit 8 different bank groups;
 *  - the window arrives as quads (WindowStage): every load of the window is
 *    in flight at once, and the 16-byte shared stores are free of bank
 *    conflicts.
 * Radii up to ROW_BLOCK_MAX_RADIUS take the row-block kernel instead
 * (2d-row-block.cuh). */
#ifndef CUDACONV_2D_TILED_HALO_CUH
#define CUDACONV_2D_TILED_HALO_CUH

#include "device.cuh"

/* threadIdx.x is the thread's row in the tile, threadIdx.y its group of
 * Tile64::RUN columns */
static_assert (Tile64::THREADS_X == Tile64::TILE_H
        && Tile64::THREADS_Y * Tile64::RUN == Tile64::TILE_W,
    "a block of row threads covers the column kernels' tile");

template <int R> struct TiledHaloLayout {
  static constexpr int LEAD = quad_lead<R> ();
  static constexpr int IN_W = Tile64::TILE_W + 2 * R;
  static constexpr int IN_H = Tile64::TILE_H + 2 * R;
  /* a thread's window of one row, Tile64::RUN + 2r samples from shared column
   * LEAD + Tile64::RUN * threadIdx.y on, read as VECS 16-byte loads from the
   * quad boundary LEAD columns before it */
  static constexpr int WIN = Tile64::RUN + 2 * R;
  static constexpr int VECS = (LEAD + WIN + 3) / 4;
  static constexpr int COLUMNS_READ = (Tile64::THREADS_Y - 1) * Tile64::RUN
      + 4 * VECS;
  static constexpr int MIN_PITCH = COLUMNS_READ > round_up4 (LEAD + IN_W) ?
      COLUMNS_READ :
      round_up4 (LEAD + IN_W);
  static constexpr int PITCH = (MIN_PITCH + 3) / 8 * 8 + 4;
  static constexpr size_t BYTES = sizeof (float) * PITCH * IN_H;
  static_assert (PITCH % 8 == 4 && PITCH >= MIN_PITCH, "conflict-free pitch");
};

/* a[k] += sum_j wa[i][j] * win[k + j] (and b with wb for a gradient
 * magnitude): filter row i applied to a window of one input row, its
 * weights read from the constant bank once and reused by all COLS outputs. */
template <int R, int COLS, bool MAGNITUDE> __device__ __forceinline__ void
accumulate_row (const float *wa, int i, const float (&win)[COLS + 2 * R],
    float (&a)[COLS], float (&b)[COLS])
{
  constexpr int SIDE = 2 * R + 1;
#pragma unroll
  for (int j = 0; j < SIDE; j++) {
    const float w = wa[i * SIDE + j];
#pragma unroll
    for (int k = 0; k < COLS; k++)
      a[k] = fmaf (w, win[k + j], a[k]);
    if (MAGNITUDE) {
      const float wb = wa[SIDE * SIDE + i * SIDE + j];
#pragma unroll
      for (int k = 0; k < COLS; k++)
        b[k] = fmaf (wb, win[k + j], b[k]);
    }
  }
}

/* A window row of WIN floats that starts SKIP floats past the 16-byte
 * boundary at run, read as VECS 16-byte shared loads. */
template <int SKIP, int VECS, int WIN> __device__ __forceinline__ void
load_window_row (const float4 *run, float (&win)[WIN])
{
  static_assert (4 * VECS >= SKIP + WIN, "the loads cover the window");
#pragma unroll
  for (int q = 0; q < VECS; q++) {
    const float4 v = run[q];
    const float f[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int k = 0; k < 4; k++) {
      const int m = 4 * q + k - SKIP;
      if (m >= 0 && m < WIN)
        win[m] = f[k];
    }
  }
}

/* COLS outputs along row y from column x on, offset added; outputs past
 * the plane's right or bottom edge are dropped. A warp's lanes write 32
 * different rows, so each lane's outputs leave as 16-byte stores where the
 * row allows, and as 4-sample stores where only quads are aligned. */
template <typename T, int COLS> __device__ __forceinline__ void
store_row (const ComponentArgs &dst, int x, int y, const float (&v)[COLS],
    float offset)
{
  typedef typename Quad<T>::type QuadT;
  constexpr int QUADS = COLS / 4;
  static_assert (COLS % 4 == 0 && (QUADS * sizeof (QuadT)) % 16 == 0,
      "whole 16-byte vectors");
  if (y >= dst.height)
    return;
  if (x + COLS <= dst.width && moves_as_quads<T> (dst)) {
    QuadT quads[QUADS];
#pragma unroll
    for (int q = 0; q < QUADS; q++) {
      const float quad[4] = { v[4 * q] + offset + 0.5f,
        v[4 * q + 1] + offset + 0.5f, v[4 * q + 2] + offset + 0.5f,
        v[4 * q + 3] + offset + 0.5f };
      quads[q] = pack_floor_saturated ((T *) nullptr, quad, dst);
    }
    char *out = dst.data + (size_t) y * dst.pitch + (size_t) x * sizeof (T);
    if (((reinterpret_cast<uintptr_t> (out)) & 15) == 0) {
      const uint4 *vec = reinterpret_cast<const uint4 *> (quads);
#pragma unroll
      for (int k = 0; k < QUADS * (int) sizeof (QuadT) / 16; k++)
        reinterpret_cast<uint4 *> (out)[k] = vec[k];
    } else {
#pragma unroll
      for (int q = 0; q < QUADS; q++)
        reinterpret_cast<QuadT *> (out)[q] = quads[q];
    }
    return;
  }
#pragma unroll
  for (int k = 0; k < COLS; k++)
    if (x + k < dst.width)
      store_sample<T> (dst, x + k, y, v[k] + offset);
}

/* Register cap: five blocks (40 warps) per SM up to r = 7, whose window row
 * and outputs fit 48 registers; four past it. */
template <int R> constexpr int
tiled_halo_blocks_per_sm ()
{
  return blocks_that_fit (Tile64::THREADS, R <= 7 ? 5 : 4);
}

/* One block's 64 x 64 tile: its window, halo included, staged at tile
 * (TiledHaloLayout < R >::BYTES), then Tile64::RUN outputs per thread along a
 * row. */
template <typename T, int R, bool MAGNITUDE> __device__ __forceinline__ void
tiled_halo_tile (float *tile, const ComponentArgs &src,
    const ComponentArgs &dst, int x0, int y0, const float *taps, float offset,
    CcBorder border)
{
  typedef TiledHaloLayout<R> L;
  constexpr int SIDE = 2 * R + 1;
  WindowStage<T, L::IN_W, L::IN_H, L::LEAD, L::PITCH, Tile64::THREADS> ()
      .fill (tile, src, x0 - R, y0 - R, border);
  __syncthreads ();

  /* the quad boundary LEAD columns before the thread's window */
  const float *row = tile + threadIdx.x * L::PITCH + threadIdx.y * Tile64::RUN;
  float a[Tile64::RUN] = {}, b[Tile64::RUN] = {};
  /* Small filters unroll completely; large ones would overflow the
   * instruction cache. By three where that divides the filter's rows: one
   * loop step (row address, test, branch) per three rows (docs/kernels.md). */
#pragma unroll(R <= 2 ? SIDE : SIDE % 3 == 0 ? 3 : 1)
  for (int i = 0; i < SIDE; i++) {
    float win[L::WIN];
    const float4 *run = reinterpret_cast<const float4 *> (row + i * L::PITCH);
    load_window_row<L::LEAD, L::VECS> (run, win);
    accumulate_row<R, Tile64::RUN, MAGNITUDE> (taps, i, win, a, b);
  }
  finish_magnitude<Tile64::RUN, MAGNITUDE> (a, b);
  store_row<T, Tile64::RUN> (dst, x0 + threadIdx.y * Tile64::RUN,
      y0 + threadIdx.x, a, offset);
}

/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename T, int R, bool MAGNITUDE>
__global__ void __launch_bounds__ (Tile64::THREADS,
    tiled_halo_blocks_per_sm<R> ())
conv_tiled_halo (ComponentArgs src, ComponentArgs dst,
    const __grid_constant__ Taps2D<R, MAGNITUDE> taps, float offset,
    CcBorder border, TileGrid tiles)
/* clang-format on */
{
  extern __shared__ float4 shared_vec[];
  tiled_halo_tile<T, R, MAGNITUDE> (reinterpret_cast<float *> (shared_vec), src,
      dst, tile_x0 (tiles, blockIdx.x, Tile64::TILE_W),
      tile_y0 (tiles, blockIdx.x, Tile64::TILE_H), taps.w, offset, border);
}

#endif /* CUDACONV_2D_TILED_HALO_CUH */

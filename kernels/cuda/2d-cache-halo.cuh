/* cudaconv: the cache-halo strategy (PMPP 7.5).
 *
 * Shared memory holds only the block's 64 x 64 input tile; halo cells are
 * read from global memory, where the neighbouring tiles' own loads leave
 * them in L1/L2. Threads are laid out as in the tiled-halo kernel: each
 * keeps a run of Tile64::RUN outputs along a row, reads a window row per filter
 * row as 16-byte shared loads, and the lanes of a warp take 32 consecutive
 * rows of one group of Tile64::RUN columns. So the halo splits along warps:
 *  - the r columns left and right of the tile concern only the first and
 *    the last column group, whole warps, which read them for every window
 *    row without diverging;
 *  - rows above and below the tile concern the lanes at the top of the
 *    first warp and the bottom of the last of each column group, for r of
 *    the 2r+1 filter rows; those lanes read their whole window row.
 * Halo samples arrive as the whole quads around them, so the family takes
 * only planes whose rows move as quads: on a component of packed pixels,
 * read sample by sample, the halo loads made it 2 to 5 times slower than
 * tiled-halo (docs/kernels.md). Tiles on the plane's rim, whose halo
 * holds ghost cells, stage it with the tile as tiled-halo does
 * (tiled_halo_tile), which resolves them once: a second copy of the loop
 * that resolves ghost cells sample by sample did not fit the instruction
 * cache beside the first, and the kernel spent its time waiting for
 * instructions. Rim tiles are about 9% of a 3840x2160 plane's. Radii up to
 * STRIP_2D_MAX_RADIUS on planes whose rows move as vectors take the strip
 * kernel instead (2d-strip.cuh). */
#ifndef CUDACONV_2D_CACHE_HALO_CUH
#define CUDACONV_2D_CACHE_HALO_CUH

#include "device.cuh"
#include "2d-tiled-halo.cuh"

template <int R> struct CacheHaloLayout {
  /* floats left unwritten before and after each tile row, so that the
   * 16-byte loads of the first and last column group, which start on the
   * quad boundary before their window, stay inside the row */
  static constexpr int PAD = round_up4 (R);
  static constexpr int WIN = Tile64::RUN + 2 * R;
  /* window sample m lies m + SKIP samples past a quad boundary */
  static constexpr int SKIP = PAD - R;
  static constexpr int VECS = (SKIP + WIN + 3) / 4;
  static constexpr int COLUMNS_READ = (Tile64::THREADS_Y - 1) * Tile64::RUN
      + 4 * VECS;
  static constexpr int MIN_PITCH = COLUMNS_READ > 2 * PAD + Tile64::TILE_W ?
      COLUMNS_READ :
      2 * PAD + Tile64::TILE_W;
  /* 4 more than a multiple of 8: the 8 lanes of each phase of a 16-byte
   * load hit 8 different bank groups */
  static constexpr int PITCH = (MIN_PITCH + 3) / 8 * 8 + 4;
  static_assert (PITCH % 8 == 4 && PITCH >= MIN_PITCH, "conflict-free pitch");
  static constexpr size_t TILE_BYTES = sizeof (float) * PITCH * Tile64::TILE_H;
  /* the rim's tiles stage a tiled-halo window in the same memory */
  static constexpr size_t BYTES = TILE_BYTES > TiledHaloLayout<R>::BYTES ?
      TILE_BYTES :
      TiledHaloLayout<R>::BYTES;
};

/* Window samples M0 .. M1 - 1 of the window row at plane row gy whose first
 * sample is at plane column wx, all inside the plane, as the whole quads
 * around them (those quads lie inside the plane too). */
template <typename T, int R, int M0, int M1> __device__ __forceinline__ void
halo_part (const ComponentArgs &src, int wx, int gy,
    float (&win)[CacheHaloLayout<R>::WIN])
{
  typedef CacheHaloLayout<R> L;
  typedef typename Quad<T>::type QuadT;
  if constexpr (M1 > M0) {
    constexpr int FIRST = (M0 + L::SKIP) / 4 * 4 - L::SKIP;
    constexpr int N = (M1 - FIRST + 3) / 4;
    const QuadT *p = reinterpret_cast<const QuadT *> (src.data
        + (size_t) gy * src.pitch + (size_t) (wx + FIRST) * sizeof (T));
#pragma unroll
    for (int q = 0; q < N; q++) {
      const float4 v = quad_to_float4 (__ldg (p + q));
      const float f[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
      for (int k = 0; k < 4; k++) {
        const int m = FIRST + 4 * q + k;
        if (m >= M0 && m < M1)
          win[m] = f[k];
      }
    }
  }
}

template <typename T, int R, bool MAGNITUDE> __device__ __forceinline__ void
cache_halo_tile (float *tile, const ComponentArgs &src,
    const ComponentArgs &dst, int x0, int y0, const float *taps, float offset,
    CcBorder border)
{
  typedef CacheHaloLayout<R> L;
  constexpr int SIDE = 2 * R + 1;
  WindowStage<T, Tile64::TILE_W, Tile64::TILE_H, 0, L::PITCH,
      Tile64::THREADS> ()
      .fill (tile + L::PAD, src, x0, y0, border);
  __syncthreads ();

  const int row = threadIdx.x;
  const int group = threadIdx.y; /* the same in a whole warp */
  /* the plane column of the thread's first window sample */
  const int wx = x0 + group * Tile64::RUN - R;
  float a[Tile64::RUN] = {}, b[Tile64::RUN] = {};
#pragma unroll(R <= 2 ? SIDE : 1)
  for (int i = 0; i < SIDE; i++) {
    const int tile_row = row + i - R;
    const int gy = y0 + tile_row;
    float win[L::WIN];
    if ((unsigned) tile_row < Tile64::TILE_H) {
      const float4 *run = reinterpret_cast<const float4 *> (
          tile + tile_row * L::PITCH + group * Tile64::RUN);
      load_window_row<L::SKIP, L::VECS> (run, win);
      if (group == 0)
        halo_part<T, R, 0, R> (src, wx, gy, win);
      if (group == Tile64::THREADS_Y - 1)
        halo_part<T, R, R + Tile64::RUN, L::WIN> (src, wx, gy, win);
    } else {
      halo_part<T, R, 0, L::WIN> (src, wx, gy, win);
    }
    accumulate_row<R, Tile64::RUN, MAGNITUDE> (taps, i, win, a, b);
  }
  finish_magnitude<Tile64::RUN, MAGNITUDE> (a, b);
  store_row<T, Tile64::RUN> (dst, x0 + group * Tile64::RUN, y0 + row, a,
      offset);
}

/* The selector gives it only planes that move as quads (moves_as_quads). */
/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename T, int R, bool MAGNITUDE>
__global__ void __launch_bounds__ (Tile64::THREADS,
    tiled_halo_blocks_per_sm<R> ())
conv_cache_halo (ComponentArgs src, ComponentArgs dst,
    const __grid_constant__ Taps2D<R, MAGNITUDE> taps, float offset,
    CcBorder border, TileGrid tiles)
/* clang-format on */
{
  typedef CacheHaloLayout<R> L;
  extern __shared__ float4 shared_vec[];
  float *tile = reinterpret_cast<float *> (shared_vec);
  const int x0 = tile_x0 (tiles, blockIdx.x, Tile64::TILE_W);
  const int y0 = tile_y0 (tiles, blockIdx.x, Tile64::TILE_H);
  /* the halo's quads reach PAD columns left and right of the tile */
  const bool inside = x0 >= L::PAD && y0 >= R
      && x0 + Tile64::TILE_W + L::PAD <= src.width
      && y0 + Tile64::TILE_H + R <= src.height;
  if (inside)
    cache_halo_tile<T, R, MAGNITUDE> (tile, src, dst, x0, y0, taps.w, offset,
        border);
  else
    tiled_halo_tile<T, R, MAGNITUDE> (tile, src, dst, x0, y0, taps.w, offset,
        border);
}

#endif /* CUDACONV_2D_CACHE_HALO_CUH */

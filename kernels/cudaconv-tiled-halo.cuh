/* cudaconv: the tiled-halo strategy (PMPP 7.4).
 *
 * The block loads its 64 x 64 input tile plus a halo of r cells on each side
 * into shared memory once, then computes only from shared memory. Beyond the
 * book:
 *  - the radius is a template parameter, so every loop over the window is
 *    unrolled, and each thread keeps NS_ROWS outputs of one column in
 *    registers (see NS_ROWS in cudaconv-device.cuh); threads of a warp read
 *    consecutive shared-memory words, free of bank conflicts;
 *  - the window arrives as quads (WindowStage): every load of the window is
 *    in flight at once, and the 16-byte shared stores are free of bank
 *    conflicts.
 * Radii up to RB_MAX_RADIUS take the row-block kernel instead
 * (cudaconv-row-block.cuh). */
#ifndef CUDACONV_TILED_HALO_CUH
#define CUDACONV_TILED_HALO_CUH

#include "cudaconv-device.cuh"

template < int R > struct TiledHaloLayout {
  static constexpr int LEAD = quad_lead < R > ();
  static constexpr int IN_W = NS_TILE_W + 2 * R;
  static constexpr int IN_H = NS_TILE_H + 2 * R;
  static constexpr int PITCH = round_up4 (LEAD + IN_W);
  static constexpr size_t BYTES = sizeof (float) * PITCH * IN_H;
};

template < typename T, int R, bool MAGNITUDE >
__global__ void __launch_bounds__ (NS_THREADS)
conv_tiled_halo (ChannelArgs src, ChannelArgs dst, int slot, float offset,
    CcBorder border, TileGrid tiles)
{
  typedef TiledHaloLayout < R > L;
  constexpr int SIDE = 2 * R + 1;
  constexpr int WIN = NS_ROWS + 2 * R;
  extern __shared__ float4 shared_vec[];
  float *tile = reinterpret_cast < float *>(shared_vec);

  const int x0 = tile_x0 (tiles, blockIdx.x, NS_TILE_W);
  const int y0 = tile_y0 (tiles, blockIdx.x, NS_TILE_H);
  WindowStage < T, L::IN_W, L::IN_H, L::LEAD, L::PITCH, NS_THREADS > ().fill
      (tile, src, x0 - R, y0 - R, border);
  __syncthreads ();

  const float *column = tile + threadIdx.y * NS_ROWS * L::PITCH + L::LEAD +
      threadIdx.x;
  float a[NS_ROWS] = { }, b[NS_ROWS] = { };
  /* small filters unroll completely; large ones would overflow the
   * instruction cache */
#pragma unroll (R <= 2 ? SIDE : 1)
  for (int j = 0; j < SIDE; j++) {
    float win[WIN];
#pragma unroll
    for (int m = 0; m < WIN; m++)
      win[m] = column[m * L::PITCH + j];
    accumulate_column < R, NS_ROWS, MAGNITUDE > (slot, j, win, a, b);
  }
  finish_magnitude < NS_ROWS, MAGNITUDE > (a, b);
  store_column < T, NS_ROWS > (dst, x0 + threadIdx.x,
      y0 + threadIdx.y * NS_ROWS, a, offset);
}

#endif /* CUDACONV_TILED_HALO_CUH */

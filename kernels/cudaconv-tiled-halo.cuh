/* cudaconv: the tiled-halo strategy (PMPP 7.4).
 *
 * The block loads its 64 x 64 input tile plus a halo of r cells on each side
 * into shared memory once, then computes only from shared memory. Beyond the
 * book: the radius is a template parameter, so every loop over the window is
 * unrolled, and each thread keeps NS_ROWS outputs of one column in registers
 * (see NS_ROWS in cudaconv-device.cuh). Threads of a warp read consecutive
 * shared-memory words, so the loads are free of bank conflicts. */
#ifndef CUDACONV_TILED_HALO_CUH
#define CUDACONV_TILED_HALO_CUH

#include "cudaconv-device.cuh"

template < int R > constexpr size_t
tiled_halo_shared_bytes ()
{
  return sizeof (float) * (NS_TILE_W + 2 * R) * (NS_TILE_H + 2 * R);
}

template < typename T, int R, bool MAGNITUDE >
__global__ void __launch_bounds__ (NS_THREADS)
conv_tiled_halo (ChannelArgs src, ChannelArgs dst, int slot, float offset,
    CcBorder border)
{
  constexpr int SIDE = 2 * R + 1;
  constexpr int IN_W = NS_TILE_W + 2 * R;
  constexpr int IN_H = NS_TILE_H + 2 * R;
  constexpr int WIN = NS_ROWS + 2 * R;
  extern __shared__ float tile[];
  const int x0 = blockIdx.x * NS_TILE_W;
  const int y0 = blockIdx.y * NS_TILE_H;

  load_window < T, IN_W, IN_H, IN_W, NS_THREADS > (tile, src, x0 - R, y0 - R,
      border);
  __syncthreads ();

  const float *column = tile + threadIdx.y * NS_ROWS * IN_W + threadIdx.x;
  float a[NS_ROWS] = { }, b[NS_ROWS] = { };
  /* small filters unroll completely; large ones would overflow the
   * instruction cache */
#pragma unroll (R <= 2 ? SIDE : 1)
  for (int j = 0; j < SIDE; j++) {
    float win[WIN];
#pragma unroll
    for (int m = 0; m < WIN; m++)
      win[m] = column[m * IN_W + j];
    accumulate_column < R, NS_ROWS, MAGNITUDE > (slot, j, win, a, b);
  }
  finish_magnitude < NS_ROWS, MAGNITUDE > (a, b);
  store_column < T, NS_ROWS > (dst, x0 + threadIdx.x,
      y0 + threadIdx.y * NS_ROWS, a, offset);
}

#endif /* CUDACONV_TILED_HALO_CUH */

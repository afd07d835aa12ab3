/* cudaconv: the cache-halo strategy (PMPP 7.5).
 *
 * Shared memory holds only the block's 64 x 64 input tile; halo cells are
 * read from global memory, where the neighbouring blocks' own tile loads
 * leave them in L1/L2. Each thread keeps NS_ROWS outputs of a column in
 * registers, as in the tiled-halo kernel, and per filter column j fills a
 * window of NS_ROWS + 2r samples:
 *  - when the whole warp's window lies in the tile (the middle warps, for
 *    the filter columns that do not reach past the tile's side), straight
 *    from shared memory, with no test per sample;
 *  - otherwise each sample comes from shared memory or global memory by a
 *    predicate, never a branch, and only blocks on the plane's rim resolve
 *    ghost cells (a separate copy of the loop, so the common one stays
 *    small). */
#ifndef CUDACONV_CACHE_HALO_CUH
#define CUDACONV_CACHE_HALO_CUH

#include "cudaconv-device.cuh"

template < typename T, int R, bool RIM > __device__ __forceinline__ void
cache_halo_window (const float *tile, const ChannelArgs & src, int x0, int y0,
    int sx, int row0, bool warp_in_tile, CcBorder border,
    float (&win)[NS_ROWS + 2 * R])
{
  constexpr int WIN = NS_ROWS + 2 * R;
  if (warp_in_tile) {
#pragma unroll
    for (int m = 0; m < WIN; m++)
      win[m] = tile[(row0 + m - R) * NS_TILE_W + sx];
    return;
  }
  const bool column_in_tile = (unsigned) sx < NS_TILE_W;
  const T *column = reinterpret_cast < const T *>(src.data) +
      (size_t) (x0 + sx) * src.pixel_stride;
#pragma unroll
  for (int m = 0; m < WIN; m++) {
    const int sy = row0 + m - R;
    /* window rows R .. NS_ROWS + R - 1 lie inside every tile */
    const bool in_tile = column_in_tile && ((m >= R && m < NS_ROWS + R)
        || (unsigned) sy < NS_TILE_H);
    if (in_tile)
      win[m] = tile[sy * NS_TILE_W + sx];
    else if (RIM)
      win[m] = load_bordered < T > (src, x0 + sx, y0 + sy, border);
    else
      win[m] = (float) __ldg (reinterpret_cast < const T *>(
              reinterpret_cast < const char *>(column) +
              (size_t) (y0 + sy) * src.pitch));
  }
}

template < typename T, int R, bool MAGNITUDE, bool RIM >
__device__ __forceinline__ void
cache_halo_compute (const float *tile, const ChannelArgs & src,
    const ChannelArgs & dst, int slot, float offset, CcBorder border)
{
  constexpr int SIDE = 2 * R + 1;
  constexpr int WIN = NS_ROWS + 2 * R;
  const int x0 = blockIdx.x * NS_TILE_W;
  const int y0 = blockIdx.y * NS_TILE_H;
  const int row0 = threadIdx.y * NS_ROWS;       /* the same in a whole warp */
  const int warp_x = threadIdx.x & ~31;
  const bool rows_in_tile = R == 0
      || (threadIdx.y != 0 && threadIdx.y != NS_THREADS_Y - 1);
  float a[NS_ROWS] = { }, b[NS_ROWS] = { };
#pragma unroll (R <= 2 ? SIDE : 1)
  for (int j = 0; j < SIDE; j++) {
    const int sx = threadIdx.x + j - R;
    const bool warp_in_tile = rows_in_tile && warp_x + j - R >= 0
        && warp_x + 31 + j - R < NS_TILE_W;
    float win[WIN];
    cache_halo_window < T, R, RIM > (tile, src, x0, y0, sx, row0,
        warp_in_tile, border, win);
    accumulate_column < R, NS_ROWS, MAGNITUDE > (slot, j, win, a, b);
  }
  finish_magnitude < NS_ROWS, MAGNITUDE > (a, b);
  store_column < T, NS_ROWS > (dst, x0 + threadIdx.x, y0 + row0, a, offset);
}

/* Register cap: at least three blocks (24 warps) per SM, four for small
 * windows, so that enough warps hide the latency of the halo's loads. */
template < typename T, int R, bool MAGNITUDE >
__global__ void __launch_bounds__ (NS_THREADS, R <= 7 ? 4 : 3)
conv_cache_halo (ChannelArgs src, ChannelArgs dst, int slot, float offset,
    CcBorder border)
{
  __shared__ float tile[NS_TILE_H * NS_TILE_W];
  const int x0 = blockIdx.x * NS_TILE_W;
  const int y0 = blockIdx.y * NS_TILE_H;
  /* Tile cells past the plane's right or bottom edge hold their ghost value,
   * so the compute loop only has to tell tile from halo. */
  load_window < T, NS_TILE_W, NS_TILE_H, NS_TILE_W, NS_THREADS > (tile, src,
      x0, y0, border);
  __syncthreads ();

  const bool interior = x0 >= R && y0 >= R
      && x0 + NS_TILE_W + R <= src.width && y0 + NS_TILE_H + R <= src.height;
  if (interior)
    cache_halo_compute < T, R, MAGNITUDE, false > (tile, src, dst, slot,
        offset, border);
  else
    cache_halo_compute < T, R, MAGNITUDE, true > (tile, src, dst, slot,
        offset, border);
}

#endif /* CUDACONV_CACHE_HALO_CUH */

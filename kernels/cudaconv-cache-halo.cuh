/* cudaconv: the cache-halo strategy (PMPP 7.5).
 *
 * Shared memory holds only the block's 64 x 64 input tile; halo cells are
 * read from global memory, where the neighbouring tiles' own loads leave
 * them in L1/L2. Each thread keeps a run of NS_RUN outputs down a column
 * in registers, and per filter column j fills a
 * window of NS_RUN + 2r samples in three parts: the r rows above its
 * outputs, its NS_RUN rows, the r rows below. Whether a part lies in the
 * tile depends on the warp's row of threads and on the lane's column, so
 * only warps whose columns straddle the tile's side diverge. A part outside
 * the tile is read from global memory with every load issued before the
 * first is used, so the halo costs one trip to L1/L2 per part, not one per
 * sample. Only tiles on the plane's rim resolve ghost
 * cells (a separate copy of the loop, so the common one stays small).
 * Radii up to ST_MAX_RADIUS on planes that move as quads take the strip
 * kernel instead (cudaconv-cache-halo-strip.cuh).
 */
#ifndef CUDACONV_CACHE_HALO_CUH
#define CUDACONV_CACHE_HALO_CUH

#include "cudaconv-device.cuh"

/* Window rows M0 .. M1 - 1 of the column sx (tile coordinates) whose
 * outputs start at tile row row0. in_tile is the same for every lane of
 * the warp except where the warp's columns straddle the tile's side. */
template < typename T, int R, bool RIM, int M0, int M1, int WIN >
__device__ __forceinline__ void
cache_halo_part (const float *tile, const ChannelArgs & src, int x0, int y0,
    int sx, int row0, bool in_tile, CcBorder border, float (&win)[WIN])
{
  if (in_tile) {
#pragma unroll
    for (int m = M0; m < M1; m++)
      win[m] = tile[(row0 + m - R) * NS_TILE_W + sx];
  } else if (RIM) {
#pragma unroll
    for (int m = M0; m < M1; m++)
      win[m] = load_bordered < T > (src, x0 + sx, y0 + row0 + m - R, border);
  } else {
    const char *column = src.data + (size_t) (x0 + sx) * src.pixel_stride *
        sizeof (T);
#pragma unroll
    for (int m = M0; m < M1; m++)
      win[m] = sample_to_float (__ldg (reinterpret_cast < const T *>(column +
                  (size_t) (y0 + row0 + m - R) * src.pitch)));
  }
}

template < typename T, int R, bool MAGNITUDE, bool RIM >
__device__ __forceinline__ void
cache_halo_compute (const float *tile, const ChannelArgs & src,
    const ChannelArgs & dst, int x0, int y0, int slot, float offset,
    CcBorder border)
{
  constexpr int SIDE = 2 * R + 1;
  constexpr int WIN = NS_RUN + 2 * R;
  static_assert (NS_RUN >= R, "a thread's halo rows come from one side");
  const int row0 = threadIdx.y * NS_RUN;       /* the same in a whole warp */
  const bool top_in_tile = threadIdx.y != 0;
  const bool bottom_in_tile = threadIdx.y != NS_THREADS_Y - 1;
  float a[NS_RUN] = { }, b[NS_RUN] = { };
#pragma unroll (R <= 2 ? SIDE : 1)
  for (int j = 0; j < SIDE; j++) {
    const int sx = threadIdx.x + j - R;
    const bool column_in_tile = (unsigned) sx < NS_TILE_W;
    float win[WIN];
    cache_halo_part < T, R, RIM, 0, R > (tile, src, x0, y0, sx, row0,
        column_in_tile && top_in_tile, border, win);
    cache_halo_part < T, R, RIM, R, R + NS_RUN > (tile, src, x0, y0, sx,
        row0, column_in_tile, border, win);
    cache_halo_part < T, R, RIM, R + NS_RUN, WIN > (tile, src, x0, y0, sx,
        row0, column_in_tile && bottom_in_tile, border, win);
    accumulate_column < R, NS_RUN, MAGNITUDE > (slot, j, win, a, b);
  }
  finish_magnitude < NS_RUN, MAGNITUDE > (a, b);
  store_column < T, NS_RUN > (dst, x0 + threadIdx.x, y0 + row0, a, offset);
}

/* Register cap: at least three blocks (24 warps) per SM, four for small
 * windows, so that enough warps hide the latency of the halo's loads. */
template < typename T, int R, bool MAGNITUDE >
__global__ void __launch_bounds__ (NS_THREADS, R <= 7 ? 4 : 3)
conv_cache_halo (ChannelArgs src, ChannelArgs dst, int slot, float offset,
    CcBorder border, TileGrid tiles)
{
  __shared__ float4 tile_vec[NS_TILE_H * NS_TILE_W / 4];
  float *tile = reinterpret_cast < float *>(tile_vec);
  /* Tile cells past the plane's right or bottom edge hold their ghost value,
   * so the compute loop only has to tell tile from halo. */
  const int x0 = tile_x0 (tiles, blockIdx.x, NS_TILE_W);
  const int y0 = tile_y0 (tiles, blockIdx.x, NS_TILE_H);
  WindowStage < T, NS_TILE_W, NS_TILE_H, 0, NS_TILE_W, NS_THREADS > ().fill
      (tile, src, x0, y0, border);
  __syncthreads ();

  const bool interior = x0 >= R && y0 >= R
      && x0 + NS_TILE_W + R <= src.width && y0 + NS_TILE_H + R <= src.height;
  if (interior)
    cache_halo_compute < T, R, MAGNITUDE, false > (tile, src, dst, x0, y0,
        slot, offset, border);
  else
    cache_halo_compute < T, R, MAGNITUDE, true > (tile, src, dst, x0, y0,
        slot, offset, border);
}

#endif /* CUDACONV_CACHE_HALO_CUH */

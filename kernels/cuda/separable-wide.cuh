/* cudaconv: the separable path for CC_SHAPE_WIDE filters (radius up to
 * CC_MAX_WIDE_RADIUS), whose factors are too long for the tile kernels'
 * staged windows and whose radii are too many to compile one by one.
 *
 * Two kernels with an fp32 intermediate in the caller's workspace, the
 * radius a runtime argument:
 *  - row pass: a warp per WideTuning::ROW_SEGMENT outputs of one row; the
 *    warp stages its window (border resolved, as floats) in shared memory
 *    and each lane computes ROW_RUN consecutive outputs from a register
 *    window that slides ROW_RUN taps at a time, so each 16-byte shared
 *    load feeds ROW_RUN multiply-adds per tap;
 *  - column pass: a thread per COL_RUN consecutive outputs of one column,
 *    the intermediate's rows through L1 into a register window the same
 *    way (COL_RUN multiply-adds per load), then the centre term, the
 *    offset and the rounded store.
 * The factors are kernel parameters (the constant bank, as every family
 * reads its taps), padded with zeros to whole runs so the loops need no
 * tail. */
#ifndef CUDACONV_SEPARABLE_WIDE_CUH
#define CUDACONV_SEPARABLE_WIDE_CUH

#include "device.cuh"

/* The family's tuning */
struct WideTuning {
  /* row pass: outputs per lane, warps per block */
  static constexpr int ROW_RUN = 8;
  static constexpr int ROW_WARPS = 8;
  static constexpr int ROW_SEGMENT = 32 * ROW_RUN;
  /* column pass: outputs per thread, a block of 64 x 4 threads */
  static constexpr int COL_RUN = 16;
  static constexpr int COL_THREADS_X = 64;
  static constexpr int COL_THREADS_Y = 4;
  static constexpr int COL_TILE_H = COL_THREADS_Y * COL_RUN;
  /* a factor padded to whole runs of either pass past its last tap */
  static constexpr int TAPS = (CC_MAX_WIDE_SIDE + 2 * COL_RUN + 15) / 16 * 16;
  /* shared floats of a warp's row window: the segment, 2r, a run of
   * padding, rounded to quads */
  __host__ __device__ static constexpr int row_window (int r)
  {
    return (ROW_SEGMENT + 2 * r + ROW_RUN + 3) / 4 * 4;
  }
};

/* One factor as a kernel parameter, zero past its 2r+1 taps */
struct WideFactor {
  float t[WideTuning::TAPS];
};

static_assert (sizeof (WideFactor) + 2 * sizeof (ComponentArgs) + 64 <= 4096,
    "a factor and the other kernel parameters fit 4 KB");

/* mid row y, columns of segment blockIdx.x * ROW_WARPS + warp: the row
 * factor along source row y */
template <typename T>
__global__ void __launch_bounds__ (32 * WideTuning::ROW_WARPS)
wide_rows (ComponentArgs src, float *mid, int mid_pitch,
    const __grid_constant__ WideFactor taps, int radius, CcBorder border,
    int segments)
{
  constexpr int RUN = WideTuning::ROW_RUN;
  extern __shared__ float4 wide_row_shared[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int window = WideTuning::row_window (radius);
  float *win = reinterpret_cast<float *> (wide_row_shared) + warp * window;
  const int task = blockIdx.x * WideTuning::ROW_WARPS + warp;
  const int y = task / segments;
  const int x0 = (task - y * segments) * WideTuning::ROW_SEGMENT;
  if (y >= src.height)
    return;

  for (int p = lane; p < window; p += 32)
    win[p] = p < WideTuning::ROW_SEGMENT + 2 * radius ?
        load_bordered<T> (src, x0 - radius + p, y, border) :
        0.0f;
  __syncwarp ();

  const float4 *in = reinterpret_cast<const float4 *> (win + lane * RUN);
  float acc[RUN], w[2 * RUN];
#pragma unroll
  for (int p = 0; p < RUN; p++)
    acc[p] = 0.0f;
#pragma unroll
  for (int q = 0; q < RUN / 4; q++) {
    const float4 v = in[q];
    w[4 * q] = v.x;
    w[4 * q + 1] = v.y;
    w[4 * q + 2] = v.z;
    w[4 * q + 3] = v.w;
  }
  for (int j0 = 0; j0 <= 2 * radius; j0 += RUN) {
#pragma unroll
    for (int q = 0; q < RUN / 4; q++) {
      const float4 v = in[(j0 + RUN) / 4 + q];
      w[RUN + 4 * q] = v.x;
      w[RUN + 4 * q + 1] = v.y;
      w[RUN + 4 * q + 2] = v.z;
      w[RUN + 4 * q + 3] = v.w;
    }
#pragma unroll
    for (int jj = 0; jj < RUN; jj++) {
      const float t = taps.t[j0 + jj];
#pragma unroll
      for (int p = 0; p < RUN; p++)
        acc[p] = fmaf (t, w[p + jj], acc[p]);
    }
#pragma unroll
    for (int p = 0; p < RUN; p++)
      w[p] = w[RUN + p];
  }

  /* through shared memory, so that the warp's stores are whole rows */
  __syncwarp ();
#pragma unroll
  for (int p = 0; p < RUN; p++)
    win[lane * RUN + p] = acc[p];
  __syncwarp ();
  float *out = mid + (size_t) y * mid_pitch + x0;
#pragma unroll
  for (int k = 0; k < RUN; k++) {
    const int x = lane + 32 * k;
    if (x0 + x < src.width)
      out[x] = win[x];
  }
}

/* Outputs (x, y .. y + COL_RUN - 1): centre * in + the column factor down
 * the mid rows + offset, rounded */
template <typename T>
__global__ void __launch_bounds__ (
    WideTuning::COL_THREADS_X * WideTuning::COL_THREADS_Y)
wide_columns (ComponentArgs src, ComponentArgs dst, const float *mid,
    int mid_pitch, const __grid_constant__ WideFactor taps, float centre,
    int radius, float offset, CcBorder border, TileGrid tiles)
{
  constexpr int RUN = WideTuning::COL_RUN;
  const int x = tile_x0 (tiles, blockIdx.x, WideTuning::COL_THREADS_X)
      + threadIdx.x;
  const int y = tile_y0 (tiles, blockIdx.x, WideTuning::COL_TILE_H)
      + threadIdx.y * RUN;
  const int h = dst.height;
  if (x >= dst.width || y >= h)
    return;
  /* the window's rows y - r .. y + 2r + 2 RUN - 1 all inside the plane:
   * no row needs the border */
  const bool inside = y - radius >= 0
      && y - radius + (2 * radius / RUN + 2) * RUN <= h;
  const float *column = mid + x;
  auto row = [&] (int m) -> float {
    const int i = y - radius + m;
    if (inside)
      return __ldg (column + (size_t) i * mid_pitch);
    const int sy = cc_border_index (i, h, border);
    return sy < 0 ? 0.0f : __ldg (column + (size_t) sy * mid_pitch);
  };

  float acc[RUN], w[2 * RUN];
#pragma unroll
  for (int p = 0; p < RUN; p++) {
    acc[p] = 0.0f;
    w[p] = row (p);
  }
  for (int j0 = 0; j0 <= 2 * radius; j0 += RUN) {
#pragma unroll
    for (int p = 0; p < RUN; p++)
      w[RUN + p] = row (j0 + RUN + p);
#pragma unroll
    for (int jj = 0; jj < RUN; jj++) {
      const float t = taps.t[j0 + jj];
#pragma unroll
      for (int p = 0; p < RUN; p++)
        acc[p] = fmaf (t, w[p + jj], acc[p]);
    }
#pragma unroll
    for (int p = 0; p < RUN; p++)
      w[p] = w[RUN + p];
  }
#pragma unroll
  for (int p = 0; p < RUN; p++)
    if (y + p < h)
      store_sample<T> (dst, x, y + p,
          fmaf (centre, load_sample<T> (src, x, y + p), acc[p]) + offset);
}

#endif /* CUDACONV_SEPARABLE_WIDE_CUH */

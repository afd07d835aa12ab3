/* cudaconv: the tiled-halo strategy for small radii (r <=
 * ROW_BLOCK_MAX_RADIUS), where a convolution costs a few multiply-adds per
 * sample and the instructions around them (moving samples in, rounding and
 * storing them out) decide the speed.
 *
 * Each thread computes a block of RowBlock::ROWS x 4 outputs. Per input row it
 * reads the 4 + 2r samples its four columns need with one to three vector
 * loads from shared memory, and adds that row to every output row it
 * touches: exactly (2r+1)^2 multiply-adds per output, the weights in
 * registers. The four outputs of a row leave as one 4-sample store.
 *
 * The block's window (its 128 x 64 tile and the halo) reaches shared memory
 * as quads (4 samples): warp w moves rows w, w + 8, ... with one quad per
 * lane, so every address is a constant offset from the thread's first one,
 * and the halo's quads left and right of the tile follow. Tiles whose
 * window leaves the plane, and planes that are not quad-aligned, take the
 * general WindowStage, which resolves ghost cells. */
#ifndef CUDACONV_2D_ROW_BLOCK_CUH
#define CUDACONV_2D_ROW_BLOCK_CUH

#include "device.cuh"
#include "radii.cuh"

/* The family's tuning: 32 x 8 threads of 8 rows x 4 columns of outputs. */
struct RowBlock {
  static constexpr int THREADS_X = 32;
  static constexpr int THREADS_Y = 8;
  static constexpr int THREADS = THREADS_X * THREADS_Y;
  static constexpr int COLS = 4;
  static constexpr int ROWS = 8;
  static constexpr int TILE_W = THREADS_X * COLS;
  static constexpr int TILE_H = THREADS_Y * ROWS;
};

template <int R> struct RowBlockLayout {
  static constexpr int HALO_QUADS = (R + 3) / 4;
  static constexpr int LEAD = 4 * HALO_QUADS - R;
  static constexpr int IN_W = RowBlock::TILE_W + 2 * R;
  static constexpr int IN_H = RowBlock::TILE_H + 2 * R;
  static constexpr int QUADS_X = RowBlock::TILE_W / 4 + 2 * HALO_QUADS;
  static constexpr int PITCH = 4 * QUADS_X;
  static constexpr size_t BYTES = sizeof (float) * PITCH * IN_H;
  static_assert (quad_lead<R> () == LEAD, "one window layout");
};

/* The window of a tile whose quads all lie inside a quad-aligned plane. */
template <typename T, int R> struct InteriorStage {
  typedef RowBlockLayout<R> L;
  typedef typename Quad<T>::type QuadT;
  static constexpr int MAIN = (L::IN_H + RowBlock::THREADS_Y - 1)
      / RowBlock::THREADS_Y;
  static constexpr int HALO_ITEMS = L::IN_H * 2 * L::HALO_QUADS;
  static constexpr int HALO = (HALO_ITEMS + RowBlock::THREADS - 1)
      / RowBlock::THREADS;
  /* halo quads per row, never 0 (r = 0 has no halo, and no halo loop) */
  static constexpr int HALO_ROW = L::HALO_QUADS > 0 ? 2 * L::HALO_QUADS : 1;

  QuadT main[MAIN], halo[HALO > 0 ? HALO : 1];

  /* Window row and quad column of the thread's n-th halo quad (the quads
   * left and right of the tile's); false past the last. */
  static __device__ __forceinline__ bool halo_quad (int n, int &row, int &col)
  {
    const int item = threadIdx.y * RowBlock::THREADS_X + threadIdx.x
        + n * RowBlock::THREADS;
    row = item / HALO_ROW;
    const int q = item - row * HALO_ROW;
    col = q < L::HALO_QUADS ? q : q + RowBlock::TILE_W / 4;
    return item < HALO_ITEMS;
  }

  __device__ __forceinline__ void load (const ComponentArgs &src, int x0,
      int y0)
  {
    const int qx = x0 - 4 * L::HALO_QUADS, wy = y0 - R;
    const char *p = src.data + (size_t) (wy + threadIdx.y) * src.pitch
        + (size_t) (qx + 4 * (L::HALO_QUADS + threadIdx.x)) * sizeof (T);
    const size_t step = (size_t) RowBlock::THREADS_Y * src.pitch;
#pragma unroll
    for (int n = 0; n < MAIN; n++, p += step)
      if (threadIdx.y + n * RowBlock::THREADS_Y < L::IN_H)
        main[n] = __ldg (reinterpret_cast<const QuadT *> (p));
#pragma unroll
    for (int n = 0; n < HALO; n++) {
      int row, col;
      if (halo_quad (n, row, col))
        halo[n] = __ldg (reinterpret_cast<const QuadT *> (src.data
            + (size_t) (wy + row) * src.pitch
            + (size_t) (qx + 4 * col) * sizeof (T)));
    }
  }

  __device__ __forceinline__ void store (float *smem) const
  {
    float *first = smem + threadIdx.y * L::PITCH
        + 4 * (L::HALO_QUADS + threadIdx.x);
#pragma unroll
    for (int n = 0; n < MAIN; n++)
      if (threadIdx.y + n * RowBlock::THREADS_Y < L::IN_H)
        *reinterpret_cast<float4 *> (first
            + n * RowBlock::THREADS_Y * L::PITCH) = quad_to_float4 (main[n]);
#pragma unroll
    for (int n = 0; n < HALO; n++) {
      int row, col;
      if (halo_quad (n, row, col))
        *reinterpret_cast<float4 *> (
            smem + row * L::PITCH + 4 * col) = quad_to_float4 (halo[n]);
    }
  }
};

/* seg[k] = p[S + k] for k < E - S, p 16-byte aligned: the widest aligned
 * vector loads that cover the span. */
template <int O, int S, int E> struct SpanLoad {
  template <int N>
  static __device__ __forceinline__ void run (const float *p, float (&seg)[N])
  {
    if constexpr (O < E) {
      if constexpr (O % 4 == 0 && O + 4 <= E) {
        const float4 v = *reinterpret_cast<const float4 *> (p + O);
        seg[O - S] = v.x;
        seg[O - S + 1] = v.y;
        seg[O - S + 2] = v.z;
        seg[O - S + 3] = v.w;
        SpanLoad<O + 4, S, E>::run (p, seg);
      } else if constexpr (O % 2 == 0 && O + 2 <= E) {
        const float2 v = *reinterpret_cast<const float2 *> (p + O);
        seg[O - S] = v.x;
        seg[O - S + 1] = v.y;
        SpanLoad<O + 2, S, E>::run (p, seg);
      } else {
        seg[O - S] = p[O];
        SpanLoad<O + 1, S, E>::run (p, seg);
      }
    }
  }
};

/* Four blocks (32 warps) per SM: with fewer, the 1020 tiles of a 2160p
 * plane leave the last wave of blocks half empty and each block's load
 * phase has too little company to hide behind. */
/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename T, int R, bool MAGNITUDE>
__global__ void __launch_bounds__ (RowBlock::THREADS,
    blocks_that_fit (RowBlock::THREADS, 4))
conv_row_block (ComponentArgs src, ComponentArgs dst,
    const __grid_constant__ Taps2D<R, MAGNITUDE> taps, float offset,
    CcBorder border, TileGrid tiles)
/* clang-format on */
{
  typedef RowBlockLayout<R> L;
  typedef typename Quad<T>::type QuadT;
  /* tiles whose window leaves the plane, and planes that are not
   * quad-aligned */
  typedef WindowStage<T, L::IN_W, L::IN_H, L::LEAD, L::PITCH, RowBlock::THREADS>
      RimStage;
  constexpr int SIDE = 2 * R + 1;
  constexpr int SEG = RowBlock::COLS + 2 * R;
  extern __shared__ float4 shared_vec[];
  float *tile = reinterpret_cast<float *> (shared_vec);
  const int x0 = tile_x0 (tiles, blockIdx.x, RowBlock::TILE_W);
  const int y0 = tile_y0 (tiles, blockIdx.x, RowBlock::TILE_H);

  /* the block is RowBlock::THREADS_X x RowBlock::THREADS_Y (the launch says
   * so); knowing it lets the compiler drop row tests that cannot fail */
  __builtin_assume (
      threadIdx.x < RowBlock::THREADS_X && threadIdx.y < RowBlock::THREADS_Y);
  if (moves_as_quads<T> (src) && x0 - 4 * L::HALO_QUADS >= 0 && y0 - R >= 0
      && x0 + RowBlock::TILE_W + 4 * L::HALO_QUADS <= src.width
      && y0 + RowBlock::TILE_H + R <= src.height) {
    InteriorStage<T, R> stage;
    stage.load (src, x0, y0);
    stage.store (tile);
  } else {
    RimStage ().fill (tile, src, x0 - R, y0 - R, border);
  }

  float w[SIDE * SIDE], wb[MAGNITUDE ? SIDE * SIDE : 1];
  load_weights<SIDE, MAGNITUDE> (taps.w, w, wb);
  /* a linear filter's sums start at offset + 0.5, where rounding wants them */
  const float start = MAGNITUDE ? 0.0f : offset + 0.5f;
  float a[RowBlock::ROWS][RowBlock::COLS], b[RowBlock::ROWS][RowBlock::COLS];
#pragma unroll
  for (int o = 0; o < RowBlock::ROWS; o++)
#pragma unroll
    for (int q = 0; q < RowBlock::COLS; q++) {
      a[o][q] = start;
      if (MAGNITUDE)
        b[o][q] = 0.0f;
    }
  __syncthreads ();

  const float *rows = tile + threadIdx.y * RowBlock::ROWS * L::PITCH
      + RowBlock::COLS * threadIdx.x;
#pragma unroll
  for (int m = 0; m < RowBlock::ROWS + 2 * R; m++) {
    float seg[SEG];
    SpanLoad<L::LEAD, L::LEAD, L::LEAD + SEG>::run (rows + m * L::PITCH, seg);
#pragma unroll
    for (int i = 0; i < SIDE; i++) {
      const int o = m - i;
      if (o < 0 || o >= RowBlock::ROWS)
        continue;
#pragma unroll
      for (int q = 0; q < RowBlock::COLS; q++)
#pragma unroll
        for (int j = 0; j < SIDE; j++) {
          a[o][q] = fmaf (w[i * SIDE + j], seg[q + j], a[o][q]);
          if (MAGNITUDE)
            b[o][q] = fmaf (wb[i * SIDE + j], seg[q + j], b[o][q]);
        }
    }
  }

  const int x = x0 + RowBlock::COLS * threadIdx.x;
  const int y = y0 + RowBlock::ROWS * threadIdx.y;
#pragma unroll
  for (int o = 0; o < RowBlock::ROWS; o++)
    finish_magnitude<RowBlock::COLS, MAGNITUDE> (a[o], b[o]);
  /* a magnitude's offset + 0.5 comes after its square root */
  if (MAGNITUDE) {
#pragma unroll
    for (int o = 0; o < RowBlock::ROWS; o++)
#pragma unroll
      for (int q = 0; q < RowBlock::COLS; q++)
        a[o][q] += offset + 0.5f;
  }
  if (moves_as_quads<T> (dst) && x0 + RowBlock::TILE_W <= dst.width
      && y0 + RowBlock::TILE_H <= dst.height) {
    static_assert (RowBlock::COLS == 4,
        "a thread's outputs of a row are one quad");
    char *out = dst.data + (size_t) y * dst.pitch + (size_t) x * sizeof (T);
#pragma unroll
    for (int o = 0; o < RowBlock::ROWS; o++, out += dst.pitch) {
      const QuadT packed = pack_floor_saturated ((T *) nullptr, a[o], dst);
      *reinterpret_cast<QuadT *> (out) = packed;
    }
  } else {
    /* tiles on the plane's right or bottom edge, other layouts */
#pragma unroll
    for (int o = 0; o < RowBlock::ROWS; o++) {
#pragma unroll
      for (int q = 0; q < RowBlock::COLS; q++) {
        if (y + o >= dst.height || x + q >= dst.width)
          continue;
        store_rounded<T> (dst, x + q, y + o, round_biased_sample<T> (a[o][q]));
      }
    }
  }
}

#endif /* CUDACONV_2D_ROW_BLOCK_CUH */

/* cudaconv: the separable path for radii 1 to STRIP_FP32_MAX_RADIUS on planes
 * in whole quads, on the FP32 units, streaming: no block-wide staging and no
 * __syncthreads, as the 2D strip kernel (2d-strip.cuh).
 *
 * Each warp walks down a strip sep_strip_rows() rows tall and 32 quads
 * wide; a lane owns one quad (4 samples) of a row, one 4- or 8-byte load.
 * The column pass comes first:
 *  - per input row, a lane converts its quad and adds it to the 2r+1
 *    output rows it touches, whose column sums wait in registers, output
 *    row o in ring slot o % (2r+1);
 *  - finished rows of column sums go through per-warp rows of shared
 *    memory (a 16-byte store each, a __syncwarp) to the row pass, which
 *    needs r sums either side of each quad (2 ceil(r/4) + 1 16-byte loads).
 *
 * Column first, because the halo then costs little: each input row adds to
 * the output rows of the strip it touches and to no others, so a strip
 * does exactly 2r+1 column multiply-adds per output, its r halo rows above
 * and below costing only their loads; and the halo columns are whole
 * lanes, ceil(r/4) at each side of the warp, that compute column sums for
 * their neighbours and store nothing. A row pass first would redo the row
 * sums of the 2r halo rows of every strip.
 *
 * The rows run in three parts, so that ring slots are constants and the
 * rows in the middle have no test:
 *  - the first 2r input rows, unrolled: column sums only; the first r may
 *    lie above the plane;
 *  - chunks of 2r+1 input rows (sep_strip_chunks()), a loop: each
 *    chunk's column pass is unrolled and finishes 2r+1 output rows, whose
 *    row passes then run as a loop of one row. Row passes unrolled among
 *    the column passes made the loop body 15 rows of code at r7 (2.4 k
 *    instructions), and half of the warps' stalls were instruction fetch
 *    (ncu); these rows lie inside the plane and load StripFp32::AHEAD rows
 *    ahead;
 *  - the last rows, unrolled, where the outputs still open are finished
 *    and the r rows below the strip may lie below the plane.
 *
 * Ghost cells: strips lie inside the plane (the last strip of a column
 * moves up to end at its last row), so rows outside it are met only in the
 * first and last parts, where each row's pointer goes through the border.
 * Columns outside it concern only the warps at the plane's sides, which
 * run their own copy of the code (GATHER): there a lane's 4 samples come
 * one by one from the columns the border names, fixed for the whole strip,
 * while the other warps load a quad.
 *
 * On an H100 this kernel beats the tile kernels up to r4
 * (STRIP_FP32_MAX_RADIUS); the tensor-core streaming kernel takes 8-bit planes
 * from r3 and 16-bit ones from r5 (docs/kernels.md). */
#ifndef CUDACONV_SEPARABLE_STRIP_FP32_CUH
#define CUDACONV_SEPARABLE_STRIP_FP32_CUH

#include "device.cuh"
#include "radii.cuh"

/* The family's tuning. */
struct StripFp32 {
  static constexpr int LANES = 32;
  /* samples per lane */
  static constexpr int V = 4;
  /* one warp per block, so that a plane's strips spread evenly over the
   * SMs */
  static constexpr int WARPS = 1;
  /* warps per SM that the register budget is set for (96 registers) */
  static constexpr int SM_WARPS = 20;
  /* input rows whose loads are in flight ahead of the one being added up */
  static constexpr int AHEAD = 4;
  /* output rows a strip aims at on large planes (sep_strip_chunks): 45
   * measured slower, 20 no faster */
  static constexpr int TARGET_ROWS = 30;
  /* warps per SM below which a plane's strips get fewer chunks, which hid
   * the loads' latency better on 1920x1080 (docs/kernels.md) */
  static constexpr int MIN_SM_WARPS = 12;
};

/* lanes at each side of a warp that only feed their neighbours */
template <int R> __host__ __device__ constexpr int
ss_halo_lanes ()
{
  return (R + StripFp32::V - 1) / StripFp32::V;
}

/* output columns per warp */
template <int R> __host__ __device__ constexpr int
ss_tile_w ()
{
  return StripFp32::V * (StripFp32::LANES - 2 * ss_halo_lanes<R> ());
}

/* input rows after the chunks: enough for the outputs of the chunks' rows
 * to lie inside the strip (2r), and for their loads ahead to lie inside
 * it or its r rows below (r + StripFp32::AHEAD) */
template <int R> __host__ __device__ constexpr int
ss_tail_rows ()
{
  return 2 * R > R + StripFp32::AHEAD ? 2 * R : R + StripFp32::AHEAD;
}

/* chunks per strip where the plane is large: a strip about
 * StripFp32::TARGET_ROWS rows tall */
template <int R> __host__ __device__ constexpr int
ss_chunks ()
{
  return StripFp32::TARGET_ROWS - ss_tail_rows<R> () < 2 * R + 1 ?
      1 :
      (StripFp32::TARGET_ROWS - ss_tail_rows<R> () + R) / (2 * R + 1);
}

/* output rows per strip */
template <int R> __host__ __device__ constexpr int
sep_strip_rows (int chunks)
{
  return chunks * (2 * R + 1) + ss_tail_rows<R> ();
}

/* Warp columns across, strips down. */
template <int R> __host__ dim3
sep_strip_grid (int width, int height, int chunks)
{
  constexpr int TW = ss_tile_w<R> ();
  const int rows = sep_strip_rows<R> (chunks);
  const int strips = (height + rows - 1) / rows;
  return dim3 ((width + TW - 1) / TW,
      (strips + StripFp32::WARPS - 1) / StripFp32::WARPS);
}

/* The chunks per strip for a plane on a GPU of sms SMs: ss_chunks(), less
 * while the plane's warps would leave SMs short of StripFp32::MIN_SM_WARPS
 * (fewer warps than that leave the loads' latency exposed), and while a strip
 * would be taller than the plane; 0 where even one chunk is. */
template <int R> __host__ int
sep_strip_chunks (int width, int height, int sms)
{
  int chunks = ss_chunks<R> ();
  auto warps = [&] (int c) {
    const dim3 g = sep_strip_grid<R> (width, height, c);
    return (long long) g.x * g.y * StripFp32::WARPS;
  };
  while (chunks > 1
      && (sep_strip_rows<R> (chunks) > height
          || warps (chunks) < (long long) sms * StripFp32::MIN_SM_WARPS))
    chunks--;
  return sep_strip_rows<R> (chunks) <= height ? chunks : 0;
}

/* Whether a plane's samples can take the kernel: one sample per pixel,
 * start and pitch multiples of a quad, whole quads across (a lane stores
 * all of its quad or none of it). */
template <typename T> __host__ __device__ __forceinline__ bool
sep_strip_fits (const ComponentArgs &c)
{
  return moves_as_quads<T> (c) && c.width % StripFp32::V == 0;
}

/* row buffers per warp: a chunk's 2r+1 rows, at least the two that the
 * other rows alternate between */
template <int R> __host__ __device__ constexpr int
ss_stage_rows ()
{
  return 2 * R + 1 > 2 ? 2 * R + 1 : 2;
}

/* Where a lane finds its quad of a row, fixed for the whole strip. */
template <typename T> struct SepStripLane {
  typedef typename Quad<T>::type QuadT;
  int x;       /* the quad's first column */
  bool stores; /* not a halo lane, and inside the plane */
  /* in the side warps: the plane column that stands in for each of the
   * 4, or -1 for a zero */
  int from[StripFp32::V];

  __device__ __forceinline__ void init (const ComponentArgs &src, int x0,
      int lane, int halo_lanes, CcBorder border)
  {
    x = x0 + StripFp32::V * (lane - halo_lanes);
    stores = lane >= halo_lanes && lane < StripFp32::LANES - halo_lanes
        && x < src.width;
#pragma unroll
    for (int q = 0; q < StripFp32::V; q++)
      from[q] = cc_border_index (x + q, src.width, border);
  }

  template <bool GATHER>
  __device__ __forceinline__ QuadT fetch (const char *row) const
  {
    if (!GATHER)
      return __ldg (
          reinterpret_cast<const QuadT *> (row + (size_t) x * sizeof (T)));
    const T *samples = reinterpret_cast<const T *> (row);
    unsigned s[StripFp32::V];
#pragma unroll
    for (int q = 0; q < StripFp32::V; q++)
      s[q] = from[q] >= 0 ? (unsigned) __ldg (samples + from[q]) : 0u;
    QuadT out;
    unsigned *w = reinterpret_cast<unsigned *> (&out);
    if (sizeof (T) == 1) {
      w[0] = s[0] | s[1] << 8 | s[2] << 16 | s[3] << 24;
    } else {
      w[0] = s[0] | s[1] << 16;
      w[1 % (sizeof (QuadT) / 4)] = s[2] | s[3] << 16;
    }
    return out;
  }
};

/* One warp's strip of output rows y0 .. y0 + sep_strip_rows() - 1 */
template <typename T, int R, bool GATHER> __device__ __forceinline__ void
sep_strip_rows_of (const ComponentArgs &src, const ComponentArgs &dst,
    const SepStripLane<T> &me, int y0, CcBorder border, const float *wc,
    const float *wr, float first, int chunks,
    float4 (*stage)[StripFp32::LANES + 2 * ss_halo_lanes<R> ()])
{
  typedef typename Quad<T>::type QuadT;
  constexpr int SIDE = 2 * R + 1;
  constexpr int HL = ss_halo_lanes<R> ();
  constexpr int TAIL = ss_tail_rows<R> ();
  constexpr int MAIN0 = 2 * R; /* the first input row of the chunks */
  const int tail0 = MAIN0 + chunks * SIDE; /* the first after them */
  /* the row pass's window: quads lane - HL .. lane + HL, of which sample
   * LEAD is the first the lane's outputs read */
  constexpr int WIN = StripFp32::V * (2 * HL + 1);
  constexpr int LEAD = StripFp32::V * HL - R;
  const int lane = threadIdx.x;

  /* input row m is plane row y0 - R + m; rows outside the plane only
   * before MAIN0 or from tail0 + R on */
  auto fetch_any = [&] (int m) -> QuadT {
    int y = y0 - R + m;
    bool zero = false;
    if ((unsigned) y >= (unsigned) src.height) {
      y = cc_border_index (y, src.height, border);
      zero = y < 0;
      y = zero ? 0 : y;
    }
    const QuadT q = me.template fetch<GATHER> (
        src.data + (size_t) y * src.pitch);
    return zero ? QuadT () : q;
  };

  /* a[s][p]: the column sums of the output row in ring slot s */
  float a[SIDE][StripFp32::V];
  QuadT ahead[StripFp32::AHEAD];
#pragma unroll
  for (int k = 0; k < StripFp32::AHEAD; k++)
    ahead[k] = fetch_any (k);

  /* adds input row m (its quad in q) to output rows lo .. hi */
  auto column = [&] (int m, QuadT q, int lo, int hi) {
    const float4 f4 = quad_to_float4 (q);
    const float f[StripFp32::V] = { f4.x, f4.y, f4.z, f4.w };
#pragma unroll
    for (int o = lo; o <= hi; o++) {
      const int s = o % SIDE, i = m - o;
#pragma unroll
      for (int p = 0; p < StripFp32::V; p++)
        a[s][p] = i == 0 ? wc[0] * f[p] : fmaf (wc[i], f[p], a[s][p]);
    }
  };

  char *out = dst.data + (size_t) y0 * dst.pitch + (size_t) me.x * sizeof (T);
  /* the row pass in two steps: the column sums in ring slot s go to the
   * row buffer buf; after a __syncwarp, a buffer's sums are filtered along
   * the row and stored as the next output row */
  auto publish = [&] (float4 *buf, int s) {
    buf[HL + lane] = make_float4 (a[s][0], a[s][1], a[s][2], a[s][3]);
  };
  auto finish = [&] (const float4 *buf) {
    float win[WIN];
#pragma unroll
    for (int d = 0; d < 2 * HL + 1; d++) {
      const float4 v = buf[lane + d];
      win[StripFp32::V * d] = v.x;
      win[StripFp32::V * d + 1] = v.y;
      win[StripFp32::V * d + 2] = v.z;
      win[StripFp32::V * d + 3] = v.w;
    }
    float v[StripFp32::V];
#pragma unroll
    for (int p = 0; p < StripFp32::V; p++) {
      float sum = first;
#pragma unroll
      for (int j = 0; j < SIDE; j++)
        sum = fmaf (wr[j], win[LEAD + p + j], sum);
      v[p] = sum;
    }
    if (me.stores) {
      const QuadT packed = pack_floor_saturated ((T *) nullptr, v, dst);
      *reinterpret_cast<QuadT *> (out) = packed;
    }
    out += dst.pitch;
  };
  /* the whole row pass of the column sums in ring slot s, through the row
   * buffer of the output row's parity */
  auto row = [&] (float4 *buf, int s) {
    publish (buf, s);
    __syncwarp ();
    finish (buf);
  };

  /* the first 2r input rows: sums only */
#pragma unroll
  for (int m = 0; m < MAIN0; m++) {
    const QuadT q = ahead[m % StripFp32::AHEAD];
    ahead[m % StripFp32::AHEAD] = fetch_any (m + StripFp32::AHEAD);
    column (m, q, 0, m);
  }

  /* the chunks: input row m = MAIN0 + c * SIDE + j finishes output row
   * c * SIDE + j, whose ring slot is j; their rows and the rows loaded
   * ahead lie inside the plane, one pitch apart */
  const char *next = src.data
      + (ptrdiff_t) (y0 - R + MAIN0 + StripFp32::AHEAD) * (ptrdiff_t) src.pitch;
  QuadT ring[StripFp32::AHEAD];
#pragma unroll
  for (int k = 0; k < StripFp32::AHEAD; k++)
    ring[k] = ahead[(MAIN0 + k) % StripFp32::AHEAD];
#pragma unroll 1
  for (int c = 0; c < chunks; c++) {
#pragma unroll
    for (int j = 0; j < SIDE; j++) {
      const QuadT q = ring[0];
#pragma unroll
      for (int k = 0; k + 1 < StripFp32::AHEAD; k++)
        ring[k] = ring[k + 1];
      ring[StripFp32::AHEAD - 1] = me.template fetch<GATHER> (next);
      next += src.pitch;
      /* counted from this chunk: output rows j .. j + 2r, whose ring slots
       * are those of their rows in the strip (chunks are 2r+1 rows) */
      column (MAIN0 + j, q, j, j + 2 * R);
      publish (stage[j], j);
    }
    __syncwarp ();
#pragma unroll 1
    for (int j = 0; j < SIDE; j++)
      finish (stage[j]);
    /* the next chunk's rows overwrite these */
    __syncwarp ();
  }

  /* the rest, rows t = 0 .. TAIL - 1 after the chunks, counted from them:
   * the ring slots and taps are those of the rows 2r + t of a strip with
   * no chunk, as chunks * (2r+1) rows leave the slots where they were (the
   * chunks' loads ahead stay inside the strip: ss_tail_rows) */
#pragma unroll
  for (int k = 0; k < StripFp32::AHEAD; k++)
    ahead[k] = ring[k];
#pragma unroll
  for (int t = 0; t < TAIL; t++) {
    const QuadT q = ahead[t % StripFp32::AHEAD];
    if (t + StripFp32::AHEAD < TAIL)
      ahead[t % StripFp32::AHEAD] = fetch_any (tail0 + t + StripFp32::AHEAD);
    column (MAIN0 + t, q, t, t + 2 * R < TAIL - 1 ? t + 2 * R : TAIL - 1);
    row (stage[(chunks + t) & 1], t % SIDE);
  }
}

/* clang-format would take __launch_bounds__ for the kernel's name */
/* clang-format off */
template <typename T, int R>
__global__ void __launch_bounds__ (StripFp32::LANES * StripFp32::WARPS,
    blocks_that_fit (StripFp32::LANES * StripFp32::WARPS,
        StripFp32::SM_WARPS / StripFp32::WARPS))
conv_separable_strip (ComponentArgs src, ComponentArgs dst,
    const __grid_constant__ TapsSeparable<R> taps, float offset,
    CcBorder border, int chunks)
/* clang-format on */
{
  constexpr int SIDE = 2 * R + 1;
  constexpr int HL = ss_halo_lanes<R> ();
  const int rows = sep_strip_rows<R> (chunks);
  /* per warp a chunk's rows (ss_stage_rows); the rows outside the chunks
   * alternate between two, so that one __syncwarp per row orders a row's
   * writes after the reads of the row before the last */
  __shared__ float4
      stage[StripFp32::WARPS][ss_stage_rows<R> ()][StripFp32::LANES + 2 * HL];

  const int lane = threadIdx.x;
  const int x0 = blockIdx.x * ss_tile_w<R> ();
  const int strip_y0 = (blockIdx.y * StripFp32::WARPS + threadIdx.y) * rows;
  /* the whole warp leaves together: no __syncwarp is left waiting */
  if (strip_y0 >= src.height)
    return;
  /* the last strip of a column ends at the plane's last row
   * (sep_strip_chunks() wants a strip's rows); rows it shares with the strip
   * above get the same values twice */
  const int y0 = min (strip_y0, src.height - rows);

  SepStripLane<T> me;
  me.init (src, x0, lane, HL, border);

  float wc[SIDE], wr[SIDE];
#pragma unroll
  for (int j = 0; j < SIDE; j++) {
    wc[j] = taps.col[j];
    wr[j] = taps.row[j];
  }
  /* the row sums start at offset + 0.5, where rounding wants them. An FFMA
   * takes one uniform operand; the weights are uniform, so the start goes
   * to a per-lane register (a shuffle's result). */
  const float first = __shfl_sync (0xffffffffu, offset + 0.5f, 0);

  /* the pads beside the lanes' entries, which only halo lanes read */
  if (HL > 0 && lane < 2 * HL) {
    const int pad = lane < HL ? lane : StripFp32::LANES + lane;
    for (int k = 0; k < ss_stage_rows<R> (); k++)
      stage[threadIdx.y][k][pad] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  }

  /* the warps whose quads reach past a side of the plane */
  const bool side = x0 - StripFp32::V * HL < 0
      || x0 + StripFp32::V * (StripFp32::LANES - HL) > src.width;
  if (side)
    sep_strip_rows_of<T, R, true> (src, dst, me, y0, border, wc, wr, first,
        chunks, stage[threadIdx.y]);
  else
    sep_strip_rows_of<T, R, false> (src, dst, me, y0, border, wc, wr, first,
        chunks, stage[threadIdx.y]);
}

#endif /* CUDACONV_SEPARABLE_STRIP_FP32_CUH */

/* cudaconv: what the CC_SHAPE_BOX families (box-running-sum.cuh,
 * box-lines.cuh, box-strip.cuh, box-bands.cuh) read the same way. */
#ifndef CUDACONV_BOX_CUH
#define CUDACONV_BOX_CUH

#include "launch.cuh"

/* WINDOW values of row y from plane column p0 on (the window's part
 * outside the row through the border): with VEC, runs of RUN values that
 * lie inside the row move as 16-byte vectors (p0 a multiple of RUN, RUN
 * whole vectors, the component moving as vectors), the rest one by one. */
template <typename T, bool VEC, int WINDOW, int RUN>
__device__ __forceinline__ void
box_load_window (unsigned (&v)[WINDOW], const ComponentArgs &src, int p0, int y,
    int shift, CcBorder border)
{
  const T *row = reinterpret_cast<const T *> (
      src.data + (size_t) y * src.pitch);
#pragma unroll
  for (int c = 0; c < WINDOW; c += RUN) {
    const int p = p0 + c;
    if (VEC && p >= 0 && p + RUN <= src.width) {
      constexpr int PER_VECTOR = 16 / sizeof (T);
#pragma unroll
      for (int q = 0; q < RUN; q += PER_VECTOR) {
        const uint4 w = __ldg (reinterpret_cast<const uint4 *> (row + p + q));
        const T *t = reinterpret_cast<const T *> (&w);
#pragma unroll
        for (int k = 0; k < PER_VECTOR; k++)
          v[c + q + k] = (unsigned) t[k] >> shift;
      }
    } else {
#pragma unroll
      for (int k = 0; k < RUN; k++) {
        const int bx = cc_border_index (p + k, src.width, border);
        v[c + k] = bx < 0 ? 0u : load_value<T> (src, bx, y, shift);
      }
    }
  }
}

/* 4 consecutive raw samples of a row, as one word (8-bit) or two */
template <typename T> struct BoxQuad {
  typedef typename Quad<T>::type Word;
  Word w;
  /* raw sample k (0..3) */
  __device__ __forceinline__ unsigned get (int k) const
  {
    if constexpr (sizeof (T) == 1)
      return (w >> (8 * k)) & 0xffu;
    else
      return ((k < 2 ? w.x : w.y) >> (16 * (k & 1))) & 0xffffu;
  }
  __device__ __forceinline__ void set (const unsigned (&raw)[4])
  {
    if constexpr (sizeof (T) == 1)
      w = raw[0] | raw[1] << 8 | raw[2] << 16 | raw[3] << 24;
    else
      w = make_uint2 (raw[0] | raw[1] << 16, raw[2] | raw[3] << 16);
  }
};

/* Columns [qx, qx + 4) of row y of c one sample at a time, through the
 * border (the plane's rim, packed pixels, rows not on quads); kept out of
 * line, so that the walks' unrolled rows stay small */
template <typename T> __device__ __noinline__ BoxQuad<T>
box_quad_load_samples (const ComponentArgs &c, CcBorder border, int qx, int y)
{
  const int by = (unsigned) y < (unsigned) c.height ?
      y :
      cc_border_index (y, c.height, border);
  unsigned raw[4] = {};
  if (by >= 0) {
    const T *row = reinterpret_cast<const T *> (c.data + (size_t) by * c.pitch);
#pragma unroll
    for (int k = 0; k < 4; k++) {
      const int bx = (unsigned) (qx + k) < (unsigned) c.width ?
          qx + k :
          cc_border_index (qx + k, c.width, border);
      raw[k] = bx < 0 ? 0u : __ldg (row + (size_t) bx * c.pixel_stride);
    }
  }
  BoxQuad<T> q;
  q.set (raw);
  return q;
}

/* The quad of columns [qx, qx + 4) of row y of c: one vector load where
 * the quad and the row lie inside the plane (vec: the quad's columns do) */
template <typename T> __device__ __forceinline__ BoxQuad<T>
box_quad_load (const ComponentArgs &c, CcBorder border, int qx, int y, bool vec)
{
  if (vec && (unsigned) y < (unsigned) c.height) {
    BoxQuad<T> q;
    q.w = __ldg (reinterpret_cast<const typename BoxQuad<T>::Word *> (
        c.data + (size_t) y * c.pitch + (size_t) qx * sizeof (T)));
    return q;
  }
  return box_quad_load_samples<T> (c, border, qx, y);
}

#endif /* CUDACONV_BOX_CUH */

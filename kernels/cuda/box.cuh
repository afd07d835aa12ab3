/* cudaconv: what both CC_SHAPE_BOX families (box-running-sum.cuh,
 * box-lines.cuh) read the same way. */
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

#endif /* CUDACONV_BOX_CUH */

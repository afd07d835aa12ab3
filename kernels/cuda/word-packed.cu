/* cudaconv: unpacking and packing the word-packed 10-bit formats on the
 * device (the layouts are described in plugin/cudaconv-word-packed.c, the
 * host's version of the same conversion). One thread per 32-bit word, or
 * per group of 6 pixels in v210. */
#include <cstdint>

#include "cudaconv-cuda.h"
#include "launch.cuh"

#define WORD_BLOCK 256

struct WordPlanes {
  uint16_t *p[4];
  size_t pitch[4];
};

__device__ __forceinline__ uint16_t *
plane_row (const WordPlanes &pl, int k, int y)
{
  return (uint16_t *) ((char *) pl.p[k] + (size_t) y * pl.pitch[k]);
}

/* Y410, RGB10A2_LE, BGR10A2_LE: field k (bits 10k) to or from plane k */
template <bool PACK> __global__ void
word_fields (uint8_t *packed, size_t pitch, int width, WordPlanes pl)
{
  const int x = blockIdx.x * WORD_BLOCK + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= width)
    return;
  uint32_t *w = (uint32_t *) (packed + (size_t) y * pitch) + x;
  if (!PACK) {
    const uint32_t v = *w;
    plane_row (pl, 0, y)[x] = v & 0x3ff;
    plane_row (pl, 1, y)[x] = (v >> 10) & 0x3ff;
    plane_row (pl, 2, y)[x] = (v >> 20) & 0x3ff;
    plane_row (pl, 3, y)[x] = v >> 30;
  } else {
    *w = min ((uint32_t) plane_row (pl, 0, y)[x], 0x3ffu)
        | min ((uint32_t) plane_row (pl, 1, y)[x], 0x3ffu) << 10
        | min ((uint32_t) plane_row (pl, 2, y)[x], 0x3ffu) << 20
        | min ((uint32_t) plane_row (pl, 3, y)[x], 3u) << 30;
  }
}

/* v210: each group of 4 words holds, field by field, the samples
 * Cb0 Y0 Cr0 | Y1 Cb1 Y2 | Cr1 Y3 Cb2 | Y4 Cr2 Y5: plane (0 Y, 1 Cb, 2 Cr)
 * and index within the group of each of the 12 */
__constant__ uint8_t v210_plane[12] = { 1, 0, 2, 0, 1, 0, 2, 0, 1, 0, 2, 0 };
__constant__ uint8_t v210_index[12] = { 0, 0, 0, 1, 1, 2, 1, 3, 2, 4, 2, 5 };

template <bool PACK> __global__ void
v210_groups (uint8_t *packed, size_t pitch, int width, WordPlanes pl)
{
  const int g = blockIdx.x * WORD_BLOCK + threadIdx.x;
  const int y = blockIdx.y;
  const int counts[3] = { width, (width + 1) / 2, (width + 1) / 2 };
  const int per_group[3] = { 6, 3, 3 };
  if (g * 6 >= width)
    return;
  uint32_t *w = (uint32_t *) (packed + (size_t) y * pitch) + 4 * g;
  uint16_t *rows[3] = { plane_row (pl, 0, y), plane_row (pl, 1, y),
    plane_row (pl, 2, y) };
  uint32_t words[4] = { 0, 0, 0, 0 };
  if (!PACK)
    for (int k = 0; k < 4; k++)
      words[k] = w[k];
#pragma unroll
  for (int s = 0; s < 12; s++) {
    const int p = v210_plane[s];
    const int i = per_group[p] * g + v210_index[s];
    if (i >= counts[p])
      continue;
    if (!PACK)
      rows[p][i] = (words[s / 3] >> (10 * (s % 3))) & 0x3ff;
    else
      words[s / 3] |= min ((uint32_t) rows[p][i], 0x3ffu) << (10 * (s % 3));
  }
  if (PACK)
    for (int k = 0; k < 4; k++)
      w[k] = words[k];
}

extern "C" cudaError_t
cc_cuda_word_packed_convert (CcWordLayout layout, int to_planes, void *packed,
    size_t pitch, int width, int height, void *const planes[4],
    const size_t plane_pitch[4], cudaStream_t stream)
{
  const int n_planes = layout == CC_WORD_V210 ? 3 : 4;
  const size_t row_bytes = layout == CC_WORD_V210 ?
      (size_t) (width + 5) / 6 * 16 :
      (size_t) width * 4;
  WordPlanes pl = {};

  if (!packed || width <= 0 || height <= 0 || height > 65535
      || pitch < row_bytes || (pitch | (uintptr_t) packed) % 4 != 0
      || (unsigned) layout > CC_WORD_BGR10A2)
    return cudaErrorInvalidValue;
  for (int k = 0; k < n_planes; k++) {
    /* v210's chroma planes hold (width + 1) / 2 samples a row */
    const int samples = layout == CC_WORD_V210 && k > 0 ? (width + 1) / 2 :
                                                          width;
    if (!planes[k] || plane_pitch[k] < (size_t) samples * 2)
      return cudaErrorInvalidValue;
    pl.p[k] = (uint16_t *) planes[k];
    pl.pitch[k] = plane_pitch[k];
  }
  const int units = layout == CC_WORD_V210 ? (width + 5) / 6 : width;
  const dim3 grid ((units + WORD_BLOCK - 1) / WORD_BLOCK, height);
  uint8_t *bytes = (uint8_t *) packed;
  if (layout == CC_WORD_V210)
    return launch_kernel (to_planes ? v210_groups<false> : v210_groups<true>,
        grid, WORD_BLOCK, 0, stream, false, bytes, pitch, width, pl);
  return launch_kernel (to_planes ? word_fields<false> : word_fields<true>,
      grid, WORD_BLOCK, 0, stream, false, bytes, pitch, width, pl);
}

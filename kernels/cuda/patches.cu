/* cudaconv: copying rectangles of components between planes in one
 * launch: a frame's regions gathered into one plane per component (their
 * halos made up by the border policy where they reach past the frame) and
 * the filtered rectangles scattered back. Either side may be host memory
 * the device maps (pinned or registered), so that only the regions' bytes
 * cross the bus, read and written by the kernel itself. One thread per
 * sample, one grid layer per patch. */
#include <cstdint>

#include "cudaconv-cuda.h"
#include "launch.cuh"
#include "cudaconv-border.h"

#define PATCH_BLOCK_W 32
#define PATCH_BLOCK_H 8

struct PatchArgs {
  CcPatch p[CC_MAX_PATCHES];
};

template <typename T> __device__ __forceinline__ const T *
src_row (const CcPatch &p, int y)
{
  return (const T *) ((const char *) p.src.data + (size_t) y * p.src.pitch);
}

template <typename T> __global__ void
copy_patches (const __grid_constant__ PatchArgs args, CcBorder border)
{
  const CcPatch &p = args.p[blockIdx.z];
  const int i = blockIdx.x * PATCH_BLOCK_W + threadIdx.x;
  const int j = blockIdx.y * PATCH_BLOCK_H + threadIdx.y;
  if (i >= p.width || j >= p.height)
    return;
  const int sx = cc_border_index (p.x + i, p.src.width, border);
  const int sy = cc_border_index (p.y + j, p.src.height, border);
  const T v = sx < 0 || sy < 0 ? T (0) :
      src_row<T> (p, sy)[(size_t) sx * p.src.pixel_stride];
  T *d = (T *) ((char *) p.dst.data + (size_t) j * p.dst.pitch);
  d[(size_t) i * p.dst.pixel_stride] = v;
}

cudaError_t
cc_cuda_copy_patches (const CcPatch *patches, int n, CcBorder border,
    cudaStream_t stream)
{
  PatchArgs args;
  int max_w = 0, max_h = 0;

  if (!patches || n < 0 || n > CC_MAX_PATCHES || border < CC_BORDER_ZERO
      || border > CC_BORDER_WRAP)
    return cudaErrorInvalidValue;
  if (n == 0)
    return cudaSuccess;
  for (int k = 0; k < n; k++) {
    const CcPatch &p = patches[k];
    if (!cc_component_valid (&p.src) || !p.dst.data || p.dst.pixel_stride <= 0
        || p.dst.sample != p.src.sample || p.width <= 0 || p.height <= 0
        || p.dst.pitch < (size_t) ((p.width - 1) * p.dst.pixel_stride + 1)
        * (size_t) p.dst.sample)
      return cudaErrorInvalidValue;
    args.p[k] = p;
    max_w = max_w > p.width ? max_w : p.width;
    max_h = max_h > p.height ? max_h : p.height;
  }
  const dim3 block (PATCH_BLOCK_W, PATCH_BLOCK_H);
  const dim3 grid ((max_w + PATCH_BLOCK_W - 1) / PATCH_BLOCK_W,
      (max_h + PATCH_BLOCK_H - 1) / PATCH_BLOCK_H, n);
  if (grid.y > 65535)
    return cudaErrorInvalidValue;
  /* every patch of a launch has the same sample type */
  for (int k = 1; k < n; k++)
    if (patches[k].src.sample != patches[0].src.sample)
      return cudaErrorInvalidValue;
  if (patches[0].src.sample == CC_SAMPLE_U8)
    return launch_kernel (copy_patches<uint8_t>, grid, block, 0, stream,
        false, args, border);
  return launch_kernel (copy_patches<uint16_t>, grid, block, 0, stream, false,
      args, border);
}

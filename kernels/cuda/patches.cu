/* cudaconv: copying rectangles of components between planes in one
 * launch: a frame's regions gathered into one plane per component (their
 * halos made up by the border policy where they reach past the frame) and
 * the filtered rectangles scattered back. Either side may be host memory
 * the device maps (pinned or registered), so that only the regions' bytes
 * cross the bus, read and written by the kernel itself.
 *
 * The patches travel as the launch's parameters (cc_cuda_copy_patches) or
 * in a table in mapped host memory (cc_cuda_copy_patch_table), which a
 * launch of many patches queues in less time.
 *
 * A warp per row of a patch, each patch the blocks of its own rows. The columns
 * that lie outside the source go one sample at a time through the border; of
 * components whose samples lie side by side (pixel stride 1), the rest of
 * the row moves as bytes in 16-byte vectors on the side the caller names
 * (the host memory: the bus takes a warp's 512 contiguous bytes as a few
 * large requests, where a sample a thread made one 32-byte request per
 * warp, about a quarter of what the bus carries), and in words or bytes,
 * as the two sides' alignments allow, on the other. */
#include <climits>
#include <cstdint>

#include "cudaconv-cuda.h"
#include "launch.cuh"
#include "cudaconv-border.h"

/* rows of a block: a warp each */
#define PATCH_ROWS 8

/* The patches of a launch as its parameters, in room for up to CAP of
 * them: the driver copies a launch's parameters whole, so a few patches
 * go in a small room, which queues in less time */
template <int CAP> struct PatchArgs {
  CcPatch p[CAP];
  /* the first block of each patch's rows, and past the last the grid's
   * blocks: each patch takes the blocks its own rows need, so that one
   * tall patch among many short ones gives no blocks without work */
  int first_block[CAP + 1];
  int n;
};
static_assert (sizeof (PatchArgs<CC_MAX_PATCHES>) + sizeof (CcBorder) <= 32764,
    "a launch's parameters take at most 32,764 bytes");
/* the rooms, smallest first */
static constexpr int PATCH_ROOMS[] = { 16, 64, CC_MAX_PATCHES };

/* 16 bytes between s and d, one of them on 16 bytes: the aligned side as
 * one vector, the other as 4-byte words where the two are 4 bytes apart,
 * else byte by byte */
template <bool WIDE_DST> __device__ __forceinline__ void
copy_chunk (char *d, const char *s, bool words)
{
  uint4 v;
  if (WIDE_DST) {
    if (words) {
      const unsigned *w = reinterpret_cast<const unsigned *> (s);
      v = make_uint4 (w[0], w[1], w[2], w[3]);
    } else {
      unsigned char *b = reinterpret_cast<unsigned char *> (&v);
#pragma unroll
      for (int k = 0; k < 16; k++)
        b[k] = (unsigned char) s[k];
    }
    *reinterpret_cast<uint4 *> (d) = v;
  } else {
    v = *reinterpret_cast<const uint4 *> (s);
    if (words) {
      unsigned *w = reinterpret_cast<unsigned *> (d);
      w[0] = v.x;
      w[1] = v.y;
      w[2] = v.z;
      w[3] = v.w;
    } else {
      const unsigned char *b = reinterpret_cast<const unsigned char *> (&v);
#pragma unroll
      for (int k = 0; k < 16; k++)
        d[k] = (char) b[k];
    }
  }
}

/* n bytes from s to d by the 32 lanes of a warp: the bytes before the
 * wide side's first 16-byte boundary and after its last one by single
 * lanes, the 16-byte chunks between them a lane each */
template <bool WIDE_DST> __device__ __forceinline__ void
warp_copy_bytes (char *d, const char *s, size_t n, int lane)
{
  const uintptr_t wide = (uintptr_t) (WIDE_DST ? d : s);
  const size_t head = min ((size_t) ((16 - (wide & 15)) & 15), n);
  const size_t chunks = (n - head) / 16;
  const bool words = (((uintptr_t) d - (uintptr_t) s) & 3) == 0;

  for (size_t k = lane; k < head; k += 32)
    d[k] = s[k];
  for (size_t c = lane; c < chunks; c += 32)
    copy_chunk<WIDE_DST> (d + head + 16 * c, s + head + 16 * c, words);
  for (size_t k = head + 16 * chunks + lane; k < n; k += 32)
    d[k] = s[k];
}

/* Column i of a patch's row through the border (srow NULL: a row the
 * border makes 0) */
template <typename T> __device__ __forceinline__ T
patch_sample (const CcPatch &p, const T *srow, int i, CcBorder border)
{
  const int sx = cc_border_index (p.x + i, p.src.width, border);
  return sx < 0 || !srow ? T (0) : srow[(size_t) sx * p.src.pixel_stride];
}

/* Row j of patch p, by the warp of this lane */
template <typename T, bool WIDE_DST> __device__ __forceinline__ void
copy_patch_row (const CcPatch &p, int j, CcBorder border)
{
  const int lane = threadIdx.x;
  if (j >= p.height)
    return;
  const int sy = cc_border_index (p.y + j, p.src.height, border);
  const T *srow = sy < 0 ?
      nullptr :
      reinterpret_cast<const T *> (
          (const char *) p.src.data + (size_t) sy * p.src.pitch);
  T *drow = reinterpret_cast<T *> (
      (char *) p.dst.data + (size_t) j * p.dst.pitch);
  const bool bytes = srow && p.src.pixel_stride == 1 && p.dst.pixel_stride == 1;
  /* the patch's columns inside the source, [i0, i1) */
  const int i0 = max (0, -p.x), i1 = min (p.width, p.src.width - p.x);

  /* sample by sample: the whole row, or with the bytes below the columns
   * left and right of [i0, i1) */
  const int left = bytes ? min (i0, p.width) : p.width;
  for (int i = lane; i < left; i += 32)
    drow[(size_t) i * p.dst.pixel_stride] = patch_sample (p, srow, i, border);
  for (int i = max (i0, i1) + lane; bytes && i < p.width; i += 32)
    drow[i] = patch_sample (p, srow, i, border);
  if (bytes && i1 > i0)
    warp_copy_bytes<WIDE_DST> (reinterpret_cast<char *> (drow + i0),
        reinterpret_cast<const char *> (srow + p.x + i0),
        (size_t) (i1 - i0) * sizeof (T), lane);
}

template <typename T, bool WIDE_DST, int CAP> __global__ void
copy_patches (const __grid_constant__ PatchArgs<CAP> args, CcBorder border)
{
  /* the patch whose blocks hold this one: the last that starts at or
   * before it */
  const int b = (int) blockIdx.x;
  int lo = 0, hi = args.n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (args.first_block[mid] <= b)
      lo = mid;
    else
      hi = mid - 1;
  }
  copy_patch_row<T, WIDE_DST> (args.p[lo],
      (b - args.first_block[lo]) * PATCH_ROWS + threadIdx.y, border);
}

/* A patch of a table and the first block of its rows */
struct PatchEntry {
  CcPatch p;
  int first_block;
};

/* A table in host memory: the entries, then the patch of each block */
static size_t
entries_bytes (int n)
{
  return ((size_t) n * sizeof (PatchEntry) + 15) / 16 * 16;
}

/* The patches of a table: a block reads which patch it copies rows of,
 * then that patch, over the bus into shared memory (two round trips
 * before its copy), so that the launch's parameters stay a few pointers
 * however many patches there are */
template <typename T, bool WIDE_DST> __global__ void
copy_patch_table (const PatchEntry *entries, const int *block_patch,
    CcBorder border)
{
  __shared__ PatchEntry entry;
  static_assert (sizeof (PatchEntry) % 4 == 0, "entries move as words");
  if (threadIdx.y == 0) {
    const unsigned *from =
        reinterpret_cast<const unsigned *> (&entries[block_patch[blockIdx.x]]);
    unsigned *to = reinterpret_cast<unsigned *> (&entry);
    for (int i = threadIdx.x; i < (int) (sizeof (PatchEntry) / 4); i += 32)
      to[i] = from[i];
  }
  __syncthreads ();
  copy_patch_row<T, WIDE_DST> (entry.p,
      ((int) blockIdx.x - entry.first_block) * PATCH_ROWS + threadIdx.y,
      border);
}

/* The launch of n patches in the room of CAP */
template <int CAP> static cudaError_t
launch_patches (const CcPatch *patches, int n, CcBorder border,
    CcPatchWide wide, cudaStream_t stream)
{
  PatchArgs<CAP> args;
  long long blocks = 0;

  for (int k = 0; k < n; k++) {
    args.p[k] = patches[k];
    args.first_block[k] = (int) blocks;
    blocks += (patches[k].height + PATCH_ROWS - 1) / PATCH_ROWS;
    if (blocks > INT_MAX)
      return cudaErrorInvalidValue;
  }
  args.first_block[n] = (int) blocks;
  args.n = n;
  const dim3 block (32, PATCH_ROWS);
  const dim3 grid ((unsigned) blocks);
  const bool u8 = patches[0].src.sample == CC_SAMPLE_U8;
  if (wide == CC_PATCH_WIDE_DST)
    return u8 ? launch_kernel (copy_patches<uint8_t, true, CAP>, grid, block, 0,
               stream, false, args, border) :
                launch_kernel (copy_patches<uint16_t, true, CAP>, grid, block,
                    0, stream, false, args, border);
  return u8 ? launch_kernel (copy_patches<uint8_t, false, CAP>, grid, block, 0,
             stream, false, args, border) :
              launch_kernel (copy_patches<uint16_t, false, CAP>, grid, block, 0,
                  stream, false, args, border);
}

/* Whether the patches can be copied as asked: each one valid, all of one
 * sample type */
static bool
patches_valid (const CcPatch *patches, int n, CcBorder border,
    CcPatchWide wide)
{
  if (!patches || n < 0 || border < CC_BORDER_ZERO || border > CC_BORDER_WRAP
      || (wide != CC_PATCH_WIDE_SRC && wide != CC_PATCH_WIDE_DST))
    return false;
  for (int k = 0; k < n; k++) {
    const CcPatch &p = patches[k];
    if (!cc_component_valid (&p.src) || !p.dst.data || p.dst.pixel_stride <= 0
        || p.dst.sample != p.src.sample || p.width <= 0 || p.height <= 0
        || p.dst.pitch < (size_t) ((p.width - 1) * p.dst.pixel_stride + 1)
                * (size_t) p.dst.sample
        || p.src.sample != patches[0].src.sample)
      return false;
  }
  return true;
}

/* The blocks of the patches' rows, -1 past an int */
static long long
patch_blocks (const CcPatch *patches, int n)
{
  long long blocks = 0;
  for (int k = 0; k < n && blocks <= INT_MAX; k++)
    blocks += (patches[k].height + PATCH_ROWS - 1) / PATCH_ROWS;
  return blocks <= INT_MAX ? blocks : -1;
}

size_t
cc_cuda_patch_table_bytes (const CcPatch *patches, int n)
{
  const long long blocks = patches && n > 0 && n <= CC_MAX_TABLE_PATCHES ?
      patch_blocks (patches, n) : -1;
  return blocks < 0 ? 0 : entries_bytes (n) + (size_t) blocks * sizeof (int);
}

cudaError_t
cc_cuda_copy_patch_table (const CcPatch *patches, int n, CcBorder border,
    CcPatchWide wide, void *table, size_t table_bytes, cudaStream_t stream)
{
  if (n > CC_MAX_TABLE_PATCHES || !patches_valid (patches, n, border, wide))
    return cudaErrorInvalidValue;
  if (n == 0)
    return cudaSuccess;
  const size_t need = cc_cuda_patch_table_bytes (patches, n);
  if (!table || ((uintptr_t) table & 15) != 0 || need == 0
      || table_bytes < need)
    return cudaErrorInvalidValue;
  PatchEntry *entries = static_cast<PatchEntry *> (table);
  int *block_patch = reinterpret_cast<int *> (
      static_cast<char *> (table) + entries_bytes (n));
  int blocks = 0;
  for (int k = 0; k < n; k++) {
    const int rows = (patches[k].height + PATCH_ROWS - 1) / PATCH_ROWS;
    entries[k].p = patches[k];
    entries[k].first_block = blocks;
    for (int b = 0; b < rows; b++)
      block_patch[blocks + b] = k;
    blocks += rows;
  }
  const dim3 block (32, PATCH_ROWS);
  const dim3 grid ((unsigned) blocks);
  const PatchEntry *e = entries;
  const int *bp = block_patch;
  const bool u8 = patches[0].src.sample == CC_SAMPLE_U8;
  if (wide == CC_PATCH_WIDE_DST)
    return u8 ? launch_kernel (copy_patch_table<uint8_t, true>, grid, block,
               0, stream, false, e, bp, border) :
                launch_kernel (copy_patch_table<uint16_t, true>, grid, block,
                    0, stream, false, e, bp, border);
  return u8 ? launch_kernel (copy_patch_table<uint8_t, false>, grid, block, 0,
             stream, false, e, bp, border) :
              launch_kernel (copy_patch_table<uint16_t, false>, grid, block,
                  0, stream, false, e, bp, border);
}

cudaError_t
cc_cuda_copy_patches (const CcPatch *patches, int n, CcBorder border,
    CcPatchWide wide, cudaStream_t stream)
{
  if (n > CC_MAX_PATCHES || !patches_valid (patches, n, border, wide))
    return cudaErrorInvalidValue;
  if (n == 0)
    return cudaSuccess;
  if (n <= PATCH_ROOMS[0])
    return launch_patches<PATCH_ROOMS[0]> (patches, n, border, wide, stream);
  if (n <= PATCH_ROOMS[1])
    return launch_patches<PATCH_ROOMS[1]> (patches, n, border, wide, stream);
  return launch_patches<PATCH_ROOMS[2]> (patches, n, border, wide, stream);
}

/* cudaconv: 2D convolution kernels after PMPP chapter 7.
 *
 * Both strategies compute an OUT_TILE_W x OUT_TILE_H output tile per block of
 * BLOCK_W x BLOCK_H threads, each thread OUT_TILE_H / BLOCK_H outputs down a
 * column, so every weight read from constant memory is used for several
 * outputs and all threads of a warp read the same weight (a broadcast). */
#include <cstdint>
#include <mutex>

#include "cudaconv-cuda.h"
#include "cudaconv-border.h"

#define BLOCK_W 32
#define BLOCK_H 8
#define OUT_TILE_W 32
#define OUT_TILE_H 32
#define ROWS_PER_THREAD (OUT_TILE_H / BLOCK_H)
#define FILL_BLOCK_W 32
#define FILL_BLOCK_H 8

static_assert (OUT_TILE_W == BLOCK_W, "one output column per thread");
static_assert (OUT_TILE_H % BLOCK_H == 0, "whole rows per thread");

__constant__ float c_filters[CC_CUDA_FILTER_SLOTS][CC_MAX_TAPS];

static std::mutex slot_lock;
static bool slot_used[CC_CUDA_FILTER_SLOTS];

template < typename T > struct SampleTraits;
template <> struct SampleTraits <uint8_t> {
  static constexpr float max = 255.0f;
};
template <> struct SampleTraits <uint16_t> {
  static constexpr float max = 65535.0f;
};

struct ChannelArgs {
  char *data;
  size_t pitch;
  int pixel_stride;
};

template < typename T > __device__ __forceinline__ float
load_sample (const ChannelArgs & c, int x, int y)
{
  const T *row = (const T *) (c.data + (size_t) y * c.pitch);
  return (float) __ldg (row + (size_t) x * c.pixel_stride);
}

/* Ghost cells resolve to a real sample or to 0 here, so the compute loops
 * never test a border. */
template < typename T > __device__ __forceinline__ float
load_bordered (const ChannelArgs & c, int x, int y, int w, int h,
    CcBorder border)
{
  int bx = cc_border_index (x, w, border);
  int by = cc_border_index (y, h, border);
  if (bx < 0 || by < 0)
    return 0.0f;
  return load_sample < T > (c, bx, by);
}

template < typename T > __device__ __forceinline__ void
store_sample (const ChannelArgs & c, int x, int y, float v)
{
  /* round half up, then saturate to the sample's range */
  v = fminf (fmaxf (floorf (v + 0.5f), 0.0f), SampleTraits < T >::max);
  T *row = (T *) (c.data + (size_t) y * c.pitch);
  row[(size_t) x * c.pixel_stride] = (T) v;
}

__device__ __forceinline__ float
finish (float a, float b, bool magnitude, float offset)
{
  return (magnitude ? sqrtf (a * a + b * b) : a) + offset;
}

/* PMPP 7.4: the block loads its input tile plus a halo of radius cells on
 * each side into shared memory, then computes only from shared memory. */
template < typename T, bool MAGNITUDE > __global__ void
conv_tiled_halo (ChannelArgs src, ChannelArgs dst, int w, int h, int radius,
    int slot, float offset, CcBorder border)
{
  extern __shared__ float tile[];
  const int side = 2 * radius + 1;
  const int tile_w = OUT_TILE_W + 2 * radius;
  const int tile_h = OUT_TILE_H + 2 * radius;
  const int x0 = blockIdx.x * OUT_TILE_W;
  const int y0 = blockIdx.y * OUT_TILE_H;

  for (int ty = threadIdx.y; ty < tile_h; ty += BLOCK_H)
    for (int tx = threadIdx.x; tx < tile_w; tx += BLOCK_W)
      tile[ty * tile_w + tx] = load_bordered < T > (src, x0 + tx - radius,
          y0 + ty - radius, w, h, border);
  __syncthreads ();

  const float *wa = c_filters[slot];
  const float *wb = c_filters[slot] + side * side;
  const int x = x0 + threadIdx.x;
  if (x >= w)
    return;
#pragma unroll
  for (int r = 0; r < ROWS_PER_THREAD; r++) {
    const int ty = threadIdx.y + r * BLOCK_H;
    if (y0 + ty >= h)
      return;
    float a = 0.0f, b = 0.0f;
    for (int i = 0; i < side; i++) {
      const float *in = &tile[(ty + i) * tile_w + threadIdx.x];
      for (int j = 0; j < side; j++) {
        a += wa[i * side + j] * in[j];
        if (MAGNITUDE)
          b += wb[i * side + j] * in[j];
      }
    }
    store_sample < T > (dst, x, y0 + ty, finish (a, b, MAGNITUDE, offset));
  }
}

/* PMPP 7.5: shared memory holds only the tile interior; halo cells are read
 * from global memory, where neighbouring blocks' loads left them in L1/L2. */
template < typename T, bool MAGNITUDE > __global__ void
conv_cache_halo (ChannelArgs src, ChannelArgs dst, int w, int h, int radius,
    int slot, float offset, CcBorder border)
{
  __shared__ float tile[OUT_TILE_H][OUT_TILE_W];
  const int side = 2 * radius + 1;
  const int x0 = blockIdx.x * OUT_TILE_W;
  const int y0 = blockIdx.y * OUT_TILE_H;

  /* Tile cells past the plane's right or bottom edge hold their ghost value,
   * so the compute loop only has to tell tile from halo. */
#pragma unroll
  for (int r = 0; r < ROWS_PER_THREAD; r++) {
    const int ty = threadIdx.y + r * BLOCK_H;
    tile[ty][threadIdx.x] = load_bordered < T > (src, x0 + threadIdx.x,
        y0 + ty, w, h, border);
  }
  __syncthreads ();

  const float *wa = c_filters[slot];
  const float *wb = c_filters[slot] + side * side;
  const int tx = threadIdx.x;
  const int x = x0 + tx;
  if (x >= w)
    return;
#pragma unroll
  for (int r = 0; r < ROWS_PER_THREAD; r++) {
    const int ty = threadIdx.y + r * BLOCK_H;
    if (y0 + ty >= h)
      return;
    float a = 0.0f, b = 0.0f;
    for (int i = 0; i < side; i++) {
      const int sy = ty + i - radius;
      for (int j = 0; j < side; j++) {
        const int sx = tx + j - radius;
        float v;
        if (sx >= 0 && sx < OUT_TILE_W && sy >= 0 && sy < OUT_TILE_H)
          v = tile[sy][sx];
        else
          v = load_bordered < T > (src, x0 + sx, y0 + sy, w, h, border);
        a += wa[i * side + j] * v;
        if (MAGNITUDE)
          b += wb[i * side + j] * v;
      }
    }
    store_sample < T > (dst, x, y0 + ty, finish (a, b, MAGNITUDE, offset));
  }
}

template < typename T > __global__ void
fill_channel (ChannelArgs dst, int w, int h, float value)
{
  const int x = blockIdx.x * FILL_BLOCK_W + threadIdx.x;
  const int y = blockIdx.y * FILL_BLOCK_H + threadIdx.y;
  if (x < w && y < h)
    store_sample < T > (dst, x, y, value);
}

static bool
channel_valid (const CcChannel * c)
{
  return c && c->data && c->width > 0 && c->height > 0 && c->pixel_stride > 0
      && (c->sample == CC_SAMPLE_U8 || c->sample == CC_SAMPLE_U16)
      && c->pitch >= (size_t) ((c->width - 1) * c->pixel_stride + 1) *
      (size_t) c->sample;
}

static ChannelArgs
channel_args (const CcChannel * c)
{
  ChannelArgs a = { (char *) c->data, c->pitch, c->pixel_stride };
  return a;
}

static bool
radius_valid (int radius, CcResponse response)
{
  int max = response == CC_RESPONSE_MAGNITUDE ? CC_MAX_MAGNITUDE_RADIUS :
      CC_MAX_RADIUS;
  return radius >= 0 && radius <= max;
}

extern "C" int
cc_cuda_filter_slot_acquire (void)
{
  std::lock_guard < std::mutex > guard (slot_lock);
  for (int i = 0; i < CC_CUDA_FILTER_SLOTS; i++) {
    if (!slot_used[i]) {
      slot_used[i] = true;
      return i;
    }
  }
  return -1;
}

extern "C" void
cc_cuda_filter_slot_release (int slot)
{
  std::lock_guard < std::mutex > guard (slot_lock);
  if (slot >= 0 && slot < CC_CUDA_FILTER_SLOTS)
    slot_used[slot] = false;
}

extern "C" cudaError_t
cc_cuda_upload_filter (int slot, const CcFilter * filter, cudaStream_t stream)
{
  if (!filter || !filter->taps || slot < 0 || slot >= CC_CUDA_FILTER_SLOTS
      || !radius_valid (filter->radius, filter->response))
    return cudaErrorInvalidValue;
  size_t bytes = sizeof (float) * cc_filter_n_taps (filter->radius,
      filter->response);
  return cudaMemcpyToSymbolAsync (c_filters, filter->taps, bytes,
      sizeof (float) * CC_MAX_TAPS * slot, cudaMemcpyHostToDevice, stream);
}

template < typename T > static void
launch_convolve (const CcChannel * src, const CcChannel * dst, int slot,
    int radius, bool magnitude, float offset, CcBorder border,
    CcStrategy strategy, cudaStream_t stream)
{
  dim3 block (BLOCK_W, BLOCK_H);
  dim3 grid ((src->width + OUT_TILE_W - 1) / OUT_TILE_W,
      (src->height + OUT_TILE_H - 1) / OUT_TILE_H);
  ChannelArgs s = channel_args (src), d = channel_args (dst);
  int w = src->width, h = src->height;

  if (strategy == CC_STRATEGY_TILED_HALO) {
    size_t shmem = sizeof (float) * (OUT_TILE_W + 2 * radius) *
        (OUT_TILE_H + 2 * radius);
    if (magnitude)
      conv_tiled_halo < T, true > <<<grid, block, shmem, stream>>> (s, d, w, h,
          radius, slot, offset, border);
    else
      conv_tiled_halo < T, false > <<<grid, block, shmem, stream>>> (s, d, w,
          h, radius, slot, offset, border);
  } else {
    if (magnitude)
      conv_cache_halo < T, true > <<<grid, block, 0, stream>>> (s, d, w, h,
          radius, slot, offset, border);
    else
      conv_cache_halo < T, false > <<<grid, block, 0, stream>>> (s, d, w, h,
          radius, slot, offset, border);
  }
}

extern "C" cudaError_t
cc_cuda_convolve (const CcChannel * src, const CcChannel * dst, int slot,
    int radius, CcResponse response, float offset, CcBorder border,
    CcStrategy strategy, cudaStream_t stream)
{
  if (!channel_valid (src) || !channel_valid (dst)
      || src->width != dst->width || src->height != dst->height
      || src->sample != dst->sample || slot < 0
      || slot >= CC_CUDA_FILTER_SLOTS || !radius_valid (radius, response)
      || (unsigned) border > CC_BORDER_WRAP
      || (strategy != CC_STRATEGY_TILED_HALO
          && strategy != CC_STRATEGY_CACHE_HALO))
    return cudaErrorInvalidValue;

  bool magnitude = response == CC_RESPONSE_MAGNITUDE;
  if (src->sample == CC_SAMPLE_U8)
    launch_convolve < uint8_t > (src, dst, slot, radius, magnitude, offset,
        border, strategy, stream);
  else
    launch_convolve < uint16_t > (src, dst, slot, radius, magnitude, offset,
        border, strategy, stream);
  return cudaGetLastError ();
}

extern "C" cudaError_t
cc_cuda_fill (const CcChannel * dst, unsigned value, cudaStream_t stream)
{
  if (!channel_valid (dst))
    return cudaErrorInvalidValue;
  dim3 block (FILL_BLOCK_W, FILL_BLOCK_H);
  dim3 grid ((dst->width + FILL_BLOCK_W - 1) / FILL_BLOCK_W,
      (dst->height + FILL_BLOCK_H - 1) / FILL_BLOCK_H);
  ChannelArgs d = channel_args (dst);
  if (dst->sample == CC_SAMPLE_U8)
    fill_channel < uint8_t > <<<grid, block, 0, stream>>> (d, dst->width,
        dst->height, (float) value);
  else
    fill_channel < uint16_t > <<<grid, block, 0, stream>>> (d, dst->width,
        dst->height, (float) value);
  return cudaGetLastError ();
}

/* cudaconv: the CUDA kernels' host API: filter slots, argument checks,
 * dispatch to a kernel compiled for the filter's radius, and the strategy
 * tuner.
 *
 * Every kernel is instantiated per radius (0 .. CC_MAX_RADIUS) so that its
 * loops over the window unroll and the window lives in registers. All
 * kernels sit in this one translation unit because __constant__ memory is
 * per unit. */
#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <mutex>

#include "cudaconv-cuda.h"
#include "cudaconv-device.cuh"
#include "cudaconv-tiled-halo.cuh"
#include "cudaconv-row-block.cuh"
#include "cudaconv-strip.cuh"
#include "cudaconv-cache-halo.cuh"
#include "cudaconv-separable.cuh"
#include "cudaconv-separable-fp32.cuh"
#include "cudaconv-separable-strip.cuh"
#include "cudaconv-separable-mma-strip.cuh"

#define FILL_BLOCK_W 32
#define FILL_BLOCK_H 8
/* what a block may use without opting in to more */
#define DEFAULT_SHARED_LIMIT (48 * 1024)
/* a grid's largest y dimension */
#define MAX_GRID_Y 65535
/* devices whose SM count is remembered (others ask on every launch) */
#define CC_CUDA_MAX_DEVICES 64
/* launches per timed sample of the tuner */
#define TUNE_BATCH 4

/* What was last uploaded to each slot, so that launches take the filter's
 * shape from one place and a separable launch of a non-separable filter is
 * refused instead of reading stale factors. */
typedef struct {
  bool used;
  bool uploaded;
  int radius;
  CcResponse response;
  float offset;
  bool separable;
  bool scaled_taps;             /* the taps times 2^24 at CC_SLOT_SCALED_TAPS */
} SlotRecord;

static std::mutex slot_lock;
static SlotRecord slots[CC_CUDA_FILTER_SLOTS];

template < typename T > __global__ void
fill_channel (ChannelArgs dst, float value)
{
  const int x = blockIdx.x * FILL_BLOCK_W + threadIdx.x;
  const int y = blockIdx.y * FILL_BLOCK_H + threadIdx.y;
  if (x < dst.width && y < dst.height)
    store_sample < T > (dst, x, y, value);
}

static bool
channel_valid (const CcChannel * c)
{
  return c && c->data && c->width > 0 && c->height > 0 && c->pixel_stride > 0
      && (c->sample == CC_SAMPLE_U8 || c->sample == CC_SAMPLE_U16)
      && cc_channel_bits_valid (c)
      && c->pitch >= (size_t) ((c->width - 1) * c->pixel_stride + 1) *
      (size_t) c->sample;
}

static ChannelArgs
channel_args (const CcChannel * c)
{
  const unsigned max = cc_channel_max_raw (c), kept = cc_channel_kept_bits (c);
  ChannelArgs a = { (char *) c->data, c->pitch, c->pixel_stride, c->width,
    c->height, max | max << 16, kept | kept << 16,
    c->sample == CC_SAMPLE_U16 && (max != 0xffffu || kept != 0xffffu)
  };
  return a;
}

static bool
radius_valid (int radius, CcResponse response)
{
  int max = response == CC_RESPONSE_MAGNITUDE ? CC_MAX_MAGNITUDE_RADIUS :
      CC_MAX_RADIUS;
  return radius >= 0 && radius <= max
      && (response == CC_RESPONSE_LINEAR || response == CC_RESPONSE_MAGNITUDE);
}

static bool
slot_valid (int slot)
{
  return slot >= 0 && slot < CC_CUDA_FILTER_SLOTS;
}

static bool
slot_record (int slot, SlotRecord * out)
{
  std::lock_guard < std::mutex > guard (slot_lock);
  if (!slot_valid (slot) || !slots[slot].uploaded)
    return false;
  *out = slots[slot];
  return true;
}

extern "C" int
cc_cuda_filter_slot_acquire (void)
{
  std::lock_guard < std::mutex > guard (slot_lock);
  for (int i = 0; i < CC_CUDA_FILTER_SLOTS; i++) {
    if (!slots[i].used) {
      slots[i] = SlotRecord ();
      slots[i].used = true;
      return i;
    }
  }
  return -1;
}

extern "C" void
cc_cuda_filter_slot_release (int slot)
{
  std::lock_guard < std::mutex > guard (slot_lock);
  if (slot_valid (slot))
    slots[slot] = SlotRecord ();
}

extern "C" cudaError_t
cc_cuda_upload_filter (int slot, const CcFilter * filter, cudaStream_t stream)
{
  if (!filter || !filter->taps || !slot_valid (slot)
      || !radius_valid (filter->radius, filter->response))
    return cudaErrorInvalidValue;
  const bool separable = cc_filter_is_separable (filter);
  const size_t slot_offset = sizeof (float) * CC_SLOT_FLOATS * slot;
  const size_t side = 2 * filter->radius + 1;
  cudaError_t err = cudaMemcpyToSymbolAsync (c_filters, filter->taps,
      sizeof (float) * cc_filter_n_taps (filter->radius, filter->response),
      slot_offset, cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess && separable)
    err = cudaMemcpyToSymbolAsync (c_filters, filter->col_taps,
        sizeof (float) * side, slot_offset + sizeof (float) * CC_SLOT_COL_TAPS,
        cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess && separable)
    err = cudaMemcpyToSymbolAsync (c_filters, filter->row_taps,
        sizeof (float) * side, slot_offset + sizeof (float) * CC_SLOT_ROW_TAPS,
        cudaMemcpyHostToDevice, stream);
  /* for the strip kernels that widen 8-bit samples as x 2^-24; weights
   * whose scaled value overflows (|w| >= 2^104) go to the kernels without */
  float scaled[ST_SCALED_TAPS];
  bool scaled_taps = filter->response == CC_RESPONSE_LINEAR
      && filter->radius <= ST_MAX_RADIUS;
  for (size_t k = 0; scaled_taps && k < side * side; k++) {
    scaled[k] = filter->taps[k] * ST_WEIGHT_SCALE;
    scaled_taps = std::isfinite (scaled[k]);
  }
  /* from this function's stack, as the caller's arrays: pageable memory,
   * which CUDA has staged when cudaMemcpyToSymbolAsync returns */
  if (err == cudaSuccess && scaled_taps)
    err = cudaMemcpyToSymbolAsync (c_filters, scaled,
        sizeof (float) * side * side,
        slot_offset + sizeof (float) * CC_SLOT_SCALED_TAPS,
        cudaMemcpyHostToDevice, stream);

  std::lock_guard < std::mutex > guard (slot_lock);
  SlotRecord & r = slots[slot];
  /* a failed copy may have left the slot half written */
  r.uploaded = err == cudaSuccess;
  r.radius = filter->radius;
  r.response = filter->response;
  r.offset = filter->offset;
  r.separable = separable;
  r.scaled_taps = scaled_taps;
  return err;
}

struct Launch {
  int width, height;
  ChannelArgs src, dst;
  int slot;
  float offset;
  CcBorder border;
  CcStrategy strategy;
  bool magnitude;
  bool scaled_taps;             /* SlotRecord's */
  bool src_ready;               /* CC_LAUNCH_SRC_READY */
  cudaStream_t stream;
};

/* Shared memory past the default 48 KB needs the kernel's consent; per
 * device and cheap, so asking on every launch keeps multi-GPU use simple. */
template < typename Kernel > static cudaError_t
allow_shared_bytes (Kernel kernel, size_t bytes)
{
  if (bytes <= DEFAULT_SHARED_LIMIT)
    return cudaSuccess;
  return cudaFuncSetAttribute (kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
}

/* convolve_args_valid() has refused planes with more tiles than a grid
 * takes, so the count fits an int. */
static TileGrid
tile_grid (const Launch & l, int tile_w, int tile_h)
{
  TileGrid g;
  g.columns = (l.width + tile_w - 1) / tile_w;
  g.count = g.columns * ((l.height + tile_h - 1) / tile_h);
  return g;
}

/* One tile of tile_w x tile_h outputs per block of block threads; every
 * kernel takes (src, dst, slot, offset, border, tiles). */
template < typename Kernel > static cudaError_t
launch_tiles (Kernel kernel, int tile_w, int tile_h, dim3 block,
    size_t shared_bytes, const Launch & l)
{
  const TileGrid tiles = tile_grid (l, tile_w, tile_h);
  cudaError_t err = allow_shared_bytes (kernel, shared_bytes);
  if (err != cudaSuccess)
    return err;
  kernel <<<tiles.count, block, shared_bytes, l.stream>>> (l.src, l.dst,
      l.slot, l.offset, l.border, tiles);
  return cudaGetLastError ();
}

/* The 64 x 64 tiles of the column kernels */
template < typename Kernel > static cudaError_t
launch_column_tiles (Kernel kernel, size_t shared_bytes, const Launch & l)
{
  return launch_tiles (kernel, NS_TILE_W, NS_TILE_H, dim3 (NS_THREADS_X,
          NS_THREADS_Y), shared_bytes, l);
}

/* What ask (device) answers for the current device, a positive number
 * kept in known[device] after the first time (devices past
 * CC_CUDA_MAX_DEVICES ask every time); 0 where it cannot be had. */
template < typename Ask > static int
per_device (std::atomic < int >(&known)[CC_CUDA_MAX_DEVICES], Ask ask)
{
  int dev = 0;
  if (cudaGetDevice (&dev) != cudaSuccess)
    return 0;
  const bool kept = dev >= 0 && dev < CC_CUDA_MAX_DEVICES;
  if (kept && known[dev].load () > 0)
    return known[dev].load ();
  const int value = ask (dev);
  if (kept && value > 0)
    known[dev].store (value);
  return value;
}

/* Whether the current device has programmatic dependent launch (compute
 * capability 9.0+) */
static bool
device_launches_dependents ()
{
  static std::atomic < int >known[CC_CUDA_MAX_DEVICES];
  return per_device (known,[](int dev) {
        int major = 0;
        if (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
                dev) != cudaSuccess)
          return 0;
        return major >= 9 ? 2 : 1;
      }) == 2;
}

/* Launches a kernel that joins the one before it on the stream itself
 * (cudaconv-dependent-launch.cuh): with programmatic dependent launch
 * where the device has it. */
template < typename... Params, typename... Args > static cudaError_t
launch_dependent (void (*kernel) (Params...), dim3 grid, dim3 block,
    cudaStream_t stream, Args... args)
{
  cudaLaunchConfig_t config = { };
  cudaLaunchAttribute dependent[1];
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  if (device_launches_dependents ()) {
    dependent[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    dependent[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = dependent;
    config.numAttrs = 1;
  }
  /* a failed launch is also CUDA's last error: taken here, so that a later
   * launch's check does not find it */
  (void) cudaLaunchKernelEx (&config, kernel, args...);
  return cudaGetLastError ();
}

/* The strip kernel with V samples per lane, if the planes move as its
 * vectors: true, with the launch's status in *err; false if they do not. */
template < typename T, int R, bool MAGNITUDE, int V > static bool
launch_strip (const Launch & l, cudaError_t * err)
{
  const dim3 grid = strip_grid < T, R, MAGNITUDE, V > (l.width, l.height);
  if (!strip_fits < T, R, MAGNITUDE, V > (l.src)
      || !strip_fits < T, R, MAGNITUDE, V > (l.dst) || grid.y > MAX_GRID_Y)
    return false;
  if (strip_scaled_weights < T, MAGNITUDE, V > () && !l.scaled_taps)
    return false;
  *err = launch_dependent (l.strategy == CC_STRATEGY_TILED_HALO ?
      conv_strip < T, R, MAGNITUDE, true, V > : conv_strip < T, R, MAGNITUDE,
      false, V >, grid, dim3 (ST_LANES, ST_WARPS), l.stream, l.src, l.dst,
      l.slot, l.offset, l.border, l.src_ready);
  return true;
}

template < typename T, int R, bool MAGNITUDE > static cudaError_t
launch_2d (const Launch & l)
{
  const bool tiled = l.strategy == CC_STRATEGY_TILED_HALO;
  /* small windows of planes that move as vectors: the strip kernel, where
   * a 2D tile's halo would cost more than its multiply-adds; 8 samples per
   * lane where the planes allow, else 4 */
  if constexpr (R <= ST_MAX_RADIUS) {
    cudaError_t err;
    if constexpr (!MAGNITUDE) {
      if (launch_strip < T, R, false, 8 > (l, &err))
        return err;
    }
    if (launch_strip < T, R, MAGNITUDE, 4 > (l, &err))
      return err;
  }
  if constexpr (R <= RB_MAX_RADIUS) {
    if (tiled)
      return launch_tiles (conv_row_block < T, R, MAGNITUDE >, RB_TILE_W,
          RB_TILE_H, dim3 (RB_THREADS_X, RB_THREADS_Y),
          RowBlockLayout < R >::BYTES, l);
  }
  if (tiled)
    return launch_column_tiles (conv_tiled_halo < T, R, MAGNITUDE >,
        TiledHaloLayout < R >::BYTES, l);
  if (moves_as_quads < T > (l.src))
    return launch_column_tiles (conv_cache_halo < T, R, MAGNITUDE, true >,
        CacheHaloLayout < R >::BYTES, l);
  return launch_column_tiles (conv_cache_halo < T, R, MAGNITUDE, false >,
      CacheHaloLayout < R >::BYTES, l);
}

/* SMs of the current device */
static int
device_sms ()
{
  static std::atomic < int >known[CC_CUDA_MAX_DEVICES];
  return per_device (known,[](int dev) {
        int sms = 0;
        return cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
            dev) == cudaSuccess ? sms : 0;
      });
}

/* Warps of conv_separable_mma_strip<T, R> that the current device holds
 * at once */
template < typename T, int R > static long long
ms_resident_warps ()
{
  static std::atomic < int >known[CC_CUDA_MAX_DEVICES];
  const int blocks = per_device (known,[](int) {
        int n = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&n,
                conv_separable_mma_strip < T, R >, MS_LANES, 0) ==
            cudaSuccess)
          return n;
        /* one step per strip then; the launch must not report this */
        cudaGetLastError ();
        return 0;
      });
  return (long long) blocks * device_sms ();
}

/* The fastest separable kernel for each plane on an H100 (docs/kernels.md,
 * tests/bench-separable-strip.cu):
 *  - the tensor-core streaming kernel from r = MS_MIN_RADIUS (8-bit) or
 *    MS_MIN_RADIUS_16 (16-bit) to MS_MAX_RADIUS, for planes of one sample
 *    per pixel whose rows start on 8 bytes;
 *  - else the FP32 streaming kernel up to r = SS_MAX_RADIUS, where the
 *    planes move as quads and are a strip tall;
 *  - else the tensor-core tile kernel for 8-bit planes from r = 2 on and
 *    the FP32 tile kernel for the rest. */
template < typename T, int R > static cudaError_t
launch_separable (const Launch & l)
{
  if constexpr (R >= (sizeof (T) == 1 ? MS_MIN_RADIUS : MS_MIN_RADIUS_16)
      && R <= MS_MAX_RADIUS) {
    if (ms_strip_fits (l.src) && ms_strip_fits (l.dst)) {
      const int steps = ms_strip_steps (l.width, l.height,
          ms_resident_warps < T, R > ());
      const dim3 grid = ms_strip_grid (l.width, l.height, steps);
      if (grid.y <= MAX_GRID_Y) {
        conv_separable_mma_strip < T, R > <<<grid, MS_LANES, 0,
            l.stream>>> (l.src, l.dst, l.slot, l.offset, l.border, steps);
        return cudaGetLastError ();
      }
    }
  }
  if constexpr (R >= 1 && R <= SS_MAX_RADIUS) {
    const int chunks = sep_strip_fits < T > (l.src) && sep_strip_fits < T >
        (l.dst) ? sep_strip_chunks < R > (l.width, l.height, device_sms ()) :
        0;
    if (chunks > 0) {
      const dim3 grid = sep_strip_grid < R > (l.width, l.height, chunks);
      if (grid.y <= MAX_GRID_Y) {
        conv_separable_strip < T, R > <<<grid, dim3 (SS_LANES, SS_WARPS), 0,
            l.stream>>> (l.src, l.dst, l.slot, l.offset, l.border, chunks);
        return cudaGetLastError ();
      }
    }
  }
  if constexpr (sizeof (T) == 1 && R >= 2)
    return launch_column_tiles (conv_separable < R >, SepLayout < R >::BYTES,
        l);
  else
    return launch_column_tiles (conv_separable_fp32 < T, R >,
        SepFp32Layout < R >::BYTES, l);
}

template < typename T, int R > static cudaError_t
launch_radius (const Launch & l)
{
  if (l.strategy == CC_STRATEGY_SEPARABLE)
    return launch_separable < T, R > (l);
  if (l.magnitude) {
    if constexpr (R <= CC_MAX_MAGNITUDE_RADIUS)
      return launch_2d < T, R, true > (l);
    else
      return cudaErrorInvalidValue;
  }
  return launch_2d < T, R, false > (l);
}

template < typename T, int R = 0 > static cudaError_t
dispatch_radius (int radius, const Launch & l)
{
  if constexpr (R > CC_MAX_RADIUS) {
    return cudaErrorInvalidValue;
  } else {
    if (radius == R)
      return launch_radius < T, R > (l);
    return dispatch_radius < T, R + 1 > (radius, l);
  }
}

static cudaError_t
convolve (const CcChannel * src, const CcChannel * dst, int slot,
    const SlotRecord & filter, CcBorder border, CcStrategy strategy,
    cudaStream_t stream, CcLaunchFlags flags)
{
  Launch l;
  l.width = src->width;
  l.height = src->height;
  l.src = channel_args (src);
  l.dst = channel_args (dst);
  l.slot = slot;
  l.offset = cc_channel_raw_offset (dst, filter.offset);
  l.border = border;
  l.strategy = strategy;
  l.magnitude = filter.response == CC_RESPONSE_MAGNITUDE;
  l.scaled_taps = filter.scaled_taps;
  l.src_ready = (flags & CC_LAUNCH_SRC_READY) != 0;
  l.stream = stream;
  if (src->sample == CC_SAMPLE_U8)
    return dispatch_radius < uint8_t > (filter.radius, l);
  return dispatch_radius < uint16_t > (filter.radius, l);
}

static bool
convolve_args_valid (const CcChannel * src, const CcChannel * dst,
    CcBorder border)
{
  /* the column kernels' tiles are the smallest; blocks are numbered by an
   * int */
  static_assert (NS_TILE_W <= RB_TILE_W && NS_TILE_H <= RB_TILE_H,
      "no kernel has more tiles than the column kernels");
  const long long tiles = channel_valid (src) ? (long long) ((src->width +
          NS_TILE_W - 1) / NS_TILE_W) * ((src->height + NS_TILE_H - 1) /
      NS_TILE_H) : 0;
  return channel_valid (src) && channel_valid (dst) && tiles <= INT_MAX
      && src->width == dst->width && src->height == dst->height
      && src->sample == dst->sample
      && cc_channel_depth (src) == cc_channel_depth (dst)
      && src->shift == dst->shift && (unsigned) border <= CC_BORDER_WRAP;
}

static bool
strategy_applies (CcStrategy strategy, const SlotRecord & filter)
{
  switch (strategy) {
    case CC_STRATEGY_TILED_HALO:
    case CC_STRATEGY_CACHE_HALO:
      return true;
    case CC_STRATEGY_SEPARABLE:
      return filter.separable;
  }
  return false;
}

extern "C" cudaError_t
cc_cuda_convolve (const CcChannel * src, const CcChannel * dst, int slot,
    CcBorder border, CcStrategy strategy, cudaStream_t stream,
    CcLaunchFlags flags)
{
  SlotRecord filter;
  if (!convolve_args_valid (src, dst, border) || !slot_record (slot, &filter)
      || !strategy_applies (strategy, filter)
      || (flags & ~CC_LAUNCH_SRC_READY) != 0)
    return cudaErrorInvalidValue;
  return convolve (src, dst, slot, filter, border, strategy, stream, flags);
}

extern "C" cudaError_t
cc_cuda_fastest_strategy (const CcChannel * src, const CcChannel * dst,
    int slot, CcBorder border, cudaStream_t stream, CcStrategy * fastest,
    float *ms)
{
  SlotRecord filter;
  if (!fastest || !convolve_args_valid (src, dst, border)
      || !slot_record (slot, &filter))
    return cudaErrorInvalidValue;

  cudaEvent_t marks[CC_CUDA_TUNE_RUNS + 1] = { };
  cudaError_t err = cudaSuccess;
  float best = -1.0f;
  for (int k = 0; k <= CC_CUDA_TUNE_RUNS && err == cudaSuccess; k++)
    err = cudaEventCreate (&marks[k]);

  for (int s = 0; s < CC_N_STRATEGIES && err == cudaSuccess; s++) {
    const CcStrategy strategy = (CcStrategy) s;
    float times[CC_CUDA_TUNE_RUNS];
    if (ms)
      ms[s] = -1.0f;
    if (!strategy_applies (strategy, filter))
      continue;
    /* the first launch waits for whatever the stream ran before; the
     * others follow launches that only write dst, and overlap them as the
     * element's plane launches overlap (CC_LAUNCH_SRC_READY) */
    err = convolve (src, dst, slot, filter, border, strategy, stream,
        CC_LAUNCH_DEFAULT);
    /* launches queue up behind a running one, so the events bracket GPU
     * time rather than the host's launch latency */
    for (int k = 0; k <= CC_CUDA_TUNE_RUNS && err == cudaSuccess; k++) {
      err = cudaEventRecord (marks[k], stream);
      for (int b = 0; b < TUNE_BATCH && err == cudaSuccess
          && k < CC_CUDA_TUNE_RUNS; b++)
        err = convolve (src, dst, slot, filter, border, strategy, stream,
            CC_LAUNCH_SRC_READY);
    }
    if (err == cudaSuccess)
      err = cudaEventSynchronize (marks[CC_CUDA_TUNE_RUNS]);
    for (int k = 0; k < CC_CUDA_TUNE_RUNS && err == cudaSuccess; k++)
      err = cudaEventElapsedTime (&times[k], marks[k], marks[k + 1]);
    if (err != cudaSuccess)
      break;
    std::sort (times, times + CC_CUDA_TUNE_RUNS);
    const float median = times[CC_CUDA_TUNE_RUNS / 2] / TUNE_BATCH;
    if (ms)
      ms[s] = median;
    if (best < 0.0f || median < best) {
      best = median;
      *fastest = strategy;
    }
  }
  for (int k = 0; k <= CC_CUDA_TUNE_RUNS; k++)
    if (marks[k])
      cudaEventDestroy (marks[k]);
  return err;
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
    fill_channel < uint8_t > <<<grid, block, 0, stream>>> (d, (float) value);
  else
    fill_channel < uint16_t > <<<grid, block, 0, stream>>> (d, (float) value);
  return cudaGetLastError ();
}

/* cudaconv: the CUDA kernels' host API: argument checks, the selector
 * that picks a kernel family, the strategy tuner, and fills.
 *
 * Every family is compiled in its own translation unit (the .cu beside its
 * .cuh); this one holds no convolution kernel. */
#include <algorithm>
#include <climits>

#include "families.cuh"

#define FILL_BLOCK_W 32
#define FILL_BLOCK_H 8
/* launches per timed sample of the tuner */
#define TUNE_BATCH 4

static const char *const family_names[CC_N_FAMILIES] = {
  "2d-strip-tiled-halo", "2d-strip-cache-halo", "2d-row-block",
  "2d-tiled-halo", "2d-cache-halo", "separable-strip-mma",
  "separable-strip-fp32", "separable-tile-mma", "separable-tile-fp32"
};

extern "C" const char *
cc_family_name (CcFamily family)
{
  return (unsigned) family < CC_N_FAMILIES ? family_names[family] : NULL;
}

extern "C" int
cc_family_radii (CcFamily family, CcSampleType sample, int *min_radius,
    int *max_radius)
{
  if ((unsigned) family >= CC_N_FAMILIES || !min_radius || !max_radius)
    return 0;
  const FamilyRadii & r = family_radii[family];
  *min_radius = sample == CC_SAMPLE_U8 ? r.min_8 : r.min_16;
  *max_radius = sample == CC_SAMPLE_U8 ? r.max_8 : r.max_16;
  return *min_radius <= *max_radius;
}

template < typename T > __global__ void
fill_component (ComponentArgs dst, float value)
{
  const int x = blockIdx.x * FILL_BLOCK_W + threadIdx.x;
  const int y = blockIdx.y * FILL_BLOCK_H + threadIdx.y;
  if (x < dst.width && y < dst.height)
    store_sample < T > (dst, x, y, value);
}

static ComponentArgs
component_args (const CcComponent * c)
{
  const unsigned max = cc_component_max_raw (c), kept = cc_component_kept_bits (c);
  ComponentArgs a = { (char *) c->data, c->pitch, c->pixel_stride, c->width,
    c->height, max | max << 16, kept | kept << 16,
    c->sample == CC_SAMPLE_U16 && (max != 0xffffu || kept != 0xffffu)
  };
  return a;
}

static bool
convolve_args_valid (const CcComponent * src, const CcComponent * dst,
    const CcFilter * filter)
{
  /* the column kernels' tiles are the smallest (2d-row-block.cu asserts
   * it); blocks are numbered by an int */
  const long long tiles = cc_component_valid (src) ? (long long) ((src->width +
          Tile64::TILE_W - 1) / Tile64::TILE_W) * ((src->height
              + Tile64::TILE_H - 1) /
      Tile64::TILE_H) : 0;
  return cc_component_valid (src) && cc_component_valid (dst) && tiles <= INT_MAX
      && src->width == dst->width && src->height == dst->height
      && src->sample == dst->sample
      && cc_component_depth (src) == cc_component_depth (dst)
      && src->shift == dst->shift && cc_filter_valid (filter);
}

static Launch
make_launch (const CcComponent * src, const CcComponent * dst,
    const CcFilter * filter, CcBorder border, cudaStream_t stream,
    CcLaunchFlags flags)
{
  Launch l;
  l.width = src->width;
  l.height = src->height;
  l.src = component_args (src);
  l.dst = component_args (dst);
  l.sample = src->sample;
  l.filter = filter;
  l.offset = cc_component_raw_offset (dst, filter->offset);
  l.border = border;
  l.src_ready = (flags & CC_LAUNCH_SRC_READY) != 0;
  l.stream = stream;
  return l;
}

static bool
radius_in (const FamilyRadii & r, const Launch & l)
{
  return l.sample == CC_SAMPLE_U8 ?
      l.radius () >= r.min_8 && l.radius () <= r.max_8 :
      l.radius () >= r.min_16 && l.radius () <= r.max_16;
}

/* The conditions of each family of the catalogue: its radii
 * (family_radii), the filter it needs, and what it asks of the planes. */
static bool
family_takes (CcFamily family, const Launch & l)
{
  const bool separable = cc_filter_is_separable (l.filter);
  if (!radius_in (family_radii[family], l))
    return false;
  switch (family) {
    case CC_FAMILY_2D_STRIP_TILED_HALO:
    case CC_FAMILY_2D_STRIP_CACHE_HALO:
      /* rows in whole vectors, a strip tall, the grid not too tall */
      return strip_2d_fits (l);
    case CC_FAMILY_2D_ROW_BLOCK:
    case CC_FAMILY_2D_TILED_HALO:
      return true;
    case CC_FAMILY_2D_CACHE_HALO:
      /* rows in whole quads, the halo's loads */
      return l.sample == CC_SAMPLE_U8 ? moves_as_quads < uint8_t > (l.src) :
          moves_as_quads < uint16_t > (l.src);
    case CC_FAMILY_SEPARABLE_STRIP_MMA:
      /* rows on 8 bytes, the grid not too tall */
      return separable && separable_strip_mma_fits (l);
    case CC_FAMILY_SEPARABLE_STRIP_FP32:
      /* rows in whole quads, a strip tall, the grid not too tall */
      return separable && separable_strip_fp32_fits (l);
    case CC_FAMILY_SEPARABLE_TILE_MMA:
    case CC_FAMILY_SEPARABLE_TILE_FP32:
      return separable;
  }
  return false;
}

/* The selector: per strategy, the families in the order they are tried;
 * the first whose conditions hold runs. At small radii a strip beats a 2D
 * tile, whose halo costs more than its multiply-adds; among the separable
 * families the streaming ones beat the tiles where they fit, and the
 * tensor cores beat the FP32 units from the radii family_radii gives them
 * (docs/kernels.md has the measurements). The last family of each list
 * takes every plane. */
static const CcFamily strategy_families[CC_N_STRATEGIES][4] = {
  /* CC_STRATEGY_AUTO: resolved by the tuner, never launched */
  {},
  /* CC_STRATEGY_TILED_HALO */
  {CC_FAMILY_2D_STRIP_TILED_HALO, CC_FAMILY_2D_ROW_BLOCK,
      CC_FAMILY_2D_TILED_HALO},
  /* CC_STRATEGY_CACHE_HALO: on packed pixels, the tiled-halo families */
  {CC_FAMILY_2D_STRIP_CACHE_HALO, CC_FAMILY_2D_CACHE_HALO,
      CC_FAMILY_2D_ROW_BLOCK, CC_FAMILY_2D_TILED_HALO},
  /* CC_STRATEGY_SEPARABLE */
  {CC_FAMILY_SEPARABLE_STRIP_MMA, CC_FAMILY_SEPARABLE_STRIP_FP32,
      CC_FAMILY_SEPARABLE_TILE_MMA, CC_FAMILY_SEPARABLE_TILE_FP32},
};
static const int strategy_n_families[CC_N_STRATEGIES] = { 0, 3, 4, 4 };

static bool
select_family (CcStrategy strategy, const Launch & l, CcFamily * family)
{
  if ((unsigned) strategy >= CC_N_STRATEGIES)
    return false;
  for (int k = 0; k < strategy_n_families[strategy]; k++) {
    if (family_takes (strategy_families[strategy][k], l)) {
      *family = strategy_families[strategy][k];
      return true;
    }
  }
  return false;
}

static cudaError_t
launch_family (CcFamily family, const Launch & l)
{
  switch (family) {
    case CC_FAMILY_2D_STRIP_TILED_HALO:
      return launch_2d_strip (l, true);
    case CC_FAMILY_2D_STRIP_CACHE_HALO:
      return launch_2d_strip (l, false);
    case CC_FAMILY_2D_ROW_BLOCK:
      return launch_2d_row_block (l);
    case CC_FAMILY_2D_TILED_HALO:
      return launch_2d_tiled_halo (l);
    case CC_FAMILY_2D_CACHE_HALO:
      return launch_2d_cache_halo (l);
    case CC_FAMILY_SEPARABLE_STRIP_MMA:
      return launch_separable_strip_mma (l);
    case CC_FAMILY_SEPARABLE_STRIP_FP32:
      return launch_separable_strip_fp32 (l);
    case CC_FAMILY_SEPARABLE_TILE_MMA:
      return launch_separable_tile_mma (l);
    case CC_FAMILY_SEPARABLE_TILE_FP32:
      return launch_separable_tile_fp32 (l);
  }
  return cudaErrorInvalidValue;
}

static bool
launch_args_valid (const CcComponent * src, const CcComponent * dst,
    const CcFilter * filter, CcBorder border, CcLaunchFlags flags)
{
  return convolve_args_valid (src, dst, filter)
      && (unsigned) border <= CC_BORDER_WRAP
      && (flags & ~CC_LAUNCH_SRC_READY) == 0;
}

extern "C" cudaError_t
cc_cuda_select_family (const CcComponent * src, const CcComponent * dst,
    const CcFilter * filter, CcStrategy strategy, CcFamily * family)
{
  if (!family || !convolve_args_valid (src, dst, filter))
    return cudaErrorInvalidValue;
  const Launch l = make_launch (src, dst, filter, CC_BORDER_CLAMP, 0,
      CC_LAUNCH_DEFAULT);
  return select_family (strategy, l, family) ? cudaSuccess :
      cudaErrorInvalidValue;
}

extern "C" cudaError_t
cc_cuda_convolve (const CcComponent * src, const CcComponent * dst,
    const CcFilter * filter, CcBorder border, CcStrategy strategy,
    cudaStream_t stream, CcLaunchFlags flags, CcFamily * ran)
{
  if (!launch_args_valid (src, dst, filter, border, flags))
    return cudaErrorInvalidValue;
  const Launch l = make_launch (src, dst, filter, border, stream, flags);
  CcFamily family;
  if (!select_family (strategy, l, &family))
    return cudaErrorInvalidValue;
  if (ran)
    *ran = family;
  return launch_family (family, l);
}

extern "C" int
cc_cuda_family_takes (CcFamily family, const CcComponent * src,
    const CcComponent * dst, const CcFilter * filter)
{
  if ((unsigned) family >= CC_N_FAMILIES
      || !convolve_args_valid (src, dst, filter))
    return 0;
  return family_takes (family, make_launch (src, dst, filter,
          CC_BORDER_CLAMP, 0, CC_LAUNCH_DEFAULT));
}

extern "C" cudaError_t
cc_cuda_convolve_family (CcFamily family, const CcComponent * src,
    const CcComponent * dst, const CcFilter * filter, CcBorder border,
    cudaStream_t stream, CcLaunchFlags flags)
{
  if ((unsigned) family >= CC_N_FAMILIES
      || !launch_args_valid (src, dst, filter, border, flags))
    return cudaErrorInvalidValue;
  const Launch l = make_launch (src, dst, filter, border, stream, flags);
  if (!family_takes (family, l))
    return cudaErrorInvalidValue;
  return launch_family (family, l);
}

extern "C" cudaError_t
cc_cuda_fastest_strategy (const CcComponent * src, const CcComponent * dst,
    const CcFilter * filter, CcBorder border, cudaStream_t stream,
    CcStrategy * fastest, float *ms)
{
  if (!fastest || !launch_args_valid (src, dst, filter, border,
          CC_LAUNCH_DEFAULT))
    return cudaErrorInvalidValue;
  /* the first launch waits for whatever the stream ran before; the others
   * follow launches that only write dst, and overlap them as the element's
   * plane launches overlap (CC_LAUNCH_SRC_READY) */
  const Launch first = make_launch (src, dst, filter, border, stream,
      CC_LAUNCH_DEFAULT);
  const Launch next = make_launch (src, dst, filter, border, stream,
      CC_LAUNCH_SRC_READY);

  cudaEvent_t marks[CC_CUDA_TUNE_RUNS + 1] = { };
  cudaError_t err = cudaSuccess;
  float best = -1.0f;
  bool timed[CC_N_FAMILIES] = { };
  for (int f = 0; ms && f < CC_N_FAMILIES; f++)
    ms[f] = -1.0f;
  for (int k = 0; k <= CC_CUDA_TUNE_RUNS && err == cudaSuccess; k++)
    err = cudaEventCreate (&marks[k]);

  for (int s = 0; s < CC_N_STRATEGIES && err == cudaSuccess; s++) {
    const CcStrategy strategy = (CcStrategy) s;
    float times[CC_CUDA_TUNE_RUNS];
    CcFamily family;
    /* two strategies may run the same family (cache-halo on packed
     * pixels); the first keeps it */
    if (!select_family (strategy, first, &family) || timed[family])
      continue;
    timed[family] = true;
    err = launch_family (family, first);
    /* launches queue up behind a running one, so the events bracket GPU
     * time rather than the host's launch latency */
    for (int k = 0; k <= CC_CUDA_TUNE_RUNS && err == cudaSuccess; k++) {
      err = cudaEventRecord (marks[k], stream);
      for (int b = 0; b < TUNE_BATCH && err == cudaSuccess
          && k < CC_CUDA_TUNE_RUNS; b++)
        err = launch_family (family, next);
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
      ms[family] = median;
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
cc_cuda_fill (const CcComponent * dst, unsigned value, cudaStream_t stream)
{
  if (!cc_component_valid (dst))
    return cudaErrorInvalidValue;
  dim3 block (FILL_BLOCK_W, FILL_BLOCK_H);
  dim3 grid ((dst->width + FILL_BLOCK_W - 1) / FILL_BLOCK_W,
      (dst->height + FILL_BLOCK_H - 1) / FILL_BLOCK_H);
  ComponentArgs d = component_args (dst);
  if (dst->sample == CC_SAMPLE_U8)
    fill_component < uint8_t > <<<grid, block, 0, stream>>> (d, (float) value);
  else
    fill_component < uint16_t > <<<grid, block, 0, stream>>> (d, (float) value);
  return cudaGetLastError ();
}

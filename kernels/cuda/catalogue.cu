/* cudaconv: the CUDA kernels' host API: the catalogue of kernel families,
 * argument checks, the selector that picks a family, the strategy tuner,
 * and fills.
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

/* What the catalogue's rows ask beyond a family's radii: nothing of the
 * planes, */
static bool
any_plane (const Launch &)
{
  return true;
}

/* no device workspace */
static size_t
no_workspace (const Launch &)
{
  return 0;
}

/* or a filter with factors, and what takes asks of the planes */
template <bool (*takes) (const Launch &)> static bool
with_factors (const Launch &l)
{
  return cc_filter_is_separable (l.filter) && takes (l);
}

/* The catalogue: one row per kernel family, in CcFamily's order: its name,
 * the filter shape it runs, the radii it is compiled for (radii.cuh),
 * what it asks beyond them of the filter and of the planes, where the
 * selector prefers it among those that can run a launch (a family that
 * can run planes on which another is faster), its launcher (families.cuh)
 * and the device workspace it needs. A new family is a
 * CcFamily value, a row here, its place in a strategy's list (or, for a
 * shape of its own, none), and its files (their entry points in
 * families.cuh, their unit in kernels/meson.build). */
struct Family {
  CcFamily family;
  const char *name;
  CcShape shape;
  FamilyRadii radii;
  bool (*takes) (const Launch &l);
  bool (*prefers) (const Launch &l);
  cudaError_t (*launch) (const Launch &l);
  size_t (*workspace) (const Launch &l);
};

static constexpr Family catalogue[] = {
  /* rows in whole vectors, a strip tall, the grid not too tall */
  { CC_FAMILY_2D_STRIP_TILED_HALO, "2d-strip-tiled-halo", CC_SHAPE_TAPS,
      STRIP_2D_RADII, strip_2d_fits, any_plane, launch_2d_strip_tiled_halo,
      no_workspace },
  { CC_FAMILY_2D_STRIP_CACHE_HALO, "2d-strip-cache-halo", CC_SHAPE_TAPS,
      STRIP_2D_RADII, strip_2d_fits, any_plane, launch_2d_strip_cache_halo,
      no_workspace },
  { CC_FAMILY_2D_ROW_BLOCK, "2d-row-block", CC_SHAPE_TAPS, ROW_BLOCK_RADII,
      any_plane, any_plane, launch_2d_row_block, no_workspace },
  { CC_FAMILY_2D_TILED_HALO, "2d-tiled-halo", CC_SHAPE_TAPS, TILE_2D_RADII,
      any_plane, any_plane, launch_2d_tiled_halo, no_workspace },
  /* rows in whole quads, the halo's loads */
  { CC_FAMILY_2D_CACHE_HALO, "2d-cache-halo", CC_SHAPE_TAPS, TILE_2D_RADII,
      cache_halo_2d_fits, any_plane, launch_2d_cache_halo, no_workspace },
  /* rows on 8 bytes, the grid not too tall */
  { CC_FAMILY_SEPARABLE_STRIP_MMA, "separable-strip-mma", CC_SHAPE_TAPS,
      STRIP_MMA_RADII, with_factors<separable_strip_mma_fits>, any_plane,
      launch_separable_strip_mma, no_workspace },
  /* rows in whole quads, a strip tall, the grid not too tall */
  { CC_FAMILY_SEPARABLE_STRIP_FP32, "separable-strip-fp32", CC_SHAPE_TAPS,
      STRIP_FP32_RADII, with_factors<separable_strip_fp32_fits>, any_plane,
      launch_separable_strip_fp32, no_workspace },
  { CC_FAMILY_SEPARABLE_TILE_MMA, "separable-tile-mma", CC_SHAPE_TAPS,
      TILE_MMA_RADII, with_factors<any_plane>, any_plane,
      launch_separable_tile_mma, no_workspace },
  { CC_FAMILY_SEPARABLE_TILE_FP32, "separable-tile-fp32", CC_SHAPE_TAPS,
      TILE_FP32_RADII, with_factors<any_plane>, any_plane,
      launch_separable_tile_fp32, no_workspace },
  /* the wide shapes: a runtime radius, any plane; the tensor cores first,
   * from the radius where their band pays, on planes large enough to
   * fill the GPU with their blocks */
  { CC_FAMILY_SEPARABLE_WIDE_MMA, "separable-wide-mma", CC_SHAPE_WIDE,
      WIDE_MMA_RADII, any_plane, separable_wide_mma_fills,
      launch_separable_wide_mma, separable_wide_mma_workspace },
  { CC_FAMILY_SEPARABLE_WIDE, "separable-wide", CC_SHAPE_WIDE, WIDE_RADII,
      any_plane, any_plane, launch_separable_wide, separable_wide_workspace },
  /* the box: one pass at small radii, then line passes from the radius
   * where they beat running sums */
  { CC_FAMILY_BOX_STRIP, "box-strip", CC_SHAPE_BOX, BOX_STRIP_RADII,
      any_plane, box_strip_pays, launch_box_strip, no_workspace },
  { CC_FAMILY_BOX_LINES, "box-lines", CC_SHAPE_BOX, WIDE_RADII, any_plane,
      box_lines_pays, launch_box_lines, box_workspace },
  { CC_FAMILY_BOX_RUNNING_SUM, "box-running-sum", CC_SHAPE_BOX, WIDE_RADII,
      any_plane, any_plane, launch_box_running_sum,
      box_workspace },
  { CC_FAMILY_BLOCK_MEAN, "block-mean", CC_SHAPE_BLOCKS, WIDE_RADII,
      any_plane, any_plane, launch_block_mean, block_mean_workspace },
};

/* catalogue[family] must be that family's row */
static constexpr bool
rows_in_family_order ()
{
  for (int k = 0; k < CC_N_FAMILIES; k++)
    if (catalogue[k].family != k)
      return false;
  return true;
}

static_assert (sizeof (catalogue) / sizeof (catalogue[0]) == CC_N_FAMILIES
        && rows_in_family_order (),
    "one row per family, in CcFamily's order");

/* The selector: per strategy, the families in the order they are tried;
 * the first whose conditions hold runs. At small radii a strip beats a 2D
 * tile, whose halo costs more than its multiply-adds; among the separable
 * families the streaming ones beat the tiles where they fit, and the
 * tensor cores beat the FP32 units from the radii their rows give them
 * (docs/kernels.md has the measurements). The last family of each list
 * takes every plane. The lists hold taps families only: a filter of
 * another shape runs the first of that shape's families that takes it
 * (in the catalogue's order), whatever the strategy (select_family). */
struct Strategy {
  int n_families;
  CcFamily families[4];
};

static const Strategy strategies[CC_N_STRATEGIES] = {
  /* CC_STRATEGY_AUTO: resolved by the tuner, never launched */
  { 0, {} },
  /* CC_STRATEGY_TILED_HALO */
  { 3,
      { CC_FAMILY_2D_STRIP_TILED_HALO, CC_FAMILY_2D_ROW_BLOCK,
          CC_FAMILY_2D_TILED_HALO } },
  /* CC_STRATEGY_CACHE_HALO: on packed pixels, the tiled-halo families */
  { 4,
      { CC_FAMILY_2D_STRIP_CACHE_HALO, CC_FAMILY_2D_CACHE_HALO,
          CC_FAMILY_2D_ROW_BLOCK, CC_FAMILY_2D_TILED_HALO } },
  /* CC_STRATEGY_SEPARABLE */
  { 4,
      { CC_FAMILY_SEPARABLE_STRIP_MMA, CC_FAMILY_SEPARABLE_STRIP_FP32,
          CC_FAMILY_SEPARABLE_TILE_MMA, CC_FAMILY_SEPARABLE_TILE_FP32 } },
};

extern "C" const char *
cc_family_name (CcFamily family)
{
  return (unsigned) family < CC_N_FAMILIES ? catalogue[family].name : NULL;
}

extern "C" int
cc_family_radii (CcFamily family, CcSampleType sample, int *min_radius,
    int *max_radius)
{
  if ((unsigned) family >= CC_N_FAMILIES || !min_radius || !max_radius)
    return 0;
  const FamilyRadii &r = catalogue[family].radii;
  *min_radius = sample == CC_SAMPLE_U8 ? r.min_8 : r.min_16;
  *max_radius = sample == CC_SAMPLE_U8 ? r.max_8 : r.max_16;
  return *min_radius <= *max_radius;
}

template <typename T> __global__ void
fill_component (ComponentArgs dst, float value)
{
  const int x = blockIdx.x * FILL_BLOCK_W + threadIdx.x;
  const int y = blockIdx.y * FILL_BLOCK_H + threadIdx.y;
  if (x < dst.width && y < dst.height)
    store_sample<T> (dst, x, y, value);
}

static ComponentArgs
component_args (const CcComponent *c)
{
  const unsigned max = cc_component_max_raw (c),
                 kept = cc_component_kept_bits (c);
  ComponentArgs a = { (char *) c->data, c->pitch, c->pixel_stride, c->width,
    c->height, max | max << 16, kept | kept << 16,
    c->sample == CC_SAMPLE_U16 && (max != 0xffffu || kept != 0xffffu) };
  return a;
}

static bool
convolve_args_valid (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter)
{
  /* the column kernels' tiles are the smallest (2d-row-block.cu asserts
   * it); blocks are numbered by an int */
  const long long tiles = cc_component_valid (src) ?
      (long long) ((src->width + Tile64::TILE_W - 1) / Tile64::TILE_W)
          * ((src->height + Tile64::TILE_H - 1) / Tile64::TILE_H) :
      0;
  return cc_component_valid (src) && cc_component_valid (dst)
      && tiles <= INT_MAX && src->width == dst->width
      && src->height == dst->height && src->sample == dst->sample
      && cc_component_depth (src) == cc_component_depth (dst)
      && src->shift == dst->shift && cc_filter_valid (filter);
}

static Launch
make_launch (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, void *workspace,
    size_t workspace_bytes, cudaStream_t stream, CcLaunchFlags flags)
{
  Launch l;
  l.width = src->width;
  l.height = src->height;
  l.src = component_args (src);
  l.dst = component_args (dst);
  l.sample = src->sample;
  l.filter = filter;
  l.offset = cc_component_raw_offset (dst, filter->offset);
  l.shift = dst->shift;
  l.max_value = (1u << cc_component_depth (dst)) - 1u;
  l.border = border;
  l.src_ready = (flags & CC_LAUNCH_SRC_READY) != 0;
  l.stream = stream;
  l.workspace = workspace;
  l.workspace_bytes = workspace_bytes;
  return l;
}

static bool
radius_in (const FamilyRadii &r, const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ?
      l.radius () >= r.min_8 && l.radius () <= r.max_8 :
      l.radius () >= r.min_16 && l.radius () <= r.max_16;
}

/* Whether the family's row takes l: its shape, its radii, then its
 * conditions */
static bool
family_takes (CcFamily family, const Launch &l)
{
  const Family &f = catalogue[family];
  return f.shape == l.filter->shape && radius_in (f.radii, l) && f.takes (l);
}

/* Whether the selector runs the family for l: it takes l, and l is of
 * the planes the row prefers it for */
static bool
family_chosen (CcFamily family, const Launch &l)
{
  return family_takes (family, l) && catalogue[family].prefers (l);
}

static bool
select_family (CcStrategy strategy, const Launch &l, CcFamily *family)
{
  if ((unsigned) strategy >= CC_N_STRATEGIES)
    return false;
  /* strategies choose among taps families; the other shapes have one */
  if (l.filter->shape != CC_SHAPE_TAPS) {
    for (int f = 0; f < CC_N_FAMILIES; f++) {
      if (family_chosen ((CcFamily) f, l)) {
        *family = (CcFamily) f;
        return true;
      }
    }
    return false;
  }
  const Strategy &list = strategies[strategy];
  for (int k = 0; k < list.n_families; k++) {
    if (family_chosen (list.families[k], l)) {
      *family = list.families[k];
      return true;
    }
  }
  return false;
}

/* The workspace the family needs for l, on 16 bytes as cudaMalloc's
 * allocations are, is there */
static bool
workspace_fits (CcFamily family, const Launch &l)
{
  const size_t need = catalogue[family].workspace (l);
  return need == 0
      || (l.workspace && l.workspace_bytes >= need
          && reinterpret_cast<uintptr_t> (l.workspace) % 16 == 0);
}

static cudaError_t
launch_family (CcFamily family, const Launch &l)
{
  if (!workspace_fits (family, l))
    return cudaErrorInvalidValue;
  return catalogue[family].launch (l);
}

static bool
launch_args_valid (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, CcLaunchFlags flags)
{
  return convolve_args_valid (src, dst, filter)
      && (unsigned) border <= CC_BORDER_WRAP
      && (flags & ~CC_LAUNCH_SRC_READY) == 0;
}

extern "C" cudaError_t
cc_cuda_select_family (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcStrategy strategy, CcFamily *family)
{
  if (!family || !convolve_args_valid (src, dst, filter))
    return cudaErrorInvalidValue;
  const Launch l = make_launch (src, dst, filter, CC_BORDER_CLAMP, NULL, 0,
      0, CC_LAUNCH_DEFAULT);
  return select_family (strategy, l, family) ? cudaSuccess :
                                               cudaErrorInvalidValue;
}

extern "C" size_t
cc_cuda_workspace_bytes (const CcComponent *src, const CcFilter *filter)
{
  CcFamily family;
  if (!convolve_args_valid (src, src, filter))
    return 0;
  const Launch l = make_launch (src, src, filter, CC_BORDER_CLAMP, NULL, 0,
      0, CC_LAUNCH_DEFAULT);
  /* no taps family needs workspace, whichever strategy picks it */
  if (filter->shape == CC_SHAPE_TAPS
      || !select_family (CC_STRATEGY_AUTO, l, &family))
    return 0;
  return catalogue[family].workspace (l);
}

extern "C" size_t
cc_cuda_family_workspace_bytes (CcFamily family, const CcComponent *src,
    const CcFilter *filter)
{
  if ((unsigned) family >= CC_N_FAMILIES
      || !convolve_args_valid (src, src, filter))
    return 0;
  const Launch l = make_launch (src, src, filter, CC_BORDER_CLAMP, NULL, 0,
      0, CC_LAUNCH_DEFAULT);
  return family_takes (family, l) ? catalogue[family].workspace (l) : 0;
}

extern "C" cudaError_t
cc_cuda_convolve (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, CcStrategy strategy,
    void *workspace, size_t workspace_bytes, cudaStream_t stream,
    CcLaunchFlags flags, CcFamily *ran)
{
  if (!launch_args_valid (src, dst, filter, border, flags))
    return cudaErrorInvalidValue;
  const Launch l = make_launch (src, dst, filter, border, workspace,
      workspace_bytes, stream, flags);
  CcFamily family;
  if (!select_family (strategy, l, &family) || !workspace_fits (family, l))
    return cudaErrorInvalidValue;
  if (ran)
    *ran = family;
  return launch_family (family, l);
}

extern "C" int
cc_cuda_family_takes (CcFamily family, const CcComponent *src,
    const CcComponent *dst, const CcFilter *filter)
{
  if ((unsigned) family >= CC_N_FAMILIES
      || !convolve_args_valid (src, dst, filter))
    return 0;
  return family_takes (family,
      make_launch (src, dst, filter, CC_BORDER_CLAMP, NULL, 0, 0,
          CC_LAUNCH_DEFAULT));
}

extern "C" cudaError_t
cc_cuda_convolve_family (CcFamily family, const CcComponent *src,
    const CcComponent *dst, const CcFilter *filter, CcBorder border,
    void *workspace, size_t workspace_bytes, cudaStream_t stream,
    CcLaunchFlags flags)
{
  if ((unsigned) family >= CC_N_FAMILIES
      || !launch_args_valid (src, dst, filter, border, flags))
    return cudaErrorInvalidValue;
  const Launch l = make_launch (src, dst, filter, border, workspace,
      workspace_bytes, stream, flags);
  if (!family_takes (family, l))
    return cudaErrorInvalidValue;
  return launch_family (family, l);
}

extern "C" cudaError_t
cc_cuda_fastest_strategy (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, void *workspace,
    size_t workspace_bytes, cudaStream_t stream, CcStrategy *fastest,
    float *ms)
{
  if (!fastest
      || !launch_args_valid (src, dst, filter, border, CC_LAUNCH_DEFAULT))
    return cudaErrorInvalidValue;
  /* the first launch waits for whatever the stream ran before; the others
   * follow launches that only write dst, and overlap them as the element's
   * plane launches overlap (CC_LAUNCH_SRC_READY) */
  const Launch first = make_launch (src, dst, filter, border, workspace,
      workspace_bytes, stream, CC_LAUNCH_DEFAULT);
  const Launch next = make_launch (src, dst, filter, border, workspace,
      workspace_bytes, stream, CC_LAUNCH_SRC_READY);

  for (int f = 0; ms && f < CC_N_FAMILIES; f++)
    ms[f] = -1.0f;
  /* the other shapes' families do not depend on the strategy: nothing to
   * time, and auto runs the one the selector picks */
  if (filter->shape != CC_SHAPE_TAPS) {
    CcFamily family;
    if (!select_family (CC_STRATEGY_AUTO, first, &family)
        || !workspace_fits (family, first))
      return cudaErrorInvalidValue;
    *fastest = CC_STRATEGY_AUTO;
    return cudaSuccess;
  }

  cudaEvent_t marks[CC_CUDA_TUNE_RUNS + 1] = {};
  cudaError_t err = cudaSuccess;
  float best = -1.0f;
  bool timed[CC_N_FAMILIES] = {};
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
      for (int b = 0;
           b < TUNE_BATCH && err == cudaSuccess && k < CC_CUDA_TUNE_RUNS; b++)
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
cc_cuda_fill (const CcComponent *dst, unsigned value, cudaStream_t stream)
{
  if (!cc_component_valid (dst))
    return cudaErrorInvalidValue;
  dim3 block (FILL_BLOCK_W, FILL_BLOCK_H);
  dim3 grid ((dst->width + FILL_BLOCK_W - 1) / FILL_BLOCK_W,
      (dst->height + FILL_BLOCK_H - 1) / FILL_BLOCK_H);
  ComponentArgs d = component_args (dst);
  if (dst->sample == CC_SAMPLE_U8)
    return launch_kernel (fill_component<uint8_t>, grid, block, 0, stream,
        false, d, (float) value);
  return launch_kernel (fill_component<uint16_t>, grid, block, 0, stream, false,
      d, (float) value);
}

/* cudaconv: the radii each kernel family is compiled for, the catalogue's
 * one source for them: the selector reads the table, the launchers and
 * the kernels the constants. A change here rebuilds every family. */
#ifndef CUDACONV_RADII_CUH
#define CUDACONV_RADII_CUH

#include "cudaconv-cuda.h"

/* 2d-strip: where a 2D tile's halo would cost more than the window's
 * multiply-adds */
constexpr int STRIP_2D_MAX_RADIUS = 2;
/* 2d-row-block: past r2 its fully unrolled code outgrows the instruction
 * cache */
constexpr int ROW_BLOCK_MAX_RADIUS = 2;
/* separable-strip-fp32: past r4 the tensor-core kernels were faster */
constexpr int STRIP_FP32_MAX_RADIUS = 4;
/* separable-strip-mma: two k-steps of 16 rows reach 8 rows above and below
 * 16 outputs */
constexpr int STRIP_MMA_MAX_RADIUS = 8;
/* below these (8-bit, 16-bit samples) the FP32 streaming kernel was faster
 * (docs/kernels.md) */
constexpr int STRIP_MMA_MIN_RADIUS_8 = 3;
constexpr int STRIP_MMA_MIN_RADIUS_16 = 5;

/* Radii a family is compiled for, for 8-bit and for 16-bit samples (none
 * where min > max). Gradient magnitudes run only in the 2D families, up
 * to CC_MAX_MAGNITUDE_RADIUS. */
struct FamilyRadii {
  int min_8, max_8, min_16, max_16;
};

constexpr FamilyRadii family_radii[CC_N_FAMILIES] = {
  /* 2d-strip-tiled-halo, 2d-strip-cache-halo */
  {0, STRIP_2D_MAX_RADIUS, 0, STRIP_2D_MAX_RADIUS},
  {0, STRIP_2D_MAX_RADIUS, 0, STRIP_2D_MAX_RADIUS},
  /* 2d-row-block */
  {0, ROW_BLOCK_MAX_RADIUS, 0, ROW_BLOCK_MAX_RADIUS},
  /* 2d-tiled-halo, 2d-cache-halo */
  {0, CC_MAX_RADIUS, 0, CC_MAX_RADIUS},
  {0, CC_MAX_RADIUS, 0, CC_MAX_RADIUS},
  /* separable-strip-mma */
  {STRIP_MMA_MIN_RADIUS_8, STRIP_MMA_MAX_RADIUS, STRIP_MMA_MIN_RADIUS_16,
      STRIP_MMA_MAX_RADIUS},
  /* separable-strip-fp32 */
  {1, STRIP_FP32_MAX_RADIUS, 1, STRIP_FP32_MAX_RADIUS},
  /* separable-tile-mma: 8-bit planes from r2 (an fp16 copy of a 16-bit
   * sample takes two planes, which measured slower) */
  {2, CC_MAX_RADIUS, 1, 0},
  /* separable-tile-fp32: the rest */
  {0, 1, 0, CC_MAX_RADIUS},
};

#endif /* CUDACONV_RADII_CUH */

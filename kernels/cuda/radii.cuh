/* cudaconv: the radii each kernel family is compiled for, the catalogue's
 * one source for them: the selector reads them through the catalogue's
 * rows, the launchers and the kernels as constants. A change here rebuilds
 * every family. */
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
 * where min > max): one constant per family, which its catalogue row
 * (catalogue.cu) and its launcher both read. Gradient magnitudes run only
 * in the 2D families, up to CC_MAX_MAGNITUDE_RADIUS. */
struct FamilyRadii {
  int min_8, max_8, min_16, max_16;
};

/* 2d-strip-tiled-halo, 2d-strip-cache-halo */
inline constexpr FamilyRadii STRIP_2D_RADII = { 0, STRIP_2D_MAX_RADIUS, 0,
  STRIP_2D_MAX_RADIUS };
inline constexpr FamilyRadii ROW_BLOCK_RADII = { 0, ROW_BLOCK_MAX_RADIUS, 0,
  ROW_BLOCK_MAX_RADIUS };
/* 2d-tiled-halo, 2d-cache-halo */
inline constexpr FamilyRadii TILE_2D_RADII = { 0, CC_MAX_RADIUS, 0,
  CC_MAX_RADIUS };
inline constexpr FamilyRadii STRIP_MMA_RADII = { STRIP_MMA_MIN_RADIUS_8,
  STRIP_MMA_MAX_RADIUS, STRIP_MMA_MIN_RADIUS_16, STRIP_MMA_MAX_RADIUS };
inline constexpr FamilyRadii STRIP_FP32_RADII = { 1, STRIP_FP32_MAX_RADIUS, 1,
  STRIP_FP32_MAX_RADIUS };
/* separable-tile-mma: 8-bit planes from r2 (an fp16 copy of a 16-bit
 * sample takes two planes, which measured slower) */
inline constexpr FamilyRadii TILE_MMA_RADII = { 2, CC_MAX_RADIUS, 1, 0 };
/* separable-tile-fp32: the rest */
inline constexpr FamilyRadii TILE_FP32_RADII = { 0, 1, 0, CC_MAX_RADIUS };

/* separable-wide-mma: the wide shape past the taps' radii (below, the
 * taps families run such filters) */
constexpr int WIDE_MMA_MIN_RADIUS = CC_MAX_RADIUS + 1;
inline constexpr FamilyRadii WIDE_MMA_RADII = { WIDE_MMA_MIN_RADIUS,
  CC_MAX_WIDE_RADIUS, WIDE_MMA_MIN_RADIUS, CC_MAX_WIDE_RADIUS };

/* box-strip: a ring of 2r + 1 rows in registers and r columns either side
 * from two neighbouring lanes (BoxStripShape) */
constexpr int BOX_STRIP_MAX_RADIUS = 8;
inline constexpr FamilyRadii BOX_STRIP_RADII = { 1, BOX_STRIP_MAX_RADIUS, 1,
  BOX_STRIP_MAX_RADIUS };

/* separable-wide, box-running-sum, block-mean: a runtime radius, every
 * radius of the wide shapes */
inline constexpr FamilyRadii WIDE_RADII = { 0, CC_MAX_WIDE_RADIUS, 0,
  CC_MAX_WIDE_RADIUS };

#endif /* CUDACONV_RADII_CUH */

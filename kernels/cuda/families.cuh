/* cudaconv: what the catalogue (catalogue.cu) and the families' launchers
 * (one .cu each) share: each family's entry points, and the compile-time
 * view of the radii it takes (radii.cuh). */
#ifndef CUDACONV_FAMILIES_CUH
#define CUDACONV_FAMILIES_CUH

#include "launch.cuh"
#include "radii.cuh"

/* The compile-time view of a family's radii, for with_kernel_separable */
template <const FamilyRadii &RADII> struct RadiiOf {
  template <typename T> static constexpr int min ()
  {
    return sizeof (T) == 1 ? RADII.min_8 : RADII.min_16;
  }
  template <typename T> static constexpr int max ()
  {
    return sizeof (T) == 1 ? RADII.max_8 : RADII.max_16;
  }
};

/* Each family's launcher, and for the families that need more than a
 * radius, the conditions they put on the planes (row alignment, grid
 * limits): true where the launcher can take l; for separable-wide-mma,
 * the planes the selector prefers it for. A launcher given what its
 * conditions refuse returns cudaErrorInvalidValue. The catalogue's row of
 * each family names them. */
bool strip_2d_fits (const Launch &l);
cudaError_t launch_2d_strip_tiled_halo (const Launch &l);
cudaError_t launch_2d_strip_cache_halo (const Launch &l);
cudaError_t launch_2d_row_block (const Launch &l);
cudaError_t launch_2d_tiled_halo (const Launch &l);
bool cache_halo_2d_fits (const Launch &l);
cudaError_t launch_2d_cache_halo (const Launch &l);
bool separable_strip_mma_fits (const Launch &l);
cudaError_t launch_separable_strip_mma (const Launch &l);
bool separable_strip_fp32_fits (const Launch &l);
cudaError_t launch_separable_strip_fp32 (const Launch &l);
cudaError_t launch_separable_tile_mma (const Launch &l);
cudaError_t launch_separable_tile_fp32 (const Launch &l);
/* The wide shapes' families, and the device workspace each needs for l
 * (bytes; 0: none) */
bool separable_wide_mma_fills (const Launch &l);
cudaError_t launch_separable_wide_mma (const Launch &l);
size_t separable_wide_mma_workspace (const Launch &l);
cudaError_t launch_separable_wide (const Launch &l);
size_t separable_wide_workspace (const Launch &l);
bool box_strip_pays (const Launch &l);
cudaError_t launch_box_strip (const Launch &l);
bool box_lines_pays (const Launch &l);
cudaError_t launch_box_lines (const Launch &l);
cudaError_t launch_box_running_sum (const Launch &l);
/* both box families' (box-running-sum.cu) */
size_t box_workspace (const Launch &l);
size_t block_mean_workspace (const Launch &l);
cudaError_t launch_block_mean (const Launch &l);

#endif /* CUDACONV_FAMILIES_CUH */

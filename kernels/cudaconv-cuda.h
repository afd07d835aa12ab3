/* cudaconv: host API of the CUDA convolution kernels.
 *
 * Plain C over the CUDA runtime API; the device code stays in
 * cudaconv-cuda.cu. Every function returns a cudaError_t instead of asserting:
 * cudaErrorInvalidValue for arguments out of range, otherwise what CUDA said. */
#ifndef CUDACONV_CUDA_H
#define CUDACONV_CUDA_H

#include <cuda_runtime_api.h>
#include "cudaconv-kernel-types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Filters live in __constant__ memory, one slot per element instance so that
 * instances sharing a device never overwrite each other's weights. 16 slots of
 * CC_MAX_TAPS floats fill 61.5 KB of the 64 KB constant bank. */
#define CC_CUDA_FILTER_SLOTS 16

typedef enum {
  CC_STRATEGY_TILED_HALO = 0,   /* PMPP 7.4: tile and halo in shared memory */
  CC_STRATEGY_CACHE_HALO        /* PMPP 7.5: tile in shared memory, halo via L1/L2 */
} CcStrategy;

/* Returns a free slot number, or -1 when all are taken. Thread-safe. */
int cc_cuda_filter_slot_acquire (void);
void cc_cuda_filter_slot_release (int slot);

/* Copies filter->taps to the slot on the current device, ordered on stream.
 * The host array may be reused as soon as this returns. */
cudaError_t cc_cuda_upload_filter (int slot, const CcFilter * filter,
    cudaStream_t stream);

/* Convolves src into dst (device pointers, same size and sample type) with
 * the filter uploaded to slot; radius and response must match that upload.
 * Only dst's own channel samples are written. */
cudaError_t cc_cuda_convolve (const CcChannel * src, const CcChannel * dst,
    int slot, int radius, CcResponse response, float offset,
    CcBorder border, CcStrategy strategy, cudaStream_t stream);

/* Sets every sample of the channel to value (saturated to the sample type). */
cudaError_t cc_cuda_fill (const CcChannel * dst, unsigned value,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CUDACONV_CUDA_H */

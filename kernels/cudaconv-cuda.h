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
 * instances sharing a device never overwrite each other's weights. 16 slots
 * of CC_MAX_TAPS floats plus two separable factors fill the 64 KB constant
 * bank. */
#define CC_CUDA_FILTER_SLOTS 16

typedef enum {
  CC_STRATEGY_TILED_HALO = 0,   /* PMPP 7.4: tile and halo in shared memory */
  CC_STRATEGY_CACHE_HALO,       /* PMPP 7.5: tile in shared memory, halo via L1/L2 */
  CC_STRATEGY_SEPARABLE         /* row pass then column pass, tile and halo in
                                 * shared memory; separable uploads only */
} CcStrategy;
#define CC_N_STRATEGIES 3

/* Returns a free slot number, or -1 when all are taken. Thread-safe. */
int cc_cuda_filter_slot_acquire (void);
void cc_cuda_filter_slot_release (int slot);

/* Copies the filter (taps, and its factors when it has them) to the slot on
 * the current device, ordered on stream. The host arrays may be reused as
 * soon as this returns. Kernels queued earlier on other streams may still
 * read the slot: synchronise them first. */
cudaError_t cc_cuda_upload_filter (int slot, const CcFilter * filter,
    cudaStream_t stream);

/* What a launch may assume about the work queued before it on its stream.
 * On GPUs with programmatic dependent launch (compute capability 9.0+) the
 * kernels for radius <= 2 on planes that move as vectors have their blocks
 * on the SMs before the kernel ahead of them has ended, which saves the
 * gap between two kernels, a large share of a few-microsecond kernel;
 * they touch nothing before that kernel has ended, unless:
 *  CC_LAUNCH_SRC_READY: src is not written by the kernel launched just
 *    before on the stream (a copy or an event wait in between, or a kernel
 *    writing other memory, as the planes of one frame): the kernel loads
 *    and adds up its first rows while that kernel ends, and waits for it
 *    before its first store. */
typedef enum {
  CC_LAUNCH_DEFAULT = 0,
  CC_LAUNCH_SRC_READY = 1 << 0
} CcLaunchFlags;

/* Convolves src into dst (device pointers, same size and sample type) with
 * the filter last uploaded to slot (radius, response and offset included).
 * Only dst's own channel samples are written. src and dst must not
 * overlap: the kernels read src through the read-only cache, and some
 * write an output sample more than once (with the same value). */
cudaError_t cc_cuda_convolve (const CcChannel * src, const CcChannel * dst,
    int slot, CcBorder border, CcStrategy strategy, cudaStream_t stream,
    CcLaunchFlags flags);

/* Runs every strategy that can take the slot's filter on this channel, a
 * warm-up launch and CC_CUDA_TUNE_RUNS timed samples of a few back-to-back
 * launches each (CUDA events on stream, which ends synchronised), and
 * returns the one with the smallest median in *fastest. ms, when not NULL, receives CC_N_STRATEGIES medians in
 * milliseconds per launch, -1 for a strategy that does not apply. dst is overwritten. */
#define CC_CUDA_TUNE_RUNS 5
cudaError_t cc_cuda_fastest_strategy (const CcChannel * src,
    const CcChannel * dst, int slot, CcBorder border, cudaStream_t stream,
    CcStrategy * fastest, float *ms);

/* Sets every sample of the channel to value (saturated to the sample type). */
cudaError_t cc_cuda_fill (const CcChannel * dst, unsigned value,
    cudaStream_t stream);

/* Formats of three 10-bit samples (and a 2-bit one) to a 32-bit word */
typedef enum {
  CC_WORD_V210 = 0,             /* 6 pixels of 4:2:2 in 4 words */
  CC_WORD_Y410,                 /* U, Y, V, A at bits 0, 10, 20, 30 */
  CC_WORD_RGB10A2,              /* R, G, B, A */
  CC_WORD_BGR10A2               /* B, G, R, A */
} CcWordLayout;

/* Unpacks (to_planes) a frame of width x height pixels in rows of pitch
 * bytes into 16-bit planes, or packs them back: v210 into planes Y, Cb, Cr
 * (Cb and Cr (width + 1) / 2 samples wide); the others field by field,
 * planes[k] taking the field at bit 10k. Packing saturates each sample to
 * its field and leaves the bits no sample owns 0. Device pointers; pitch
 * and packed on 4 bytes. */
cudaError_t cc_cuda_word_packed_convert (CcWordLayout layout, int to_planes,
    void *packed, size_t pitch, int width, int height, void *const planes[4],
    const size_t plane_pitch[4], cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CUDACONV_CUDA_H */

/* cudaconv: host API of the CUDA convolution kernels.
 *
 * Plain C over the CUDA runtime API; the device code stays in the .cu and
 * .cuh files beside this header. Every function returns a cudaError_t
 * instead of asserting: cudaErrorInvalidValue for arguments out of range
 * (CC_STRATEGY_AUTO included: cc_cuda_fastest_strategy resolves it),
 * otherwise what CUDA said. */
#ifndef CUDACONV_CUDA_H
#define CUDACONV_CUDA_H

#include <cuda_runtime_api.h>
#include "cudaconv-kernel-types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel families. Each has its own pair of files beside this header,
 * named as cc_family_name() says (the two strip families share 2d-strip);
 * which one runs is decided in one place, cc_cuda_select_family(). */
typedef enum {
  CC_FAMILY_2D_STRIP_TILED_HALO = 0, /* r <= 2, rows in whole vectors */
  CC_FAMILY_2D_STRIP_CACHE_HALO,
  CC_FAMILY_2D_ROW_BLOCK, /* tiled-halo r <= 2, other planes */
  CC_FAMILY_2D_TILED_HALO,
  CC_FAMILY_2D_CACHE_HALO,
  CC_FAMILY_SEPARABLE_STRIP_MMA, /* tensor cores, streaming */
  CC_FAMILY_SEPARABLE_STRIP_FP32,
  CC_FAMILY_SEPARABLE_TILE_MMA, /* tensor cores, 64 x 64 tiles */
  CC_FAMILY_SEPARABLE_TILE_FP32,
  /* the wide shapes' families, a runtime radius */
  CC_FAMILY_SEPARABLE_WIDE_MMA, /* CC_SHAPE_WIDE from r16, tensor cores */
  CC_FAMILY_SEPARABLE_WIDE,  /* CC_SHAPE_WIDE, two passes, workspace */
  CC_FAMILY_BOX_STRIP,       /* CC_SHAPE_BOX r <= 8, one pass */
  CC_FAMILY_BOX_LINES,       /* CC_SHAPE_BOX, two transposed line passes */
  CC_FAMILY_BOX_RUNNING_SUM, /* CC_SHAPE_BOX, two passes, workspace */
  CC_FAMILY_BLOCK_MEAN       /* CC_SHAPE_BLOCKS, one pass */
} CcFamily;
#define CC_N_FAMILIES 15

/* "2d-strip-tiled-halo", ...; NULL for a value out of range */
const char *cc_family_name (CcFamily family);

/* Whether the family is compiled for any radius of this sample type: 1,
 * with the first and the last in *min_radius and *max_radius; else 0.
 * The 2D families run gradient magnitudes up to CC_MAX_MAGNITUDE_RADIUS,
 * the separable ones none; the wide shapes' families take 0 ..
 * CC_MAX_WIDE_RADIUS of their own shape only. */
int cc_family_radii (CcFamily family, CcSampleType sample, int *min_radius,
    int *max_radius);

/* Every function that convolves takes a CcFilter (cudaconv-kernel-types.h)
 * in host memory, cudaErrorInvalidValue where cc_filter_valid says no. Each
 * launch copies the taps its kernel needs into the kernel's parameters,
 * which the kernel reads through the constant cache: so there is no limit
 * on filters per process or device, and a filter may change between
 * launches with no upload and no wait, a launch taking it as it is when it
 * is queued. */

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

/* The family that cc_cuda_convolve runs for these arguments on the
 * current device: an ordered list of conditions per strategy, the first
 * family whose conditions hold (radius, sample type, how the planes' rows
 * are aligned, grid limits). cudaErrorInvalidValue for arguments that no
 * family takes (such as CC_STRATEGY_SEPARABLE for a filter without factors).
 *
 * Strategies choose among the families of CC_SHAPE_TAPS filters only. A
 * filter of another shape runs its shape's families whatever the
 * strategy, CC_STRATEGY_AUTO included: CC_SHAPE_WIDE separable-wide-mma
 * from radius 16 and separable-wide below, CC_SHAPE_BOX box-strip up to
 * radius 4 (8 on planes large enough to fill the GPU with its warps),
 * box-lines from radius 24 on 8-bit samples and 96 on 16-bit ones and
 * box-running-sum between, CC_SHAPE_BLOCKS block-mean. */
cudaError_t cc_cuda_select_family (const CcComponent *src,
    const CcComponent *dst, const CcFilter *filter, CcStrategy strategy,
    CcFamily *family);

/* The device workspace, in bytes, that a filter's family needs on a
 * component of src's size and sample type (CUB's convention: ask, then
 * allocate and pass it in): for CC_SHAPE_WIDE width * height * 2 on 8-bit
 * samples from radius 16 (an fp16 intermediate) and * 4 otherwise (an fp32
 * one, or a pair of fp16 halves), for CC_SHAPE_BOX width * height * 2 on
 * 8-bit samples and * 4 on 16-bit ones (the row sums), 0 for
 * CC_SHAPE_TAPS and CC_SHAPE_BLOCKS, and for arguments cc_cuda_convolve
 * would refuse. Never more than 4 bytes a sample: a workspace of 4 *
 * width * height bytes serves any filter on a component of that size or
 * smaller. */
size_t cc_cuda_workspace_bytes (const CcComponent *src,
    const CcFilter *filter);

/* The same for the named family (cc_cuda_convolve_family); 0 where it
 * does not take the arguments */
size_t cc_cuda_family_workspace_bytes (CcFamily family,
    const CcComponent *src, const CcFilter *filter);

/* Convolves src into dst (device pointers, same size and sample type) with
 * the filter (radius, response and offset included), running the family
 * that cc_cuda_select_family picks; ran, when not NULL, receives it. Only
 * dst's own component samples are written. src and dst must not overlap: the
 * kernels read src through the read-only cache, and some write an output
 * sample more than once (with the same value).
 *
 * workspace: device memory on 16 bytes (as cudaMalloc gives) of
 * workspace_bytes, at least cc_cuda_workspace_bytes (src, filter), else
 * cudaErrorInvalidValue; NULL and 0 for filters that need none. The
 * family writes it on stream, so launches on other streams must not share
 * it. */
cudaError_t cc_cuda_convolve (const CcComponent *src, const CcComponent *dst,
    const CcFilter *filter, CcBorder border, CcStrategy strategy,
    void *workspace, size_t workspace_bytes, cudaStream_t stream,
    CcLaunchFlags flags, CcFamily *ran);

/* Whether family can run these arguments: its own conditions in the
 * selector, whatever comes before it in a strategy's list. */
int cc_cuda_family_takes (CcFamily family, const CcComponent *src,
    const CcComponent *dst, const CcFilter *filter);

/* Runs the named family (tests and benchmarks): cudaErrorInvalidValue where
 * cc_cuda_family_takes says it cannot, or where the workspace is too small
 * (as cc_cuda_convolve). */
cudaError_t cc_cuda_convolve_family (CcFamily family, const CcComponent *src,
    const CcComponent *dst, const CcFilter *filter, CcBorder border,
    void *workspace, size_t workspace_bytes, cudaStream_t stream,
    CcLaunchFlags flags);

/* Runs every strategy that can take the filter on this component, a warm-up
 * launch and CC_CUDA_TUNE_RUNS timed samples of a few back-to-back
 * launches each (CUDA events on stream, which ends synchronised), and
 * returns the one with the smallest median in *fastest. ms, when not NULL,
 * receives CC_N_FAMILIES medians in milliseconds per launch, indexed by the
 * family each strategy ran, -1 for families not run. dst is overwritten.
 * The workspace is cc_cuda_convolve's.
 *
 * For a filter of a shape other than CC_SHAPE_TAPS no strategy changes
 * what runs: it checks the arguments (the workspace included), launches
 * and times nothing, leaves dst and the stream alone, sets every ms to -1
 * and returns CC_STRATEGY_AUTO, with which cc_cuda_convolve runs the
 * shape's family. */
#define CC_CUDA_TUNE_RUNS 5
cudaError_t cc_cuda_fastest_strategy (const CcComponent *src,
    const CcComponent *dst, const CcFilter *filter, CcBorder border,
    void *workspace, size_t workspace_bytes, cudaStream_t stream,
    CcStrategy *fastest, float *ms);

/* Sets every sample of the component to value, saturated to its type. */
cudaError_t cc_cuda_fill (const CcComponent *dst, unsigned value,
    cudaStream_t stream);

/* A rectangle of samples copied from one component to another: width x
 * height samples from (x, y) of src, which may reach beyond src (the
 * border policy makes those up, as the filters' ghost cells), into dst,
 * whose data is the rectangle's first sample (its width and height are
 * not used). Both may be device memory or host memory mapped into the
 * device's address space (pinned or registered), and of one sample type. */
typedef struct {
  CcComponent src;
  int x, y, width, height;
  CcComponent dst;
} CcPatch;

/* Most patches one call copies: they travel as the kernel's parameters,
 * which take up to 32,764 bytes from CUDA 12.1 on */
#define CC_MAX_PATCHES 320

/* The side of a patch copy that moves in 16-byte vectors: the one in host
 * memory, where the bus takes wide requests best */
typedef enum {
  CC_PATCH_WIDE_SRC = 0,
  CC_PATCH_WIDE_DST
} CcPatchWide;

/* Copies up to CC_MAX_PATCHES patches of one sample type in one launch;
 * raw samples, padding bits as they are. */
cudaError_t cc_cuda_copy_patches (const CcPatch *patches, int n,
    CcBorder border, CcPatchWide wide, cudaStream_t stream);

/* Most patches one table holds */
#define CC_MAX_TABLE_PATCHES 65536

/* The bytes of a table for these n patches (cc_cuda_copy_patch_table);
 * 0 where n is out of range or their rows too many for a grid */
size_t cc_cuda_patch_table_bytes (const CcPatch *patches, int n);

/* cc_cuda_copy_patches for up to CC_MAX_TABLE_PATCHES patches in one
 * launch whose parameters stay a few pointers: the patches are written
 * into table, host memory the device maps (cudaHostAlloc, on 16 bytes)
 * of table_bytes, at least cc_cuda_patch_table_bytes, and each block
 * reads its patch from there over the bus. The driver copies a launch's
 * parameters whole, so a launch of many patches queues in far less time
 * from a table, one of a few from its parameters. The caller leaves the
 * table as it is until the launch has run (the stream orders the device's
 * work, not the host's writes). */
cudaError_t cc_cuda_copy_patch_table (const CcPatch *patches, int n,
    CcBorder border, CcPatchWide wide, void *table, size_t table_bytes,
    cudaStream_t stream);

/* Formats of three 10-bit samples (and a 2-bit one) to a 32-bit word */
typedef enum {
  CC_WORD_V210 = 0, /* 6 pixels of 4:2:2 in 4 words */
  CC_WORD_Y410,     /* U, Y, V, A at bits 0, 10, 20, 30 */
  CC_WORD_RGB10A2,  /* R, G, B, A */
  CC_WORD_BGR10A2   /* B, G, R, A */
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

/* Frame graphs: the kernels one frame launches on a stream, recorded once
 * as a CUDA graph and replayed for the frames after it, whose launches
 * then cost the host one graph launch. A graph keeps a few
 * instantiations, each holding the arguments (planes, taps) of a frame it
 * ran: a frame whose arguments one of them holds runs on it as it is,
 * another has the arguments that changed set first. Every launch of this
 * library on the graph's stream and thread between cc_frame_graph_record
 * or cc_frame_graph_bind and cc_frame_graph_launch (or
 * cc_frame_graph_abandon) goes into the graph; nothing else may be queued
 * on that stream meanwhile, and a thread records or binds one graph at a
 * time. A graph holds the workspace and other pointers of its recording:
 * one graph per stream and workspace. */
typedef struct CcFrameGraph CcFrameGraph;

cudaError_t cc_frame_graph_new (CcFrameGraph **graph);
void cc_frame_graph_free (CcFrameGraph *graph);

/* Whether graph holds a recording that cc_frame_graph_bind can replay */
int cc_frame_graph_ready (const CcFrameGraph *graph);

/* Starts a recording (dropping the one graph held): the launches that
 * follow are captured, not run. cudaStreamSynchronize and the strategy
 * tuner must not be called until it ends. */
cudaError_t cc_frame_graph_record (CcFrameGraph *graph, cudaStream_t stream);

/* Starts a replay of the recording: the launches that follow run nothing,
 * and each gives the arguments of the recorded launch in its place. As
 * while recording, the strategy tuner must not be called until it ends. */
cudaError_t cc_frame_graph_bind (CcFrameGraph *graph, cudaStream_t stream);

/* Ends the recording or the replay and launches the graph on its stream.
 * cudaErrorGraphExecUpdateFailure where the replay's launches were not
 * those recorded (other kernels, grids or counts): nothing ran, the graph
 * is empty, and the frame's launches are to be made again without it. An
 * error while recording also leaves the graph empty and nothing run. */
cudaError_t cc_frame_graph_launch (CcFrameGraph *graph);

/* Ends a recording or replay without launching anything, after a failure
 * in between; the graph is left empty. */
void cc_frame_graph_abandon (CcFrameGraph *graph);

#ifdef __cplusplus
}
#endif
#endif /* CUDACONV_CUDA_H */

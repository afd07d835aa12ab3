/* cudaconv benchmark: what its tables share. The options of a run, its
 * CSV file, medians, random planes and filters (bench-common.c); kernel
 * timing with CUDA events and the transfer floor (bench-timing.c, CUDA
 * builds); pipelines fed by appsrc and timed at appsink
 * (bench-pipeline.c); and the tables themselves, one file each, which
 * main (cudaconv-bench.c) runs as the options say. */
#ifndef CUDACONV_BENCH_COMMON_H
#define CUDACONV_BENCH_COMMON_H

#include <stdio.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "cudaconv-cpu.h"
#ifdef HAVE_CUDA
#include "cudaconv-cuda.h"
#endif

#define WARMUP_OUTPUTS 10
/* frames that give WARMUP_OUTPUTS outputs whatever the async-depth */
#define WARM_FRAMES (WARMUP_OUTPUTS + 8)

/* Runs of each end-to-end row; the row reports their median. One run of a
 * 1920x1080 row lasted about a tenth of a second, and one stall of the
 * host (the GPU machine's other work) in it moved a row by a third. */
#define ELEMENT_RUNS 3

/* The options of a run, as main parsed them, and its CSV file: every
 * table reads what it needs of them. */
typedef struct {
  FILE *csv;                    /* NULL: no CSV rows */
  int frames;                   /* --frames: frames per element run */
  const char *format;           /* --format, I420 unless given */
  const char *props;            /* --props, cudaconv's properties */
  /* --rows: the element table's rows to run (pool, registered, staged,
   * depth1, cudaupload, cpu), NULL: all of them and the gaussianblur
   * comparison */
  char **rows;
  int only_w, only_h;           /* --size, or 0 x 0: each of bench_sizes */
  /* --separate-contexts: each pipeline of the streams tables makes its
   * own GstCudaContext, as pipelines do unless the application hands
   * them one */
  gboolean separate_contexts;
  /* --devices: stream i runs on devices[i % n_devices] */
  int devices[16], n_devices;
} Bench;

/* The frame sizes of the tables that take several: 1080p, then 2160p */
#define BENCH_N_SIZES 2
extern const int bench_sizes[BENCH_N_SIZES][2];

gboolean cuda_device_present (void);
int compare_doubles (const void *a, const void *b);
/* The middle of n values, which it sorts */
double median (double *v, int n);
unsigned char *random_plane (size_t bytes);
void normalised_filter (int radius, CcFilter * f);
void gaussian_filter (int radius, CcFilter * g);
/* the gaussian of gaussian_filter's sigma as CC_SHAPE_WIDE factors */
void wide_gaussian (int radius, CcFilter * f);
/* One CSV row where the run has a CSV file: what, WxH, bits, radius,
 * variant, value */
void csv_row (const Bench * b, const char *what, int w, int h, int bits,
    int radius, const char *variant, double value);

/* Runs that wait for each other: each waits in start_gate_pass until
 * total have arrived, or a minute (a run that failed never arrives). */
typedef struct {
  GMutex lock;
  GCond all_here;
  int arrived, total;
} StartGate;

/* A gate for total runs, nobody there yet; start_gate_clear once all
 * have passed */
void start_gate_init (StartGate * gate, int total);
void start_gate_clear (StartGate * gate);
void gate_arrive (StartGate * gate);
void gate_wait (StartGate * gate);
void start_gate_pass (StartGate * gate);

/* How appsrc's buffers are made. */
typedef enum {
  FEED_FOREIGN,                 /* 4 plain malloc'd buffers, cycled */
  FEED_POOL,                    /* buffers of the pool cudaconv proposes */
  /* CUDA memory of the GstCudaBufferPool cudaconv proposes, as a decoder
   * in its context hands over */
  FEED_CUDA_POOL
} FeedMode;

/* One GstCudaContext for every pipeline of a process, as an application
 * that runs many should give them (GStreamer's CUDA elements share one
 * within a pipeline by themselves): the first element that needs one makes
 * it, and the others, which wait meanwhile, are handed it. Separate
 * contexts on one GPU are time-sliced: kernels of different contexts never
 * run at once. */
typedef struct {
  GMutex lock;
  GCond made;
  GstContext *context;
  gboolean making;
} SharedCudaContext;

/* The outputs after warm-up of a pipeline run and when they came out
 * (monotonic microseconds): from the WARMUP_OUTPUTS-th output to the last;
 * where times is given (frames of them), when each output came out; where
 * gate is, the run feeds its first frame once every run of the gate has
 * set its pipeline to PLAYING; where warm_gate is, it arrives there with
 * its WARMUP_OUTPUTS-th output and feeds no more than WARM_FRAMES frames
 * until every run of that gate has (many pipelines starting at once take
 * seconds to all get going, the first frame's tuning among it). */
typedef struct {
  int outputs;
  gint64 start, end;
  gint64 *times;
  StartGate *gate, *warm_gate;
  SharedCudaContext *cuda_context;      /* NULL: the pipeline makes its own */
  /* an element named "crop" in the pipeline hears that downstream does
   * not take crop metas (the crop table) */
  gboolean refuse_crop_meta;
  /* set by the run: the device of the GstCudaContext the pipeline's
   * cudaconv answers a context query with, which tells where device-id=-1
   * put it; -1 where none answers (no cudaconv, a run that failed, or a
   * plugin built without GStreamer's CUDA library, which shares no
   * context) */
  int cuda_device;
  /* ROI metas ("face") the feeder puts on each frame: boxes of 8x8 to
   * 40x40 pixels that move from frame to frame; 0: none */
  int roi_metas;
  /* set by the run: cudaconv's stats over the timed outputs, microseconds
   * of the host's time a frame collecting regions and building their
   * coverage, queueing and finishing (-1: no cudaconv or no stats) */
  double host_us[3];
} RunWindow;

/* Frames per second through "appsrc name=src ! <middle> ! appsink
 * name=sink sync=false", counted from the WARMUP_OUTPUTS-th output to the
 * last, and that window if asked; negative on failure. */
double pipeline_run (const char *middle, const char *format, int w, int h,
    FeedMode mode, int frames, RunWindow * window);
double pipeline_fps (const char *middle, const char *format, int w, int h,
    FeedMode mode, int frames);
/* The transfer floor in frames/s for frames of bytes, -1 without a GPU */
double floor_fps (size_t bytes);

/* One of the pipelines that streams_run runs at once, each on its own
 * thread: the caller sets middle, format, w, h, frames and mode; the run
 * sets the rest. */
typedef struct {
  gchar *middle;
  const char *format;
  int w, h, frames;
  FeedMode mode;
  RunWindow window;
  double fps;                   /* over its own run; <= 0: it failed */
  long long in_window;          /* its outputs while all of them ran */
} Stream;

/* How a streams_run went */
typedef enum {
  STREAMS_RAN,                  /* the totals hold the aggregate */
  STREAMS_FAILED,               /* a pipeline did not run */
  STREAMS_APART                 /* no time when all of them ran */
} StreamsOutcome;

typedef struct {
  double aggregate;             /* frames/s while all of them ran */
  double slowest, fastest;      /* the streams' own rates */
  /* monotonic microseconds: the first stream past its warm-up, and the
   * window when all of them ran (the last past its warm-up, the first to
   * end) */
  gint64 first, start, end;
} StreamsTotals;

/* n pipelines at once, as the streams tables run them: they start feeding
 * together once all are PLAYING, and the aggregate counts only the outputs
 * of the time when all of them are past their warm-up and none has ended.
 * separate_contexts: each pipeline makes its own GstCudaContext, else they
 * share the first one made. */
StreamsOutcome streams_run (Stream * streams, int n,
    gboolean separate_contexts, StreamsTotals * totals);

#ifdef HAVE_CUDA
double cc_bench_fp32_fma_rate (void);
cudaError_t cc_bench_copy_plane (const void *src, void *dst, size_t pitch,
    size_t row_bytes, int height);
cudaError_t cc_bench_gpu_busy (double us);

/* The radii of the CUDA kernel tables */
#define BENCH_N_KERNEL_RADII 7
extern const int bench_kernel_radii[BENCH_N_KERNEL_RADII];

/* Median of KERNEL_RUNS samples after KERNEL_WARMUP launches; a sample is
 * KERNEL_BATCH launches back to back between two events, divided by the
 * batch. Each sample starts behind a kernel that keeps the GPU busy
 * (bench-gpu-busy.cu) while the host queues the events and the batch, so
 * that the events bracket GPU time only, the kernels and the gaps between
 * them: without it the GPU reaches the start event at once and waits for
 * the first launch, and the host's launch latency lands inside the sample.
 * A sample whose busy kernel ended before the batch was queued (the host
 * stalled) is taken again with twice the wait. The Python peers
 * (bench-peers.py) are timed the same way. -1 when a launch fails. */
#define KERNEL_WARMUP 5
#define KERNEL_RUNS 31
#define KERNEL_BATCH 10
#define KERNEL_BUSY_US 200.0
#define KERNEL_BUSY_MAX_US 100000.0

/* The events that time launches (time_launches), made once per table */
typedef struct {
  cudaEvent_t start, stop, busy_done;
} KernelTimer;

void kernel_timer_init (KernelTimer * timer);
void kernel_timer_clear (KernelTimer * timer);
double time_kernel (KernelTimer * timer, const CcComponent * in,
    const CcComponent * out, const CcFilter * filter, CcStrategy strategy,
    CcLaunchFlags flags);
double time_copy (KernelTimer * timer, const CcComponent * in,
    const CcComponent * out);
/* time_kernel with a device workspace (the wide shapes), launches that
 * read while the one before ends (CC_LAUNCH_SRC_READY) */
double time_kernel_workspace (KernelTimer * timer, const CcComponent * in,
    const CcComponent * out, const CcFilter * filter, CcStrategy strategy,
    void *workspace, size_t workspace_bytes);
/* the same with one family, whatever the selector would pick */
double time_family_workspace (KernelTimer * timer, const CcComponent * in,
    const CcComponent * out, const CcFilter * filter, CcFamily family,
    void *workspace, size_t workspace_bytes);

/* Two pitched device planes of rows x row_bytes with one pitch, the
 * input holding random bytes */
typedef struct {
  void *in, *out;
  size_t pitch;
} DevicePair;

gboolean device_pair_new (size_t row_bytes, int rows, DevicePair * pair);
void device_pair_free (DevicePair * pair);
/* The family a strategy runs on these planes, for the tables */
const char *family_of (const CcComponent * in, const CcComponent * out,
    const CcFilter * filter, CcStrategy strategy);
/* The GPU time of one frame's kernels: each plane of an 8-bit planar
 * format filtered with filter (border clamp, the workspace a wide filter
 * needs), with the strategy the element's auto picks for that plane, timed
 * as the kernel table is and summed over the planes; each plane's size,
 * family and time appended to families where given. -1 when a launch
 * fails. */
double frame_filter_ms (const GstVideoInfo * info, const CcFilter * filter,
    void *workspace, size_t workspace_bytes, GString * families);
/* frame_filter_ms of kernel=gaussian radius=2: 1 / this is the rate a GPU
 * running nothing else could filter frames at, the kernels' capacity */
double frame_kernel_ms (const GstVideoInfo * info);
double transfer_floor_ms (size_t bytes);
/* The transfer floor of devices 0..n-1 at once (bench-timing.c says how),
 * in frames/s summed over them; each one's share in per_device (n
 * entries, -1 for one that failed). -1 where a device failed or their
 * copies never overlapped. Each device has MULTI_FLOOR_DEPTH frames
 * queued, copies for MULTI_FLOOR_WARMUP_MS first, then MULTI_FLOOR_BYTES
 * each way: about 0.8 s at the 49 GB/s each way of an H100's PCIe 5 link
 * (3930 frames of 3840x2160 I420 a second). */
#define MULTI_FLOOR_DEPTH 4
#define MULTI_FLOOR_WARMUP_MS 250
#define MULTI_FLOOR_BYTES 40e9
/* ring: the distinct pinned frames each device's copies cycle through each
 * way. One frame stays in the host's last-level cache, which then serves
 * the copies instead of memory; multi_floor_ring (bytes) frames, at least
 * MULTI_FLOOR_RING_BYTES, cannot, as frames coming from a camera or a
 * decoder do not. */
#define MULTI_FLOOR_RING_BYTES (256.0 * 1024 * 1024)
int multi_floor_ring (size_t bytes);
double multi_device_floor_fps (int n, size_t bytes, int ring,
    double *per_device);

/* The tables of CUDA builds */
int cuda_kernel_table (const Bench * b);
int cuda_packed_table (const Bench * b);
#endif

/* The tables, one file each (bench-<table>.c); 0 when they ran */
void cpu_kernel_table (void);
int element_table (const Bench * b);
int live_run (const Bench * b, const char *backend, int frames);
int crop_table (const Bench * bench);
int regions_table (const Bench * bench);
int crowds_table (const Bench * bench);
int cuda_memory_table (const Bench * b);
int streams_table (const Bench * b, const char *counts, FeedMode mode);
int multi_gpu_table (const Bench * b);
int decode_table (const Bench * b, const char *files);
int cpu_peer_table (const Bench * bench, int frames);
int once_run (const Bench * b, int w, int h);
int wide_table (const Bench * b);
int stacks_table (const Bench * b);

#endif /* CUDACONV_BENCH_COMMON_H */

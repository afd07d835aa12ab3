/* cudaconv: the contract every back end implements.
 *
 * The element chooses a back end when it starts and configures it when
 * caps are set; from then on each frame crosses into the back end once,
 * cudaconv_backend_submit, and leaves through the buffer it hands back.
 * A back end works on up to max_in_flight frames at once (the CPU on
 * one): a frame is queued, and once that many are in flight the oldest is
 * finished and its output handed back. Frames in flight keep the filter
 * and plan they were submitted with. Word-packed formats are the back
 * end's to convert (cudaconv-layout.h): the element hands over frames of
 * its caps whatever their format.
 *
 * With regions (cudaconv-plan.h), a back end reads and writes what their
 * pieces need, the rest of the frame copied or, in place, left alone.
 *
 * Functions that can fail say why in error; a failed frame is dropped
 * (its frames unmapped), and the frames still in flight stay. */
#ifndef CUDACONV_BACKEND_H
#define CUDACONV_BACKEND_H

#include <gst/video/video.h>
#include "cudaconv-kernel-types.h"
#include "cudaconv-coverage.h"

G_BEGIN_DECLS

typedef struct _CudaConvBackend CudaConvBackend;

/* Most frames any back end keeps in flight (the async-depth property's
 * maximum). */
#define CUDACONV_MAX_IN_FLIGHT 8

/* What the element chose for a frame: all of it pointers into the
 * element's own state, which the back end copies what it keeps of while
 * submit runs. */
typedef struct {
  const CcFilter *filter;       /* its offset scaled to the format's depth */
  CcBorder border;
  const CudaConvPlan *plan;
  /* with the plan's regions (INSIDE or OUTSIDE): what they cover, and the
   * filter of each region (the same offset scaling) */
  const CudaConvCoverage *coverage;
  const CcFilter *const *region_filters;
  /* the input frame is the output frame (a writable buffer filtered in
   * its regions only): what is not written stays as it is, and every
   * sample a filter reads is read before any is written */
  gboolean in_place;
} CudaConvJob;

/* The settings a back end may act on beyond the job's, where it has a
 * choice (capabilities say which): taken for the frames submitted after. */
typedef struct {
  CcStrategy strategy;          /* CUDACONV_BACKEND_STRATEGIES */
  /* page-lock foreign input buffers instead of staging them
   * (CUDACONV_BACKEND_DEVICE_MEMORY) */
  gboolean host_register;
} CudaConvRunOptions;

/* What a back end can do beyond filtering frames in system memory */
typedef enum {
  /* frames in CUDA memory, pinned pools, CUDA contexts */
  CUDACONV_BACKEND_DEVICE_MEMORY = 1 << 0,
  /* the strategy property chooses among kernel families */
  CUDACONV_BACKEND_STRATEGIES = 1 << 1
} CudaConvBackendCapabilities;

/* How the frames of the negotiated caps travel. */
typedef struct {
  const CudaConvLayout *layout; /* the element's, valid until the next one */
  /* a side's frames are device memory, mapped with GST_MAP_CUDA, in the
   * back end's CUDA context or (input only) another one */
  gboolean in_device, out_device;
  guint max_in_flight;          /* 1 .. CUDACONV_MAX_IN_FLIGHT */
} CudaConvStreamConfig;

/* A line for the bus, such as the kernel family each component runs when
 * it changed; called from the streaming thread while a frame is submitted */
typedef void (*CudaConvReportFunc) (const gchar * report, gpointer user_data);

typedef struct {
  const gchar *name;            /* "CPU", "CUDA": for messages */
  /* Takes the options for the frames submitted from now on. */
  void (*set_options) (CudaConvBackend * backend,
      const CudaConvRunOptions * options);
  /* Reconfigures for these caps; nothing may be in flight. */
  gboolean (*configure) (CudaConvBackend * backend,
      const CudaConvStreamConfig * config, GError ** error);
  /* Queues a frame (a slot must be free: in_flight < max_in_flight). Takes both
   * mapped frames: they are unmapped when it is finished or dropped
   * (cudaconv_frames_unmap: in place, in and out are one mapping). */
  gboolean (*submit) (CudaConvBackend * backend, const CudaConvJob * job,
      GstVideoFrame * in, GstVideoFrame * out, GError ** error);
  /* Waits for the oldest frame; *out is its output buffer (a reference the
   * caller owns), NULL on failure. */
  gboolean (*finish_oldest) (CudaConvBackend * backend, GstBuffer ** out,
      GError ** error);
  guint (*in_flight) (CudaConvBackend * backend);
  /* Waits for every frame in flight and drops it (flush, caps, stop). */
  void (*discard) (CudaConvBackend * backend);
  /* "device 0: NVIDIA H100 80GB HBM3 (compute capability 9.0)", "8 CPU
   * threads" */
  const gchar *(*describe) (CudaConvBackend * backend);
  /* A buffer pool whose memory the back end reads and writes fastest
   * (pinned host memory for the CUDA back end), or NULL: any memory. */
  GstBufferPool *(*new_pool) (CudaConvBackend * backend, GstCaps * caps,
      guint size, guint min_buffers, guint max_buffers);
  /* The allocator of those pools, or NULL; borrowed. */
  GstAllocator *(*allocator) (CudaConvBackend * backend);
  void (*close) (CudaConvBackend * backend);
} CudaConvBackendOps;

struct _CudaConvBackend {
  const CudaConvBackendOps *ops;
  CudaConvBackendCapabilities capabilities;
  guint max_in_flight;          /* frames at once, set by configure */
  CudaConvReportFunc report;
  gpointer report_data;
};

/* The CPU back end on n_threads threads; never fails. */
CudaConvBackend *cudaconv_cpu_backend_new (gint n_threads);

/* Whether device_id (-1: CUDA's default device) can be used: FALSE with a
 * message that says why not (a build without CUDA says so). */
gboolean cudaconv_cuda_backend_probe (gint device_id, GError ** error);

/* How many CUDA devices this process sees; 0 where none is usable (and
 * in a build without CUDA). */
gint cudaconv_cuda_device_count (void);

/* The CUDA back end on context's device, every call in context (a
 * GstCudaContext, see cudaconv-cuda-context.h, which it keeps a reference
 * to); or, for a NULL context, on device_id (-1: CUDA's default device) in
 * its primary context. Fails with a message that says why no device is
 * usable. */
CudaConvBackend *cudaconv_cuda_backend_new (gint device_id,
    GstObject * context, GError ** error);

/* Unmaps a frame's input and output, which in place are one mapping. */
static inline void
cudaconv_frames_unmap (GstVideoFrame * in, GstVideoFrame * out,
    gboolean in_place)
{
  gst_video_frame_unmap (in);
  if (!in_place)
    gst_video_frame_unmap (out);
}

/* Where a frame's submit spent the host's time, in microseconds:
 * queueing the frame, then finishing the oldest (waiting for it
 * included) */
typedef struct {
  gint64 queue_us, finish_us;
} CudaConvSubmitTimes;

/* The one call per frame: queues it, and when max_in_flight frames are in
 * flight finishes the oldest, whose output *finished receives (else
 * NULL); times (if not NULL) receives how long each took. */
static inline gboolean
cudaconv_backend_submit (CudaConvBackend * backend, const CudaConvJob * job,
    GstVideoFrame * in, GstVideoFrame * out, GstBuffer ** finished,
    CudaConvSubmitTimes * times, GError ** error)
{
  const gint64 start = g_get_monotonic_time ();
  gint64 queued;
  gboolean ok;

  *finished = NULL;
  ok = backend->ops->submit (backend, job, in, out, error);
  queued = g_get_monotonic_time ();
  if (ok && backend->ops->in_flight (backend) >= backend->max_in_flight)
    ok = backend->ops->finish_oldest (backend, finished, error);
  if (times) {
    times->queue_us = queued - start;
    times->finish_us = g_get_monotonic_time () - queued;
  }
  return ok;
}

/* Closes backend (NULL is ignored) after discarding what is in flight. */
static inline void
cudaconv_backend_close (CudaConvBackend * backend)
{
  if (!backend)
    return;
  backend->ops->discard (backend);
  backend->ops->close (backend);
}

G_END_DECLS
#endif /* CUDACONV_BACKEND_H */

/* cudaconv: the cudaconv element. */
#ifndef GST_CUDACONV_H
#define GST_CUDACONV_H

#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

#include "gstcudaconv-enums.h"
#include "cudaconv-weights.h"
#include "cudaconv-layout.h"
#include "cudaconv-plan.h"
#include "cudaconv-backend.h"
#include "cudaconv-regions.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDACONV (gst_cudaconv_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaConv, gst_cudaconv, GST, CUDACONV,
    GstVideoFilter);

/* Property values; the element copies them under the object lock. */
typedef struct {
  GstCudaConvKernel kernel;
  gint radius;
  gdouble sigma;
  gboolean have_matrix;
  CudaConvWeights matrix;
  gdouble divisor;
  gdouble offset;
  GstCudaConvBorder border;
  CcStrategy strategy;
  GstCudaConvBackend backend;
  gint device_id;
  guint channels;
  gboolean gray_edges;
  guint async_depth;
  gboolean host_register;
  GstCudaConvRegionMode region_mode;
  CudaConvRegionRules region_rules;
  gdouble region_radius_scale;
} GstCudaConvSettings;

struct _GstCudaConv {
  GstVideoFilter parent;

  /* protected by the object lock (gstcudaconv-settings.c) */
  GstCudaConvSettings settings;
  /* the filter the settings make, built in set_property; not valid while
   * kernel=custom waits for its matrix */
  CcFilter settings_filter;
  gboolean settings_filter_valid;
  gchar *matrix_text;
  gchar *region_types_text, *region_boxes_text;
  guint settings_cookie;        /* bumped by every change */
  const gchar *rejected_property;       /* static pspec name */
  gchar *rejected_setting;      /* first bad value set before start */
  gboolean started;
  /* what the back end can do (CudaConvBackendCapabilities), from start */
  guint backend_capabilities;
  guint max_in_flight;          /* frames in flight at most, from set_info */
  /* the caps put one side in CUDA memory and the other in system memory */
  gboolean changes_memory;

  /* taken around each passthrough decision (see update_passthrough) */
  GMutex passthrough_lock;

  /* streaming thread only */
  /* the GstCudaContext shared with the pipeline's other CUDA elements
   * (cudaconv-cuda-context.h), from start to stop; set_context may set it
   * before start */
  GstObject *cuda_context;
  /* the CUDA device counted as this element's in the process's device-load
   * table (cudaconv-device-load.h), from start to stop; -1 for none */
  gint device;
  CudaConvBackend *backend;     /* from start to stop */
  /* the sink or src caps are memory:CUDAMemory: that side's frames are
   * device memory of cuda_context, read or written where they are */
  gboolean in_cuda_memory, out_cuda_memory;
  gboolean live;                /* upstream said so when caps were set */
  gint n_threads;
  CudaConvLayout layout;        /* of the caps, made in set_info */
  /* the filter of the settings at filter_cookie, unscaled */
  CcFilter unscaled_filter;
  guint filter_cookie;
  /* what frames run with, remade when the settings or the caps change
   * (job_stale: at the next frame) */
  gboolean job_stale;
  GstCudaConvSettings job_settings;
  CcFilter filter;              /* its offset scaled to the caps' depth */
  CudaConvPlan plan;
  /* the regions of the frame being filtered, those held from earlier
   * frames, and the filter of each region */
  CudaConvRegionSet *regions;
  CudaConvRegionHistory *region_history;
  const CcFilter **region_filters;      /* CUDACONV_MAX_REGIONS of them */
  /* what they cover of the frame being filtered, as the back ends take it */
  CudaConvCoverage *coverage;
  /* with region-radius-scale: the filter of each radius, made when first
   * needed and dropped when the settings change */
  CcFilter *radius_filters[CC_MAX_WIDE_RADIUS + 1];
  gboolean bad_regions_warned;
  gboolean merged_regions_warned;
  /* the host's time on the frames filtered since start (the stats
   * property), under the object lock: microseconds collecting their
   * regions and building what those cover, queueing them on the back end,
   * and finishing them (waiting for the device included) */
  guint64 stats_frames, stats_regions_us, stats_queue_us, stats_finish_us;
  /* the crop of the buffer being filtered, for transform_meta */
  CudaConvCropKind input_crop;
  guint invalid_buffers;        /* input dropped since start */
  gint64 invalid_warned_at;     /* monotonic time of the last warning */
};

GST_ELEMENT_REGISTER_DECLARE (cudaconv);

/* gstcudaconv-backend.c: the back end that backend= asks for: CUDA on the
 * device of the GstCudaContext shared with the pipeline's other CUDA
 * elements where the build has GStreamer's CUDA library, else on
 * device-id or for -1 the least busy device (self->device counted); the
 * CPU's for backend=cpu, and for auto when no CUDA device is usable (with
 * a warning that says why). NULL when backend=cuda finds none. */
CudaConvBackend *gst_cudaconv_open_backend (GstCudaConv * self,
    const GstCudaConvSettings * s, GError ** error);
/* Uncounts the element from its device's load, if it was counted. */
void gst_cudaconv_release_device (GstCudaConv * self);

/* gstcudaconv-allocation.c: the allocation queries, with pools of the back
 * end's memory. */
gboolean gst_cudaconv_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
gboolean gst_cudaconv_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);

/* gstcudaconv-regions.c: the regions the frame is filtered in or around,
 * into self->regions, with the filter of each in self->region_filters; a
 * bad box is left out and said once on the bus. */
void gst_cudaconv_frame_regions (GstCudaConv * self, GstBuffer * inbuf);
/* Under region=inside, whether the frame goes on as it came: it has no
 * region, and passing it on gives what filtering it would (both pads in
 * one kind of memory, no crop of a picture in a larger buffer). */
gboolean gst_cudaconv_nothing_to_hide (GstCudaConv * self, GstBuffer * inbuf);
/* What the regions cover of the frame self->plan was set for, built into
 * self->coverage; NULL where the plan has no regions. */
const CudaConvCoverage *gst_cudaconv_frame_coverage (GstCudaConv * self,
    CcBorder border);

/* gstcudaconv-settings.c: the properties, and the filter the settings
 * make; refusals are reported once (see reject_setting there). */
void gst_cudaconv_settings_install (GObjectClass * gobject_class);
void gst_cudaconv_settings_init (GstCudaConv * self);
void gst_cudaconv_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_cudaconv_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
/* The unscaled filter of s: FALSE, with the reason, for kernel=custom
 * without a matrix or weights too large for single-precision sums. */
gboolean gst_cudaconv_settings_filter (const GstCudaConvSettings * s,
    CcFilter * filter, GError ** error);
/* Switches passthrough on for settings that change nothing, off else. */
void gst_cudaconv_update_passthrough (GstCudaConv * self);
/* The stats property's counts: reset at start; a frame filtered (frames
 * 1) or finished on its own (frames 0, as draining finishes them) adds
 * its microseconds. */
void gst_cudaconv_stats_reset (GstCudaConv * self);
void gst_cudaconv_stats_add (GstCudaConv * self, guint frames,
    gint64 regions_us, gint64 queue_us, gint64 finish_us);

G_END_DECLS
#endif /* GST_CUDACONV_H */

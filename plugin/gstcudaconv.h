/* cudaconv: the cudaconv element. */
#ifndef GST_CUDACONV_H
#define GST_CUDACONV_H

#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

#include "gstcudaconv-enums.h"
#include "cudaconv-weights.h"
#include "cudaconv-filter.h"
#include "cudaconv-gpu.h"

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
} GstCudaConvSettings;

struct _GstCudaConv {
  GstVideoFilter parent;

  /* protected by the object lock */
  GstCudaConvSettings settings;
  /* the filter the settings make, built in set_property; not valid while
   * kernel=custom waits for its matrix */
  CudaConvFilter settings_filter;
  gboolean settings_filter_valid;
  gchar *matrix_text;
  guint settings_cookie;        /* bumped by every change to the filter */
  const gchar *rejected_property;       /* static pspec name */
  gchar *rejected_setting;      /* first bad value set before start */
  gboolean started;
  /* the caps put one side in CUDA memory and the other in system memory */
  gboolean changes_memory;

  /* taken around each passthrough decision (see update_passthrough) */
  GMutex passthrough_lock;

  /* streaming thread only */
  GstCudaConvBackend active_backend;    /* CUDA or CPU once started */
  /* the GstCudaContext shared with the pipeline's other CUDA elements
   * (cudaconv-cuda-context.h), from start to stop; set_context may set it
   * before start */
  GstObject *cuda_context;
  CudaConvGpu *gpu;
  /* the sink or src caps are memory:CUDAMemory: that side's frames are
   * device memory of cuda_context, read or written where they are */
  gboolean in_cuda_memory, out_cuda_memory;
  CudaConvFilter filter;
  guint filter_cookie;          /* settings_cookie the filter was made from */
  gint n_threads;
  guint depth;                  /* frames the CUDA backend keeps in flight */
  gboolean live;                /* upstream said so when caps were set */
  /* the format the back ends filter: the caps' own, or for word-packed
   * formats (cudaconv-word-packed.h) their planar 16-bit twin, with a
   * frame of it for the input and one for the output */
  GstVideoInfo work_info;
  gboolean word_packed;
  GstBuffer *work_in, *work_out;
  guint invalid_buffers;        /* input dropped since start */
  gint64 invalid_warned_at;     /* monotonic time of the last warning */
};

GST_ELEMENT_REGISTER_DECLARE (cudaconv);

G_END_DECLS
#endif /* GST_CUDACONV_H */

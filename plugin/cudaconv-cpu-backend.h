/* cudaconv: runs a frame's plan on the CPU. */
#ifndef CUDACONV_CPU_BACKEND_H
#define CUDACONV_CPU_BACKEND_H

#include <gst/video/video.h>
#include "cudaconv-plan.h"
#include "cudaconv-filter.h"

G_BEGIN_DECLS

/* info: the negotiated caps, whose geometry both frames are read and
 * written in (see cudaconv_frame_map_checked). */
gboolean cudaconv_cpu_process (const GstVideoInfo * info,
    const CudaConvPlan * plan, const CudaConvFilter * filter, CcBorder border,
    gint n_threads, GstVideoFrame * in, GstVideoFrame * out, GError ** error);

G_END_DECLS
#endif /* CUDACONV_CPU_BACKEND_H */

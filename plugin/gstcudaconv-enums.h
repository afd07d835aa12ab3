/* cudaconv: the enum and flags types of the element's properties. */
#ifndef GST_CUDACONV_ENUMS_H
#define GST_CUDACONV_ENUMS_H

#include <glib-object.h>
#include "cudaconv-kernel-types.h"
/* GstCudaConvKernel, which the filter layer's presets take */
#include "cudaconv-kernel-enum.h"

G_BEGIN_DECLS

/* Same values as CcBorder. */
typedef enum {
  GST_CUDACONV_BORDER_ZERO,
  GST_CUDACONV_BORDER_CLAMP,
  GST_CUDACONV_BORDER_MIRROR,
  GST_CUDACONV_BORDER_WRAP
} GstCudaConvBorder;

typedef enum {
  GST_CUDACONV_BACKEND_AUTO,
  GST_CUDACONV_BACKEND_CUDA,
  GST_CUDACONV_BACKEND_CPU
} GstCudaConvBackend;

/* Which parts of a frame are filtered (the region property). */
typedef enum {
  GST_CUDACONV_REGION_MODE_FRAME,
  GST_CUDACONV_REGION_MODE_INSIDE,
  GST_CUDACONV_REGION_MODE_OUTSIDE
} GstCudaConvRegionMode;

/* Bit n is the format's component n (GstVideoFormatInfo order); the same
 * values as the plan's CudaConvChannels (checked in gstcudaconv-enums.c). */
typedef enum {
  GST_CUDACONV_CHANNEL_0 = 1 << 0,      /* Y, R or gray */
  GST_CUDACONV_CHANNEL_1 = 1 << 1,      /* U (Cb) or G */
  GST_CUDACONV_CHANNEL_2 = 1 << 2,      /* V (Cr) or B */
  GST_CUDACONV_CHANNEL_ALPHA = 1 << 3
} GstCudaConvChannels;

#define GST_CUDACONV_CHANNELS_COLOR \
  (GST_CUDACONV_CHANNEL_0 | GST_CUDACONV_CHANNEL_1 | GST_CUDACONV_CHANNEL_2)

#define GST_TYPE_CUDACONV_KERNEL (gst_cudaconv_kernel_get_type ())
#define GST_TYPE_CUDACONV_BORDER (gst_cudaconv_border_get_type ())
/* The strategy property's values are CcStrategy's. */
#define GST_TYPE_CUDACONV_STRATEGY (gst_cudaconv_strategy_get_type ())
#define GST_TYPE_CUDACONV_BACKEND (gst_cudaconv_backend_get_type ())
#define GST_TYPE_CUDACONV_CHANNELS (gst_cudaconv_channels_get_type ())
#define GST_TYPE_CUDACONV_REGION_MODE (gst_cudaconv_region_mode_get_type ())

GType gst_cudaconv_kernel_get_type (void);
GType gst_cudaconv_border_get_type (void);
GType gst_cudaconv_strategy_get_type (void);
GType gst_cudaconv_backend_get_type (void);
GType gst_cudaconv_channels_get_type (void);
GType gst_cudaconv_region_mode_get_type (void);

G_END_DECLS
#endif /* GST_CUDACONV_ENUMS_H */

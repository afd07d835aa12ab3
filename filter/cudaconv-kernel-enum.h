/* cudaconv: the preset filters by name, the kernel property's values.
 *
 * Here rather than with the element's other enums (gstcudaconv-enums.h,
 * which includes this file and registers the type) so that the filter
 * layer, which makes the presets, needs nothing of the element's. */
#ifndef CUDACONV_KERNEL_ENUM_H
#define CUDACONV_KERNEL_ENUM_H

typedef enum {
  GST_CUDACONV_KERNEL_IDENTITY,
  GST_CUDACONV_KERNEL_BOX,
  GST_CUDACONV_KERNEL_GAUSSIAN,
  GST_CUDACONV_KERNEL_SHARPEN,
  GST_CUDACONV_KERNEL_EDGE,
  GST_CUDACONV_KERNEL_SOBEL,
  GST_CUDACONV_KERNEL_SOBEL_X,
  GST_CUDACONV_KERNEL_SOBEL_Y,
  GST_CUDACONV_KERNEL_EMBOSS,
  GST_CUDACONV_KERNEL_CUSTOM,
  GST_CUDACONV_KERNEL_PIXELATE
} GstCudaConvKernel;

#endif /* CUDACONV_KERNEL_ENUM_H */

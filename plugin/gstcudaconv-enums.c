/* cudaconv: registration of the property enum and flags types. */
#include "gstcudaconv-enums.h"
#include "cudaconv-plan.h"

/* The channels property's flags go down to the plan as they are. */
G_STATIC_ASSERT ((gint) GST_CUDACONV_CHANNEL_0 == (gint) CUDACONV_CHANNEL_0);
G_STATIC_ASSERT ((gint) GST_CUDACONV_CHANNEL_1 == (gint) CUDACONV_CHANNEL_1);
G_STATIC_ASSERT ((gint) GST_CUDACONV_CHANNEL_2 == (gint) CUDACONV_CHANNEL_2);
G_STATIC_ASSERT ((gint) GST_CUDACONV_CHANNEL_ALPHA ==
    (gint) CUDACONV_CHANNEL_ALPHA);
/* And the region property's values, and the border's, as the plan's and
 * the kernels' own */
G_STATIC_ASSERT ((gint) GST_CUDACONV_REGION_MODE_FRAME ==
    (gint) CUDACONV_REGION_MODE_FRAME);
G_STATIC_ASSERT ((gint) GST_CUDACONV_REGION_MODE_INSIDE ==
    (gint) CUDACONV_REGION_MODE_INSIDE);
G_STATIC_ASSERT ((gint) GST_CUDACONV_REGION_MODE_OUTSIDE ==
    (gint) CUDACONV_REGION_MODE_OUTSIDE);
G_STATIC_ASSERT ((gint) GST_CUDACONV_BORDER_ZERO == (gint) CC_BORDER_ZERO);
G_STATIC_ASSERT ((gint) GST_CUDACONV_BORDER_CLAMP == (gint) CC_BORDER_CLAMP);
G_STATIC_ASSERT ((gint) GST_CUDACONV_BORDER_MIRROR ==
    (gint) CC_BORDER_MIRROR);
G_STATIC_ASSERT ((gint) GST_CUDACONV_BORDER_WRAP == (gint) CC_BORDER_WRAP);

GType
gst_cudaconv_kernel_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDACONV_KERNEL_IDENTITY, "Identity (1x1 [1]): passthrough",
        "identity"},
    {GST_CUDACONV_KERNEL_BOX, "Box blur: (2r+1)^2 ones / (2r+1)^2", "box"},
    {GST_CUDACONV_KERNEL_GAUSSIAN,
        "Gaussian blur: exp(-(x^2+y^2)/(2 sigma^2)), normalised to sum 1",
        "gaussian"},
    {GST_CUDACONV_KERNEL_SHARPEN,
        "Unsharp mask: 2*identity - gaussian(radius, sigma)", "sharpen"},
    {GST_CUDACONV_KERNEL_EDGE,
          "Laplacian edge detection, 3x3 [-1 -1 -1; -1 8 -1; -1 -1 -1]",
        "edge"},
    {GST_CUDACONV_KERNEL_SOBEL,
        "Sobel gradient magnitude sqrt(gx^2 + gy^2), 3x3", "sobel"},
    {GST_CUDACONV_KERNEL_SOBEL_X,
        "Sobel horizontal gradient gx, 3x3 [-1 0 1; -2 0 2; -1 0 1]",
        "sobel-x"},
    {GST_CUDACONV_KERNEL_SOBEL_Y,
        "Sobel vertical gradient gy, 3x3 [-1 -2 -1; 0 0 0; 1 2 1]", "sobel-y"},
    {GST_CUDACONV_KERNEL_EMBOSS,
        "Emboss, 3x3 [-2 -1 0; -1 1 1; 0 1 2]", "emboss"},
    {GST_CUDACONV_KERNEL_CUSTOM, "Custom: the matrix property", "custom"},
    {GST_CUDACONV_KERNEL_PIXELATE,
          "Pixelate: every block of (2r+1)^2 samples takes its mean "
          "(irreversible)", "pixelate"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvKernel",
            values));
  return type;
}

GType
gst_cudaconv_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDACONV_BORDER_ZERO, "Ghost cells are 0 (darkens edges)", "zero"},
    {GST_CUDACONV_BORDER_CLAMP, "Replicate the edge sample: aaa|abcd|ddd",
        "clamp"},
    {GST_CUDACONV_BORDER_MIRROR,
        "Reflect without repeating the edge: cb|abcd|cb", "mirror"},
    {GST_CUDACONV_BORDER_WRAP, "Wrap around: cd|abcd|ab", "wrap"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvBorder",
            values));
  return type;
}

GType
gst_cudaconv_strategy_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CC_STRATEGY_AUTO, "The fastest of the others for the format, filter "
          "and GPU, timed on the GPU at the first frame of each new plane "
          "shape", "auto"},
    {CC_STRATEGY_TILED_HALO,
          "Input tile and halo cells in shared memory (PMPP 7.4)",
        "tiled-halo"},
    {CC_STRATEGY_CACHE_HALO,
          "Tile interior in shared memory, halo cells through L1/L2 "
          "(PMPP 7.5); components of packed pixels run tiled-halo",
        "cache-halo"},
    {CC_STRATEGY_SEPARABLE,
          "A row pass and a column pass, for filters that are an outer "
          "product (gaussian, box, sobel-x/-y); others run tiled-halo. The "
          "kernel family each strategy runs: docs/architecture.md",
        "separable"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvStrategy",
            values));
  return type;
}

GType
gst_cudaconv_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDACONV_BACKEND_AUTO,
        "CUDA when a device is usable, else the CPU (with a warning)", "auto"},
    {GST_CUDACONV_BACKEND_CUDA, "CUDA only: fail when no device is usable",
        "cuda"},
    {GST_CUDACONV_BACKEND_CPU, "CPU only", "cpu"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvBackend",
            values));
  return type;
}

GType
gst_cudaconv_channels_get_type (void)
{
  static GType type = 0;
  /* Each bit has an RGB and a YUV nick. gst-inspect-1.0 names a value
   * from the last entry backwards, taking the first nick of each bit it
   * meets: in this order it prints the default as y+u+v. */
  static const GFlagsValue values[] = {
    {GST_CUDACONV_CHANNEL_ALPHA, "Alpha", "a"},
    {GST_CUDACONV_CHANNEL_2, "Third component: B or V (Cr)", "b"},
    {GST_CUDACONV_CHANNEL_2, "Third component: B or V (Cr)", "v"},
    {GST_CUDACONV_CHANNEL_1, "Second component: G or U (Cb)", "g"},
    {GST_CUDACONV_CHANNEL_1, "Second component: G or U (Cb)", "u"},
    {GST_CUDACONV_CHANNEL_0, "First component: R, or Y, or gray", "r"},
    {GST_CUDACONV_CHANNEL_0, "First component: R, or Y, or gray", "y"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_flags_register_static ("GstCudaConvChannels",
            values));
  return type;
}

GType
gst_cudaconv_region_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDACONV_REGION_MODE_FRAME, "The whole frame", "frame"},
    {GST_CUDACONV_REGION_MODE_INSIDE,
          "Only inside the regions (metas and region-boxes); a frame "
          "without regions passes unchanged", "inside"},
    {GST_CUDACONV_REGION_MODE_OUTSIDE,
        "Everything but the regions (background blur)", "outside"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaConvRegionMode",
            values));
  return type;
}

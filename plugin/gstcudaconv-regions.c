/* cudaconv: the regions of each frame the element filters in or around
 * (region=inside or outside): collected from the buffer and the
 * settings, the filter of each, and what they cover of the frame (see
 * gstcudaconv.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

/* The filter of one region under region-radius-scale: the settings' at
 * the radius the region's size asks for, made once per radius. NULL where
 * the kernel has no radius, or that filter cannot be made. */
static const CcFilter *
region_radius_filter (GstCudaConv * self, const CudaConvRegion * region)
{
  const GstCudaConvSettings *s = &self->job_settings;
  const gint side = MIN (region->w, region->h);
  gint radius;

  if (s->region_radius_scale <= 0.0
      || (s->kernel != GST_CUDACONV_KERNEL_BOX
          && s->kernel != GST_CUDACONV_KERNEL_GAUSSIAN
          && s->kernel != GST_CUDACONV_KERNEL_SHARPEN
          && s->kernel != GST_CUDACONV_KERNEL_PIXELATE))
    return NULL;
  radius = CLAMP ((gint) (s->region_radius_scale * side + 0.5), 1,
      CC_MAX_WIDE_RADIUS);
  if (!self->radius_filters[radius]) {
    /* copied only here: the settings hold a custom matrix of 7.7 kB, and
     * a copy for each of a crowd's regions cost more than collecting them */
    GstCudaConvSettings at_radius = *s;
    CcFilter *f = g_new (CcFilter, 1);
    at_radius.radius = radius;
    if (!gst_cudaconv_settings_filter (&at_radius, f, NULL)) {
      g_free (f);
      return NULL;
    }
    f->offset *= self->layout.offset_scale;
    self->radius_filters[radius] = f;
  }
  return self->radius_filters[radius];
}

/* The regions this frame is filtered in or around (region=inside or
 * outside), with the filter of each; a bad box is left out and said once
 * on the bus. */
void
gst_cudaconv_frame_regions (GstCudaConv * self, GstBuffer * inbuf)
{
  const GstVideoInfo *info = &self->layout.info;
  guint n_bad, n_merged;

  cudaconv_regions_collect (&self->job_settings.region_rules,
      self->region_history, inbuf, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), self->regions, &n_bad, &n_merged);
  if (n_bad > 0 && !self->bad_regions_warned) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Ignored %u region box(es) that are empty, negative, outside the "
            "%dx%d frame or too large to be real", n_bad,
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info)),
        ("this warning is given once per stream"));
    self->bad_regions_warned = TRUE;
  } else if (n_bad > 0) {
    GST_DEBUG_OBJECT (self, "ignored %u bad region box(es)", n_bad);
  }
  if (n_merged > 0 && !self->merged_regions_warned) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("A frame has %u regions, more than the %d filtered each as itself: "
            "every cell of a %dx%d grid over the frame that one of them "
            "touches is filtered", n_merged,
            CUDACONV_MAX_REGIONS, CUDACONV_MERGE_GRID, CUDACONV_MERGE_GRID),
        ("this warning is given once per stream"));
    self->merged_regions_warned = TRUE;
  } else if (n_merged > 0) {
    GST_DEBUG_OBJECT (self, "merged %u regions", n_merged);
  }
  for (guint k = 0; k < self->regions->n; k++) {
    const CcFilter *f = region_radius_filter (self, &self->regions->rects[k]);
    self->region_filters[k] = f ? f : &self->filter;
  }
}

gboolean
gst_cudaconv_nothing_to_hide (GstCudaConv * self, GstBuffer * inbuf)
{
  CudaConvCropKind crop;

  if (self->regions->n > 0 || self->in_cuda_memory != self->out_cuda_memory)
    return FALSE;
  /* a picture in a larger buffer is applied on the way out, and a crop the
   * frame check refuses is dropped with a warning */
  crop = cudaconv_frame_crop_kind (&self->layout.info, inbuf);
  return crop == CUDACONV_CROP_NONE || crop == CUDACONV_CROP_INSIDE;
}

const CudaConvCoverage *
gst_cudaconv_frame_coverage (GstCudaConv * self, CcBorder border)
{
  if (!cudaconv_plan_has_regions (&self->plan))
    return NULL;
  cudaconv_coverage_build (self->coverage, &self->plan, self->regions,
      self->region_filters, border);
  return self->coverage;
}

/* cudaconv: the element's allocation queries (see gstcudaconv.h): pools of
 * the back end's memory (pinned host memory for the CUDA backend, CUDA
 * pools for caps in CUDA memory), held frames counted from the back end's
 * depth, and the crop metas upstream may send. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv.h"
#include "gstcudaconv-cuda-memory.h"

/* GstVideoFilter's, which the element's class extends */
static GstBaseTransformClass *
parent_class (void)
{
  return GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_VIDEO_FILTER));
}

/* Upstream is told that crop metas are taken whenever frames are filtered:
 * a frame whose picture lies in a larger buffer (a decoder's 1088 rows for
 * 1080, videocrop) is read from there, which spares upstream a copy of the
 * picture (measured by cudaconv-bench --crop), and whatever the crop, the
 * output is correct for a downstream that knows nothing of crop metas
 * (see cudaconv-frame-check.h). In passthrough the query is downstream's
 * to answer. */
static void
propose_crop (GstQuery * query)
{
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE,
          NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
}

gboolean
gst_cudaconv_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstAllocator *allocator = self->backend ?
      self->backend->ops->allocator (self->backend) : NULL;
  /* up to async-depth input frames stay mapped while the GPU copies them,
   * and one more is being filled: allocated up front, no pinned allocation
   * (a millisecond each) happens while streaming */
  const guint held = (self->backend ? self->backend->max_in_flight : 1) + 1;
  GstCaps *caps;
  GstVideoInfo info;

  if (!allocator || !decide_query
      || gst_base_transform_is_passthrough (trans)) {
    if (!parent_class ()->propose_allocation (trans, decide_query, query))
      return FALSE;
    if (decide_query)
      propose_crop (query);
    return TRUE;
  }

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_cudaconv_caps_in_cuda_memory (caps))
    return gst_cudaconv_propose_cuda_pool (self->cuda_context, query, caps,
        &info, held);
  if (gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = self->backend->ops->new_pool (self->backend, caps,
        info.size, held, 0);
    if (pool) {
      gst_query_add_allocation_pool (query, pool, info.size, held, 0);
      gst_object_unref (pool);
    }
  }
  gst_query_add_allocation_param (query, allocator, NULL);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  propose_crop (query);
  return TRUE;
}

/* Downstream pools of the plain kinds only hold system memory, so they are
 * replaced by one of the back end's (pinned, for the CUDA backend); a pool
 * of its own kind (GL, a device's) stays. */
gboolean
gst_cudaconv_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCudaConv *self = GST_CUDACONV (trans);
  GstAllocator *allocator = self->backend ?
      self->backend->ops->allocator (self->backend) : NULL;
  /* async-depth output frames in flight plus the one downstream keeps (a
   * sink's last sample), allocated when the pool starts rather than one
   * pinned allocation per frame in the first frames */
  const guint held = (self->backend ? self->backend->max_in_flight : 1) + 1;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  GstCaps *caps;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &caps, NULL);
  if (allocator && caps && gst_cudaconv_caps_in_cuda_memory (caps)) {
    if (!gst_video_info_from_caps (&info, caps)
        || !gst_cudaconv_decide_cuda_pool (self->cuda_context, query, caps,
            &info, held))
      return FALSE;
    return parent_class ()->decide_allocation (trans, query);
  }
  if (allocator && caps && gst_video_info_from_caps (&info, caps)) {
    gboolean have_pool = gst_query_get_n_allocation_pools (query) > 0;

    if (have_pool)
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (!pool || G_OBJECT_TYPE (pool) == GST_TYPE_BUFFER_POOL
        || G_OBJECT_TYPE (pool) == GST_TYPE_VIDEO_BUFFER_POOL) {
      GstBufferPool *ours;
      GstAllocationParams params;

      size = MAX (size, info.size);
      min += held;
      if (max != 0 && max < min)
        max = min;
      ours = self->backend->ops->new_pool (self->backend, caps, size, min,
          max);
      if (ours) {
        gst_allocation_params_init (&params);
        if (have_pool)
          gst_query_set_nth_allocation_pool (query, 0, ours, size, min, max);
        else
          gst_query_add_allocation_pool (query, ours, size, min, max);
        if (gst_query_get_n_allocation_params (query) > 0)
          gst_query_set_nth_allocation_param (query, 0, allocator, &params);
        else
          gst_query_add_allocation_param (query, allocator, &params);
        gst_object_unref (ours);
      }
    }
    gst_clear_object (&pool);
  }
  return parent_class ()->decide_allocation (trans, query);
}

/* cudaconv: frames filtered in or around their regions on the CUDA back
 * end (see cudaconv-plan.h for the pieces).
 *
 * Inside the regions, a frame in host memory moves only what its pieces
 * need: each region's windows go to the device and its rects come back,
 * at the same places in the slot's device planes, and the rest of the
 * output is the input's (left in place, or copied on the host). On the
 * device, every window is filtered into the slot's scratch before any
 * rect is written, so that in place no filter reads what another wrote;
 * a rect is then copied out of the scratch sample by sample, which writes
 * its component and nothing else of an interleaved plane. */
#include "config.h"

#include <string.h>

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"

/* out = in: a 1x1 [1], which copies one component's samples into
 * another's layout */
static const CcFilter copy_filter = {.taps = {1.0f} };

/* The strategy of a piece's filter. Windows change size with every frame,
 * so auto does not time them: separable filters run separable, others
 * tiled-halo (the wide shapes run their own families whatever it is). */
static CcStrategy
piece_strategy (const CudaConvJob * job, const CcFilter * filter)
{
  if (job->strategy == CC_STRATEGY_AUTO
      || job->strategy == CC_STRATEGY_SEPARABLE)
    return cc_filter_is_separable (filter) ? CC_STRATEGY_SEPARABLE :
        CC_STRATEGY_TILED_HALO;
  return job->strategy;
}

static gboolean
copy_samples (const CcComponent * from, const CcComponent * to,
    cudaStream_t stream, GError ** error)
{
  return CUDACONV_CHECK (cc_cuda_convolve (from, to, &copy_filter,
          CC_BORDER_CLAMP, CC_STRATEGY_TILED_HALO, stream, CC_LAUNCH_DEFAULT,
          NULL), error);
}

/* The slot's scratch holds at least bytes; growing it waits for the
 * device, which a stream of similar frames does once. */
static gboolean
scratch_for (FrameSlot * slot, gsize bytes, GError ** error)
{
  if (bytes <= slot->scratch_size)
    return TRUE;
  cudaFree (slot->scratch);
  slot->scratch = NULL;
  slot->scratch_size = 0;
  /* half again, so that a region growing frame by frame does not
   * reallocate each time */
  bytes += bytes / 2;
  if (!CUDACONV_CHECK (cudaMalloc (&slot->scratch, bytes), error))
    return FALSE;
  slot->scratch_size = bytes;
  return TRUE;
}

static CcComponent
scratch_window (const FrameSlot * slot, const CcComponent * like,
    const GstVideoRectangle * window, gsize offset)
{
  CcComponent c = *like;

  c.data = (guint8 *) slot->scratch + offset;
  c.width = window->w;
  c.height = window->h;
  c.pitch = (gsize) window->w * like->sample;
  c.pixel_stride = 1;
  return c;
}

gboolean
cudaconv_cuda_run_pieces (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, gint comp, guint part, const CcComponent * s,
    const CcComponent * d, GError ** error)
{
  const CudaConvPlan *plan = &slot->plan;
  const gboolean fill = plan->action[comp] == CUDACONV_ACTION_FILL;
  CudaConvPiece pieces[CUDACONV_MAX_REGIONS];
  const guint n = cudaconv_plan_pieces (plan, comp, part, pieces);
  gsize offsets[CUDACONV_MAX_REGIONS], need = 0;

  if (plan->region_mode == CUDACONV_REGION_MODE_OUTSIDE) {
    if (!cudaconv_cuda_run_component (cuda, slot, job, comp, s, d, error))
      return FALSE;
    for (guint k = 0; k < n; k++) {
      const CcComponent from = cudaconv_component_sub (s, &pieces[k].rect);
      const CcComponent to = cudaconv_component_sub (d, &pieces[k].rect);
      if (!copy_samples (&from, &to, slot->stream, error))
        return FALSE;
    }
    return TRUE;
  }

  if (fill) {
    for (guint k = 0; k < n; k++) {
      const CcComponent to = cudaconv_component_sub (d, &pieces[k].rect);
      if (!CUDACONV_CHECK (cc_cuda_fill (&to, plan->fill_value[comp],
                  slot->stream), error))
        return FALSE;
    }
    return TRUE;
  }
  for (guint k = 0; k < n; k++) {
    /* 16-byte steps keep the windows' rows aligned for the vector paths */
    offsets[k] = need;
    need += GST_ROUND_UP_16 ((gsize) pieces[k].window.w * s->sample) *
        pieces[k].window.h;
  }
  if (!scratch_for (slot, need, error))
    return FALSE;
  for (guint k = 0; k < n; k++) {
    const CcFilter *filter = job->region_filters[pieces[k].region];
    const CcComponent window = cudaconv_component_sub (s, &pieces[k].window);
    CcComponent filtered = scratch_window (slot, &window, &pieces[k].window,
        offsets[k]);
    filtered.pitch = GST_ROUND_UP_16 (filtered.pitch);
    if (!CUDACONV_CHECK (cc_cuda_convolve (&window, &filtered, filter,
                job->border, piece_strategy (job, filter), slot->stream,
                CC_LAUNCH_DEFAULT, NULL), error))
      return FALSE;
  }
  for (guint k = 0; k < n; k++) {
    const CudaConvPiece *piece = &pieces[k];
    const GstVideoRectangle in_window = { piece->rect.x - piece->window.x,
      piece->rect.y - piece->window.y, piece->rect.w, piece->rect.h
    };
    CcComponent filtered = scratch_window (slot, s, &piece->window,
        offsets[k]);
    CcComponent from, to = cudaconv_component_sub (d, &piece->rect);
    filtered.pitch = GST_ROUND_UP_16 (filtered.pitch);
    from = cudaconv_component_sub (&filtered, &in_window);
    if (!copy_samples (&from, &to, slot->stream, error))
      return FALSE;
  }
  return TRUE;
}

static void
copy_bytes_host (guint8 * dst, gsize dst_pitch, const guint8 * src,
    gsize src_pitch, const GstVideoRectangle * b)
{
  for (gint y = b->y; y < b->y + b->h; y++)
    memcpy (dst + (gsize) y * dst_pitch + b->x,
        src + (gsize) y * src_pitch + b->x, b->w);
}

gboolean
cudaconv_cuda_regions_upload (CudaBackend * cuda, FrameSlot * slot, guint p,
    const guint8 * src, gsize src_pitch, gboolean in_direct,
    const DevicePlane * dp, GError ** error)
{
  const CudaConvPlan *plan = &slot->plan;
  const gsize row_bytes = cuda->layout->planes[p].row_bytes;
  GstVideoRectangle b;

  for (guint r = 0; r < plan->regions.n; r++) {
    const guint8 *from = src;
    gsize from_pitch = src_pitch;

    if (!cudaconv_plan_region_bytes (plan, p, r, TRUE, &b))
      continue;
    if (!in_direct) {
      /* pageable memory: through the slot's pinned staging */
      from = slot->staging_in + dp->staging_offset;
      from_pitch = row_bytes;
      copy_bytes_host ((guint8 *) from, from_pitch, src, src_pitch, &b);
    }
    if (!CUDACONV_CHECK (cudaMemcpy2DAsync ((guint8 *) dp->in +
                (gsize) b.y * dp->in_pitch + b.x, dp->in_pitch,
                from + (gsize) b.y * from_pitch + b.x, from_pitch, b.w, b.h,
                cudaMemcpyHostToDevice, slot->stream), error))
      return FALSE;
  }
  /* what the rects' rows hold between their components' samples (other
   * components, padding) leaves as it came */
  for (guint r = 0; r < plan->regions.n; r++) {
    if (!cudaconv_plan_region_bytes (plan, p, r, FALSE, &b))
      continue;
    if (!CUDACONV_CHECK (cudaMemcpy2DAsync ((guint8 *) dp->out +
                (gsize) b.y * dp->out_pitch + b.x, dp->out_pitch,
                (const guint8 *) dp->in + (gsize) b.y * dp->in_pitch + b.x,
                dp->in_pitch, b.w, b.h, cudaMemcpyDeviceToDevice,
                slot->stream), error))
      return FALSE;
  }
  return TRUE;
}

gboolean
cudaconv_cuda_regions_download (CudaBackend * cuda, FrameSlot * slot,
    guint p, guint8 * dst, gsize dst_pitch, gboolean out_direct,
    const DevicePlane * dp, GError ** error)
{
  const CudaConvPlan *plan = &slot->plan;
  GstVideoRectangle b;

  if (!out_direct) {
    dst = slot->staging_out + dp->staging_offset;
    dst_pitch = cuda->layout->planes[p].row_bytes;
  }
  for (guint r = 0; r < plan->regions.n; r++) {
    if (!cudaconv_plan_region_bytes (plan, p, r, FALSE, &b))
      continue;
    if (!CUDACONV_CHECK (cudaMemcpy2DAsync (dst + (gsize) b.y * dst_pitch +
                b.x, dst_pitch, (const guint8 *) dp->out +
                (gsize) b.y * dp->out_pitch + b.x, dp->out_pitch, b.w, b.h,
                cudaMemcpyDeviceToHost, slot->stream), error))
      return FALSE;
  }
  return TRUE;
}

void
cudaconv_cuda_regions_complete (CudaBackend * cuda, FrameSlot * slot,
    guint p)
{
  const CudaConvPlan *plan = &slot->plan;
  GstVideoRectangle b;

  for (guint r = 0; r < plan->regions.n; r++)
    if (cudaconv_plan_region_bytes (plan, p, r, FALSE, &b))
      copy_bytes_host (GST_VIDEO_FRAME_PLANE_DATA (&slot->out, p),
          GST_VIDEO_FRAME_PLANE_STRIDE (&slot->out, p),
          slot->staging_out + slot->planes[p].staging_offset,
          cuda->layout->planes[p].row_bytes, &b);
}

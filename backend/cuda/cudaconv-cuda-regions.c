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
          CC_BORDER_CLAMP, CC_STRATEGY_TILED_HALO, NULL, 0, stream,
          CC_LAUNCH_DEFAULT, NULL), error);
}

/* *buffer, device memory of *size bytes, holds at least bytes: the
 * slot's scratch, or its workspace (configure made it for the largest
 * component) for a stack of windows that outgrows it. Growing waits for
 * the device, which a stream of similar frames does once, and takes half
 * again, so that a region growing frame by frame does not reallocate each
 * time. */
static gboolean
grow_device_buffer (void **buffer, gsize * size, gsize bytes, GError ** error)
{
  if (bytes <= *size)
    return TRUE;
  cudaFree (*buffer);
  *buffer = NULL;
  *size = 0;
  bytes += bytes / 2;
  if (!CUDACONV_CHECK (cudaMalloc (buffer, bytes), error))
    return FALSE;
  *size = bytes;
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
  if (!grow_device_buffer (&slot->scratch, &slot->scratch_size, need, error))
    return FALSE;
  for (guint k = 0; k < n; k++) {
    const CcFilter *filter = job->region_filters[pieces[k].region];
    const CcComponent window = cudaconv_component_sub (s, &pieces[k].window);
    CcComponent filtered = scratch_window (slot, &window, &pieces[k].window,
        offsets[k]);
    filtered.pitch = GST_ROUND_UP_16 (filtered.pitch);
    /* a window is no larger than its part, for which the workspace is
     * made */
    if (!CUDACONV_CHECK (cc_cuda_convolve (&window, &filtered, filter,
                job->border, piece_strategy (job, filter), slot->workspace,
                slot->workspace_bytes, slot->stream, CC_LAUNCH_DEFAULT,
                NULL), error))
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

/* The mosaic of one component: every piece's window, rect grown by the
 * reach on all sides (what lies beyond the part made up by the border
 * policy as it is gathered), stacked one under the other, so that one
 * filter launch covers them all. A rect's outputs read only its own
 * window, so the neighbours in the stack change nothing it keeps. */
typedef struct {
  gint comp, part;
  CcComponent part_in, part_out;        /* in host memory the device maps */
  CudaConvPiece pieces[CUDACONV_MAX_REGIONS];
  guint n;
  gint reach, width, height;    /* the mosaic's samples */
  gsize pitch, offset;          /* in the slot's scratch, twice: in, out */
} Mosaic;

/* Queues the copies of one kind of patch of every mosaic (gathering the
 * windows, or scattering the rects), CC_MAX_PATCHES at a time. */
static gboolean
copy_mosaic_patches (FrameSlot * slot, const Mosaic * mosaics, guint n,
    gboolean gather, CcBorder border, GError ** error)
{
  CcPatch patches[CC_MAX_PATCHES];
  int queued = 0;

  for (guint m = 0; m < n; m++) {
    const Mosaic *mo = &mosaics[m];
    CcComponent in = mo->part_in, stacked = mo->part_in;
    gint row = 0;

    stacked.data = (guint8 *) slot->scratch + mo->offset +
        (gather ? 0 : mo->pitch * mo->height);
    stacked.pitch = mo->pitch;
    stacked.width = mo->width;
    stacked.height = mo->height;
    stacked.pixel_stride = 1;
    for (guint k = 0; k < mo->n; k++) {
      const GstVideoRectangle *rect = &mo->pieces[k].rect;
      CcPatch *p = &patches[queued];
      const gint r = mo->reach;

      if (gather) {
        p->src = in;
        p->x = rect->x - r;
        p->y = rect->y - r;
        p->width = rect->w + 2 * r;
        p->height = rect->h + 2 * r;
        p->dst = stacked;
        p->dst.data = (guint8 *) stacked.data + (gsize) row * stacked.pitch;
      } else {
        p->src = stacked;
        p->x = r;
        p->y = row + r;
        p->width = rect->w;
        p->height = rect->h;
        p->dst = cudaconv_component_sub (&mo->part_out, rect);
      }
      row += rect->h + 2 * r;
      if (++queued == CC_MAX_PATCHES) {
        if (!CUDACONV_CHECK (cc_cuda_copy_patches (patches, queued, border,
                    slot->stream), error))
          return FALSE;
        queued = 0;
      }
    }
  }
  return CUDACONV_CHECK (cc_cuda_copy_patches (patches, queued, border,
          slot->stream), error);
}

gboolean
cudaconv_cuda_regions_mapped (const CudaBackend * cuda, const FrameSlot * slot,
    const CudaConvJob * job, gboolean in_mapped, gboolean out_mapped)
{
  const CudaConvPlan *plan = &slot->plan;

  if (!cuda->maps_host_memory || !in_mapped || !out_mapped
      || plan->region_mode != CUDACONV_REGION_MODE_INSIDE
      || cuda->in_device || cuda->out_device || cuda->layout->word_packed
      || job->filter->shape == CC_SHAPE_BLOCKS)
    return FALSE;
  /* one filter for every region: one launch per component */
  for (guint k = 0; k < plan->regions.n; k++)
    if (job->region_filters[k] != job->filter)
      return FALSE;
  return TRUE;
}

gboolean
cudaconv_cuda_enqueue_regions_mapped (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const CudaConvPlan *plan = &slot->plan;
  GstVideoFrame *in = &slot->in, *out = &slot->out;
  Mosaic mosaics[GST_VIDEO_MAX_COMPONENTS * CUDACONV_MAX_PARTS];
  guint n = 0;
  gsize need = 0;

  slot->out_staged = FALSE;
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    /* the output is the input but for the regions' rects */
    if (!job->in_place)
      cudaconv_layout_copy_plane (layout, p, out, in);
    if (!plan->planes[p].process)
      continue;
    for (gint i = 0; i < pl->n_components; i++) {
      const gint c = pl->components[i];
      CcComponent s[CUDACONV_MAX_PARTS], d[CUDACONV_MAX_PARTS];
      guint parts;

      if (plan->action[c] == CUDACONV_ACTION_COPY)
        continue;
      parts = cudaconv_plan_parts (plan, c, GST_VIDEO_FRAME_PLANE_DATA (in,
              p), GST_VIDEO_FRAME_PLANE_STRIDE (in, p), s);
      cudaconv_plan_parts (plan, c, GST_VIDEO_FRAME_PLANE_DATA (out, p),
          GST_VIDEO_FRAME_PLANE_STRIDE (out, p), d);
      for (guint k = 0; k < parts; k++) {
        Mosaic *mo = &mosaics[n];
        mo->comp = c;
        mo->part = k;
        mo->part_in = s[k];
        mo->part_out = d[k];
        mo->n = cudaconv_plan_pieces (plan, c, k, mo->pieces);
        if (mo->n == 0)
          continue;
        if (plan->action[c] == CUDACONV_ACTION_FILL) {
          for (guint j = 0; j < mo->n; j++) {
            const CcComponent to = cudaconv_component_sub (&d[k],
                &mo->pieces[j].rect);
            if (!CUDACONV_CHECK (cc_cuda_fill (&to, plan->fill_value[c],
                        slot->stream), error))
              return FALSE;
          }
          continue;
        }
        mo->reach = job->filter->radius;
        mo->width = mo->height = 0;
        for (guint j = 0; j < mo->n; j++) {
          mo->width = MAX (mo->width, mo->pieces[j].rect.w + 2 * mo->reach);
          mo->height += mo->pieces[j].rect.h + 2 * mo->reach;
        }
        mo->pitch = GST_ROUND_UP_16 ((gsize) mo->width * s[k].sample);
        mo->offset = need;
        need += 2 * mo->pitch * mo->height;
        n++;
      }
    }
  }
  if (n == 0)
    return CUDACONV_CHECK (cudaEventRecord (slot->done, slot->stream), error);
  if (!grow_device_buffer (&slot->scratch, &slot->scratch_size, need, error)
      || !copy_mosaic_patches (slot, mosaics, n, TRUE, job->border, error))
    return FALSE;
  for (guint m = 0; m < n; m++) {
    const Mosaic *mo = &mosaics[m];
    CcComponent stacked_in = mo->part_in, stacked_out;
    stacked_in.data = (guint8 *) slot->scratch + mo->offset;
    stacked_in.pitch = mo->pitch;
    stacked_in.width = mo->width;
    stacked_in.height = mo->height;
    stacked_in.pixel_stride = 1;
    stacked_out = stacked_in;
    stacked_out.data = (guint8 *) stacked_in.data + mo->pitch * mo->height;
    if (!grow_device_buffer (&slot->workspace, &slot->workspace_bytes,
                cc_cuda_workspace_bytes (&stacked_in, job->filter), error)
        || !CUDACONV_CHECK (cc_cuda_convolve (&stacked_in, &stacked_out,
                job->filter, job->border, piece_strategy (job, job->filter),
                slot->workspace, slot->workspace_bytes, slot->stream,
                CC_LAUNCH_DEFAULT, NULL), error))
      return FALSE;
  }
  return copy_mosaic_patches (slot, mosaics, n, FALSE, job->border, error)
      && CUDACONV_CHECK (cudaEventRecord (slot->done, slot->stream), error);
}

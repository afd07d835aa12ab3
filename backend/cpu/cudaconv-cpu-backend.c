/* cudaconv: the CPU back end (cudaconv-backend.h): one frame at a time,
 * filtered before submit returns, on the CPU kernels' thread pool. */
#include <errno.h>
#include <string.h>

#include "cudaconv-backend.h"
#include "cudaconv-cpu.h"
#include "cudaconv-word-packed.h"

typedef struct {
  CudaConvBackend parent;
  gint n_threads;
  gchar *description;
  const CudaConvLayout *layout;
  /* frames of the planar twin that word-packed frames are filtered in */
  GstBuffer *work_in, *work_out;
  GstBuffer *finished;          /* the output of the frame in flight */
  /* the windows of one component part's region pieces, filtered */
  guint8 *scratch;
  gsize scratch_size;
} CpuBackend;

/* out = in: a 1x1 [1], which copies the samples of one component into
 * another's layout */
static const CcFilter copy_filter = {.taps = {1.0f} };

/* The component whose samples start each pixel of plane p, when all the
 * plane's components are filtered and fill its pixels between them (RGB,
 * BGRA with alpha selected, NV12's UV, AYUV64 with alpha): those planes
 * are filtered a whole pixel at a time. Otherwise -1. */
static gint
pixel_leader (const CudaConvPlan * plan, guint p, gpointer plane_data)
{
  const CudaConvPlaneLayout *pl = &plan->layout->planes[p];
  guint seen = 0;
  gint leader = -1;
  CcComponent first;

  if (pl->n_components < 2 || pl->n_components > CC_MAX_LANES)
    return -1;
  for (gint i = 0; i < pl->n_components; i++) {
    const gint c = pl->components[i];
    const CcComponent comp = cudaconv_layout_component (plan->layout, c,
        plane_data, 0);
    const gsize at = (gsize) ((guint8 *) comp.data - (guint8 *) plane_data);
    const gsize slot = at / comp.sample;

    if (i == 0)
      first = comp;
    if (plan->action[c] != CUDACONV_ACTION_FILTER
        || comp.pixel_stride != pl->n_components || at % comp.sample
        || slot >= (gsize) pl->n_components || (seen & (1u << slot))
        || comp.sample != first.sample || comp.depth != first.depth
        || comp.shift != first.shift || comp.width != first.width
        || comp.height != first.height)
      return -1;
    seen |= 1u << slot;
    if (slot == 0)
      leader = c;
  }
  return leader;
}

/* Filters (or fills) the pieces of one part with the plan's regions:
 * inside them (every window filtered into scratch before any rect is
 * written, so that in place no filter reads a written sample), or outside
 * them (the whole part, then the rects copied back from the input). */
static int
process_pieces (CpuBackend * cpu, const CudaConvJob * job, gint c, guint part,
    const CcComponent * s, const CcComponent * d)
{
  const CudaConvPlan *plan = job->plan;
  const CudaConvAction action = plan->action[c];
  CudaConvPiece pieces[CUDACONV_MAX_REGIONS];
  const guint n = cudaconv_plan_pieces (plan, c, part, pieces);
  gsize offsets[CUDACONV_MAX_REGIONS], need = 0;
  int rc = 0;

  if (plan->region_mode == CUDACONV_REGION_MODE_OUTSIDE) {
    rc = action == CUDACONV_ACTION_FILL ? cc_cpu_fill (d,
        plan->fill_value[c]) : cc_cpu_convolve (s, d, job->filter,
        job->border, cpu->n_threads);
    for (guint k = 0; k < n && rc == 0; k++) {
      const CcComponent from = cudaconv_component_sub (s, &pieces[k].rect);
      const CcComponent to = cudaconv_component_sub (d, &pieces[k].rect);
      rc = cc_cpu_convolve (&from, &to, &copy_filter, CC_BORDER_CLAMP,
          cpu->n_threads);
    }
    return rc;
  }

  if (action == CUDACONV_ACTION_FILL) {
    for (guint k = 0; k < n && rc == 0; k++) {
      const CcComponent to = cudaconv_component_sub (d, &pieces[k].rect);
      rc = cc_cpu_fill (&to, plan->fill_value[c]);
    }
    return rc;
  }
  for (guint k = 0; k < n; k++) {
    offsets[k] = need;
    need += (gsize) pieces[k].window.w * pieces[k].window.h * s->sample;
  }
  if (need > cpu->scratch_size) {
    g_free (cpu->scratch);
    cpu->scratch = g_try_malloc (need);
    cpu->scratch_size = cpu->scratch ? need : 0;
    if (!cpu->scratch)
      return ENOMEM;
  }
  for (guint k = 0; k < n && rc == 0; k++) {
    const CcComponent window = cudaconv_component_sub (s, &pieces[k].window);
    CcComponent filtered = window;
    filtered.data = cpu->scratch + offsets[k];
    filtered.pitch = (gsize) window.width * window.sample;
    filtered.pixel_stride = 1;
    rc = cc_cpu_convolve (&window, &filtered,
        job->region_filters[pieces[k].region], job->border, cpu->n_threads);
  }
  for (guint k = 0; k < n && rc == 0; k++) {
    const CudaConvPiece *piece = &pieces[k];
    const GstVideoRectangle in_window = { piece->rect.x - piece->window.x,
      piece->rect.y - piece->window.y, piece->rect.w, piece->rect.h
    };
    CcComponent filtered = cudaconv_component_sub (s, &piece->window);
    CcComponent from, to = cudaconv_component_sub (d, &piece->rect);
    filtered.data = cpu->scratch + offsets[k];
    filtered.pitch = (gsize) filtered.width * filtered.sample;
    filtered.pixel_stride = 1;
    from = cudaconv_component_sub (&filtered, &in_window);
    rc = cc_cpu_convolve (&from, &to, &copy_filter, CC_BORDER_CLAMP,
        cpu->n_threads);
  }
  return rc;
}

/* Filters (or fills) component c of one plane in each of its parts; with
 * whole_pixels, c leads pixels whose components are all filtered in one
 * pass (pixel_leader). */
static int
process_component (CpuBackend * cpu, const CudaConvJob * job, gint c,
    gboolean whole_pixels, guint8 * src, gsize src_pitch, guint8 * dst,
    gsize dst_pitch)
{
  const CudaConvPlan *plan = job->plan;
  CcComponent s[CUDACONV_MAX_PARTS], d[CUDACONV_MAX_PARTS];
  const guint n = cudaconv_plan_parts (plan, c, src, src_pitch, s);
  int rc = 0;

  cudaconv_plan_parts (plan, c, dst, dst_pitch, d);
  for (guint k = 0; k < n && rc == 0; k++) {
    if (cudaconv_plan_has_regions (plan)) {
      /* a component left out stays as the plane's copy has it */
      if (plan->action[c] != CUDACONV_ACTION_COPY)
        rc = process_pieces (cpu, job, c, k, &s[k], &d[k]);
    } else if (whole_pixels)
      rc = cc_cpu_convolve_pixels (&s[k], &d[k], job->filter, job->border,
          cpu->n_threads);
    else if (plan->action[c] == CUDACONV_ACTION_FILTER)
      rc = cc_cpu_convolve (&s[k], &d[k], job->filter, job->border,
          cpu->n_threads);
    else if (plan->action[c] == CUDACONV_ACTION_FILL)
      rc = cc_cpu_fill (&d[k], plan->fill_value[c]);
  }
  return rc;
}

/* in and out are frames of the work format */
static gboolean
process (CpuBackend * cpu, const CudaConvJob * job, GstVideoFrame * in,
    GstVideoFrame * out, GError ** error)
{
  const CudaConvPlan *plan = job->plan;

  for (guint p = 0; p < plan->layout->n_planes; p++) {
    const CudaConvPlanePlan *pp = &plan->planes[p];
    const CudaConvPlaneLayout *pl = &plan->layout->planes[p];
    guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
    gsize dst_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    gint leader;

    /* in place, the output holds the input already */
    if ((!pp->process || pp->copy_first) && src != dst)
      cudaconv_layout_copy_plane (plan->layout, p, out, in);
    if (!pp->process)
      continue;
    leader = pp->copy_first || cudaconv_plan_has_regions (plan) ? -1 :
        pixel_leader (plan, p, src);
    /* the leader alone stands for all the plane's components */
    for (gint i = 0; i < (leader >= 0 ? 1 : pl->n_components); i++) {
      const gint c = leader >= 0 ? leader : pl->components[i];
      const int rc = process_component (cpu, job, c, leader >= 0, src,
          src_pitch, dst, dst_pitch);

      if (rc != 0) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
            "CPU convolution of component %d failed: %s", c, g_strerror (rc));
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* A word-packed frame: unpacked into work_in, filtered into work_out,
 * packed into out. */
static gboolean
process_word_packed (CpuBackend * cpu, const CudaConvJob * job,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  const GstVideoInfo *work_info = &cpu->layout->work_info;
  GstVideoFrame work_in, work_out;
  gboolean ok;

  if (!gst_video_frame_map (&work_in, work_info, cpu->work_in,
          GST_MAP_READWRITE))
    goto no_map;
  if (!gst_video_frame_map (&work_out, work_info, cpu->work_out,
          GST_MAP_READWRITE)) {
    gst_video_frame_unmap (&work_in);
    goto no_map;
  }
  cudaconv_word_packed_unpack (in, &work_in, cpu->n_threads);
  ok = process (cpu, job, &work_in, &work_out, error);
  if (ok)
    cudaconv_word_packed_pack (&work_out, out, cpu->n_threads);
  gst_video_frame_unmap (&work_in);
  gst_video_frame_unmap (&work_out);
  return ok;

  /* ERRORS */
no_map:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "could not map the %s frames that %s is filtered in",
      GST_VIDEO_INFO_NAME (work_info),
      GST_VIDEO_INFO_NAME (&cpu->layout->info));
  return FALSE;
}

static gboolean
cpu_configure (CudaConvBackend * backend, const CudaConvStreamConfig * config,
    GError ** error)
{
  CpuBackend *cpu = (CpuBackend *) backend;
  const CudaConvLayout *layout = config->layout;

  /* the element drains the frame in flight before new caps */
  gst_clear_buffer (&cpu->finished);
  gst_clear_buffer (&cpu->work_in);
  gst_clear_buffer (&cpu->work_out);
  cpu->layout = layout;
  backend->depth = 1;
  if (config->in_device || config->out_device) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "frames in CUDA memory need the CUDA backend, and this element runs "
        "on the CPU");
    return FALSE;
  }
  if (!layout->word_packed)
    return TRUE;
  cpu->work_in = gst_buffer_new_allocate (NULL,
      GST_VIDEO_INFO_SIZE (&layout->work_info), NULL);
  cpu->work_out = gst_buffer_new_allocate (NULL,
      GST_VIDEO_INFO_SIZE (&layout->work_info), NULL);
  if (!cpu->work_in || !cpu->work_out) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "could not allocate the %s frames that %s is filtered in",
        GST_VIDEO_INFO_NAME (&layout->work_info),
        GST_VIDEO_INFO_NAME (&layout->info));
    return FALSE;
  }
  return TRUE;
}

static gboolean
cpu_submit (CudaConvBackend * backend, const CudaConvJob * job,
    GstVideoFrame * in, GstVideoFrame * out, GError ** error)
{
  CpuBackend *cpu = (CpuBackend *) backend;
  gboolean ok;

  if (cpu->finished) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "a frame was submitted before the one in flight was finished");
    cudaconv_frames_unmap (in, out);
    return FALSE;
  }
  if (cpu->layout->word_packed)
    ok = process_word_packed (cpu, job, in, out, error);
  else
    ok = process (cpu, job, in, out, error);
  if (ok)
    cpu->finished = gst_buffer_ref (out->buffer);
  cudaconv_frames_unmap (in, out);
  return ok;
}

static gboolean
cpu_finish_oldest (CudaConvBackend * backend, GstBuffer ** out,
    GError ** error)
{
  CpuBackend *cpu = (CpuBackend *) backend;

  *out = cpu->finished;
  if (!*out) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "no frame in flight");
    return FALSE;
  }
  cpu->finished = NULL;
  return TRUE;
}

static guint
cpu_in_flight (CudaConvBackend * backend)
{
  return ((CpuBackend *) backend)->finished ? 1 : 0;
}

static void
cpu_discard (CudaConvBackend * backend)
{
  gst_clear_buffer (&((CpuBackend *) backend)->finished);
}

static const gchar *
cpu_describe (CudaConvBackend * backend)
{
  return ((CpuBackend *) backend)->description;
}

static GstBufferPool *
cpu_new_pool (CudaConvBackend * backend, GstCaps * caps, guint size,
    guint min_buffers, guint max_buffers)
{
  return NULL;
}

static GstAllocator *
cpu_allocator (CudaConvBackend * backend)
{
  return NULL;
}

static void
cpu_close (CudaConvBackend * backend)
{
  CpuBackend *cpu = (CpuBackend *) backend;

  gst_clear_buffer (&cpu->finished);
  gst_clear_buffer (&cpu->work_in);
  gst_clear_buffer (&cpu->work_out);
  g_free (cpu->description);
  g_free (cpu->scratch);
  g_free (cpu);
}

static const CudaConvBackendOps cpu_ops = {
  "CPU", cpu_configure, cpu_submit, cpu_finish_oldest, cpu_in_flight,
  cpu_discard, cpu_describe, cpu_new_pool, cpu_allocator, cpu_close
};

CudaConvBackend *
cudaconv_cpu_backend_new (gint n_threads)
{
  CpuBackend *cpu = g_new0 (CpuBackend, 1);

  cpu->parent.ops = &cpu_ops;
  cpu->parent.depth = 1;
  cpu->n_threads = n_threads;
  cpu->description = g_strdup_printf ("%d CPU threads", n_threads);
  return &cpu->parent;
}

/* cudaconv: the CPU back end (cudaconv-backend.h): one frame at a time,
 * filtered before submit returns, on the CPU kernels' thread pool. */
#include <errno.h>
#include <string.h>

#include "cudaconv-backend.h"
#include "cudaconv-pieces.h"
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
  /* A frame's region windows, put off until every part has named its
   * own, then filtered as one batch (the pool wakes its threads once a
   * frame), and the rects copied out of them after: */
  GArray *windows_from, *windows_to;    /* CcComponent */
  GPtrArray *window_filters;
  GArray *copies_from, *copies_to;      /* CcComponent */
  /* the memory of each part's filtered windows, the frame's n-th request
   * taking the n-th block, kept between frames */
  GPtrArray *scratch;
  GArray *scratch_sizes;        /* gsize */
  guint scratch_used;
} CpuBackend;

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
  CcComponent first = { 0 };

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

/* What the pieces' operations run with: the back end and the job's border */
typedef struct {
  CpuBackend *cpu;
  CcBorder border;
} PieceContext;

/* Says why a CPU kernel failed on component comp (-1: no one component). */
static gboolean
kernel_failed (const gchar * what, gint comp, int rc, GError ** error)
{
  if (comp >= 0)
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "CPU %s of component %d failed: %s", what, comp, g_strerror (rc));
  else
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "CPU %s failed: %s", what, g_strerror (rc));
  return FALSE;
}

/* The one way the CPU filters: a whole part or a window alike. */
static gboolean
piece_convolve (gpointer ctx, gint comp, const CcComponent * src,
    const CcComponent * dst, const CcFilter * filter, gboolean whole,
    GError ** error)
{
  const PieceContext *pc = ctx;
  const int rc = cc_cpu_convolve (src, dst, filter, pc->border,
      pc->cpu->n_threads);

  return rc == 0 || kernel_failed ("convolution", comp, rc, error);
}

/* Fills with the CPU kernel, which needs nothing of the context. */
static gboolean
piece_fill (gpointer ctx, const CcComponent * dst, guint value,
    GError ** error)
{
  const int rc = cc_cpu_fill (dst, value);

  return rc == 0 || kernel_failed ("fill", -1, rc, error);
}

/* Copies src's samples into dst's bit for bit: unlike a filter, nothing is
 * saturated to the depth or cleared below it, so what the regions keep
 * leaves as it came. */
static gboolean
copy_rect (const CcComponent * src, const CcComponent * dst, GError ** error)
{
  const gsize bytes = src->sample;

  if (src->sample != dst->sample || src->width != dst->width
      || src->height != dst->height)
    return kernel_failed ("copy", -1, EINVAL, error);
  for (gint y = 0; y < src->height; y++) {
    const guint8 *from = (const guint8 *) src->data + (gsize) y * src->pitch;
    guint8 *to = (guint8 *) dst->data + (gsize) y * dst->pitch;

    if (src->pixel_stride == 1 && dst->pixel_stride == 1) {
      memcpy (to, from, (gsize) src->width * bytes);
      continue;
    }
    for (gint x = 0; x < src->width; x++) {
      const guint8 *a = from + (gsize) x * src->pixel_stride * bytes;
      guint8 *b = to + (gsize) x * dst->pixel_stride * bytes;
      b[0] = a[0];
      if (bytes == 2)
        b[1] = a[1];
    }
  }
  return TRUE;
}

/* Rects to copy once the frame's windows are filtered */
static gboolean
piece_copy (gpointer ctx, guint n, const CcComponent * from,
    const CcComponent * to, GError ** error)
{
  CpuBackend *cpu = ((PieceContext *) ctx)->cpu;

  g_array_append_vals (cpu->copies_from, from, n);
  g_array_append_vals (cpu->copies_to, to, n);
  return TRUE;
}

/* Memory for a part's windows: the frame's next block, grown to bytes
 * when it is smaller */
static gpointer
piece_scratch (gpointer ctx, gsize bytes, GError ** error)
{
  CpuBackend *cpu = ((PieceContext *) ctx)->cpu;
  const guint k = cpu->scratch_used;
  gsize *size;

  bytes = MAX (bytes, 1);
  if (k == cpu->scratch->len) {
    const gsize none = 0;
    g_ptr_array_add (cpu->scratch, NULL);
    g_array_append_val (cpu->scratch_sizes, none);
  }
  size = &g_array_index (cpu->scratch_sizes, gsize, k);
  if (bytes > *size) {
    g_free (cpu->scratch->pdata[k]);
    cpu->scratch->pdata[k] = g_try_malloc (bytes);
    *size = cpu->scratch->pdata[k] ? bytes : 0;
    if (!cpu->scratch->pdata[k]) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
          "CPU scratch of %" G_GSIZE_FORMAT " bytes for the regions' "
          "windows: %s", bytes, g_strerror (ENOMEM));
      return NULL;
    }
  }
  cpu->scratch_used++;
  return cpu->scratch->pdata[k];
}

/* A part's windows, to be filtered with the frame's others */
static gboolean
piece_convolve_windows (gpointer ctx, gint comp, guint n,
    const CcComponent * from, const CcComponent * to,
    const CcFilter * const *filters, GError ** error)
{
  CpuBackend *cpu = ((PieceContext *) ctx)->cpu;

  g_array_append_vals (cpu->windows_from, from, n);
  g_array_append_vals (cpu->windows_to, to, n);
  for (guint k = 0; k < n; k++)
    g_ptr_array_add (cpu->window_filters, (gpointer) filters[k]);
  return TRUE;
}

/* Forgets what was put off */
static void
forget_put_off (CpuBackend * cpu)
{
  g_array_set_size (cpu->windows_from, 0);
  g_array_set_size (cpu->windows_to, 0);
  g_ptr_array_set_size (cpu->window_filters, 0);
  g_array_set_size (cpu->copies_from, 0);
  g_array_set_size (cpu->copies_to, 0);
  cpu->scratch_used = 0;
}

/* The frame's windows as one batch of the CPU kernels, then the rects
 * copied out of them (and, outside, back from the input); what was put
 * off is forgotten either way. */
static gboolean
run_put_off (CpuBackend * cpu, CcBorder border, GError ** error)
{
  const guint n = cpu->windows_from->len;
  gboolean ok = TRUE;

  if (n > 0) {
    const int rc = cc_cpu_convolve_batch ((CcComponent *)
        cpu->windows_from->data, (CcComponent *) cpu->windows_to->data,
        (const CcFilter * const *) cpu->window_filters->pdata, (int) n,
        border, cpu->n_threads);
    ok = rc == 0 || kernel_failed ("convolution", -1, rc, error);
  }
  for (guint k = 0; ok && k < cpu->copies_from->len; k++)
    ok = copy_rect (&g_array_index (cpu->copies_from, CcComponent, k),
        &g_array_index (cpu->copies_to, CcComponent, k), error);
  forget_put_off (cpu);
  return ok;
}

/* The CPU kernels read rows at any byte: windows are packed tight. The
 * windows and the rects' copies are put off to the frame's end
 * (run_put_off), the whole parts' filters and the fills are not: outside,
 * a part's rects are copied back from the input, which no filter writes. */
static const CudaConvPieceOps cpu_piece_ops = {
  piece_convolve, piece_fill, piece_copy, piece_scratch, 1,
  piece_convolve_windows
};

/* Filters (or fills) component c of one plane in each of its parts; with
 * whole_pixels, c leads pixels whose components are all filtered in one
 * pass (pixel_leader). With regions, the parts go through the pieces
 * routine, the one both back ends run. */
static gboolean
process_component (CpuBackend * cpu, const CudaConvJob * job, gint c,
    gboolean whole_pixels, guint8 * src, gsize src_pitch, guint8 * dst,
    gsize dst_pitch, GError ** error)
{
  const CudaConvPlan *plan = job->plan;
  PieceContext pc = { cpu, job->border };
  CcComponent s[CUDACONV_MAX_PARTS], d[CUDACONV_MAX_PARTS];
  const guint n = cudaconv_plan_parts (plan, c, src, src_pitch, s);

  cudaconv_plan_parts (plan, c, dst, dst_pitch, d);
  for (guint k = 0; k < n; k++) {
    int rc = 0;

    if (cudaconv_plan_has_regions (plan)) {
      /* a component left out stays as the plane's copy has it */
      if (!cudaconv_pieces_run (&cpu_piece_ops, &pc, job, c, k,
              &s[k], &d[k], error))
        return FALSE;
      continue;
    }
    if (whole_pixels)
      rc = cc_cpu_convolve_pixels (&s[k], &d[k], job->filter, job->border,
          cpu->n_threads);
    else if (plan->action[c] == CUDACONV_ACTION_FILTER)
      rc = cc_cpu_convolve (&s[k], &d[k], job->filter, job->border,
          cpu->n_threads);
    else if (plan->action[c] == CUDACONV_ACTION_FILL)
      rc = cc_cpu_fill (&d[k], plan->fill_value[c]);
    if (rc != 0)
      return kernel_failed (plan->action[c] == CUDACONV_ACTION_FILL ?
          "fill" : "convolution", c, rc, error);
  }
  return TRUE;
}

/* in and out are frames of the work format; in_place when they are one
 * frame, whose output holds the input already */
static gboolean
process (CpuBackend * cpu, const CudaConvJob * job, GstVideoFrame * in,
    GstVideoFrame * out, gboolean in_place, GError ** error)
{
  const CudaConvPlan *plan = job->plan;
  guint copied = 0;

  if (cudaconv_plan_has_regions (plan) && !job->coverage) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "a frame with regions came without their coverage");
    return FALSE;
  }
  /* the planes the output takes as they are, or before some of their
   * samples are filtered over them */
  for (guint p = 0; p < plan->layout->n_planes; p++)
    if (!plan->planes[p].process || plan->planes[p].copy_first)
      copied |= 1u << p;
  if (!in_place)
    cudaconv_layout_copy_planes (plan->layout, copied, out, in,
        cpu->n_threads);
  for (guint p = 0; p < plan->layout->n_planes; p++) {
    const CudaConvPlanePlan *pp = &plan->planes[p];
    const CudaConvPlaneLayout *pl = &plan->layout->planes[p];
    guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    gsize src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
    gsize dst_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    gint leader;

    if (!pp->process)
      continue;
    leader = pp->copy_first || cudaconv_plan_has_regions (plan) ? -1 :
        pixel_leader (plan, p, src);
    /* the leader alone stands for all the plane's components */
    for (gint i = 0; i < (leader >= 0 ? 1 : pl->n_components); i++) {
      const gint c = leader >= 0 ? leader : pl->components[i];

      if (!process_component (cpu, job, c, leader >= 0, src, src_pitch, dst,
              dst_pitch, error)) {
        forget_put_off (cpu);
        return FALSE;
      }
    }
  }
  return run_put_off (cpu, job->border, error);
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
  /* two frames of their own, whether or not in and out are one */
  ok = process (cpu, job, &work_in, &work_out, FALSE, error);
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

/* The CPU has one way of running: no strategy to choose, no device memory
 * to register. */
static void
cpu_set_options (CudaConvBackend * backend, const CudaConvRunOptions * options)
{
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
  backend->max_in_flight = 1;
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
    cudaconv_frames_unmap (in, out, job->in_place);
    return FALSE;
  }
  if (cpu->layout->word_packed)
    ok = process_word_packed (cpu, job, in, out, error);
  else
    ok = process (cpu, job, in, out, job->in_place, error);
  if (ok)
    cpu->finished = gst_buffer_ref (out->buffer);
  cudaconv_frames_unmap (in, out, job->in_place);
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
  g_array_unref (cpu->windows_from);
  g_array_unref (cpu->windows_to);
  g_ptr_array_unref (cpu->window_filters);
  g_array_unref (cpu->copies_from);
  g_array_unref (cpu->copies_to);
  g_ptr_array_unref (cpu->scratch);
  g_array_unref (cpu->scratch_sizes);
  g_free (cpu);
}

static const CudaConvBackendOps cpu_ops = {
  "CPU", cpu_set_options, cpu_configure, cpu_submit, cpu_finish_oldest,
  cpu_in_flight, cpu_discard, cpu_describe, cpu_new_pool, cpu_allocator,
  cpu_close
};

CudaConvBackend *
cudaconv_cpu_backend_new (gint n_threads)
{
  CpuBackend *cpu = g_new0 (CpuBackend, 1);

  cpu->parent.ops = &cpu_ops;
  cpu->parent.capabilities = 0;
  cpu->parent.max_in_flight = 1;
  cpu->n_threads = n_threads;
  cpu->description = g_strdup_printf ("%d CPU threads", n_threads);
  cpu->windows_from = g_array_new (FALSE, FALSE, sizeof (CcComponent));
  cpu->windows_to = g_array_new (FALSE, FALSE, sizeof (CcComponent));
  cpu->window_filters = g_ptr_array_new ();
  cpu->copies_from = g_array_new (FALSE, FALSE, sizeof (CcComponent));
  cpu->copies_to = g_array_new (FALSE, FALSE, sizeof (CcComponent));
  cpu->scratch = g_ptr_array_new_with_free_func (g_free);
  cpu->scratch_sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
  return &cpu->parent;
}

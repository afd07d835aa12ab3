/* cudaconv: the compute stage of a frame on the CUDA back end (see
 * cudaconv-cuda-backend-private.h): on the slot's stream, the device's
 * plane copies and the kernels of every filtered or filled component,
 * over whole parts or, with regions, over their pieces
 * (cudaconv-pieces.h, the routine both back ends share). */
#include "config.h"

#include <string.h>

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"
#include "cudaconv-pieces.h"
#include "cudaconv-word-packed.h"

/* What the pieces routine's operations work on */
typedef struct {
  CudaBackend *cuda;
  FrameSlot *slot;
  const CudaConvJob *job;
} PieceContext;

static gboolean
piece_convolve (gpointer ctx, gint comp, const CcComponent * src,
    const CcComponent * dst, const CcFilter * filter, gboolean whole,
    GError ** error)
{
  PieceContext *pc = ctx;

  return cudaconv_cuda_run_component (pc->cuda, pc->slot, comp, src, dst,
      filter, pc->job->border, whole, error);
}

static gboolean
piece_fill (gpointer ctx, const CcComponent * dst, guint value,
    GError ** error)
{
  return CUDACONV_CHECK (cc_cuda_fill (dst, value,
          ((PieceContext *) ctx)->slot->stream), error);
}

/* Patches to copy in as few launches as they allow: a few as a launch's
 * parameters, more from tables in the slot's pinned memory where the
 * device maps it, since the driver copies a launch's parameters whole
 * (320 patches as parameters took the host about 22 us a launch). Where
 * each launch's table lies is taken before any is queued
 * (batches_reserve), so that queueing them allocates nothing and waits
 * for nothing, as a frame graph's capture needs. */
typedef struct {
  CcPatch *patches;
  guint n, size;
  /* from tables: a launch for each CC_MAX_TABLE_PATCHES, and its table */
  gboolean tables;
  gpointer *table;
  gsize *table_bytes;
  guint launches, launches_size;
} PatchBatch;

static void
batch_clear (PatchBatch * b)
{
  g_free (b->patches);
  g_free (b->table);
  g_free (b->table_bytes);
  memset (b, 0, sizeof (*b));
}

/* Room for n more patches; the next one */
static CcPatch *
batch_add (PatchBatch * b, guint n)
{
  if (b->n + n > b->size) {
    b->size = MAX (b->n + n, 2 * b->size);
    b->patches = g_renew (CcPatch, b->patches, b->size);
  }
  b->n += n;
  return &b->patches[b->n - n];
}

/* Each batch's launches laid out, and their tables taken from the slot's
 * at once (growing them may wait for the slot's stream and move them):
 * tables where a batch holds more than a launch's parameters take, or
 * always (always_tables) where the device maps the slot's pinned memory. */
static gboolean
batches_reserve (const CudaBackend * cuda, FrameSlot * slot,
    PatchBatch * const *batches, guint n_batches, gboolean always_tables,
    GError ** error)
{
  gsize total = 0;

  for (guint i = 0; i < n_batches; i++) {
    PatchBatch *b = batches[i];
    b->tables = cuda->maps_host_memory && (always_tables
        || b->n > CUDACONV_PARAMETER_PATCHES);
    b->launches = 0;
    if (!b->tables)
      continue;
    for (guint k = 0; k < b->n; k += CC_MAX_TABLE_PATCHES) {
      const int m = (int) MIN (b->n - k, CC_MAX_TABLE_PATCHES);
      if (b->launches == b->launches_size) {
        b->launches_size = MAX (4, 2 * b->launches_size);
        b->table = g_renew (gpointer, b->table, b->launches_size);
        b->table_bytes = g_renew (gsize, b->table_bytes, b->launches_size);
      }
      b->table_bytes[b->launches] =
          GST_ROUND_UP_16 (cc_cuda_patch_table_bytes (&b->patches[k], m));
      /* 0: patches no table can hold, which the launch refuses */
      total += b->table_bytes[b->launches++];
    }
  }
  if (total && !cudaconv_cuda_slot_patch_tables_reserve (slot, total, error))
    return FALSE;
  for (guint i = 0; i < n_batches; i++)
    for (guint l = 0; l < batches[i]->launches; l++)
      batches[i]->table[l] = batches[i]->table_bytes[l] ?
          cudaconv_cuda_slot_patch_table (slot, batches[i]->table_bytes[l]) :
          NULL;
  return TRUE;
}

/* The batch's copies queued on the slot's stream */
static gboolean
batch_queue (const FrameSlot * slot, const PatchBatch * b, CcBorder border,
    CcPatchWide wide, GError ** error)
{
  const guint most = b->tables ? CC_MAX_TABLE_PATCHES : CC_MAX_PATCHES;

  for (guint k = 0, l = 0; k < b->n; k += most, l++) {
    const int m = (int) MIN (b->n - k, most);
    if (!CUDACONV_CHECK (b->tables ? cc_cuda_copy_patch_table (&b->patches[k],
                m, border, wide, b->table[l], b->table_bytes[l],
                slot->stream) : cc_cuda_copy_patches (&b->patches[k], m,
                border, wide, slot->stream), error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
piece_copy (gpointer ctx, guint n, const CcComponent * from,
    const CcComponent * to, GError ** error)
{
  PieceContext *pc = ctx;
  PatchBatch b = { 0 };
  PatchBatch *batches[] = { &b };
  CcPatch *patches = batch_add (&b, n);
  gboolean ok;

  for (guint i = 0; i < n; i++)
    patches[i] = (CcPatch) {
    from[i], 0, 0, from[i].width, from[i].height, to[i]};
  ok = batches_reserve (pc->cuda, pc->slot, batches, 1, FALSE, error)
      && batch_queue (pc->slot, &b, CC_BORDER_CLAMP, CC_PATCH_WIDE_DST, error);
  batch_clear (&b);
  return ok;
}

static gpointer
piece_scratch (gpointer ctx, gsize bytes, GError ** error)
{
  FrameSlot *slot = ((PieceContext *) ctx)->slot;

  if (!cudaconv_cuda_slot_grow (&slot->scratch, &slot->scratch_size, bytes,
          error))
    return NULL;
  return slot->scratch;
}

/* 16-byte rows keep the windows' rows aligned for the vector paths; the
 * windows go one by one, each a launch on the slot's stream */
static const CudaConvPieceOps piece_ops = {
  piece_convolve, piece_fill, piece_copy, piece_scratch, 16, NULL
};

/* Filters (or fills) every component of plane p that the plan processes,
 * from dp's input plane into its output plane. */
static gboolean
plane_kernels (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    guint p, const DevicePlane * dp, GError ** error)
{
  const CudaConvPlan *plan = &slot->plan;
  const CudaConvPlaneLayout *pl = &cuda->layout->planes[p];
  PieceContext ctx = { cuda, slot, job };

  for (gint i = 0; i < pl->n_components; i++) {
    const gint c = pl->components[i];
    CcComponent s[CUDACONV_MAX_PARTS], d[CUDACONV_MAX_PARTS];
    guint n;

    if (plan->action[c] == CUDACONV_ACTION_COPY)
      continue;
    n = cudaconv_plan_parts (plan, c, dp->in, dp->in_pitch, s);
    cudaconv_plan_parts (plan, c, dp->out, dp->out_pitch, d);
    for (guint k = 0; k < n; k++) {
      gboolean ok;
      if (cudaconv_plan_has_regions (plan))
        ok = cudaconv_pieces_run (&piece_ops, &ctx, job, c, k, &s[k], &d[k],
            error);
      else if (plan->action[c] == CUDACONV_ACTION_FILL)
        ok = piece_fill (&ctx, &d[k], plan->fill_value[c], error);
      else
        ok = cudaconv_cuda_run_component (cuda, slot, c, &s[k], &d[k],
            job->filter, job->border, TRUE, error);
      if (!ok)
        return FALSE;
    }
  }
  return TRUE;
}

/* Where only the regions travel: what the rects' rows hold between their
 * components' samples (other components, padding) leaves as it came. */
static gboolean
copy_written_bytes (FrameSlot * slot, guint p, GError ** error)
{
  const DevicePlane *dp = &slot->bound[p];
  guint n;
  const CudaConvByteBox *boxes = cudaconv_coverage_boxes (slot->coverage, p,
      &n);

  for (guint k = 0; k < n; k++) {
    const GstVideoRectangle *b = &boxes[k].written;
    if (!CUDACONV_CHECK (cudaconv_cuda_copy_box (dp->out, dp->out_pitch,
                dp->in, dp->in_pitch, b, cudaMemcpyDeviceToDevice,
                slot->stream), error))
      return FALSE;
  }
  return TRUE;
}

/* The kernels' name for a word-packed format */
static CcWordLayout
word_layout (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_v210:
      return CC_WORD_V210;
    case GST_VIDEO_FORMAT_Y410:
      return CC_WORD_Y410;
    case GST_VIDEO_FORMAT_RGB10A2_LE:
      return CC_WORD_RGB10A2;
    default:
      return CC_WORD_BGR10A2;
  }
}

/* The packed frame unpacked into the twin's input planes (to_planes), or
 * the twin's output planes packed. */
static gboolean
convert_word_packed (CudaBackend * cuda, FrameSlot * slot,
    gboolean to_planes, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (&layout->info);
  void *planes[4];
  size_t pitches[4];
  gint comps[4];

  cudaconv_word_packed_components (format, comps);
  for (gint k = 0; k < 4; k++) {
    const DevicePlane *dp;
    if (comps[k] < 0) {
      planes[k] = NULL;
      pitches[k] = 0;
      continue;
    }
    dp = &slot->bound[GST_VIDEO_INFO_COMP_PLANE (&layout->work_info,
            comps[k])];
    planes[k] = to_planes ? dp->in : dp->out;
    pitches[k] = to_planes ? dp->in_pitch : dp->out_pitch;
  }
  return CUDACONV_CHECK (cc_cuda_word_packed_convert (word_layout (format),
          to_planes, to_planes ? slot->packed_in : slot->packed_out,
          GST_VIDEO_INFO_PLANE_STRIDE (&layout->info, 0),
          GST_VIDEO_INFO_WIDTH (&layout->info), layout->caps_planes[0].rows,
          planes, pitches, slot->stream), error);
}

/* Every plane's device work: a plane the actions do not write whole is
 * first copied into the output (not in place, where the output holds the
 * input already, but for the word-packed twin's planes, which are the
 * slot's own; not a host frame's plane that no kernel writes, which the
 * download stage copies on the host), then its components' kernels. */
static gboolean compute_stacks (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error);

static gboolean
compute_planes (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const CudaFrameRoute *route = &slot->route;
  const gboolean twin = route->path == CUDA_PATH_WORD_PACKED;
  const gboolean host_frames = !cuda->in_device && !cuda->out_device;

  if (twin && !convert_word_packed (cuda, slot, TRUE, error))
    return FALSE;
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlanePlan *pp = &slot->plan.planes[p];
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    const DevicePlane *dp = &slot->bound[p];

    if (route->path == CUDA_PATH_REGIONS_STAGED) {
      if (pp->process && !copy_written_bytes (slot, p, error))
        return FALSE;
    } else if ((!pp->process || pp->copy_first) && (twin || !route->in_place)
        && (pp->process || twin || !host_frames)
        && !CUDACONV_CHECK (cudaMemcpy2DAsync (dp->out, dp->out_pitch,
                dp->in, dp->in_pitch, pl->row_bytes, pl->rows,
                cudaMemcpyDeviceToDevice, slot->stream), error)) {
      return FALSE;
    }
    if (pp->process && !route->stacks
        && !plane_kernels (cuda, slot, job, p, dp, error))
      return FALSE;
  }
  if (route->stacks)
    return compute_stacks (cuda, slot, job, error);
  return !twin || convert_word_packed (cuda, slot, FALSE, error);
}

/* The stack of one component part: every piece's window, its bounds grown
 * by the reach on all sides (what lies beyond the part made up by the
 * border policy as it is gathered), stacked one under the other, so that
 * one filter launch covers them all. A rect's outputs read only its own
 * window, so the neighbours in the stack change nothing it keeps; and so
 * the stacks of parts whose samples and reach are alike (the planes of
 * I420 under one filter) lie one under the other in a group, which one
 * launch filters. */
typedef struct {
  gint comp;
  CcComponent part_in, part_out;        /* where the frames are */
  const CudaConvPiece *pieces;
  guint n;
  gint reach, width, height;    /* the stack's samples */
  /* the part filtered whole into the scratch from offset, its writes
   * taken from there: where the windows with their reach hold as many
   * samples as the part (crowds of overlapping boxes), a stack would cost
   * more than the part's own filter */
  gboolean whole;
  gsize offset, pitch;
  guint group;                  /* NO_GROUP where whole */
  gint row;                     /* the stack's first row in its group */
} Stack;

#define NO_GROUP G_MAXUINT
#define MAX_STACKS (GST_VIDEO_MAX_COMPONENTS * CUDACONV_MAX_PARTS)

typedef struct {
  guint first;                  /* its first stack */
  gint width, height;
  gsize pitch, offset;          /* in the slot's scratch, twice: in, out */
} StackGroup;

/* A part the plan fills, left to the pieces routine */
typedef struct {
  gint comp;
  guint part;
  CcComponent s, d;
} FilledPart;

/* A frame filtered as stacks, laid out by the host before any of its work
 * is queued (cudaconv_cuda_compute_prepare): its stacks and groups in the
 * slot's scratch, and the patches that gather the windows and scatter the
 * writes. Queued from this, the compute stage allocates nothing and waits
 * for nothing, so a frame graph can capture it. */
struct CudaStackFrame {
  Stack stacks[MAX_STACKS];
  StackGroup groups[MAX_STACKS];
  FilledPart filled[MAX_STACKS];
  guint n, n_groups, n_filled;
  PatchBatch gather, scatter;
};

void
cudaconv_cuda_stack_frame_free (CudaStackFrame * frame)
{
  if (!frame)
    return;
  batch_clear (&frame->gather);
  batch_clear (&frame->scatter);
  g_free (frame);
}

/* Whether two stacks can share a launch: the same samples and reach */
static gboolean
stacks_alike (const Stack * a, const Stack * b)
{
  return a->part_in.sample == b->part_in.sample
      && a->part_in.depth == b->part_in.depth
      && a->part_in.shift == b->part_in.shift && a->reach == b->reach;
}

/* The group's input (in) or filtered output in the slot's scratch: from
 * its row row on, rows of them */
static CcComponent
group_component (const FrameSlot * slot, const StackGroup * g,
    const Stack * like, gboolean in, gint row, gint rows)
{
  CcComponent c = like->part_in;

  c.data = (guint8 *) slot->scratch + g->offset +
      (in ? 0 : g->pitch * g->height) + (gsize) row * g->pitch;
  c.pitch = g->pitch;
  c.width = g->width;
  c.height = rows;
  c.pixel_stride = 1;
  return c;
}

/* The stack's input (in) or filtered output in the slot's scratch */
static CcComponent
stack_component (const FrameSlot * slot, const StackGroup * groups,
    const Stack * st, gboolean in)
{
  return group_component (slot, &groups[st->group], st, in, st->row,
      st->height);
}

/* A whole part's filtered samples in the slot's scratch */
static CcComponent
whole_component (const FrameSlot * slot, const Stack * st)
{
  CcComponent c = st->part_in;

  c.data = (guint8 *) slot->scratch + st->offset;
  c.pitch = st->pitch;
  c.pixel_stride = 1;
  return c;
}

/* The patches of one kind of every stack: gathering the windows into the
 * stacks, or scattering the writes out of the filtered stacks (or of the
 * whole parts' filtered samples). */
static void
add_stack_patches (const FrameSlot * slot, const CudaStackFrame * sf,
    gboolean gather, PatchBatch * b)
{
  const CudaConvCoverage *coverage = slot->coverage;

  b->n = 0;
  for (guint m = 0; m < sf->n; m++) {
    const Stack *st = &sf->stacks[m];
    const CcComponent stacked = st->whole ? whole_component (slot, st) :
        stack_component (slot, sf->groups, st, gather);
    const gint r = st->reach;
    gint row = 0;

    /* a whole part has nothing to gather: its filter read the part */
    if (gather && st->whole)
      continue;
    for (guint k = 0; k < st->n; k++) {
      const CudaConvPiece *piece = &st->pieces[k];
      const GstVideoRectangle *bounds = &piece->bounds;

      if (gather) {
        CcPatch *p = batch_add (b, 1);
        p->src = st->part_in;
        p->x = bounds->x - r;
        p->y = bounds->y - r;
        p->width = bounds->w + 2 * r;
        p->height = bounds->h + 2 * r;
        p->dst = stacked;
        p->dst.data = (guint8 *) stacked.data + (gsize) row * stacked.pitch;
      } else {
        CcPatch *p = batch_add (b, piece->n_writes);
        for (guint w = 0; w < piece->n_writes; w++, p++) {
          const GstVideoRectangle *rect =
              &coverage->writes[piece->first_write + w];
          p->src = stacked;
          p->x = st->whole ? rect->x : r + rect->x - bounds->x;
          p->y = st->whole ? rect->y : row + r + rect->y - bounds->y;
          p->width = rect->w;
          p->height = rect->h;
          p->dst = cudaconv_component_sub (&st->part_out, rect);
        }
      }
      row += bounds->h + 2 * r;
    }
  }
}

/* Lays out the frame's stacks: every filtered component part's pieces
 * (the planes where the frames are on the mapped path, host memory the
 * device maps, else the device planes the slot bound: device memory, or
 * the copies of host planes), a stack each, the alike ones in groups; the
 * slot's scratch and workspace grown for them, and the patches made.
 * *untimed: a whole part's strategy would be timed first. */
static gboolean
prepare_stacks (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    gboolean * untimed, GError ** error)
{
  const CudaConvLayout *layout = cuda->layout;
  const CudaConvPlan *plan = &slot->plan;
  const gboolean mapped = slot->route.path == CUDA_PATH_REGIONS_MAPPED;
  GstVideoFrame *in = &slot->in, *out = &slot->out;
  CudaStackFrame *sf;
  PatchBatch *batches[2];
  gsize need = 0, workspace = 0;

  if (!slot->stack_frame)
    slot->stack_frame = g_new0 (CudaStackFrame, 1);
  sf = slot->stack_frame;
  sf->n = sf->n_groups = sf->n_filled = 0;
  for (guint p = 0; p < layout->n_planes; p++) {
    const CudaConvPlaneLayout *pl = &layout->planes[p];
    if (!plan->planes[p].process)
      continue;
    for (gint i = 0; i < pl->n_components; i++) {
      const gint c = pl->components[i];
      CcComponent s[CUDACONV_MAX_PARTS], d[CUDACONV_MAX_PARTS];
      guint parts;

      if (plan->action[c] == CUDACONV_ACTION_COPY)
        continue;
      parts = cudaconv_plan_parts (plan, c, mapped ?
          GST_VIDEO_FRAME_PLANE_DATA (in, p) : slot->bound[p].in, mapped ?
          (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (in, p) :
          slot->bound[p].in_pitch, s);
      cudaconv_plan_parts (plan, c, mapped ?
          GST_VIDEO_FRAME_PLANE_DATA (out, p) : slot->bound[p].out, mapped ?
          (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (out, p) :
          slot->bound[p].out_pitch, d);
      for (guint k = 0; k < parts; k++) {
        Stack *st = &sf->stacks[sf->n];
        st->comp = c;
        st->part_in = s[k];
        st->part_out = d[k];
        st->pieces = cudaconv_coverage_pieces (slot->coverage, c, k, &st->n);
        if (st->n == 0)
          continue;
        /* the pieces routine fills the writes */
        if (plan->action[c] == CUDACONV_ACTION_FILL) {
          sf->filled[sf->n_filled++] = (FilledPart) {
          c, k, s[k], d[k]};
          continue;
        }
        st->reach = st->pieces[0].reach;
        st->width = st->height = 0;
        for (guint j = 0; j < st->n; j++) {
          st->width = MAX (st->width, st->pieces[j].bounds.w + 2 * st->reach);
          st->height += st->pieces[j].bounds.h + 2 * st->reach;
        }
        /* the device's own planes only: on the mapped path the part's
         * filter would read all of it over the bus */
        st->whole = !mapped && (gint64) st->width * st->height >=
            (gint64) s[k].width * s[k].height;
        if (st->whole) {
          st->group = NO_GROUP;
          if (cudaconv_cuda_strategy_untimed_part (cuda, &st->part_in,
                  job->filter, job->border))
            *untimed = TRUE;
          workspace = MAX (workspace, cc_cuda_workspace_bytes (&st->part_in,
                  job->filter));
          sf->n++;
          continue;
        }
        /* under the alike stacks before it, else a group of its own */
        st->group = 0;
        while (st->group < sf->n_groups
            && !stacks_alike (&sf->stacks[sf->groups[st->group].first], st))
          st->group++;
        if (st->group == sf->n_groups) {
          sf->groups[sf->n_groups].first = sf->n;
          sf->groups[sf->n_groups].width = sf->groups[sf->n_groups].height = 0;
          sf->n_groups++;
        }
        st->row = sf->groups[st->group].height;
        sf->groups[st->group].height += st->height;
        sf->groups[st->group].width = MAX (sf->groups[st->group].width,
            st->width);
        sf->n++;
      }
    }
  }
  if (sf->n == 0)
    return TRUE;
  for (guint g = 0; g < sf->n_groups; g++) {
    StackGroup *group = &sf->groups[g];

    group->pitch = GST_ROUND_UP_16 ((gsize) group->width *
        sf->stacks[group->first].part_in.sample);
    group->offset = need;
    need += 2 * group->pitch * group->height;
  }
  for (guint m = 0; m < sf->n; m++)
    if (sf->stacks[m].whole) {
      sf->stacks[m].pitch = GST_ROUND_UP_16 ((gsize)
          sf->stacks[m].part_in.width * sf->stacks[m].part_in.sample);
      sf->stacks[m].offset = need;
      need += sf->stacks[m].pitch * sf->stacks[m].part_in.height;
    }
  if (!cudaconv_cuda_slot_grow (&slot->scratch, &slot->scratch_size, need,
          error))
    return FALSE;
  for (guint g = 0; g < sf->n_groups; g++) {
    const CcComponent group_in = group_component (slot, &sf->groups[g],
        &sf->stacks[sf->groups[g].first], TRUE, 0, sf->groups[g].height);
    workspace = MAX (workspace, cc_cuda_workspace_bytes (&group_in,
            job->filter));
  }
  if (!cudaconv_cuda_slot_grow (&slot->workspace, &slot->workspace_bytes,
          workspace, error))
    return FALSE;
  /* the patches point into the scratch as it now is */
  add_stack_patches (slot, sf, TRUE, &sf->gather);
  add_stack_patches (slot, sf, FALSE, &sf->scatter);
  batches[0] = &sf->gather;
  batches[1] = &sf->scatter;
  /* a replayed frame's patches come from tables, whose place stays from
   * frame to frame: the frames' addresses are not in its launches */
  return batches_reserve (cuda, slot, batches, 2, slot->route.replay, error);
}

/* Frames filtered inside their regions, as prepare_stacks laid them out:
 * the windows gathered into their stacks, each group of stacks filtered
 * in one launch (and each whole part on its own), the writes scattered
 * into the output (already a copy of the input where it is not the
 * input). */
static gboolean
compute_stacks (CudaBackend * cuda, FrameSlot * slot, const CudaConvJob * job,
    GError ** error)
{
  const CudaStackFrame *sf = slot->stack_frame;
  PieceContext ctx = { cuda, slot, job };

  if (!sf)
    return TRUE;
  for (guint f = 0; f < sf->n_filled; f++) {
    const FilledPart *fp = &sf->filled[f];
    if (!cudaconv_pieces_run (&piece_ops, &ctx, job, fp->comp, fp->part,
            &fp->s, &fp->d, error))
      return FALSE;
  }
  if (sf->n == 0)
    return TRUE;
  if (!batch_queue (slot, &sf->gather, job->border, CC_PATCH_WIDE_SRC, error))
    return FALSE;
  for (guint m = 0; m < sf->n; m++) {
    const Stack *st = &sf->stacks[m];
    CcComponent filtered;

    if (!st->whole)
      continue;
    filtered = whole_component (slot, st);
    if (!cudaconv_cuda_run_component (cuda, slot, st->comp, &st->part_in,
            &filtered, job->filter, job->border, TRUE, error))
      return FALSE;
  }
  for (guint g = 0; g < sf->n_groups; g++) {
    const Stack *first = &sf->stacks[sf->groups[g].first];
    const CcComponent group_in = group_component (slot, &sf->groups[g], first,
        TRUE, 0, sf->groups[g].height);
    const CcComponent group_out = group_component (slot, &sf->groups[g],
        first, FALSE, 0, sf->groups[g].height);
    if (!cudaconv_cuda_run_component (cuda, slot, first->comp, &group_in,
            &group_out, job->filter, job->border, FALSE, error))
      return FALSE;
    /* the group's other components ran the family that the first did */
    for (guint m = sf->groups[g].first + 1; m < sf->n; m++)
      if (sf->stacks[m].group == g)
        cudaconv_cuda_strategy_same_family (cuda, sf->stacks[m].comp,
            first->comp);
  }
  return batch_queue (slot, &sf->scatter, job->border, CC_PATCH_WIDE_DST,
      error);
}

gboolean
cudaconv_cuda_compute_prepare (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error)
{
  gboolean untimed = FALSE;

  if (slot->route.stacks) {
    if (!prepare_stacks (cuda, slot, job, &untimed, error))
      return FALSE;
    /* a filled part's launches take the frame's own planes as their
     * arguments, which a replay would set anew on every frame */
    slot->capturable = !untimed && slot->stack_frame->n_filled == 0;
  } else {
    slot->capturable = slot->route.path != CUDA_PATH_KERNELS
        || !cudaconv_cuda_strategy_untimed (cuda, slot, job);
  }
  return TRUE;
}

gboolean
cudaconv_cuda_compute (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, GError ** error)
{
  if (slot->route.path == CUDA_PATH_REGIONS_MAPPED)
    return compute_stacks (cuda, slot, job, error);
  return compute_planes (cuda, slot, job, error);
}

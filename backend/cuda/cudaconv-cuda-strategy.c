/* cudaconv: the one place that decides which strategy a kernel runs on the
 * CUDA back end, for whole parts, windows and stacks of them alike, and the
 * only caller of cc_cuda_fastest_strategy (see
 * cudaconv-cuda-backend-private.h). The kernels' own selector,
 * cc_cuda_select_family, then picks the family within the strategy. */
#include "config.h"

#include <string.h>

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

void
cudaconv_cuda_strategy_reset (StrategyChoice * choice)
{
  memset (choice, 0, sizeof (*choice));
  for (guint c = 0; c < GST_VIDEO_MAX_COMPONENTS; c++)
    choice->families[c] = -1;
}

/* the strategy property's nick for the value */
static const gchar *
strategy_name (CcStrategy strategy)
{
  static const gchar *const names[] = { "auto", "tiled-halo", "cache-halo",
    "separable"
  };

  return (guint) strategy < G_N_ELEMENTS (names) ? names[strategy] : "?";
}

static void
log_timings (const CcComponent * s, const CcFilter * filter,
    const float ms[CC_N_FAMILIES], CcStrategy fastest)
{
  GString *times;

  if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) < GST_LEVEL_INFO)
    return;
  times = g_string_new (NULL);
  for (gint f = 0; f < CC_N_FAMILIES; f++)
    if (ms[f] >= 0.0f)
      g_string_append_printf (times, " %s %.4f ms,",
          cc_family_name ((CcFamily) f), ms[f]);
  GST_INFO ("strategy for %dx%d (stride %d, %d-bit), radius %d%s:%s "
      "fastest: %s", s->width, s->height, s->pixel_stride,
      8 * (int) s->sample, filter->radius,
      cc_filter_is_separable (filter) ? " separable" : "", times->str,
      strategy_name (fastest));
  g_string_free (times, TRUE);
}

/* The key the timings of filter under border were made for */
static TuneKey
tune_key (const CcFilter * filter, CcBorder border)
{
  const TuneKey key = { filter->radius, filter->shape, filter->response,
    cc_filter_is_separable (filter), border
  };

  return key;
}

/* The strategy timed for this key and geometry, or NULL */
static const Tuned *
lookup (const StrategyChoice * choice, const TuneKey * key,
    const CcComponent * s)
{
  if (memcmp (key, &choice->key, sizeof (*key)) != 0)
    return NULL;
  for (guint i = 0; i < choice->n_tuned; i++) {
    const Tuned *t = &choice->tuned[i];
    if (t->width == s->width && t->height == s->height
        && t->pixel_stride == s->pixel_stride && t->sample == s->sample)
      return t;
  }
  return NULL;
}

/* strategy=auto: the fastest strategy for this component's geometry and
 * this filter's shape, timed on the device once and then remembered (for
 * the wide shapes, which have one family each, answered without timing). */
static gboolean
fastest_strategy (StrategyChoice * choice, FrameSlot * slot,
    const CcComponent * s, const CcComponent * d, const CcFilter * filter,
    CcBorder border, CcStrategy * strategy, GError ** error)
{
  const TuneKey key = tune_key (filter, border);
  const Tuned *known = lookup (choice, &key, s);
  float ms[CC_N_FAMILIES];

  if (known) {
    *strategy = known->strategy;
    return TRUE;
  }
  if (memcmp (&key, &choice->key, sizeof (key)) != 0) {
    choice->key = key;
    choice->n_tuned = 0;
  }
  if (!CUDACONV_CHECK (cc_cuda_fastest_strategy (s, d, filter, border,
              slot->workspace, slot->workspace_bytes, slot->stream,
              strategy, ms), error))
    return FALSE;
  log_timings (s, filter, ms, *strategy);
  if (choice->n_tuned < CUDACONV_MAX_TUNED) {
    const Tuned t = { s->width, s->height, s->pixel_stride, s->sample,
      *strategy
    };
    choice->tuned[choice->n_tuned++] = t;
  }
  return TRUE;
}

/* A filter's strategy where nothing is timed: its factors where it has
 * them, else tiled-halo (the wide shapes run their own families whatever
 * it is). The element said on the bus that strategy=separable falls back
 * so. */
static CcStrategy
untimed_strategy (const CcFilter * filter)
{
  return cc_filter_is_separable (filter) ? CC_STRATEGY_SEPARABLE :
      CC_STRATEGY_TILED_HALO;
}

gboolean
cudaconv_cuda_run_component (CudaBackend * cuda, FrameSlot * slot, gint comp,
    const CcComponent * src, const CcComponent * dst, const CcFilter * filter,
    CcBorder border, gboolean whole, GError ** error)
{
  StrategyChoice *choice = &cuda->choice;
  CcStrategy strategy = cuda->options.strategy;
  CcFamily family;

  if (strategy == CC_STRATEGY_SEPARABLE
      || (strategy == CC_STRATEGY_AUTO && !whole))
    strategy = untimed_strategy (filter);
  else if (strategy == CC_STRATEGY_AUTO
      && !fastest_strategy (choice, slot, src, dst, filter, border,
          &strategy, error))
    return FALSE;
  /* a whole part's input came by a copy, and the kernels before this one
   * on the stream write other planes or other rows; a window's or stack's
   * may be what the kernel before wrote */
  if (!CUDACONV_CHECK (cc_cuda_convolve (src, dst, filter, border, strategy,
              slot->workspace, slot->workspace_bytes, slot->stream,
              whole ? CC_LAUNCH_SRC_READY : CC_LAUNCH_DEFAULT, &family),
          error))
    return FALSE;
  if (choice->families[comp] != (gint) family) {
    choice->families[comp] = family;
    choice->families_changed = TRUE;
  }
  return TRUE;
}

void
cudaconv_cuda_strategy_same_family (CudaBackend * cuda, gint comp, gint like)
{
  StrategyChoice *choice = &cuda->choice;

  if (choice->families[comp] != choice->families[like]) {
    choice->families[comp] = choice->families[like];
    choice->families_changed = TRUE;
  }
}

gboolean
cudaconv_cuda_strategy_untimed_part (CudaBackend * cuda,
    const CcComponent * src, const CcFilter * filter, CcBorder border)
{
  const TuneKey key = tune_key (filter, border);

  return cuda->options.strategy == CC_STRATEGY_AUTO
      && !lookup (&cuda->choice, &key, src);
}

gboolean
cudaconv_cuda_strategy_untimed (CudaBackend * cuda, const FrameSlot * slot,
    const CudaConvJob * job)
{
  const CudaConvPlan *plan = &slot->plan;

  for (guint p = 0; p < cuda->layout->n_planes; p++) {
    const CudaConvPlaneLayout *pl = &cuda->layout->planes[p];
    for (gint i = 0; i < pl->n_components; i++) {
      const gint c = pl->components[i];
      CcComponent parts[CUDACONV_MAX_PARTS];
      const guint n = cudaconv_plan_parts (plan, c, slot->bound[p].in,
          slot->bound[p].in_pitch, parts);
      if (plan->action[c] != CUDACONV_ACTION_FILTER)
        continue;
      for (guint k = 0; k < n; k++)
        if (cudaconv_cuda_strategy_untimed_part (cuda, &parts[k], job->filter,
                job->border))
          return TRUE;
    }
  }
  return FALSE;
}

gchar *
cudaconv_cuda_strategy_take_report (CudaBackend * cuda)
{
  StrategyChoice *choice = &cuda->choice;
  GString *report;

  if (!choice->families_changed)
    return NULL;
  choice->families_changed = FALSE;
  report = g_string_new (NULL);
  for (guint c = 0; c < GST_VIDEO_MAX_COMPONENTS; c++)
    if (choice->families[c] >= 0)
      g_string_append_printf (report, "%scomponent %u (plane %u): %s",
          report->len ? "; " : "", c,
          GST_VIDEO_INFO_COMP_PLANE (&cuda->layout->work_info, c),
          cc_family_name ((CcFamily) choice->families[c]));
  return g_string_free (report, FALSE);
}

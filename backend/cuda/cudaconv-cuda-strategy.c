/* cudaconv: the one place that decides which strategy a component runs on
 * the CUDA back end, and the only caller of cc_cuda_fastest_strategy
 * (see cudaconv-cuda-backend-private.h). The kernels' own selector,
 * cc_cuda_select_family, then picks the family within the strategy. */
#include "config.h"

#include <string.h>

#include "cudaconv-cuda-backend-private.h"
#include "cudaconv-cuda-check.h"
#include "gstcudaconv-enums.h"

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
  GEnumClass *strategies = g_type_class_ref (GST_TYPE_CUDACONV_STRATEGY);
  const GEnumValue *value = g_enum_get_value (strategies, strategy);

  g_type_class_unref (strategies);
  return value ? value->value_nick : "?";
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

/* strategy=auto: the fastest strategy for this component's geometry and
 * this filter's shape, timed on the device once and then remembered (for
 * the wide shapes, which have one family each, answered without timing). */
static gboolean
fastest_strategy (StrategyChoice * choice, FrameSlot * slot,
    const CudaConvJob * job, const CcComponent * s, const CcComponent * d,
    CcStrategy * strategy, GError ** error)
{
  const CcFilter *filter = job->filter;
  const TuneKey key = { filter->radius, filter->shape, filter->response,
    cc_filter_is_separable (filter), job->border
  };
  float ms[CC_N_FAMILIES];

  if (memcmp (&key, &choice->key, sizeof (key)) != 0) {
    choice->key = key;
    choice->n_tuned = 0;
  }
  for (guint i = 0; i < choice->n_tuned; i++) {
    const Tuned *t = &choice->tuned[i];
    if (t->width == s->width && t->height == s->height
        && t->pixel_stride == s->pixel_stride && t->sample == s->sample) {
      *strategy = t->strategy;
      return TRUE;
    }
  }
  /* the tuner launches and waits on its stream, which a frame whose
   * launches go into a graph may not (cudaconv-cuda-graph.c): that frame
   * is launched without its graph */
  if (slot->graph_open) {
    slot->wants_tuning = TRUE;
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "no strategy timed yet for %dx%d", s->width, s->height);
    return FALSE;
  }
  if (!CUDACONV_CHECK (cc_cuda_fastest_strategy (s, d, filter, job->border,
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

/* The strategy this component runs: the fastest for auto; separable runs
 * tiled-halo on a filter without factors (the element has said so on the
 * bus); the others as asked. */
static gboolean
choose_strategy (StrategyChoice * choice, FrameSlot * slot,
    const CudaConvJob * job, const CcComponent * s, const CcComponent * d,
    CcStrategy * strategy, GError ** error)
{
  switch (job->strategy) {
    case CC_STRATEGY_AUTO:
      return fastest_strategy (choice, slot, job, s, d, strategy, error);
    case CC_STRATEGY_SEPARABLE:
      *strategy = cc_filter_is_separable (job->filter) ?
          CC_STRATEGY_SEPARABLE : CC_STRATEGY_TILED_HALO;
      return TRUE;
    default:
      *strategy = job->strategy;
      return TRUE;
  }
}

gboolean
cudaconv_cuda_run_component (CudaBackend * cuda, FrameSlot * slot,
    const CudaConvJob * job, gint comp, const CcComponent * src,
    const CcComponent * dst, GError ** error)
{
  StrategyChoice *choice = &cuda->choice;
  CcStrategy strategy;
  CcFamily family;

  if (slot->plan.action[comp] == CUDACONV_ACTION_FILL)
    return CUDACONV_CHECK (cc_cuda_fill (dst,
            slot->plan.fill_value[comp], slot->stream), error);
  if (!choose_strategy (choice, slot, job, src, dst, &strategy, error))
    return FALSE;
  /* the frame's input came by a copy, and the kernels before this one on
   * the stream write other planes or other rows */
  if (!CUDACONV_CHECK (cc_cuda_convolve (src, dst, job->filter, job->border,
              strategy, slot->workspace, slot->workspace_bytes,
              slot->stream, CC_LAUNCH_SRC_READY, &family), error))
    return FALSE;
  if (choice->families[comp] != (gint) family) {
    choice->families[comp] = family;
    choice->families_changed = TRUE;
  }
  return TRUE;
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

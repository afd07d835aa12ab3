/* cudaconv element tests: two GPUs or more. device-id=1 on the second
 * device, both devices side by side, frames handed from one to the other
 * in CUDA memory, and pipelines of device-id=-1 spread over the devices.
 * Built with ELEMENT_CUDA and ELEMENT_MULTI_GPU only; exits 77 with fewer
 * than two devices. */
#include "harness.h"
#include <cuda_runtime_api.h>

#if defined (ELEMENT_MULTI_GPU) && defined (HAVE_GST_CUDA)
/* Runs "videotestsrc ! tee name=t" + branches (each ends in an appsink
 * named in sinks) for frames frames of 98x67 I420 snow, and checks that
 * every sink after the first gets, frame by frame, what the first gets,
 * within one step. Returns the pipeline, still PLAYING. */
static GstElement *
run_branches (const gchar * branches, const gchar * const *sinks,
    gint frames)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=snow "
      "! video/x-raw,format=I420,width=98,height=67 ! tee name=t %s", frames,
      branches);
  GError *err = NULL;
  GstElement *pipeline = pipeline_launch (desc, &err);

  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s: cannot play", desc);
  for (gint n = 0; n < frames; n++) {
    GstSample *first = NULL;
    for (guint k = 0; sinks[k]; k++) {
      GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), sinks[k]);
      GstSample *sample = NULL;
      gchar *why = NULL;

      g_signal_emit_by_name (sink, "try-pull-sample", 10 * GST_SECOND,
          &sample);
      gst_object_unref (sink);
      fail_unless (sample != NULL, "%s: frame %d did not reach %s", desc, n,
          sinks[k]);
      if (!first) {
        first = sample;
        continue;
      }
      fail_unless (frames_within_one (sample, first, &why),
          "%s against %s, frame %d: %s", sinks[k], sinks[0], n, why);
      gst_sample_unref (sample);
    }
    gst_sample_unref (first);
  }
  g_free (desc);
  return pipeline;
}

/* Whether an INFO message on pipeline's bus mentions text */
static gboolean
bus_info_mentions (GstElement * pipeline, const gchar * text)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean found = FALSE;

  while (!found && (msg = gst_bus_pop_filtered (bus, GST_MESSAGE_INFO))) {
    GError *err = NULL;
    gst_message_parse_info (msg, &err, NULL);
    found = strstr (err->message, text) != NULL;
    g_error_free (err);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return found;
}

/* The device of the GstCudaContext element works in; -1 for none */
static gint
element_device (GstElement * pipeline, const gchar * name)
{
  GstElement *element = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstCudaContext *context = queried_cuda_context (element);
  guint device = 0;

  gst_object_unref (element);
  if (!context)
    return -1;
  g_object_get (context, "cuda-device-id", &device, NULL);
  gst_object_unref (context);
  return (gint) device;
}

static const gchar *gpu_and_cpu[] = { "cpu", "gpu", NULL };

/* device-id=1 filters on the second GPU, in system memory and in CUDA
 * memory of that device, and says so on the bus. */
GST_START_TEST (test_second_device)
{
  GstElement *pipeline = run_branches ("t. ! queue ! cudaconv name=g "
      "backend=cuda device-id=1 kernel=gaussian radius=2 ! video/x-raw ! "
      "appsink name=gpu sync=false "
      "t. ! queue ! cudaconv backend=cpu kernel=gaussian radius=2 ! "
      "appsink name=cpu sync=false", gpu_and_cpu, 3);

  fail_unless (bus_info_mentions (pipeline, "on device 1"),
      "no INFO naming device 1");
  fail_unless_equals_int (element_device (pipeline, "g"), 1);
  pipeline_stop (pipeline);
  gst_object_unref (pipeline);

  pipeline = run_branches ("t. ! queue ! cudaupload cuda-device-id=1 ! "
      "video/x-raw(memory:CUDAMemory) ! cudaconv name=g backend=cuda "
      "device-id=1 kernel=gaussian radius=2 ! video/x-raw(memory:CUDAMemory) "
      "! cudadownload ! video/x-raw ! appsink name=gpu sync=false "
      "t. ! queue ! cudaconv backend=cpu kernel=gaussian radius=2 ! "
      "appsink name=cpu sync=false", gpu_and_cpu, 3);
  fail_unless_equals_int (element_device (pipeline, "g"), 1);
  {
    GstElement *g = gst_bin_get_by_name (GST_BIN (pipeline), "g");
    fail_unless (pad_in_cuda_memory (g, "sink")
        && pad_in_cuda_memory (g, "src"), "not filtered in CUDA memory");
    gst_object_unref (g);
  }
  pipeline_stop (pipeline);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A tee into two branches, cudaconv on device 0 and on device 1: both
 * give what the CPU backend gives. */
GST_START_TEST (test_two_devices_side_by_side)
{
  static const gchar *sinks[] = { "cpu", "gpu0", "gpu1", NULL };
  GstElement *pipeline = run_branches ("t. ! queue ! cudaconv name=g0 "
      "backend=cuda device-id=0 kernel=gaussian radius=2 ! video/x-raw ! "
      "appsink name=gpu0 sync=false "
      "t. ! queue ! cudaconv name=g1 backend=cuda device-id=1 "
      "kernel=gaussian radius=2 ! video/x-raw ! appsink name=gpu1 sync=false "
      "t. ! queue ! cudaconv backend=cpu kernel=gaussian radius=2 ! "
      "appsink name=cpu sync=false", sinks, 3);

  fail_unless_equals_int (element_device (pipeline, "g0"), 0);
  fail_unless_equals_int (element_device (pipeline, "g1"), 1);
  pipeline_stop (pipeline);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* In series: frames uploaded to device 0 and filtered there, then handed
 * in CUDA memory of device 0 to cudaconv on device 1, which copies them
 * into its own (peer to peer where the GPUs allow it) and filters them:
 * what the CPU backend gives for both filters one after the other. */
GST_START_TEST (test_two_devices_in_series)
{
  GstElement *pipeline = run_branches ("t. ! queue ! cudaupload "
      "cuda-device-id=0 ! video/x-raw(memory:CUDAMemory) ! cudaconv name=g0 "
      "backend=cuda device-id=0 kernel=gaussian radius=1 ! "
      "video/x-raw(memory:CUDAMemory) ! cudaconv name=g1 backend=cuda "
      "device-id=1 kernel=gaussian radius=2 ! video/x-raw(memory:CUDAMemory) "
      "! cudadownload ! video/x-raw ! appsink name=gpu sync=false "
      "t. ! queue ! cudaconv backend=cpu kernel=gaussian radius=1 ! "
      "cudaconv backend=cpu kernel=gaussian radius=2 ! appsink name=cpu "
      "sync=false", gpu_and_cpu, 3);

  fail_unless_equals_int (element_device (pipeline, "g0"), 0);
  fail_unless_equals_int (element_device (pipeline, "g1"), 1);
  pipeline_stop (pipeline);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A pipeline of one cudaconv, named c, between videotestsrc and extra
 * (which ends in a sink) */
#define SPREAD_PIPELINE(extra) "videotestsrc ! video/x-raw,format=I420," \
  "width=64,height=48 ! cudaconv name=c backend=cuda kernel=gaussian " \
  "radius=1 ! " extra

/* description launched and prerolled in PAUSED, which starts its
 * elements; sync_handler, where set, sees its bus's messages first */
static GstElement *
start_paused (const gchar * description, GstBusSyncHandler sync_handler,
    gpointer handler_data)
{
  GError *err = NULL;
  GstElement *pipeline = pipeline_launch (description, &err);

  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  if (sync_handler) {
    GstBus *bus = gst_element_get_bus (pipeline);
    gst_bus_set_sync_handler (bus, sync_handler, handler_data, NULL);
    gst_object_unref (bus);
  }
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE, "%s: cannot pause", description);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL, 30 * GST_SECOND)
      == GST_STATE_CHANGE_SUCCESS, "%s: did not preroll", description);
  return pipeline;
}

static void
stop_and_free (GstElement * pipeline)
{
  pipeline_stop (pipeline);
  gst_object_unref (pipeline);
}

static gint
device_count (void)
{
  int count = 0;

  fail_unless (cudaGetDeviceCount (&count) == cudaSuccess);
  return count;
}

/* Eight pipelines of device-id=-1 in one process (two a device where
 * there are more than four GPUs), started one after the other, take the
 * least busy device in turn: two a device on four GPUs, an even share on
 * any number (counts within one of each other). Their
 * counts drop when they stop: a device emptied gets the next pipeline,
 * and with all stopped the turn starts again at device 0. */
GST_START_TEST (test_spread_over_devices)
{
  const gint n = device_count ();
  const gint n_spread = MAX (8, 2 * n);
  GstElement **pipelines = g_new0 (GstElement *, n_spread), *extra;
  gint *devices = g_new0 (gint, n_spread);
  gint *per_device = g_new0 (gint, n);
  gint fewest = n_spread, most = 0;

  for (gint i = 0; i < n_spread; i++) {
    gchar *on_device;

    pipelines[i] = start_paused (SPREAD_PIPELINE ("fakesink"), NULL, NULL);
    devices[i] = element_device (pipelines[i], "c");
    fail_unless (devices[i] >= 0 && devices[i] < n, "pipeline %d: on "
        "device %d of %d", i, devices[i], n);
    per_device[devices[i]]++;
    on_device = g_strdup_printf ("on device %d:", devices[i]);
    fail_unless (bus_info_mentions (pipelines[i], on_device),
        "pipeline %d: no INFO saying \"%s\"", i, on_device);
    g_free (on_device);
  }
  for (gint d = 0; d < n; d++) {
    fewest = MIN (fewest, per_device[d]);
    most = MAX (most, per_device[d]);
    fail_unless (per_device[d] >= n_spread / n, "device %d got %d of %d "
        "pipelines on %d devices", d, per_device[d], n_spread, n);
  }
  fail_unless (most - fewest <= 1, "%d to %d pipelines a device", fewest,
      most);
  /* one after the other, each takes the next device */
  for (gint i = 0; i < n_spread; i++)
    fail_unless_equals_int (devices[i], i % n);
  /* and the pipelines on one device share its CUDA context */
  for (gint i = n; i < n_spread; i++) {
    GstElement *a = gst_bin_get_by_name (GST_BIN (pipelines[i]), "c");
    GstElement *b = gst_bin_get_by_name (GST_BIN (pipelines[i - n]), "c");
    GstCudaContext *ca = queried_cuda_context (a);
    GstCudaContext *cb = queried_cuda_context (b);

    fail_unless (ca != NULL && ca == cb, "pipelines %d and %d on device %d "
        "do not share a CUDA context", i - n, i, devices[i]);
    gst_object_unref (ca);
    gst_object_unref (cb);
    gst_object_unref (a);
    gst_object_unref (b);
  }

  /* device 1 emptied: the least busy again */
  for (gint i = 0; i < n_spread; i++)
    if (devices[i] == 1) {
      stop_and_free (pipelines[i]);
      pipelines[i] = NULL;
    }
  extra = start_paused (SPREAD_PIPELINE ("fakesink"), NULL, NULL);
  fail_unless_equals_int (element_device (extra, "c"), 1);
  stop_and_free (extra);

  for (gint i = 0; i < n_spread; i++)
    if (pipelines[i])
      stop_and_free (pipelines[i]);
  pipelines[0] = start_paused (SPREAD_PIPELINE ("fakesink"), NULL, NULL);
  pipelines[1] = start_paused (SPREAD_PIPELINE ("fakesink"), NULL, NULL);
  fail_unless_equals_int (element_device (pipelines[0], "c"), 0);
  fail_unless_equals_int (element_device (pipelines[1], "c"), 1);
  stop_and_free (pipelines[0]);
  stop_and_free (pipelines[1]);
  g_free (per_device);
  g_free (devices);
  g_free (pipelines);
}

GST_END_TEST;

/* Answers the CUDA context's need-context with the GstCudaContext in
 * data, as an application sharing one context does. */
static GstBusSyncReply
give_cuda_context (GstBus * bus, GstMessage * msg, gpointer data)
{
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT
      && gst_message_parse_context_type (msg, &type)
      && g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) == 0) {
    GstContext *context = gst_context_new_cuda_context (data);
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), context);
    gst_context_unref (context);
  }
  return GST_BUS_PASS;
}

/* A pipeline that already has a CUDA context keeps its device, even the
 * busiest: one a neighbour made first (cudadownload starts before the
 * element upstream of it), and one the application gives when asked. */
GST_START_TEST (test_shared_context_keeps_its_device)
{
  GstElement *busy, *neighbour, *application, *free_to_choose;
  GstCudaContext *context;

  fail_unless (gst_cuda_load_library ());
  context = gst_cuda_context_new (0);
  fail_unless (context != NULL);

  busy = start_paused (SPREAD_PIPELINE ("fakesink"), NULL, NULL);
  fail_unless_equals_int (element_device (busy, "c"), 0);
  /* device 1 is now the least busy */
  neighbour = start_paused (SPREAD_PIPELINE ("cudadownload "
          "cuda-device-id=0 ! fakesink"), NULL, NULL);
  fail_unless_equals_int (element_device (neighbour, "c"), 0);
  application = start_paused (SPREAD_PIPELINE ("fakesink"),
      give_cuda_context, context);
  fail_unless_equals_int (element_device (application, "c"), 0);
  {
    GstElement *c = gst_bin_get_by_name (GST_BIN (application), "c");
    GstCudaContext *used = queried_cuda_context (c);
    fail_unless (used == context, "the application's context was not used");
    gst_object_unref (used);
    gst_object_unref (c);
  }
  free_to_choose = start_paused (SPREAD_PIPELINE ("fakesink"), NULL, NULL);
  fail_unless_equals_int (element_device (free_to_choose, "c"), 1);

  stop_and_free (free_to_choose);
  stop_and_free (application);
  stop_and_free (neighbour);
  stop_and_free (busy);
  gst_object_unref (context);
}

GST_END_TEST;

/* An element of device-id=0 counts there: the next of device-id=-1 goes
 * to device 1. */
GST_START_TEST (test_explicit_device_counts)
{
  GstElement *explicit = start_paused ("videotestsrc ! video/x-raw,"
      "format=I420,width=64,height=48 ! cudaconv name=c backend=cuda "
      "device-id=0 ! fakesink", NULL, NULL);
  GstElement *free_to_choose = start_paused (SPREAD_PIPELINE ("fakesink"),
      NULL, NULL);

  fail_unless_equals_int (element_device (explicit, "c"), 0);
  fail_unless_equals_int (element_device (free_to_choose, "c"), 1);
  stop_and_free (free_to_choose);
  stop_and_free (explicit);
}

GST_END_TEST;
#endif

static void
add_tests (TCase * tc)
{
#ifdef HAVE_GST_CUDA
  tcase_add_test (tc, test_second_device);
  tcase_add_test (tc, test_two_devices_side_by_side);
  tcase_add_test (tc, test_two_devices_in_series);
  tcase_add_test (tc, test_spread_over_devices);
  tcase_add_test (tc, test_shared_context_keeps_its_device);
  tcase_add_test (tc, test_explicit_device_counts);
#endif
}

const ElementTopic element_topic = { "multi-gpu", add_tests, NULL };

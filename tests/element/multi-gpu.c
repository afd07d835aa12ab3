/* cudaconv element tests: two GPUs. device-id=1 on the second device,
 * both devices side by side, and frames handed from one to the other in
 * CUDA memory. Built with ELEMENT_CUDA and ELEMENT_MULTI_GPU only; exits
 * 77 with fewer than two devices. */
#include "harness.h"

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
#endif

static void
add_tests (TCase * tc)
{
#ifdef HAVE_GST_CUDA
  tcase_add_test (tc, test_second_device);
  tcase_add_test (tc, test_two_devices_side_by_side);
  tcase_add_test (tc, test_two_devices_in_series);
#endif
}

const ElementTopic element_topic = { "multi-gpu", add_tests, NULL };

/* cudaconv element tests: properties. Changes while frames flow, from
 * other threads too, values refused (by the element on the bus or at
 * start, by GObject outside their ranges), numeric edges, a bounded fuzz,
 * a GstController animating them; with CUDA, device-id, the kernel
 * families a setting picks, and 64 elements with filters of their own in
 * one process. */
#include "harness.h"
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>

GST_START_TEST (test_property_change_mid_stream)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=33,height=17,"
      "framerate=30/1");
  TestMatrix a, b, box = { .side = 3 };

  matrix_random (&a, 3, FALSE);
  matrix_random (&b, 7, TRUE);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", a.text, NULL);
  push_and_check_gray (h, 33, 17, &a, "first matrix");
  g_object_set (h->element, "matrix", b.text, NULL);
  push_and_check_gray (h, 33, 17, &b, "second matrix");
  b.offset = 100.0;
  b.divisor = 7.0;
  g_object_set (h->element, "offset", 100.0, "divisor", 7.0, NULL);
  push_and_check_gray (h, 33, 17, &b, "divisor and offset");

  for (int k = 0; k < 9; k++)
    box.w[k] = 1.0;
  box.divisor = 9.0;
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "box");
  g_object_set (h->element, "radius", 1, "divisor", 0.0, "offset", 0.0, NULL);
  push_and_check_gray (h, 33, 17, &box, "box after custom");
  g_free (a.text);
  g_free (b.text);
  harness_teardown (h);
}

GST_END_TEST;

/* Radius changes from another thread while frames flow. */
GST_START_TEST (test_concurrent_property_changes)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=64,height=36,"
      "framerate=30/1");
  GValue radius = G_VALUE_INIT;
  GstHarnessThread *t;
  GstVideoInfo info;

  g_value_init (&radius, G_TYPE_INT);
  g_value_set_int (&radius, 4);
  t = gst_harness_stress_property_start_full (h, "radius", &radius, 100);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 36);
  for (int i = 0; i < 50; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h, random_frame (&info));
    fail_unless (out != NULL);
    gst_buffer_unref (out);
  }
  gst_harness_stress_thread_stop (t);
  g_value_unset (&radius);
  harness_teardown (h);
}

GST_END_TEST;

/* Values the element judges itself end in one ERROR naming the property
 * when it starts; nothing goes through g_warning (the check framework would
 * fail the test on one, as G_DEBUG=fatal-warnings aborts an application). */
GST_START_TEST (test_bad_values_on_command_line)
{
  static const gchar *cases[][2] = {
    {"kernel=custom matrix=\"1,2;3\"", "matrix"},
    {"matrix=\"1,2,3,4;1,2,3,4;1,2,3,4;1,2,3,4\"", "odd"},
    {"kernel=custom matrix=\"1,1,1;1,1,1;1,1,1\" divisor=1e-320", "divisor"},
    {"kernel=custom matrix=\"1e38,-1e38,0;0,0,0;0,0,0\"", "matrix"},
    /* custom without any matrix */
    {"kernel=custom", "matrix"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree gchar *launch = g_strdup_printf ("videotestsrc num-buffers=2 "
        "! cudaconv backend=" BACKEND " %s ! fakesink", cases[i][0]);
    expect_pipeline_error (launch, cases[i][1]);
  }
}

GST_END_TEST;

GST_START_TEST (test_bad_values_while_playing)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=16,height=16,"
      "framerate=30/1");
  GstBus *bus = harness_bus (h);
  gchar *matrix;
  gdouble sigma;
  GstVideoInfo info;

  g_object_set (h->element, "matrix", "1,2,1;2,4,2;1,2,1", "sigma", 1.5, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 16, 16);
  gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
  g_object_set (h->element, "matrix", "1,x,1", NULL);
  expect_warning (bus, "matrix", "a malformed matrix");
  g_object_set (h->element, "divisor", 1e-320, NULL);
  expect_warning (bus, "divisor", "divisor=1e-320");
  /* GObject's own range check, with its own WARNING or CRITICAL */
  ASSERT_REFUSED_BY_GOBJECT (g_object_set (h->element, "sigma", NAN, NULL));
  /* the backend is fixed while the element runs */
  gst_util_set_object_arg (G_OBJECT (h->element), "backend",
      g_str_equal (BACKEND, "cpu") ? "cuda" : "cpu");
  expect_warning (bus, "backend", "a backend change while playing");
  g_object_get (h->element, "matrix", &matrix, "sigma", &sigma, NULL);
  fail_unless_equals_string (matrix, "1,2,1;2,4,2;1,2,1");
  {
    gint backend;
    g_object_get (h->element, "backend", &backend, NULL);
    fail_unless_equals_int (backend, g_str_equal (BACKEND, "cpu") ? 2 : 1);
  }
  fail_unless_equals_float (sigma, 1.5);
  {
    gdouble divisor;
    g_object_get (h->element, "divisor", &divisor, NULL);
    fail_unless_equals_float (divisor, 0.0);
  }
  /* frames keep flowing */
  gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
  fail_if (bus_has_problem (bus), "a warning too many");
  g_free (matrix);
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* Numbers outside a property's declared range are GObject's to refuse,
 * with its own message (a WARNING or a CRITICAL, by GLib version): the
 * previous value stays, and the stream runs. */
GST_START_TEST (test_out_of_range_numbers)
{
  static const gchar *cases[][2] = {
    {"radius", "0"}, {"radius", "128"}, {"radius", "999"},
    {"sigma", "-1"}, {"sigma", "1000.5"}, {"sigma", "nan"},
    {"divisor", "inf"}, {"divisor", "-inf"}, {"divisor", "nan"},
    {"divisor", "2e9"}, {"offset", "-1e6"}, {"offset", "65536"},
  };
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=16,height=16,"
      "framerate=30/1");
  GstBus *bus = harness_bus (h);
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 16, 16);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GValue before = G_VALUE_INIT, after = G_VALUE_INIT;
    g_object_get_property (G_OBJECT (h->element), cases[i][0], &before);
    ASSERT_REFUSED_BY_GOBJECT (gst_util_set_object_arg (G_OBJECT (h->element),
            cases[i][0], cases[i][1]));
    g_object_get_property (G_OBJECT (h->element), cases[i][0], &after);
    fail_unless (gst_value_compare (&before, &after) == GST_VALUE_EQUAL,
        "%s=%s changed the value", cases[i][0], cases[i][1]);
    g_value_unset (&before);
    g_value_unset (&after);
  }
  gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
  fail_if (bus_has_problem (bus), "the element reported them too");
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* Values that used to give black frames: a sigma too small to square is
 * the identity, huge or tiny uniform weights are the mean. */
GST_START_TEST (test_numeric_edges)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=33,height=17,"
      "framerate=30/1");
  TestMatrix box = { .side = 3, .divisor = 9.0 }, ident = { .side = 1,
    .w = {1.0}, .divisor = 1.0
  };
  GstVideoInfo info;

  for (gint k = 0; k < 9; k++)
    box.w[k] = 1.0;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 33, 17);
  g_object_set (h->element, "radius", 3, "sigma", 1e-170, NULL);
  push_and_check_gray (h, 33, 17, &ident, "sigma=1e-170");
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", "1e308,1e308,1e308;1e308,1e308,1e308;"
      "1e308,1e308,1e308", NULL);
  push_and_check_gray (h, 33, 17, &box, "nine 1e308");
  g_object_set (h->element, "matrix", "1e-10,1e-10,1e-10;1e-10,1e-10,1e-10;"
      "1e-10,1e-10,1e-10", NULL);
  push_and_check_gray (h, 33, 17, &box, "nine 1e-10");
  harness_teardown (h);
}

GST_END_TEST;

/* Sets a property from text as gst-launch-1.0 would, except for values
 * GObject itself refuses with its own warning before the element sees them
 * (flags outside the type, for one): those are GObject's contract. */
static void
set_from_text (GstElement * element, const gchar * name, const gchar * text)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (element), name);
  GValue v = G_VALUE_INIT;

  g_value_init (&v, pspec->value_type);
  if (gst_value_deserialize_with_pspec (&v, text, pspec)
      && (!g_param_value_validate (pspec, &v)
          || (pspec->flags & G_PARAM_LAX_VALIDATION)))
    g_object_set_property (G_OBJECT (element), name, &v);
  g_value_unset (&v);
}

/* Random property values, good and bad, while random frames flow, for a
 * bounded time: no crash, no g_warning, a frame out for every frame in. */
GST_START_TEST (test_property_fuzz)
{
  static const gchar *names[] = { "kernel", "radius", "sigma", "matrix",
    "divisor", "offset", "border", "strategy", "channels", "gray-edges"
  };
  static const gchar *words[] = { "identity", "box", "gaussian", "sharpen",
    "edge", "sobel", "sobel-x", "emboss", "custom", "zero", "mirror", "wrap",
    "separable", "y+u+v+a", "y", "a", "true", "false", "0", "-1", "1e-320",
    "1e308", "-1e308", "inf", "nan", "1,2,1;2,4,2;1,2,1", "1;2", "x", "",
    "1e308,1e308,1e308;0,0,0;0,0,0", "1,-1,0;0,0,0;0,0,0", "15", "16", "2"
  };
  GstHarness *h = harness_new ("video/x-raw,format=AYUV,width=21,height=13,"
      "framerate=30/1");
  GstBus *bus = harness_bus (h);
  const gint64 end = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_AYUV, 21, 13);
  for (gint i = 0; i < 300 && g_get_monotonic_time () < end; i++) {
    GstBuffer *out;
    gchar number[32];
    const gchar *value = words[ref_rng_u32 (&rng) % G_N_ELEMENTS (words)];

    if (ref_rng_u32 (&rng) % 3 == 0) {
      g_ascii_dtostr (number, sizeof (number),
          pow (10.0, -340.0 + 650.0 * ref_rng_uniform (&rng)) *
          (ref_rng_u32 (&rng) % 2 ? 1 : -1));
      value = number;
    }
    set_from_text (h->element,
        names[ref_rng_u32 (&rng) % G_N_ELEMENTS (names)], value);
    out = gst_harness_push_and_pull (h, random_frame (&info));
    fail_unless (out != NULL);
    gst_buffer_unref (out);
    gst_bus_set_flushing (bus, TRUE);
    gst_bus_set_flushing (bus, FALSE);
  }
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* A GstController with normal (not absolute) direct bindings, which map
 * 0..1 onto each property's declared range, animates sigma (0 to 3) and
 * radius (1 to 15 of its 1 to 127) over ten frames: at each timestamp both have the value
 * the binding gives, the frame is the gaussian of those values, and
 * nothing warns. */
GST_START_TEST (test_controller_animation)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=33,height=17,"
      "framerate=30/1");
  GstBus *bus = harness_bus (h);
  GstControlSource *sigma_cs = gst_interpolation_control_source_new ();
  GstControlSource *radius_cs = gst_interpolation_control_source_new ();
  GstControlBinding *radius_binding;
  const GstClockTime end = 9 * GST_SECOND / 30;
  GstVideoInfo info;

  g_object_set (sigma_cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  g_object_set (radius_cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE
      (sigma_cs), 0, 0.0);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE
      (sigma_cs), end, 3.0 / 1000.0);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE
      (radius_cs), 0, 0.0);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE
      (radius_cs), end, 14.0 / 126.0);
  gst_object_add_control_binding (GST_OBJECT (h->element),
      gst_direct_control_binding_new (GST_OBJECT (h->element), "sigma",
          sigma_cs));
  radius_binding = gst_direct_control_binding_new (GST_OBJECT (h->element),
      "radius", radius_cs);
  gst_object_add_control_binding (GST_OBJECT (h->element), radius_binding);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 33, 17);
  for (gint k = 0; k < 10; k++) {
    const GstClockTime ts = k * GST_SECOND / 30;
    const double s = (double) ts / end;
    GstBuffer *in = random_frame (&info), *out;
    GValue want = G_VALUE_INIT;
    gdouble sigma;
    gint radius;
    TestMatrix m;

    GST_BUFFER_PTS (in) = ts;
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    g_object_get (h->element, "sigma", &sigma, "radius", &radius, NULL);
    fail_unless (fabs (sigma - 3.0 * s) < 1e-9, "frame %d: sigma %g, "
        "expected %g", k, sigma, 3.0 * s);
    fail_unless (gst_control_binding_get_g_value_array (radius_binding, ts,
            0, 1, &want));
    fail_unless_equals_int (radius, g_value_get_int (&want));
    fail_unless (fabs (radius - (1.0 + 14.0 * s)) < 1.0, "frame %d: radius "
        "%d, expected about %g", k, radius, 1.0 + 14.0 * s);
    g_value_unset (&want);
    gaussian_matrix (&m, radius, sigma);
    check_pushed_frame (&info, in, out, &m, "controlled gaussian");
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  fail_if (bus_has_problem (bus), "a message while animating");
  gst_object_unref (sigma_cs);
  gst_object_unref (radius_cs);
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

#ifdef ELEMENT_CUDA
GST_START_TEST (test_device_id_out_of_range)
{
  expect_pipeline_error ("videotestsrc num-buffers=2 ! cudaconv backend=cuda "
      "device-id=999 ! fakesink", "device-id 999 does not exist");
}

GST_END_TEST;

/* The first frame names the kernel family of each filtered component in a
 * bus INFO; a new radius names them again. */
GST_START_TEST (test_kernel_family_reported)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=640,"
      "height=360,framerate=30/1");
  GstBus *bus = harness_bus (h);
  static const struct {
    const gchar *strategy;
    gint radius;
    const gchar *family;
  } steps[] = {
    {"cache-halo", 1, "component 0 (plane 0): 2d-strip-cache-halo"},
    {"cache-halo", 1, NULL},
    {"tiled-halo", 5, "component 0 (plane 0): 2d-tiled-halo"},
    {"separable", 5, "component 0 (plane 0): separable-strip-mma"},
  };
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 640, 360);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "box");
  for (guint k = 0; k < G_N_ELEMENTS (steps); k++) {
    GstMessage *msg;
    gst_util_set_object_arg (G_OBJECT (h->element), "strategy",
        steps[k].strategy);
    g_object_set (h->element, "radius", steps[k].radius, NULL);
    gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_INFO);
    if (!steps[k].family) {
      fail_unless (msg == NULL, "step %u: the same kernels were named again",
          k);
      continue;
    }
    fail_unless (msg != NULL, "step %u: no INFO naming the kernels", k);
    {
      GError *err = NULL;
      gst_message_parse_info (msg, &err, NULL);
      fail_unless (strstr (err->message, steps[k].family) != NULL,
          "step %u: \"%s\" does not name %s", k, err->message,
          steps[k].family);
      g_error_free (err);
    }
    gst_message_unref (msg);
  }
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

#define N_INSTANCES 64
#define INSTANCE_FRAMES 4

typedef struct {
  GstHarness *h;
  TestMatrix m;
  GstVideoInfo info;
  GstBuffer *in[INSTANCE_FRAMES], *out[INSTANCE_FRAMES];
} Instance;

static gpointer
instance_run (gpointer data)
{
  Instance *inst = data;
  for (int k = 0; k < INSTANCE_FRAMES; k++)
    inst->out[k] = gst_harness_push_and_pull (inst->h,
        gst_buffer_ref (inst->in[k]));
  return NULL;
}

/* Any number of CUDA elements in one process, each with its own filter:
 * 64 of them (backend=cuda: an element that cannot use the GPU fails to
 * start), started together, filter frames at once from 64 threads (on one
 * GPU, or spread over several), and every output matches its own filter's
 * reference. */
GST_START_TEST (test_many_instances)
{
  Instance *insts = g_new0 (Instance, N_INSTANCES);
  GThread *threads[N_INSTANCES];

  for (int i = 0; i < N_INSTANCES; i++) {
    Instance *inst = &insts[i];
    /* sizes and radii differ, so instances run different kernels too */
    const gint width = 160 + 8 * (i % 5), height = 90 + i % 7;
    g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=I420,"
        "width=%d,height=%d,framerate=30/1", width, height);
    inst->h = harness_new (caps);
    matrix_random (&inst->m, 3 + 2 * (i % 3), i % 2);
    inst->m.offset = i % 2 ? 128.0 : 0.0;
    gst_util_set_object_arg (G_OBJECT (inst->h->element), "kernel", "custom");
    g_object_set (inst->h->element, "matrix", inst->m.text, "offset",
        inst->m.offset, NULL);
    gst_video_info_set_format (&inst->info, GST_VIDEO_FORMAT_I420, width,
        height);
    for (int k = 0; k < INSTANCE_FRAMES; k++)
      inst->in[k] = random_frame (&inst->info);
  }
  for (int i = 0; i < N_INSTANCES; i++)
    threads[i] = g_thread_new ("instance", instance_run, &insts[i]);
  for (int i = 0; i < N_INSTANCES; i++)
    g_thread_join (threads[i]);
  for (int i = 0; i < N_INSTANCES; i++) {
    Instance *inst = &insts[i];
    for (int k = 0; k < INSTANCE_FRAMES; k++) {
      g_autofree gchar *what = g_strdup_printf ("instance %d frame %d", i, k);
      GstVideoFrame fin, fout;
      fail_unless (inst->out[k] != NULL, "%s: no output", what);
      fail_unless (gst_video_frame_map (&fin, &inst->info, inst->in[k],
              GST_MAP_READ));
      fail_unless (gst_video_frame_map (&fout, &inst->info, inst->out[k],
              GST_MAP_READ));
      for (gint c = 0; c < 3; c++)
        check_component (&fin, &fout, c, EXPECT_FILTERED, &inst->m, NULL,
            REF_BORDER_CLAMP, what);
      gst_video_frame_unmap (&fin);
      gst_video_frame_unmap (&fout);
      gst_buffer_unref (inst->in[k]);
      gst_buffer_unref (inst->out[k]);
    }
    g_free (inst->m.text);
    harness_teardown (inst->h);
  }
  g_free (insts);
}

GST_END_TEST;
#endif

/* A source without a parser (multifilesrc) sends a BYTES segment: the
 * controller's sync has no stream time to take, and the frame is filtered
 * without a critical warning (which fails the test). */
GST_START_TEST (test_bytes_segment)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=16,height=8,"
      "framerate=30/1");
  GstVideoInfo info;
  GstSegment segment;
  GstBuffer *out;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 16, 8);
  gst_segment_init (&segment, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  out = gst_harness_push_and_pull (h, random_frame (&info));
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  harness_teardown (h);
}

GST_END_TEST;

/* The stats property counts the frames filtered since start and the
 * host's time on them; only frames filtered in their regions spend any on
 * regions. */
static GstStructure *
stats_after (GstHarness * h, guint frames, guint64 * n)
{
  GstStructure *stats = NULL;
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
  for (guint k = 0; k < frames; k++)
    gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
  g_object_get (h->element, "stats", &stats, NULL);
  fail_unless (stats != NULL);
  fail_unless (gst_structure_get_uint64 (stats, "frames", n));
  return stats;
}

GST_START_TEST (test_stats)
{
  const gchar *caps = "video/x-raw,format=I420,width=64,height=48,"
      "framerate=30/1";
  GstHarness *h = harness_new (caps);
  GstStructure *stats;
  guint64 n, regions_us, queue_us, finish_us;

  g_object_set (h->element, "region-boxes", "8,8,16,16;40,20,24,28", NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "region", "inside");
  stats = stats_after (h, 6, &n);
  fail_unless (n == 6, "%" G_GUINT64_FORMAT " frames counted of 6", n);
  fail_unless (gst_structure_get_uint64 (stats, "regions-us", &regions_us)
      && gst_structure_get_uint64 (stats, "queue-us", &queue_us)
      && gst_structure_get_uint64 (stats, "finish-us", &finish_us));
  gst_structure_free (stats);
  /* a new start counts afresh */
  fail_unless (gst_element_set_state (h->element, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (h->element, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  g_object_get (h->element, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "frames", &n) && n == 0);
  fail_unless (gst_structure_get_uint64 (stats, "queue-us", &queue_us)
      && queue_us == 0);
  gst_structure_free (stats);
  fail_unless (gst_element_set_state (h->element, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  harness_teardown (h);

  h = harness_new (caps);
  stats = stats_after (h, 3, &n);
  fail_unless (n == 3, "%" G_GUINT64_FORMAT " frames counted of 3", n);
  fail_unless (gst_structure_get_uint64 (stats, "regions-us", &regions_us)
      && regions_us == 0, "region=frame spent %" G_GUINT64_FORMAT
      " us on regions", regions_us);
  gst_structure_free (stats);
  harness_teardown (h);
}

GST_END_TEST;

static void
add_tests (TCase * tc)
{
  tcase_add_test (tc, test_bytes_segment);
  tcase_add_test (tc, test_property_change_mid_stream);
  tcase_add_test (tc, test_concurrent_property_changes);
  tcase_add_test (tc, test_bad_values_on_command_line);
  tcase_add_test (tc, test_bad_values_while_playing);
  tcase_add_test (tc, test_out_of_range_numbers);
  tcase_add_test (tc, test_controller_animation);
  tcase_add_test (tc, test_numeric_edges);
  tcase_add_test (tc, test_property_fuzz);
  tcase_add_test (tc, test_stats);
#ifdef ELEMENT_CUDA
  tcase_add_test (tc, test_device_id_out_of_range);
  tcase_add_test (tc, test_kernel_family_reported);
  tcase_add_test (tc, test_many_instances);
#endif
}

const ElementTopic element_topic = { "properties", add_tests, NULL };

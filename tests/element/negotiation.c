/* cudaconv element tests: negotiation. Caps in and out, formats refused,
 * passthrough, resolution changes, frames in flight, the allocation query
 * (pinned pools, crop metas, output padding) and, without a device, the
 * fallback to system memory. */
#include "harness.h"

GST_START_TEST (test_caps_negotiation)
{
  GstHarness *h = harness_new ("video/x-raw,format=NV21,width=16,height=8,"
      "framerate=30/1");
  GstCaps *caps, *expected;
  GstBuffer *out;
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV21, 16, 8);
  out = gst_harness_push_and_pull (h, random_frame (&info));
  caps = gst_pad_get_current_caps (h->sinkpad);
  expected = gst_caps_from_string ("video/x-raw,format=NV21,width=16,"
      "height=8,framerate=30/1");
  fail_unless (gst_caps_is_equal (caps, expected));
  gst_caps_unref (expected);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  harness_teardown (h);

  /* a format the element does not take is refused at negotiation */
  h = harness_new ("video/x-raw,format=UYVP,width=48,height=8,"
      "framerate=30/1");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_UYVP, 48, 8);
  fail_unless_equals_int (gst_harness_push (h, random_frame (&info)),
      GST_FLOW_NOT_NEGOTIATED);
  harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_identity_passthrough)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=32,height=16,"
      "framerate=30/1");
  GstVideoInfo info;
  GstBuffer *in, *out;

  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "identity");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 32, 16);
  in = random_frame (&info);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in, "identity did not pass the buffer through");
  gst_buffer_unref (out);

  /* an offset makes identity a real filter again */
  g_object_set (h->element, "offset", 1.0, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  harness_teardown (h);
}

GST_END_TEST;

/* Every format passes with no converter, and the caps come out as they
 * went in, fields the element does not touch included. */
GST_START_TEST (test_caps_fields_kept)
{
  static const gchar *word_packed[] = { "v210", "Y410", "RGB10A2_LE",
    "BGR10A2_LE"
  };
  for (guint f = 0; f < n_all_formats + 4; f++) {
    const gchar *format = f < n_all_formats ? all_formats[f] :
        word_packed[f - n_all_formats];
    g_autofree gchar *caps_str = g_strdup_printf ("video/x-raw,format=%s,"
        "width=22,height=10,interlace-mode=interleaved,"
        "field-order=bottom-field-first,colorimetry=bt709,"
        "chroma-site=mpeg2,pixel-aspect-ratio=16/15,framerate=30000/1001",
        format);
    GstHarness *h = harness_new (caps_str);
    GstCaps *sent = gst_caps_from_string (caps_str), *got;
    GstVideoInfo info;

    gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "gaussian");
    gst_video_info_from_caps (&info, sent);
    gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
    got = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (gst_caps_is_equal (got, sent), "%s came out as %"
        GST_PTR_FORMAT, caps_str, got);
    gst_caps_unref (got);
    gst_caps_unref (sent);
    harness_teardown (h);
  }
}

GST_END_TEST;

/* While frames are filtered, upstream is told that crop metas are taken
 * whatever downstream takes; in passthrough (kernel=identity) downstream
 * answers. */
GST_START_TEST (test_crop_allocation)
{
  const gchar *caps_str = "video/x-raw,format=I420,width=32,height=16,"
      "framerate=30/1";
  GstVideoInfo info;

  for (gint k = 0; k < 4; k++) {
    const gboolean downstream_crops = k & 1, identity = k >> 1;
    GstElement *element = gst_element_factory_make ("cudaconv", NULL);
    GstHarness *h;
    GstCaps *caps = gst_caps_from_string (caps_str);
    GstQuery *query = gst_query_new_allocation (caps, TRUE);

    gst_util_set_object_arg (G_OBJECT (element), "backend", BACKEND);
    gst_util_set_object_arg (G_OBJECT (element), "kernel",
        identity ? "identity" : "gaussian");
    h = harness_track (gst_harness_new_with_element (element, "sink", "src"));
    gst_object_unref (element);
    /* what downstream takes is asked when the caps arrive */
    if (downstream_crops)
      gst_harness_add_propose_allocation_meta (h,
          GST_VIDEO_CROP_META_API_TYPE, NULL);
    gst_harness_set_src_caps_str (h, caps_str);
    gst_video_info_from_caps (&info, caps);
    gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
    fail_unless (gst_pad_peer_query (h->srcpad, query));
    fail_unless_equals_int (gst_query_find_allocation_meta (query,
            GST_VIDEO_CROP_META_API_TYPE, NULL),
        identity ? downstream_crops : TRUE);
    gst_query_unref (query);
    gst_caps_unref (caps);
    harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_resolution_change)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=33,height=17,"
      "framerate=30/1");
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", m.text, NULL);
  push_and_check_gray (h, 33, 17, &m, "before the caps change");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=130,"
      "height=71,framerate=30/1");
  push_and_check_gray (h, 130, 71, &m, "after growing");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=7,"
      "height=3,framerate=30/1");
  push_and_check_gray (h, 7, 3, &m, "after shrinking");
  g_free (m.text);
  harness_teardown (h);
}

GST_END_TEST;

/* With async-depth=3 the CUDA backend holds two frames: each push after
 * the second releases the oldest, in order and with its timestamp; caps,
 * EOS and flushes drain or drop what is held. The CPU backend ignores the
 * property and answers every push at once. */
GST_START_TEST (test_frames_in_flight)
{
  const guint depth = 3, held = g_strcmp0 (BACKEND, "cuda") == 0 ? 2 : 0;
  GstHarness *h = harness_new_with_depth ("video/x-raw,format=I420,"
      "width=67,height=45,framerate=30/1", depth);
  GstBuffer *in[7];
  GstVideoInfo info;
  TestMatrix m;

  matrix_random (&m, 5, TRUE);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  gst_util_set_object_arg (G_OBJECT (h->element), "border", "mirror");
  g_object_set (h->element, "matrix", m.text, "divisor", m.divisor, "offset",
      m.offset, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 67, 45);
  for (guint k = 0; k < G_N_ELEMENTS (in); k++) {
    in[k] = random_frame (&info);
    GST_BUFFER_PTS (in[k]) = k * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[k])),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_buffers_in_queue (h),
        k + 1 > held ? k + 1 - held : 0);
  }
  /* a caps change lets the held frames out before the new format starts */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=31,"
      "height=9,framerate=30/1");
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), G_N_ELEMENTS (in));
  for (guint k = 0; k < G_N_ELEMENTS (in); k++) {
    GstBuffer *out = gst_harness_pull (h);
    GstVideoFrame fin, fout;
    g_autofree gchar *what = g_strdup_printf ("frame %u in flight", k);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * GST_SECOND / 30);
    fail_unless (gst_video_frame_map (&fin, &info, in[k], GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
    for (gint c = 0; c < 3; c++)
      check_component (&fin, &fout, c, EXPECT_FILTERED, &m, NULL,
          REF_BORDER_MIRROR, what);
    gst_video_frame_unmap (&fin);
    gst_video_frame_unmap (&fout);
    gst_buffer_unref (out);
    gst_buffer_unref (in[k]);
  }

  /* EOS drains */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 31, 9);
  for (guint k = 0; k < 2; k++)
    gst_harness_push (h, random_frame (&info));
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2);
  harness_teardown (h);

  /* a flush drops; teardown afterwards finds nothing left to free */
  h = harness_new_with_depth ("video/x-raw,format=GRAY8,width=31,height=9,"
      "framerate=30/1", depth);
  for (guint k = 0; k < 2; k++)
    gst_harness_push (h, random_frame (&info));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2 - held);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2 - held);
  g_free (m.text);
  harness_teardown (h);
}

GST_END_TEST;

static gboolean
allocator_is_pinned (GstAllocator * allocator)
{
  return allocator
      && g_strcmp0 (allocator->mem_type, "CudaConvPinnedMemory") == 0;
}

/* With CUDA, upstream is offered a pool of pinned memory, the frames from
 * it are filtered correctly, and output buffers are pinned too. */
GST_START_TEST (test_allocation_query)
{
  const gchar *caps_str = "video/x-raw,format=GRAY8,width=45,height=20,"
      "framerate=30/1";
  GstHarness *h = harness_new (caps_str);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = NULL;
  GstStructure *config;
  TestMatrix m;
  GstVideoInfo info;
  GstVideoFrame fin, fout;
  GstBuffer *in, *out;
  GstAllocationParams params;

  matrix_random (&m, 3, FALSE);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", m.text, NULL);
  /* a first frame makes the element negotiate and decide its allocation */
  gst_video_info_from_caps (&info, caps);
  gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
          NULL));
#ifdef ELEMENT_CUDA
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_allocator (config, &allocator, &params);
  fail_unless (allocator_is_pinned (allocator), "the pool is not pinned");
  gst_structure_free (config);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &in, NULL),
      GST_FLOW_OK);
  {
    GstMapInfo map;
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (gsize k = 0; k < map.size; k++)
      map.data[k] = (guint8) ref_rng_u32 (&rng);
    gst_buffer_unmap (in, &map);
  }
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (in, 0),
          "CudaConvPinnedMemory"));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (out, 0),
          "CudaConvPinnedMemory"), "the output buffer is not pinned");
  gst_video_frame_map (&fin, &info, in, GST_MAP_READ);
  gst_video_frame_map (&fout, &info, out, GST_MAP_READ);
  check_component (&fin, &fout, 0, EXPECT_FILTERED, &m, NULL,
      REF_BORDER_CLAMP, "frame from the pinned pool");
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_buffer_pool_set_active (pool, FALSE);
#else
  /* the CPU backend has no use for pinned memory */
  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
    if (pool) {
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_get_allocator (config, &allocator, &params);
      fail_if (allocator_is_pinned (allocator));
      gst_structure_free (config);
    }
  }
  (void) fin;
  (void) fout;
  (void) in;
  (void) out;
#endif
  gst_clear_object (&pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  g_free (m.text);
  harness_teardown (h);
}

GST_END_TEST;


/* Row padding of the output (I420 98x34: rows of 98 and 49 samples on
 * strides of 100 and 52) leaves the element as zeros, not as whatever the
 * output memory held. */
GST_START_TEST (test_output_padding_written)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=98,height=34,"
      "framerate=30/1");
  GstAllocator *poison = poison_allocator_new ();
  GstVideoInfo info;

  gst_object_ref_sink (poison);
  /* the harness takes the reference */
  gst_harness_set_propose_allocator (h, poison, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "box");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 98, 34);
  for (gint frame = 0; frame < 3; frame++) {
    GstBuffer *out = gst_harness_push_and_pull (h, random_frame (&info));
    GstMapInfo map;

    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    for (guint p = 0; p < 3; p++) {
      const gint stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, p);
      const gint row = GST_VIDEO_INFO_COMP_WIDTH (&info, p);
      for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&info, p); y++)
        for (gint x = row; x < stride; x++)
          fail_unless_equals_int (map.data[info.offset[p] + y * stride + x],
              0);
    }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  harness_teardown (h);
}

GST_END_TEST;

/* kernel=identity and kernel=gaussian from two threads at once: whatever
 * the order, passthrough ends up matching the kernel that was set last. */
typedef struct {
  GstElement *element;
  const gchar *kernel;
} KernelSetter;

static gpointer
set_kernel_repeatedly (gpointer data)
{
  KernelSetter *k = data;
  for (gint i = 0; i < 200; i++)
    gst_util_set_object_arg (G_OBJECT (k->element), "kernel", k->kernel);
  return NULL;
}

GST_START_TEST (test_passthrough_race)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=16,height=16,"
      "framerate=30/1");
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 16, 16);
  gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
  for (gint round = 0; round < 50; round++) {
    KernelSetter a = { h->element, "identity" }, b = { h->element,
      "gaussian"
    };
    GThread *ta = g_thread_new ("identity", set_kernel_repeatedly, &a);
    GThread *tb = g_thread_new ("gaussian", set_kernel_repeatedly, &b);
    gint kernel;

    g_thread_join (ta);
    g_thread_join (tb);
    g_object_get (h->element, "kernel", &kernel, NULL);
    fail_unless_equals_int (gst_base_transform_is_passthrough
        (GST_BASE_TRANSFORM (h->element)), kernel == 0);
  }
  harness_teardown (h);
}

GST_END_TEST;

/* Run with CUDA_VISIBLE_DEVICES= so no device is usable, GPU or not. */
/* Without a device the element offers system memory only once started,
 * so a pipeline that could take either negotiates system memory, and one
 * that insists on CUDA memory fails to negotiate instead of running. */
static void
negotiates_system_memory_without_device (void)
{
  GstElement *pipeline = pipeline_launch ("videotestsrc num-buffers=2 ! "
      "cudaconv name=c backend=auto ! fakesink", NULL);
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipeline), "c");
  GstPad *src = gst_element_get_static_pad (c, "src");
  GstCaps *caps;
  gchar *error_text;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS);
  caps = gst_pad_get_current_caps (src);
  fail_unless (caps != NULL && gst_caps_features_is_equal
      (gst_caps_get_features (caps, 0), GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY),
      "negotiated %" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  caps = gst_pad_query_caps (src, NULL);
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    fail_if (gst_caps_features_contains (gst_caps_get_features (caps, i),
            "memory:CUDAMemory"), "CUDA memory offered on the CPU backend");
  gst_caps_unref (caps);
  pipeline_stop (pipeline);
  gst_object_unref (src);
  gst_object_unref (c);
  gst_object_unref (pipeline);

  error_text = run_pipeline ("videotestsrc num-buffers=2 ! cudaconv "
      "backend=auto ! video/x-raw(memory:CUDAMemory) ! fakesink", NULL);
  fail_unless (error_text != NULL, "CUDA memory negotiated without a device");
  g_free (error_text);
}

GST_START_TEST (test_no_device)
{
  gchar *warning = NULL, *error_text;

  expect_pipeline_error ("videotestsrc num-buffers=2 ! cudaconv backend=cuda "
      "! fakesink", "backend=cuda, but no CUDA device is usable");
  error_text = run_pipeline ("videotestsrc num-buffers=2 ! cudaconv "
      "backend=auto ! fakesink", &warning);
  fail_unless (error_text == NULL, "auto without a device failed: %s",
      error_text);
  fail_unless (warning && strstr (warning, "using the CPU backend"),
      "no fallback warning, got \"%s\"", warning ? warning : "(none)");
  g_free (warning);
  negotiates_system_memory_without_device ();
}

GST_END_TEST;

static void
add_tests (TCase * tc)
{
  tcase_add_test (tc, test_caps_negotiation);
  tcase_add_test (tc, test_crop_allocation);
  tcase_add_test (tc, test_caps_fields_kept);
  tcase_add_test (tc, test_identity_passthrough);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_frames_in_flight);
  tcase_add_test (tc, test_allocation_query);
  tcase_add_test (tc, test_output_padding_written);
  tcase_add_test (tc, test_passthrough_race);
}

static void
add_no_device_tests (TCase * tc)
{
  tcase_add_test (tc, test_no_device);
}

const ElementTopic element_topic = { "negotiation", add_tests,
  add_no_device_tests
};

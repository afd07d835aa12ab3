/* cudaconv element tests: frames in CUDA memory (cudaupload, cudadownload,
 * NVDEC, or written and read by the test itself) on either side of the
 * element, and the GstCudaContext it shares or copies out of. Built with
 * ELEMENT_CUDA only. */
#include "harness.h"
#include <dlfcn.h>
#include <cuda_runtime_api.h>
#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#endif

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
/* Whether device 0's primary context is active: the CUDA runtime makes it
 * so when a thread uses the device without a current context. -1 when the
 * driver cannot say. */
static int
primary_context_active (void)
{
  typedef int (*GetDevice) (int *, int);
  typedef int (*GetState) (int, unsigned *, int *);
  void *driver = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  GetDevice get_device;
  GetState get_state;
  int device, active = -1;
  unsigned flags;

  if (!driver)
    return -1;
  get_device = (GetDevice) dlsym (driver, "cuDeviceGet");
  get_state = (GetState) dlsym (driver, "cuDevicePrimaryCtxGetState");
  if (get_device && get_state && get_device (&device, 0) == 0
      && get_state (device, &flags, &active) != 0)
    active = -1;
  dlclose (driver);
  return active;
}

/* cudaconv alone makes its own GstCudaContext (GStreamer's CUDA library
 * not yet loaded by nvcodec); two cudaconv and nvcodec's cudaupload in one
 * pipeline work in one GstCudaContext, which each answers the context
 * query with; and the elements' CUDA work ran in it, not in the device's
 * primary context, which nothing in this process makes current. */
GST_START_TEST (test_shared_cuda_context)
{
  GError *err = NULL;
  GstElement *pipeline, *a, *b, *up;
  GstCudaContext *ca, *cb, *cu;
  GstMessage *msg;
  GstBus *bus;

  fail_unless (primary_context_active () == 0,
      "the primary context was active before the test");
  fail_unless (run_pipeline ("videotestsrc num-buffers=3 ! "
          "video/x-raw,width=64,height=48 ! cudaconv backend=cuda ! fakesink",
          NULL) == NULL, "cudaconv alone did not run");
  fail_unless (gst_registry_check_feature_version (gst_registry_get (),
          "cudaupload", 1, 22, 0), "nvcodec's cudaupload is not registered, "
      "though a CUDA device is present");
  pipeline = pipeline_launch ("videotestsrc num-buffers=5 ! "
      "video/x-raw,format=I420,width=320,height=240 ! cudaupload name=up ! "
      "cudadownload ! cudaconv name=a backend=cuda kernel=gaussian ! "
      "cudaconv name=b backend=cuda kernel=sobel-x ! fakesink", &err);
  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "the pipeline did not reach EOS");
  gst_message_unref (msg);

  a = gst_bin_get_by_name (GST_BIN (pipeline), "a");
  b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  ca = queried_cuda_context (a);
  cb = queried_cuda_context (b);
  cu = queried_cuda_context (up);
  fail_unless (ca != NULL, "cudaconv did not answer the context query");
  fail_unless (ca == cb && ca == cu, "three CUDA contexts (%p, %p, %p) "
      "where one was expected", ca, cb, cu);
  fail_unless (primary_context_active () == 0,
      "the primary context was made active");

  gst_clear_object (&ca);
  gst_clear_object (&cb);
  gst_clear_object (&cu);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (up);
  pipeline_stop (pipeline);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* The formats both cudaupload and cudaconv take in CUDA memory. */
static GPtrArray *
cuda_memory_formats (void)
{
  GstElementFactory *upload = gst_element_factory_find ("cudaupload");
  GstElementFactory *conv = gst_element_factory_find ("cudaconv");
  GstCaps *cuda = gst_caps_from_string ("video/x-raw(memory:CUDAMemory)");
  GstCaps *a = NULL, *b = NULL, *both;
  GPtrArray *formats = g_ptr_array_new_with_free_func (g_free);

  fail_unless (upload && conv, "cudaupload or cudaconv is not registered");
  for (const GList * l = gst_element_factory_get_static_pad_templates
      (upload); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    if (t->direction == GST_PAD_SRC)
      a = gst_static_caps_get (&t->static_caps);
  }
  for (const GList * l = gst_element_factory_get_static_pad_templates
      (conv); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    if (t->direction == GST_PAD_SINK)
      b = gst_static_caps_get (&t->static_caps);
  }
  both = gst_caps_intersect (a, b);
  gst_caps_unref (a);
  gst_caps_unref (b);
  a = both;
  both = gst_caps_intersect (a, cuda);
  gst_caps_unref (a);
  for (guint i = 0; i < gst_caps_get_size (both); i++) {
    const GValue *list = gst_structure_get_value (gst_caps_get_structure
        (both, i), "format");
    if (G_VALUE_HOLDS_STRING (list)) {
      g_ptr_array_add (formats, g_value_dup_string (list));
      continue;
    }
    for (guint k = 0; list && k < gst_value_list_get_size (list); k++)
      g_ptr_array_add (formats, g_value_dup_string
          (gst_value_list_get_value (list, k)));
  }
  gst_caps_unref (both);
  gst_caps_unref (cuda);
  gst_object_unref (upload);
  gst_object_unref (conv);
  return formats;
}

/* Two frames of format through cudaconv backend=cuda with its input in
 * CUDA memory or not (cuda_in: cudaupload before it, with caps that ask
 * for CUDA memory, since cudaupload passes system memory through to an
 * element that takes both) and its output in CUDA memory or not
 * (cuda_out: cudadownload after it), give what the CPU backend gives for
 * the same frames, within one step; and the pads negotiated the memory
 * asked for. */
static void
check_memory_combination (const gchar * format, gint height, gboolean cuda_in,
    gboolean cuda_out, const gchar * filter)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 pattern=snow ! "
      "video/x-raw,format=%s,width=98,height=%d ! tee name=t "
      "t. ! queue ! %s cudaconv name=g backend=cuda %s ! %s "
      "appsink name=gpu sync=false "
      "t. ! queue ! cudaconv backend=cpu %s ! appsink name=cpu sync=false",
      format, height,
      cuda_in ? "cudaupload ! video/x-raw(memory:CUDAMemory) !" : "",
      filter, cuda_out ? "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "video/x-raw !" : "video/x-raw !", filter);
  const gchar *what = cuda_in ? (cuda_out ? "CUDA in, CUDA out" :
      "CUDA in, system out") : (cuda_out ? "system in, CUDA out" :
      "system in, system out");
  GError *err = NULL;
  GstElement *pipeline = pipeline_launch (desc, &err);
  GstElement *g, *gpu, *cpu;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  g = gst_bin_get_by_name (GST_BIN (pipeline), "g");
  gpu = gst_bin_get_by_name (GST_BIN (pipeline), "gpu");
  cpu = gst_bin_get_by_name (GST_BIN (pipeline), "cpu");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s, %s: cannot play", format, what);
  for (gint n = 0; n < 2; n++) {
    GstSample *a = NULL, *b = NULL;
    gchar *why = NULL;

    g_signal_emit_by_name (gpu, "try-pull-sample", 10 * GST_SECOND, &a);
    g_signal_emit_by_name (cpu, "try-pull-sample", 10 * GST_SECOND, &b);
    if (!a || !b) {
      GstBus *bus = gst_element_get_bus (pipeline);
      GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      GError *error = NULL;
      if (msg)
        gst_message_parse_error (msg, &error, NULL);
      fail ("%s, %s, %s: frame %d did not come out of the %s branch: %s",
          format, what, filter, n, a ? "CPU" : "CUDA",
          error ? error->message : "no error on the bus");
    }
    fail_unless (frames_within_one (a, b, &why), "%s, %s, %s, frame %d: %s",
        format, what, filter, n, why);
    gst_sample_unref (a);
    gst_sample_unref (b);
  }
  fail_unless (pad_in_cuda_memory (g, "sink") == cuda_in
      && pad_in_cuda_memory (g, "src") == cuda_out,
      "%s, %s: cudaconv negotiated other memory", format, what);
  pipeline_stop (pipeline);
  gst_object_unref (g);
  gst_object_unref (gpu);
  gst_object_unref (cpu);
  gst_object_unref (pipeline);
  g_free (desc);
}

/* Whether GStreamer's own cudaupload ! cudadownload carries format at
 * 98 x height (GStreamer 1.26.2's fails on NV21 of an odd height). */
static gboolean
gstreamer_carries (const gchar * format, gint height)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=%s,width=98,height=%d ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! fakesink", format,
      height);
  gchar *error_text = run_pipeline (desc, NULL);
  gboolean carried = error_text == NULL;

  g_free (error_text);
  g_free (desc);
  return carried;
}

/* Every format both cudaupload and cudaconv take in CUDA memory, in the
 * four combinations of input and output memory, filtered (gaussian) and
 * not (identity, which must still move the frame between memories), at
 * an odd height where GStreamer's own elements carry the format so. */
GST_START_TEST (test_cuda_memory_frames)
{
  /* a few under the sanitizers, which make each pipeline slow: 4:2:0
   * planar and semi-planar, packed RGB, 10 and 16 bits, and planar RGB
   * with an alpha plane that no kernel writes */
  static const gchar *quick[] = { "I420", "NV12", "RGBA", "P010_10LE",
    "Y444_16LE", "GBRA", NULL
  };
  GPtrArray *formats = cuda_memory_formats ();

  fail_unless (formats->len >= 7, "only %u formats in CUDA memory",
      formats->len);
  for (guint f = 0; f < formats->len; f++) {
    const gchar *format = g_ptr_array_index (formats, f);
    if (g_getenv ("CUDACONV_TEST_QUICK")
        && !g_strv_contains ((const gchar * const *) quick, format))
      continue;
    gint height = 67;
    if (!gstreamer_carries (format, height)) {
      height = 68;
      g_print ("%s: GStreamer's cudaupload ! cudadownload fails at 98x67, "
          "tested at 98x68\n", format);
      fail_unless (gstreamer_carries (format, height),
          "GStreamer's cudaupload ! cudadownload fails on %s", format);
    }
    for (guint combination = 0; combination < 4; combination++) {
      check_memory_combination (format, height, (combination & 1) != 0,
          (combination & 2) != 0,
          "kernel=gaussian radius=2");
      check_memory_combination (format, height, (combination & 1) != 0,
          (combination & 2) != 0,
          "kernel=identity");
    }
  }
  g_ptr_array_unref (formats);
}

GST_END_TEST;

/* push_frame on ph's path: a new random frame goes in, in CUDA memory
 * where the path says; p holds it and the output in system memory. */
static void
push_frame_on_path (PathHarness * ph, Pushed * p)
{
  GstBuffer *in, *out;

  p->info = ph->info;
  p->in = random_frame (&ph->info);
  make_well_formed (p->in, &ph->info);
  in = ph->path->cuda_in ? frame_to_cuda (ph, p->in) : gst_buffer_ref (p->in);
  out = gst_harness_push_and_pull (ph->h, in);
  fail_unless (out != NULL, "%s: no output buffer", ph->path->what);
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)) ==
      ph->path->cuda_out, "%s: the output is in other memory",
      ph->path->what);
  if (ph->path->cuda_out) {
    p->out = frame_from_cuda (ph, out);
    gst_buffer_unref (out);
  } else {
    p->out = out;
  }
  fail_unless (gst_video_frame_map (&p->fin, &p->info, p->in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&p->fout, &p->info, p->out,
          GST_MAP_READ));
}

/* check_format through ph */
static void
check_format_on_path (PathHarness * ph, const TestMatrix * m,
    RefBorder border, const gchar * channels)
{
  g_autofree gchar *what = format_check_name (ph->path->what,
      GST_VIDEO_INFO_NAME (&ph->info), GST_VIDEO_INFO_WIDTH (&ph->info),
      GST_VIDEO_INFO_HEIGHT (&ph->info), m, border, channels);
  Pushed p;

  set_custom_filter (ph->h->element, m, border, channels);
  push_frame_on_path (ph, &p);
  check_filtered_frame (&p, ph->h->element, m, border, what);
  pushed_release (&p);
}

/* After frames went through ph: the element's pads are in the memory the
 * path names. */
static void
check_path_memory (PathHarness * ph)
{
  fail_unless (pad_in_cuda_memory (ph->h->element, "sink") ==
      ph->path->cuda_in && pad_in_cuda_memory (ph->h->element, "src") ==
      ph->path->cuda_out, "%s, %s: cudaconv negotiated other memory",
      GST_VIDEO_INFO_NAME (&ph->info), ph->path->what);
}

/* The packed 4:2:2 formats of all_formats (one plane, chroma at half the
 * width and the full height) that both cudaupload and cudaconv take in
 * CUDA memory, the ones GStreamer's CUDA allocator lays out; YUY2 and UYVY
 * must be among them. */
static GPtrArray *
packed_422_cuda_formats (void)
{
  GPtrArray *cuda = cuda_memory_formats ();
  GPtrArray *formats = g_ptr_array_new ();

  for (guint f = 0; f < n_all_formats; f++) {
    const GstVideoFormatInfo *finfo =
        gst_video_format_get_info (gst_video_format_from_string
        (all_formats[f]));
    if (g_ptr_array_find_with_equal_func (cuda, all_formats[f], g_str_equal,
            NULL) && GST_VIDEO_FORMAT_INFO_N_PLANES (finfo) == 1
        && GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo) == 3
        && GST_VIDEO_FORMAT_INFO_W_SUB (finfo, 1) == 1
        && GST_VIDEO_FORMAT_INFO_H_SUB (finfo, 1) == 0)
      g_ptr_array_add (formats, (gpointer) all_formats[f]);
  }
  g_ptr_array_unref (cuda);
  fail_unless (g_ptr_array_find_with_equal_func (formats, "YUY2", g_str_equal,
          NULL) && g_ptr_array_find_with_equal_func (formats, "UYVY",
          g_str_equal, NULL), "YUY2 or UYVY is not taken in CUDA memory");
  return formats;
}

/* Says in the log, without failing either way, how many samples of each
 * component of a random frame GStreamer's own cudaupload ! cudadownload
 * changes (the last V of each odd-width packed 4:2:2 row, where it copies
 * the Y samples' bytes), so that the log shows when that changes. */
static void
report_round_trip (const gchar * format, gint width, gint height)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  GstHarness *h = harness_track (gst_harness_new_parse ("cudaupload ! "
          "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
          "capsfilter caps=video/x-raw"));
  GstCaps *parsed = gst_caps_from_string (caps);
  GString *report = g_string_new (NULL);
  GstVideoFrame fin, fout;
  GstBuffer *in, *out;
  GstVideoInfo info;

  gst_harness_set_src_caps_str (h, caps);
  fail_unless (gst_video_info_from_caps (&info, parsed));
  gst_caps_unref (parsed);
  in = random_frame (&info);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  if (!out) {
    g_string_append (report, " gave no frame");
  } else if (!gst_video_frame_map (&fout, &info, out, GST_MAP_READ)) {
    g_string_append (report, " gave a frame that cannot be mapped");
  } else {
    fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
      const RefImage a = component_image (&fin, c);
      const RefImage b = component_image (&fout, c);
      guint changed = 0;
      for (gint y = 0; y < a.height; y++)
        for (gint x = 0; x < a.width; x++)
          changed += sample (&a, x, y) != sample (&b, x, y);
      g_string_append_printf (report, "%s component %u: %u of %d changed",
          c ? "," : "", c, changed, a.width * a.height);
    }
    gst_video_frame_unmap (&fin);
    gst_video_frame_unmap (&fout);
  }
  g_print ("%s %dx%d through GStreamer's cudaupload ! cudadownload:%s\n",
      format, width, height, report->str);
  g_string_free (report, TRUE);
  if (out)
    gst_buffer_unref (out);
  gst_buffer_unref (in);
  harness_teardown (h);
}

/* Packed 4:2:2 of odd widths with its frames in CUDA memory on either side
 * of the element or both, every sample against the reference as in
 * system memory: the last pair of an odd row holds the row's last U and V
 * but one Y, and its V lies past the bytes of the Y samples, where a copy
 * or a read sized by the Y samples stops short. Radius 1 and 2 under each
 * border (wrap reads the first columns from the last ones), at 97x35 and
 * 641x359 (97x35 alone with CUDACONV_TEST_QUICK). */
GST_START_TEST (test_packed_422_odd_widths_in_cuda_memory)
{
  static const gint sizes[][2] = { {97, 35}, {641, 359} };
  const guint n_sizes = g_getenv ("CUDACONV_TEST_QUICK") ? 1 :
      G_N_ELEMENTS (sizes);
  GPtrArray *formats = packed_422_cuda_formats ();
  TestMatrix m[2];

  matrix_random (&m[0], 3, FALSE);
  /* signed weights around mid-level saturate at both ends */
  matrix_random (&m[1], 5, TRUE);
  m[1].offset = 128.0;
  for (guint f = 0; f < formats->len; f++) {
    const gchar *format = g_ptr_array_index (formats, f);
    for (guint s = 0; s < n_sizes; s++) {
      report_round_trip (format, sizes[s][0], sizes[s][1]);
      for (guint k = 0; k < G_N_ELEMENTS (memory_paths); k++) {
        PathHarness ph;

        path_harness_start (&ph, &memory_paths[k], format, sizes[s][0],
            sizes[s][1]);
        for (guint r = 0; r < G_N_ELEMENTS (m); r++)
          for (gint border = REF_BORDER_ZERO; border <= REF_BORDER_WRAP;
              border++)
            check_format_on_path (&ph, &m[r], (RefBorder) border, NULL);
        check_path_memory (&ph);
        path_harness_stop (&ph);
      }
    }
  }
  g_free (m[0].text);
  g_free (m[1].text);
  g_ptr_array_unref (formats);
}

GST_END_TEST;

/* kernel=edge channels=u+v through ph: Y leaves as it came, and U and V
 * are neutral (gray-edges, the default) or the Laplacian preset's
 * response, which sums to 0 and so is divided by 1 (gray-edges=false). */
static void
check_edge_chroma (PathHarness * ph)
{
  static const double laplacian[9] = { -1, -1, -1, -1, 8, -1, -1, -1, -1 };
  GstElement *conv = ph->h->element;
  TestMatrix m = { .side = 3, .divisor = 1.0 };

  memcpy (m.w, laplacian, sizeof (laplacian));
  gst_util_set_object_arg (G_OBJECT (conv), "kernel", "edge");
  gst_util_set_object_arg (G_OBJECT (conv), "border", "clamp");
  gst_util_set_object_arg (G_OBJECT (conv), "channels", "u+v");
  g_object_set (conv, "offset", 0.0, NULL);
  for (gint gray = 1; gray >= 0; gray--) {
    g_autofree gchar *what = g_strdup_printf ("%s: %s %dx%d kernel=edge "
        "channels=u+v gray-edges=%s", ph->path->what,
        GST_VIDEO_INFO_NAME (&ph->info), GST_VIDEO_INFO_WIDTH (&ph->info),
        GST_VIDEO_INFO_HEIGHT (&ph->info), gray ? "true" : "false");
    Pushed p;

    g_object_set (conv, "gray-edges", gray, NULL);
    push_frame_on_path (ph, &p);
    check_component (&p.fin, &p.fout, 0, EXPECT_COPY, NULL, NULL, 0, what);
    for (gint c = 1; c < 3; c++)
      check_component (&p.fin, &p.fout, c, gray ? EXPECT_FILL :
          EXPECT_FILTERED, &m, NULL, REF_BORDER_CLAMP, what);
    pushed_release (&p);
  }
  g_object_set (conv, "gray-edges", TRUE, NULL);
}

/* test_every_channel_subset's check for packed 4:2:2 with its frames in
 * CUDA memory on either side of the element or both, at odd widths: the
 * selected components filtered, the others exactly as they came, in every
 * pair of a row up to the last, whose V lies past the Y samples' bytes.
 * Every non-empty set under a random matrix; two of the three under the
 * centre-only matrix, which gives back each selected sample as it was;
 * and the edge preset on U and V, whose chroma is neutral unless
 * gray-edges=false. */
GST_START_TEST (test_channel_subsets_in_cuda_memory)
{
  static const gint sizes[][2] = { {97, 35}, {13, 3} };
  static const gchar *sets[] = { "y", "u", "v", "y+u", "y+v", "u+v",
    "y+u+v"
  };
  static const gchar *pairs[] = { "u+v", "y+u", "y+v" };
  const guint n_sizes = g_getenv ("CUDACONV_TEST_QUICK") ? 1 :
      G_N_ELEMENTS (sizes);
  GPtrArray *formats = packed_422_cuda_formats ();
  TestMatrix m, centre = { .side = 3, .w = {[4] = 1.0}, .divisor = 1.0,
    .text = (gchar *) "0,0,0;0,1,0;0,0,0"
  };

  matrix_random (&m, 3, FALSE);
  for (guint f = 0; f < formats->len; f++) {
    const gchar *format = g_ptr_array_index (formats, f);
    for (guint s = 0; s < n_sizes; s++) {
      for (guint k = 0; k < G_N_ELEMENTS (memory_paths); k++) {
        PathHarness ph;

        path_harness_start (&ph, &memory_paths[k], format, sizes[s][0],
            sizes[s][1]);
        for (guint c = 0; c < G_N_ELEMENTS (sets); c++)
          check_format_on_path (&ph, &m, REF_BORDER_CLAMP, sets[c]);
        for (guint c = 0; c < G_N_ELEMENTS (pairs); c++)
          check_format_on_path (&ph, &centre, REF_BORDER_CLAMP, pairs[c]);
        check_edge_chroma (&ph);
        check_path_memory (&ph);
        path_harness_stop (&ph);
      }
    }
  }
  g_free (m.text);
  g_ptr_array_unref (formats);
}

GST_END_TEST;

/* One setting of test_replayed_frames_in_cuda_memory: the matrix's side,
 * whether it is a new matrix, the strategy, the border */
typedef struct {
  gint side;
  gboolean new_matrix;
  const gchar *strategy;
  RefBorder border;
} ReplaySetting;

/* Frames in CUDA memory on both sides replay the kernels their frame slot
 * recorded (a CUDA graph) with each frame's planes. Settings that keep the
 * launches (other taps, another border) replay too; those that change
 * them (radius, strategy, a channel set that leaves a plane copied) are
 * launched one by one and recorded again; under strategy=auto a border
 * change asks for new timings, which run outside any graph. Three frames
 * of each setting, every frame checked against the reference, planar,
 * semi-planar and packed formats at odd sizes; the back end must have
 * recorded at least once, far less often than it filtered, and no graph
 * may have failed. */
GST_START_TEST (test_replayed_frames_in_cuda_memory)
{
  static const gchar *formats[] = { "I420", "NV12", "RGBA", "Y444_16LE" };
  static const ReplaySetting settings[] = {
    {3, TRUE, "tiled-halo", REF_BORDER_CLAMP},
    {3, TRUE, "tiled-halo", REF_BORDER_MIRROR},
    {3, FALSE, "auto", REF_BORDER_MIRROR},
    {3, FALSE, "auto", REF_BORDER_WRAP},
    {3, TRUE, "auto", REF_BORDER_WRAP},
    {5, TRUE, "cache-halo", REF_BORDER_ZERO},
    {5, TRUE, "cache-halo", REF_BORDER_CLAMP},
    {7, TRUE, "tiled-halo", REF_BORDER_CLAMP},
  };
  const MemoryPath *both = NULL;
  GraphCounts graphs;
  gint frames = 0;

  for (guint k = 0; k < G_N_ELEMENTS (memory_paths); k++)
    if (memory_paths[k].cuda_in && memory_paths[k].cuda_out)
      both = &memory_paths[k];
  fail_unless (both != NULL);
  /* the back end's DEBUG lines are counted, not printed */
  graph_counts_start (&graphs);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    PathHarness ph;
    TestMatrix m = { 0 };

    path_harness_start (&ph, both, formats[f], 61, 37);
    for (guint s = 0; s < G_N_ELEMENTS (settings); s++) {
      const ReplaySetting *set = &settings[s];

      if (set->new_matrix) {
        g_free (m.text);
        matrix_random (&m, set->side, s % 2 == 1);
      }
      gst_util_set_object_arg (G_OBJECT (ph.h->element), "strategy",
          set->strategy);
      for (gint n = 0; n < 3; n++, frames++)
        check_format_on_path (&ph, &m, set->border, NULL);
    }
    /* a channel set that leaves a plane or component as it came, then all
     * of them again, whose launches the slot recorded before */
    check_format_on_path (&ph, &m, REF_BORDER_CLAMP, "y");
    for (gint n = 0; n < 3; n++, frames++)
      check_format_on_path (&ph, &m, REF_BORDER_CLAMP, NULL);
    g_free (m.text);
    check_path_memory (&ph);
    path_harness_stop (&ph);
  }
  graph_counts_stop ();
  fail_unless (g_atomic_int_get (&graphs.failed) == 0,
      "a frame graph failed (see the cudaconv INFO log)");
  fail_unless (g_atomic_int_get (&graphs.recorded) > 0
      && 2 * g_atomic_int_get (&graphs.recorded) < frames,
      "%d recordings for %d frames of kernels only",
      g_atomic_int_get (&graphs.recorded), frames);
}

GST_END_TEST;

static GstPadProbeReturn
count_foreign_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstCudaContext *ours = g_object_get_data (G_OBJECT (pad), "context");
  GstMemory *memory = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER
      (info), 0);

  if (gst_is_cuda_memory (memory)
      && GST_CUDA_MEMORY_CAST (memory)->context != ours)
    g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

/* CUDA memory of another context (here two contexts of one device, given
 * to cudaupload and cudaconv before they start; two devices take the same
 * path) is copied into the element's own context, never read through it:
 * the frames come out as the CPU backend filters them. */
GST_START_TEST (test_foreign_cuda_context)
{
  GstElement *pipeline = pipeline_launch ("videotestsrc num-buffers=3 "
      "pattern=snow ! video/x-raw,format=I420,width=98,height=67 ! tee name=t "
      "t. ! queue ! cudaupload name=up ! video/x-raw(memory:CUDAMemory) ! "
      "cudaconv name=g backend=cuda kernel=gaussian radius=2 ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! "
      "appsink name=gpu sync=false "
      "t. ! queue ! cudaconv backend=cpu kernel=gaussian radius=2 ! "
      "appsink name=cpu sync=false", NULL);
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstElement *g = gst_bin_get_by_name (GST_BIN (pipeline), "g");
  GstElement *gpu = gst_bin_get_by_name (GST_BIN (pipeline), "gpu");
  GstElement *cpu = gst_bin_get_by_name (GST_BIN (pipeline), "cpu");
  GstPad *sink = gst_element_get_static_pad (g, "sink");
  GstCudaContext *a, *b;
  GstContext *ca, *cb;
  gint foreign = 0;

  fail_unless (gst_cuda_load_library ());
  a = gst_cuda_context_new (0);
  b = gst_cuda_context_new (0);
  fail_unless (a && b, "cannot make two CUDA contexts on device 0");
  ca = gst_context_new_cuda_context (a);
  cb = gst_context_new_cuda_context (b);
  gst_element_set_context (up, ca);
  gst_element_set_context (g, cb);
  g_object_set_data (G_OBJECT (sink), "context", b);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, count_foreign_buffers,
      &foreign, NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (gint n = 0; n < 3; n++) {
    GstSample *sa = NULL, *sb = NULL;
    gchar *why = NULL;

    g_signal_emit_by_name (gpu, "try-pull-sample", 10 * GST_SECOND, &sa);
    g_signal_emit_by_name (cpu, "try-pull-sample", 10 * GST_SECOND, &sb);
    fail_unless (sa && sb, "frame %d did not come out of the %s branch", n,
        sa ? "CPU" : "CUDA");
    fail_unless (frames_within_one (sa, sb, &why), "frame %d: %s", n, why);
    gst_sample_unref (sa);
    gst_sample_unref (sb);
  }
  fail_unless (g_atomic_int_get (&foreign) == 3,
      "%d of 3 frames came in memory of another context: cudaupload took "
      "cudaconv's pool", foreign);
  pipeline_stop (pipeline);
  gst_context_unref (ca);
  gst_context_unref (cb);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (sink);
  gst_object_unref (up);
  gst_object_unref (g);
  gst_object_unref (gpu);
  gst_object_unref (cpu);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A small H.264 stream decoded by NVDEC into CUDA memory and filtered
 * there gives what the CPU backend gives for the same decoded frames,
 * within one step; 98x66 is coded as 112x80, so the decoder crops. */
GST_START_TEST (test_nvdec_frames)
{
  gchar *media = g_build_filename (g_getenv ("CUDACONV_TEST_MEDIA"),
      "snow-98x66.h264", NULL);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "nvh264dec ! tee name=t "
      "t. ! queue ! cudaconv name=g backend=cuda kernel=gaussian radius=2 ! "
      "cudadownload ! video/x-raw ! appsink name=gpu sync=false "
      "t. ! queue ! cudadownload ! video/x-raw ! cudaconv backend=cpu "
      "kernel=gaussian radius=2 ! appsink name=cpu sync=false", media);
  GstElementFactory *decoder = gst_element_factory_find ("nvh264dec");
  GError *err = NULL;
  GstElement *pipeline, *g, *gpu, *cpu;
  guint frames = 0;

  /* GStreamer registers NVDEC's decoders only where the GPU has NVDEC */
  fail_unless (decoder != NULL, "nvh264dec is not registered");
  gst_object_unref (decoder);
  pipeline = pipeline_launch (desc, &err);
  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  g = gst_bin_get_by_name (GST_BIN (pipeline), "g");
  gpu = gst_bin_get_by_name (GST_BIN (pipeline), "gpu");
  cpu = gst_bin_get_by_name (GST_BIN (pipeline), "cpu");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstSample *a = NULL, *b = NULL;
    gchar *why = NULL;

    g_signal_emit_by_name (gpu, "try-pull-sample", 10 * GST_SECOND, &a);
    g_signal_emit_by_name (cpu, "try-pull-sample", 10 * GST_SECOND, &b);
    if (!a && !b)
      break;
    fail_unless (a && b, "frame %u came out of one branch only", frames);
    fail_unless (frames_within_one (a, b, &why), "frame %u: %s", frames, why);
    gst_sample_unref (a);
    gst_sample_unref (b);
    frames++;
  }
  fail_unless_equals_int (frames, 6);
  fail_unless (pad_in_cuda_memory (g, "sink"),
      "the decoder's frames did not come in CUDA memory");
  fail_unless (pad_in_cuda_memory (g, "src"),
      "the filtered frames did not leave in CUDA memory");
  pipeline_stop (pipeline);
  gst_object_unref (g);
  gst_object_unref (gpu);
  gst_object_unref (cpu);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (media);
}

GST_END_TEST;
#endif

static void
add_tests (TCase * tc)
{
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
  /* first: it checks that no test before it made the primary context
   * current */
  tcase_add_test (tc, test_shared_cuda_context);
  tcase_add_test (tc, test_cuda_memory_frames);
  tcase_add_test (tc, test_packed_422_odd_widths_in_cuda_memory);
  tcase_add_test (tc, test_channel_subsets_in_cuda_memory);
  tcase_add_test (tc, test_replayed_frames_in_cuda_memory);
  tcase_add_test (tc, test_nvdec_frames);
  tcase_add_test (tc, test_foreign_cuda_context);
#endif
}

const ElementTopic element_topic = { "memory", add_tests, NULL };

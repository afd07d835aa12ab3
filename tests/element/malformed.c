/* cudaconv element tests: input that is not a plain frame of the caps.
 * Crop metas (a picture inside the frame, or the caps' picture inside a
 * larger buffer); buffers too short, with bad metas, strides or offsets,
 * planes across memories; GAP buffers; drops between frames in flight and
 * the rate of the warnings they give. */
#include "harness.h"

/* A frame with a crop meta: the meta goes on with the output, the
 * picture is filtered with its borders at the crop rectangle's edges, and
 * what lies outside (a decoder's rows below 1080 of 1088) leaves as it
 * came, bleeding nothing into the picture. */
static void
check_crop (const gchar * format, gint width, gint height, gint cx, gint cy,
    gint cw, gint ch)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  GstHarness *h = harness_new (caps);
  GstVideoInfo info;
  GstVideoCropMeta *crop;
  TestMatrix m;
  Pushed p;
  GstBuffer *in;

  matrix_random (&m, 7, FALSE);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", m.text, NULL);
  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  in = random_frame (&info);
  make_well_formed (in, &info);
  crop = gst_buffer_add_video_crop_meta (in);
  crop->x = cx;
  crop->y = cy;
  crop->width = cw;
  crop->height = ch;
  push_frame (h, &info, in, &p);
  check_cropped_frame (&p, &m, cx, cy, cw, ch, caps);
  pushed_release (&p);
  gst_buffer_unref (in);
  g_free (m.text);
  harness_teardown (h);
}

GST_START_TEST (test_crop_meta)
{
  GstHarness *h;
  GstBus *bus;
  GstVideoInfo info;
  GstBuffer *in;
  GstVideoCropMeta *crop;

  /* a decoder's 1088 rows, 1080 of them the picture (scaled down) */
  check_crop ("I420", 64, 72, 0, 0, 64, 64);
  check_crop ("NV12", 64, 72, 0, 0, 64, 64);
  check_crop ("P010_10LE", 64, 72, 0, 0, 64, 64);
  /* odd offsets and sizes cut subsampled chroma mid-sample */
  check_crop ("I420", 61, 47, 5, 3, 41, 37);
  check_crop ("YUY2", 61, 47, 3, 2, 40, 31);
  check_crop ("RGBA", 40, 30, 7, 4, 20, 19);
  check_crop ("Y444_10LE", 40, 30, 1, 1, 1, 1);

  /* a crop rectangle outside the frame: the frame is dropped, with a
   * warning that says why */
  h = harness_new ("video/x-raw,format=GRAY8,width=32,height=16,"
      "framerate=30/1");
  bus = harness_bus (h);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 32, 16);
  in = random_frame (&info);
  crop = gst_buffer_add_video_crop_meta (in);
  crop->x = 20;
  crop->width = 20;
  crop->height = 16;
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  fail_unless (gst_harness_try_pull (h) == NULL);
  expect_warning (bus, "crop meta", "crop outside the frame");
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* ---- malformed input: every buffer the element cannot read as a frame of
 * its caps is dropped with a warning, and the stream goes on ---- */

/* size random bytes with a video meta of the given layout */
static GstBuffer *
buffer_with_meta (gsize size, GstVideoFormat format, guint width,
    guint height, const gsize * offsets, const gint * strides)
{
  GstBuffer *buf = random_bytes (size);
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);

  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
      width, height, GST_VIDEO_FORMAT_INFO_N_PLANES (finfo), (gsize *) offsets,
      (gint *) strides);
  return buf;
}

/* The caps' picture inside a larger buffer, as decoders and videocrop send
 * it (picture_in_larger_buffer): a video meta of the buffer's size and a
 * crop meta of the caps' size at (cx, cy). The output must be the frame that the same picture copied
 * out on its own gives (what upstream sends when crop metas are refused),
 * with no crop meta left: the same samples on the CPU back end, within 1
 * on the CUDA one, whose strategy timed for the picture in its larger rows
 * may pick another family than for the copied one. Packed 4:2:2 takes even
 * cx, v210 multiples of 6 (their pixel groups); 4:2:0 chroma starts at
 * cy / 2 rounded down. */
static void
check_crop_picture (const gchar * format, gint width, gint height,
    gint buffer_width, gint buffer_height, gint cx, gint cy)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  const GstVideoFormat fmt = gst_video_format_from_string (format);
  GstHarness *copied = harness_new (caps), *cropped = harness_new (caps);
  GstVideoInfo info;
  GstVideoFrame fa, fb;
  GstBuffer *big, *pic, *out_a, *out_b;
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  set_custom_matrix (copied, &m);
  set_custom_matrix (cropped, &m);
  gst_video_info_set_format (&info, fmt, width, height);
  big = picture_in_larger_buffer (fmt, width, height, buffer_width,
      buffer_height, cx, cy, &pic);

  out_a = gst_harness_push_and_pull (copied, gst_buffer_ref (pic));
  out_b = gst_harness_push_and_pull (cropped, gst_buffer_ref (big));
  fail_unless (out_a && out_b, "%s: no output", caps);
  fail_unless (gst_buffer_get_video_crop_meta (out_b) == NULL,
      "%s: the applied crop meta went on", caps);
  fail_unless (gst_video_frame_map (&fa, &info, out_a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &info, out_b, GST_MAP_READ));
  if (fmt == GST_VIDEO_FORMAT_v210) {
    Unpacked ua, ub;
    unpacked_from_frame (&fa, &ua);
    unpacked_from_frame (&fb, &ub);
    for (guint k = 0; k < ua.n; k++)
      fail_unless (memcmp (ua.c[k], ub.c[k],
              sizeof (guint16) * width * height) == 0,
          "%s crop at %d,%d: component %d differs from the copied picture's",
          caps, cx, cy, k);
    unpacked_clear (&ua);
    unpacked_clear (&ub);
  } else {
#ifdef ELEMENT_CUDA
    const guint tolerance = 1;
#else
    const guint tolerance = 0;
#endif
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
      const RefImage a = component_image (&fa, c);
      const RefImage b = component_image (&fb, c);
      for (gint y = 0; y < a.height; y++)
        for (gint x = 0; x < a.width; x++) {
          const guint ra = sample (&a, x, y), rb = sample (&b, x, y);
          const guint va = ra >> a.shift, vb = rb >> b.shift;
          /* the bits below the value as they are */
          if ((va > vb ? va - vb : vb - va) > tolerance
              || ((ra ^ rb) & ((1u << a.shift) - 1)))
            fail ("%s crop at %d,%d: component %u at %d,%d is 0x%x, the "
                "copied picture gave 0x%x", caps, cx, cy, c, x, y,
                sample (&b, x, y), sample (&a, x, y));
        }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  /* and the copied picture itself against the reference */
  if (fmt != GST_VIDEO_FORMAT_v210)
    check_pushed_frame (&info, pic, out_a, &m, caps);
  gst_buffer_unref (out_a);
  gst_buffer_unref (out_b);
  gst_buffer_unref (pic);
  gst_buffer_unref (big);
  harness_teardown (copied);
  harness_teardown (cropped);
  g_free (m.text);
}

GST_START_TEST (test_crop_picture)
{
  /* videocrop top=8 of a decoder's 1088 rows (scaled down) */
  check_crop_picture ("I420", 64, 64, 64, 72, 0, 8);
  check_crop_picture ("I420", 41, 37, 61, 47, 5, 3);
  check_crop_picture ("NV12", 40, 30, 48, 40, 3, 4);
  check_crop_picture ("P010_10LE", 64, 64, 64, 72, 0, 8);
  check_crop_picture ("YUY2", 40, 31, 61, 47, 4, 3);
  check_crop_picture ("UYVY", 21, 9, 31, 17, 6, 8);
  check_crop_picture ("RGBx", 20, 19, 40, 30, 7, 4);
  check_crop_picture ("BGR", 21, 11, 33, 20, 5, 9);
  check_crop_picture ("Y444_10LE", 13, 7, 40, 30, 1, 1);
  check_crop_picture ("GBR", 17, 15, 24, 20, 7, 5);
  check_crop_picture ("v210", 50, 9, 80, 16, 6, 3);
  check_crop_picture ("v210", 13, 5, 40, 12, 24, 7);
}

GST_END_TEST;

/* Pushes bad: nothing comes out and one warning mentions the problem; the
 * good frame pushed next comes out filtered and marked DISCONT, since a
 * frame is missing before it. */
static void
check_dropped (const gchar * format, gint width, gint height, GstBuffer * bad,
    const gchar * mention)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  g_autofree gchar *what = g_strdup_printf ("%s %dx%d, expecting \"%s\"",
      format, width, height, mention);
  GstHarness *h = harness_new (caps);
  GstBus *bus = harness_bus (h);
  GstVideoInfo info;
  GstBuffer *good, *out;
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  set_custom_matrix (h, &m);
  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  fail_unless_equals_int (gst_harness_push (h, bad), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  expect_warning (bus, mention, what);

  good = random_frame (&info);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (good));
  fail_unless (out != NULL, "%s: no frame after the dropped one", what);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT),
      "%s: the frame after the dropped one is not marked DISCONT", what);
  check_pushed_frame (&info, good, out, &m, what);
  gst_buffer_unref (good);
  gst_buffer_unref (out);
  g_free (m.text);
  harness_teardown_with_bus (h, bus);
}

GST_START_TEST (test_short_buffers)
{
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 37, 23);
  check_dropped ("I420", 37, 23, random_bytes (info.size - 1), "too short");
  check_dropped ("I420", 37, 23, random_bytes (info.size / 2), "too short");
  check_dropped ("I420", 37, 23, random_bytes (1), "too short");
  check_dropped ("I420", 37, 23, gst_buffer_new (), "too short");
}

GST_END_TEST;

/* The caps of a 2 GB frame and a buffer of 4 KB: dropped before an output
 * buffer is taken for it (2 GB of memory each, otherwise). */
GST_START_TEST (test_short_buffer_huge_caps)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=2147483644,"
      "height=1,framerate=30/1");
  GstBus *bus = harness_bus (h);

  for (gint i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, random_bytes (4096)),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  expect_warning (bus, "too short", "4 KB for a 2 GB frame");
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

GST_START_TEST (test_bad_video_metas)
{
  GstVideoInfo gray, i420, gray16;
  gsize offsets[4] = { 0 };
  gint strides[4] = { 64 };

  gst_video_info_set_format (&gray, GST_VIDEO_FORMAT_GRAY8, 64, 16);
  gst_video_info_set_format (&i420, GST_VIDEO_FORMAT_I420, 64, 16);
  gst_video_info_set_format (&gray16, GST_VIDEO_FORMAT_GRAY16_LE, 32, 8);

  /* a meta smaller than the caps */
  check_dropped ("GRAY8", 64, 16, buffer_with_meta (gray.size,
          GST_VIDEO_FORMAT_GRAY8, 64, 8, offsets, strides), "smaller");
  check_dropped ("GRAY8", 64, 16, buffer_with_meta (gray.size,
          GST_VIDEO_FORMAT_GRAY8, 32, 16, offsets, strides), "smaller");
  /* another format */
  check_dropped ("GRAY8", 64, 16, buffer_with_meta (gray.size * 2,
          GST_VIDEO_FORMAT_GRAY16_LE, 64, 16, offsets, (gint[GST_VIDEO_MAX_PLANES]) {128}),
      "GRAY16_LE");
  /* strides four times too long for the buffer */
  for (gint p = 0; p < 3; p++) {
    offsets[p] = i420.offset[p];
    strides[p] = 4 * i420.stride[p];
  }
  check_dropped ("I420", 64, 16, buffer_with_meta (i420.size,
          GST_VIDEO_FORMAT_I420, 64, 16, offsets, strides), "needs");
  /* the V plane starting at the buffer's last byte */
  for (gint p = 0; p < 3; p++)
    strides[p] = i420.stride[p];
  offsets[2] = i420.size - 1;
  check_dropped ("I420", 64, 16, buffer_with_meta (i420.size,
          GST_VIDEO_FORMAT_I420, 64, 16, offsets, strides), "plane 2");
  /* a plane starting beyond the buffer */
  offsets[2] = i420.size + 100;
  check_dropped ("I420", 64, 16, buffer_with_meta (i420.size,
          GST_VIDEO_FORMAT_I420, 64, 16, offsets, strides), "plane 2");
  /* 16-bit samples on an odd stride, then an odd offset */
  offsets[0] = 0;
  check_dropped ("GRAY16_LE", 32, 8, buffer_with_meta (gray16.size + 16,
          GST_VIDEO_FORMAT_GRAY16_LE, 32, 8, offsets, (gint[GST_VIDEO_MAX_PLANES]) {65}), "odd");
  offsets[0] = 1;
  check_dropped ("GRAY16_LE", 32, 8, buffer_with_meta (gray16.size + 16,
          GST_VIDEO_FORMAT_GRAY16_LE, 32, 8, offsets, (gint[GST_VIDEO_MAX_PLANES]) {64}), "odd");
  /* negative (bottom-up) and zero strides, and one shorter than a row */
  offsets[0] = gray.size - 64;
  check_dropped ("GRAY8", 64, 16, buffer_with_meta (gray.size,
          GST_VIDEO_FORMAT_GRAY8, 64, 16, offsets, (gint[GST_VIDEO_MAX_PLANES]) {-64}),
      "positive");
  offsets[0] = 0;
  check_dropped ("GRAY8", 64, 16, buffer_with_meta (gray.size,
          GST_VIDEO_FORMAT_GRAY8, 64, 16, offsets, (gint[GST_VIDEO_MAX_PLANES]) {0}), "positive");
  check_dropped ("GRAY8", 64, 16, buffer_with_meta (gray.size,
          GST_VIDEO_FORMAT_GRAY8, 64, 16, offsets, (gint[GST_VIDEO_MAX_PLANES]) {63}), "shorter");
}

GST_END_TEST;

/* A buffer of one memory per plane, as some decoders and capture elements
 * make them, with a meta; split_plane0 cuts plane 0 across two memories,
 * which a mapping cannot show as one plane. */
static GstBuffer *
planes_in_memories (const GstVideoInfo * info, gboolean split_plane0)
{
  GstBuffer *buf = gst_buffer_new ();
  gsize offsets[GST_VIDEO_MAX_PLANES], offset = 0;
  gint strides[GST_VIDEO_MAX_PLANES];

  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize size = (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, p) *
        GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    offsets[p] = offset;
    strides[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
    if (p == 0 && split_plane0) {
      GstBuffer *head = random_bytes (size / 2), *tail =
          random_bytes (size - size / 2);
      gst_buffer_append_memory (buf, gst_buffer_get_memory (head, 0));
      gst_buffer_append_memory (buf, gst_buffer_get_memory (tail, 0));
      gst_buffer_unref (head);
      gst_buffer_unref (tail);
    } else {
      GstBuffer *plane = random_bytes (size);
      gst_buffer_append_memory (buf, gst_buffer_get_memory (plane, 0));
      gst_buffer_unref (plane);
    }
    offset += size;
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info), offsets,
      strides);
  return buf;
}

static gchar *
caps_string_of (const GstVideoInfo * info)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  gchar *s = gst_caps_to_string (caps);
  gst_caps_unref (caps);
  return s;
}

/* Valid layouts the caps alone do not describe: each is filtered right. */
static void
check_layout (const GstVideoInfo * info, GstBuffer * in, const gchar * what)
{
  g_autofree gchar *caps = caps_string_of (info);
  GstHarness *h = harness_new (caps);
  GstBus *bus = harness_bus (h);
  GstBuffer *out;
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  set_custom_matrix (h, &m);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no output", what);
  check_pushed_frame (info, in, out, &m, what);
  fail_if (bus_has_problem (bus), "%s: a message on the bus", what);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_free (m.text);
  harness_teardown_with_bus (h, bus);
}

GST_START_TEST (test_unusual_layouts)
{
  GstVideoInfo info, large;
  gsize offsets[4] = { 0 };
  gint strides[4];

  /* a meta taller, then wider, than the caps: the caps' rows and columns
   * are filtered, with the border at the caps' edges */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 16);
  info.fps_n = 30;
  gst_video_info_set_format (&large, GST_VIDEO_FORMAT_GRAY8, 64, 32);
  strides[0] = large.stride[0];
  check_layout (&info, buffer_with_meta (large.size, GST_VIDEO_FORMAT_GRAY8,
          64, 32, offsets, strides), "meta taller than the caps");
  gst_video_info_set_format (&large, GST_VIDEO_FORMAT_GRAY8, 96, 16);
  strides[0] = large.stride[0];
  check_layout (&info, buffer_with_meta (large.size, GST_VIDEO_FORMAT_GRAY8,
          96, 16, offsets, strides), "meta wider than the caps");
  /* planes in memories of their own */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 37, 23);
  info.fps_n = 30;
  check_layout (&info, planes_in_memories (&info, FALSE),
      "one memory per plane");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 38, 22);
  info.fps_n = 30;
  check_layout (&info, planes_in_memories (&info, FALSE),
      "NV12, one memory per plane");
  /* a plane cut across two memories cannot be read as one */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 37, 23);
  check_dropped ("I420", 37, 23, planes_in_memories (&info, TRUE), "needs");
}

GST_END_TEST;

/* A GAP buffer goes on as a GAP event at its time, empty or not, and the
 * stream goes on. */
GST_START_TEST (test_gap_buffers)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=37,height=23,"
      "framerate=30/1");
  GstBus *bus = harness_bus (h);
  GstVideoInfo info;
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  set_custom_matrix (h, &m);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 37, 23);
  for (gint full = 0; full < 2; full++) {
    GstBuffer *gap = full ? random_frame (&info) : gst_buffer_new ();
    GstBuffer *good, *out;
    GstEvent *event;
    GstClockTime ts, duration;

    GST_BUFFER_PTS (gap) = (1 + full) * GST_SECOND;
    GST_BUFFER_DURATION (gap) = GST_SECOND / 30;
    GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
    while ((event = gst_harness_try_pull_event (h)))
      gst_event_unref (event);
    fail_unless_equals_int (gst_harness_push (h, gap), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
    event = gst_harness_try_pull_event (h);
    fail_unless (event && GST_EVENT_TYPE (event) == GST_EVENT_GAP,
        "no GAP event for a GAP buffer");
    gst_event_parse_gap (event, &ts, &duration);
    fail_unless_equals_uint64 (ts, (1 + full) * GST_SECOND);
    fail_unless_equals_uint64 (duration, GST_SECOND / 30);
    gst_event_unref (event);

    good = random_frame (&info);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (good));
    check_pushed_frame (&info, good, out, &m, "the frame after a gap");
    gst_buffer_unref (good);
    gst_buffer_unref (out);
  }
  fail_if (bus_has_problem (bus), "a message for a GAP buffer");
  g_free (m.text);
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* With frames in flight on the GPU (async-depth=3), a dropped buffer and a
 * gap leave the frames around them in order and filtered right. */
GST_START_TEST (test_dropped_between_frames_in_flight)
{
  GstHarness *h = harness_new_with_depth ("video/x-raw,format=I420,width=67,"
      "height=45,framerate=30/1", 3);
  GstBus *bus = harness_bus (h);
  GstBuffer *in[4];
  GstVideoInfo info;
  TestMatrix m;

  matrix_random (&m, 5, TRUE);
  set_custom_matrix (h, &m);
  g_object_set (h->element, "divisor", m.divisor, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 67, 45);
  for (guint k = 0; k < G_N_ELEMENTS (in); k++) {
    in[k] = random_frame (&info);
    GST_BUFFER_PTS (in[k]) = k * GST_SECOND;
  }
  gst_harness_push (h, gst_buffer_ref (in[0]));
  gst_harness_push (h, gst_buffer_ref (in[1]));
  fail_unless_equals_int (gst_harness_push (h, random_bytes (100)),
      GST_FLOW_OK);
  {
    GstBuffer *gap = gst_buffer_new ();
    GST_BUFFER_PTS (gap) = 5 * GST_SECOND;
    GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
    fail_unless_equals_int (gst_harness_push (h, gap), GST_FLOW_OK);
  }
  gst_harness_push (h, gst_buffer_ref (in[2]));
  gst_harness_push (h, gst_buffer_ref (in[3]));
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 4);
  for (guint k = 0; k < G_N_ELEMENTS (in); k++) {
    GstBuffer *out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * GST_SECOND);
    check_pushed_frame (&info, in[k], out, &m, "around a dropped buffer");
    gst_buffer_unref (out);
    gst_buffer_unref (in[k]);
  }
  expect_warning (bus, "too short", "a short buffer between frames");
  g_free (m.text);
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* A stream of bad buffers gives one warning a second, not one a buffer. */
GST_START_TEST (test_drop_warnings_rate_limited)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=16,height=16,"
      "framerate=30/1");
  GstBus *bus = harness_bus (h);
  const gint64 start = g_get_monotonic_time ();
  guint warnings = 0;
  GstMessage *msg;

  for (gint i = 0; i < 50; i++)
    fail_unless_equals_int (gst_harness_push (h, random_bytes (100)),
        GST_FLOW_OK);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    warnings++;
    gst_message_unref (msg);
  }
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  fail_unless (warnings >= 1);
  fail_unless (warnings <= 1 + (g_get_monotonic_time () - start) /
      G_USEC_PER_SEC, "%u warnings for 50 bad buffers", warnings);
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

static void
add_tests (TCase * tc)
{
  tcase_add_test (tc, test_crop_meta);
  tcase_add_test (tc, test_crop_picture);
  tcase_add_test (tc, test_short_buffers);
  tcase_add_test (tc, test_short_buffer_huge_caps);
  tcase_add_test (tc, test_bad_video_metas);
  tcase_add_test (tc, test_unusual_layouts);
  tcase_add_test (tc, test_gap_buffers);
  tcase_add_test (tc, test_dropped_between_frames_in_flight);
  tcase_add_test (tc, test_drop_warnings_rate_limited);
}

const ElementTopic element_topic = { "malformed", add_tests, NULL };

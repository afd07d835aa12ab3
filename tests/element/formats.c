/* cudaconv element tests: formats. Every format at odd sizes and under
 * every border, every set of its components selected (packed 4:2:2 pairs
 * included), alpha, padding bytes, tiny frames, the presets on them,
 * offsets at every depth, interlaced fields and the word-packed formats. */
#include "harness.h"

/* Every format at an odd size (subsampled chroma rounds up, packed 4:2:2
 * ends mid-pair) under radius 1, 2, 3, 7 and 15, the borders in turn. */
GST_START_TEST (test_every_format)
{
  static const int radii[] = { 1, 2, 3, 7, 15 };
  TestMatrix m;

  for (guint f = 0; f < n_all_formats; f++) {
    for (guint k = 0; k < G_N_ELEMENTS (radii); k++) {
      matrix_random (&m, 2 * radii[k] + 1, k % 2);
      check_format (all_formats[f], 37, 23, &m, (RefBorder) (k % 4), NULL);
      g_free (m.text);
    }
  }
}

GST_END_TEST;

/* Every format with every non-empty set of its components selected, at an
 * odd width: what is not selected leaves exactly as it came, also where
 * selected and unselected components share a packed pixel (packed 4:2:2
 * pairs, where Y and chroma have different pixel strides). */
GST_START_TEST (test_every_channel_subset)
{
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  for (guint f = 0; f < n_all_formats; f++) {
    const GstVideoFormatInfo *finfo =
        gst_video_format_get_info (gst_video_format_from_string
        (all_formats[f]));
    const gboolean rgb = GST_VIDEO_FORMAT_INFO_IS_RGB (finfo);
    const guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo);
    const guint all = (GST_VIDEO_FORMAT_INFO_HAS_ALPHA (finfo) ? 8 : 0) |
        ((1u << MIN (n, 3)) - 1);
    static const gchar *yuv_names[] = { "y", "u", "v", "a" };
    static const gchar *rgb_names[] = { "r", "g", "b", "a" };

    for (guint set = 1; set <= all; set++) {
      GString *channels;
      if ((set & all) != set)
        continue;
      channels = g_string_new (NULL);
      for (guint b = 0; b < 4; b++)
        if (set & (1u << b))
          g_string_append_printf (channels, "%s%s", channels->len ? "+" : "",
              rgb ? rgb_names[b] : yuv_names[b]);
      check_format (all_formats[f], 13, 3, &m, REF_BORDER_CLAMP,
          channels->str);
      g_string_free (channels, TRUE);
    }
  }
  g_free (m.text);
}

GST_END_TEST;

GST_START_TEST (test_alpha_selected)
{
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  check_format ("RGBA", 21, 9, &m, REF_BORDER_CLAMP, "r+g+b+a");
  check_format ("AYUV", 21, 9, &m, REF_BORDER_MIRROR, "y+u+v+a");
  check_format ("A420_10LE", 21, 9, &m, REF_BORDER_WRAP, "y+u+v+a");
  check_format ("GBRA_12LE", 21, 9, &m, REF_BORDER_ZERO, "r+g+b+a");
  check_format ("AYUV64", 21, 9, &m, REF_BORDER_CLAMP, "y+u+v+a");
  check_format ("ARGB64", 21, 9, &m, REF_BORDER_MIRROR, "r+g+b+a");
  /* one channel of a packed plane alone: the others stay as they were */
  check_format ("Y210", 21, 9, &m, REF_BORDER_CLAMP, "u");
  check_format ("P010_10LE", 21, 9, &m, REF_BORDER_CLAMP, "v");
  g_free (m.text);
}

GST_END_TEST;

/* The x byte of RGBx-like formats leaves as it came (the CPU backend
 * filters their pixels whole and puts x back). */
GST_START_TEST (test_padding_byte_kept)
{
  static const struct {
    const gchar *format;
    GstVideoFormat f;
    gint x;                     /* byte of x in each pixel */
  } formats[] = {
    {"RGBx", GST_VIDEO_FORMAT_RGBx, 3}, {"xRGB", GST_VIDEO_FORMAT_xRGB, 0},
    {"BGRx", GST_VIDEO_FORMAT_BGRx, 3}, {"xBGR", GST_VIDEO_FORMAT_xBGR, 0}
  };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,"
        "width=33,height=9,framerate=30/1", formats[f].format);
    GstHarness *h = harness_new (caps);
    GstVideoInfo info;
    Pushed p;

    gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "gaussian");
    gst_video_info_set_format (&info, formats[f].f, 33, 9);
    push_frame (h, &info, NULL, &p);
    for (gint y = 0; y < 9; y++)
      for (gint x = 0; x < 33; x++) {
        const gsize at = (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&p.fin, 0)
            + 4 * x + formats[f].x;
        fail_unless_equals_int (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA
                (&p.fout, 0))[at], ((guint8 *)
                GST_VIDEO_FRAME_PLANE_DATA (&p.fin, 0))[at]);
      }
    pushed_release (&p);
    harness_teardown (h);
  }
}

GST_END_TEST;

/* Frames smaller than the filter, and 1x1. */
GST_START_TEST (test_tiny_frames)
{
  TestMatrix m;

  matrix_random (&m, 31, FALSE);
  check_format ("I420", 1, 1, &m, REF_BORDER_MIRROR, NULL);
  check_format ("NV12", 3, 5, &m, REF_BORDER_WRAP, NULL);
  check_format ("RGB", 2, 7, &m, REF_BORDER_ZERO, NULL);
  check_format ("GRAY16_LE", 5, 2, &m, REF_BORDER_CLAMP, NULL);
  g_free (m.text);
}

GST_END_TEST;

/* The gaussian preset matches exp(-(x^2+y^2)/(2 sigma^2)) computed here. */
GST_START_TEST (test_gaussian_preset)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=64,height=48,"
      "framerate=30/1");
  GstVideoInfo info;
  Pushed p;
  TestMatrix m;

  gaussian_matrix (&m, 3, 0.0);
  g_object_set (h->element, "radius", 3, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  push_frame (h, &info, NULL, &p);
  check_component (&p.fin, &p.fout, 0, EXPECT_FILTERED, &m, NULL,
      REF_BORDER_CLAMP, "gaussian radius 3");
  pushed_release (&p);
  harness_teardown (h);
}

GST_END_TEST;

/* Edge presets on YUV give neutral chroma; sobel is a gradient magnitude. */
GST_START_TEST (test_gray_edges)
{
  static const double sx[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const double sy[9] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=40,height=30,"
      "framerate=30/1");
  GstVideoInfo info;
  Pushed p;
  GstBuffer *in;
  TestMatrix m = { .side = 3 };

  memcpy (m.w, sx, sizeof (sx));
  m.divisor = 1.0;
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "sobel");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 40, 30);
  in = random_frame (&info);
  push_frame (h, &info, in, &p);
  check_component (&p.fin, &p.fout, 0, EXPECT_FILTERED, &m, sy,
      REF_BORDER_CLAMP, "sobel luma");
  check_component (&p.fin, &p.fout, 1, EXPECT_FILL, NULL, NULL, 0, "sobel U");
  check_component (&p.fin, &p.fout, 2, EXPECT_FILL, NULL, NULL, 0, "sobel V");
  pushed_release (&p);

  /* gray-edges=false filters chroma like luma */
  g_object_set (h->element, "gray-edges", FALSE, NULL);
  push_frame (h, &info, in, &p);
  check_component (&p.fin, &p.fout, 1, EXPECT_FILTERED, &m, sy,
      REF_BORDER_CLAMP, "sobel U, gray-edges=false");
  pushed_release (&p);
  gst_buffer_unref (in);
  harness_teardown (h);
}

GST_END_TEST;

/* The offset is on the 8-bit scale at every depth; signed weights with
 * offset 128 put the response around mid-level and saturate both ends. */
GST_START_TEST (test_offset_follows_depth)
{
  static const gchar *formats[] = { "GRAY8", "GRAY16_LE", "I420_10LE",
    "Y444_12LE", "P010_10LE", "P012_LE", "Y210", "AYUV64"
  };
  TestMatrix m;

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    matrix_random (&m, 3, TRUE);
    m.offset = 128.0;
    check_format (formats[f], 29, 13, &m, REF_BORDER_MIRROR, NULL);
    g_free (m.text);
  }
}

GST_END_TEST;

/* Neutral chroma of an edge map is 2^(depth - 1), in the sample's own
 * bits: 512 << 6 in P010. */
GST_START_TEST (test_gray_edges_deep)
{
  static const double sx[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const double sy[9] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_Y210
  };
  TestMatrix m = {.side = 3 };

  memcpy (m.w, sx, sizeof (sx));
  m.divisor = 1.0;
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,"
        "width=40,height=30,framerate=30/1",
        gst_video_format_to_string (formats[f]));
    GstHarness *h = harness_new (caps);
    GstVideoInfo info;
    Pushed p;

    gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "sobel");
    gst_video_info_set_format (&info, formats[f], 40, 30);
    push_frame (h, &info, NULL, &p);
    check_component (&p.fin, &p.fout, 0, EXPECT_FILTERED, &m, sy,
        REF_BORDER_CLAMP, caps);
    check_component (&p.fin, &p.fout, 1, EXPECT_FILL, NULL, NULL, 0, caps);
    check_component (&p.fin, &p.fout, 2, EXPECT_FILL, NULL, NULL, 0, caps);
    pushed_release (&p);
    harness_teardown (h);
  }
}

GST_END_TEST;

/* The rows of one parity of component c (a field) as an image of its own */
static RefImage
field_image (GstVideoFrame * f, gint c, gint parity)
{
  RefImage im = component_image (f, c);
  im.data = (const guint8 *) im.data + parity * im.pitch;
  im.pitch *= 2;
  im.height = (im.height - parity + 1) / 2;
  return im;
}

/* Each field of every component against the reference, as a plane of its
 * own with the border at the field's top and bottom. */
static void
check_fields (GstVideoFrame * in, GstVideoFrame * out, const TestMatrix * m,
    const gchar * what)
{
  for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (in); c++) {
    for (gint parity = 0; parity < 2; parity++) {
      RefImage src = field_image (in, c, parity);
      RefImage dst = field_image (out, c, parity);
      guint32 *ref = g_new (guint32, (gsize) src.width * src.height);

      ref_convolve (&src, m->w, NULL, m->side, m->divisor, 0.0,
          REF_BORDER_CLAMP, ref);
      for (gint y = 0; y < src.height; y++)
        for (gint x = 0; x < src.width; x++) {
          const guint got = sample (&dst, x, y) >> dst.shift;
          const guint want = ref[y * src.width + x];
          if ((got > want ? got - want : want - got) > 1)
            fail ("%s: component %u field %d at %d,%d is %u, expected %u",
                what, c, parity, x, y, got, want);
        }
      g_free (ref);
    }
  }
}

/* Interleaved fields are filtered field by field: rows of 0 and 200 in
 * turn stay 0 and 200 under a box blur (progressive filtering would give
 * 67 and 133); mixed streams do so on the frames flagged INTERLACED. */
GST_START_TEST (test_interlaced_fields)
{
  static const struct {
    const gchar *format;
    GstVideoFormat f;
  } formats[] = {
    {"GRAY8", GST_VIDEO_FORMAT_GRAY8}, {"I420", GST_VIDEO_FORMAT_I420},
    {"NV12", GST_VIDEO_FORMAT_NV12}, {"YUY2", GST_VIDEO_FORMAT_YUY2},
    {"P010_10LE", GST_VIDEO_FORMAT_P010_10LE}
  };
  TestMatrix m;
  GstVideoInfo info;
  GstVideoFrame fin, fout;
  GstBuffer *in, *out;
  GstHarness *h;

  /* stripes */
  h = harness_new ("video/x-raw,format=GRAY8,width=32,height=16,"
      "interlace-mode=interleaved,field-order=top-field-first,"
      "framerate=30/1");
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "box");
  gst_video_info_set_interlaced_format (&info, GST_VIDEO_FORMAT_GRAY8,
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED, 32, 16);
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_video_frame_map (&fin, &info, in, GST_MAP_WRITE);
  for (gint y = 0; y < 16; y++)
    memset ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fin, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&fin, 0), y % 2 ? 200 : 0, 32);
  gst_video_frame_unmap (&fin);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  gst_video_frame_map (&fout, &info, out, GST_MAP_READ);
  for (gint y = 0; y < 16; y++)
    for (gint x = 0; x < 32; x++)
      fail_unless_equals_int (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fout,
                  0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&fout, 0) + x],
          y % 2 ? 200 : 0);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (out);
  harness_teardown (h);

  /* mixed: the flag decides */
  h = harness_new ("video/x-raw,format=GRAY8,width=32,height=16,"
      "interlace-mode=mixed,framerate=30/1");
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "box");
  g_object_set (h->element, "radius", 1, NULL);
  for (gint flagged = 0; flagged < 2; flagged++) {
    GstBuffer *frame = gst_buffer_copy (in);
    guint8 row1;
    if (flagged)
      GST_BUFFER_FLAG_SET (frame, GST_VIDEO_BUFFER_FLAG_INTERLACED);
    out = gst_harness_push_and_pull (h, frame);
    gst_video_frame_map (&fout, &info, out, GST_MAP_READ);
    row1 = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fout, 0))[5 +
        GST_VIDEO_FRAME_PLANE_STRIDE (&fout, 0) * 5];
    /* row 5 of 200 between rows of 0: (0 + 200 + 0) / 3 progressive */
    fail_unless_equals_int (row1, flagged ? 200 : 67);
    gst_video_frame_unmap (&fout);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  harness_teardown (h);

  /* random frames, fields against the reference, odd heights */
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,"
        "width=38,height=27,interlace-mode=interleaved,framerate=30/1",
        formats[f].format);
    Pushed p;
    h = harness_new (caps);
    matrix_random (&m, 5, FALSE);
    gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
    g_object_set (h->element, "matrix", m.text, NULL);
    gst_video_info_set_interlaced_format (&info, formats[f].f,
        GST_VIDEO_INTERLACE_MODE_INTERLEAVED, 38, 27);
    push_frame (h, &info, NULL, &p);
    check_fields (&p.fin, &p.fout, &m, caps);
    pushed_release (&p);
    g_free (m.text);
    harness_teardown (h);
  }
}

GST_END_TEST;

/* interlace-mode=alternate: each buffer is one field (ROUND_UP_2 (27) / 2 =
 * 14 rows of a 27-row frame), filtered as a frame of its own; the caps
 * feature format:Interlaced passes through. A crop rectangle is in the
 * field's rows, so it must lie inside the 38x14 field: one that reaches
 * into the frame's lower half is refused. */
GST_START_TEST (test_alternate_fields)
{
  const gchar *caps_str = "video/x-raw(format:Interlaced),format=I420,"
      "width=38,height=27,interlace-mode=alternate,framerate=30/1";
  GstHarness *h = harness_new (caps_str);
  GstBus *bus = harness_bus (h);
  GstCaps *caps = gst_caps_from_string (caps_str), *got;
  GstVideoCropMeta *crop;
  GstVideoInfo info;
  GstBuffer *in;
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", m.text, NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  for (gint k = 0; k < 4; k++) {
    const gint field = k & 1;
    const gboolean cropped = k >> 1;
    Pushed p;

    in = random_frame (&info);
    GST_BUFFER_FLAG_SET (in, field ? GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD :
        GST_VIDEO_BUFFER_FLAG_TOP_FIELD);
    if (cropped) {
      crop = gst_buffer_add_video_crop_meta (in);
      crop->x = 3;
      crop->y = 2 + field;
      crop->width = 30;
      crop->height = 11;
    }
    push_frame (h, &info, in, &p);
    fail_unless_equals_int (GST_VIDEO_FRAME_COMP_HEIGHT (&p.fin, 0), 14);
    if (cropped)
      check_cropped_frame (&p, &m, 3, 2 + field, 30, 11, caps_str);
    else
      for (guint c = 0; c < 3; c++)
        check_component (&p.fin, &p.fout, c, EXPECT_FILTERED, &m, NULL,
            REF_BORDER_CLAMP, caps_str);
    pushed_release (&p);
    gst_buffer_unref (in);
  }
  in = random_frame (&info);
  GST_BUFFER_FLAG_SET (in, GST_VIDEO_BUFFER_FLAG_TOP_FIELD);
  crop = gst_buffer_add_video_crop_meta (in);
  crop->y = 4;
  crop->width = 38;
  crop->height = 20;
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  fail_unless (gst_harness_try_pull (h) == NULL);
  expect_warning (bus, "crop meta", "a crop taller than the field");
  got = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_caps_is_equal (got, caps), "came out as %" GST_PTR_FORMAT,
      got);
  gst_caps_unref (got);
  gst_caps_unref (caps);
  g_free (m.text);
  harness_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* Word-packed formats, read back through GStreamer's own unpack functions
 * (an independent decoder of the layout): each component of the output
 * within 1 of the reference over the input's components, at widths that
 * end inside a v210 group, with the words' unused bits zero. Alpha (2 bits
 * in Y410 and the RGB formats) is copied by default; filtered, it is taken
 * as the 10-bit alpha of the planar twin (the offset scaled as for 10
 * bits) and saturated to 3 when packed. */
static void
check_word_packed (const gchar * format, gint width, gint height,
    const gchar * channels)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  GstHarness *h = harness_new (caps);
  GstVideoInfo info;
  GstVideoFrame fin, fout;
  GstBuffer *in, *out;
  Unpacked ui, uo;
  TestMatrix m;
  const gboolean v210 = g_str_equal (format, "v210");
  guint selected;

  matrix_random (&m, 5, TRUE);
  m.offset = 128.0;
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", m.text, "offset", m.offset, NULL);
  if (channels)
    gst_util_set_object_arg (G_OBJECT (h->element), "channels", channels);
  g_object_get (h->element, "channels", &selected, NULL);
  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  in = random_frame (&info);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  gst_video_frame_map (&fin, &info, in, GST_MAP_READ);
  gst_video_frame_map (&fout, &info, out, GST_MAP_READ);
  unpacked_from_frame (&fin, &ui);
  unpacked_from_frame (&fout, &uo);
  for (guint c = 0; c < ui.n; c++) {
    /* v210's chroma lies at the even pixels of the unpacked lines */
    const gint step = v210 && c > 0 ? 2 : 1;
    const gint cw = (width + step - 1) / step;
    const gboolean alpha = c == 3;
    const guint bit = alpha ? 8 : 1u << c;
    RefImage src = { ui.c[c], (gsize) width * 2, cw, height, step, 2, 10, 0 };
    guint32 *ref = g_new (guint32, (gsize) cw * height);

    ref_convolve (&src, m.w, NULL, m.side, m.divisor, ldexp (m.offset, 2),
        REF_BORDER_CLAMP, ref);
    for (gint y = 0; y < height; y++)
      for (gint x = 0; x < cw; x++) {
        const guint got = uo.c[c][y * width + x * step];
        const guint was = ui.c[c][y * width + x * step];
        const guint want = !(selected & bit) ? was : alpha ?
            MIN (ref[y * cw + x], 3) : ref[y * cw + x];
        const guint tol = selected & bit ? 1 : 0;
        if ((got > want ? got - want : want - got) > tol)
          fail ("%s %dx%d: component %u at %d,%d is %u, expected %u",
              format, width, height, c, x, y, got, want);
      }
    g_free (ref);
  }
  /* the two bits above v210's three samples of each word are zero */
  if (v210)
    for (gint y = 0; y < height; y++)
      for (gint g = 0; g * 6 < width; g++)
        for (gint k = 0; k < 4; k++)
          fail_unless ((GST_READ_UINT32_LE ((guint8 *)
                      GST_VIDEO_FRAME_PLANE_DATA (&fout, 0) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE (&fout, 0) + 16 * g +
                      4 * k) >> 30) == 0);
  unpacked_clear (&ui);
  unpacked_clear (&uo);
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_free (m.text);
  harness_teardown (h);
}

GST_START_TEST (test_word_packed)
{
  static const gchar *formats[] = { "v210", "Y410", "RGB10A2_LE",
    "BGR10A2_LE"
  };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    check_word_packed (formats[f], 48, 9, NULL);
    /* widths that end inside a group of 6 (v210) and odd */
    check_word_packed (formats[f], 37, 11, NULL);
    check_word_packed (formats[f], 1, 3, NULL);
  }
  check_word_packed ("Y410", 23, 7, "y+u+v+a");
  check_word_packed ("RGB10A2_LE", 23, 7, "g+a");
  check_word_packed ("v210", 40, 7, "u");
}

GST_END_TEST;

/* A harness running kernel=pixelate at radius on format at width x
 * height, and the frames' info. */
static GstHarness *
pixelate_harness (const gchar * format, gint width, gint height,
    gint radius, GstVideoInfo * info)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  GstHarness *h = harness_new (caps);

  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "pixelate");
  g_object_set (h->element, "radius", radius, NULL);
  gst_video_info_set_format (info, gst_video_format_from_string (format),
      width, height);
  return h;
}

/* A value well inside a depth's range (3/11, 5/11, 7/11 and 9/11 of it),
 * different for each component, so that a swap of components shows. */
static guint
flat_value (gint depth, guint c)
{
  return ((1u << depth) - 1) * (2 * c + 3) / 11;
}

/* A frame whose every component holds one value comes out the same
 * under pixelate: the mean of a constant is that constant, also in the
 * blocks the right and bottom edges cut short (divided by the full
 * (2r+1)^2 they would fall toward 0). The bytes outside the components
 * (x bytes, row padding) stay random. */
static void
check_flat_pixelate (const gchar * format, gint width, gint height,
    gint radius)
{
  GstVideoInfo info;
  GstHarness *h = pixelate_harness (format, width, height, radius, &info);
  GstBuffer *in = random_frame (&info);
  GstVideoFrame f;
  Pushed p;

  fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    const RefImage im = component_image (&f, c);
    for (gint y = 0; y < im.height; y++)
      for (gint x = 0; x < im.width; x++)
        set_sample (&im, x, y, flat_value (im.depth, c) << im.shift);
  }
  gst_video_frame_unmap (&f);
  push_frame (h, &info, in, &p);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    const RefImage dst = component_image (&p.fout, c);
    const guint want = flat_value (dst.depth, c);
    for (gint y = 0; y < dst.height; y++)
      for (gint x = 0; x < dst.width; x++) {
        const guint got = sample (&dst, x, y);
        if (got != want << dst.shift)
          fail ("pixelate of a flat %s %dx%d, radius %d: component %u "
              "(%dx%d) at %d,%d is %u (raw 0x%x), expected %u", format,
              width, height, radius, c, dst.width, dst.height, x, y,
              got >> dst.shift, got, want);
      }
  }
  pushed_release (&p);
  gst_buffer_unref (in);
  harness_teardown (h);
}

/* check_flat_pixelate for the word-packed formats, which component_image
 * does not describe: the frame is packed and read back by GStreamer's own
 * pack and unpack functions (10-bit values, 2-bit alpha). */
static void
check_flat_pixelate_word_packed (const gchar * format, gint width,
    gint height, gint radius)
{
  GstVideoInfo info;
  GstHarness *h = pixelate_harness (format, width, height, radius, &info);
  const GstVideoFormatInfo *finfo = info.finfo;
  GstBuffer *in = random_frame (&info);
  /* pack takes a v210 group of six pixels whole */
  guint16 *line = g_new (guint16, 4 * (gsize) (width + 6));
  GstVideoFrame f;
  Unpacked u;
  Pushed p;

  /* AYUV64 or ARGB64, the values at the top of their 16 bits */
  for (gint x = 0; x < width + 6; x++) {
    line[4 * x] = flat_value (2, 3) << 14;
    for (guint c = 0; c < 3; c++)
      line[4 * x + c + 1] = flat_value (10, c) << 6;
  }
  fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
  for (gint y = 0; y < height; y++)
    finfo->pack_func (finfo, 0, line, 0, f.data, f.info.stride,
        GST_VIDEO_CHROMA_SITE_UNKNOWN, y, width);
  gst_video_frame_unmap (&f);
  g_free (line);
  push_frame (h, &info, in, &p);
  unpacked_from_frame (&p.fout, &u);
  for (guint c = 0; c < u.n; c++) {
    const guint want = flat_value (c == 3 ? 2 : 10, c);
    for (gint y = 0; y < height; y++)
      for (gint x = 0; x < width; x++) {
        const guint got = u.c[c][y * width + x];
        if (got != want)
          fail ("pixelate of a flat %s %dx%d, radius %d: component %u at "
              "pixel %d,%d is %u, expected %u", format, width, height,
              radius, c, x, y, got, want);
      }
  }
  unpacked_clear (&u);
  pushed_release (&p);
  gst_buffer_unref (in);
  harness_teardown (h);
}

/* The block of component im, blocks of side x side from its first
 * sample, that starts at x0, y0: its end (cut by the edge) and its sum. */
static guint
block_sum (const RefImage * im, gint side, gint x0, gint y0, gint * x1,
    gint * y1)
{
  guint s = 0;

  *x1 = MIN (x0 + side, im->width);
  *y1 = MIN (y0 + side, im->height);
  for (gint y = y0; y < *y1; y++)
    for (gint x = x0; x < *x1; x++)
      s += sample (im, x, y);
  return s;
}

/* Makes the sum of every block of an even number of samples fall half way
 * between two multiples of that number (a tie of the rounding) by moving
 * the block's first sample, up or down as its 8 bits allow (a block holds
 * fewer than 255 samples here). Whole blocks, of (2r+1)^2, are odd. */
static void
make_ties (GstBuffer * in, const GstVideoInfo * info, gint side)
{
  GstVideoFrame f;

  fail_unless (gst_video_frame_map (&f, info, in, GST_MAP_WRITE));
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    const RefImage im = component_image (&f, c);
    for (gint y0 = 0; y0 < im.height; y0 += side)
      for (gint x0 = 0; x0 < im.width; x0 += side) {
        gint x1, y1;
        const guint s = block_sum (&im, side, x0, y0, &x1, &y1);
        const guint n = (x1 - x0) * (y1 - y0);
        const guint up = (n / 2 + n - s % n) % n;
        const guint first = sample (&im, x0, y0);
        if (n % 2)
          continue;
        set_sample (&im, x0, y0, first + up <= 255 ? first + up :
            first + up - n);
      }
  }
  gst_video_frame_unmap (&f);
}

/* A random 8-bit frame of format at 37x23 through pixelate at radius:
 * every sample of every block of every component is the block's exact
 * mean, rounded half up, (sum + n / 2) / n over the n real samples it
 * holds, computed here from the input. Whole blocks are checked first,
 * over the whole frame: they were right before edge blocks took the mean
 * of their real samples, so a mismatch there would say the rounding
 * expected here is not the element's. ties makes the even edge blocks'
 * means end in .5, where rounding half up and its neighbours differ. */
static void
check_block_means (const gchar * format, gint radius, gboolean ties)
{
  const gint width = 37, height = 23, side = 2 * radius + 1;
  GstVideoInfo info;
  GstHarness *h = pixelate_harness (format, width, height, radius, &info);
  GstBuffer *in = random_frame (&info);
  Pushed p;

  if (ties)
    make_ties (in, &info, side);
  push_frame (h, &info, in, &p);
  for (gint edges = 0; edges < 2; edges++)
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
      const RefImage src = component_image (&p.fin, c);
      const RefImage dst = component_image (&p.fout, c);
      for (gint y0 = 0; y0 < src.height; y0 += side)
        for (gint x0 = 0; x0 < src.width; x0 += side) {
          gint x1, y1;
          const guint s = block_sum (&src, side, x0, y0, &x1, &y1);
          const guint n = (x1 - x0) * (y1 - y0);
          const guint want = (s + n / 2) / n;
          if ((n != (guint) (side * side)) != edges)
            continue;
          for (gint y = y0; y < y1; y++)
            for (gint x = x0; x < x1; x++) {
              const guint got = sample (&dst, x, y);
              if (got != want)
                fail ("pixelate of a random %s %dx%d, radius %d%s: "
                    "component %u (%dx%d) at %d,%d is %u, expected %u, the "
                    "mean of the %s block at %d,%d (%u samples, sum %u)",
                    format, width, height, radius, ties ? " (ties)" : "", c,
                    src.width, src.height, x, y, got, want,
                    edges ? "edge" : "whole", x0, y0, n, s);
            }
        }
    }
  pushed_release (&p);
  gst_buffer_unref (in);
  harness_teardown (h);
}

/* Pixelate's blocks cut short by the right and bottom edges hold only
 * their real samples (README): flat frames of every format stay flat at
 * sizes that are no multiple of the block (41x29) and smaller than it
 * (13x7), and random 8-bit frames, luma and 4:2:0 chroma (blocks in chroma
 * samples), take each block's exact mean. */
GST_START_TEST (test_pixelate_edge_blocks)
{
  static const gint radii[] = { 2, 12 };
  static const gint sizes[][2] = { {41, 29}, {13, 7} };
  static const gchar *word_packed[] = { "v210", "Y410", "RGB10A2_LE",
    "BGR10A2_LE"
  };
  static const gchar *random_formats[] = { "GRAY8", "I420" };
  static const gint random_radii[] = { 2, 5 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint k = 0; k < G_N_ELEMENTS (radii); k++) {
      for (guint f = 0; f < n_all_formats; f++)
        check_flat_pixelate (all_formats[f], sizes[s][0], sizes[s][1],
            radii[k]);
      for (guint f = 0; f < G_N_ELEMENTS (word_packed); f++)
        check_flat_pixelate_word_packed (word_packed[f], sizes[s][0],
            sizes[s][1], radii[k]);
    }
  for (guint f = 0; f < G_N_ELEMENTS (random_formats); f++)
    for (guint k = 0; k < G_N_ELEMENTS (random_radii); k++)
      for (gint ties = 0; ties < 2; ties++)
        check_block_means (random_formats[f], random_radii[k], ties);
}

GST_END_TEST;

static void
add_tests (TCase * tc)
{
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_alpha_selected);
  tcase_add_test (tc, test_every_channel_subset);
  tcase_add_test (tc, test_padding_byte_kept);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_gaussian_preset);
  tcase_add_test (tc, test_gray_edges);
  tcase_add_test (tc, test_offset_follows_depth);
  tcase_add_test (tc, test_gray_edges_deep);
  tcase_add_test (tc, test_interlaced_fields);
  tcase_add_test (tc, test_alternate_fields);
  tcase_add_test (tc, test_word_packed);
  tcase_add_test (tc, test_pixelate_edge_blocks);
}

const ElementTopic element_topic = { "formats", add_tests, NULL };

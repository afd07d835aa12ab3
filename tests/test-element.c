/* cudaconv tests: the element through GstHarness and small pipelines.
 *
 * Built twice: test-element (backend=cpu) and, with ELEMENT_CUDA,
 * test-element-cuda (backend=cuda), which exits 77 when no CUDA device is
 * usable. Outputs are checked against the double reference of reference.c,
 * with weights the test writes itself into the matrix property. */
#include <math.h>
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#ifdef ELEMENT_CUDA
#include <cuda_runtime_api.h>
#endif

#include "reference.h"

#ifdef ELEMENT_CUDA
#define BACKEND "cuda"
#else
#define BACKEND "cpu"
#endif

static RefRng rng;

static const gchar *all_formats[] = {
  "GRAY8", "GRAY16_LE", "I420", "YV12", "Y42B", "Y444", "NV12", "NV21",
  "AYUV", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR",
  "RGB", "BGR"
};

typedef struct {
  int side;
  double w[(31 * 31)];
  double divisor, offset;
  gchar *text;                  /* the matrix property */
} TestMatrix;

static void
matrix_random (TestMatrix * m, int side, gboolean signed_weights)
{
  GString *s = g_string_new (NULL);
  double sum = 0.0;

  m->side = side;
  for (int k = 0; k < side * side; k++) {
    /* integers keep the text exact */
    m->w[k] = signed_weights ? (double) (ref_rng_u32 (&rng) % 19) - 9.0 :
        (double) (1 + ref_rng_u32 (&rng) % 9);
    sum += m->w[k];
    g_string_append_printf (s, "%s%g", k % side ? "," : (k ? ";" : ""),
        m->w[k]);
  }
  m->divisor = sum == 0.0 ? 1.0 : sum;
  m->offset = 0.0;
  m->text = g_string_free (s, FALSE);
}

/* The backend is chosen when the element starts, and a harness starts its
 * element at once: configure it first. */
static GstHarness *
harness_new_with_depth (const gchar * caps, guint async_depth)
{
  GstElement *element = gst_element_factory_make ("cudaconv", NULL);
  GstHarness *h;

  fail_unless (element != NULL, "no cudaconv element");
  gst_util_set_object_arg (G_OBJECT (element), "backend", BACKEND);
  g_object_set (element, "async-depth", async_depth, NULL);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* The harness's source says it is live, so this runs one frame at a time. */
static GstHarness *
harness_new (const gchar * caps)
{
  return harness_new_with_depth (caps, 0);
}

static GstBuffer *
random_frame (const GstVideoInfo * info)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < map.size; k++)
    map.data[k] = (guint8) ref_rng_u32 (&rng);
  gst_buffer_unmap (buf, &map);
  return buf;
}

static RefImage
component_image (GstVideoFrame * f, gint c)
{
  const GstVideoInfo *info = &f->info;
  gint bytes = GST_VIDEO_INFO_COMP_DEPTH (info, c) > 8 ? 2 : 1;
  RefImage im = {
    GST_VIDEO_FRAME_COMP_DATA (f, c),   /* pixel offset included */
    GST_VIDEO_FRAME_COMP_STRIDE (f, c),
    GST_VIDEO_FRAME_COMP_WIDTH (f, c), GST_VIDEO_FRAME_COMP_HEIGHT (f, c),
    GST_VIDEO_FRAME_COMP_PSTRIDE (f, c) / bytes, bytes
  };
  return im;
}

static guint
sample (const RefImage * im, gint x, gint y)
{
  const guint8 *p = (const guint8 *) im->data + y * im->pitch +
      (gsize) x * im->pixel_stride * im->bytes;
  return im->bytes == 1 ? p[0] : GST_READ_UINT16_LE (p);
}

typedef enum { EXPECT_FILTERED, EXPECT_COPY, EXPECT_FILL } Expect;

/* One frame through the harness, both sides mapped for checking. */
typedef struct {
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fin, fout;
} Pushed;

/* Pushes in (or, when NULL, a new random frame) and maps what comes out. */
static void
push_frame (GstHarness * h, const GstVideoInfo * info, GstBuffer * in,
    Pushed * p)
{
  p->info = *info;
  p->in = in ? gst_buffer_ref (in) : random_frame (info);
  p->out = gst_harness_push_and_pull (h, gst_buffer_ref (p->in));
  fail_unless (p->out != NULL, "no output buffer");
  fail_unless (gst_video_frame_map (&p->fin, &p->info, p->in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&p->fout, &p->info, p->out,
          GST_MAP_READ));
}

static void
pushed_release (Pushed * p)
{
  gst_video_frame_unmap (&p->fin);
  gst_video_frame_unmap (&p->fout);
  gst_buffer_unref (p->in);
  gst_buffer_unref (p->out);
}

/* Compares component c of out with what was expected of it. */
static void
check_component (GstVideoFrame * in, GstVideoFrame * out, gint c,
    Expect expect, const TestMatrix * m, const double *w2, RefBorder border,
    const gchar * what)
{
  RefImage src = component_image (in, c), dst = component_image (out, c);
  guint32 *ref = g_new (guint32, (gsize) src.width * src.height);
  guint fill = 1u << (GST_VIDEO_INFO_COMP_DEPTH (&in->info, c) - 1);

  if (expect == EXPECT_FILTERED)
    ref_convolve (&src, m->w, w2, m->side, m->divisor, m->offset, border, ref);
  for (gint y = 0; y < src.height; y++) {
    for (gint x = 0; x < src.width; x++) {
      guint got = sample (&dst, x, y);
      guint want = expect == EXPECT_FILTERED ? ref[y * src.width + x] :
          expect == EXPECT_FILL ? fill : sample (&src, x, y);
      guint diff = got > want ? got - want : want - got;
      if (diff > (expect == EXPECT_FILTERED ? 1u : 0u))
        fail ("%s: component %d at %d,%d is %u, expected %u", what, c, x, y,
            got, want);
    }
  }
  g_free (ref);
}

/* Pushes one random frame of format at width x height through the element
 * and checks every component. */
static void
check_format (const gchar * format, gint width, gint height,
    const TestMatrix * m, RefBorder border, const gchar * extra_props)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  g_autofree gchar *what = g_strdup_printf ("%s %dx%d %dx%d matrix border %d",
      format, width, height, m->side, m->side, border);
  static const gchar *border_nicks[] = { "zero", "clamp", "mirror", "wrap" };
  GstHarness *h = harness_new (caps);
  GstCaps *parsed = gst_caps_from_string (caps);
  GstVideoInfo info;
  Pushed p;

  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  gst_util_set_object_arg (G_OBJECT (h->element), "border",
      border_nicks[border]);
  g_object_set (h->element, "matrix", m->text, NULL);
  if (extra_props)
    gst_util_set_object_arg (G_OBJECT (h->element), "channels", extra_props);
  fail_unless (gst_video_info_from_caps (&info, parsed));
  gst_caps_unref (parsed);
  push_frame (h, &info, NULL, &p);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    gboolean alpha = GST_VIDEO_INFO_HAS_ALPHA (&info) && c == GST_VIDEO_COMP_A;
    Expect e = alpha && !extra_props ? EXPECT_COPY : EXPECT_FILTERED;
    check_component (&p.fin, &p.fout, c, e, m, NULL, border, what);
  }
  pushed_release (&p);
  gst_harness_teardown (h);
}

GST_START_TEST (test_every_format)
{
  TestMatrix m;

  for (guint f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    for (gint border = 0; border < 4; border++) {
      matrix_random (&m, border % 2 ? 5 : 3, border == 3);
      /* odd sizes: subsampled chroma rounds up */
      check_format (all_formats[f], 37, 23, &m, border, NULL);
      g_free (m.text);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_alpha_selected)
{
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  check_format ("RGBA", 21, 9, &m, REF_BORDER_CLAMP, "r+g+b+a");
  check_format ("AYUV", 21, 9, &m, REF_BORDER_MIRROR, "y+u+v+a");
  g_free (m.text);
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
  TestMatrix m = { .side = 7 };
  double sigma = 0.3 * (3 - 1) + 0.8, sum = 0;

  for (int i = 0; i < 7; i++)
    for (int j = 0; j < 7; j++)
      sum += m.w[i * 7 + j] = exp (-((i - 3) * (i - 3) + (j - 3) * (j - 3)) /
          (2 * sigma * sigma));
  m.divisor = sum;
  g_object_set (h->element, "radius", 3, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  push_frame (h, &info, NULL, &p);
  check_component (&p.fin, &p.fout, 0, EXPECT_FILTERED, &m, NULL,
      REF_BORDER_CLAMP, "gaussian radius 3");
  pushed_release (&p);
  gst_harness_teardown (h);
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
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_caps_negotiation)
{
  GstHarness *h = harness_new ("video/x-raw,format=NV21,width=16,height=8,"
      "framerate=30/1");
  GstCaps *caps;
  GstBuffer *out;
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV21, 16, 8);
  out = gst_harness_push_and_pull (h, random_frame (&info));
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_caps_is_equal (caps,
          gst_caps_from_string ("video/x-raw,format=NV21,width=16,height=8,"
              "framerate=30/1")));
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* a format the element does not take is refused at negotiation */
  h = harness_new ("video/x-raw,format=YUY2,width=16,height=8,"
      "framerate=30/1");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_YUY2, 16, 8);
  fail_unless_equals_int (gst_harness_push (h, random_frame (&info)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
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
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
push_and_check_gray (GstHarness * h, gint width, gint height,
    const TestMatrix * m, const gchar * what)
{
  GstVideoInfo info;
  Pushed p;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, width, height);
  push_frame (h, &info, NULL, &p);
  check_component (&p.fin, &p.fout, 0, EXPECT_FILTERED, m, NULL,
      REF_BORDER_CLAMP, what);
  pushed_release (&p);
}

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
  gst_harness_teardown (h);
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
  gst_harness_teardown (h);
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
  gst_harness_teardown (h);

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
  gst_harness_teardown (h);
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
  gst_harness_teardown (h);
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
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Runs a gst-launch style pipeline to EOS or ERROR; returns the first
 * error's text (or NULL) and, if asked, the first warning's. */
static gchar *
run_pipeline (const gchar * description, gchar ** warning)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (description, &err);
  GstBus *bus;
  GstMessage *msg;
  gchar *error_text = NULL;

  fail_unless (pipeline != NULL, "%s: %s", description,
      err ? err->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);
    if (type == GST_MESSAGE_WARNING && warning && !*warning) {
      gst_message_parse_warning (msg, &err, NULL);
      *warning = g_strdup (err->message);
      g_clear_error (&err);
    } else if (type == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      error_text = g_strdup (err->message);
      g_clear_error (&err);
    }
    gst_message_unref (msg);
    if (type != GST_MESSAGE_WARNING)
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return error_text;
}

static void
expect_pipeline_error (const gchar * description, const gchar * mention)
{
  gchar *error_text = run_pipeline (description, NULL);
  fail_unless (error_text != NULL, "%s: no error", description);
  fail_unless (strstr (error_text, mention) != NULL,
      "%s: the error \"%s\" does not mention \"%s\"", description, error_text,
      mention);
  g_free (error_text);
}

GST_START_TEST (test_bad_values_on_command_line)
{
  /* set_property refuses them with a warning... */
  ASSERT_WARNING (expect_pipeline_error ("videotestsrc num-buffers=2 ! "
          "cudaconv backend=" BACKEND " kernel=custom matrix=\"1,2;3\" ! "
          "fakesink", "matrix"));
  ASSERT_WARNING (expect_pipeline_error ("videotestsrc num-buffers=2 ! "
          "cudaconv backend=" BACKEND " matrix=\"1,2,3,4;1,2,3,4;1,2,3,4;"
          "1,2,3,4\" ! fakesink", "odd"));
  ASSERT_WARNING (expect_pipeline_error ("videotestsrc num-buffers=2 ! "
          "cudaconv backend=" BACKEND " sigma=nan ! fakesink", "sigma"));
  ASSERT_WARNING (expect_pipeline_error ("videotestsrc num-buffers=2 ! "
          "cudaconv backend=" BACKEND " radius=99 ! fakesink", "radius"));
  ASSERT_WARNING (expect_pipeline_error ("videotestsrc num-buffers=2 ! "
          "cudaconv backend=" BACKEND " offset=-1e6 ! fakesink", "offset"));
  /* ...and custom without any matrix is an error too */
  expect_pipeline_error ("videotestsrc num-buffers=2 ! cudaconv backend="
      BACKEND " kernel=custom ! fakesink", "matrix");
}

GST_END_TEST;

GST_START_TEST (test_bad_values_while_playing)
{
  GstHarness *h = harness_new ("video/x-raw,format=GRAY8,width=16,height=16,"
      "framerate=30/1");
  gchar *matrix;
  gdouble sigma;
  GstVideoInfo info;

  g_object_set (h->element, "matrix", "1,2,1;2,4,2;1,2,1", "sigma", 1.5, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 16, 16);
  gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
  ASSERT_WARNING (g_object_set (h->element, "matrix", "1,x,1", NULL));
  ASSERT_WARNING (g_object_set (h->element, "sigma", NAN, NULL));
  /* the backend is fixed while the element runs */
  ASSERT_WARNING (gst_util_set_object_arg (G_OBJECT (h->element), "backend",
          g_str_equal (BACKEND, "cpu") ? "cuda" : "cpu"));
  g_object_get (h->element, "matrix", &matrix, "sigma", &sigma, NULL);
  fail_unless_equals_string (matrix, "1,2,1;2,4,2;1,2,1");
  {
    gint backend;
    g_object_get (h->element, "backend", &backend, NULL);
    fail_unless_equals_int (backend, g_str_equal (BACKEND, "cpu") ? 2 : 1);
  }
  fail_unless_equals_float (sigma, 1.5);
  /* frames keep flowing */
  gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
  g_free (matrix);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Run with CUDA_VISIBLE_DEVICES= so no device is usable, GPU or not. */
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
}

GST_END_TEST;

#ifdef ELEMENT_CUDA
GST_START_TEST (test_device_id_out_of_range)
{
  expect_pipeline_error ("videotestsrc num-buffers=2 ! cudaconv backend=cuda "
      "device-id=999 ! fakesink", "device-id 999 does not exist");
}

GST_END_TEST;
#endif

static Suite *
cudaconv_suite (void)
{
  Suite *s = suite_create ("cudaconv-" BACKEND);
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  if (g_getenv ("CUDACONV_TEST_NO_DEVICE")) {
    tcase_add_test (tc, test_no_device);
    return s;
  }
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_alpha_selected);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_gaussian_preset);
  tcase_add_test (tc, test_gray_edges);
  tcase_add_test (tc, test_caps_negotiation);
  tcase_add_test (tc, test_identity_passthrough);
  tcase_add_test (tc, test_property_change_mid_stream);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_frames_in_flight);
  tcase_add_test (tc, test_concurrent_property_changes);
  tcase_add_test (tc, test_allocation_query);
  tcase_add_test (tc, test_bad_values_on_command_line);
  tcase_add_test (tc, test_bad_values_while_playing);
#ifdef ELEMENT_CUDA
  tcase_add_test (tc, test_device_id_out_of_range);
#endif
  return s;
}

int
main (int argc, char **argv)
{
#ifdef ELEMENT_CUDA
  int count = 0;
  if (!g_getenv ("CUDACONV_TEST_NO_DEVICE")
      && (cudaGetDeviceCount (&count) != cudaSuccess || count == 0)) {
    g_print ("SKIP: no usable CUDA device\n");
    return 77;
  }
#endif
  gst_check_init (&argc, &argv);
  ref_rng_seed (&rng, ref_test_seed ());
  return gst_check_run_suite (cudaconv_suite (), "cudaconv", __FILE__);
}

/* cudaconv tests: the element through GstHarness and small pipelines.
 *
 * Built three times: test-element (backend=cpu); with ELEMENT_CUDA,
 * test-element-cuda (backend=cuda), which exits 77 when no CUDA device is
 * usable; and with ELEMENT_MULTI_GPU as well, test-element-multi-gpu, the
 * tests of two devices alone, which exits 77 with fewer than two. Outputs are checked against the double reference of reference.c,
 * with weights the test writes itself into the matrix property. */
#include <math.h>
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/video/video.h>
#include "config.h"
#ifdef ELEMENT_CUDA
#include <dlfcn.h>
#include <cuda_runtime_api.h>
#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif
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
  "RGB", "BGR", "YUY2", "UYVY", "YVYU", "VYUY", "NV16", "NV61", "NV24",
  "Y41B", "GBR", "GBRA", "RGBP", "BGRP",
  "I420_10LE", "I420_12LE", "I422_10LE", "I422_12LE", "Y444_10LE",
  "Y444_12LE", "Y444_16LE", "GBR_10LE", "GBR_12LE", "GBRA_10LE", "GBRA_12LE",
  "A420_10LE", "A422_10LE", "A444_10LE", "P010_10LE", "P012_LE", "P016_LE",
  "AYUV64", "ARGB64", "Y210"
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

/* What a test made that a failing assertion would leave behind: check
 * leaves a failing test at once (CK_FORK=no), and the fixture's teardown,
 * which runs after every test, frees what the test did not. */
static GPtrArray *test_harnesses, *test_buses, *test_pipelines;

static GstHarness *
harness_track (GstHarness * h)
{
  g_ptr_array_add (test_harnesses, h);
  return h;
}

static void
harness_teardown (GstHarness * h)
{
  fail_unless (g_ptr_array_remove (test_harnesses, h));
  gst_harness_teardown (h);
}

static void
bus_free (GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

/* A pipeline left playing by a failed test would keep its threads, and
 * GstCheck waits for every task to end after each test. */
static GstElement *
pipeline_launch (const gchar * description, GError ** error)
{
  GstElement *pipeline = gst_parse_launch (description, error);

  if (pipeline)
    g_ptr_array_add (test_pipelines, pipeline);
  return pipeline;
}

/* To NULL; the test still holds its reference. */
static void
pipeline_stop (GstElement * pipeline)
{
  fail_unless (g_ptr_array_remove (test_pipelines, pipeline));
  gst_element_set_state (pipeline, GST_STATE_NULL);
}

static void
pipeline_free (GstElement * pipeline)
{
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

static void
test_setup (void)
{
  test_harnesses = g_ptr_array_new ();
  test_buses = g_ptr_array_new ();
  test_pipelines = g_ptr_array_new ();
}

static void
test_teardown (void)
{
  /* a refusal test that failed leaves GLib's messages expected */
  _gst_check_expecting_log = FALSE;
  g_ptr_array_set_free_func (test_harnesses,
      (GDestroyNotify) gst_harness_teardown);
  g_ptr_array_set_free_func (test_buses, (GDestroyNotify) bus_free);
  g_ptr_array_set_free_func (test_pipelines, (GDestroyNotify) pipeline_free);
  g_ptr_array_unref (test_harnesses);
  g_ptr_array_unref (test_buses);
  g_ptr_array_unref (test_pipelines);
}

/* GObject refuses a number outside a property's declared range and keeps
 * the old value; GLib 2.74 reports it as a WARNING, GLib 2.84 as a
 * CRITICAL. Either is the refusal this expects. */
#define ASSERT_REFUSED_BY_GOBJECT(code)                                 \
  G_STMT_START {                                                        \
    _gst_check_expecting_log = TRUE;                                    \
    _gst_check_raised_warning = FALSE;                                  \
    _gst_check_raised_critical = FALSE;                                 \
    code;                                                               \
    _gst_check_expecting_log = FALSE;                                   \
    fail_unless (_gst_check_raised_warning || _gst_check_raised_critical, \
        "GObject did not refuse: %s", #code);                           \
  } G_STMT_END

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
  h = harness_track (gst_harness_new_with_element (element, "sink", "src"));
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

/* The harness leaves its element without a bus: the tests give it one to
 * read the element's messages from. */
static GstBus *
harness_bus (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  g_ptr_array_add (test_buses, bus);
  return bus;
}

static void
harness_teardown_with_bus (GstHarness * h, GstBus * bus)
{
  harness_teardown (h);
  fail_unless (g_ptr_array_remove (test_buses, bus));
  bus_free (bus);
}

/* Whether a WARNING or an ERROR is on the bus; INFO messages, which name
 * the CUDA kernels the element runs, are expected. */
static gboolean
bus_has_problem (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus,
      GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  gboolean found = msg != NULL;

  if (msg)
    gst_message_unref (msg);
  return found;
}

/* Pops the next WARNING from the bus; fails without one, or when its text
 * does not mention what it should. */
static void
expect_warning (GstBus * bus, const gchar * mention, const gchar * what)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  GError *err = NULL;

  fail_unless (msg != NULL, "%s: no warning on the bus", what);
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, mention) != NULL,
      "%s: the warning \"%s\" does not mention \"%s\"", what, err->message,
      mention);
  g_error_free (err);
  gst_message_unref (msg);
}

/* A buffer of size random bytes, without a meta. */
static GstBuffer *
random_bytes (gsize size)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < map.size; k++)
    map.data[k] = (guint8) ref_rng_u32 (&rng);
  gst_buffer_unmap (buf, &map);
  return buf;
}

static GstBuffer *
random_frame (const GstVideoInfo * info)
{
  return random_bytes (info->size);
}

/* Where component c's samples lie and which of their bits hold the value,
 * from the format's definition. GStreamer's format table describes Y210
 * and the P01x chroma for its unpack functions only (Y210's components all
 * at byte 0 with 10 bits at the bottom, P01x's V at byte 1), so those are
 * spelled out here: Y210 is Y0 U Y1 V in 16-bit words, 10 bits at the top;
 * a P01x UV pair is two 16-bit words. */
static RefImage
component_image (GstVideoFrame * f, gint c)
{
  const GstVideoInfo *info = &f->info;
  gint depth = GST_VIDEO_INFO_COMP_DEPTH (info, c);
  gint shift = info->finfo->shift[c];
  gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  const guint8 *data = GST_VIDEO_FRAME_COMP_DATA (f, c);  /* pixel offset included */
  gint bytes;

  if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_Y210) {
    static const gint offsets[3] = { 0, 2, 6 }, strides[3] = { 4, 8, 8 };
    data = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 0) + offsets[c];
    pstride = strides[c];
    shift = 6;
  } else if ((GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_P010_10LE
          || GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_P012_LE
          || GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_P016_LE)
      && c == 2) {
    data = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 1) + 2;
  }
  bytes = depth > 8 ? 2 : 1;
  {
    RefImage im = { data, GST_VIDEO_FRAME_COMP_STRIDE (f, c),
      GST_VIDEO_FRAME_COMP_WIDTH (f, c), GST_VIDEO_FRAME_COMP_HEIGHT (f, c),
      pstride / bytes, bytes, depth, shift
    };
    return im;
  }
}

/* raw bits of a sample */
static guint
sample (const RefImage * im, gint x, gint y)
{
  const guint8 *p = (const guint8 *) im->data + y * im->pitch +
      (gsize) x * im->pixel_stride * im->bytes;
  return im->bytes == 1 ? p[0] : GST_READ_UINT16_LE (p);
}

/* Clears the bits of every deeper-than-8-bit sample that are not its value
 * (above a 10-bit LSB-aligned one, below an MSB-aligned one), as a decoder
 * writes them. */
static void
make_well_formed (GstBuffer * buffer, const GstVideoInfo * info)
{
  GstVideoFrame f;

  fail_unless (gst_video_frame_map (&f, info, buffer, GST_MAP_WRITE));
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    const RefImage im = component_image (&f, c);
    const guint kept = ref_max_value (&im) << im.shift;
    if (im.bytes == 1)
      continue;
    for (gint y = 0; y < im.height; y++)
      for (gint x = 0; x < im.width; x++) {
        guint8 *p = (guint8 *) im.data + y * im.pitch +
            (gsize) x * im.pixel_stride * 2;
        GST_WRITE_UINT16_LE (p, GST_READ_UINT16_LE (p) & kept);
      }
  }
  gst_video_frame_unmap (&f);
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
  if (in) {
    p->in = gst_buffer_ref (in);
  } else {
    p->in = random_frame (info);
    make_well_formed (p->in, info);
  }
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

/* Compares component c of out with what was expected of it: filtered
 * within 1 of the reference in values, never past the depth's largest
 * value and with the padding bits clear; copies and fills exactly. The
 * offset property is on the 8-bit scale: m->offset times 2^(depth - 8). */
static void
check_component (GstVideoFrame * in, GstVideoFrame * out, gint c,
    Expect expect, const TestMatrix * m, const double *w2, RefBorder border,
    const gchar * what)
{
  RefImage src = component_image (in, c), dst = component_image (out, c);
  guint32 *ref = g_new (guint32, (gsize) src.width * src.height);
  const guint fill = 1u << (src.depth - 1) << src.shift;
  const guint max = ref_max_value (&dst);

  if (expect == EXPECT_FILTERED)
    ref_convolve (&src, m->w, w2, m->side, m->divisor,
        ldexp (m->offset, src.depth - 8), border, ref);
  for (gint y = 0; y < src.height; y++) {
    for (gint x = 0; x < src.width; x++) {
      const guint got = sample (&dst, x, y);
      if (expect == EXPECT_FILTERED) {
        const guint value = got >> dst.shift, want = ref[y * src.width + x];
        const guint diff = value > want ? value - want : want - value;
        if (diff > 1 || value > max || (got & ((1u << dst.shift) - 1)))
          fail ("%s: component %d at %d,%d is %u (raw 0x%04x), expected %u",
              what, c, x, y, value, got, want);
      } else {
        const guint want = expect == EXPECT_FILL ? fill : sample (&src, x, y);
        if (got != want)
          fail ("%s: component %d at %d,%d is 0x%x, expected 0x%x", what, c,
              x, y, got, want);
      }
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
  g_autofree gchar *what = g_strdup_printf ("%s %dx%d %dx%d matrix border %d"
      "%s%s", format, width, height, m->side, m->side, border,
      extra_props ? " channels=" : "", extra_props ? extra_props : "");
  static const gchar *border_nicks[] = { "zero", "clamp", "mirror", "wrap" };
  GstHarness *h = harness_new (caps);
  GstCaps *parsed = gst_caps_from_string (caps);
  GstVideoInfo info;
  Pushed p;
  guint channels;

  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  gst_util_set_object_arg (G_OBJECT (h->element), "border",
      border_nicks[border]);
  g_object_set (h->element, "matrix", m->text, "offset", m->offset, NULL);
  if (extra_props)
    gst_util_set_object_arg (G_OBJECT (h->element), "channels", extra_props);
  fail_unless (gst_video_info_from_caps (&info, parsed));
  gst_caps_unref (parsed);
  push_frame (h, &info, NULL, &p);
  /* the channels property's bits: 1, 2, 4 for the first three components,
   * 8 for alpha (the element's documented flags) */
  g_object_get (h->element, "channels", &channels, NULL);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    gboolean alpha = GST_VIDEO_INFO_HAS_ALPHA (&info) && c == GST_VIDEO_COMP_A;
    guint bit = alpha ? 8 : 1u << c;
    Expect e = channels & bit ? EXPECT_FILTERED : EXPECT_COPY;
    check_component (&p.fin, &p.fout, c, e, m, NULL, border, what);
  }
  pushed_release (&p);
  harness_teardown (h);
}

/* Every format at an odd size (subsampled chroma rounds up, packed 4:2:2
 * ends mid-pair) under radius 1, 2, 3, 7 and 15, the borders in turn. */
GST_START_TEST (test_every_format)
{
  static const int radii[] = { 1, 2, 3, 7, 15 };
  TestMatrix m;

  for (guint f = 0; f < G_N_ELEMENTS (all_formats); f++) {
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
  for (guint f = 0; f < G_N_ELEMENTS (all_formats); f++) {
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
/* exp(-(x^2+y^2)/(2 sigma^2)) over |x|, |y| <= radius, computed here;
 * sigma 0 is the documented 0.3*(radius-1)+0.8 */
static void
gaussian_matrix (TestMatrix * m, int radius, double sigma)
{
  const int side = 2 * radius + 1;
  double sum = 0.0;

  if (sigma == 0.0)
    sigma = 0.3 * (radius - 1) + 0.8;
  m->side = side;
  m->offset = 0.0;
  for (int i = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      sum += m->w[i * side + j] = exp (-((i - radius) * (i - radius) +
              (j - radius) * (j - radius)) / (2 * sigma * sigma));
  m->divisor = sum;
}

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

/* Word-packed formats, read back through GStreamer's own unpack functions
 * (an independent decoder of the layout): each component of the output
 * within 1 of the reference over the input's components, at widths that
 * end inside a v210 group, with the words' unused bits zero. Alpha (2 bits
 * in Y410 and the RGB formats) is copied by default; filtered, it is taken
 * as the 10-bit alpha of the planar twin (the offset scaled as for 10
 * bits) and saturated to 3 when packed. */
typedef struct {
  gint width, height;
  guint n;                      /* components */
  guint16 *c[4];                /* full-width planes, 10-bit values */
} Unpacked;

static void
unpacked_from_frame (GstVideoFrame * f, Unpacked * u)
{
  const GstVideoFormatInfo *finfo = f->info.finfo;
  guint16 *line = g_new (guint16, 4 * (gsize) (f->info.width + 64));

  u->width = f->info.width;
  u->height = f->info.height;
  u->n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo);
  for (gint k = 0; k < 4; k++)
    u->c[k] = g_new (guint16, (gsize) u->width * u->height);
  for (gint y = 0; y < u->height; y++) {
    /* truncate-range: the 10 bits shifted up, low bits zero */
    finfo->unpack_func (finfo, GST_VIDEO_PACK_FLAG_TRUNCATE_RANGE, line,
        f->data, f->info.stride, 0, y, u->width);
    for (gint x = 0; x < u->width; x++)
      for (gint k = 0; k < 4; k++) {
        /* AYUV64 and ARGB64 keep A first, then Y U V or R G B; the
         * components of the packed format are Y U V A or R G B A */
        const gint at = k == 3 ? 0 : k + 1;
        u->c[k][y * u->width + x] = line[4 * x + at] >> (k == 3 ? 14 : 6);
      }
  }
  g_free (line);
}

static void
unpacked_clear (Unpacked * u)
{
  for (gint k = 0; k < 4; k++)
    g_free (u->c[k]);
}

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

/* Checks what came out for a frame whose crop rectangle (cx, cy, cw, ch)
 * lies inside the caps' frame: filtered inside it with the borders at its
 * edges, unchanged outside, the crop meta kept. */
static void
check_cropped_frame (Pushed * p, const TestMatrix * m, gint cx, gint cy,
    gint cw, gint ch, const gchar * caps)
{
  const GstVideoInfo info = p->info;
  const GstVideoCropMeta *out_crop = gst_buffer_get_video_crop_meta (p->out);

  fail_unless (out_crop != NULL, "%s: the crop meta was dropped", caps);
  fail_unless (out_crop->x == (guint) cx && out_crop->y == (guint) cy
      && out_crop->width == (guint) cw && out_crop->height == (guint) ch);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    RefImage src = component_image (&p->fin, c);
    RefImage dst = component_image (&p->fout, c);
    const gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
    const gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
    /* the component's samples that cover the rectangle */
    const gint x0 = cx >> ws, x1 = (cx + cw + (1 << ws) - 1) >> ws;
    const gint y0 = cy >> hs, y1 = (cy + ch + (1 << hs) - 1) >> hs;
    RefImage pic = src;

    guint32 *ref = g_new (guint32, (gsize) (x1 - x0) * (y1 - y0));

    pic.data = (const guint8 *) src.data + y0 * src.pitch +
        (gsize) x0 * src.pixel_stride * src.bytes;
    pic.width = x1 - x0;
    pic.height = y1 - y0;
    ref_convolve (&pic, m->w, NULL, m->side, m->divisor, 0.0, REF_BORDER_CLAMP,
        ref);
    /* alpha is copied unless channels says otherwise */
    const gboolean alpha = GST_VIDEO_INFO_HAS_ALPHA (&info)
        && c == GST_VIDEO_COMP_A;
    for (gint y = 0; y < src.height; y++)
      for (gint x = 0; x < src.width; x++) {
        const guint got = sample (&dst, x, y);
        if (!alpha && x >= x0 && x < x1 && y >= y0 && y < y1) {
          const guint want = ref[(y - y0) * (x1 - x0) + x - x0];
          const guint v = got >> dst.shift;
          if ((v > want ? v - want : want - v) > 1)
            fail ("%s crop %dx%d at %d,%d: component %u at %d,%d is %u, "
                "expected %u", caps, cw, ch, cx, cy, c, x, y, v, want);
        } else if (got != sample (&src, x, y)) {
          fail ("%s crop %dx%d at %d,%d: component %u at %d,%d outside the "
              "picture changed", caps, cw, ch, cx, cy, c, x, y);
        }
      }
    g_free (ref);
  }
}

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

/* Every format passes with no converter, and the caps come out as they
 * went in, fields the element does not touch included. */
GST_START_TEST (test_caps_fields_kept)
{
  static const gchar *word_packed[] = { "v210", "Y410", "RGB10A2_LE",
    "BGR10A2_LE"
  };
  for (guint f = 0; f < G_N_ELEMENTS (all_formats) + 4; f++) {
    const gchar *format = f < G_N_ELEMENTS (all_formats) ? all_formats[f] :
        word_packed[f - G_N_ELEMENTS (all_formats)];
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
  harness_teardown (h);
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

/* Runs a gst-launch style pipeline to EOS or ERROR; returns the first
 * error's text (or NULL) and, if asked, the first warning's. */
static gchar *
run_pipeline (const gchar * description, gchar ** warning)
{
  GError *err = NULL;
  GstElement *pipeline = pipeline_launch (description, &err);
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
  pipeline_stop (pipeline);
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
    {"radius", "0"}, {"radius", "16"}, {"radius", "99"},
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

static void
set_custom_matrix (GstHarness * h, const TestMatrix * m)
{
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", m->text, NULL);
}

/* Checks every component of what came out for the frame in went in. */
static void
check_pushed_frame (const GstVideoInfo * info, GstBuffer * in, GstBuffer * out,
    const TestMatrix * m, const gchar * what)
{
  GstVideoFrame fin, fout;

  fail_unless (gst_video_frame_map (&fin, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, info, out, GST_MAP_READ));
  /* a meta larger than the caps: the caps' part of it was filtered */
  fin.info.width = GST_VIDEO_INFO_WIDTH (info);
  fin.info.height = GST_VIDEO_INFO_HEIGHT (info);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    check_component (&fin, &fout, c, EXPECT_FILTERED, m, NULL,
        REF_BORDER_CLAMP, what);
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
}

static void
set_sample (const RefImage * im, gint x, gint y, guint v)
{
  guint8 *p = (guint8 *) im->data + y * im->pitch +
      (gsize) x * im->pixel_stride * im->bytes;
  if (im->bytes == 1)
    p[0] = v;
  else
    GST_WRITE_UINT16_LE (p, v);
}

/* The caps' picture inside a larger buffer, as decoders and videocrop send
 * it: a video meta of the buffer's size and a crop meta of the caps' size
 * at (cx, cy). The output must be the frame that the same picture copied
 * out on its own gives (what upstream sends when crop metas are refused),
 * with no crop meta left. Packed 4:2:2 takes even cx, v210 multiples of 6
 * (their pixel groups); 4:2:0 chroma starts at cy / 2 rounded down. */
static void
check_crop_picture (const gchar * format, gint width, gint height,
    gint buffer_width, gint buffer_height, gint cx, gint cy)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  const GstVideoFormat fmt = gst_video_format_from_string (format);
  GstHarness *copied = harness_new (caps), *cropped = harness_new (caps);
  GstVideoInfo info, big_info;
  GstVideoFrame fbig, fpic, fa, fb;
  GstVideoCropMeta *crop;
  GstBuffer *big, *pic, *out_a, *out_b;
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  set_custom_matrix (copied, &m);
  set_custom_matrix (cropped, &m);
  gst_video_info_set_format (&info, fmt, width, height);
  gst_video_info_set_format (&big_info, fmt, buffer_width, buffer_height);
  big = random_frame (&big_info);
  make_well_formed (big, &big_info);
  pic = random_frame (&info);
  fail_unless (gst_video_frame_map (&fbig, &big_info, big, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fpic, &info, pic, GST_MAP_WRITE));
  if (fmt == GST_VIDEO_FORMAT_v210) {
    const GstVideoFormatInfo *finfo = info.finfo;
    guint16 *line = g_new (guint16, 4 * (gsize) (width + 6));
    /* six pixels in 16 bytes (1.22's unpack takes x as two bytes a pixel) */
    gpointer from[GST_VIDEO_MAX_PLANES] = {
      (guint8 *) fbig.data[0] + (gsize) cx / 6 * 16
    };
    for (gint y = 0; y < height; y++) {
      finfo->unpack_func (finfo, 0, line, from, fbig.info.stride, 0, cy + y,
          width);
      finfo->pack_func (finfo, 0, line, 0, fpic.data, fpic.info.stride,
          GST_VIDEO_CHROMA_SITE_UNKNOWN, y, width);
    }
    g_free (line);
  } else {
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
      const RefImage from = component_image (&fbig, c);
      const RefImage to = component_image (&fpic, c);
      const gint x0 = cx >> GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
      const gint y0 = cy >> GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
      for (gint y = 0; y < to.height; y++)
        for (gint x = 0; x < to.width; x++)
          set_sample (&to, x, y, sample (&from, x0 + x, y0 + y));
    }
  }
  gst_video_frame_unmap (&fbig);
  gst_video_frame_unmap (&fpic);
  gst_buffer_add_video_meta_full (big, GST_VIDEO_FRAME_FLAG_NONE, fmt,
      buffer_width, buffer_height, GST_VIDEO_INFO_N_PLANES (&big_info),
      big_info.offset, big_info.stride);
  crop = gst_buffer_add_video_crop_meta (big);
  crop->x = cx;
  crop->y = cy;
  crop->width = width;
  crop->height = height;

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
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
      const RefImage a = component_image (&fa, c);
      const RefImage b = component_image (&fb, c);
      for (gint y = 0; y < a.height; y++)
        for (gint x = 0; x < a.width; x++)
          if (sample (&a, x, y) != sample (&b, x, y))
            fail ("%s crop at %d,%d: component %u at %d,%d is 0x%x, the "
                "copied picture gave 0x%x", caps, cx, cy, c, x, y,
                sample (&b, x, y), sample (&a, x, y));
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

/* A poisoned allocator: memory comes full of 0xa5, as reused heap would
 * come full of someone else's bytes. */
typedef struct {
  GstAllocator parent;
} PoisonAllocator;
typedef struct {
  GstAllocatorClass parent_class;
} PoisonAllocatorClass;
G_DEFINE_TYPE (PoisonAllocator, poison_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
poison_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstMemory *mem = gst_allocator_alloc (NULL, size, params);
  GstMapInfo map;

  if (mem && gst_memory_map (mem, &map, GST_MAP_WRITE)) {
    memset (map.data, 0xa5, map.size);
    gst_memory_unmap (mem, &map);
  }
  return mem;
}

static void
poison_allocator_class_init (PoisonAllocatorClass * klass)
{
  GST_ALLOCATOR_CLASS (klass)->alloc = poison_alloc;
}

static void
poison_allocator_init (PoisonAllocator * self)
{
}

/* Row padding of the output (I420 98x34: rows of 98 and 49 samples on
 * strides of 100 and 52) leaves the element as zeros, not as whatever the
 * output memory held. */
GST_START_TEST (test_output_padding_written)
{
  GstHarness *h = harness_new ("video/x-raw,format=I420,width=98,height=34,"
      "framerate=30/1");
  GstAllocator *poison = g_object_new (poison_allocator_get_type (), NULL);
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
 * radius (1 to 15) over ten frames: at each timestamp both have the value
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
      (radius_cs), end, 1.0);
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
 * start), started together, filter frames at once from 64 threads on one
 * GPU, and every output matches its own filter's reference. */
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
#endif

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
/* The GstCudaContext an element answers the context query with, or NULL */
static GstCudaContext *
queried_cuda_context (GstElement * element)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *context = NULL;
  GstContext *answer = NULL;

  if (gst_element_query (element, query)) {
    gst_query_parse_context (query, &answer);
    if (answer)
      gst_structure_get (gst_context_get_structure (answer),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &context, NULL);
  }
  gst_query_unref (query);
  return context;
}

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

/* Whether two frames of one format hold samples within 1 of each other */
static gboolean
frames_within_one (GstSample * a, GstSample * b, gchar ** why)
{
  GstVideoInfo info;
  GstVideoFrame fa, fb;
  gboolean ok = TRUE;

  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (a))
      || !gst_video_frame_map (&fa, &info, gst_sample_get_buffer (a),
          GST_MAP_READ)) {
    *why = g_strdup ("cannot map the CUDA branch's frame");
    return FALSE;
  }
  if (!gst_video_frame_map (&fb, &info, gst_sample_get_buffer (b),
          GST_MAP_READ)) {
    gst_video_frame_unmap (&fa);
    *why = g_strdup ("cannot map the CPU branch's frame");
    return FALSE;
  }
  for (guint p = 0; ok && p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    const gint depth = GST_VIDEO_FORMAT_INFO_DEPTH (info.finfo, 0);
    const gboolean deep = depth > 8;
    /* one step of the samples' significant bits */
    const gint step = deep ? 1 << (16 - depth) : 1;
    gint rows, comp[GST_VIDEO_MAX_COMPONENTS];
    guint width;

    /* the plane's rows and used bytes, from its first component */
    gst_video_format_info_component (info.finfo, p, comp);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp[0]);
    width = GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp[0]);
    for (gint y = 0; ok && y < rows; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      for (guint x = 0; ok && x < width; x += deep ? 2 : 1) {
        const gint va = deep ? GST_READ_UINT16_LE (ra + x) : ra[x];
        const gint vb = deep ? GST_READ_UINT16_LE (rb + x) : rb[x];
        if (ABS (va - vb) > step) {
          *why = g_strdup_printf ("plane %u, row %d, byte %u: %d against %d",
              p, y, x, va, vb);
          ok = FALSE;
        }
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return ok;
}

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

/* Whether pad negotiated CUDA memory */
static gboolean
pad_in_cuda_memory (GstElement * element, const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean cuda;

  fail_unless (caps != NULL, "no caps on cudaconv's %s pad", pad_name);
  cuda = gst_caps_features_contains (gst_caps_get_features (caps, 0),
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  if (!cuda) {
    gchar *text = gst_caps_to_string (caps);
    GST_INFO_OBJECT (element, "%s pad: %s", pad_name, text);
    g_free (text);
  }
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return cuda;
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
  tcase_add_checked_fixture (tc, test_setup, test_teardown);
#ifdef ELEMENT_MULTI_GPU
#ifdef HAVE_GST_CUDA
  tcase_add_test (tc, test_second_device);
  tcase_add_test (tc, test_two_devices_side_by_side);
  tcase_add_test (tc, test_two_devices_in_series);
#endif
  return s;
#endif
  if (g_getenv ("CUDACONV_TEST_NO_DEVICE")) {
    tcase_add_test (tc, test_no_device);
    return s;
  }
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
  /* first: it checks that no test before it made the primary context
   * current */
  tcase_add_test (tc, test_shared_cuda_context);
#endif
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_alpha_selected);
  tcase_add_test (tc, test_every_channel_subset);
  tcase_add_test (tc, test_padding_byte_kept);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_gaussian_preset);
  tcase_add_test (tc, test_gray_edges);
  tcase_add_test (tc, test_caps_negotiation);
  tcase_add_test (tc, test_offset_follows_depth);
  tcase_add_test (tc, test_gray_edges_deep);
  tcase_add_test (tc, test_interlaced_fields);
  tcase_add_test (tc, test_alternate_fields);
  tcase_add_test (tc, test_word_packed);
  tcase_add_test (tc, test_crop_meta);
  tcase_add_test (tc, test_crop_picture);
  tcase_add_test (tc, test_crop_allocation);
  tcase_add_test (tc, test_caps_fields_kept);
  tcase_add_test (tc, test_identity_passthrough);
  tcase_add_test (tc, test_property_change_mid_stream);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_frames_in_flight);
  tcase_add_test (tc, test_concurrent_property_changes);
  tcase_add_test (tc, test_allocation_query);
  tcase_add_test (tc, test_bad_values_on_command_line);
  tcase_add_test (tc, test_bad_values_while_playing);
  tcase_add_test (tc, test_out_of_range_numbers);
  tcase_add_test (tc, test_controller_animation);
  tcase_add_test (tc, test_short_buffers);
  tcase_add_test (tc, test_short_buffer_huge_caps);
  tcase_add_test (tc, test_bad_video_metas);
  tcase_add_test (tc, test_unusual_layouts);
  tcase_add_test (tc, test_gap_buffers);
  tcase_add_test (tc, test_dropped_between_frames_in_flight);
  tcase_add_test (tc, test_drop_warnings_rate_limited);
  tcase_add_test (tc, test_output_padding_written);
  tcase_add_test (tc, test_passthrough_race);
  tcase_add_test (tc, test_numeric_edges);
  tcase_add_test (tc, test_property_fuzz);
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
  tcase_add_test (tc, test_cuda_memory_frames);
  tcase_add_test (tc, test_nvdec_frames);
  tcase_add_test (tc, test_foreign_cuda_context);
#endif
#ifdef ELEMENT_CUDA
  tcase_add_test (tc, test_device_id_out_of_range);
  tcase_add_test (tc, test_many_instances);
  tcase_add_test (tc, test_kernel_family_reported);
#endif
  return s;
}

int
main (int argc, char **argv)
{
#ifdef ELEMENT_MULTI_GPU
  int count = 0;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count < 2) {
    g_print ("SKIP: %d usable CUDA device(s), these tests need two\n",
        count);
    return 77;
  }
#elif defined (ELEMENT_CUDA)
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

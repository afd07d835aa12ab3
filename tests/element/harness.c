/* cudaconv element tests: the shared harness (harness.h says what it
 * holds), the fixture that frees what a failed test left, and main(),
 * which runs the topic's tests or skips where the variant's devices are
 * missing. */
#include "harness.h"
#ifdef ELEMENT_CUDA
#include <cuda_runtime_api.h>
#endif
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
#include <gst/cuda/gstcudabufferpool.h>
#endif

RefRng rng;

const gchar *const all_formats[] = {
  "GRAY8", "GRAY16_LE", "I420", "YV12", "Y42B", "Y444", "NV12", "NV21",
  "AYUV", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR",
  "RGB", "BGR", "YUY2", "UYVY", "YVYU", "VYUY", "NV16", "NV61", "NV24",
  "Y41B", "GBR", "GBRA", "RGBP", "BGRP",
  "I420_10LE", "I420_12LE", "I422_10LE", "I422_12LE", "Y444_10LE",
  "Y444_12LE", "Y444_16LE", "GBR_10LE", "GBR_12LE", "GBRA_10LE", "GBRA_12LE",
  "A420_10LE", "A422_10LE", "A444_10LE", "P010_10LE", "P012_LE", "P016_LE",
  "AYUV64", "ARGB64", "Y210"
};

const guint n_all_formats = G_N_ELEMENTS (all_formats);

void
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

/* exp(-(x^2+y^2)/(2 sigma^2)) over |x|, |y| <= radius, computed here;
 * sigma 0 is the documented 0.3*(radius-1)+0.8 */
void
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

/* What a test made that a failing assertion would leave behind: check
 * leaves a failing test at once (CK_FORK=no), and the fixture's teardown,
 * which runs after every test, frees what the test did not. */
static GPtrArray *test_harnesses, *test_buses, *test_pipelines;

GstHarness *
harness_track (GstHarness * h)
{
  g_ptr_array_add (test_harnesses, h);
  return h;
}

void
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
GstElement *
pipeline_launch (const gchar * description, GError ** error)
{
  GstElement *pipeline = gst_parse_launch (description, error);

  if (pipeline)
    g_ptr_array_add (test_pipelines, pipeline);
  return pipeline;
}

/* To NULL; the test still holds its reference. */
void
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

/* The backend is chosen when the element starts, and a harness starts its
 * element at once: configure it first. */
GstHarness *
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
GstHarness *
harness_new (const gchar * caps)
{
  return harness_new_with_depth (caps, 0);
}

static GraphCounts *graph_counts;

static void
count_graph_messages (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  const gchar *text;

  if (g_strcmp0 (gst_debug_category_get_name (category), "cudaconv") != 0)
    return;
  text = gst_debug_message_get (message);
  if (g_str_has_prefix (text, "a frame slot recorded its frame's kernels"))
    g_atomic_int_inc (&graph_counts->recorded);
  else if (g_str_has_prefix (text, "a frame slot replayed its frame's "
          "kernels"))
    g_atomic_int_inc (&graph_counts->replayed);
  else if (strstr (text, "their graph failed"))
    g_atomic_int_inc (&graph_counts->failed);
}

void
graph_counts_start (GraphCounts * counts)
{
  counts->recorded = counts->replayed = counts->failed = 0;
  graph_counts = counts;
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_graph_messages, NULL, NULL);
  gst_debug_set_threshold_for_name ("cudaconv", GST_LEVEL_LOG);
}

void
graph_counts_stop (void)
{
  gst_debug_unset_threshold_for_name ("cudaconv");
  gst_debug_remove_log_function (count_graph_messages);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
}

/* The harness leaves its element without a bus: the tests give it one to
 * read the element's messages from. */
GstBus *
harness_bus (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  g_ptr_array_add (test_buses, bus);
  return bus;
}

void
harness_teardown_with_bus (GstHarness * h, GstBus * bus)
{
  harness_teardown (h);
  fail_unless (g_ptr_array_remove (test_buses, bus));
  bus_free (bus);
}

/* Whether a WARNING or an ERROR is on the bus; INFO messages, which name
 * the CUDA kernels the element runs, are expected. */
gboolean
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
void
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
GstBuffer *
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

GstBuffer *
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
RefImage
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
guint
sample (const RefImage * im, gint x, gint y)
{
  const guint8 *p = (const guint8 *) im->data + y * im->pitch +
      (gsize) x * im->pixel_stride * im->bytes;
  return im->bytes == 1 ? p[0] : GST_READ_UINT16_LE (p);
}

/* Clears the bits of every deeper-than-8-bit sample that are not its value
 * (above a 10-bit LSB-aligned one, below an MSB-aligned one), as a decoder
 * writes them. */
void
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

void
set_sample (const RefImage * im, gint x, gint y, guint v)
{
  guint8 *p = (guint8 *) im->data + y * im->pitch +
      (gsize) x * im->pixel_stride * im->bytes;
  if (im->bytes == 1)
    p[0] = v;
  else
    GST_WRITE_UINT16_LE (p, v);
}

/* The picture is copied sample by sample, v210 through GStreamer's own
 * unpack and pack (six pixels in 16 bytes); see harness.h. */
GstBuffer *
picture_in_larger_buffer (GstVideoFormat format, gint width, gint height,
    gint buffer_width, gint buffer_height, gint cx, gint cy,
    GstBuffer ** picture)
{
  GstVideoInfo info, big_info;
  GstVideoFrame fbig, fpic;
  GstVideoCropMeta *crop;
  GstBuffer *big;

  gst_video_info_set_format (&info, format, width, height);
  gst_video_info_set_format (&big_info, format, buffer_width, buffer_height);
  big = random_frame (&big_info);
  make_well_formed (big, &big_info);
  *picture = random_frame (&info);
  fail_unless (gst_video_frame_map (&fbig, &big_info, big, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fpic, &info, *picture, GST_MAP_WRITE));
  if (format == GST_VIDEO_FORMAT_v210) {
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
  gst_buffer_add_video_meta_full (big, GST_VIDEO_FRAME_FLAG_NONE, format,
      buffer_width, buffer_height, GST_VIDEO_INFO_N_PLANES (&big_info),
      big_info.offset, big_info.stride);
  crop = gst_buffer_add_video_crop_meta (big);
  crop->x = cx;
  crop->y = cy;
  crop->width = width;
  crop->height = height;
  return big;
}

gchar *
boxes_text (const Box * boxes, guint n)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < n; k++)
    g_string_append_printf (s, "%s%d,%d,%d,%d", k ? ";" : "", boxes[k].x,
        boxes[k].y, boxes[k].w, boxes[k].h);
  return g_string_free (s, FALSE);
}

/* Pushes in (or, when NULL, a new random frame) and maps what comes out. */
void
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

void
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
void
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

/* Sets conv (a harness's element, or one inside it) to filter with m
 * under border, the components channels names selected (NULL: the default
 * ones). Every setting the checks rely on is set, so conv may have
 * filtered with others before. */
void
set_custom_filter (GstElement * conv, const TestMatrix * m, RefBorder border,
    const gchar * channels)
{
  static const gchar *border_nicks[] = { "zero", "clamp", "mirror", "wrap" };

  gst_util_set_object_arg (G_OBJECT (conv), "kernel", "custom");
  gst_util_set_object_arg (G_OBJECT (conv), "border", border_nicks[border]);
  g_object_set (conv, "matrix", m->text, "offset", m->offset, NULL);
  if (channels) {
    gst_util_set_object_arg (G_OBJECT (conv), "channels", channels);
  } else {
    /* the default, where an earlier frame selected others */
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
        (conv), "channels");
    const GValue *def = g_param_spec_get_default_value (pspec);
    guint now;

    g_object_get (conv, "channels", &now, NULL);
    if (now != g_value_get_flags (def))
      g_object_set_property (G_OBJECT (conv), "channels", def);
  }
}

/* Checks every component of the frame p carried through conv, set up by
 * set_custom_filter: those selected filtered, the others copied. */
void
check_filtered_frame (Pushed * p, GstElement * conv, const TestMatrix * m,
    RefBorder border, const gchar * what)
{
  guint channels;

  /* the channels property's bits: 1, 2, 4 for the first three components,
   * 8 for alpha (the element's documented flags) */
  g_object_get (conv, "channels", &channels, NULL);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&p->info); c++) {
    gboolean alpha = GST_VIDEO_INFO_HAS_ALPHA (&p->info)
        && c == GST_VIDEO_COMP_A;
    guint bit = alpha ? 8 : 1u << c;
    Expect e = channels & bit ? EXPECT_FILTERED : EXPECT_COPY;
    check_component (&p->fin, &p->fout, c, e, m, NULL, border, what);
  }
}

/* check_format's name of what it checks, for its messages; how, where not
 * NULL, names the way the frame took. */
gchar *
format_check_name (const gchar * how, const gchar * format, gint width,
    gint height, const TestMatrix * m, RefBorder border,
    const gchar * channels)
{
  return g_strdup_printf ("%s%s%s %dx%d %dx%d matrix border %d%s%s",
      how ? how : "", how ? ": " : "", format, width, height, m->side,
      m->side, border, channels ? " channels=" : "", channels ? channels : "");
}

/* Pushes one random frame of format at width x height through the element
 * and checks every component. */
void
check_format (const gchar * format, gint width, gint height,
    const TestMatrix * m, RefBorder border, const gchar * extra_props)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  g_autofree gchar *what = format_check_name (NULL, format, width, height, m,
      border, extra_props);
  GstHarness *h = harness_new (caps);
  GstCaps *parsed = gst_caps_from_string (caps);
  GstVideoInfo info;
  Pushed p;

  set_custom_filter (h->element, m, border, extra_props);
  fail_unless (gst_video_info_from_caps (&info, parsed));
  gst_caps_unref (parsed);
  push_frame (h, &info, NULL, &p);
  check_filtered_frame (&p, h->element, m, border, what);
  pushed_release (&p);
  harness_teardown (h);
}

void
set_custom_matrix (GstHarness * h, const TestMatrix * m)
{
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "custom");
  g_object_set (h->element, "matrix", m->text, NULL);
}

/* Checks every component of what came out for the frame in went in. */
void
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

void
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

void
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

void
unpacked_clear (Unpacked * u)
{
  for (gint k = 0; k < 4; k++)
    g_free (u->c[k]);
}

/* Runs a gst-launch style pipeline to EOS or ERROR; returns the first
 * error's text (or NULL) and, if asked, the first warning's. */
gchar *
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

void
expect_pipeline_error (const gchar * description, const gchar * mention)
{
  gchar *error_text = run_pipeline (description, NULL);
  fail_unless (error_text != NULL, "%s: no error", description);
  fail_unless (strstr (error_text, mention) != NULL,
      "%s: the error \"%s\" does not mention \"%s\"", description, error_text,
      mention);
  g_free (error_text);
}

/* Checks what came out for a frame whose crop rectangle (cx, cy, cw, ch)
 * lies inside the caps' frame: filtered inside it with the borders at its
 * edges, unchanged outside, the crop meta kept. */
void
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

GstAllocator *
poison_allocator_new (void)
{
  return g_object_new (poison_allocator_get_type (), NULL);
}

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
/* The GstCudaContext an element answers the context query with, or NULL */
GstCudaContext *
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

/* Whether two frames of one format hold samples within 1 of each other */
gboolean
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

/* Whether pad negotiated CUDA memory */
gboolean
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
#endif

/* "cudaconv-<topic>-<backend>": check keeps the pointer, not a copy */
static gchar suite_name[64];

static Suite *
element_suite (gboolean no_device)
{
  Suite *s;
  TCase *tc = tcase_create ("general");

  g_snprintf (suite_name, sizeof (suite_name), "cudaconv-%s-" BACKEND,
      element_topic.name);
  s = suite_create (suite_name);
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, test_setup, test_teardown);
  if (no_device)
    element_topic.add_no_device_tests (tc);
  else
    element_topic.add_tests (tc);
  return s;
}

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA) \
    && !defined (ELEMENT_MULTI_GPU)
/* The CUDA context that cudaconv elements of device-id=-1 share, made by a
 * first element and held while the program runs, so that each harness's
 * element finds it alive: else every harness makes a context and destroys
 * it, which costs more than its frames (the CUDA element tests ran 100 to
 * 200 times longer than the CPU ones). Only where the tests run in this
 * process (CK_FORK=no): a forked child cannot use its parent's context.
 * NULL where the element made none; the tests then run as before. */
static GstCudaContext *
hold_shared_context (void)
{
  GstHarness *h;
  GstCudaContext *context;

  if (g_strcmp0 (g_getenv ("CK_FORK"), "no") != 0)
    return NULL;
  /* the element takes its context when it starts */
  h = gst_harness_new ("cudaconv");
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cuda");
  gst_harness_play (h);
  context = queried_cuda_context (h->element);
  gst_harness_teardown (h);
  return context;
}
#endif

int
main (int argc, char **argv)
{
  const gboolean no_device = g_getenv ("CUDACONV_TEST_NO_DEVICE") != NULL;
#ifdef ELEMENT_MULTI_GPU
  int count = 0;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count < 2) {
    g_print ("SKIP: %d usable CUDA device(s), these tests need two\n",
        count);
    return 77;
  }
#elif defined (ELEMENT_CUDA)
  int count = 0;
  if (!no_device
      && (cudaGetDeviceCount (&count) != cudaSuccess || count == 0)) {
    g_print ("SKIP: no usable CUDA device\n");
    return 77;
  }
#endif
  if (no_device && !element_topic.add_no_device_tests) {
    g_print ("SKIP: the %s tests have none for a machine without a CUDA "
        "device\n", element_topic.name);
    return 77;
  }
  gst_check_init (&argc, &argv);
  ref_rng_seed (&rng, ref_test_seed ());
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA) \
    && !defined (ELEMENT_MULTI_GPU)
  GstCudaContext *shared = no_device ? NULL : hold_shared_context ();
#endif
  const int failed = gst_check_run_suite (element_suite (no_device),
      suite_name, __FILE__);
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA) \
    && !defined (ELEMENT_MULTI_GPU)
  gst_clear_object (&shared);
#endif
  return failed;
}

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
const MemoryPath memory_paths[4] = {
  {FALSE, FALSE, "system in, system out"},
  {TRUE, TRUE, "CUDA in, CUDA out"},
  {TRUE, FALSE, "CUDA in, system out"},
  {FALSE, TRUE, "system in, CUDA out"},
};

void
path_harness_start (PathHarness * ph, const MemoryPath * path,
    const gchar * format, gint width, gint height)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);
  g_autofree gchar *cuda_caps = g_strdup_printf ("video/x-raw("
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "),format=%s,width=%d,height=%d,"
      "framerate=30/1", format, width, height);

  path_harness_start_with_caps (ph, path, caps, cuda_caps);
}

void
path_harness_start_with_caps (PathHarness * ph, const MemoryPath * path,
    const gchar * caps, const gchar * cuda_caps)
{
  GstElement *element = gst_element_factory_make ("cudaconv", NULL);
  GstCaps *parsed = gst_caps_from_string (caps);

  memset (ph, 0, sizeof (*ph));
  ph->path = path;
  fail_unless (gst_video_info_from_caps (&ph->info, parsed));
  gst_caps_unref (parsed);
  /* the backend is chosen when the element starts, which the harness does
   * at once; the harness's live source makes async-depth=0 one frame at a
   * time */
  fail_unless (element != NULL, "no cudaconv element");
  gst_util_set_object_arg (G_OBJECT (element), "backend", "cuda");
  ph->h = harness_track (gst_harness_new_with_element (element, "sink",
          "src"));
  gst_object_unref (element);
  /* downstream's caps first: the element negotiates its output when the
   * input's caps arrive */
  gst_harness_set_sink_caps_str (ph->h, path->cuda_out ? cuda_caps : caps);
  gst_harness_set_src_caps_str (ph->h, path->cuda_in ? cuda_caps : caps);
  ph->context = queried_cuda_context (ph->h->element);
  fail_unless (ph->context != NULL, "cudaconv answered no context query");
  if (path->cuda_in) {
    GstStructure *config;

    /* what a CUDA element upstream sends: frames of a GstCudaBufferPool of
     * the context it shares with cudaconv */
    ph->pool = gst_cuda_buffer_pool_new (ph->context);
    config = gst_buffer_pool_get_config (ph->pool);
    parsed = gst_caps_from_string (cuda_caps);
    gst_buffer_pool_config_set_params (config, parsed, ph->info.size, 0, 0);
    gst_caps_unref (parsed);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    fail_unless (gst_buffer_pool_set_config (ph->pool, config));
    fail_unless (gst_buffer_pool_set_active (ph->pool, TRUE));
  }
}

void
path_harness_stop (PathHarness * ph)
{
  harness_teardown (ph->h);
  if (ph->pool) {
    gst_buffer_pool_set_active (ph->pool, FALSE);
    gst_object_unref (ph->pool);
  }
  gst_object_unref (ph->context);
}

void
path_harness_stop_with_bus (PathHarness * ph, GstBus * bus)
{
  path_harness_stop (ph);
  fail_unless (g_ptr_array_remove (test_buses, bus));
  bus_free (bus);
}

/* Copies every plane of src into dst in whole rows, up to the shorter of
 * their strides (a row's padding included), with the CUDA runtime in
 * context, where the CUDA memory on one side lives. */
static void
copy_rows (GstVideoFrame * dst, GstVideoFrame * src, GstCudaContext * context,
    enum cudaMemcpyKind kind)
{
  cudaError_t err = cudaSuccess;

  fail_unless (gst_cuda_context_push (context));
  for (guint p = 0; err == cudaSuccess && p < GST_VIDEO_FRAME_N_PLANES (src);
      p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (src->info.finfo, p, comp);
    err = cudaMemcpy2D (GST_VIDEO_FRAME_PLANE_DATA (dst, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (dst, p),
        GST_VIDEO_FRAME_PLANE_DATA (src, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (src, p),
        MIN (GST_VIDEO_FRAME_PLANE_STRIDE (dst, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (src, p)),
        GST_VIDEO_FRAME_COMP_HEIGHT (src, comp[0]), kind);
  }
  /* a copy from pageable memory may return before it lands */
  if (err == cudaSuccess)
    err = cudaDeviceSynchronize ();
  gst_cuda_context_pop (NULL);
  fail_unless (err == cudaSuccess, "a copy %s CUDA memory failed: %s",
      kind == cudaMemcpyHostToDevice ? "into" : "out of",
      cudaGetErrorString (err));
}

/* The frame in host, in a buffer of ph's CUDA pool */
GstBuffer *
frame_to_cuda (PathHarness * ph, GstBuffer * host)
{
  GstBuffer *cuda = NULL;
  GstVideoFrame src, dst;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (ph->pool, &cuda,
          NULL), GST_FLOW_OK);
  fail_unless (gst_video_frame_map (&src, &ph->info, host, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&dst, &ph->info, cuda,
          (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CUDA)));
  copy_rows (&dst, &src, ph->context, cudaMemcpyHostToDevice);
  gst_video_frame_unmap (&src);
  gst_video_frame_unmap (&dst);
  return cuda;
}

/* The frame in CUDA memory cuda, in a new buffer of system memory laid out
 * as ph's caps say */
GstBuffer *
frame_from_cuda (PathHarness * ph, GstBuffer * cuda)
{
  GstBuffer *host = gst_buffer_new_allocate (NULL, ph->info.size, NULL);
  GstVideoFrame src, dst;

  fail_unless (gst_video_frame_map (&src, &ph->info, cuda,
          (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA)));
  fail_unless (gst_video_frame_map (&dst, &ph->info, host, GST_MAP_WRITE));
  copy_rows (&dst, &src, GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (cuda,
              0))->context, cudaMemcpyDeviceToHost);
  gst_video_frame_unmap (&src);
  gst_video_frame_unmap (&dst);
  return host;
}
#endif

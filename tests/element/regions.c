/* cudaconv element tests: regions. region=inside and region=outside over
 * the boxes of GstVideoRegionOfInterestMeta (and the analytics library's
 * object detections where the build has it) and region-boxes: types,
 * margin, hold, overlaps, boxes at and over every edge under every border,
 * bad boxes and malformed region-boxes, formats with subsampled, interleaved,
 * 16-bit and word-packed components, channels, in place and not, metas
 * kept, and region-radius-scale.
 *
 * The oracle: each output sample is F(in) where the sample is filtered
 * (inside a region for inside, outside every region for outside; a
 * subsampled component's sample counts as inside when it holds any pixel
 * of a region) and the input's sample elsewhere. F is the double reference
 * of the whole frame filtered as region=frame would (reference.c, the
 * filter written into the matrix property), or, for filters the reference
 * does not have (pixelate, radii past 15), the element's own output for
 * the same input with region=frame, from a second harness. The boxes the
 * test expects are computed here from the properties' documented rules
 * (margin, clipping), not from the element's code. */
#include "harness.h"
#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudabufferpool.h>
#endif

/* A box reported by a meta: a ROI meta's type (or an analytics label) */
typedef struct {
  const gchar *type;
  gint x, y, w, h;
} Roi;

/* What a filtered sample must be. */
typedef struct {
  /* the reference's filter (with w2, a magnitude), under border */
  const TestMatrix *m;
  const double *w2;
  RefBorder border;
  /* or, where m is NULL: the element's region=frame output for the input */
  GstVideoFrame *frame;
  /* gray-edges: U and V of YUV are neutral where filtered */
  gboolean fill_chroma;
} Oracle;

/* The box grown by margin * its size on each side (rounded up) and
 * clipped to the frame, as region-margin documents it; FALSE when nothing
 * of it is left. */
static gboolean
grow_and_clip (Box b, gdouble margin, gint width, gint height, Box * out)
{
  const gint64 mx = (gint64) ceil (margin * b.w);
  const gint64 my = (gint64) ceil (margin * b.h);
  const gint64 x0 = MAX ((gint64) b.x - mx, 0), y0 = MAX ((gint64) b.y - my,
      0);
  const gint64 x1 = MIN ((gint64) b.x + b.w + mx, width);
  const gint64 y1 = MIN ((gint64) b.y + b.h + my, height);

  if (x1 <= x0 || y1 <= y0)
    return FALSE;
  *out = (Box) {
  (gint) x0, (gint) y0, (gint) (x1 - x0), (gint) (y1 - y0)};
  return TRUE;
}

/* Whether sample (x, y) of component c holds any pixel of a box */
static gboolean
in_boxes (const GstVideoInfo * info, gint c, gint x, gint y,
    const Box * boxes, guint n)
{
  const gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
  const gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);

  for (guint k = 0; k < n; k++) {
    const gint x0 = boxes[k].x >> ws;
    const gint x1 = (boxes[k].x + boxes[k].w + (1 << ws) - 1) >> ws;
    const gint y0 = boxes[k].y >> hs;
    const gint y1 = (boxes[k].y + boxes[k].h + (1 << hs) - 1) >> hs;
    if (x >= x0 && x < x1 && y >= y0 && y < y1)
      return TRUE;
  }
  return FALSE;
}

/* The channels property's bit of component c */
static guint
channel_bit (const GstVideoInfo * info, gint c)
{
  return GST_VIDEO_INFO_HAS_ALPHA (info) && c == GST_VIDEO_COMP_A ? 8 :
      1u << c;
}

/* Checks every sample of every component of out: the oracle's where the
 * component is selected and the sample filtered (in the boxes for inside,
 * out of them for outside), the input's exactly elsewhere. boxes are the
 * regions as the element should have them (grown, clipped). */
/* The element against itself: the same kernels, but the CUDA back end
 * may pick another family for a region's window (untimed) than the one
 * timed for the frame, whose rounding may be a step off (the tensor
 * cores' fp16 sums) */
#ifdef ELEMENT_CUDA
#define FRAME_TOLERANCE 1u
#else
#define FRAME_TOLERANCE 0u
#endif

static void
check_regions (GstVideoFrame * in, GstVideoFrame * out, const Oracle * o,
    guint channels, const Box * boxes, guint n, gboolean outside,
    const gchar * what)
{
  const GstVideoInfo *info = &in->info;

  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    const RefImage src = component_image (in, c), dst = component_image (out,
        c);
    const gboolean selected = (channels & channel_bit (info, c)) != 0;
    const gboolean fill = o->fill_chroma && GST_VIDEO_INFO_IS_YUV (info)
        && (c == 1 || c == 2);
    const guint max = ref_max_value (&dst);
    RefImage fr = { 0 };
    guint32 *ref = NULL;

    if (selected && !fill && o->m) {
      ref = g_new (guint32, (gsize) src.width * src.height);
      ref_convolve (&src, o->m->w, o->w2, o->m->side, o->m->divisor,
          ldexp (o->m->offset, src.depth - 8), o->border, ref);
    } else if (selected && !fill) {
      fr = component_image (o->frame, c);
    }
    for (gint y = 0; y < src.height; y++)
      for (gint x = 0; x < src.width; x++) {
        const guint got = sample (&dst, x, y);
        const gboolean filtered = selected
            && in_boxes (info, c, x, y, boxes, n) != outside;
        if (!filtered) {
          if (got != sample (&src, x, y))
            fail ("%s: component %u at %d,%d is 0x%x, expected the input's "
                "0x%x (%s, not filtered)", what, c, x, y, got,
                sample (&src, x, y), selected ? (outside ? "in a region" :
                    "outside the regions") : "component not selected");
        } else if (fill) {
          const guint want = 1u << (src.depth - 1) << src.shift;
          if (got != want)
            fail ("%s: component %u at %d,%d is 0x%x, expected neutral 0x%x",
                what, c, x, y, got, want);
        } else {
          const guint value = got >> dst.shift;
          const guint want = ref ? ref[y * src.width + x] :
              sample (&fr, x, y) >> fr.shift;
          const guint diff = value > want ? value - want : want - value;
          if (diff > (ref ? 1 : FRAME_TOLERANCE) || value > max
              || (got & ((1u << dst.shift) - 1)))
            fail ("%s: component %u at %d,%d is %u (raw 0x%04x), expected "
                "%u (%s, filtered)", what, c, x, y, value, got, want,
                outside ? "outside the regions" : "in a region");
        }
      }
    g_free (ref);
  }
}

static GstHarness *
region_harness (const gchar * format, gint width, gint height,
    GstVideoInfo * info)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", format, width, height);

  gst_video_info_set_format (info, gst_video_format_from_string (format),
      width, height);
  return harness_new (caps);
}

/* A random frame (its deep samples well formed) carrying the ROI metas */
static GstBuffer *
frame_with_rois (const GstVideoInfo * info, const Roi * rois, guint n)
{
  GstBuffer *buf = random_frame (info);

  /* word-packed v210 is read through its unpack function */
  if (GST_VIDEO_INFO_FORMAT (info) != GST_VIDEO_FORMAT_v210)
    make_well_formed (buf, info);
  for (guint k = 0; k < n; k++)
    gst_buffer_add_video_region_of_interest_meta (buf, rois[k].type,
        (guint) rois[k].x, (guint) rois[k].y, (guint) rois[k].w,
        (guint) rois[k].h);
  return buf;
}

static guint
element_channels (GstElement * conv)
{
  guint channels;

  g_object_get (conv, "channels", &channels, NULL);
  return channels;
}

/* Pushes in (NULL: a random frame) and checks what comes out, as
 * check_regions does; the frames stay in p for more checks */
static void
push_and_check_keep (GstHarness * h, const GstVideoInfo * info,
    GstBuffer * in, const Oracle * o, const Box * boxes, guint n,
    gboolean outside, const gchar * what, Pushed * p)
{
  push_frame (h, info, in, p);
  check_regions (&p->fin, &p->fout, o, element_channels (h->element), boxes,
      n, outside, what);
}

static void
push_and_check (GstHarness * h, const GstVideoInfo * info, GstBuffer * in,
    const Oracle * o, const Box * boxes, guint n, gboolean outside,
    const gchar * what)
{
  Pushed p;

  push_and_check_keep (h, info, in, o, boxes, n, outside, what, &p);
  pushed_release (&p);
}

/* Fails with "what: change" unless buffer holds the bytes of copy */
static void
expect_same_bytes (GstBuffer * buffer, GstBuffer * copy, const gchar * what,
    const gchar * change)
{
  GstMapInfo a, b;

  fail_unless (gst_buffer_map (buffer, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (copy, &b, GST_MAP_READ));
  fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0,
      "%s: %s", what, change);
  gst_buffer_unmap (buffer, &a);
  gst_buffer_unmap (copy, &b);
}

/* A buffer the element was given but not to write holds what a copy made
 * before holds */
static void
expect_unwritten (GstBuffer * in, GstBuffer * before, const gchar * what)
{
  expect_same_bytes (in, before, what, "the input buffer was written");
}

static void
set_region (GstElement * conv, gboolean outside)
{
  gst_util_set_object_arg (G_OBJECT (conv), "region", outside ? "outside" :
      "inside");
}

/* The ROI metas' rectangles, grown and clipped, followed by the fixed
 * boxes', into boxes; returns how many. */
static guint
expected_boxes (const Roi * rois, guint n_rois, const Box * fixed,
    guint n_fixed, gdouble margin, gint width, gint height, Box * boxes)
{
  guint n = 0;

  for (guint k = 0; k < n_rois; k++)
    n += grow_and_clip ((Box) {
        rois[k].x, rois[k].y, rois[k].w, rois[k].h}
        , margin, width, height, &boxes[n]);
  for (guint k = 0; k < n_fixed; k++)
    n += grow_and_clip (fixed[k], margin, width, height, &boxes[n]);
  return n;
}

/* One frame of format with the ROI metas and fixed boxes through the
 * element, inside or outside, with m under border, checked. */
static void
check_one (const gchar * format, gint width, gint height,
    const TestMatrix * m, RefBorder border, const gchar * channels,
    gboolean outside, const Roi * rois, guint n_rois, const Box * fixed,
    guint n_fixed)
{
  g_autofree gchar *fixed_text = boxes_text (fixed, n_fixed);
  g_autofree gchar *what = g_strdup_printf ("%s %dx%d region=%s %dx%d "
      "border %d channels=%s, %u ROI metas, region-boxes=\"%s\"", format,
      width, height, outside ? "outside" : "inside", m->side, m->side,
      border, channels ? channels : "default", n_rois, fixed_text);
  GstVideoInfo info;
  GstHarness *h = region_harness (format, width, height, &info);
  const Oracle o = { .m = m, .border = border };
  Box boxes[80];
  guint n;
  GstBuffer *in;

  set_custom_filter (h->element, m, border, channels);
  set_region (h->element, outside);
  g_object_set (h->element, "region-boxes", fixed_text, NULL);
  n = expected_boxes (rois, n_rois, fixed, n_fixed, 0.0, width, height,
      boxes);
  in = frame_with_rois (&info, rois, n_rois);
  push_and_check (h, &info, in, &o, boxes, n, outside, what);
  gst_buffer_unref (in);
  harness_teardown (h);
}

/* Inside and outside on each format of the brief's list (subsampled
 * 4:2:0 planar and semi-planar, packed 4:2:2 at an odd width, packed RGB
 * with and without alpha, 16-bit), two ROI metas and a fixed box at odd
 * coordinates (chroma rounding), at 97x61 and 33x17. */
GST_START_TEST (test_inside_outside_formats)
{
  static const gchar *formats[] = { "GRAY8", "I420", "NV12", "YUY2", "UYVY",
    "RGB", "BGRA", "P010_10LE"
  };
  static const Roi big_rois[] = { {"face", 13, 7, 21, 15},
  {"face", 51, 30, 9, 11}
  };
  static const Box big_fixed[] = { {3, 41, 17, 5} };
  static const Roi small_rois[] = { {"face", 1, 1, 7, 5},
  {"plate", 20, 9, 9, 7}
  };
  static const Box small_fixed[] = { {5, 12, 4, 3} };
  TestMatrix m[2];

  matrix_random (&m[0], 5, FALSE);
  matrix_random (&m[1], 7, TRUE);
  m[1].offset = 128.0;
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gint outside = 0; outside < 2; outside++) {
      check_one (formats[f], 97, 61, &m[outside], (RefBorder) ((f + outside)
              % 4), NULL, outside, big_rois, 2, big_fixed, 1);
      check_one (formats[f], 33, 17, &m[!outside], (RefBorder) ((f + 2 +
                  outside) % 4), NULL, outside, small_rois, 2, small_fixed,
          1);
    }
  g_free (m[0].text);
  g_free (m[1].text);
}

GST_END_TEST;

/* v210 (word-packed, 4:2:2 in groups of 6 pixels) read back through
 * GStreamer's unpack functions: each component filtered in (or out of)
 * the regions within 1 of the reference, the rest as it came. */
static void
check_v210_frames (GstVideoFrame * fin, GstVideoFrame * fout,
    const TestMatrix * m, RefBorder border, const Box * boxes, guint n,
    gboolean outside, const gchar * what)
{
  const gint width = GST_VIDEO_FRAME_WIDTH (fin);
  const gint height = GST_VIDEO_FRAME_HEIGHT (fin);
  Unpacked ui, uo;

  unpacked_from_frame (fin, &ui);
  unpacked_from_frame (fout, &uo);
  for (guint c = 0; c < 3; c++) {
    /* chroma at the even pixels of the unpacked lines */
    const gint step = c > 0 ? 2 : 1;
    const gint cw = (width + step - 1) / step;
    RefImage src = { ui.c[c], (gsize) width * 2, cw, height, step, 2, 10, 0 };
    guint32 *ref = g_new (guint32, (gsize) cw * height);

    ref_convolve (&src, m->w, NULL, m->side, m->divisor, 0.0, border, ref);
    for (gint y = 0; y < height; y++)
      for (gint x = 0; x < cw; x++) {
        const guint got = uo.c[c][y * width + x * step];
        const guint was = ui.c[c][y * width + x * step];
        const gboolean filtered = in_boxes (&fin->info, c, x, y, boxes, n) !=
            outside;
        const guint want = filtered ? ref[y * cw + x] : was;
        if ((got > want ? got - want : want - got) > (filtered ? 1u : 0u))
          fail ("%s: component %u at %d,%d is %u, expected %u (%s)", what, c,
              x, y, got, want, filtered ? "filtered" : "the input's");
      }
    g_free (ref);
  }
  unpacked_clear (&ui);
  unpacked_clear (&uo);
}

/* v210 at widths that end inside a group */
static void
check_v210 (gint width, gint height, gboolean outside, const Box * fixed,
    guint n_fixed)
{
  g_autofree gchar *fixed_text = boxes_text (fixed, n_fixed);
  g_autofree gchar *what = g_strdup_printf ("v210 %dx%d region=%s "
      "region-boxes=\"%s\"", width, height, outside ? "outside" : "inside",
      fixed_text);
  GstVideoInfo info;
  GstHarness *h = region_harness ("v210", width, height, &info);
  GstVideoFrame fin, fout;
  GstBuffer *in, *out;
  TestMatrix m;
  Box boxes[8];
  guint n;

  matrix_random (&m, 5, FALSE);
  set_custom_filter (h->element, &m, REF_BORDER_MIRROR, NULL);
  set_region (h->element, outside);
  g_object_set (h->element, "region-boxes", fixed_text, NULL);
  n = expected_boxes (NULL, 0, fixed, n_fixed, 0.0, width, height, boxes);
  in = random_frame (&info);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
  check_v210_frames (&fin, &fout, &m, REF_BORDER_MIRROR, boxes, n, outside,
      what);
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_free (m.text);
  harness_teardown (h);
}

GST_START_TEST (test_word_packed_v210)
{
  static const Box boxes[] = { {5, 2, 13, 5}, {25, 6, 7, 5} };

  for (gint outside = 0; outside < 2; outside++) {
    check_v210 (37, 11, outside, boxes, 2);
    check_v210 (48, 9, outside, boxes, 1);
  }
}

GST_END_TEST;

/* region-types: only the metas of the listed types; unset or empty takes
 * all; a type that no meta has leaves inside with nothing to do, and the
 * frame passes as it came. Changed while frames flow. */
GST_START_TEST (test_region_types)
{
  static const Roi rois[] = { {"face", 4, 3, 15, 11}, {"plate", 40, 30,
          21, 9}, {"face", 70, 5, 11, 20}
  };
  static const struct {
    const gchar *types;
    guint mask;                 /* of rois */
  } cases[] = {
    {NULL, 7}, {"", 7}, {"plate", 2}, {"face", 5}, {" face , plate ", 7},
    {"car,plate", 2}, {"car", 0}, {"Face", 0}
  };
  GstVideoInfo info;
  GstHarness *h = region_harness ("I420", 97, 61, &info);
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
  for (gint outside = 0; outside < 2; outside++) {
    set_region (h->element, outside);
    for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
      g_autofree gchar *what = g_strdup_printf ("region=%s region-types=%s%s%s",
          outside ? "outside" : "inside", cases[k].types ? "\"" : "",
          cases[k].types ? cases[k].types : "unset",
          cases[k].types ? "\"" : "");
      const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
      Box boxes[3];
      guint n = 0;
      GstBuffer *in = frame_with_rois (&info, rois, 3);
      Pushed p;

      g_object_set (h->element, "region-types", cases[k].types, NULL);
      for (guint r = 0; r < 3; r++)
        if (cases[k].mask & (1u << r))
          n += grow_and_clip ((Box) {
              rois[r].x, rois[r].y, rois[r].w, rois[r].h}
              , 0.0, 97, 61, &boxes[n]);
      push_frame (h, &info, in, &p);
      if (n == 0 && !outside)
        fail_unless (p.out == p.in, "%s: no region, yet another buffer came "
            "out", what);
      check_regions (&p.fin, &p.fout, &o, element_channels (h->element),
          boxes, n, outside, what);
      pushed_release (&p);
      gst_buffer_unref (in);
    }
  }
  g_free (m.text);
  harness_teardown (h);
}

GST_END_TEST;

/* region-margin grows each box by ceil(margin * size) on each side
 * (ROI metas and fixed boxes alike), clipped to the frame. */
GST_START_TEST (test_region_margin)
{
  static const Roi rois[] = { {"face", 20, 10, 16, 12}, {"face", 2, 50, 15,
          9}, {"plate", 80, 2, 10, 6}
  };
  static const Box fixed[] = { {45, 40, 7, 5} };
  static const gdouble margins[] = { 0.0, 0.1, 0.25, 0.5, 2.0 };
  GstVideoInfo info;
  GstHarness *h = region_harness ("I420", 97, 61, &info);
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  set_custom_filter (h->element, &m, REF_BORDER_MIRROR, NULL);
  g_object_set (h->element, "region-boxes", "45,40,7,5", NULL);
  for (gint outside = 0; outside < 2; outside++) {
    set_region (h->element, outside);
    for (guint k = 0; k < G_N_ELEMENTS (margins); k++) {
      g_autofree gchar *what = g_strdup_printf ("region=%s region-margin=%g",
          outside ? "outside" : "inside", margins[k]);
      const Oracle o = { .m = &m, .border = REF_BORDER_MIRROR };
      Box boxes[4];
      const guint n = expected_boxes (rois, 3, fixed, 1, margins[k], 97, 61,
          boxes);
      GstBuffer *in = frame_with_rois (&info, rois, 3);

      g_object_set (h->element, "region-margin", margins[k], NULL);
      push_and_check (h, &info, in, &o, boxes, n, outside, what);
      gst_buffer_unref (in);
    }
  }
  g_free (m.text);
  harness_teardown (h);
}

GST_END_TEST;

/* Pushes a writable frame without metas that must pass through
 * unchanged: the same GstBuffer comes back with the same samples. */
static void
expect_same_buffer (GstHarness * h, const GstVideoInfo * info,
    const gchar * what)
{
  GstBuffer *in = frame_with_rois (info, NULL, 0);
  GstBuffer *copy = gst_buffer_copy_deep (in), *out;

  out = gst_harness_push_and_pull (h, in);
  fail_unless (out == in, "%s: another buffer came out", what);
  expect_same_bytes (out, copy, what, "the frame changed");
  gst_buffer_unref (out);
  gst_buffer_unref (copy);
}

/* region-hold=N: a box reported in frame 0 is applied in frames 1..N
 * (without a meta), joined there by new boxes, and frame N+1 passes
 * through as the same buffer; fixed boxes are always applied, a flush
 * forgets what is held. */
GST_START_TEST (test_region_hold)
{
  static const Roi a = { "face", 10, 8, 17, 13 }, b = { "face", 60, 30, 11,
    9
  };
  static const guint holds[] = { 0, 1, 3 };
  GstVideoInfo info;
  GstHarness *h = region_harness ("I420", 97, 61, &info);
  const gchar *w = "hold";
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
  set_region (h->element, FALSE);
  for (guint k = 0; k < G_N_ELEMENTS (holds); k++) {
    const guint hold = holds[k];
    const guint last = hold == 0 ? 1 : hold + 2;

    g_object_set (h->element, "region-hold", hold, NULL);
    /* a in frame 0, b in frame 1: a is applied in frames 0..hold, b in
     * 1..hold + 1; the frame after both passes through */
    for (guint frame = 0; frame <= last; frame++) {
      g_autofree gchar *what = g_strdup_printf ("region-hold=%u, frame %u",
          hold, frame);
      const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
      const gboolean with_b = frame == 1 && hold >= 1;
      GstBuffer *in;
      Box boxes[2];
      guint n = 0;

      if (frame <= hold)
        n += grow_and_clip ((Box) {
            a.x, a.y, a.w, a.h}, 0.0, 97, 61, &boxes[n]);
      if (hold >= 1 && frame >= 1 && frame <= hold + 1)
        n += grow_and_clip ((Box) {
            b.x, b.y, b.w, b.h}, 0.0, 97, 61, &boxes[n]);
      if (n == 0) {
        fail_unless (frame == last, "%s: nothing held too early", what);
        expect_same_buffer (h, &info, what);
        continue;
      }
      in = frame_with_rois (&info, frame == 0 ? &a : &b, frame == 0
          || with_b ? 1 : 0);
      push_and_check (h, &info, in, &o, boxes, n, FALSE, what);
      gst_buffer_unref (in);
    }
  }

  /* a flush forgets the held box */
  g_object_set (h->element, "region-hold", 5, NULL);
  {
    GstBuffer *in = frame_with_rois (&info, &a, 1);
    Pushed p;
    push_frame (h, &info, in, &p);
    pushed_release (&p);
    gst_buffer_unref (in);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (FALSE)));
  {
    /* a flush takes the segment away */
    GstSegment segment;
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  }
  expect_same_buffer (h, &info, "the first frame after a flush");

  /* fixed boxes stay whatever the hold */
  g_object_set (h->element, "region-hold", 2, "region-boxes", "30,20,9,9",
      NULL);
  for (gint frame = 0; frame < 5; frame++) {
    const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
    Box boxes[2] = { {30, 20, 9, 9}, {a.x, a.y, a.w, a.h} };
    GstBuffer *in = frame_with_rois (&info, &a, frame == 0);

    push_and_check (h, &info, in, &o, boxes, frame <= 2 ? 2 : 1, FALSE, w);
    gst_buffer_unref (in);
  }
  g_free (m.text);
  harness_teardown (h);
}

GST_END_TEST;

/* A crowd held: 1,000 boxes a frame that move from frame to frame, with
 * region-hold=300, more than the element holds one by one. Every sample of
 * every box reported so far is filtered (what is held may be merged into
 * larger boxes, which hide no less); any other sample is the input's or
 * filtered. */
GST_START_TEST (test_region_hold_crowd)
{
  const gint width = 320, height = 240, n = 1000, frames = 6;
  GstVideoInfo info;
  GstHarness *h = region_harness ("GRAY8", width, height, &info);
  Box *boxes = g_new (Box, n);
  /* the pixels of every box reported so far */
  guint8 *held = g_new0 (guint8, (gsize) width * height);
  Roi *rois = g_new (Roi, n);
  GRand *rand = g_rand_new_with_seed (300);
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
  set_region (h->element, FALSE);
  g_object_set (h->element, "region-hold", 300, NULL);
  for (gint f = 0; f < frames; f++) {
    Box *now = boxes;
    GstBuffer *in;
    Pushed p;
    RefImage src, dst;
    guint32 *ref;
    guint unchanged = 0;

    for (gint k = 0; k < n; k++) {
      now[k].w = g_rand_int_range (rand, 1, 5);
      now[k].h = g_rand_int_range (rand, 1, 5);
      now[k].x = g_rand_int_range (rand, 0, width - now[k].w + 1);
      now[k].y = g_rand_int_range (rand, 0, height - now[k].h + 1);
      rois[k] = (Roi) {
      "face", now[k].x, now[k].y, now[k].w, now[k].h};
      for (gint y = now[k].y; y < now[k].y + now[k].h; y++)
        memset (held + (gsize) y * width + now[k].x, 1, now[k].w);
    }
    in = frame_with_rois (&info, rois, n);
    push_frame (h, &info, in, &p);
    src = component_image (&p.fin, 0);
    dst = component_image (&p.fout, 0);
    ref = g_new (guint32, (gsize) width * height);
    ref_convolve (&src, m.w, NULL, m.side, m.divisor, m.offset,
        REF_BORDER_CLAMP, ref);
    for (gint y = 0; y < height; y++)
      for (gint x = 0; x < width; x++) {
        const guint got = sample (&dst, x, y), want = ref[y * width + x];
        const guint diff = got > want ? got - want : want - got;
        if (held[y * width + x])
          fail_unless (diff <= 1, "frame %d: %d,%d in a held box is %u, "
              "expected %u (filtered)", f, x, y, got, want);
        else if (got == sample (&src, x, y))
          unchanged++;
        else
          fail_unless (diff <= 1, "frame %d: %d,%d is %u, neither the "
              "input's %u nor filtered %u", f, x, y, got, sample (&src, x, y),
              want);
      }
    /* the first frames' boxes, held one by one, leave most of it */
    if (f == 0)
      fail_unless (unchanged > (guint) (width * height / 2), "frame 0: only "
          "%u samples outside the boxes unchanged", unchanged);
    g_free (ref);
    pushed_release (&p);
    gst_buffer_unref (in);
  }
  g_rand_free (rand);
  g_free (rois);
  g_free (held);
  g_free (boxes);
  g_free (m.text);
  harness_teardown (h);
}

GST_END_TEST;

/* Fixed boxes alone, with metas, changed and cleared while frames flow. */
GST_START_TEST (test_fixed_boxes)
{
  static const Box fixed[] = { {7, 9, 23, 13}, {61, 41, 31, 17} };
  static const Roi rois[] = { {"face", 40, 3, 11, 7} };
  TestMatrix m;
  GstVideoInfo info;
  GstHarness *h;

  matrix_random (&m, 5, TRUE);
  m.offset = 128.0;
  for (gint outside = 0; outside < 2; outside++) {
    check_one ("I420", 97, 61, &m, REF_BORDER_WRAP, NULL, outside, NULL, 0,
        fixed, 2);
    check_one ("NV12", 97, 61, &m, REF_BORDER_ZERO, NULL, outside, rois, 1,
        fixed, 2);
    check_one ("GRAY8", 33, 17, &m, REF_BORDER_MIRROR, NULL, outside, NULL,
        0, (const Box[]) { {
            0, 0, 33, 17}
        }, 1);
  }

  /* changed mid-stream; "" is none, and inside passes the frame */
  h = region_harness ("I420", 97, 61, &info);
  set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
  set_region (h->element, FALSE);
  for (guint k = 0; k < 3; k++) {
    const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
    g_autofree gchar *text = boxes_text (&fixed[k % 2], 1);

    g_object_set (h->element, "region-boxes", text, NULL);
    push_and_check (h, &info, NULL, &o, &fixed[k % 2], 1, FALSE, text);
  }
  g_object_set (h->element, "region-boxes", "", NULL);
  expect_same_buffer (h, &info, "region-boxes=\"\"");
  g_object_set (h->element, "region-boxes", NULL, NULL);
  expect_same_buffer (h, &info, "region-boxes unset");
  g_object_set (h->element, "region-boxes", " ; ", NULL);
  expect_same_buffer (h, &info, "region-boxes=\" ; \"");
  harness_teardown (h);
  g_free (m.text);
}

GST_END_TEST;

/* The pool the element proposes upstream (of pinned memory on the CUDA
 * back end), active, or NULL where it proposes none */
static GstBufferPool *
proposed_pool (GstHarness * h, const GstVideoInfo * info)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;

  if (gst_pad_peer_query (h->srcpad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  gst_query_unref (query);
  gst_caps_unref (caps);
  if (pool && !gst_buffer_pool_set_active (pool, TRUE))
    gst_clear_object (&pool);
  return pool;
}

/* A writable random frame, from pool where there is one */
static GstBuffer *
writable_frame (GstBufferPool * pool, const GstVideoInfo * info)
{
  GstBuffer *buf = NULL;
  GstBuffer *random = random_frame (info);

  if (!pool)
    return random;
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  {
    GstMapInfo a, b;
    fail_unless (gst_buffer_map (buf, &a, GST_MAP_WRITE));
    fail_unless (gst_buffer_map (random, &b, GST_MAP_READ));
    memcpy (a.data, b.data, MIN (a.size, b.size));
    gst_buffer_unmap (random, &b);
    gst_buffer_unmap (buf, &a);
  }
  gst_buffer_unref (random);
  return buf;
}

/* The frames of test_fixed_boxes_replayed, and the one whose filter
 * changes */
#define REPLAYED_FRAMES 21
#define REPLAYED_NEW_FILTER 13

/* The boxes of frame k of test_fixed_boxes_replayed, in a 161x121 frame:
 * three; from frame 5 twenty-one boxes of 3x3, whose windows lie apart
 * (63 pieces of I420: more than a launch's parameters take, and a tenth
 * of the frame's bytes, so that pool frames keep to the regions mapped
 * path); three again from frame 11; from frame 15 sixteen boxes that
 * reach the frame's right edge, each a few pixels on from the last, whose
 * one window a part with its reach holds more samples than the part
 * (filtered whole, in CUDA memory) */
static guint
replayed_boxes (guint k, Box * boxes)
{
  static const Box few[] = { {7, 9, 23, 13}, {61, 41, 31, 17}, {0, 50, 9,
          11}
  };
  guint n = 0;

  if (k >= 5 && k < 11) {
    for (; n < 21; n++)
      boxes[n] = (Box) {
      3 + 22 * (n % 7), 5 + 40 * (n / 7), 3, 3};
    return n;
  }
  if (k >= 15) {
    for (; n < 16; n++)
      boxes[n] = (Box) {
      3 * n, 2 * n, 120, 90};
    return n;
  }
  memcpy (boxes, few, sizeof (few));
  return G_N_ELEMENTS (few);
}

/* Fails unless the frame slots of one run of test_fixed_boxes_replayed
 * replayed frames and no graph failed (on the CUDA back end) */
static void
expect_replays (const GraphCounts * graphs, const gchar * what)
{
#ifdef ELEMENT_CUDA
  fail_unless (g_atomic_int_get (&graphs->failed) == 0, "%s: a frame graph "
      "failed (see the cudaconv INFO log)", what);
  fail_unless (g_atomic_int_get (&graphs->replayed) > 0, "%s: no frame was "
      "replayed (%d recorded)", what, g_atomic_int_get (&graphs->recorded));
#endif
}

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
/* The output of ph's element for the input host (in system memory),
 * against the oracle inside or outside the boxes; out in the memory of
 * ph's path */
static void
check_path_regions (PathHarness * ph, GstBuffer * host, GstBuffer * out,
    const Oracle * o, const Box * boxes, guint n, gboolean outside,
    const gchar * what)
{
  GstBuffer *host_out = ph->path->cuda_out ? frame_from_cuda (ph, out) :
      gst_buffer_ref (out);
  GstVideoFrame fin, fout;

  fail_unless (gst_video_frame_map (&fin, &ph->info, host, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, &ph->info, host_out,
          GST_MAP_READ));
  check_regions (&fin, &fout, o, element_channels (ph->h->element), boxes, n,
      outside, what);
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (host_out);
}
#endif

/* Fixed boxes frame after frame, writable frames filtered in place: where
 * the boxes stay, the CUDA back end replays a frame's kernels from its
 * frame slot's graph (frames in CUDA memory; frames from the element's
 * pool of pinned memory, read and written where they are, where they have
 * more pieces than a launch's parameters take: the 21 boxes), and where
 * they change it launches them one by one and records again.
 * REPLAYED_FRAMES frames of I420 and NV12 at an odd size, the boxes changed
 * at frames 5, 11 and 15 and the filter (another matrix, of another
 * radius) at REPLAYED_NEW_FILTER, each frame against the reference; on the
 * CUDA back end each memory replayed frames and no graph failed. */
GST_START_TEST (test_fixed_boxes_replayed)
{
  static const gchar *formats[] = { "I420", "NV12" };
  GraphCounts graphs;
  TestMatrix m[2];

  matrix_random (&m[0], 5, FALSE);
  matrix_random (&m[1], 7, TRUE);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    g_autofree gchar *host_what = g_strdup_printf ("%s 161x121 system "
        "memory", formats[f]);
    GstVideoInfo info;
    GstHarness *h = region_harness (formats[f], 161, 121, &info);
    GstBufferPool *pool;

    set_custom_filter (h->element, &m[0], REF_BORDER_MIRROR, NULL);
    set_region (h->element, FALSE);
    /* a first frame makes the element negotiate and answer allocation */
    gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
    pool = proposed_pool (h, &info);
    /* the back end's DEBUG and LOG lines are counted, not printed */
    graph_counts_start (&graphs);
    for (guint k = 0; k < REPLAYED_FRAMES; k++) {
      const TestMatrix *mk = &m[k >= REPLAYED_NEW_FILTER];
      const Oracle o = { .m = mk, .border = REF_BORDER_MIRROR };
      g_autofree gchar *what = g_strdup_printf ("%s%s, frame %u", host_what,
          pool ? " of the proposed pool" : "", k);
      Box boxes[21];
      const guint n = replayed_boxes (k, boxes);
      g_autofree gchar *text = boxes_text (boxes, n);
      GstBuffer *in, *copy, *out;
      GstVideoFrame fin, fout;

      if (k == REPLAYED_NEW_FILTER)
        set_custom_filter (h->element, mk, REF_BORDER_MIRROR, NULL);
      g_object_set (h->element, "region-boxes", text, NULL);
      in = writable_frame (pool, &info);
      make_well_formed (in, &info);
      copy = gst_buffer_copy_deep (in);
      out = gst_harness_push_and_pull (h, in);
      fail_unless (out == in, "%s: not filtered in place", what);
      fail_unless (gst_video_frame_map (&fin, &info, copy, GST_MAP_READ));
      fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
      check_regions (&fin, &fout, &o, element_channels (h->element), boxes, n,
          FALSE, what);
      gst_video_frame_unmap (&fin);
      gst_video_frame_unmap (&fout);
      gst_buffer_unref (copy);
      gst_buffer_unref (out);
    }
    graph_counts_stop ();
    /* the pool's frames: mapped, and replayed where they have many pieces */
    if (pool) {
      expect_replays (&graphs, host_what);
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
    harness_teardown (h);
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
    {
      g_autofree gchar *cuda_what = g_strdup_printf ("%s 161x121 CUDA "
          "memory", formats[f]);
      const MemoryPath *both = NULL;
      PathHarness ph;

      for (guint k = 0; k < G_N_ELEMENTS (memory_paths); k++)
        if (memory_paths[k].cuda_in && memory_paths[k].cuda_out)
          both = &memory_paths[k];
      fail_unless (both != NULL);
      path_harness_start (&ph, both, formats[f], 161, 121);
      set_custom_filter (ph.h->element, &m[0], REF_BORDER_MIRROR, NULL);
      set_region (ph.h->element, FALSE);
      graph_counts_start (&graphs);
      for (guint k = 0; k < REPLAYED_FRAMES; k++) {
        const TestMatrix *mk = &m[k >= REPLAYED_NEW_FILTER];
        const Oracle o = { .m = mk, .border = REF_BORDER_MIRROR };
        g_autofree gchar *what = g_strdup_printf ("%s, frame %u", cuda_what,
            k);
        Box boxes[21];
        const guint n = replayed_boxes (k, boxes);
        g_autofree gchar *text = boxes_text (boxes, n);
        GstBuffer *host = random_frame (&ph.info), *in, *out;

        if (k == REPLAYED_NEW_FILTER)
          set_custom_filter (ph.h->element, mk, REF_BORDER_MIRROR, NULL);
        g_object_set (ph.h->element, "region-boxes", text, NULL);
        make_well_formed (host, &ph.info);
        in = frame_to_cuda (&ph, host);
        out = gst_harness_push_and_pull (ph.h, in);
        fail_unless (out == in, "%s: not filtered in place", what);
        check_path_regions (&ph, host, out, &o, boxes, n, FALSE, what);
        gst_buffer_unref (out);
        gst_buffer_unref (host);
      }
      graph_counts_stop ();
      expect_replays (&graphs, cuda_what);
      path_harness_stop (&ph);
    }
#endif
  }
  g_free (m[0].text);
  g_free (m[1].text);
}

GST_END_TEST;

/* Overlapping boxes, a box inside another, two equal ones: the union is
 * filtered, each sample once. */
GST_START_TEST (test_overlapping_boxes)
{
  static const Roi rois[] = { {"face", 10, 10, 30, 20}, {"face", 25, 20, 30,
          25}, {"plate", 15, 12, 5, 5}, {"face", 25, 20, 30, 25},
  {"face", 70, 40, 10, 10}
  };
  static const Box fixed[] = { {75, 45, 20, 14}, {12, 14, 3, 3} };
  Box stairs[16];
  TestMatrix m;

  /* boxes over most of the frame, each 3, 1 pixels on from the last: a
   * staircase of writes, whose windows hold more samples than the frame */
  for (guint k = 0; k < G_N_ELEMENTS (stairs); k++)
    stairs[k] = (Box) {
    3 * k, k, 50, 40};
  matrix_random (&m, 7, FALSE);
  for (gint outside = 0; outside < 2; outside++) {
    check_one ("I420", 97, 61, &m, REF_BORDER_CLAMP, NULL, outside, rois,
        G_N_ELEMENTS (rois), fixed, G_N_ELEMENTS (fixed));
    check_one ("YUY2", 97, 61, &m, REF_BORDER_MIRROR, NULL, outside, rois,
        G_N_ELEMENTS (rois), fixed, G_N_ELEMENTS (fixed));
    check_one ("I420", 97, 61, &m, REF_BORDER_WRAP, NULL, outside, NULL, 0,
        stairs, G_N_ELEMENTS (stairs));
    check_one ("GRAY16_LE", 95, 59, &m, REF_BORDER_MIRROR, NULL, outside,
        rois, G_N_ELEMENTS (rois), stairs, G_N_ELEMENTS (stairs));
  }
  g_free (m.text);
}

GST_END_TEST;

/* n random boxes in a width x height frame: mostly a crowd's small faces
 * (1 to 12 pixels a side, touching and overlapping by chance), some large */
static void
random_boxes (GRand * rand, guint n, gint width, gint height, Box * boxes)
{
  for (guint k = 0; k < n; k++) {
    const gboolean large = g_rand_int_range (rand, 0, 16) == 0;
    const gint w = large ? g_rand_int_range (rand, 20, 61) :
        g_rand_int_range (rand, 1, 13);
    const gint h = large ? g_rand_int_range (rand, 20, 61) :
        g_rand_int_range (rand, 1, 13);

    boxes[k].x = g_rand_int_range (rand, 0, width - MIN (w, width) + 1);
    boxes[k].y = g_rand_int_range (rand, 0, height - MIN (h, height) + 1);
    boxes[k].w = MIN (w, width);
    boxes[k].h = MIN (h, height);
  }
}

/* Past 1,024 regions, the documented rule: every cell of a 32x32 grid
 * over the frame that a region touches is filtered, the cells' edges at
 * ceil (c * size / 32); here a box per touched cell. */
static guint
merged_on_grid (const Box * boxes, guint n, gint width, gint height,
    Box * merged)
{
  gboolean touched[32][32] = { { FALSE } };
  guint kept = 0;

  for (guint k = 0; k < n; k++)
    for (gint gy = 0; gy < 32; gy++)
      for (gint gx = 0; gx < 32; gx++) {
        const gint x0 = (gx * width + 31) / 32;
        const gint x1 = ((gx + 1) * width + 31) / 32;
        const gint y0 = (gy * height + 31) / 32;
        const gint y1 = ((gy + 1) * height + 31) / 32;
        if (x0 < boxes[k].x + boxes[k].w && boxes[k].x < x1
            && y0 < boxes[k].y + boxes[k].h && boxes[k].y < y1)
          touched[gy][gx] = TRUE;
      }
  for (gint gy = 0; gy < 32; gy++)
    for (gint gx = 0; gx < 32; gx++)
      if (touched[gy][gx]) {
        const gint x0 = (gx * width + 31) / 32;
        const gint y0 = (gy * height + 31) / 32;
        merged[kept++] = (Box) {
        x0, y0, ((gx + 1) * width + 31) / 32 - x0,
              ((gy + 1) * height + 31) / 32 - y0};
      }
  return kept;
}

/* 65, 200 and 1,024 regions, half from ROI metas and half from
 * region-boxes, a crowd of small boxes touching and overlapping and some
 * large ones: each filtered as itself, inside and outside, writable input
 * and input the test holds too (left as it was). 1,100 regions: merged on
 * the documented grid, with one warning for the stream. On 161x121 frames
 * the windows with their reach hold more samples than the planes, on
 * 641x361 ones fewer (the CUDA back end filters the planes whole in the
 * first case, stacks of windows in the second). */
static const gint crowd_sizes[][2] = { {161, 121}, {641, 361} };

GST_START_TEST (test_many_regions)
{
  static const guint counts[] = { 65, 200, 1024, 1100 };
  const gint width = crowd_sizes[__i__][0], height = crowd_sizes[__i__][1];
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    for (gint outside = 0; outside < 2; outside++)
      for (gint writable = 1; writable >= 0; writable--) {
        const guint n = counts[i], n_rois = n / 2;
        g_autofree gchar *what = g_strdup_printf ("I420 %dx%d, %u regions, "
            "region=%s, %s input", width, height, n, outside ? "outside" :
            "inside", writable ? "writable" : "non-writable");
        GRand *rand = g_rand_new_with_seed (7 * i + 2 * outside + writable);
        Box *boxes = g_new (Box, n), *expected = g_new (Box, n);
        Roi *rois = g_new (Roi, n_rois);
        g_autofree gchar *fixed = NULL;
        const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
        GstVideoInfo info;
        GstHarness *h = region_harness ("I420", width, height, &info);
        GstBus *bus = harness_bus (h);
        GstBuffer *in, *before, *out;
        GstVideoFrame fin, fout;
        guint n_expected;

        random_boxes (rand, n, width, height, boxes);
        for (guint k = 0; k < n_rois; k++)
          rois[k] = (Roi) {
          "face", boxes[k].x, boxes[k].y, boxes[k].w, boxes[k].h};
        fixed = boxes_text (&boxes[n_rois], n - n_rois);
        set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
        set_region (h->element, outside);
        g_object_set (h->element, "region-boxes", fixed, NULL);
        /* the metas' boxes, then the fixed ones, as the element takes them */
        n_expected = expected_boxes (rois, n_rois, &boxes[n_rois],
            n - n_rois, 0.0, width, height, expected);
        if (n_expected > 1024)
          n_expected = merged_on_grid (boxes, n, width, height, expected);
        in = frame_with_rois (&info, rois, n_rois);
        before = gst_buffer_copy_deep (in);
        if (!writable)
          gst_buffer_ref (in);
        out = gst_harness_push_and_pull (h, in);
        fail_unless (out != NULL, "%s: no output", what);
        if (!writable) {
          fail_unless (out != in, "%s: the input came out", what);
          expect_unwritten (in, before, what);
          gst_buffer_unref (in);
        }
        fail_unless (gst_video_frame_map (&fin, &info, before, GST_MAP_READ));
        fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
        check_regions (&fin, &fout, &o, element_channels (h->element),
            expected, n_expected, outside, what);
        gst_video_frame_unmap (&fin);
        gst_video_frame_unmap (&fout);
        gst_buffer_unref (out);
        gst_buffer_unref (before);
        if (n > 1024) {
          GstBuffer *again = frame_with_rois (&info, rois, n_rois);
          Pushed p;
          expect_warning (bus, "1024", what);
          /* once for the stream */
          push_frame (h, &info, again, &p);
          pushed_release (&p);
          gst_buffer_unref (again);
          fail_if (bus_has_problem (bus), "%s: warned again", what);
        }
        fail_if (bus_has_problem (bus), "%s: a warning", what);
        harness_teardown_with_bus (h, bus);
        g_free (rois);
        g_free (expected);
        g_free (boxes);
        g_rand_free (rand);
      }
  g_free (m.text);
}

GST_END_TEST;

/* Boxes flush with every edge and corner, boxes over every edge and corner
 * (negative coordinates, past the right and bottom: clipped), and a box
 * over the whole frame, under every border with a radius 3 filter: the
 * border applies at the frame's edges only, the real samples elsewhere
 * (wrap reads the far side). */
GST_START_TEST (test_edges_and_corners)
{
  static const Box flush[] = { {0, 0, 9, 7}, {88, 0, 9, 7}, {0, 54, 9, 7},
  {88, 54, 9, 7}, {40, 0, 11, 5}, {40, 56, 11, 5}, {0, 25, 6, 9},
  {91, 25, 6, 9}
  };
  static const Box over[] = { {-4, -3, 9, 7}, {92, -3, 9, 7}, {-4, 57, 9, 7},
  {92, 57, 9, 7}, {30, -6, 13, 10}, {29, 57, 13, 10}, {-7, 20, 11, 9},
  {94, 19, 11, 9}
  };
  static const Box whole[] = { {-10, -10, 200, 200} };
  static const Box exact[] = { {0, 0, 97, 61} };
  static const gchar *formats[] = { "I420", "YUY2", "GRAY8" };
  TestMatrix m;

  matrix_random (&m, 7, FALSE);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gint border = REF_BORDER_ZERO; border <= REF_BORDER_WRAP; border++)
      for (gint outside = 0; outside < 2; outside++) {
        /* flush boxes as ROI metas, those over the edges as fixed boxes */
        Roi rois[G_N_ELEMENTS (flush)];
        for (guint k = 0; k < G_N_ELEMENTS (flush); k++)
          rois[k] = (Roi) {
          "face", flush[k].x, flush[k].y, flush[k].w, flush[k].h};
        check_one (formats[f], 97, 61, &m, (RefBorder) border, NULL, outside,
            rois, G_N_ELEMENTS (rois), NULL, 0);
        check_one (formats[f], 97, 61, &m, (RefBorder) border, NULL, outside,
            NULL, 0, over, G_N_ELEMENTS (over));
        if (f == 0) {
          check_one (formats[f], 97, 61, &m, (RefBorder) border, NULL,
              outside, NULL, 0, whole, 1);
          check_one (formats[f], 97, 61, &m, (RefBorder) border, NULL,
              outside, NULL, 0, exact, 1);
        }
      }
  g_free (m.text);
}

GST_END_TEST;

/* A frame with one bad region (as a ROI meta or a fixed box) and nothing
 * else passes unchanged under inside (all of it filtered under outside);
 * the element says so in exactly one WARNING for the stream, naming the
 * boxes, and the stream goes on; a good box beside a bad one is
 * filtered. */
static void
check_bad_box (const Roi * roi, const gchar * fixed, const gchar * what)
{
  GstVideoInfo info;
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  for (gint outside = 0; outside < 2; outside++) {
    GstHarness *h = region_harness ("I420", 97, 61, &info);
    GstBus *bus = harness_bus (h);
    const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
    const Box good = { 30, 20, 11, 9 };
    g_autofree gchar *name = g_strdup_printf ("%s, region=%s", what,
        outside ? "outside" : "inside");

    set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
    set_region (h->element, outside);
    g_object_set (h->element, "region-boxes", fixed, NULL);
    for (gint frame = 0; frame < 3; frame++) {
      GstBuffer *in = frame_with_rois (&info, roi, roi ? 1 : 0);

      /* frame 2 has a good box too */
      if (frame == 2)
        gst_buffer_add_video_region_of_interest_meta (in, "face", good.x,
            good.y, good.w, good.h);
      push_and_check (h, &info, in, &o, &good, frame == 2 ? 1 : 0, outside, name);
      gst_buffer_unref (in);
      if (frame == 0)
        expect_warning (bus, "region box", name);
      fail_if (bus_has_problem (bus), "%s: a second warning on frame %d",
          name, frame);
    }
    harness_teardown_with_bus (h, bus);
  }
  g_free (m.text);
}

GST_START_TEST (test_bad_boxes)
{
  static const struct {
    Roi roi;
    const gchar *what;
  } metas[] = {
    {{"face", 10, 10, 0, 5}, "a ROI meta of width 0"},
    {{"face", 10, 10, 5, 0}, "a ROI meta of height 0"},
    {{"face", 97, 10, 5, 5}, "a ROI meta right of the frame"},
    {{"face", 10, 61, 5, 5}, "a ROI meta below the frame"},
    {{"face", 200, 300, 5, 5}, "a ROI meta far outside"},
    {{"face", (1 << 20) + 1, 0, 5, 5}, "a ROI meta at x = 2^20 + 1"},
    {{"face", 0, 0, (1 << 20) + 1, 5}, "a ROI meta 2^20 + 1 wide"},
    {{"face", 0, 0, 5, G_MAXINT}, "a ROI meta 2^31 - 1 tall"},
    /* a guint x of 2^32 - 1 (-1 as a gint) and a width of 2^31 + 1 */
    {{"face", -1, 0, 10, 10}, "a ROI meta at x = 2^32 - 1"},
    {{"face", 0, 0, G_MININT + 1, 10}, "a ROI meta 2^31 + 1 wide"},
  };
  static const gchar *fixed[][2] = {
    {"5,5,0,4", "a fixed box of width 0"},
    {"5,5,-3,4", "a fixed box of negative width"},
    {"5,5,3,-4", "a fixed box of negative height"},
    {"200,5,10,10", "a fixed box right of the frame"},
    {"-50,-50,10,10", "a fixed box above and left of the frame"},
    {"-1048576,0,1048576,5", "a fixed box ending at the frame's left edge"},
    {"0,61,10,10", "a fixed box starting at the frame's bottom edge"},
  };

  for (guint k = 0; k < G_N_ELEMENTS (metas); k++)
    check_bad_box (&metas[k].roi, NULL, metas[k].what);
  for (guint k = 0; k < G_N_ELEMENTS (fixed); k++)
    check_bad_box (NULL, fixed[k][0], fixed[k][1]);
}

GST_END_TEST;

/* Malformed region-boxes (and region-types) text is refused: while
 * playing with a WARNING naming the property, the previous value kept
 * and applied; before start, the start fails with an ERROR naming it. */
GST_START_TEST (test_malformed_region_boxes)
{
  static const gchar *bad[] = { "1,2,3", "a,b,c,d", "1,2,3,4;5,6",
    "1.5,2,3,4", "1,2,3,4,5", "1048577,0,1,1", "0,0,1,-1048577",
    "99999999999999999999,0,1,1", ",,,", "1,,3,4", "1 2,3,4,5", "x"
  };
  GstVideoInfo info;
  GstHarness *h = region_harness ("GRAY8", 33, 17, &info);
  GstBus *bus = harness_bus (h);
  const Box box = { 4, 3, 9, 7 };
  GString *many = g_string_new (NULL);
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
  set_region (h->element, FALSE);
  g_object_set (h->element, "region-boxes", "4,3,9,7", NULL);
  gst_buffer_unref (gst_harness_push_and_pull (h, random_frame (&info)));
  /* one more than the 1,024 boxes region-boxes takes */
  for (gint k = 0; k < 1025; k++)
    g_string_append_printf (many, "%s%d,0,1,1", k ? ";" : "", k % 33);
  for (guint k = 0; k <= G_N_ELEMENTS (bad); k++) {
    const gchar *text = k < G_N_ELEMENTS (bad) ? bad[k] : many->str;
    g_autofree gchar *what = g_strdup_printf ("region-boxes=\"%.40s\"", text);
    const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
    gchar *now;

    g_object_set (h->element, "region-boxes", text, NULL);
    expect_warning (bus, "region-boxes", what);
    g_object_get (h->element, "region-boxes", &now, NULL);
    fail_unless_equals_string (now, "4,3,9,7");
    g_free (now);
    push_and_check (h, &info, NULL, &o, &box, 1, FALSE, what);
    fail_if (bus_has_problem (bus), "%s: a warning too many", what);
  }
  /* 17 types are more than the 16 region-types takes */
  g_object_set (h->element, "region-types", "face", NULL);
  g_object_set (h->element, "region-types",
      "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", NULL);
  expect_warning (bus, "region-types", "17 region types");
  {
    gchar *now;
    g_object_get (h->element, "region-types", &now, NULL);
    fail_unless_equals_string (now, "face");
    g_free (now);
  }
  harness_teardown_with_bus (h, bus);
  g_string_free (many, TRUE);
  g_free (m.text);

  /* before start */
  expect_pipeline_error ("videotestsrc num-buffers=2 ! cudaconv backend="
      BACKEND " region=inside region-boxes=\"1,2\" ! fakesink",
      "region-boxes");
  expect_pipeline_error ("videotestsrc num-buffers=2 ! cudaconv backend="
      BACKEND " region=outside region-boxes=\"1,2,3,4;x\" ! fakesink",
      "region-boxes");
}

GST_END_TEST;

/* channels: the components not selected leave as they came, in and out
 * of the regions, also where they share a plane (NV12's UV) or a packed
 * pixel (YUY2 at an odd width) with selected ones. */
GST_START_TEST (test_channels_subset)
{
  static const struct {
    const gchar *format, *channels;
  } cases[] = {
    {"I420", "y"}, {"I420", "u+v"}, {"NV12", "u"}, {"NV12", "y+v"},
    {"YUY2", "v"}, {"UYVY", "y+u"}, {"BGRA", "r+g+b+a"}, {"BGRA", "g"},
    {"P010_10LE", "u"}, {"RGB", "b"}
  };
  static const Roi rois[] = { {"face", 13, 7, 21, 15}, {"face", 51, 30, 9,
          11}
  };
  static const Box fixed[] = { {85, 0, 12, 61} };
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    for (gint outside = 0; outside < 2; outside++)
      check_one (cases[k].format, 97, 61, &m, (RefBorder) (k % 4),
          cases[k].channels, outside, rois, 2, fixed, 1);
  /* channels=0x1 as a number */
  {
    GstVideoInfo info;
    GstHarness *h = region_harness ("I420", 97, 61, &info);
    const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
    GstBuffer *in = frame_with_rois (&info, rois, 2);
    Box boxes[2];
    guint n = expected_boxes (rois, 2, NULL, 0, 0.0, 97, 61, boxes);
    Pushed p;

    set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
    g_object_set (h->element, "channels", 0x1, NULL);
    set_region (h->element, FALSE);
    push_frame (h, &info, in, &p);
    check_regions (&p.fin, &p.fout, &o, 0x1, boxes, n, FALSE,
        "I420 channels=0x1 inside");
    pushed_release (&p);
    gst_buffer_unref (in);
    harness_teardown (h);
  }
  g_free (m.text);
}

GST_END_TEST;

/* The edge presets' neutral chroma (gray-edges) is written only where the
 * frame is filtered; luma is the sobel magnitude there. */
GST_START_TEST (test_gray_edges_in_regions)
{
  static const double sx[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const double sy[9] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
  static const Roi rois[] = { {"face", 13, 7, 21, 15} };
  TestMatrix m = {.side = 3,.divisor = 1.0 };
  GstVideoInfo info;

  memcpy (m.w, sx, sizeof (sx));
  for (gint outside = 0; outside < 2; outside++) {
    GstHarness *h = region_harness ("I420", 97, 61, &info);
    const Oracle o = { .m = &m, .w2 = sy, .border = REF_BORDER_CLAMP,
      .fill_chroma = TRUE };
    GstBuffer *in = frame_with_rois (&info, rois, 1);
    Box box;
    Pushed p;

    gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "sobel");
    set_region (h->element, outside);
    grow_and_clip ((Box) {
        13, 7, 21, 15}, 0.0, 97, 61, &box);
    push_frame (h, &info, in, &p);
    check_regions (&p.fin, &p.fout, &o, 7, &box, 1, outside,
        outside ? "sobel outside" : "sobel inside");
    pushed_release (&p);
    gst_buffer_unref (in);
    harness_teardown (h);
  }
}

GST_END_TEST;

/* Whether the two buffers carry the same ROI metas, in order */
static void
check_same_rois (GstBuffer * a, GstBuffer * b, const gchar * what)
{
  gpointer sa = NULL, sb = NULL;
  GstMeta *ma, *mb;
  guint n = 0;

  for (;;) {
    ma = gst_buffer_iterate_meta_filtered (a, &sa,
        GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
    mb = gst_buffer_iterate_meta_filtered (b, &sb,
        GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
    if (!ma || !mb)
      break;
    {
      const GstVideoRegionOfInterestMeta *ra =
          (GstVideoRegionOfInterestMeta *) ma;
      const GstVideoRegionOfInterestMeta *rb =
          (GstVideoRegionOfInterestMeta *) mb;
      fail_unless (ra->roi_type == rb->roi_type && ra->x == rb->x
          && ra->y == rb->y && ra->w == rb->w && ra->h == rb->h,
          "%s: ROI meta %u changed", what, n);
    }
    n++;
  }
  fail_unless (!ma && !mb, "%s: the output has %s ROI metas than the input",
      what, ma ? "fewer" : "more");
  fail_unless (n > 0);
}


/* Inside, a writable input buffer comes back as the same GstBuffer with
 * only its regions' samples changed and its metas; a buffer the test holds
 * a second reference to is left as it was, and a new buffer (from a
 * poisoned allocator) comes out with the same metas. Outside, and also
 * with ROI metas through it. */
GST_START_TEST (test_in_place_and_metas)
{
  static const gchar *formats[] = { "I420", "NV12", "YUY2", "BGRA",
    "P010_10LE", "v210"
  };
  static const Roi rois[] = { {"face", 13, 7, 21, 15}, {"plate", 51, 30, 9,
          11}
  };
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    const gboolean packed = g_str_equal (formats[f], "v210");
    GstVideoInfo info;
    GstHarness *h = region_harness (formats[f], 37, 23, &info);
    GstAllocator *poison = poison_allocator_new ();
    const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
    Box boxes[2];
    const guint n = expected_boxes (rois, 2, NULL, 0, 0.0, 37, 23, boxes);

    gst_object_ref_sink (poison);
    gst_harness_set_propose_allocator (h, poison, NULL);
    set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
    for (gint outside = 0; outside < 2; outside++) {
      set_region (h->element, outside);
      for (gint writable = 1; writable >= 0; writable--) {
        g_autofree gchar *what = g_strdup_printf ("%s region=%s, %s input",
            formats[f], outside ? "outside" : "inside",
            writable ? "writable" : "non-writable");
        GstBuffer *in = frame_with_rois (&info, rois, 2);
        GstBuffer *before = gst_buffer_copy_deep (in), *out;
        GstVideoFrame fin, fout;

        if (!writable)
          gst_buffer_ref (in);
        out = gst_harness_push_and_pull (h, in);
        fail_unless (out != NULL, "%s: no output", what);
        if (writable && !outside)
          fail_unless (out == in, "%s: not filtered in place", what);
        else
          fail_unless (out != in, "%s: the input came out", what);
        if (!writable) {
          expect_unwritten (in, before, what);
          gst_buffer_unref (in);
        }
        check_same_rois (before, out, what);
        fail_unless (gst_video_frame_map (&fin, &info, before,
                GST_MAP_READ));
        fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
        if (packed)
          check_v210_frames (&fin, &fout, &m, REF_BORDER_CLAMP, boxes, n,
              outside, what);
        else
          check_regions (&fin, &fout, &o, element_channels (h->element),
              boxes, n, outside, what);
        gst_video_frame_unmap (&fin);
        gst_video_frame_unmap (&fout);
        gst_buffer_unref (out);
        gst_buffer_unref (before);
      }
    }
    harness_teardown (h);
  }
  g_free (m.text);
}

GST_END_TEST;

/* The element's output for in with region=frame and the kernel settings
 * props (region=frame itself), for the oracle of filters the reference
 * does not have; the caller unmaps and unrefs it. */
static GstBuffer *
frame_mode_output (const GstVideoInfo * info, GstBuffer * in,
    const gchar * props)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", GST_VIDEO_INFO_NAME (info),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
  GstHarness *h = harness_new (caps);
  gchar **pairs = g_strsplit (props, " ", -1);
  GstBuffer *out;

  for (guint k = 0; pairs[k]; k++) {
    gchar **kv = g_strsplit (pairs[k], "=", 2);
    if (kv[0] && kv[1])
      gst_util_set_object_arg (G_OBJECT (h->element), kv[0], kv[1]);
    g_strfreev (kv);
  }
  g_strfreev (pairs);
  gst_util_set_object_arg (G_OBJECT (h->element), "region", "frame");
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "region=frame %s: no output", props);
  harness_teardown (h);
  return out;
}

/* props (kernel settings) with region=inside or outside over the fixed
 * boxes against region=frame's output: each region where radius_of[k] is
 * non-zero filtered with kernel radius radius_of[k] (region-radius-scale),
 * else with props' own radius; filtered samples within FRAME_TOLERANCE,
 * the others exactly. */
static void
check_against_frame_mode (const gchar * format, gint width, gint height,
    const gchar * props, const gchar * extra, gboolean outside,
    const Box * fixed, guint n_fixed, gdouble margin, const gint * radius_of)
{
  g_autofree gchar *fixed_text = boxes_text (fixed, n_fixed);
  g_autofree gchar *what = g_strdup_printf ("%s %dx%d %s %s region=%s "
      "region-boxes=\"%s\" region-margin=%g", format, width, height, props,
      extra ? extra : "", outside ? "outside" : "inside", fixed_text, margin);
  GstVideoInfo info;
  GstHarness *h = region_harness (format, width, height, &info);
  GstBuffer *in, *out;
  GstVideoFrame fin, fout;
  gchar **pairs = g_strsplit (props, " ", -1);
  Box boxes[8];
  guint n;

  for (guint k = 0; pairs[k]; k++) {
    gchar **kv = g_strsplit (pairs[k], "=", 2);
    gst_util_set_object_arg (G_OBJECT (h->element), kv[0], kv[1]);
    g_strfreev (kv);
  }
  g_strfreev (pairs);
  if (extra) {
    pairs = g_strsplit (extra, " ", -1);
    for (guint k = 0; pairs[k]; k++) {
      gchar **kv = g_strsplit (pairs[k], "=", 2);
      gst_util_set_object_arg (G_OBJECT (h->element), kv[0], kv[1]);
      g_strfreev (kv);
    }
    g_strfreev (pairs);
  }
  set_region (h->element, outside);
  g_object_set (h->element, "region-boxes", fixed_text, "region-margin",
      margin, NULL);
  n = expected_boxes (NULL, 0, fixed, n_fixed, margin, width, height, boxes);
  fail_unless_equals_int (n, n_fixed);
  in = frame_with_rois (&info, NULL, 0);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no output", what);
  fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
  /* each region against the frame filtered at its radius (outside: one
   * filter for all the frame) */
  for (guint k = 0; k < (radius_of ? n : 1); k++) {
    g_autofree gchar *frame_props = radius_of && radius_of[k] ?
        g_strdup_printf ("%s radius=%d", props, radius_of[k]) :
        g_strdup (props);
    g_autofree gchar *region_what = g_strdup_printf ("%s, region %u against "
        "region=frame %s", what, k, frame_props);
    GstBuffer *ref = frame_mode_output (&info, in, frame_props);
    GstVideoFrame fref;
    const Oracle o = { .frame = &fref };

    fail_unless (gst_video_frame_map (&fref, &info, ref, GST_MAP_READ));
    if (radius_of) {
      /* this region alone: the rest is checked against its own frame */
      for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
        const RefImage src = component_image (&fin, c);
        const RefImage dst = component_image (&fout, c);
        const RefImage fr = component_image (&fref, c);
        for (gint y = 0; y < src.height; y++)
          for (gint x = 0; x < src.width; x++) {
            const guint got = sample (&dst, x, y);
            guint want;
            gboolean mine = in_boxes (&info, c, x, y, &boxes[k], 1);
            if (!mine && in_boxes (&info, c, x, y, boxes, n))
              continue;         /* another region's */
            want = mine ? sample (&fr, x, y) : sample (&src, x, y);
            if (mine) {
              const guint value = got >> dst.shift, w = want >> fr.shift;
              if ((value > w ? value - w : w - value) <= FRAME_TOLERANCE
                  && !(got & ((1u << dst.shift) - 1)))
                continue;
            } else if (got == want) {
              continue;
            }
            fail ("%s: component %u at %d,%d is 0x%x, expected 0x%x (%s)",
                region_what, c, x, y, got, want, mine ? "this region, "
                "filtered" : "outside the regions, the input's");
          }
      }
    } else {
      check_regions (&fin, &fout, &o, element_channels (h->element), boxes,
          n, outside, region_what);
    }
    gst_video_frame_unmap (&fref);
    gst_buffer_unref (ref);
  }
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  harness_teardown (h);
}

/* region-radius-scale: each region's radius is round(scale * min(w, h))
 * of its size after margin and clipping, clamped to 1..127: two boxes of
 * different sizes, one clipped by the frame's edge, against region=frame
 * at each radius. Radii up to 15 here (the pending test has larger). */
GST_START_TEST (test_region_radius_scale)
{
  /* 0.25: 12x8 -> 2; 28x20 -> 5; 90,50 20x20 clipped to 7x11 -> 2
   * (1.75); with margin 0.5, 8x6 -> 16x12 -> 3 */
  static const Box two[] = { {5, 5, 12, 8}, {40, 20, 28, 20} };
  static const gint two_r[] = { 2, 5 };
  static const Box clipped[] = { {90, 50, 20, 20}, {10, 30, 28, 20} };
  static const gint clipped_r[] = { 2, 5 };
  static const Box margin[] = { {20, 20, 8, 6} };
  static const gint margin_r[] = { 3 };
  static const Box tiny[] = { {3, 3, 1, 1}, {50, 30, 2, 3} };
  static const gint tiny_r[] = { 1, 1 };

  check_against_frame_mode ("I420", 97, 61, "kernel=gaussian",
      "region-radius-scale=0.25", FALSE, two, 2, 0.0, two_r);
  check_against_frame_mode ("GRAY8", 97, 61, "kernel=box border=mirror",
      "region-radius-scale=0.25", FALSE, clipped, 2, 0.0, clipped_r);
  check_against_frame_mode ("YUY2", 97, 61, "kernel=sharpen",
      "region-radius-scale=0.25", FALSE, margin, 1, 0.5, margin_r);
  check_against_frame_mode ("NV12", 97, 61, "kernel=gaussian border=wrap",
      "region-radius-scale=0.25", FALSE, tiny, 2, 0.0, tiny_r);
  /* scale 0 is the radius property for every region */
  check_against_frame_mode ("I420", 97, 61, "kernel=gaussian radius=4",
      "region-radius-scale=0", FALSE, two, 2, 0.0, NULL);
}

GST_END_TEST;

/* The wide shapes in regions: pixelate inside and outside (blocks from the plane's origin, the region's
 * samples as region=frame has them), gaussian of radius 20 and box of 31,
 * and region-radius-scale giving radii past 15. */
GST_START_TEST (test_wide_shapes)
{
  static const Box boxes[] = { {13, 7, 21, 15}, {51, 30, 9, 11} };
  static const Box big[] = { {2, 2, 60, 50}, {70, 10, 20, 20} };
  static const gint big_r[] = { 25, 10 };

  for (gint outside = 0; outside < 2; outside++) {
    check_against_frame_mode ("I420", 97, 61, "kernel=pixelate radius=3",
        NULL, outside, boxes, 2, 0.0, NULL);
    check_against_frame_mode ("YUY2", 97, 61, "kernel=pixelate radius=2",
        NULL, outside, boxes, 2, 0.0, NULL);
    check_against_frame_mode ("I420", 97, 61, "kernel=gaussian radius=20",
        NULL, outside, boxes, 2, 0.0, NULL);
    check_against_frame_mode ("GRAY8", 97, 61,
        "kernel=box radius=31 border=wrap", NULL, outside, boxes, 2, 0.0,
        NULL);
  }
  check_against_frame_mode ("I420", 97, 61, "kernel=gaussian",
      "region-radius-scale=0.5", FALSE, big, 2, 0.0, big_r);
  check_against_frame_mode ("GRAY8", 97, 61, "kernel=pixelate",
      "region-radius-scale=0.5", FALSE, big, 2, 0.0, big_r);
}

GST_END_TEST;

#ifdef HAVE_GST_ANALYTICS
/* Object detections of GStreamer's analytics library: their boxes, by
 * label under region-types, like ROI metas, and the relation meta goes on
 * with the output. */
GST_START_TEST (test_analytics_detections)
{
  static const Roi dets[] = { {"face", 13, 7, 21, 15}, {"plate", 51, 30, 9,
          11}
  };
  GstVideoInfo info;
  GstHarness *h = region_harness ("I420", 97, 61, &info);
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  set_custom_filter (h->element, &m, REF_BORDER_CLAMP, NULL);
  for (gint outside = 0; outside < 2; outside++)
    for (gint typed = 0; typed < 2; typed++) {
      const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
      GstBuffer *in = frame_with_rois (&info, NULL, 0);
      GstAnalyticsRelationMeta *rm = gst_buffer_add_analytics_relation_meta
          (in);
      Box boxes[3];
      guint n = 0;
      Pushed p;

      for (guint k = 0; k < 2; k++) {
        GstAnalyticsODMtd od;
        fail_unless (gst_analytics_relation_meta_add_od_mtd (rm,
                g_quark_from_string (dets[k].type), dets[k].x, dets[k].y,
                dets[k].w, dets[k].h, 0.9f, &od));
        if (!typed || k == 1)
          n += grow_and_clip ((Box) {
              dets[k].x, dets[k].y, dets[k].w, dets[k].h}, 0.0, 97, 61,
              &boxes[n]);
      }
      /* with a ROI meta too */
      gst_buffer_add_video_region_of_interest_meta (in, "plate", 70, 5, 9, 9);
      n += grow_and_clip ((Box) {
          70, 5, 9, 9}, 0.0, 97, 61, &boxes[n]);
      set_region (h->element, outside);
      g_object_set (h->element, "region-types", typed ? "plate" : NULL, NULL);
      push_and_check_keep (h, &info, in, &o, boxes, n, outside,
          typed ? "analytics, region-types=plate" : "analytics", &p);
      fail_unless (gst_buffer_get_meta (p.out,
              GST_ANALYTICS_RELATION_META_API_TYPE) != NULL,
          "the analytics meta was dropped");
      pushed_release (&p);
      gst_buffer_unref (in);
    }
  g_free (m.text);
  harness_teardown (h);
}

GST_END_TEST;
#endif

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
/* Whether two host frames of info hold the same rows in every plane (a
 * row's padding included, not the bytes between planes, which the copies
 * through CUDA memory do not carry); where not, *at is the first byte. */
static gboolean
same_rows (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b, gsize * at)
{
  GstMapInfo ma, mb;
  gboolean same = TRUE;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  for (guint p = 0; same && p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, p, comp);
    for (gint y = 0; same && y < GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
        y++) {
      const gsize row = GST_VIDEO_INFO_PLANE_OFFSET (info, p) +
          (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (info, p);
      for (gint x = 0; same && x < GST_VIDEO_INFO_PLANE_STRIDE (info, p); x++)
        if (ma.data[row + x] != mb.data[row + x]) {
          same = FALSE;
          *at = row + x;
        }
    }
  }
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return same;
}


/* Inside and outside with the frames in CUDA memory on each path, ROI
 * metas on the (CUDA) input and a fixed box, in I420, NV12 and YUY2 at
 * odd sizes; a writable input in CUDA memory in and out is filtered in
 * place; a frame without regions passes as the same buffer. */
GST_START_TEST (test_regions_in_cuda_memory)
{
  static const gchar *formats[] = { "I420", "NV12", "YUY2" };
  static const Roi rois[] = { {"face", 13, 7, 21, 15}, {"plate", 0, 40, 9,
          21}
  };
  static const Box fixed[] = { {80, 0, 17, 9} };
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (guint k = 0; k < G_N_ELEMENTS (memory_paths); k++)
      for (gint outside = 0; outside < 2; outside++)
        for (gint writable = 0; writable < 2; writable++) {
          g_autofree gchar *what = g_strdup_printf ("%s 97x61 %s region=%s, "
              "%s input", formats[f], memory_paths[k].what,
              outside ? "outside" : "inside",
              writable ? "writable" : "non-writable");
          const Oracle o = { .m = &m, .border = REF_BORDER_MIRROR };
          PathHarness ph;
          GstBuffer *host, *in, *out;
          Box boxes[3];
          guint n;

          path_harness_start (&ph, &memory_paths[k], formats[f], 97, 61);
          set_custom_filter (ph.h->element, &m, REF_BORDER_MIRROR, NULL);
          set_region (ph.h->element, outside);
          g_object_set (ph.h->element, "region-boxes", "80,0,17,9", NULL);
          n = expected_boxes (rois, 2, fixed, 1, 0.0, 97, 61, boxes);
          host = frame_with_rois (&ph.info, NULL, 0);
          in = ph.path->cuda_in ? frame_to_cuda (&ph, host) :
              gst_buffer_copy_deep (host);
          for (guint r = 0; r < 2; r++)
            gst_buffer_add_video_region_of_interest_meta (in, rois[r].type,
                rois[r].x, rois[r].y, rois[r].w, rois[r].h);
          if (!writable)
            gst_buffer_ref (in);
          if (!writable && ph.path->cuda_in) {
            /* the test's own round trip through CUDA memory keeps the
             * frame, so that a change below is the element's */
            GstBuffer *back = frame_from_cuda (&ph, in);
            gsize at = 0;
            fail_unless (same_rows (&ph.info, back, host, &at), "%s: the "
                "frame changed on its way into CUDA memory at byte %"
                G_GSIZE_FORMAT, what, at);
            gst_buffer_unref (back);
          }
          out = gst_harness_push_and_pull (ph.h, in);
          fail_unless (out != in || writable, "%s: a non-writable input "
              "came back as the output", what);
          fail_unless (out != NULL, "%s: no output", what);
          fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out,
                      0)) == ph.path->cuda_out, "%s: output in other memory",
              what);
          if (writable && !outside && ph.path->cuda_in == ph.path->cuda_out)
            fail_unless (out == in, "%s: not filtered in place", what);
          if (!writable) {
            GstBuffer *again = ph.path->cuda_in ? frame_from_cuda (&ph, in) :
                gst_buffer_ref (in);
            gsize at = 0;
            fail_unless (same_rows (&ph.info, again, host, &at), "%s: the "
                "input was written at byte %" G_GSIZE_FORMAT, what, at);
            gst_buffer_unref (again);
            gst_buffer_unref (in);
          }
          fail_unless (gst_buffer_get_video_region_of_interest_meta (out)
              != NULL, "%s: the ROI metas were dropped", what);
          check_path_regions (&ph, host, out, &o, boxes, n, outside, what);
          gst_buffer_unref (out);
          gst_buffer_unref (host);

          /* no region: inside passes the same buffer */
          if (!outside && ph.path->cuda_in == ph.path->cuda_out) {
            GstBuffer *plain = frame_with_rois (&ph.info, NULL, 0);
            GstBuffer *bare = ph.path->cuda_in ? frame_to_cuda (&ph, plain) :
                gst_buffer_ref (plain);
            g_object_set (ph.h->element, "region-boxes", "", NULL);
            out = gst_harness_push_and_pull (ph.h, bare);
            fail_unless (out == bare, "%s: no region, yet another buffer "
                "came out", what);
            gst_buffer_unref (out);
            gst_buffer_unref (plain);
          }
          path_harness_stop (&ph);
        }
  g_free (m.text);
}

GST_END_TEST;

/* Many regions with the frames in CUDA memory on each path: 200 (half of
 * them ROI metas on the input) and 1,100 (past the 1,024 the element
 * takes: merged on the grid, one WARNING), inside and outside, writable
 * and not, I420 161x121, against the reference: the windows of all three
 * planes stacked and filtered as one group. */
GST_START_TEST (test_many_regions_in_cuda_memory)
{
  static const guint counts[] = { 200, 1100 };
  const gint width = crowd_sizes[__i__][0], height = crowd_sizes[__i__][1];
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    for (guint k = 0; k < G_N_ELEMENTS (memory_paths); k++)
      for (gint outside = 0; outside < 2; outside++)
        for (gint writable = 0; writable < 2; writable++) {
          const guint n = counts[i], n_rois = n / 2;
          g_autofree gchar *what = g_strdup_printf ("I420 %dx%d %s, %u "
              "regions, region=%s, %s input", width, height,
              memory_paths[k].what, n, outside ? "outside" : "inside",
              writable ? "writable" : "non-writable");
          GRand *rand = g_rand_new_with_seed (11 * i + 3 * k + 2 * outside
              + writable);
          Box *boxes = g_new (Box, n), *expected = g_new (Box, n);
          Roi *rois = g_new (Roi, n_rois);
          g_autofree gchar *fixed = NULL;
          const Oracle o = { .m = &m, .border = REF_BORDER_CLAMP };
          PathHarness ph;
          GstBus *bus;
          GstBuffer *host, *in, *out, *host_out;
          GstVideoFrame fin, fout;
          guint n_expected;

          random_boxes (rand, n, width, height, boxes);
          for (guint r = 0; r < n_rois; r++)
            rois[r] = (Roi) {
            "face", boxes[r].x, boxes[r].y, boxes[r].w, boxes[r].h};
          fixed = boxes_text (&boxes[n_rois], n - n_rois);
          path_harness_start (&ph, &memory_paths[k], "I420", width, height);
          bus = harness_bus (ph.h);
          set_custom_filter (ph.h->element, &m, REF_BORDER_CLAMP, NULL);
          set_region (ph.h->element, outside);
          g_object_set (ph.h->element, "region-boxes", fixed, NULL);
          /* the metas' boxes, then the fixed ones, as the element takes
           * them */
          n_expected = expected_boxes (rois, n_rois, &boxes[n_rois],
              n - n_rois, 0.0, width, height, expected);
          if (n_expected > 1024)
            n_expected = merged_on_grid (boxes, n, width, height, expected);
          host = frame_with_rois (&ph.info, NULL, 0);
          in = ph.path->cuda_in ? frame_to_cuda (&ph, host) :
              gst_buffer_copy_deep (host);
          for (guint r = 0; r < n_rois; r++)
            gst_buffer_add_video_region_of_interest_meta (in, rois[r].type,
                rois[r].x, rois[r].y, rois[r].w, rois[r].h);
          if (!writable)
            gst_buffer_ref (in);
          out = gst_harness_push_and_pull (ph.h, in);
          fail_unless (out != NULL, "%s: no output", what);
          if (!writable) {
            GstBuffer *again = ph.path->cuda_in ? frame_from_cuda (&ph, in) :
                gst_buffer_ref (in);
            gsize at = 0;
            fail_unless (out != in, "%s: the input came out", what);
            fail_unless (same_rows (&ph.info, again, host, &at), "%s: the "
                "input was written at byte %" G_GSIZE_FORMAT, what, at);
            gst_buffer_unref (again);
            gst_buffer_unref (in);
          }
          host_out = ph.path->cuda_out ? frame_from_cuda (&ph, out) :
              gst_buffer_ref (out);
          fail_unless (gst_video_frame_map (&fin, &ph.info, host,
                  GST_MAP_READ));
          fail_unless (gst_video_frame_map (&fout, &ph.info, host_out,
                  GST_MAP_READ));
          check_regions (&fin, &fout, &o, element_channels (ph.h->element),
              expected, n_expected, outside, what);
          gst_video_frame_unmap (&fin);
          gst_video_frame_unmap (&fout);
          gst_buffer_unref (host_out);
          gst_buffer_unref (out);
          gst_buffer_unref (host);
          if (n > 1024)
            expect_warning (bus, "1024", what);
          fail_if (bus_has_problem (bus), "%s: a warning", what);
          path_harness_stop_with_bus (&ph, bus);
          g_free (rois);
          g_free (expected);
          g_free (boxes);
          g_rand_free (rand);
        }
  g_free (m.text);
}

GST_END_TEST;
#endif

static void
add_tests (TCase * tc)
{
  tcase_add_test (tc, test_inside_outside_formats);
  tcase_add_test (tc, test_word_packed_v210);
  tcase_add_test (tc, test_region_types);
  tcase_add_test (tc, test_region_margin);
  tcase_add_test (tc, test_region_hold);
  tcase_add_test (tc, test_region_hold_crowd);
  tcase_add_test (tc, test_fixed_boxes);
  tcase_add_test (tc, test_fixed_boxes_replayed);
  tcase_add_test (tc, test_overlapping_boxes);
  tcase_add_loop_test (tc, test_many_regions, 0, G_N_ELEMENTS (crowd_sizes));
  tcase_add_test (tc, test_edges_and_corners);
  tcase_add_test (tc, test_bad_boxes);
  tcase_add_test (tc, test_malformed_region_boxes);
  tcase_add_test (tc, test_channels_subset);
  tcase_add_test (tc, test_gray_edges_in_regions);
  tcase_add_test (tc, test_in_place_and_metas);
  tcase_add_test (tc, test_region_radius_scale);
#ifdef HAVE_GST_ANALYTICS
  tcase_add_test (tc, test_analytics_detections);
#endif
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
  tcase_add_test (tc, test_regions_in_cuda_memory);
  tcase_add_loop_test (tc, test_many_regions_in_cuda_memory, 0,
      G_N_ELEMENTS (crowd_sizes));
#endif
  tcase_add_test (tc, test_wide_shapes);
}

const ElementTopic element_topic = { "regions", add_tests, NULL };

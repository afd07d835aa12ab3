/* cudaconv element tests: region cases a review found wrong. Interlaced
 * 4:2:0 video, whose chroma rows alternate between the two fields; a crop
 * meta on a frame that has no region; samples holding bits beyond their
 * depth, which must leave bit-exact where they are not filtered; a region
 * mode on frames without regions (which a UBSan build checks too).
 *
 * The oracle of the interlaced cases, written from the definition of the
 * layout and not from the element's code: frame row y belongs to field
 * y & 1 as its row y >> 1; a sample of a vertically subsampled component
 * of field p at field row k covers the field's rows 2k and 2k + 1 and lies
 * on the component's row 2k + p. A sample is filtered when it holds a
 * pixel of a region (inside) or none (outside), and its filtered value is
 * the double reference (reference.c) over the component's rows of its
 * field alone, with the border at the field's top and bottom. */
#include <glib/gstdio.h>
#include "harness.h"

/* A preset of the element and the weights the reference runs for it */
typedef struct {
  const gchar *kernel;
  gint radius;
  RefBorder border;
} Kernel;

static const gchar *const border_nicks[] = { "zero", "clamp", "mirror",
  "wrap"
};

/* box: (2r+1)^2 ones over their count; gaussian: the documented sigma */
static void
kernel_matrix (const Kernel * k, TestMatrix * m)
{
  memset (m, 0, sizeof (*m));
  if (g_str_equal (k->kernel, "gaussian")) {
    gaussian_matrix (m, k->radius, 0.0);
    return;
  }
  fail_unless (g_str_equal (k->kernel, "box"));
  m->side = 2 * k->radius + 1;
  for (gint i = 0; i < m->side * m->side; i++)
    m->w[i] = 1.0;
  m->divisor = m->side * m->side;
}

static void
set_kernel (GstElement * conv, const Kernel * k)
{
  gst_util_set_object_arg (G_OBJECT (conv), "kernel", k->kernel);
  gst_util_set_object_arg (G_OBJECT (conv), "border", border_nicks[k->border]);
  g_object_set (conv, "radius", k->radius, NULL);
}

static void
set_region (GstElement * conv, gboolean outside)
{
  gst_util_set_object_arg (G_OBJECT (conv), "region", outside ? "outside" :
      "inside");
}

/* Whether sample (x, y) of component c holds a pixel of one of the boxes
 * (which lie inside the frame); with fields, by the rule at the top. */
static gboolean
holds_box_pixel (const GstVideoInfo * info, gint c, gboolean fields, gint x,
    gint y, const Box * boxes, guint n)
{
  const gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
  const gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);

  for (guint k = 0; k < n; k++) {
    const Box *b = &boxes[k];
    if (x < b->x >> ws || x >= (b->x + b->w + (1 << ws) - 1) >> ws)
      continue;
    for (gint row = b->y; row < b->y + b->h; row++)
      if (fields ? (row & 1) == (y & 1) && (row >> 1) >> hs == y >> 1 :
          row >> hs == y)
        return TRUE;
  }
  return FALSE;
}

/* The reference over component c of f, out[y * width + x] for its sample
 * (x, y): each field's rows as a plane of their own, or the whole
 * component for a progressive frame. */
static guint32 *
reference_component (GstVideoFrame * f, gint c, gboolean fields,
    const TestMatrix * m, RefBorder border)
{
  const RefImage im = component_image (f, c);
  const double offset = ldexp (m->offset, im.depth - 8);
  guint32 *out = g_new (guint32, (gsize) im.width * im.height);

  if (!fields) {
    ref_convolve (&im, m->w, NULL, m->side, m->divisor, offset, border, out);
    return out;
  }
  for (gint p = 0; p < 2 && p < im.height; p++) {
    RefImage field = im;
    guint32 *rows;

    field.data = (const guint8 *) im.data + p * im.pitch;
    field.pitch = 2 * im.pitch;
    field.height = (im.height - p + 1) / 2;
    rows = g_new (guint32, (gsize) im.width * field.height);
    ref_convolve (&field, m->w, NULL, m->side, m->divisor, offset, border,
        rows);
    for (gint k = 0; k < field.height; k++)
      memcpy (out + (gsize) (2 * k + p) * im.width,
          rows + (gsize) k * im.width, im.width * sizeof (guint32));
    g_free (rows);
  }
  return out;
}

/* Every sample of every component of out: within 1 of the reference where
 * filtered, in range with its padding bits clear; the input's bits exactly
 * elsewhere. All the components are filtered (the formats here have no
 * alpha). */
static void
check_field_regions (GstVideoFrame * in, GstVideoFrame * out,
    gboolean fields, const TestMatrix * m, RefBorder border,
    const Box * boxes, guint n, gboolean outside, const gchar * what)
{
  const GstVideoInfo *info = &in->info;

  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    const RefImage src = component_image (in, c);
    const RefImage dst = component_image (out, c);
    const guint max = ref_max_value (&dst);
    guint32 *ref = reference_component (in, c, fields, m, border);

    for (gint y = 0; y < src.height; y++)
      for (gint x = 0; x < src.width; x++) {
        const guint got = sample (&dst, x, y);
        const gboolean filtered = holds_box_pixel (info, c, fields, x, y,
            boxes, n) != outside;
        if (!filtered) {
          if (got != sample (&src, x, y))
            fail ("%s: component %u at %d,%d (field %d) is 0x%x, expected "
                "the input's 0x%x (%s, not filtered)", what, c, x, y,
                fields ? y & 1 : -1, got, sample (&src, x, y),
                outside ? "in a region" : "outside the regions");
        } else {
          const guint value = got >> dst.shift, want = ref[y * src.width + x];
          if ((value > want ? value - want : want - value) > 1
              || value > max || (got & ((1u << dst.shift) - 1)))
            fail ("%s: component %u at %d,%d (field %d) is %u (raw 0x%04x), "
                "expected %u (%s, filtered)", what, c, x, y,
                fields ? y & 1 : -1, value, got, want,
                outside ? "outside the regions" : "in a region");
        }
      }
    g_free (ref);
  }
}

/* feature: a caps feature (memory:CUDAMemory) or NULL */
static gchar *
interlaced_caps (const gchar * format, gint width, gint height,
    GstVideoInterlaceMode mode, const gchar * feature)
{
  return g_strdup_printf ("video/x-raw%s%s%s,format=%s,width=%d,height=%d,"
      "interlace-mode=%s,framerate=30/1", feature ? "(" : "",
      feature ? feature : "", feature ? ")" : "", format, width, height,
      gst_video_interlace_mode_to_string (mode));
}

/* A random frame of info, well formed; in a mixed stream, frames 0 and 2
 * carry the INTERLACED flag and frame 1 does not. Returns whether its rows
 * are fields. */
static gboolean
interlaced_frame (const GstVideoInfo * info, guint frame, GstBuffer ** buf)
{
  const gboolean mixed = GST_VIDEO_INFO_INTERLACE_MODE (info) ==
      GST_VIDEO_INTERLACE_MODE_MIXED;

  *buf = random_frame (info);
  make_well_formed (*buf, info);
  if (mixed && frame == 1)
    return FALSE;
  if (mixed)
    GST_BUFFER_FLAG_SET (*buf, GST_VIDEO_BUFFER_FLAG_INTERLACED);
  return TRUE;
}

/* Interleaved (or mixed) frames of format through the element with the
 * boxes as region-boxes, inside or outside, checked field by field. */
static void
check_interlaced (const gchar * format, gint width, gint height,
    GstVideoInterlaceMode mode, const Kernel * k, const Box * boxes,
    guint n, gboolean outside)
{
  g_autofree gchar *caps = interlaced_caps (format, width, height, mode,
      NULL);
  g_autofree gchar *text = boxes_text (boxes, n);
  GstHarness *h = harness_new (caps);
  const guint frames = mode == GST_VIDEO_INTERLACE_MODE_MIXED ? 3 : 1;
  GstVideoInfo info;
  TestMatrix m;

  gst_video_info_set_interlaced_format (&info,
      gst_video_format_from_string (format), mode, width, height);
  kernel_matrix (k, &m);
  set_kernel (h->element, k);
  set_region (h->element, outside);
  g_object_set (h->element, "region-boxes", text, NULL);
  for (guint f = 0; f < frames; f++) {
    GstBuffer *in;
    const gboolean fields = interlaced_frame (&info, f, &in);
    g_autofree gchar *what = g_strdup_printf ("%s %dx%d %s%s, %s radius=%d "
        "border=%s, region=%s region-boxes=\"%s\"", format, width, height,
        gst_video_interlace_mode_to_string (mode), frames > 1 ? (fields ?
            ", frame flagged INTERLACED" : ", frame not flagged") : "",
        k->kernel, k->radius, border_nicks[k->border],
        outside ? "outside" : "inside", text);
    Pushed p;

    push_frame (h, &info, in, &p);
    check_field_regions (&p.fin, &p.fout, fields, &m, k->border, boxes, n,
        outside, what);
    pushed_release (&p);
    gst_buffer_unref (in);
  }
  harness_teardown (h);
}

/* Boxes starting and ending on odd and even rows; the first set holds a
 * box on frame row 2 alone, whose chroma lies on row 0 of field 0's
 * chroma, not on row 1 as in a progressive frame. */
static const Box small_boxes[] = { {4, 2, 7, 1}, {10, 3, 5, 4} };
static const Box large_boxes[] = { {3, 5, 9, 4}, {20, 10, 7, 1},
{1, 15, 6, 6}, {27, 16, 5, 3}
};

static const Kernel interlaced_kernels[] = {
  {"box", 1, REF_BORDER_CLAMP}, {"gaussian", 2, REF_BORDER_MIRROR}
};

GST_START_TEST (test_interlaced_420_regions)
{
  static const gchar *formats[] = { "I420", "YV12", "NV12", "NV21",
    "I420_10LE", "P010_10LE"
  };
  static const Box row2[] = { {0, 2, 16, 1} };

  /* the review's example: I420 16x8, box radius 1, a region on row 2 */
  for (gint outside = 0; outside < 2; outside++)
    check_interlaced ("I420", 16, 8, GST_VIDEO_INTERLACE_MODE_INTERLEAVED,
        &interlaced_kernels[0], row2, 1, outside);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (guint k = 0; k < G_N_ELEMENTS (interlaced_kernels); k++)
      for (gint outside = 0; outside < 2; outside++) {
        check_interlaced (formats[f], 18, 12,
            GST_VIDEO_INTERLACE_MODE_INTERLEAVED, &interlaced_kernels[k],
            small_boxes, G_N_ELEMENTS (small_boxes), outside);
        check_interlaced (formats[f], 34, 22,
            GST_VIDEO_INTERLACE_MODE_INTERLEAVED, &interlaced_kernels[k],
            large_boxes, G_N_ELEMENTS (large_boxes), outside);
      }
}

GST_END_TEST;

/* interlace-mode=mixed: a frame flagged INTERLACED takes the fields'
 * rule, the next one, not flagged, the progressive one, and the one after
 * it the fields' again. */
GST_START_TEST (test_mixed_420_regions)
{
  static const gchar *formats[] = { "I420", "NV12", "I420_10LE" };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gint outside = 0; outside < 2; outside++) {
      check_interlaced (formats[f], 18, 12, GST_VIDEO_INTERLACE_MODE_MIXED,
          &interlaced_kernels[f % 2], small_boxes, G_N_ELEMENTS (small_boxes),
          outside);
      check_interlaced (formats[f], 34, 22, GST_VIDEO_INTERLACE_MODE_MIXED,
          &interlaced_kernels[(f + 1) % 2], large_boxes,
          G_N_ELEMENTS (large_boxes), outside);
    }
}

GST_END_TEST;

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
/* path_harness_start for interlaced caps */
static void
interlaced_path_start (PathHarness * ph, const MemoryPath * path,
    const gchar * format, gint width, gint height, GstVideoInterlaceMode mode)
{
  g_autofree gchar *caps = interlaced_caps (format, width, height, mode,
      NULL);
  g_autofree gchar *cuda_caps = interlaced_caps (format, width, height,
      mode, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);

  path_harness_start_with_caps (ph, path, caps, cuda_caps);
}

/* Host, a frame in system memory, through ph: in CUDA memory where ph's
 * path says (its INTERLACED flag with it), the output brought back to
 * system memory; p takes host and holds that output, both mapped. Returns
 * whether the output came in CUDA memory. */
static gboolean
push_on_path (PathHarness * ph, GstBuffer * host, const gchar * what,
    Pushed * p)
{
  GstBuffer *in, *out;
  gboolean cuda_out;

  p->info = ph->info;
  p->in = host;
  in = ph->path->cuda_in ? frame_to_cuda (ph, host) :
      gst_buffer_copy_deep (host);
  if (GST_BUFFER_FLAG_IS_SET (host, GST_VIDEO_BUFFER_FLAG_INTERLACED))
    GST_BUFFER_FLAG_SET (in, GST_VIDEO_BUFFER_FLAG_INTERLACED);
  out = gst_harness_push_and_pull (ph->h, in);
  fail_unless (out != NULL, "%s: no output", what);
  cuda_out = gst_is_cuda_memory (gst_buffer_peek_memory (out, 0));
  p->out = ph->path->cuda_out ? frame_from_cuda (ph, out) :
      gst_buffer_ref (out);
  gst_buffer_unref (out);
  fail_unless (gst_video_frame_map (&p->fin, &p->info, p->in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&p->fout, &p->info, p->out,
          GST_MAP_READ));
  return cuda_out;
}

/* The interlaced cases with the frames in CUDA memory on each path; in
 * the mixed stream the INTERLACED flag rides on the CUDA buffer. */
GST_START_TEST (test_interlaced_regions_in_cuda_memory)
{
  static const struct {
    const gchar *format;
    GstVideoInterlaceMode mode;
  } cases[] = {
    {"I420", GST_VIDEO_INTERLACE_MODE_INTERLEAVED},
    {"NV12", GST_VIDEO_INTERLACE_MODE_INTERLEAVED},
    {"I420_10LE", GST_VIDEO_INTERLACE_MODE_INTERLEAVED},
    {"NV12", GST_VIDEO_INTERLACE_MODE_MIXED}
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint k = 0; k < G_N_ELEMENTS (memory_paths); k++)
      for (gint outside = 0; outside < 2; outside++) {
        const Kernel *kernel = &interlaced_kernels[(c + outside) % 2];
        const gboolean mixed = cases[c].mode == GST_VIDEO_INTERLACE_MODE_MIXED;
        g_autofree gchar *text = boxes_text (large_boxes,
            G_N_ELEMENTS (large_boxes));
        PathHarness ph;
        TestMatrix m;

        interlaced_path_start (&ph, &memory_paths[k], cases[c].format, 34, 22,
            cases[c].mode);
        kernel_matrix (kernel, &m);
        set_kernel (ph.h->element, kernel);
        set_region (ph.h->element, outside);
        g_object_set (ph.h->element, "region-boxes", text, NULL);
        for (guint f = 0; f < (mixed ? 3u : 1u); f++) {
          g_autofree gchar *what = g_strdup_printf ("%s 34x22 %s, frame %u, "
              "%s, %s radius=%d, region=%s", cases[c].format,
              gst_video_interlace_mode_to_string (cases[c].mode), f,
              memory_paths[k].what, kernel->kernel, kernel->radius,
              outside ? "outside" : "inside");
          GstBuffer *host;
          const gboolean fields = interlaced_frame (&ph.info, f, &host);
          Pushed p;

          push_on_path (&ph, host, what, &p);
          check_field_regions (&p.fin, &p.fout, fields, &m, kernel->border,
              large_boxes, G_N_ELEMENTS (large_boxes), outside, what);
          pushed_release (&p);
        }
        path_harness_stop (&ph);
      }
}

GST_END_TEST;
#endif

/* ---- a crop meta on a frame without regions ---- */

/* out against the picture: no crop meta left, a frame of the caps' size,
 * and every sample outside the boxes the picture's exactly. */
static void
check_applied_crop (const GstVideoInfo * info, GstBuffer * picture,
    GstBuffer * out, const Box * boxes, guint n, const gchar * what)
{
  const GstVideoMeta *vmeta = gst_buffer_get_video_meta (out);
  GstVideoFrame fpic, fout;

  fail_unless (gst_buffer_get_video_crop_meta (out) == NULL, "%s: the crop "
      "meta went on with the output (the crop was not applied)", what);
  fail_unless (vmeta == NULL || (vmeta->width == (guint) info->width
          && vmeta->height == (guint) info->height), "%s: the output is a "
      "%ux%u frame, not the %dx%d picture", what, vmeta ? vmeta->width : 0,
      vmeta ? vmeta->height : 0, info->width, info->height);
  fail_unless (gst_video_frame_map (&fpic, info, picture, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, info, out, GST_MAP_READ));
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    const RefImage a = component_image (&fpic, c);
    const RefImage b = component_image (&fout, c);
    for (gint y = 0; y < a.height; y++)
      for (gint x = 0; x < a.width; x++)
        if (!holds_box_pixel (info, c, FALSE, x, y, boxes, n)
            && sample (&b, x, y) != sample (&a, x, y))
          fail ("%s: component %u at %d,%d is 0x%x, the picture's is 0x%x",
              what, c, x, y, sample (&b, x, y), sample (&a, x, y));
  }
  gst_video_frame_unmap (&fpic);
  gst_video_frame_unmap (&fout);
}

/* The caps' picture in a larger buffer (what videocrop top=4 sends)
 * under region=inside: with no region, with a box past the frame (ignored,
 * so no region either) and with a box in the picture, the crop is applied
 * alike: the output is the picture, without the crop meta, as README says
 * of this form of crop. */
GST_START_TEST (test_picture_crop_without_regions)
{
  static const struct {
    const gchar *format;
    gint width, height, buffer_width, buffer_height, cx, cy;
  } cases[] = {
    {"GRAY8", 16, 8, 16, 12, 0, 4}, {"I420", 30, 18, 40, 26, 4, 6},
    {"NV12", 21, 13, 32, 20, 3, 5}
  };
  static const struct {
    const gchar *boxes;
    Box box;                    /* filtered, where w > 0 */
  } regions[] = {
    {NULL, {0, 0, 0, 0}}, {"100,100,4,4", {0, 0, 0, 0}}, {"2,2,5,3", {2, 2,
                5, 3}}
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint r = 0; r < G_N_ELEMENTS (regions); r++) {
      const GstVideoFormat format = gst_video_format_from_string
          (cases[c].format);
      g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,"
          "width=%d,height=%d,framerate=30/1", cases[c].format,
          cases[c].width, cases[c].height);
      g_autofree gchar *what = g_strdup_printf ("%s %dx%d picture at %d,%d "
          "of a %dx%d buffer, region=inside region-boxes=\"%s\"",
          cases[c].format, cases[c].width, cases[c].height, cases[c].cx,
          cases[c].cy, cases[c].buffer_width, cases[c].buffer_height,
          regions[r].boxes ? regions[r].boxes : "");
      GstHarness *h = harness_new (caps);
      GstBuffer *picture, *in, *out;
      GstVideoInfo info;

      gst_video_info_set_format (&info, format, cases[c].width,
          cases[c].height);
      gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "box");
      set_region (h->element, FALSE);
      g_object_set (h->element, "region-boxes", regions[r].boxes, NULL);
      in = picture_in_larger_buffer (format, cases[c].width, cases[c].height,
          cases[c].buffer_width, cases[c].buffer_height, cases[c].cx,
          cases[c].cy, &picture);
      out = gst_harness_push_and_pull (h, in);
      fail_unless (out != NULL, "%s: no output", what);
      check_applied_crop (&info, picture, out, &regions[r].box,
          regions[r].box.w > 0, what);
      gst_buffer_unref (out);
      gst_buffer_unref (picture);
      harness_teardown (h);
    }
}

GST_END_TEST;

/* The review's pipeline: videocrop top=4 crops by meta in front of
 * cudaconv region=inside; the file must hold the 16x8 picture that the
 * same pipeline without cudaconv writes, with no region-boxes and with a
 * box past the frame (ignored, so no region either). */
GST_START_TEST (test_videocrop_without_regions)
{
  static const gchar *const conv[] = { NULL, "cudaconv backend=" BACKEND
        " region=inside kernel=box", "cudaconv backend=" BACKEND
        " region=inside kernel=box region-boxes=\"100,100,4,4\""
  };
  g_autofree gchar *dir = g_dir_make_tmp ("cudaconv-crop-XXXXXX", NULL);
  gchar *files[G_N_ELEMENTS (conv)] = { NULL };
  gsize sizes[G_N_ELEMENTS (conv)] = { 0 };

  fail_unless (dir != NULL);
  for (guint k = 0; k < G_N_ELEMENTS (conv); k++) {
    g_autofree gchar *path = g_strdup_printf ("%s/%u.gray", dir, k);
    g_autofree gchar *description = g_strdup_printf ("videotestsrc "
        "pattern=gradient num-buffers=1 ! video/x-raw,format=GRAY8,width=16,"
        "height=12 ! videocrop top=4 ! %s%svideoconvert ! "
        "video/x-raw,format=GRAY8 ! filesink location=\"%s\"",
        conv[k] ? conv[k] : "", conv[k] ? " ! " : "", path);
    g_autofree gchar *error = run_pipeline (description, NULL);

    fail_unless (error == NULL, "%s: %s", description, error);
    fail_unless (g_file_get_contents (path, &files[k], &sizes[k], NULL));
    g_unlink (path);
  }
  g_rmdir (dir);
  fail_unless_equals_int (sizes[0], 16 * 8);
  for (guint k = 1; k < G_N_ELEMENTS (conv); k++)
    fail_unless (sizes[k] == sizes[0] && memcmp (files[k], files[0],
            sizes[0]) == 0, "with %s the file holds %" G_GSIZE_FORMAT
        " bytes, not the %" G_GSIZE_FORMAT " of the cropped picture",
        conv[k], sizes[k], sizes[0]);
  for (guint k = 0; k < G_N_ELEMENTS (conv); k++)
    g_free (files[k]);
}

GST_END_TEST;

/* A crop rectangle inside the caps' frame under region=inside: with no
 * region, a box outside the rectangle and a box past the frame, the frame
 * leaves as it came with its crop meta, as a frame with regions would. */
GST_START_TEST (test_inside_crop_without_regions)
{
  static const gchar *boxes[] = { NULL, "26,19,4,4", "100,100,4,4" };
  static const gchar *formats[] = { "GRAY8", "I420", "NV12" };
  const GstVideoCropMeta want = {.x = 5,.y = 3,.width = 20,.height = 14 };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (guint b = 0; b < G_N_ELEMENTS (boxes); b++) {
      g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,"
          "width=32,height=24,framerate=30/1", formats[f]);
      g_autofree gchar *what = g_strdup_printf ("%s 32x24, crop 20x14 at "
          "5,3, region=inside region-boxes=\"%s\"", formats[f],
          boxes[b] ? boxes[b] : "");
      GstHarness *h = harness_new (caps);
      GstVideoCropMeta *crop, *out_crop;
      GstVideoInfo info;
      GstBuffer *in;
      Pushed p;

      gst_video_info_set_format (&info, gst_video_format_from_string
          (formats[f]), 32, 24);
      gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "box");
      set_region (h->element, FALSE);
      g_object_set (h->element, "region-boxes", boxes[b], NULL);
      in = random_frame (&info);
      crop = gst_buffer_add_video_crop_meta (in);
      crop->x = want.x;
      crop->y = want.y;
      crop->width = want.width;
      crop->height = want.height;
      push_frame (h, &info, in, &p);
      out_crop = gst_buffer_get_video_crop_meta (p.out);
      fail_unless (out_crop != NULL, "%s: the crop meta was dropped", what);
      fail_unless (out_crop->x == want.x && out_crop->y == want.y
          && out_crop->width == want.width
          && out_crop->height == want.height, "%s: the crop meta changed",
          what);
      for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
        check_component (&p.fin, &p.fout, c, EXPECT_COPY, NULL, NULL,
            REF_BORDER_CLAMP, what);
      pushed_release (&p);
      gst_buffer_unref (in);
      harness_teardown (h);
    }
}

GST_END_TEST;

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
/* region=inside without regions where the pads negotiated different
 * memory: the frame leaves unchanged in the memory the src pad
 * negotiated, as a frame with regions does. */
GST_START_TEST (test_no_regions_across_memories)
{
  for (guint k = 0; k < G_N_ELEMENTS (memory_paths); k++) {
    const MemoryPath *path = &memory_paths[k];
    g_autofree gchar *what = g_strdup_printf ("I420 37x23 %s, region=inside "
        "without regions", path->what);
    PathHarness ph;
    Pushed p;

    if (path->cuda_in == path->cuda_out)
      continue;
    path_harness_start (&ph, path, "I420", 37, 23);
    gst_util_set_object_arg (G_OBJECT (ph.h->element), "kernel", "box");
    set_region (ph.h->element, FALSE);
    fail_unless (push_on_path (&ph, random_frame (&ph.info), what, &p) ==
        path->cuda_out, "%s: the output is in %s memory", what,
        path->cuda_out ? "system" : "CUDA");
    for (guint c = 0; c < 3; c++)
      check_component (&p.fin, &p.fout, c, EXPECT_COPY, NULL, NULL,
          REF_BORDER_CLAMP, what);
    pushed_release (&p);
    path_harness_stop (&ph);
  }
}

GST_END_TEST;
#endif

/* ---- samples with bits beyond their depth ---- */

/* cudaconv for 33x17 frames of format, which info receives, with m's
 * filter under border, region=inside or outside. */
static GstHarness *
filter_harness (const gchar * format, const TestMatrix * m, RefBorder border,
    gboolean outside, GstVideoInfo * info)
{
  g_autofree gchar *caps = g_strdup_printf ("video/x-raw,format=%s,"
      "width=33,height=17,framerate=30/1", format);
  GstHarness *h = harness_new (caps);

  gst_video_info_set_format (info, gst_video_format_from_string (format), 33,
      17);
  set_custom_filter (h->element, m, border, NULL);
  set_region (h->element, outside);
  return h;
}

/* Random frames whose deep samples keep their random bits above (LSB
 * aligned) or below (MSB aligned) the value, 0xa32e among them:
 * region=outside leaves the regions' samples bit-exact, and region=inside
 * everything outside the regions. */
GST_START_TEST (test_deep_samples_kept)
{
  static const gchar *formats[] = { "I420_10LE", "P010_10LE", "I420_12LE",
    "P012_LE", "Y444_10LE", "I422_12LE"
  };
  static const Box boxes[] = { {3, 2, 9, 7}, {20, 9, 6, 5} };
  g_autofree gchar *text = boxes_text (boxes, G_N_ELEMENTS (boxes));
  TestMatrix m;

  matrix_random (&m, 5, FALSE);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gint outside = 0; outside < 2; outside++) {
      g_autofree gchar *what = g_strdup_printf ("%s 33x17 region=%s "
          "region-boxes=\"%s\", samples with bits beyond their depth",
          formats[f], outside ? "outside" : "inside", text);
      GstVideoInfo info;
      GstHarness *h = filter_harness (formats[f], &m, REF_BORDER_CLAMP,
          outside, &info);
      GstVideoFrame fin;
      GstBuffer *in;
      Pushed p;

      g_object_set (h->element, "region-boxes", text, NULL);
      in = random_frame (&info);
      /* the review's sample, in a region and outside them */
      fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_WRITE));
      for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
        const RefImage im = component_image (&fin, c);
        set_sample (&im, 2, 2, 0xa32e);
        set_sample (&im, 0, 0, 0xa32e);
      }
      gst_video_frame_unmap (&fin);
      push_frame (h, &info, in, &p);
      for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
        const RefImage src = component_image (&p.fin, c);
        const RefImage dst = component_image (&p.fout, c);
        for (gint y = 0; y < src.height; y++)
          for (gint x = 0; x < src.width; x++)
            if (holds_box_pixel (&info, c, FALSE, x, y, boxes,
                    G_N_ELEMENTS (boxes)) == outside
                && sample (&dst, x, y) != sample (&src, x, y))
              fail ("%s: component %u at %d,%d is 0x%04x, expected the "
                  "input's 0x%04x (%s, not filtered)", what, c, x, y,
                  sample (&dst, x, y), sample (&src, x, y),
                  outside ? "in a region" : "outside the regions");
      }
      pushed_release (&p);
      gst_buffer_unref (in);
      harness_teardown (h);
    }
  g_free (m.text);
}

GST_END_TEST;

/* ---- region modes on frames without regions ---- */

/* No ROI meta and no region-boxes: inside, the frame passes unchanged (a
 * writable buffer as itself); outside, all of it is filtered. A UBSan
 * build checks the way there too. */
GST_START_TEST (test_modes_without_regions)
{
  static const gchar *formats[] = { "I420", "NV12", "P010_10LE", "GRAY8" };
  TestMatrix m;

  matrix_random (&m, 3, FALSE);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gint outside = 0; outside < 2; outside++) {
      g_autofree gchar *what = g_strdup_printf ("%s 33x17 region=%s "
          "without regions", formats[f], outside ? "outside" : "inside");
      GstVideoInfo info;
      GstHarness *h = filter_harness (formats[f], &m, REF_BORDER_MIRROR,
          outside, &info);
      GstBuffer *in;
      Pushed p;

      for (gint frame = 0; frame < 2; frame++) {
        push_frame (h, &info, NULL, &p);
        for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
          check_component (&p.fin, &p.fout, c, outside ? EXPECT_FILTERED :
              EXPECT_COPY, &m, NULL, REF_BORDER_MIRROR, what);
        pushed_release (&p);
      }
      if (!outside) {
        GstBuffer *out;
        in = random_frame (&info);
        out = gst_harness_push_and_pull (h, in);
        fail_unless (out == in, "%s: a writable buffer did not come out as "
            "itself", what);
        gst_buffer_unref (out);
      }
      harness_teardown (h);
    }
  g_free (m.text);
}

GST_END_TEST;

static void
add_tests (TCase * tc)
{
  tcase_add_test (tc, test_interlaced_420_regions);
  tcase_add_test (tc, test_mixed_420_regions);
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
  tcase_add_test (tc, test_interlaced_regions_in_cuda_memory);
#endif
  tcase_add_test (tc, test_picture_crop_without_regions);
  tcase_add_test (tc, test_videocrop_without_regions);
  tcase_add_test (tc, test_inside_crop_without_regions);
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
  tcase_add_test (tc, test_no_regions_across_memories);
#endif
  tcase_add_test (tc, test_deep_samples_kept);
  tcase_add_test (tc, test_modes_without_regions);
}

const ElementTopic element_topic = { "region-cases", add_tests, NULL };

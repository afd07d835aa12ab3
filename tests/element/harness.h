/* cudaconv element tests: what the topic files share.
 *
 * Each topic file (formats.c, negotiation.c, ...) is built with harness.c
 * into a test program of its own, once per variant: plain, on
 * backend=cpu; with ELEMENT_CUDA, on backend=cuda, exiting 77 when no CUDA
 * device is usable; with ELEMENT_MULTI_GPU as well (multi-gpu.c), exiting
 * 77 with fewer than two. Outputs are checked against the double reference
 * of reference.c, with weights the test writes itself into the matrix
 * property. */
#ifndef CUDACONV_TEST_ELEMENT_HARNESS_H
#define CUDACONV_TEST_ELEMENT_HARNESS_H

#include <math.h>
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "config.h"
#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

#include "reference.h"

#ifdef ELEMENT_CUDA
#define BACKEND "cuda"
#else
#define BACKEND "cpu"
#endif

/* What a topic file gives the harness's main(): its name, which names the
 * check suite, and its tests. add_no_device_tests, where not NULL, adds
 * the tests run instead when CUDACONV_TEST_NO_DEVICE is set (with
 * CUDA_VISIBLE_DEVICES= so that no device is usable); a topic without
 * them skips then. */
typedef struct {
  const gchar *name;
  void (*add_tests) (TCase * tc);
  void (*add_no_device_tests) (TCase * tc);
} ElementTopic;

extern const ElementTopic element_topic;

extern RefRng rng;

/* every format of the element but the word-packed ones */
extern const gchar *const all_formats[];
extern const guint n_all_formats;

typedef struct {
  int side;
  double w[(31 * 31)];
  double divisor, offset;
  gchar *text;                  /* the matrix property */
} TestMatrix;

void matrix_random (TestMatrix * m, int side, gboolean signed_weights);
void gaussian_matrix (TestMatrix * m, int radius, double sigma);

/* Harnesses, buses and pipelines that a test makes through these are freed
 * by the fixture's teardown if the test fails before it frees them. */
GstHarness *harness_track (GstHarness * h);
void harness_teardown (GstHarness * h);
GstElement *pipeline_launch (const gchar * description, GError ** error);
void pipeline_stop (GstElement * pipeline);

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

/* An allocator whose memory comes full of 0xa5, as reused heap would come
 * full of someone else's bytes (floating, as g_object_new makes it) */
GstAllocator *poison_allocator_new (void);
GstHarness *harness_new_with_depth (const gchar * caps, guint async_depth);
GstHarness *harness_new (const gchar * caps);
GstBus *harness_bus (GstHarness * h);
void harness_teardown_with_bus (GstHarness * h, GstBus * bus);
gboolean bus_has_problem (GstBus * bus);

/* What the CUDA back end says of its frame graphs (cudaconv-cuda-graph.c):
 * the frames whose kernels a frame slot recorded, those it replayed, and
 * the graphs that failed */
typedef struct {
  gint recorded, replayed, failed;
} GraphCounts;
/* From now on the element's DEBUG and LOG lines are counted into counts
 * (zeroed here) rather than printed, until graph_counts_stop. */
void graph_counts_start (GraphCounts * counts);
void graph_counts_stop (void);
void expect_warning (GstBus * bus, const gchar * mention, const gchar * what);

GstBuffer *random_bytes (gsize size);
GstBuffer *random_frame (const GstVideoInfo * info);
RefImage component_image (GstVideoFrame * f, gint c);
guint sample (const RefImage * im, gint x, gint y);
void set_sample (const RefImage * im, gint x, gint y, guint v);
void make_well_formed (GstBuffer * buffer, const GstVideoInfo * info);
/* The caps' picture (width x height) at (cx, cy) in a larger random frame
 * of buffer_width x buffer_height, with the video meta and crop meta that
 * decoders and videocrop give it when downstream takes crop metas;
 * *picture receives the same picture copied out on its own, as upstream
 * sends it when crop metas are refused. Packed 4:2:2 takes even cx, v210
 * multiples of 6 (their pixel groups). */
GstBuffer *picture_in_larger_buffer (GstVideoFormat format, gint width,
    gint height, gint buffer_width, gint buffer_height, gint cx, gint cy,
    GstBuffer ** picture);

/* A rectangle of the frame in pixels */
typedef struct {
  gint x, y, w, h;
} Box;

/* The boxes as the region-boxes property writes them ("x,y,w,h;..."), for
 * the tests that set that property from the boxes they check against. */
gchar *boxes_text (const Box * boxes, guint n);

typedef enum { EXPECT_FILTERED, EXPECT_COPY, EXPECT_FILL } Expect;

/* One frame through the harness, both sides mapped for checking. */
typedef struct {
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fin, fout;
} Pushed;

void push_frame (GstHarness * h, const GstVideoInfo * info, GstBuffer * in,
    Pushed * p);
void pushed_release (Pushed * p);
void check_component (GstVideoFrame * in, GstVideoFrame * out, gint c,
    Expect expect, const TestMatrix * m, const double *w2, RefBorder border,
    const gchar * what);
void set_custom_filter (GstElement * conv, const TestMatrix * m,
    RefBorder border, const gchar * channels);
void check_filtered_frame (Pushed * p, GstElement * conv,
    const TestMatrix * m, RefBorder border, const gchar * what);
gchar *format_check_name (const gchar * how, const gchar * format,
    gint width, gint height, const TestMatrix * m, RefBorder border,
    const gchar * channels);
void check_format (const gchar * format, gint width, gint height,
    const TestMatrix * m, RefBorder border, const gchar * extra_props);
void check_cropped_frame (Pushed * p, const TestMatrix * m, gint cx, gint cy,
    gint cw, gint ch, const gchar * caps);
void set_custom_matrix (GstHarness * h, const TestMatrix * m);
void check_pushed_frame (const GstVideoInfo * info, GstBuffer * in,
    GstBuffer * out, const TestMatrix * m, const gchar * what);
void push_and_check_gray (GstHarness * h, gint width, gint height,
    const TestMatrix * m, const gchar * what);

/* A frame of a word-packed format (v210, Y410, RGB10A2_LE, BGR10A2_LE)
 * unpacked by GStreamer's own unpack functions, an independent decoder of
 * the layout. */
typedef struct {
  gint width, height;
  guint n;                      /* components */
  guint16 *c[4];                /* full-width planes, 10-bit values */
} Unpacked;

void unpacked_from_frame (GstVideoFrame * f, Unpacked * u);
void unpacked_clear (Unpacked * u);

gchar *run_pipeline (const gchar * description, gchar ** warning);
void expect_pipeline_error (const gchar * description,
    const gchar * mention);

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
GstCudaContext *queried_cuda_context (GstElement * element);
gboolean frames_within_one (GstSample * a, GstSample * b, gchar ** why);
gboolean pad_in_cuda_memory (GstElement * element, const gchar * pad_name);
#endif

#if defined (ELEMENT_CUDA) && defined (HAVE_GST_CUDA)
/* Where frames are on either side of cudaconv */
typedef struct {
  gboolean cuda_in, cuda_out;
  const gchar *what;
} MemoryPath;

/* cudaconv backend=cuda in a harness whose frames are in CUDA memory on
 * the sides path names. The test writes and reads that memory itself,
 * whole rows through the CUDA runtime, rather than through cudaupload and
 * cudadownload: GStreamer's copies (gst_cuda_buffer_copy, and the CUDA
 * memory's own upload and download) take comp-width * pixel-stride bytes
 * of a row, the Y samples' bytes in packed 4:2:2, and so leave out the V
 * of the last pair of an odd-width row. */
typedef struct {
  GstHarness *h;
  const MemoryPath *path;
  GstVideoInfo info;
  GstCudaContext *context;      /* the element's */
  GstBufferPool *pool;          /* of that context, for input in CUDA memory */
} PathHarness;

/* the four: system or CUDA memory on each side */
extern const MemoryPath memory_paths[4];

void path_harness_start (PathHarness * ph, const MemoryPath * path,
    const gchar * format, gint width, gint height);
/* path_harness_start for caps of any kind (interlaced ones among them):
 * caps and cuda_caps are the same frames in system and in CUDA memory. */
void path_harness_start_with_caps (PathHarness * ph, const MemoryPath * path,
    const gchar * caps, const gchar * cuda_caps);
void path_harness_stop (PathHarness * ph);
/* path_harness_stop, and the bus harness_bus gave ph's element freed */
void path_harness_stop_with_bus (PathHarness * ph, GstBus * bus);
/* The frame in host, in a buffer of ph's CUDA pool */
GstBuffer *frame_to_cuda (PathHarness * ph, GstBuffer * host);
/* The frame in CUDA memory cuda, in a new buffer of system memory laid out
 * as ph's caps say */
GstBuffer *frame_from_cuda (PathHarness * ph, GstBuffer * cuda);
#endif

#endif

/* cudaconv benchmark: per-plane kernel times and the element's frame rate.
 *
 *   cudaconv-bench [--kernels] [--element] [--frames N] [--size WxH]
 *                  [--format F] [--props "kernel=gaussian radius=3"]
 *                  [--backend auto|cuda|cpu]
 *
 * Kernels: one 8-bit plane, border clamp, a normalised (2r+1)^2 filter, for
 * each strategy and radius at 1920x1080 and 3840x2160; CUDA events around
 * each launch after 5 warm-up launches, median of 31 (the CPU back end: median
 * of 3 after 1 warm-up). Element: one random frame pushed --frames times
 * through appsrc ! cudaconv ! appsink sync=false; the rate counts from the
 * 10th output to the last. With neither flag both parts run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "cudaconv-cpu.h"
#ifdef HAVE_CUDA
#include "cudaconv-cuda.h"
#endif

#define WARMUP_OUTPUTS 10

static const int radii[] = { 1, 2, 3, 7, 15 };
static const int sizes[][2] = { {1920, 1080}, {3840, 2160} };

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof (double), compare_doubles);
  return v[n / 2];
}

static void
normalised_filter (int radius, float *taps)
{
  int side = 2 * radius + 1, n = side * side;
  double sum = 0.0;
  for (int k = 0; k < n; k++)
    sum += taps[k] = (float) (1.0 + (k * 7919 % 13));
  for (int k = 0; k < n; k++)
    taps[k] = (float) (taps[k] / sum);
}

static unsigned char *
random_plane (size_t bytes)
{
  unsigned char *p = malloc (bytes);
  unsigned x = 12345;
  for (size_t k = 0; k < bytes; k++) {
    x = x * 1103515245u + 12345u;
    p[k] = (unsigned char) (x >> 16);
  }
  return p;
}

#ifdef HAVE_CUDA
static int
cuda_kernel_table (void)
{
  static float taps[CC_MAX_TAPS];
  struct cudaDeviceProp prop;
  int slot = cc_cuda_filter_slot_acquire (), count = 0;
  cudaEvent_t start, stop;

  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("kernels: no usable CUDA device, skipped\n");
    return 0;
  }
  cudaGetDeviceProperties (&prop, 0);
  cudaEventCreate (&start);
  cudaEventCreate (&stop);
  printf ("\nCUDA kernels on %s: one 8-bit plane, border clamp, median of "
      "31 launches, milliseconds (Gsample/s)\n", prop.name);
  printf ("%-10s %6s %20s %20s\n", "size", "radius", "tiled-halo",
      "cache-halo");
  for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++) {
    int w = sizes[s][0], h = sizes[s][1];
    size_t pitch;
    void *d_in, *d_out;
    unsigned char *host = random_plane ((size_t) w * h);

    if (cudaMallocPitch (&d_in, &pitch, w, h) != cudaSuccess
        || cudaMallocPitch (&d_out, &pitch, w, h) != cudaSuccess) {
      fprintf (stderr, "cudaMallocPitch failed\n");
      return 1;
    }
    cudaMemcpy2D (d_in, pitch, host, w, w, h, cudaMemcpyHostToDevice);
    for (size_t r = 0; r < sizeof (radii) / sizeof (radii[0]); r++) {
      CcFilter f = { radii[r], CC_RESPONSE_LINEAR, 0.0f, taps };
      CcChannel in = { d_in, pitch, w, h, 1, CC_SAMPLE_U8 };
      CcChannel out = { d_out, pitch, w, h, 1, CC_SAMPLE_U8 };
      double ms[2];

      normalised_filter (radii[r], taps);
      cc_cuda_upload_filter (slot, &f, 0);
      for (int strategy = 0; strategy < 2; strategy++) {
        double t[31];
        for (int i = 0; i < 5; i++)
          cc_cuda_convolve (&in, &out, slot, f.radius, f.response, 0,
              CC_BORDER_CLAMP, (CcStrategy) strategy, 0);
        for (int i = 0; i < 31; i++) {
          float e;
          cudaEventRecord (start, 0);
          cc_cuda_convolve (&in, &out, slot, f.radius, f.response, 0,
              CC_BORDER_CLAMP, (CcStrategy) strategy, 0);
          cudaEventRecord (stop, 0);
          cudaEventSynchronize (stop);
          cudaEventElapsedTime (&e, start, stop);
          t[i] = e;
        }
        if (cudaGetLastError () != cudaSuccess) {
          fprintf (stderr, "kernel launch failed\n");
          return 1;
        }
        ms[strategy] = median (t, 31);
      }
      printf ("%4dx%-5d %6d %10.4f (%6.2f) %10.4f (%6.2f)\n", w, h, radii[r],
          ms[0], w * (double) h / ms[0] / 1e6, ms[1],
          w * (double) h / ms[1] / 1e6);
    }
    cudaFree (d_in);
    cudaFree (d_out);
    free (host);
  }
  return 0;
}
#endif

static void
cpu_kernel_table (void)
{
  static float taps[CC_MAX_TAPS];
  int w = 1920, h = 1080, threads = (int) g_get_num_processors ();
  unsigned char *in = random_plane ((size_t) w * h), *out = malloc (w * h);

  printf ("\nCPU back end, %d threads: one 8-bit 1920x1080 plane, border "
      "clamp, median of 3, milliseconds\n%6s %12s\n", threads, "radius", "cpu");
  for (size_t r = 0; r < sizeof (radii) / sizeof (radii[0]); r++) {
    CcFilter f = { radii[r], CC_RESPONSE_LINEAR, 0.0f, taps };
    CcChannel ci = { in, w, w, h, 1, CC_SAMPLE_U8 };
    CcChannel co = { out, w, w, h, 1, CC_SAMPLE_U8 };
    double t[3];

    normalised_filter (radii[r], taps);
    cc_cpu_convolve (&ci, &co, &f, CC_BORDER_CLAMP, threads);
    for (int i = 0; i < 3; i++) {
      gint64 t0 = g_get_monotonic_time ();
      cc_cpu_convolve (&ci, &co, &f, CC_BORDER_CLAMP, threads);
      t[i] = (g_get_monotonic_time () - t0) / 1000.0;
    }
    printf ("%6d %12.3f\n", radii[r], median (t, 3));
  }
  free (in);
  free (out);
}

typedef struct {
  GstAppSrc *src;
  GstBuffer *frame;
  int frames;
} Feeder;

static gpointer
feed (gpointer data)
{
  Feeder *f = data;
  for (int i = 0; i < f->frames; i++)
    if (gst_app_src_push_buffer (f->src, gst_buffer_ref (f->frame)) !=
        GST_FLOW_OK)
      break;
  gst_app_src_end_of_stream (f->src);
  return NULL;
}

/* Frames per second of the element, or a negative number on failure. */
static double
element_fps (const char *backend, const char *format, int w, int h,
    const char *props, int frames, char **used)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! cudaconv name=conv "
      "backend=%s %s ! appsink name=sink sync=false", backend, props);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *src, *sink;
  GstVideoInfo info;
  GstCaps *caps;
  GstBus *bus;
  GstMessage *msg;
  Feeder feeder;
  GThread *thread;
  gint64 t0 = 0, t1 = 0;
  int got = 0;
  double fps = -1.0;

  g_free (desc);
  if (!pipeline) {
    fprintf (stderr, "pipeline: %s\n", err->message);
    return -1.0;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  info.fps_n = 30;
  info.fps_d = 1;
  caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  gst_caps_unref (caps);
  feeder.src = GST_APP_SRC (src);
  feeder.frame = gst_buffer_new_wrapped (random_plane (info.size), info.size);
  feeder.frames = frames;

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    /* e.g. backend=cuda without a device: the bus holds the reason */
    frames = 0;
  }
  feeder.frames = frames;
  thread = g_thread_new ("feeder", feed, &feeder);
  for (GstSample * s; (s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND));) {
    got++;
    if (got == WARMUP_OUTPUTS)
      t0 = g_get_monotonic_time ();
    t1 = g_get_monotonic_time ();
    gst_sample_unref (s);
  }
  g_thread_join (thread);

  bus = gst_element_get_bus (pipeline);
  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_INFO && used && !*used) {
      gst_message_parse_info (msg, &err, NULL);
      *used = g_strdup (err->message);
      g_clear_error (&err);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      fprintf (stderr, "%s backend: %s\n", backend, err->message);
      g_clear_error (&err);
      got = 0;
    }
    gst_message_unref (msg);
  }
  if (frames > 0 && got == frames && got > WARMUP_OUTPUTS && t1 > t0)
    fps = (got - WARMUP_OUTPUTS) / ((t1 - t0) / 1e6);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_buffer_unref (feeder.frame);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return fps;
}

int
main (int argc, char **argv)
{
  gboolean kernels = FALSE, element = FALSE;
  gint frames = 300;
  gchar *size = NULL, *format = NULL, *props = NULL, *backend = NULL;
  GOptionEntry entries[] = {
    {"kernels", 0, 0, G_OPTION_ARG_NONE, &kernels, "Time the kernels", NULL},
    {"element", 0, 0, G_OPTION_ARG_NONE, &element, "Time the element", NULL},
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames per element run",
        "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "Only this frame size",
        "WxH"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Video format (I420)",
        "F"},
    {"props", 0, 0, G_OPTION_ARG_STRING, &props,
        "cudaconv properties (kernel=gaussian radius=2)", "P"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &backend,
        "Only this backend (auto, cuda or cpu)", "B"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- cudaconv benchmark");

  /* tables appear as they are measured, also through a pipe */
  setvbuf (stdout, NULL, _IOLBF, 0);
  GError *err = NULL;
  int status = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  if (!kernels && !element)
    kernels = element = TRUE;
  if (!format)
    format = g_strdup ("I420");
  if (!props)
    props = g_strdup ("kernel=gaussian radius=2");

  if (kernels) {
#ifdef HAVE_CUDA
    status |= cuda_kernel_table ();
#else
    printf ("kernels: built without CUDA\n");
#endif
    cpu_kernel_table ();
  }
  if (element) {
    const char *backends[] = { "cuda", "cpu" };
    printf ("\nElement: appsrc ! cudaconv %s ! appsink sync=false, %s, "
        "frames/s after %d warm-up frames\n", props, format, WARMUP_OUTPUTS);
    for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++) {
      int w = sizes[s][0], h = sizes[s][1];
      if (size && sscanf (size, "%dx%d", &w, &h) != 2) {
        fprintf (stderr, "--size takes WxH\n");
        return 2;
      }
      for (int b = 0; b < 2; b++) {
        const char *be = backend ? backend : backends[b];
        char *used = NULL;
        /* the CPU back end is far slower; fewer frames keep runs short */
        int n = strcmp (be, "cpu") == 0 ? MAX (frames / 10, WARMUP_OUTPUTS + 5)
            : frames;
        double fps = element_fps (be, format, w, h, props, n, &used);
        if (fps < 0)
          printf ("%4dx%-5d backend=%-4s  (not available)\n", w, h, be);
        else
          printf ("%4dx%-5d backend=%-4s %9.1f frames/s  [%s]\n", w, h, be,
              fps, used ? used : "?");
        g_free (used);
        if (backend)
          break;
      }
      if (size)
        break;
    }
  }
  g_free (size);
  g_free (format);
  g_free (props);
  g_free (backend);
  g_option_context_free (ctx);
  return status;
}

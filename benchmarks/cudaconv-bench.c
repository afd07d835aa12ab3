/* cudaconv benchmark: per-plane kernel times and the element's frame rate.
 *
 *   cudaconv-bench [--kernels] [--element] [--live] [--once] [--cpu-peers]
 *                  [--crop] [--regions] [--crowds] [--packed] [--wide]
 *                  [--stacks] [--cuda-memory]
 *                  [--streams LIST] [--multi-gpu]
 *                  [--cuda-streams LIST] [--separate-contexts]
 *                  [--devices LIST] [--decode FILES]
 *                  [--frames N]
 *                  [--size WxH] [--format F] [--props "kernel=gaussian"]
 *                  [--csv FILE]
 *
 * Kernels (--kernels): one 8- or 16-bit plane, border clamp, for each
 * strategy and radius at 3840x2160 and 1920x1080 (or only --size), against
 * the GPU's FP32 rate measured in the same run and against a plain copy of
 * the plane (bench-copy-floor.cu; see time_launches for the method); the CPU
 * backend's times follow. Element (--element): frames per second end to end
 * with the input in cudaconv's pinned pool and in foreign buffers, against
 * the transfer floor and cudaupload ! cudadownload; the CPU backend against
 * gaussianblur. Live (--live): a live 1080p30 source through cudaconv. Once
 * (--once, not part of "all"): one line, the frame rate of cudaconv with
 * --props as given (backend=auto unless they say) on --format frames of
 * --size, as pipelines/demo.sh reports it. CPU peers (--cpu-peers, not
 * part of "all"): the CPU backend against OpenCV's cvsmooth on 1080p RGB.
 * Crop (--crop): 1920x1088 frames through videocrop to their 1080-row
 * picture, with cudaconv taking videocrop's crop meta and with the meta
 * refused (videocrop then copies the picture), against 1920x1080 frames
 * with no crop at all. Regions (--regions): region=inside on four boxes
 * covering a tenth of a 1080p frame against region=frame, on both
 * backends and in CUDA memory, and the CPU's box r127 against r2. Crowds
 * (--crowds, not part of "all"): 200 small boxes, 64 overlapping large
 * ones, and 1,000 moving ROI metas a frame held 300 frames, against
 * region=frame. Stacks (--stacks, not part of "all"): the group of
 * stacked windows of the regions and crowd rows, each kernel family timed
 * on it and on wider layouts of its samples, against the whole frame's
 * kernels (bench-stacks.c). CUDA memory (--cuda-memory): frames in cudaconv's
 * GstCudaBufferPool, filtered where they are, against the kernels'
 * capacity (1 / the frame's summed kernel time). Streams (--streams,
 * --cuda-streams, not part of "all"): N pipelines at once in system or
 * CUDA memory, against the transfer floor or the kernels' capacity.
 * --separate-contexts gives each pipeline its own CUDA context; --devices
 * spreads them over devices (one 2160p pipeline per GPU: --devices 0,1
 * --streams 1,2). Many GPUs (--multi-gpu, not part of "all"): on a
 * machine of D devices, for N of 1, 2 and 4 up to D (and N = D), one
 * 3840x2160 I420 pipeline per device, each with device-id=d and its own
 * context, against the floor of N devices measured just before and just
 * after it (a thread per device copying frames both ways at once, as the
 * transfer floor does, all devices together, frames/s summed); then 16
 * pipelines of 1920x1080 with device-id=-1 against the floor of all D, and
 * how many landed on each device. It takes I420 at those sizes whatever
 * --format and --size say; --frames is each 2160p pipeline's count, four
 * times it each 1080p one's. Decode (--decode, not part of "all"):
 * nvh264dec ! cudaconv ! cudadownload against nvh264dec ! cudadownload on
 * the same files.
 * With no section named, all but --once and --cpu-peers run. --csv appends
 * every number to a file for benchmarks/bench-report.py and
 * benchmarks/bench-plot.py.
 *
 * This file parses the options; each table has a file of its own
 * (bench-<table>.c) over the helpers of bench-common.h. */
#include <stdio.h>
#include <stdlib.h>

#include "bench-common.h"

int
main (int argc, char **argv)
{
  gboolean kernels = FALSE, element = FALSE, live = FALSE, once = FALSE;
  gboolean cpu_peers = FALSE, crop = FALSE, packed = FALSE;
  gboolean regions = FALSE, crowds = FALSE;
  gboolean cuda_memory = FALSE, wide = FALSE, multi_gpu = FALSE;
  gboolean stacks = FALSE;
  Bench bench = { .frames = 1000 };
  gchar *size = NULL, *format = NULL, *props = NULL, *streams = NULL;
  gchar *rows = NULL;
  gchar *cuda_streams = NULL, *decode = NULL, *device_list = NULL;
  gchar *csv_path = NULL;
  GOptionEntry entries[] = {
    {"kernels", 0, 0, G_OPTION_ARG_NONE, &kernels, "Time the kernels", NULL},
    {"wide", 0, 0, G_OPTION_ARG_NONE, &wide,
        "The wide shapes (box, pixelate, gaussian r63 and r127; 8- and 16-bit; "
          "the CPU's box and threads) against their targets; "
          "also --rows wide", NULL},
    {"stacks", 0, 0, G_OPTION_ARG_NONE, &stacks,
          "The kernels of the region rows' stacked windows, each family, "
          "against the whole frame's", NULL},
    {"packed", 0, 0, G_OPTION_ARG_NONE, &packed,
        "Time the 2D kernels on components of packed pixels", NULL},
    {"element", 0, 0, G_OPTION_ARG_NONE, &element, "Time the element", NULL},
    {"live", 0, 0, G_OPTION_ARG_NONE, &live,
        "Run a live 1080p30 source through cudaconv", NULL},
    {"once", 0, 0, G_OPTION_ARG_NONE, &once,
        "One line: cudaconv with --props on --format frames of --size", NULL},
    {"cpu-peers", 0, 0, G_OPTION_ARG_NONE, &cpu_peers,
        "The CPU backend against OpenCV's cvsmooth on 1080p RGB", NULL},
    {"streams", 0, 0, G_OPTION_ARG_STRING, &streams,
          "Many pipelines at once, these counts of them (1,4,16,64)", "LIST"},
    {"multi-gpu", 0, 0, G_OPTION_ARG_NONE, &multi_gpu,
          "One 2160p pipeline per GPU against the floor of as many GPUs, "
          "then 16 1080p pipelines with device-id=-1", NULL},
    {"cuda-memory", 0, 0, G_OPTION_ARG_NONE, &cuda_memory,
        "CUDA memory in and out against the kernels' capacity", NULL},
    {"cuda-streams", 0, 0, G_OPTION_ARG_STRING, &cuda_streams,
          "Many pipelines at once in CUDA memory, these counts of them",
        "LIST"},
    {"devices", 0, 0, G_OPTION_ARG_STRING, &device_list,
          "Streams: stream i runs on the (i mod n)-th of these device-ids "
          "(without it, all on device 0)",
        "LIST"},
    {"separate-contexts", 0, 0, G_OPTION_ARG_NONE, &bench.separate_contexts,
        "Streams: each pipeline makes its own CUDA context", NULL},
    {"decode", 0, 0, G_OPTION_ARG_STRING, &decode,
          "nvh264dec into cudaconv against the decode alone, these H.264 "
          "files", "FILES"},
    {"crop", 0, 0, G_OPTION_ARG_NONE, &crop,
        "videocrop's crop meta taken against refused", NULL},
    {"regions", 0, 0, G_OPTION_ARG_NONE, &regions,
        "region=inside on a tenth of the frame against region=frame", NULL},
    {"crowds", 0, 0, G_OPTION_ARG_NONE, &crowds,
        "many, overlapping and held regions against region=frame", NULL},
    {"frames", 0, 0, G_OPTION_ARG_INT, &bench.frames, "Frames per element run",
        "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "Only this frame size",
        "WxH"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Video format (I420)",
        "F"},
    {"props", 0, 0, G_OPTION_ARG_STRING, &props,
        "cudaconv properties (kernel=gaussian radius=2)", "P"},
    {"rows", 0, 0, G_OPTION_ARG_STRING, &rows,
          "Element table: only these rows (pool, registered, staged, "
          "depth1, cudaupload, cpu); wide: the wide shapes' table", "LIST"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path,
        "Append machine-readable result rows to this file", "FILE"},
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
  if (size && (sscanf (size, "%dx%d", &bench.only_w, &bench.only_h) != 2
          || bench.only_w <= 0 || bench.only_h <= 0)) {
    fprintf (stderr, "--size takes WxH\n");
    return 2;
  }
  if (device_list) {
    gchar **ids = g_strsplit (device_list, ",", -1);
    for (int d = 0; ids[d]
        && bench.n_devices < (int) G_N_ELEMENTS (bench.devices); d++)
      bench.devices[bench.n_devices++] = atoi (ids[d]);
    g_strfreev (ids);
    g_free (device_list);
  }
  if (csv_path && !(bench.csv = fopen (csv_path, "a"))) {
    fprintf (stderr, "cannot open %s\n", csv_path);
    return 2;
  }
  /* --rows wide names the wide shapes' table, alone unless others are
   * asked for */
  if (rows) {
    gchar **names = g_strsplit (rows, ",", -1);
    wide |= g_strv_contains ((const gchar * const *) names, "wide");
    g_strfreev (names);
  }
  if (!kernels && !packed && !element && !live && !once && !cpu_peers
      && !crop && !regions && !crowds && !streams && !cuda_memory && !cuda_streams
      && !decode && !wide && !multi_gpu && !stacks)
    kernels = element = live = crop = regions = cuda_memory = TRUE;
  if (!format)
    format = g_strdup ("I420");
  if (!props)
    props = g_strdup ("kernel=gaussian radius=2");
  bench.format = format;
  bench.props = props;
  if (rows)
    bench.rows = g_strsplit (rows, ",", -1);

  if (kernels) {
#ifdef HAVE_CUDA
    status |= cuda_kernel_table (&bench);
#else
    printf ("kernels: built without CUDA\n");
#endif
    cpu_kernel_table ();
  }
  if (wide)
    status |= wide_table (&bench);
  if (stacks)
    status |= stacks_table (&bench);
  if (packed) {
#ifdef HAVE_CUDA
    status |= cuda_packed_table (&bench);
#else
    printf ("packed kernels: built without CUDA\n");
#endif
  }
  if (element)
    status |= element_table (&bench);
  if (live) {
    printf ("\nLive:\n");
    status |= live_run (&bench, "cuda", 150);
  }
  if (crop)
    status |= crop_table (&bench);
  if (regions)
    status |= regions_table (&bench);
  if (crowds)
    status |= crowds_table (&bench);
  if (cuda_memory)
    status |= cuda_memory_table (&bench);
  if (streams)
    status |= streams_table (&bench, streams, FEED_FOREIGN);
  if (cuda_streams)
    status |= streams_table (&bench, cuda_streams, FEED_CUDA_POOL);
  if (multi_gpu)
    status |= multi_gpu_table (&bench);
  if (decode)
    status |= decode_table (&bench, decode);
  if (cpu_peers)
    status |= cpu_peer_table (&bench, MIN (bench.frames, 120));
  if (once)
    status |= once_run (&bench, bench.only_w ? bench.only_w : 1920,
        bench.only_w ? bench.only_h : 1080);
  g_free (size);
  g_free (streams);
  g_free (cuda_streams);
  g_free (decode);
  g_free (format);
  g_free (props);
  g_free (rows);
  g_strfreev (bench.rows);
  if (bench.csv)
    fclose (bench.csv);
  g_free (csv_path);
  g_option_context_free (ctx);
  return status;
}

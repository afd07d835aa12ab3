/* cudaconv benchmark, --cuda-memory: CUDA memory in and out against the
 * kernels' capacity (bench-common.h). */
#include "bench-common.h"

/* CUDA in / CUDA out: frames of cudaconv's proposed GstCudaBufferPool
 * through cudaconv kernel=gaussian radius=2, output in CUDA memory of its
 * own pool, never copied to the host; against the kernels' capacity for
 * the same frames (frame_kernel_ms), measured just before each run. Each
 * run is followed by one of the same element passing the frames through
 * (region=inside without a region: no kernel, no output buffer), the
 * most the feeder, appsrc, appsink and the element's own per-frame checks
 * allow; 1 / frames/s less 1 / that is the host time filtering adds. */
int
cuda_memory_table (const Bench * b)
{
#ifdef HAVE_CUDA
  const char *format = b->format;
  const int frames = b->frames;

  if (!cuda_device_present ()) {
    printf ("\nCUDA memory: no usable CUDA device, skipped\n");
    return 0;
  }
  printf ("\nCUDA memory in and out: appsrc (cudaconv's GstCudaBufferPool) "
      "! cudaconv kernel=gaussian radius=2 ! appsink sync=false, %s, "
      "frames/s after %d warm-up frames of %d (4x as many at 1920x1080), "
      "median of %d runs; against 1 / the frame's kernel time (each plane's "
      "kernel as auto picks it, CUDA events, summed), median of the runs' "
      "ratios\n", format, WARMUP_OUTPUTS, frames, ELEMENT_RUNS);
  printf ("%-9s %12s %12s %12s %9s %12s %12s\n", "size", "frames/s",
      "kernels ms", "kernels f/s", "% kernels", "passing f/s", "added us");
  for (int s = (int) G_N_ELEMENTS (bench_sizes) - 1; s >= 0; s--) {
    const int w = b->only_w ? b->only_w : bench_sizes[s][0];
    const int h = b->only_w ? b->only_h : bench_sizes[s][1];
    const int n = w * h <= 1920 * 1080 ? 4 * frames : frames;
    double runs[ELEMENT_RUNS], ratios[ELEMENT_RUNS], kernel[ELEMENT_RUNS];
    double passing[ELEMENT_RUNS];
    GstVideoInfo info;

    gst_video_info_set_format (&info, gst_video_format_from_string (format),
        w, h);
    for (int k = 0; k < ELEMENT_RUNS; k++) {
      kernel[k] = frame_kernel_ms (&info);
      runs[k] = pipeline_fps ("cudaconv backend=cuda kernel=gaussian "
          "radius=2", format, w, h, FEED_CUDA_POOL, n);
      ratios[k] = kernel[k] > 0 && runs[k] > 0 ? runs[k] * kernel[k] / 1e3 :
          -1.0;
      passing[k] = pipeline_fps ("cudaconv backend=cuda kernel=gaussian "
          "radius=2 region=inside", format, w, h, FEED_CUDA_POOL, n);
    }
    const double fps = median (runs, ELEMENT_RUNS);
    const double ms = median (kernel, ELEMENT_RUNS);
    const double ratio = median (ratios, ELEMENT_RUNS);
    const double pass = median (passing, ELEMENT_RUNS);
    const double added_us = fps > 0 && pass > 0 ? 1e6 / fps - 1e6 / pass :
        -1.0;
    if (runs[0] < 0 || kernel[0] < 0) {
      printf ("%4dx%-4d did not run\n", w, h);
      return 1;
    }
    printf ("%4dx%-4d %12.1f %12.4f %12.1f %9.1f %12.1f %12.2f (runs %.1f%% "
        "to %.1f%%)\n", w, h, fps, ms, 1e3 / ms, 100.0 * ratio, pass,
        added_us, 100.0 * ratios[0], 100.0 * ratios[ELEMENT_RUNS - 1]);
    csv_row (b, "cuda-memory", w, h, 8, 2, "frames_per_s", fps);
    csv_row (b, "cuda-memory", w, h, 8, 2, "kernel_ms", ms);
    csv_row (b, "cuda-memory", w, h, 8, 2, "of_kernels", ratio);
    csv_row (b, "cuda-memory", w, h, 8, 2, "passing_frames_per_s", pass);
    if (b->only_w)
      break;
  }
  return 0;
#else
  printf ("\nCUDA memory: built without CUDA\n");
  return 0;
#endif
}

/* cudaconv benchmark: GPU time of kernels and copies, with CUDA events
 * (bench-common.h); CUDA builds only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"

const int bench_kernel_radii[BENCH_N_KERNEL_RADII] = { 1, 2, 3, 5, 7, 10, 15 };

void
kernel_timer_init (KernelTimer * timer)
{
  cudaEventCreate (&timer->start);
  cudaEventCreate (&timer->stop);
  cudaEventCreateWithFlags (&timer->busy_done, cudaEventDisableTiming);
}

void
kernel_timer_clear (KernelTimer * timer)
{
  cudaEventDestroy (timer->start);
  cudaEventDestroy (timer->stop);
  cudaEventDestroy (timer->busy_done);
}

typedef struct {
  const CcComponent *in, *out;
  const CcFilter *filter;
  CcStrategy strategy;
  CcLaunchFlags flags;
  gboolean copy;                /* a plane copy instead of a convolution */
  void *workspace;
  size_t workspace_bytes;
  int family;                   /* a family of its own, or -1: the strategy's */
} KernelLaunch;

static cudaError_t
launch (const KernelLaunch * k)
{
  if (k->copy)
    return cc_bench_copy_plane (k->in->data, k->out->data, k->in->pitch,
        (size_t) k->in->width * k->in->sample, k->in->height);
  if (k->family >= 0)
    return cc_cuda_convolve_family ((CcFamily) k->family, k->in, k->out,
        k->filter, CC_BORDER_CLAMP, k->workspace, k->workspace_bytes, 0,
        k->flags);
  return cc_cuda_convolve (k->in, k->out, k->filter, CC_BORDER_CLAMP,
      k->strategy, k->workspace, k->workspace_bytes, 0, k->flags, NULL);
}

/* The median of KERNEL_RUNS samples, as bench-common.h says */
static double
time_launches (KernelTimer * timer, const KernelLaunch * k)
{
  double t[KERNEL_RUNS];
  double busy_us = KERNEL_BUSY_US;
  for (int i = 0; i < KERNEL_WARMUP; i++)
    if (launch (k) != cudaSuccess)
      return -1.0;
  for (int i = 0; i < KERNEL_RUNS; i++) {
    float e = 0.0f;
    if (cc_bench_gpu_busy (busy_us) != cudaSuccess)
      return -1.0;
    cudaEventRecord (timer->busy_done, 0);
    cudaEventRecord (timer->start, 0);
    for (int b = 0; b < KERNEL_BATCH; b++)
      launch (k);
    cudaEventRecord (timer->stop, 0);
    const gboolean ran_dry =
        cudaEventQuery (timer->busy_done) == cudaSuccess;
    if (cudaEventSynchronize (timer->stop) != cudaSuccess)
      return -1.0;
    if (ran_dry && busy_us < KERNEL_BUSY_MAX_US) {
      busy_us *= 2.0;
      i--;
      continue;
    }
    cudaEventElapsedTime (&e, timer->start, timer->stop);
    t[i] = e / KERNEL_BATCH;
  }
  return median (t, KERNEL_RUNS);
}

/* flags: CC_LAUNCH_SRC_READY as the element launches its planes, each
 * kernel reading while the one before it ends; CC_LAUNCH_DEFAULT for
 * kernels that each wait for the one before them */
double
time_kernel (KernelTimer * timer, const CcComponent * in,
    const CcComponent * out, const CcFilter * filter, CcStrategy strategy,
    CcLaunchFlags flags)
{
  const KernelLaunch k = { in, out, filter, strategy, flags, FALSE, NULL, 0,
    -1
  };
  return time_launches (timer, &k);
}

double
time_kernel_workspace (KernelTimer * timer, const CcComponent * in,
    const CcComponent * out, const CcFilter * filter, CcStrategy strategy,
    void *workspace, size_t workspace_bytes)
{
  const KernelLaunch k = { in, out, filter, strategy, CC_LAUNCH_SRC_READY,
    FALSE, workspace, workspace_bytes, -1
  };
  return time_launches (timer, &k);
}

double
time_family_workspace (KernelTimer * timer, const CcComponent * in,
    const CcComponent * out, const CcFilter * filter, CcFamily family,
    void *workspace, size_t workspace_bytes)
{
  const KernelLaunch k = { in, out, filter, CC_STRATEGY_AUTO,
    CC_LAUNCH_SRC_READY, FALSE, workspace, workspace_bytes, (int) family
  };
  return time_launches (timer, &k);
}

double
time_copy (KernelTimer * timer, const CcComponent * in,
    const CcComponent * out)
{
  const KernelLaunch k = { in, out, NULL, CC_STRATEGY_TILED_HALO,
    CC_LAUNCH_DEFAULT, TRUE, NULL, 0, -1
  };
  return time_launches (timer, &k);
}

gboolean
device_pair_new (size_t row_bytes, int rows, DevicePair * pair)
{
  unsigned char *host = random_plane (row_bytes * rows);
  size_t out_pitch;

  memset (pair, 0, sizeof (*pair));
  if (cudaMallocPitch (&pair->in, &pair->pitch, row_bytes, rows) !=
      cudaSuccess || cudaMallocPitch (&pair->out, &out_pitch, row_bytes,
          rows) != cudaSuccess || out_pitch != pair->pitch
      || cudaMemcpy2D (pair->in, pair->pitch, host, row_bytes, row_bytes,
          rows, cudaMemcpyHostToDevice) != cudaSuccess) {
    fprintf (stderr, "cannot make two %zux%d device planes\n", row_bytes,
        rows);
    cudaFree (pair->in);
    cudaFree (pair->out);
    free (host);
    return FALSE;
  }
  free (host);
  return TRUE;
}

void
device_pair_free (DevicePair * pair)
{
  cudaFree (pair->in);
  cudaFree (pair->out);
}

const char *
family_of (const CcComponent * in, const CcComponent * out,
    const CcFilter * filter, CcStrategy strategy)
{
  CcFamily family;
  return cc_cuda_select_family (in, out, filter, strategy, &family) ==
      cudaSuccess ? cc_family_name (family) : "-";
}

double
frame_filter_ms (const GstVideoInfo * info, const CcFilter * filter,
    void *workspace, size_t workspace_bytes, GString * families)
{
  KernelTimer timer;
  double sum = 0.0;

  kernel_timer_init (&timer);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info) && sum >= 0; p++) {
    const int w = GST_VIDEO_INFO_COMP_WIDTH (info, p);
    const int h = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    CcStrategy pick = CC_STRATEGY_AUTO;
    float tuned[CC_N_FAMILIES];
    DevicePair pair;

    if (!device_pair_new (w, h, &pair)) {
      sum = -1.0;
      break;
    }
    CcComponent in = { pair.in, pair.pitch, w, h, 1, CC_SAMPLE_U8, 0, 0 };
    CcComponent out = { pair.out, pair.pitch, w, h, 1, CC_SAMPLE_U8, 0, 0 };
    const double ms = cc_cuda_fastest_strategy (&in, &out, filter,
        CC_BORDER_CLAMP, workspace, workspace_bytes, 0, &pick,
        tuned) == cudaSuccess ? time_kernel_workspace (&timer, &in, &out,
        filter, pick, workspace, workspace_bytes) : -1.0;
    if (families)
      g_string_append_printf (families, "%s%dx%d %s %.4f", p ? ", " : "", w,
          h, family_of (&in, &out, filter, pick), ms);
    sum = ms < 0 ? -1.0 : sum + ms;
    device_pair_free (&pair);
  }
  kernel_timer_clear (&timer);
  return sum;
}

double
frame_kernel_ms (const GstVideoInfo * info)
{
  CcFilter gaussian;

  gaussian_filter (2, &gaussian);
  return frame_filter_ms (info, &gaussian, NULL, 0, NULL);
}

/* The end-to-end floor: one frame's host-to-device and device-to-host copies
 * from pinned memory, issued at once on two streams; median of 31,
 * milliseconds, after FLOOR_WARMUP_MS of the same copies. With 5 pairs of
 * warm-up copies, on a GPU that had been idle (its clocks and link at
 * rest) the first 2160p floor of a process came out at 0.55 ms a frame
 * against 0.26 ms a minute later. */
#define FLOOR_WARMUP_MS 250
#define FLOOR_RUNS 31

typedef struct {
  void *h_in, *h_out, *d_in, *d_out;
  size_t bytes;
  cudaStream_t up, down;
  cudaEvent_t start, up_done, stop;
} FloorCopies;

/* One frame's two copies at once, milliseconds */
static float
floor_copies_ms (const FloorCopies * c)
{
  float ms = 0.0f;
  cudaEventRecord (c->start, c->up);
  cudaStreamWaitEvent (c->down, c->start, 0);
  cudaMemcpyAsync (c->d_in, c->h_in, c->bytes, cudaMemcpyHostToDevice, c->up);
  cudaMemcpyAsync (c->h_out, c->d_out, c->bytes, cudaMemcpyDeviceToHost,
      c->down);
  cudaEventRecord (c->up_done, c->up);
  cudaStreamWaitEvent (c->down, c->up_done, 0);
  cudaEventRecord (c->stop, c->down);
  cudaEventSynchronize (c->stop);
  cudaEventElapsedTime (&ms, c->start, c->stop);
  return ms;
}

double
transfer_floor_ms (size_t bytes)
{
  FloorCopies c = { .bytes = bytes };
  double t[FLOOR_RUNS], floor_ms = -1.0;
  if (cudaHostAlloc (&c.h_in, bytes, cudaHostAllocDefault) == cudaSuccess
      && cudaHostAlloc (&c.h_out, bytes, cudaHostAllocDefault) == cudaSuccess
      && cudaMalloc (&c.d_in, bytes) == cudaSuccess
      && cudaMalloc (&c.d_out, bytes) == cudaSuccess) {
    cudaStreamCreateWithFlags (&c.up, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags (&c.down, cudaStreamNonBlocking);
    cudaEventCreate (&c.start);
    cudaEventCreate (&c.up_done);
    cudaEventCreate (&c.stop);
    const gint64 warm_until = g_get_monotonic_time () +
        FLOOR_WARMUP_MS * 1000;
    for (int n = 0; n < 5 || g_get_monotonic_time () < warm_until; n++)
      floor_copies_ms (&c);
    for (int i = 0; i < FLOOR_RUNS; i++)
      t[i] = floor_copies_ms (&c);
    floor_ms = median (t, FLOOR_RUNS);
    cudaEventDestroy (c.start);
    cudaEventDestroy (c.up_done);
    cudaEventDestroy (c.stop);
    cudaStreamDestroy (c.up);
    cudaStreamDestroy (c.down);
  }
  /* NULL where an allocation failed or was not reached */
  cudaFreeHost (c.h_in);
  cudaFreeHost (c.h_out);
  cudaFree (c.d_in);
  cudaFree (c.d_out);
  return floor_ms;
}

/* The transfer floor of several devices at once: on each, one thread
 * copies frames host-to-device on one stream and device-to-host on
 * another, frame after frame with MULTI_FLOOR_DEPTH frames queued, so that
 * both directions stream without the host's gaps between frames; a frame
 * is done when both its copies are. The threads make their buffers (the
 * device current first, then the pinned host memory, so that the thread
 * that uses the memory places it), copy for MULTI_FLOOR_WARMUP_MS, then
 * start together and copy MULTI_FLOOR_BYTES each way (bench-common.h).
 * Counted over the window when all of them copy (the last to see its
 * first frame done to the first to see its last), by the host's clock, as
 * the streams tables count pipelines: the devices' events share no
 * clock. */
typedef struct {
  int device;
  size_t bytes;
  int frames;
  int ring;                     /* host frames each way, used in turn */
  StartGate *ready, *go;
  gint64 *done;                 /* frames: when each was seen done */
  gboolean ok;
  cudaError_t error;            /* the first call that failed */
  void *h_in, *h_out, *d_in, *d_out;
  cudaStream_t up, down;
  cudaEvent_t up_done[MULTI_FLOOR_DEPTH], down_done[MULTI_FLOOR_DEPTH];
} DeviceCopies;

/* Whether a call went well; the first that did not is kept for the
 * message */
static gboolean
copies_ok (DeviceCopies * c, cudaError_t error)
{
  if (error != cudaSuccess && c->error == cudaSuccess)
    c->error = error;
  return error == cudaSuccess;
}

static gboolean
device_copies_queue (DeviceCopies * c, int slot, int frame)
{
  const size_t at = (size_t) (frame % c->ring) * c->bytes;

  return copies_ok (c, cudaMemcpyAsync (c->d_in, (char *) c->h_in + at,
          c->bytes, cudaMemcpyHostToDevice, c->up))
      && copies_ok (c, cudaEventRecord (c->up_done[slot], c->up))
      && copies_ok (c, cudaMemcpyAsync ((char *) c->h_out + at, c->d_out,
          c->bytes,
          cudaMemcpyDeviceToHost, c->down))
      && copies_ok (c, cudaEventRecord (c->down_done[slot], c->down));
}

static gboolean
device_copies_wait (DeviceCopies * c, int slot)
{
  return copies_ok (c, cudaEventSynchronize (c->up_done[slot]))
      && copies_ok (c, cudaEventSynchronize (c->down_done[slot]));
}

/* Copies frames frames (0: until the monotonic time until), each queued
 * once the frame MULTI_FLOOR_DEPTH before it is done; where done is given,
 * when each was seen done. The host waits on the oldest frame nearly all
 * the time, so it sees each end as it happens. */
static gboolean
device_copies_run (DeviceCopies * c, int frames, gint64 until, gint64 * done)
{
  int queued = 0, finished = 0;
  gboolean ok = TRUE;

  while (ok && (frames > 0 ? queued < frames :
          g_get_monotonic_time () < until)) {
    if (queued - finished == MULTI_FLOOR_DEPTH) {
      ok = device_copies_wait (c, finished % MULTI_FLOOR_DEPTH);
      if (ok && done)
        done[finished] = g_get_monotonic_time ();
      finished++;
    }
    ok = ok && device_copies_queue (c, queued % MULTI_FLOOR_DEPTH, queued);
    queued++;
  }
  for (; ok && finished < queued; finished++) {
    ok = device_copies_wait (c, finished % MULTI_FLOOR_DEPTH);
    if (ok && done)
      done[finished] = g_get_monotonic_time ();
  }
  return ok;
}

static gpointer
device_copies_thread (gpointer data)
{
  DeviceCopies *c = data;
  gboolean set_up, ok;

  set_up = copies_ok (c, cudaSetDevice (c->device))
      && copies_ok (c, cudaHostAlloc (&c->h_in, c->bytes * c->ring,
          cudaHostAllocDefault))
      && copies_ok (c, cudaHostAlloc (&c->h_out, c->bytes * c->ring,
          cudaHostAllocDefault))
      && copies_ok (c, cudaMalloc (&c->d_in, c->bytes))
      && copies_ok (c, cudaMalloc (&c->d_out, c->bytes))
      && copies_ok (c, cudaStreamCreateWithFlags (&c->up,
          cudaStreamNonBlocking))
      && copies_ok (c, cudaStreamCreateWithFlags (&c->down,
          cudaStreamNonBlocking));
  for (int k = 0; set_up && k < MULTI_FLOOR_DEPTH; k++)
    set_up = copies_ok (c, cudaEventCreateWithFlags (&c->up_done[k],
            cudaEventDisableTiming))
        && copies_ok (c, cudaEventCreateWithFlags (&c->down_done[k],
            cudaEventDisableTiming));
  if (set_up) {
    memset (c->h_in, 0x5a, c->bytes * c->ring);
    memset (c->h_out, 0, c->bytes * c->ring);
  }
  /* a thread that failed still passes the gates, so that the others do
   * not wait a minute for it */
  start_gate_pass (c->ready);
  ok = set_up && device_copies_run (c, 0, g_get_monotonic_time () +
      MULTI_FLOOR_WARMUP_MS * 1000, NULL);
  start_gate_pass (c->go);
  ok = ok && device_copies_run (c, c->frames, 0, c->done);
  if (!ok)
    fprintf (stderr, "multi-device floor: device %d: %s %s\n", c->device,
        set_up ? "copies failed:" : "cannot set up:",
        cudaGetErrorString (c->error));
  c->ok = ok;

  /* NULL where a step failed or was not reached */
  for (int k = 0; k < MULTI_FLOOR_DEPTH; k++) {
    if (c->up_done[k])
      cudaEventDestroy (c->up_done[k]);
    if (c->down_done[k])
      cudaEventDestroy (c->down_done[k]);
  }
  if (c->up)
    cudaStreamDestroy (c->up);
  if (c->down)
    cudaStreamDestroy (c->down);
  cudaFreeHost (c->h_in);
  cudaFreeHost (c->h_out);
  cudaFree (c->d_in);
  cudaFree (c->d_out);
  return NULL;
}

int
multi_floor_ring (size_t bytes)
{
  return bytes > 0 ? (int) ceil (MULTI_FLOOR_RING_BYTES / (double) bytes) : 1;
}

double
multi_device_floor_fps (int n, size_t bytes, int ring, double *per_device)
{
  DeviceCopies *c;
  GThread **threads;
  StartGate ready, go;
  gint64 start = 0, end = G_MAXINT64;
  gboolean ok = TRUE;
  double sum = 0.0;

  for (int d = 0; per_device && d < n; d++)
    per_device[d] = -1.0;
  if (n <= 0 || bytes == 0 || ring < 1)
    return -1.0;
  const int frames = (int) CLAMP (MULTI_FLOOR_BYTES / (double) bytes, 100.0,
      100000.0);
  c = g_new0 (DeviceCopies, n);
  threads = g_new0 (GThread *, n);
  start_gate_init (&ready, n);
  start_gate_init (&go, n);
  for (int d = 0; d < n; d++) {
    c[d].device = d;
    c[d].bytes = bytes;
    c[d].frames = frames;
    c[d].ring = ring;
    c[d].ready = &ready;
    c[d].go = &go;
    c[d].done = g_new0 (gint64, frames);
    threads[d] = g_thread_new ("device-floor", device_copies_thread, &c[d]);
  }
  for (int d = 0; d < n; d++) {
    g_thread_join (threads[d]);
    ok = ok && c[d].ok;
    if (c[d].ok) {
      start = MAX (start, c[d].done[0]);
      end = MIN (end, c[d].done[frames - 1]);
    }
  }
  for (int d = 0; ok && end > start && d < n; d++) {
    long long in_window = 0;
    for (int f = 0; f < frames; f++)
      in_window += c[d].done[f] > start && c[d].done[f] <= end;
    if (per_device)
      per_device[d] = in_window / ((end - start) / 1e6);
    sum += in_window / ((end - start) / 1e6);
  }
  for (int d = 0; d < n; d++)
    g_free (c[d].done);
  g_free (c);
  g_free (threads);
  start_gate_clear (&ready);
  start_gate_clear (&go);
  return ok && end > start ? sum : -1.0;
}

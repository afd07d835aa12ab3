/* cudaconv tests: frame graphs (cudaconv-cuda.h), a frame's launches
 * recorded once and replayed.
 *
 * The frame is three planes as I420 of 304x167 has them, an odd height
 * and rows on 16 bytes, so that the 2D strips, which are launched to start
 * while the kernel before them ends, take the luma: the luma filtered with
 * 2D taps, the first chroma plane filled, the second blurred with a wide
 * box (two launches and a workspace). Each
 * replayed frame, with other planes and other taps, must equal byte for
 * byte the same frame launched one by one (whose kernels the
 * test-kernels-cuda-<topic> programs check against the reference),
 * padding included; a replay whose
 * launches are not the recorded ones must run nothing and say so; frames
 * replayed back to back without a wait must each come out whole. Exits 77
 * without a CUDA device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "cudaconv-cuda.h"

#define WIDTH 304
#define HEIGHT 167
#define N_PLANES 3
#define POISON 0xA5
/* frames of input and output the tests cycle through */
#define N_FRAMES 4

static int n_cases, n_failed;
/* a dependent (programmatic) launch went into a graph */
static int dependent_recorded;

static void
expect (int ok, const char *what)
{
  n_cases++;
  if (!ok) {
    n_failed++;
    printf ("FAIL %s\n", what);
  }
}

/* A frame's planes in device memory, each pitched past its row */
typedef struct {
  unsigned char *plane[N_PLANES];
  size_t pitch[N_PLANES], bytes[N_PLANES];
  int width[N_PLANES], height[N_PLANES];
} Frame;

static cudaError_t
frame_alloc (Frame * f)
{
  cudaError_t e = cudaSuccess;
  memset (f, 0, sizeof (*f));
  for (int p = 0; p < N_PLANES && e == cudaSuccess; p++) {
    f->width[p] = p ? (WIDTH + 1) / 2 : WIDTH;
    f->height[p] = p ? (HEIGHT + 1) / 2 : HEIGHT;
    /* padding past every row, which nothing may write */
    f->pitch[p] = ((size_t) f->width[p] + 19 + 15) / 16 * 16;
    f->bytes[p] = f->pitch[p] * f->height[p];
    e = cudaMalloc ((void **) &f->plane[p], f->bytes[p]);
  }
  return e;
}

static void
frame_free (Frame * f)
{
  for (int p = 0; p < N_PLANES; p++)
    cudaFree (f->plane[p]);
}

static cudaError_t
frame_fill (Frame * f, RefRng * rng, int poison)
{
  cudaError_t e = cudaSuccess;
  for (int p = 0; p < N_PLANES && e == cudaSuccess; p++) {
    unsigned char *host = malloc (f->bytes[p]);
    if (!host)
      return cudaErrorMemoryAllocation;
    for (size_t k = 0; k < f->bytes[p]; k++)
      host[k] = poison ? POISON : (unsigned char) ref_rng_u32 (rng);
    e = cudaMemcpy (f->plane[p], host, f->bytes[p], cudaMemcpyHostToDevice);
    free (host);
  }
  /* a copy from pageable memory may return before it lands, and the
   * kernels run on a stream that does not wait for it */
  return e == cudaSuccess ? cudaDeviceSynchronize () : e;
}

/* Whether two frames hold the same bytes, padding included */
static int
frames_equal (const Frame * a, const Frame * b)
{
  int same = 1;
  for (int p = 0; p < N_PLANES && same; p++) {
    unsigned char *x = malloc (a->bytes[p]), *y = malloc (b->bytes[p]);
    same = x && y
        && cudaMemcpy (x, a->plane[p], a->bytes[p],
        cudaMemcpyDeviceToHost) == cudaSuccess
        && cudaMemcpy (y, b->plane[p], b->bytes[p],
        cudaMemcpyDeviceToHost) == cudaSuccess
        && memcmp (x, y, a->bytes[p]) == 0;
    free (x);
    free (y);
  }
  return same;
}

/* Whether every byte of the frame is still POISON */
static int
frame_poisoned (const Frame * f)
{
  int poisoned = 1;
  for (int p = 0; p < N_PLANES && poisoned; p++) {
    unsigned char *x = malloc (f->bytes[p]);
    poisoned = x && cudaMemcpy (x, f->plane[p], f->bytes[p],
        cudaMemcpyDeviceToHost) == cudaSuccess;
    for (size_t k = 0; poisoned && k < f->bytes[p]; k++)
      poisoned = x[k] == POISON;
    free (x);
  }
  return poisoned;
}

static CcComponent
plane_of (const Frame * f, int p)
{
  CcComponent c = { f->plane[p], f->pitch[p], f->width[p], f->height[p], 1,
    CC_SAMPLE_U8, 0, 0
  };
  return c;
}

/* Random 2D taps of the radius, summing to about 1 */
static void
random_taps (RefRng * rng, int radius, CcFilter * f)
{
  const int side = 2 * radius + 1;
  double sum = 0.0;
  memset (f, 0, sizeof (*f));
  f->radius = radius;
  f->shape = CC_SHAPE_TAPS;
  f->response = CC_RESPONSE_LINEAR;
  for (int k = 0; k < side * side; k++)
    sum += f->taps[k] = (float) (ref_rng_uniform (rng) + 0.1);
  for (int k = 0; k < side * side; k++)
    f->taps[k] = (float) (f->taps[k] / sum);
}

/* What one frame asks of the kernels */
typedef struct {
  const CcFilter *luma;
  CcStrategy strategy;
  unsigned fill;
  const CcFilter *box;
  int planes;                   /* how many planes it launches for */
} FrameWork;

/* The frame's launches on stream, in to out; *luma the family that took
 * the luma */
static cudaError_t
launch_frame (const FrameWork * w, const Frame * in, const Frame * out,
    void *workspace, size_t workspace_bytes, cudaStream_t stream,
    CcFamily * luma)
{
  CcComponent s[N_PLANES], d[N_PLANES];
  CcFamily ran = CC_N_FAMILIES;
  cudaError_t e;

  for (int p = 0; p < N_PLANES; p++) {
    s[p] = plane_of (in, p);
    d[p] = plane_of (out, p);
  }
  e = cc_cuda_convolve (&s[0], &d[0], w->luma, CC_BORDER_MIRROR, w->strategy,
      NULL, 0, stream, CC_LAUNCH_SRC_READY, &ran);
  if (luma)
    *luma = ran;
  if (e == cudaSuccess && w->planes > 1)
    e = cc_cuda_fill (&d[1], w->fill, stream);
  if (e == cudaSuccess && w->planes > 2)
    e = cc_cuda_convolve (&s[2], &d[2], w->box, CC_BORDER_CLAMP,
        w->strategy, workspace, workspace_bytes, stream,
        CC_LAUNCH_SRC_READY, NULL);
  return e;
}

typedef struct {
  cudaStream_t stream;
  void *workspace;
  size_t workspace_bytes;
  Frame in[N_FRAMES], out[N_FRAMES], want;
  CcFrameGraph *graph;
} Bench;

/* w on frame in[i] into out[o] through the graph (bound, or recorded
 * where record), against the same launched one by one into want */
static void
check_frame (Bench * b, const FrameWork * w, int i, int o, int record,
    const char *what)
{
  char name[200];
  CcFamily luma = CC_N_FAMILIES;
  cudaError_t e = frame_fill (&b->out[o], NULL, 1);

  if (e == cudaSuccess)
    e = frame_fill (&b->want, NULL, 1);
  if (e == cudaSuccess)
    e = launch_frame (w, &b->in[i], &b->want, b->workspace,
        b->workspace_bytes, b->stream, NULL);
  if (e == cudaSuccess)
    e = record ? cc_frame_graph_record (b->graph, b->stream) :
        cc_frame_graph_bind (b->graph, b->stream);
  if (e == cudaSuccess) {
    e = launch_frame (w, &b->in[i], &b->out[o], b->workspace,
        b->workspace_bytes, b->stream, &luma);
    if (e != cudaSuccess)
      cc_frame_graph_abandon (b->graph);
  }
  /* the strips join the kernel before them (dependent-launch.cuh) */
  if (record && (luma == CC_FAMILY_2D_STRIP_TILED_HALO
          || luma == CC_FAMILY_2D_STRIP_CACHE_HALO))
    dependent_recorded = 1;
  if (e == cudaSuccess)
    e = cc_frame_graph_launch (b->graph);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize (b->stream);
  snprintf (name, sizeof (name), "%s: %s", what, cudaGetErrorString (e));
  expect (e == cudaSuccess && frames_equal (&b->out[o], &b->want), name);
  snprintf (name, sizeof (name), "%s: the graph is ready after it", what);
  expect (cc_frame_graph_ready (b->graph), name);
}

/* A replay of w, whose launches differ from the recording: nothing may
 * run, and the graph is empty after it */
static void
check_stale (Bench * b, const FrameWork * w, const char *what)
{
  char name[200];
  cudaError_t e = frame_fill (&b->out[0], NULL, 1);

  if (e == cudaSuccess)
    e = cc_frame_graph_bind (b->graph, b->stream);
  if (e == cudaSuccess) {
    e = launch_frame (w, &b->in[0], &b->out[0], b->workspace,
        b->workspace_bytes, b->stream, NULL);
    if (e == cudaSuccess)
      e = cc_frame_graph_launch (b->graph);
    else
      cc_frame_graph_abandon (b->graph);
  }
  snprintf (name, sizeof (name), "%s: launch says %s", what,
      cudaGetErrorString (e));
  expect (e == cudaErrorGraphExecUpdateFailure, name);
  snprintf (name, sizeof (name), "%s: nothing ran, the graph is empty",
      what);
  expect (cudaStreamSynchronize (b->stream) == cudaSuccess
      && frame_poisoned (&b->out[0]) && !cc_frame_graph_ready (b->graph),
      name);
}

/* Rounds of N_FRAMES frames replayed back to back, each from another input
 * and taps into another output, then waited for once: each must be the
 * frame launched one by one. The first two rounds' frames are each new;
 * rounds 2 and 3 make eight frames more, which rounds 4 and 5 repeat, so
 * that the graph's instantiations are made, reused, and set again once
 * the least recent gives way. */
static void
check_back_to_back (Bench * b, FrameWork * w, const CcFilter * taps)
{
  Frame want[N_FRAMES];
  cudaError_t e = cudaSuccess;
  int made = 0;

  for (; made < N_FRAMES && e == cudaSuccess; made++)
    e = frame_alloc (&want[made]);
  for (int round = 0; round < 6 && e == cudaSuccess; round++) {
    const int seen = round < 2 ? 7 + round : round % 2;
    for (int k = 0; k < N_FRAMES && e == cudaSuccess; k++) {
      w->luma = &taps[(k + seen) % 2];
      w->fill = (unsigned) (40 * k + seen);
      e = frame_fill (&b->out[k], NULL, 1);
      if (e == cudaSuccess)
        e = frame_fill (&want[k], NULL, 1);
      if (e == cudaSuccess)
        e = launch_frame (w, &b->in[(k + seen) % N_FRAMES], &want[k],
            b->workspace, b->workspace_bytes, b->stream, NULL);
    }
    for (int k = 0; k < N_FRAMES && e == cudaSuccess; k++) {
      w->luma = &taps[(k + seen) % 2];
      w->fill = (unsigned) (40 * k + seen);
      e = cc_frame_graph_bind (b->graph, b->stream);
      if (e == cudaSuccess)
        e = launch_frame (w, &b->in[(k + seen) % N_FRAMES], &b->out[k],
            b->workspace, b->workspace_bytes, b->stream, NULL);
      if (e == cudaSuccess)
        e = cc_frame_graph_launch (b->graph);
    }
    if (e == cudaSuccess)
      e = cudaStreamSynchronize (b->stream);
    for (int k = 0; k < N_FRAMES && e == cudaSuccess; k++) {
      char name[120];
      snprintf (name, sizeof (name), "back to back, round %d, frame %d",
          round, k);
      expect (frames_equal (&b->out[k], &want[k]), name);
    }
  }
  expect (e == cudaSuccess, "back to back: no CUDA error");
  for (int k = 0; k < made; k++)
    frame_free (&want[k]);
}

/* Calls out of order are refused, and leave no recording behind; a
 * launch on another stream while a graph is bound runs at once; an
 * abandoned replay leaves the graph empty */
static void
check_misuse (Bench * b, const CcFilter * taps)
{
  CcFrameGraph *other = NULL;
  FrameWork w = { taps, CC_STRATEGY_TILED_HALO, 9, NULL, 2 };
  cudaStream_t elsewhere = NULL;
  CcComponent chroma = plane_of (&b->want, 1);

  expect (cc_frame_graph_new (&other) == cudaSuccess, "a second graph");
  expect (cc_frame_graph_bind (other, b->stream) == cudaErrorInvalidValue,
      "an empty graph is not bound");
  expect (cc_frame_graph_launch (other) == cudaErrorInvalidValue,
      "a graph neither recording nor bound is not launched");
  expect (cc_frame_graph_record (other, NULL) == cudaErrorInvalidValue,
      "the legacy stream is not recorded");
  expect (cc_frame_graph_record (other, b->stream) == cudaSuccess,
      "a recording starts");
  expect (cc_frame_graph_record (b->graph, b->stream) ==
      cudaErrorInvalidValue, "a second recording on the thread is refused");
  cc_frame_graph_abandon (other);
  expect (!cc_frame_graph_ready (other), "an abandoned recording is empty");
  expect (cudaStreamQuery (b->stream) == cudaSuccess,
      "the stream captures nothing after the recording is abandoned");

  expect (cudaStreamCreateWithFlags (&elsewhere, cudaStreamNonBlocking)
      == cudaSuccess && cc_frame_graph_record (other, b->stream) == cudaSuccess
      && launch_frame (&w, &b->in[0], &b->out[0], NULL, 0, b->stream, NULL)
      == cudaSuccess && cc_frame_graph_launch (other) == cudaSuccess
      && cc_frame_graph_bind (other, b->stream) == cudaSuccess
      && frame_fill (&b->want, NULL, 1) == cudaSuccess,
      "a graph recorded and bound again");
  /* a launch on another stream while other is bound on b->stream */
  expect (cc_cuda_fill (&chroma, 33, elsewhere) == cudaSuccess
      && cudaStreamSynchronize (elsewhere) == cudaSuccess,
      "a fill on another stream while a graph is bound");
  {
    unsigned char row[N_PLANES];
    expect (cudaMemcpy (row, chroma.data, 2, cudaMemcpyDeviceToHost)
        == cudaSuccess && row[0] == 33 && row[1] == 33,
        "the fill on another stream ran at once");
  }
  cc_frame_graph_abandon (other);
  expect (!cc_frame_graph_ready (other), "an abandoned replay is empty");
  if (elsewhere)
    cudaStreamDestroy (elsewhere);
  cc_frame_graph_free (other);
  cc_frame_graph_free (NULL);
}

int
main (void)
{
  RefRng rng;
  Bench b;
  CcFilter taps[3], box;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);

  if (e != cudaSuccess || count == 0) {
    printf ("SKIP: no usable CUDA device (%s)\n",
        e != cudaSuccess ? cudaGetErrorString (e) : "none found");
    return 77;
  }
  ref_rng_seed (&rng, ref_test_seed ());
  memset (&b, 0, sizeof (b));
  random_taps (&rng, 2, &taps[0]);
  random_taps (&rng, 2, &taps[1]);
  random_taps (&rng, 3, &taps[2]);
  memset (&box, 0, sizeof (box));
  box.shape = CC_SHAPE_BOX;
  box.radius = 20;
  box.response = CC_RESPONSE_LINEAR;
  box.scale = 1.0 / (41.0 * 41.0);

  e = cudaStreamCreateWithFlags (&b.stream, cudaStreamNonBlocking);
  for (int k = 0; k < N_FRAMES && e == cudaSuccess; k++) {
    e = frame_alloc (&b.in[k]);
    if (e == cudaSuccess)
      e = frame_fill (&b.in[k], &rng, 0);
    if (e == cudaSuccess)
      e = frame_alloc (&b.out[k]);
  }
  if (e == cudaSuccess)
    e = frame_alloc (&b.want);
  if (e == cudaSuccess) {
    CcComponent chroma = plane_of (&b.in[0], 2);
    b.workspace_bytes = cc_cuda_workspace_bytes (&chroma, &box);
    e = cudaMalloc (&b.workspace, b.workspace_bytes);
  }
  if (e == cudaSuccess)
    e = cc_frame_graph_new (&b.graph);
  if (e != cudaSuccess) {
    printf ("FAIL setting up: %s\n", cudaGetErrorString (e));
    return 1;
  }

  for (int s = 0; s < 2; s++) {
    static const CcStrategy strategies[] = { CC_STRATEGY_TILED_HALO,
      CC_STRATEGY_CACHE_HALO
    };
    FrameWork w = { &taps[0], strategies[s], 17, &box, 3 };
    char what[120];

    snprintf (what, sizeof (what), "strategy %d: recorded", (int) w.strategy);
    check_frame (&b, &w, 0, 0, 1, what);
    snprintf (what, sizeof (what), "strategy %d: replayed on other planes",
        (int) w.strategy);
    check_frame (&b, &w, 1, 2, 0, what);
    w.luma = &taps[1];
    w.fill = 200;
    snprintf (what, sizeof (what), "strategy %d: replayed with other taps "
        "and fill", (int) w.strategy);
    check_frame (&b, &w, 2, 1, 0, what);
    if (s == 0)
      check_back_to_back (&b, &w, taps);
    w.luma = &taps[2];
    snprintf (what, sizeof (what), "strategy %d: another radius",
        (int) w.strategy);
    check_stale (&b, &w, what);
    /* recorded again, then a replay that launches fewer planes */
    w.luma = &taps[0];
    check_frame (&b, &w, 0, 0, 1, "recorded again");
    w.planes = 2;
    check_stale (&b, &w, "a replay with a launch fewer");
    w.planes = 3;
    check_frame (&b, &w, 3, 3, 1, "recorded after a stale replay");
    w.box = &taps[0];
    check_stale (&b, &w, "a replay with another kernel in a plane");
  }
  expect (dependent_recorded, "a dependent launch (a 2D strip) went into a "
      "recording");
  check_misuse (&b, &taps[0]);

  cc_frame_graph_free (b.graph);
  for (int k = 0; k < N_FRAMES; k++) {
    frame_free (&b.in[k]);
    frame_free (&b.out[k]);
  }
  frame_free (&b.want);
  cudaFree (b.workspace);
  cudaStreamDestroy (b.stream);
  printf ("%d passed, %d failed\n", n_cases - n_failed, n_failed);
  return n_failed ? 1 : 0;
}

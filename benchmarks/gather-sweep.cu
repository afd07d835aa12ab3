/* cudaconv-gather-sweep: the ways the windows of a host frame's regions
 * can cross the bus to the GPU, and their rects back, timed on their own:
 * what bounds region=inside on frames in cudaconv's pinned pool, where
 * only the regions travel (the regions mapped path of
 * docs/architecture.md). The frame is 1920x1080 I420 in pinned memory, its
 * regions boxes grown by a filter's reach (the windows: luma, and each
 * chroma plane at half the box), as the back end gathers them one under
 * the other into device scratch; the writes are the boxes themselves.
 *
 *   cudaconv-gather-sweep [BOXES [REACH]]
 *
 * BOXES as region-boxes takes them ("x,y,w,h;..."; by default the four
 * 288x180 boxes of cudaconv-bench --regions), REACH in samples (31). Each
 * row: the GPU time from the first copy's start to the last one's end
 * (CUDA events), and the host's time queuing the copies, medians of RUNS
 * frames, each frame another of RING pinned frames (so that the host's
 * caches do not serve the reads), after WARMUP. Every variant's scratch
 * is checked byte for byte against the frame. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "cudaconv-cuda.h"

#define RUNS 41
#define WARMUP 5
#define RING 16
#define WIDTH 1920
#define HEIGHT 1080

/* the boxes of cudaconv-bench --regions (benchmarks/bench-crowds.h) */
static const char *const DEFAULT_BOXES =
    "100,100,288,180;1532,100,288,180;100,800,288,180;1532,800,288,180";

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,         \
          cudaGetErrorString (e_));                                          \
      exit (1);                                                              \
    }                                                                        \
  } while (0)

struct Rect {
  int x, y, w, h;
};

/* One plane of the frame */
struct Plane {
  size_t offset, pitch;
  int width, height;
};

static const Plane PLANES[3] = {
  {0, WIDTH, WIDTH, HEIGHT},
  {(size_t) WIDTH * HEIGHT, WIDTH / 2, WIDTH / 2, HEIGHT / 2},
  {(size_t) WIDTH * HEIGHT * 5 / 4, WIDTH / 2, WIDTH / 2, HEIGHT / 2},
};
static const size_t FRAME_BYTES = (size_t) WIDTH * HEIGHT * 3 / 2;

/* A window or a rect of one plane and where it lies in the scratch */
struct Piece {
  int plane;
  Rect r;
  size_t at; /* its first byte in the scratch, rows of pitch bytes */
};

struct Layout {
  std::vector<Piece> windows, writes;
  size_t pitch, bytes; /* the scratch's */
  size_t window_bytes, write_bytes;
};

static Rect
clip (Rect r, const Plane &p)
{
  const int x0 = std::max (r.x, 0), y0 = std::max (r.y, 0);
  const int x1 = std::min (r.x + r.w, p.width);
  const int y1 = std::min (r.y + r.h, p.height);
  return Rect { x0, y0, std::max (x1 - x0, 0), std::max (y1 - y0, 0) };
}

/* The windows stacked one under the other, then the writes, each in its
 * own rows of the scratch (the writes as the filtered windows would hold
 * them: at their place in their window) */
static Layout
lay_out (const std::vector<Rect> &boxes, int reach)
{
  Layout l = {};
  int widest = 0, rows = 0;
  for (int p = 0; p < 3; p++)
    for (const Rect &b : boxes) {
      const int s = p ? 2 : 1;
      const Rect box = { b.x / s, b.y / s, (b.x + b.w + s - 1) / s - b.x / s,
        (b.y + b.h + s - 1) / s - b.y / s };
      const Rect w = clip (Rect { box.x - reach, box.y - reach,
                               box.w + 2 * reach, box.h + 2 * reach },
          PLANES[p]);
      const Rect r = clip (box, PLANES[p]);
      if (w.w <= 0 || r.w <= 0 || w.h <= 0 || r.h <= 0)
        continue;
      l.windows.push_back (Piece { p, w, (size_t) rows });
      l.writes.push_back (Piece { p, r, (size_t) (rows + r.y - w.y) });
      widest = std::max (widest, w.w);
      rows += w.h;
      l.window_bytes += (size_t) w.w * w.h;
      l.write_bytes += (size_t) r.w * r.h;
    }
  l.pitch = (widest + 15) / 16 * 16;
  for (size_t k = 0; k < l.windows.size (); k++) {
    l.windows[k].at *= l.pitch;
    l.writes[k].at = l.writes[k].at * l.pitch
        + (size_t) (l.writes[k].r.x - l.windows[k].r.x);
  }
  l.bytes = l.pitch * rows;
  return l;
}

/* What one variant queues for one frame: on stream a (and b, which joins
 * a before the end), from host frame to device scratch or back */
struct Context {
  const Layout *l;
  unsigned char *frame;   /* pinned host frame */
  unsigned char *scratch; /* device */
  cudaStream_t a, b;
  cudaEvent_t joined;
  void *table;
  size_t table_bytes;
};

static CcComponent
plane_component (unsigned char *frame, int p)
{
  const Plane &pl = PLANES[p];
  return CcComponent { frame + pl.offset, pl.pitch, pl.width, pl.height, 1,
    CC_SAMPLE_U8, 0, 0 };
}

static CcComponent
scratch_component (const Context &c, size_t at)
{
  return CcComponent { c.scratch + at, c.l->pitch, (int) c.l->pitch,
    1 << 20, 1, CC_SAMPLE_U8, 0, 0 };
}

/* The gather's patches of the windows of which planes: -1 all, -2 luma
 * only, -3 chroma only */
static std::vector<CcPatch>
gather_patches (const Context &c, int which)
{
  std::vector<CcPatch> v;
  for (const Piece &w : c.l->windows) {
    if ((which == -2 && w.plane != 0) || (which == -3 && w.plane == 0))
      continue;
    CcPatch p;
    p.src = plane_component (c.frame, w.plane);
    p.x = w.r.x;
    p.y = w.r.y;
    p.width = w.r.w;
    p.height = w.r.h;
    p.dst = scratch_component (c, w.at);
    v.push_back (p);
  }
  return v;
}

static void
gather_sm (const Context &c, int which, cudaStream_t s)
{
  std::vector<CcPatch> v = gather_patches (c, which);
  if (v.empty ())
    return;
  CHECK (cc_cuda_copy_patch_table (v.data (), (int) v.size (),
      CC_BORDER_CLAMP, CC_PATCH_WIDE_SRC, c.table, c.table_bytes, s));
}

static void
gather_dma (const Context &c, int which, cudaStream_t s)
{
  for (const Piece &w : c.l->windows) {
    if ((which == -2 && w.plane != 0) || (which == -3 && w.plane == 0))
      continue;
    const Plane &pl = PLANES[w.plane];
    CHECK (cudaMemcpy2DAsync (c.scratch + w.at, c.l->pitch,
        c.frame + pl.offset + (size_t) w.r.y * pl.pitch + w.r.x, pl.pitch,
        w.r.w, w.r.h, cudaMemcpyHostToDevice, s));
  }
}

/* variants of the gather */
static void
v_sm_table (const Context &c)
{
  gather_sm (c, -1, c.a);
}

static void
v_sm_parameters (const Context &c)
{
  std::vector<CcPatch> v = gather_patches (c, -1);
  for (size_t k = 0; k < v.size (); k += CC_MAX_PATCHES)
    CHECK (cc_cuda_copy_patches (&v[k],
        (int) std::min (v.size () - k, (size_t) CC_MAX_PATCHES),
        CC_BORDER_CLAMP, CC_PATCH_WIDE_SRC, c.a));
}

static void
v_dma_2d (const Context &c)
{
  gather_dma (c, -1, c.a);
}

static cudaError_t batch_error = cudaSuccess;

/* one call for every window */
static void
v_dma_batch_3d (const Context &c)
{
  std::vector<cudaMemcpy3DBatchOp> ops;
  for (const Piece &w : c.l->windows) {
    const Plane &pl = PLANES[w.plane];
    cudaMemcpy3DBatchOp op = {};
    op.src.type = cudaMemcpyOperandTypePointer;
    op.src.op.ptr.ptr = c.frame + pl.offset + (size_t) w.r.y * pl.pitch
        + w.r.x;
    op.src.op.ptr.rowLength = pl.pitch;
    op.src.op.ptr.layerHeight = w.r.h;
    op.dst.type = cudaMemcpyOperandTypePointer;
    op.dst.op.ptr.ptr = c.scratch + w.at;
    op.dst.op.ptr.rowLength = c.l->pitch;
    op.dst.op.ptr.layerHeight = w.r.h;
    op.extent = make_cudaExtent (w.r.w, w.r.h, 1);
    op.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    ops.push_back (op);
  }
  /* the driver may not have it: the row says so */
  batch_error = cudaMemcpy3DBatchAsync (ops.size (), ops.data (), 0, c.a);
}

/* the windows of dma by DMA on b while the SMs gather those of sm on a,
 * a waiting for b at the end */
static void
dma_and_sm (const Context &c, int dma, int sm)
{
  gather_dma (c, dma, c.b);
  gather_sm (c, sm, c.a);
  CHECK (cudaEventRecord (c.joined, c.b));
  CHECK (cudaStreamWaitEvent (c.a, c.joined, 0));
}

static void
v_dma_luma_sm_chroma (const Context &c)
{
  dma_and_sm (c, -2, -3);
}

static void
v_dma_chroma_sm_luma (const Context &c)
{
  dma_and_sm (c, -3, -2);
}

/* every row the windows span, whole, one copy per run of rows a plane:
 * more bytes in fewer, larger copies (the check reads them in place) */
static std::vector<Rect>
row_bands (const Layout &l, int p)
{
  std::vector<Rect> bands;
  for (const Piece &w : l.windows)
    if (w.plane == p)
      bands.push_back (Rect { 0, w.r.y, PLANES[p].width, w.r.h });
  std::sort (bands.begin (), bands.end (),
      [] (const Rect &a, const Rect &b) { return a.y < b.y; });
  std::vector<Rect> merged;
  for (const Rect &b : bands)
    if (!merged.empty () && b.y <= merged.back ().y + merged.back ().h)
      merged.back ().h = std::max (merged.back ().h, b.y + b.h
          - merged.back ().y);
    else
      merged.push_back (b);
  return merged;
}

static void
v_dma_rows (const Context &c)
{
  for (int p = 0; p < 3; p++) {
    const Plane &pl = PLANES[p];
    for (const Rect &b : row_bands (*c.l, p))
      CHECK (cudaMemcpyAsync (c.scratch + pl.offset + (size_t) b.y * pl.pitch,
          c.frame + pl.offset + (size_t) b.y * pl.pitch, pl.pitch * b.h,
          cudaMemcpyHostToDevice, c.a));
  }
}

static void
v_dma_frame (const Context &c)
{
  CHECK (cudaMemcpyAsync (c.scratch, c.frame, FRAME_BYTES,
      cudaMemcpyHostToDevice, c.a));
}

/* variants of the scatter: the writes from the scratch into the frame */
static void
v_scatter_sm (const Context &c)
{
  std::vector<CcPatch> v;
  for (const Piece &w : c.l->writes) {
    CcPatch p;
    p.src = scratch_component (c, w.at);
    p.x = 0;
    p.y = 0;
    p.width = w.r.w;
    p.height = w.r.h;
    p.dst = plane_component (c.frame, w.plane);
    p.dst.data = (unsigned char *) p.dst.data + (size_t) w.r.y
        * PLANES[w.plane].pitch + w.r.x;
    v.push_back (p);
  }
  CHECK (cc_cuda_copy_patch_table (v.data (), (int) v.size (),
      CC_BORDER_CLAMP, CC_PATCH_WIDE_DST, c.table, c.table_bytes, c.a));
}

static void
v_scatter_dma (const Context &c)
{
  for (const Piece &w : c.l->writes) {
    const Plane &pl = PLANES[w.plane];
    CHECK (cudaMemcpy2DAsync (c.frame + pl.offset + (size_t) w.r.y * pl.pitch
            + w.r.x, pl.pitch, c.scratch + w.at, c.l->pitch, w.r.w, w.r.h,
        cudaMemcpyDeviceToHost, c.a));
  }
}

static void
v_scatter_dma_frame (const Context &c)
{
  CHECK (cudaMemcpyAsync (c.frame, c.scratch, FRAME_BYTES,
      cudaMemcpyDeviceToHost, c.a));
}

enum Check { CHECK_WINDOWS, CHECK_ROWS, CHECK_FRAME, CHECK_WRITES };

struct Variant {
  const char *name;
  void (*run) (const Context &);
  Check check;
  bool gather;
};

static double
median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

/* Whether the scratch (gathers) or the frame (scatters) holds what the
 * variant should have copied */
static bool
copied_right (const Variant &v, const Layout &l, const unsigned char *frame,
    const unsigned char *scratch_host, const unsigned char *written)
{
  if (v.check == CHECK_FRAME)
    return memcmp (scratch_host, frame, FRAME_BYTES) == 0;
  if (v.check == CHECK_ROWS) {
    for (int p = 0; p < 3; p++)
      for (const Rect &b : row_bands (l, p)) {
        const size_t at = PLANES[p].offset + (size_t) b.y * PLANES[p].pitch;
        if (memcmp (scratch_host + at, frame + at, PLANES[p].pitch * b.h))
          return false;
      }
    return true;
  }
  const std::vector<Piece> &pieces = v.check == CHECK_WINDOWS ? l.windows :
                                                               l.writes;
  for (const Piece &w : pieces) {
    const Plane &pl = PLANES[w.plane];
    for (int y = 0; y < w.r.h; y++) {
      const unsigned char *f = (v.check == CHECK_WRITES ? written : frame)
          + pl.offset + (size_t) (w.r.y + y) * pl.pitch + w.r.x;
      if (memcmp (scratch_host + w.at + (size_t) y * l.pitch, f, w.r.w))
        return false;
    }
  }
  return true;
}

int
main (int argc, char **argv)
{
  const char *text = argc > 1 ? argv[1] : DEFAULT_BOXES;
  const int reach = argc > 2 ? atoi (argv[2]) : 31;
  std::vector<Rect> boxes;
  for (const char *s = text; *s;) {
    Rect r;
    if (sscanf (s, "%d,%d,%d,%d", &r.x, &r.y, &r.w, &r.h) != 4 || r.w <= 0
        || r.h <= 0 || reach < 0) {
      fprintf (stderr, "usage: %s [x,y,w,h;... [REACH]]\n", argv[0]);
      return 2;
    }
    boxes.push_back (r);
    s = strchr (s, ';');
    if (!s)
      break;
    s++;
  }
  const Layout l = lay_out (boxes, reach);
  if (l.windows.empty ()) {
    fprintf (stderr, "no box lies in the %dx%d frame\n", WIDTH, HEIGHT);
    return 2;
  }

  int count = 0;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP: no usable CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  std::vector<unsigned char *> ring (RING);
  for (unsigned char *&f : ring) {
    CHECK (cudaHostAlloc ((void **) &f, FRAME_BYTES, cudaHostAllocDefault));
    for (size_t k = 0; k < FRAME_BYTES; k++)
      f[k] = (unsigned char) (rand () >> 7);
  }
  /* the scatters' source: the scratch as the filters would leave it */
  const size_t scratch_bytes = std::max (l.bytes, FRAME_BYTES);
  std::vector<unsigned char> filtered (scratch_bytes), back (scratch_bytes);
  for (unsigned char &b : filtered)
    b = (unsigned char) (rand () >> 7);
  Context c = {};
  c.l = &l;
  CHECK (cudaMalloc ((void **) &c.scratch, scratch_bytes));
  CHECK (cudaStreamCreateWithFlags (&c.a, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&c.b, cudaStreamNonBlocking));
  CHECK (cudaEventCreateWithFlags (&c.joined, cudaEventDisableTiming));
  c.table_bytes = 1 << 20;
  CHECK (cudaHostAlloc (&c.table, c.table_bytes, cudaHostAllocDefault));
  cudaEvent_t start, stop;
  int status = 0;
  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));

  static const Variant variants[] = {
    {"SM gather, one launch, patches from a table", v_sm_table,
      CHECK_WINDOWS, true},
    {"SM gather, one launch, patches as parameters", v_sm_parameters,
      CHECK_WINDOWS, true},
    {"DMA, one cudaMemcpy2DAsync a window", v_dma_2d, CHECK_WINDOWS, true},
    {"DMA, one cudaMemcpy3DBatchAsync for every window", v_dma_batch_3d,
      CHECK_WINDOWS, true},
    {"DMA luma windows while the SMs gather chroma", v_dma_luma_sm_chroma,
      CHECK_WINDOWS, true},
    {"DMA chroma windows while the SMs gather luma", v_dma_chroma_sm_luma,
      CHECK_WINDOWS, true},
    {"DMA, the rows the windows span, whole", v_dma_rows, CHECK_ROWS, true},
    {"DMA, the whole frame", v_dma_frame, CHECK_FRAME, true},
    {"SM scatter, one launch, patches from a table", v_scatter_sm,
      CHECK_WRITES, false},
    {"DMA scatter, one cudaMemcpy2DAsync a rect", v_scatter_dma,
      CHECK_WRITES, false},
    {"DMA, the whole frame back", v_scatter_dma_frame, CHECK_FRAME, false},
  };

  printf ("Windows of %zu boxes, reach %d, 1920x1080 I420 in pinned memory, "
      "on %s: %zu windows, %zu bytes (%.1f%% of the frame); %zu writes, %zu "
      "bytes\n\n", boxes.size (), reach, prop.name, l.windows.size (),
      l.window_bytes, 100.0 * l.window_bytes / FRAME_BYTES, l.writes.size (),
      l.write_bytes);
  printf ("| variant | GPU us | GB/s of the windows' (writes') bytes | host "
      "us to queue | checked |\n|---|---|---|---|---|\n");
  for (const Variant &v : variants) {
    std::vector<double> gpu, host;
    bool right = true;
    for (int i = -WARMUP; i < RUNS; i++) {
      c.frame = ring[(i + WARMUP) % RING];
      if (!v.gather)
        CHECK (cudaMemcpy (c.scratch, filtered.data (), scratch_bytes,
            cudaMemcpyHostToDevice));
      CHECK (cudaDeviceSynchronize ());
      CHECK (cudaEventRecord (start, c.a));
      CHECK (cudaStreamWaitEvent (c.b, start, 0));
      const auto t0 = std::chrono::steady_clock::now ();
      v.run (c);
      const auto t1 = std::chrono::steady_clock::now ();
      if (batch_error != cudaSuccess)
        break;
      CHECK (cudaEventRecord (stop, c.a));
      CHECK (cudaEventSynchronize (stop));
      CHECK (cudaGetLastError ());
      float ms = 0.0f;
      CHECK (cudaEventElapsedTime (&ms, start, stop));
      if (i >= 0) {
        gpu.push_back (1000.0 * ms);
        host.push_back (std::chrono::duration<double, std::micro> (t1
                - t0).count ());
      }
      if (i == 0) {
        if (v.gather) {
          CHECK (cudaMemcpy (back.data (), c.scratch, scratch_bytes,
              cudaMemcpyDeviceToHost));
          right = copied_right (v, l, c.frame, back.data (), nullptr);
        } else if (v.check == CHECK_FRAME) {
          right = memcmp (c.frame, filtered.data (), FRAME_BYTES) == 0;
        } else {
          right = copied_right (v, l, nullptr, filtered.data (), c.frame);
        }
      }
    }
    if (batch_error != cudaSuccess) {
      printf ("| %s | not run: %s | | | |\n", v.name,
          cudaGetErrorString (batch_error));
      CHECK (cudaDeviceSynchronize ());
      (void) cudaGetLastError ();
      batch_error = cudaSuccess;
      continue;
    }
    const double us = median (gpu);
    const size_t bytes = v.check == CHECK_FRAME ? FRAME_BYTES :
        v.gather ? l.window_bytes : l.write_bytes;
    printf ("| %s | %.1f | %.1f | %.1f | %s |\n", v.name, us, bytes / us
        / 1000.0, median (host), right ? "yes" : "NO");
    status |= !right;
  }
  return status;
}

/* cudaconv: every kernel launch of the library (launch_or_record), and the
 * frame graphs that record a frame's launches once and replay them
 * (cudaconv-cuda.h).
 *
 * Launching a kernel costs the host a few microseconds, about as long as
 * a small plane's kernel runs: a frame of three planes in device memory
 * took the host longer to launch than the GPU to filter. Launching a graph
 * of the same kernels costs about one launch (docs/kernels.md). Recording
 * uses stream capture, so a graph holds exactly what the launches would
 * have queued, the dependent launches' early starts included. Binding asks
 * each launch again for its arguments; the frame then runs on an
 * instantiation of the graph that holds those values already, or on one
 * whose changed nodes are set. */
#include <new>
#include <vector>

#include "launch.cuh"

/* Instantiations a frame graph keeps, one per set of argument values
 * (pooled buffers cycling through the frame slots give a few each) */
#define FRAME_GRAPH_VARIANTS 8
/* the most parameters a kernel of the library takes */
#define MAX_KERNEL_ARGS 16
/* each argument's value starts on this many bytes of a frame's values */
#define ARG_ALIGN 16

static size_t
arg_span (size_t size)
{
  return (size + ARG_ALIGN - 1) / ARG_ALIGN * ARG_ALIGN;
}

/* One kernel node of a recording: what launched it, and where its
 * arguments' values lie in a frame's values (all its kernels' arguments
 * back to back) */
struct GraphKernel {
  cudaGraphNode_t node;
  const void *kernel;
  dim3 grid, block;
  size_t shared_bytes;
  bool dependent;
  std::vector<size_t> sizes;
  size_t offset, bytes;
};

/* One instantiation of the recording, and the frame values its nodes
 * hold now */
struct GraphVariant {
  cudaGraphExec_t exec;
  std::vector<unsigned char> values;
  unsigned long long used; /* when it last ran, for the least recent */
};

struct CcFrameGraph {
  enum State {
    EMPTY,
    RECORDING,
    READY,
    BINDING
  } state = EMPTY;
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  std::vector<GraphKernel> kernels;
  std::vector<GraphVariant> variants;
  unsigned long long launches = 0;
  std::vector<unsigned char> values;   /* the frame being recorded or bound */
  std::vector<unsigned char> recorded; /* the recording's */
  size_t bound = 0;                    /* kernels bound so far this frame */
  bool stale = false;                  /* a launch unlike the recorded one */
  cudaError_t error = cudaSuccess;     /* the recording's first failure */
};

/* The graph recording or binding on this thread, if any */
static thread_local CcFrameGraph *active;

/* Whether the current device has programmatic dependent launch (compute
 * capability 9.0+) */
static bool
device_launches_dependents ()
{
  static std::atomic<int> known[CC_CUDA_MAX_DEVICES];
  return per_device (known, [] (int dev) {
    int major = 0;
    if (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, dev)
        != cudaSuccess)
      return 0;
    return major >= 9 ? 2 : 1;
  }) == 2;
}

/* k launched on its stream as it is (captured, where the stream is) */
static cudaError_t
launch_now (const KernelLaunch &k)
{
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute dependent[1];
  config.gridDim = k.grid;
  config.blockDim = k.block;
  config.dynamicSmemBytes = k.shared_bytes;
  config.stream = k.stream;
  if (k.dependent && device_launches_dependents ()) {
    dependent[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    dependent[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = dependent;
    config.numAttrs = 1;
  }
  (void) cudaLaunchKernelExC (&config, k.kernel, const_cast<void **> (k.args));
  return cudaGetLastError ();
}

/* Copies k's argument values into values from offset, each on
 * ARG_ALIGN bytes; the bytes between them stay as they were (zero) */
static void
keep_values (std::vector<unsigned char> &values, size_t offset,
    const KernelLaunch &k)
{
  for (int i = 0; i < k.n_args; i++) {
    std::memcpy (values.data () + offset, k.args[i], k.arg_sizes[i]);
    offset += arg_span (k.arg_sizes[i]);
  }
}

/* Whether k is the launch kernel recorded, but for its arguments' values */
static bool
same_launch (const GraphKernel &kernel, const KernelLaunch &k)
{
  if (kernel.kernel != k.kernel || kernel.grid.x != k.grid.x
      || kernel.grid.y != k.grid.y || kernel.grid.z != k.grid.z
      || kernel.block.x != k.block.x || kernel.block.y != k.block.y
      || kernel.block.z != k.block.z || kernel.shared_bytes != k.shared_bytes
      || kernel.dependent != k.dependent
      || kernel.sizes.size () != (size_t) k.n_args)
    return false;
  for (int i = 0; i < k.n_args; i++)
    if (kernel.sizes[i] != k.arg_sizes[i])
      return false;
  return true;
}

/* Launches k into the capture, and keeps the node it became */
static cudaError_t
record (CcFrameGraph *g, const KernelLaunch &k)
{
  cudaError_t err = launch_now (k);
  cudaStreamCaptureStatus status;
  const cudaGraphNode_t *last = nullptr;
  size_t n_last = 0;

  if (err == cudaSuccess)
    err = cudaStreamGetCaptureInfo (k.stream, &status, nullptr, nullptr, &last,
        nullptr, &n_last);
  /* a launch on a capturing stream leaves that launch's node as the one
   * the next operation depends on */
  if (err == cudaSuccess
      && (status != cudaStreamCaptureStatusActive || n_last != 1))
    err = cudaErrorStreamCaptureInvalidated;
  if (err == cudaSuccess) {
    try {
      GraphKernel kernel;
      kernel.node = last[0];
      kernel.kernel = k.kernel;
      kernel.grid = k.grid;
      kernel.block = k.block;
      kernel.shared_bytes = k.shared_bytes;
      kernel.dependent = k.dependent;
      kernel.sizes.assign (k.arg_sizes, k.arg_sizes + k.n_args);
      kernel.offset = g->values.size ();
      kernel.bytes = 0;
      for (int i = 0; i < k.n_args; i++)
        kernel.bytes += arg_span (k.arg_sizes[i]);
      g->values.resize (kernel.offset + kernel.bytes);
      keep_values (g->values, kernel.offset, k);
      g->kernels.push_back (std::move (kernel));
    } catch (const std::bad_alloc &) {
      err = cudaErrorMemoryAllocation;
    }
  }
  if (err != cudaSuccess && g->error == cudaSuccess)
    g->error = err;
  return err;
}

/* Takes k as the next recorded kernel's launch this frame: keeps its
 * arguments' values for cc_frame_graph_launch. A launch unlike the
 * recorded one makes the graph stale; nothing is launched either way. */
static cudaError_t
bind (CcFrameGraph *g, const KernelLaunch &k)
{
  if (g->stale)
    return cudaSuccess;
  if (g->bound >= g->kernels.size ()
      || !same_launch (g->kernels[g->bound], k)) {
    g->stale = true;
    return cudaSuccess;
  }
  keep_values (g->values, g->kernels[g->bound++].offset, k);
  return cudaSuccess;
}

cudaError_t
launch_or_record (const KernelLaunch &k)
{
  CcFrameGraph *g = active;
  if (!g || g->stream != k.stream)
    return launch_now (k);
  return g->state == CcFrameGraph::RECORDING ? record (g, k) : bind (g, k);
}

static void
clear_recording (CcFrameGraph *g)
{
  for (GraphVariant &v : g->variants)
    cudaGraphExecDestroy (v.exec);
  if (g->graph)
    cudaGraphDestroy (g->graph);
  g->variants.clear ();
  g->graph = nullptr;
  g->kernels.clear ();
  g->values.clear ();
  g->recorded.clear ();
  g->state = CcFrameGraph::EMPTY;
  g->error = cudaSuccess;
}

extern "C" cudaError_t
cc_frame_graph_new (CcFrameGraph **graph)
{
  if (!graph)
    return cudaErrorInvalidValue;
  *graph = new (std::nothrow) CcFrameGraph ();
  return *graph ? cudaSuccess : cudaErrorMemoryAllocation;
}

extern "C" void
cc_frame_graph_free (CcFrameGraph *graph)
{
  if (!graph)
    return;
  cc_frame_graph_abandon (graph);
  delete graph;
}

extern "C" int
cc_frame_graph_ready (const CcFrameGraph *graph)
{
  return graph && graph->state == CcFrameGraph::READY;
}

extern "C" cudaError_t
cc_frame_graph_record (CcFrameGraph *graph, cudaStream_t stream)
{
  if (!graph || active || !stream)
    return cudaErrorInvalidValue;
  clear_recording (graph);
  /* other threads' calls (other elements') stay as they are */
  cudaError_t err = cudaStreamBeginCapture (stream,
      cudaStreamCaptureModeThreadLocal);
  if (err != cudaSuccess)
    return err;
  graph->stream = stream;
  graph->state = CcFrameGraph::RECORDING;
  active = graph;
  return cudaSuccess;
}

extern "C" cudaError_t
cc_frame_graph_bind (CcFrameGraph *graph, cudaStream_t stream)
{
  if (!graph || active || !stream || graph->state != CcFrameGraph::READY)
    return cudaErrorInvalidValue;
  graph->stream = stream;
  graph->state = CcFrameGraph::BINDING;
  graph->bound = 0;
  graph->stale = false;
  active = graph;
  return cudaSuccess;
}

/* Another instantiation of the recording, holding the recorded values */
static cudaError_t
add_variant (CcFrameGraph *g, const std::vector<unsigned char> &values)
{
  GraphVariant v;
  cudaError_t err = cudaGraphInstantiate (&v.exec, g->graph, 0);
  if (err != cudaSuccess)
    return err;
  try {
    v.values = values;
    v.used = 0;
    g->variants.push_back (std::move (v));
  } catch (const std::bad_alloc &) {
    cudaGraphExecDestroy (v.exec);
    return cudaErrorMemoryAllocation;
  }
  return cudaSuccess;
}

/* Ends the capture and makes the graph launchable */
static cudaError_t
finish_recording (CcFrameGraph *g)
{
  cudaGraph_t captured = nullptr;
  cudaError_t err = cudaStreamEndCapture (g->stream, &captured);

  g->graph = captured;
  if (g->error != cudaSuccess)
    err = g->error;
  if (err == cudaSuccess) {
    try {
      g->recorded = g->values;
    } catch (const std::bad_alloc &) {
      err = cudaErrorMemoryAllocation;
    }
  }
  if (err == cudaSuccess)
    err = add_variant (g, g->recorded);
  if (err != cudaSuccess) {
    (void) cudaGetLastError ();
    clear_recording (g);
    return err;
  }
  g->state = CcFrameGraph::READY;
  return cudaSuccess;
}

/* Sets the nodes of v whose values differ from the frame's */
static cudaError_t
set_values (CcFrameGraph *g, GraphVariant &v)
{
  for (const GraphKernel &kernel : g->kernels) {
    const unsigned char *now = g->values.data () + kernel.offset;
    if (std::memcmp (v.values.data () + kernel.offset, now, kernel.bytes) == 0)
      continue;
    void *pointers[MAX_KERNEL_ARGS];
    size_t at = kernel.offset;
    if (kernel.sizes.size () > MAX_KERNEL_ARGS)
      return cudaErrorInvalidValue;
    for (size_t i = 0; i < kernel.sizes.size (); i++) {
      pointers[i] = g->values.data () + at;
      at += arg_span (kernel.sizes[i]);
    }
    cudaKernelNodeParams params = {};
    params.func = const_cast<void *> (kernel.kernel);
    params.gridDim = kernel.grid;
    params.blockDim = kernel.block;
    params.sharedMemBytes = (unsigned) kernel.shared_bytes;
    params.kernelParams = pointers;
    cudaError_t err = cudaGraphExecKernelNodeSetParams (v.exec, kernel.node,
        &params);
    if (err != cudaSuccess)
      return err;
    std::memcpy (v.values.data () + kernel.offset, now, kernel.bytes);
  }
  return cudaSuccess;
}

/* The instantiation to run the bound frame on: one that holds its values
 * already (a frame of buffers seen before), else a new one while there
 * are fewer than FRAME_GRAPH_VARIANTS, else the least recently run; the
 * last two have their nodes set to the frame's values. A node set makes
 * the next launch of its graph upload it, which costs the host more than
 * the launch itself, while frames in pooled buffers keep coming back to
 * the same values. */
static cudaError_t
pick_variant (CcFrameGraph *g, GraphVariant **picked)
{
  GraphVariant *oldest = nullptr;
  for (GraphVariant &v : g->variants) {
    if (v.values == g->values) {
      *picked = &v;
      return cudaSuccess;
    }
    if (!oldest || v.used < oldest->used)
      oldest = &v;
  }
  if (g->variants.size () < FRAME_GRAPH_VARIANTS) {
    cudaError_t err = add_variant (g, g->recorded);
    if (err != cudaSuccess)
      return err;
    oldest = &g->variants.back ();
  }
  *picked = oldest;
  return set_values (g, *oldest);
}

extern "C" cudaError_t
cc_frame_graph_launch (CcFrameGraph *graph)
{
  if (!graph || active != graph)
    return cudaErrorInvalidValue;
  active = nullptr;
  GraphVariant *variant = nullptr;
  cudaError_t err;
  if (graph->state == CcFrameGraph::RECORDING) {
    err = finish_recording (graph);
    if (err != cudaSuccess)
      return err;
    variant = &graph->variants.front ();
  } else if (graph->stale || graph->bound != graph->kernels.size ()) {
    clear_recording (graph);
    return cudaErrorGraphExecUpdateFailure;
  } else {
    graph->state = CcFrameGraph::READY;
    err = pick_variant (graph, &variant);
    if (err != cudaSuccess)
      return err;
  }
  variant->used = ++graph->launches;
  return cudaGraphLaunch (variant->exec, graph->stream);
}

extern "C" void
cc_frame_graph_abandon (CcFrameGraph *graph)
{
  if (!graph)
    return;
  if (active == graph)
    active = nullptr;
  if (graph->state == CcFrameGraph::RECORDING) {
    cudaGraph_t captured = nullptr;
    if (cudaStreamEndCapture (graph->stream, &captured) == cudaSuccess
        && captured)
      cudaGraphDestroy (captured);
    (void) cudaGetLastError ();
  }
  clear_recording (graph);
}

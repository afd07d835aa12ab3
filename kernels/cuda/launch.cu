/* cudaconv: every kernel launch of the library (launch_or_record), and the
 * frame graphs that record a frame's launches once and replay them
 * (cudaconv-cuda.h).
 *
 * Launching a kernel costs the host a few microseconds, about as long as
 * a small plane's kernel runs: a frame of three planes in device memory
 * took longer to launch than to filter. A graph launch of the same
 * kernels, after each kernel's new arguments are set, costs a fraction of
 * that (docs/kernels.md). Recording uses stream capture, so a graph holds
 * exactly what the launches would have queued, the dependent launches'
 * early starts included; binding asks each launch for its arguments again
 * and compares them with the recorded ones, so what changes between
 * frames (planes, taps) is set and nothing else. */
#include <new>
#include <vector>

#include "launch.cuh"

/* One kernel node of a recording: what launched it, and its arguments'
 * values as the node holds them now */
struct GraphKernel {
  cudaGraphNode_t node;
  const void *kernel;
  dim3 grid, block;
  size_t shared_bytes;
  bool dependent;
  std::vector<size_t> sizes;
  std::vector<unsigned char> values;
  std::vector<void *> pointers; /* into values, one per argument */
};

struct CcFrameGraph {
  enum State { EMPTY, RECORDING, READY, BINDING } state = EMPTY;
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::vector<GraphKernel> kernels;
  size_t bound = 0;                 /* kernels bound so far this frame */
  bool stale = false;               /* a launch unlike the recorded one */
  cudaError_t error = cudaSuccess;  /* the recording's first failure */
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

/* Copies k's argument values into kernel, which takes k's kernel */
static void
keep_values (GraphKernel &kernel, const KernelLaunch &k)
{
  size_t at = 0;
  for (int i = 0; i < k.n_args; i++) {
    std::memcpy (kernel.values.data () + at, k.args[i], k.arg_sizes[i]);
    at += k.arg_sizes[i];
  }
}

static bool
same_values (const GraphKernel &kernel, const KernelLaunch &k)
{
  size_t at = 0;
  for (int i = 0; i < k.n_args; i++) {
    if (std::memcmp (kernel.values.data () + at, k.args[i], k.arg_sizes[i])
        != 0)
      return false;
    at += k.arg_sizes[i];
  }
  return true;
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
    err = cudaStreamGetCaptureInfo (k.stream, &status, nullptr, nullptr,
        &last, nullptr, &n_last);
  /* a launch on a capturing stream leaves that launch's node as the one
   * the next operation depends on */
  if (err == cudaSuccess
      && (status != cudaStreamCaptureStatusActive || n_last != 1))
    err = cudaErrorStreamCaptureInvalidated;
  if (err == cudaSuccess) {
    try {
      GraphKernel kernel;
      size_t bytes = 0;
      kernel.node = last[0];
      kernel.kernel = k.kernel;
      kernel.grid = k.grid;
      kernel.block = k.block;
      kernel.shared_bytes = k.shared_bytes;
      kernel.dependent = k.dependent;
      kernel.sizes.assign (k.arg_sizes, k.arg_sizes + k.n_args);
      for (int i = 0; i < k.n_args; i++)
        bytes += k.arg_sizes[i];
      kernel.values.resize (bytes);
      keep_values (kernel, k);
      g->kernels.push_back (std::move (kernel));
    } catch (const std::bad_alloc &) {
      err = cudaErrorMemoryAllocation;
    }
  }
  /* the pointers are made once the kernels stop moving */
  if (err != cudaSuccess && g->error == cudaSuccess)
    g->error = err;
  return err;
}

/* Takes k as the next recorded kernel's launch this frame: sets the node's
 * arguments where they changed. A launch unlike the recorded one makes the
 * graph stale; nothing is launched either way. */
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
  GraphKernel &kernel = g->kernels[g->bound++];
  if (same_values (kernel, k))
    return cudaSuccess;
  keep_values (kernel, k);
  cudaKernelNodeParams params = {};
  params.func = const_cast<void *> (kernel.kernel);
  params.gridDim = kernel.grid;
  params.blockDim = kernel.block;
  params.sharedMemBytes = (unsigned) kernel.shared_bytes;
  params.kernelParams = kernel.pointers.data ();
  if (cudaGraphExecKernelNodeSetParams (g->exec, kernel.node, &params)
      != cudaSuccess) {
    (void) cudaGetLastError ();
    g->stale = true;
  }
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
empty (CcFrameGraph *g)
{
  if (g->exec)
    cudaGraphExecDestroy (g->exec);
  if (g->graph)
    cudaGraphDestroy (g->graph);
  g->exec = nullptr;
  g->graph = nullptr;
  g->kernels.clear ();
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
  empty (graph);
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

/* Ends the capture and makes the graph launchable */
static cudaError_t
finish_recording (CcFrameGraph *g)
{
  cudaGraph_t captured = nullptr;
  cudaError_t err = cudaStreamEndCapture (g->stream, &captured);

  g->graph = captured;
  if (g->error != cudaSuccess)
    err = g->error;
  if (err == cudaSuccess)
    err = cudaGraphInstantiate (&g->exec, g->graph, 0);
  if (err != cudaSuccess) {
    (void) cudaGetLastError ();
    empty (g);
    return err;
  }
  for (GraphKernel &kernel : g->kernels) {
    size_t at = 0;
    kernel.pointers.resize (kernel.sizes.size ());
    for (size_t i = 0; i < kernel.sizes.size (); i++) {
      kernel.pointers[i] = kernel.values.data () + at;
      at += kernel.sizes[i];
    }
  }
  g->state = CcFrameGraph::READY;
  return cudaSuccess;
}

extern "C" cudaError_t
cc_frame_graph_launch (CcFrameGraph *graph)
{
  if (!graph || active != graph)
    return cudaErrorInvalidValue;
  active = nullptr;
  if (graph->state == CcFrameGraph::RECORDING) {
    cudaError_t err = finish_recording (graph);
    if (err != cudaSuccess)
      return err;
  } else if (graph->stale || graph->bound != graph->kernels.size ()) {
    empty (graph);
    return cudaErrorGraphExecUpdateFailure;
  }
  graph->state = CcFrameGraph::READY;
  return cudaGraphLaunch (graph->exec, graph->stream);
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
  empty (graph);
}

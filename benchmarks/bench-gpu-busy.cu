/* cudaconv benchmark: keeps the GPU busy for a while, so that the host can
 * queue a batch of launches behind it. CUDA events around launches issued
 * to an idle GPU also time the host: the GPU starts the first event at
 * once and then waits for the first launch (a few microseconds for our
 * host API, tens for a Python library's). With this kernel ahead of the
 * start event, the batch is queued whole before the GPU reaches it, and the
 * events bracket GPU time only: the kernels and the gaps between them. */
#include <cuda_runtime_api.h>

__global__ void
busy_wait (long long ns)
{
  long long t0, t;
  asm volatile ("mov.u64 %0, %%globaltimer;":"=l" (t0));
  do
    asm volatile ("mov.u64 %0, %%globaltimer;":"=l" (t));
  while (t - t0 < ns);
}

/* Queues one thread that spins for us microseconds on the default stream. */
extern "C" cudaError_t
cc_bench_gpu_busy (double us)
{
  if (!(us >= 0.0) || us > 1e6)
    return cudaErrorInvalidValue;
  busy_wait <<<1, 1>>> ((long long) (us * 1e3));
  return cudaGetLastError ();
}

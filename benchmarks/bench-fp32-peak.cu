/* cudaconv benchmark: the GPU's FP32 multiply-add rate, measured, as the
 * floor a non-separable filter's time is compared with.
 *
 * Each thread runs CHAINS independent FMA chains so that the FMA pipes, not
 * their latency, limit the rate; the result is stored so the compiler keeps
 * the work. */
#include <cuda_runtime_api.h>

#define CHAINS 8
#define STEPS 4096
#define THREADS 256

__global__ void
fma_chains (float *out, float a, float b)
{
  float v[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; c++)
    v[c] = threadIdx.x + c;
  for (int s = 0; s < STEPS; s++) {
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
      v[c] = fmaf (v[c], a, b);
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < CHAINS; c++)
    sum += v[c];
  out[blockIdx.x * THREADS + threadIdx.x] = sum;
}

/* Multiply-adds per second, the best of a few launches, or -1. */
extern "C" double
cc_bench_fp32_fma_rate (void)
{
  int sms = 0;
  if (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0)
      != cudaSuccess)
    return -1.0;
  const int blocks = sms * 16;
  float *out = NULL;
  cudaEvent_t start, stop;
  double best = -1.0;
  if (cudaMalloc (&out, sizeof (float) * blocks * THREADS) != cudaSuccess)
    return -1.0;
  cudaEventCreate (&start);
  cudaEventCreate (&stop);
  for (int k = 0; k < 6; k++) {
    float ms = 0.0f;
    cudaEventRecord (start, 0);
    fma_chains <<<blocks, THREADS>>> (out, 0.999f, 0.001f);
    cudaEventRecord (stop, 0);
    if (cudaEventSynchronize (stop) != cudaSuccess
        || cudaEventElapsedTime (&ms, start, stop) != cudaSuccess)
      break;
    double rate = (double) blocks * THREADS * STEPS * CHAINS / (ms * 1e-3);
    if (k > 0 && rate > best)   /* the first launch warms up */
      best = rate;
  }
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  cudaFree (out);
  (void) cudaGetLastError ();
  return best;
}

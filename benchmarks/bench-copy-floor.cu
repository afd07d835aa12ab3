/* cudaconv benchmark: a plain copy of a plane, 16 bytes per thread, as the
 * floor for any kernel that reads every sample once and writes it once.
 * Timed like the convolution kernels (back-to-back launches between CUDA
 * events), it also holds the host's launch rate and the gaps between
 * kernels, which no kernel of the same size can go below. */
#include <cstdint>
#include <cuda_runtime_api.h>

#define COPY_THREADS 128

__global__ void
copy_rows (const char *src, char *dst, size_t pitch, int vectors)
{
  const int x = blockIdx.x * COPY_THREADS + threadIdx.x;
  const size_t row = (size_t) blockIdx.y * pitch;
  if (x < vectors)
    reinterpret_cast < uint4 * >(dst + row)[x] =
        __ldg (reinterpret_cast < const uint4 * >(src + row) + x);
}

/* Copies height rows of row_bytes from src to dst, both pitch bytes apart,
 * on the default stream; the rows must start and end on 16 bytes. */
extern "C" cudaError_t
cc_bench_copy_plane (const void *src, void *dst, size_t pitch,
    size_t row_bytes, int height)
{
  if (!src || !dst || height <= 0 || height > 65535 || row_bytes % 16
      || pitch % 16 || ((reinterpret_cast < uintptr_t > (src)
              | reinterpret_cast < uintptr_t > (dst)) & 15))
    return cudaErrorInvalidValue;
  const int vectors = (int) (row_bytes / 16);
  copy_rows <<<dim3 ((vectors + COPY_THREADS - 1) / COPY_THREADS, height),
      COPY_THREADS>>> ((const char *) src, (char *) dst, pitch, vectors);
  return cudaGetLastError ();
}

/* cudaconv: tensor-core pieces for the separable path: exact half-precision
 * copies of integer samples, weights split into two halves, and the warp
 * matrix instructions (PTX ldmatrix and mma.sync, fp16 inputs, fp32 sums).
 *
 * Why this is exact enough: an 8-bit sample is an integer below 2048 and
 * so exact in fp16. A weight w becomes
 * hi + lo, two fp16 numbers that hold w * 2^e (e puts the largest weight of
 * the filter in [1024, 2048)) to about 22 bits, and so does an fp32
 * intermediate value, scaled below fp16's largest. The tensor cores
 * multiply fp16 exactly and add in fp32; with hi * hi + hi * lo + lo * hi
 * a sum carries about the rounding of an fp32 sum, as the FP32 kernels'
 * sums do. */
#ifndef CUDACONV_MMA_CUH
#define CUDACONV_MMA_CUH

#include <cuda_fp16.h>

#include "device.cuh"

/* mma.sync.m16n8k16: a 16 x 16 A (row-major) times a 16 x 8 B (by column) */
#define MMA_M 16
#define MMA_N 8
#define MMA_K 16

/* The fp16 exponent bits of 1024: with a byte in the low mantissa bits, the
 * half reads 1024 + byte. */
#define HALF_1024_BYTE 0x64u

__device__ __forceinline__ unsigned
half2_bits (__half2 h)
{
  return *reinterpret_cast<unsigned *> (&h);
}

/* Two bytes of w (picked by sel, a byte_perm selector whose other two
 * nibbles are 4) as an exact half2: a byte permute puts each under the
 * exponent of 1024, a half2 subtract removes it. */
__device__ __forceinline__ unsigned
bytes_to_half2 (unsigned w, unsigned sel)
{
  const unsigned biased = __byte_perm (w, HALF_1024_BYTE * 0x01010101u, sel);
  return half2_bits (__hsub2 (*reinterpret_cast<const __half2 *> (&biased),
      __float2half2_rn (1024.0f)));
}

/* byte_perm selectors: bytes 0 and 1, 2 and 3 of a quad of 8-bit
 * samples */
#define SEL_BYTES_01 0x4140u
#define SEL_BYTES_23 0x4342u

/* 2^k as a float, for k in [-126, 127]: the exponent bits alone, where
 * ldexpf costs a range check per call */
__device__ __forceinline__ float
pow2f (int k)
{
  return __int_as_float ((127 + k) << 23);
}

/* The e of 2^e * largest in [2^(top - 1), 2^top), clamped so that 2^e and
 * 2^-e stay normal floats; 0 for 0 (then nothing needs scaling). The
 * launchers that build a band on the host use it too. */
__host__ __device__ __forceinline__ int
scale_exponent (float largest, int top)
{
  int exp2;
  frexpf (largest, &exp2);
  return largest > 0.0f ? min (max (top - exp2, -126), 126) : 0;
}

/* The largest |tap| (x) and the sum of all |taps| (y) of SIDE taps */
template <int SIDE> __device__ __forceinline__ float2
tap_magnitudes (const float *taps)
{
  float2 m = make_float2 (0.0f, 0.0f);
#pragma unroll
  for (int j = 0; j < SIDE; j++) {
    m.x = fmaxf (m.x, fabsf (taps[j]));
    m.y += fabsf (taps[j]);
  }
  return m;
}

/* A filter's taps go into fp16 scaled so that the largest is in
 * [1024, 2048): its high half keeps 11 bits and its low half 11 more. */
#define HALF_TAP_TOP 11

/* v as hi + lo, each two fp16 numbers in a half2's bits */
__device__ __forceinline__ void
split_to_halves (float2 v, unsigned &hi, unsigned &lo)
{
  const __half2 h = __float22half2_rn (v);
  const float2 back = __half22float2 (h);
  hi = half2_bits (h);
  lo = half2_bits (
      __float22half2_rn (make_float2 (v.x - back.x, v.y - back.y)));
}

/* d += a * b on a warp: a is 16 x 16 (4 registers of half2 per lane), b is
 * 16 x 8 (2), d is 16 x 8 floats (4). Turing has only the k = 8 shape:
 * two of them. */
__device__ __forceinline__ void
mma_16x8x16 (float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
#if __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b0));
  asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

/* The A operand of mma_16x8x16 from a row-major 16 x 16 block of halves in
 * shared memory: lane l gives the address of row l % 16, columns 8 (l / 16)
 * on (16 bytes). Volatile for the same reason as the transposed load. */
__device__ __forceinline__ void
load_a_matrix (unsigned (&a)[4], const __half *row)
{
  const unsigned addr = (unsigned) __cvta_generic_to_shared (row);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
               "{%0, %1, %2, %3}, [%4];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}

/* N (2 or 4) 8 x 8 matrices of halves from shared memory, transposed: lane
 * l gives the address of row l % 8 of matrix l / 8 (16 bytes), and gets in
 * b[i] the two halves of matrix i at rows 2 (l % 4) and 2 (l % 4) + 1 of
 * column l / 4. For a row-major K x 8 block of B that is the B operand of
 * mma_16x8x16, k rows at a time. The asm is volatile so that it stays
 * behind the __syncthreads that published the matrix. */
template <int N> __device__ __forceinline__ void
load_matrices_transposed (unsigned (&b)[N], const __half *row)
{
  static_assert (N == 2 || N == 4, "ldmatrix loads 1, 2 or 4 matrices");
  const unsigned addr = (unsigned) __cvta_generic_to_shared (row);
  if constexpr (N == 4)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                 "{%0, %1, %2, %3}, [%4];"
                 : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
                 : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 "
                 "{%0, %1}, [%2];"
                 : "=r"(b[0]), "=r"(b[1])
                 : "r"(addr));
}

#endif /* CUDACONV_MMA_CUH */

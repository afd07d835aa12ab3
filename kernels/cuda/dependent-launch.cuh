/* cudaconv: programmatic dependent launch (compute capability 9.0+).
 *
 * A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization
 * may have its blocks resident before the kernel queued ahead of it on the
 * stream has ended, once every block of that kernel has called
 * release_next_grid() (or exited). It must call wait_for_previous_grid()
 * before touching anything that kernel may write: the wait returns when
 * that kernel has ended and its stores are visible. What the early start
 * saves is the launch and the ramp of blocks onto the SMs between two
 * kernels, a large share of a kernel of a few microseconds
 * (docs/kernels.md).
 *
 * Every kernel calls release_next_grid() only after its own wait, so the
 * next kernel can start early only once this one runs for real, when the
 * kernels before it have ended: at most one kernel ahead is still running.
 * Both are no-ops on older GPUs and for kernels launched without the
 * attribute. */
#ifndef CUDACONV_DEPENDENT_LAUNCH_CUH
#define CUDACONV_DEPENDENT_LAUNCH_CUH

__device__ __forceinline__ void
wait_for_previous_grid ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void
release_next_grid ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* The previous kernel has ended, and this one may let the next start. */
__device__ __forceinline__ void
join_previous_grid ()
{
  wait_for_previous_grid ();
  release_next_grid ();
}

#endif /* CUDACONV_DEPENDENT_LAUNCH_CUH */

/* cudaconv: a process-wide pool of worker threads for the CPU back end.
 *
 * Starting threads for every plane of every frame cost more than filtering a
 * small plane; these workers start once and sleep between jobs. A job wakes
 * only the threads it is worth (cc_cpu_pool_threads): one woken for too
 * little work costs more than it saves. */
#ifndef CUDACONV_CPU_POOL_H
#define CUDACONV_CPU_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

#define CC_CPU_MAX_THREADS 64

/* The least work worth a thread of its own, in nanoseconds of one core:
 * what ringing a sleeping worker costs the caller (a futex wake, a few
 * microseconds). A worker that starts late costs no more than that: the
 * items go to whoever takes them first, the caller included. */
#define CC_CPU_MIN_TASK_NS 5000.0

typedef void (*CcPoolTask) (void *data, int index);

/* How many threads a job of work_ns nanoseconds of one core's work is
 * worth, at most n_threads (and CC_CPU_MAX_THREADS, and the CPUs the
 * process may run on): one per CC_CPU_MIN_TASK_NS of it, at least 1.
 * Callers estimate work_ns from their samples and a cost per sample,
 * measured, and cut the job into that many parts. */
int cc_cpu_pool_threads (double work_ns, int n_threads);

/* With on 0, cc_cpu_pool_threads gives every job n_threads (at most
 * CC_CPU_MAX_THREADS) whatever its work and the CPUs: for tests, so that
 * small planes are cut into as many parts as they ask for. On by default;
 * not to be changed while jobs run. */
void cc_cpu_pool_size_by_work (int on);

/* Runs task (data, i) for every i in [0, n) on up to n threads, the calling
 * thread included, and returns when all have finished; no more threads
 * than the CPUs the process may run on take part, so n may exceed them.
 * Calls from several threads take turns (but for n = 1, which runs on the
 * caller). Returns 0, or an errno value when no worker could be started
 * (the calling thread then ran every task itself). */
int cc_cpu_pool_run (int n, CcPoolTask task, void *data);

/* Several jobs' parts as the items of one pool run: which of the n jobs
 * item belongs to, where job j's items are first[j] <= item < first[j + 1]
 * (first ascending, first[0] 0, item below first[n]) */
static inline int
cc_cpu_pool_job_of (const int *first, int n, int item)
{
  int lo = 0, hi = n - 1;

  /* the last job whose first item is at most item */
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (first[mid] <= item)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

#ifdef __cplusplus
}
#endif
#endif /* CUDACONV_CPU_POOL_H */

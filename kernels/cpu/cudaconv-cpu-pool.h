/* cudaconv: a process-wide pool of worker threads for the CPU back end.
 *
 * Starting threads for every plane of every frame cost more than filtering a
 * small plane; these workers start once and sleep on a condition variable
 * between jobs. */
#ifndef CUDACONV_CPU_POOL_H
#define CUDACONV_CPU_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

#define CC_CPU_MAX_THREADS 64

typedef void (*CcPoolTask) (void *data, int index);

/* Runs task (data, i) for every i in [0, n) on up to n threads, the calling
 * thread included, and returns when all have finished. Calls from several
 * threads take turns. Returns 0, or an errno value when no worker could be
 * started (the calling thread then ran every task itself). */
int cc_cpu_pool_run (int n, CcPoolTask task, void *data);

#ifdef __cplusplus
}
#endif
#endif /* CUDACONV_CPU_POOL_H */

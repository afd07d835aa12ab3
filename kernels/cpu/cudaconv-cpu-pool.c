/* cudaconv: the CPU back end's worker pool (see cudaconv-cpu-pool.h).
 *
 * One job at a time: the caller publishes it under the lock, bumps the
 * generation and wakes as many workers as it has tasks for (a worker
 * that was not waiting sees the new generation when it comes back);
 * everyone woken, the caller too, takes task indices until none is left,
 * and the caller waits for the last to finish.
 * Workers live as long as the process. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "cudaconv-cpu-pool.h"

static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;

static unsigned generation;
static int n_workers;
static CcPoolTask job_task;
static void *job_data;
static int job_items, job_next, job_done;

/* Called with lock held; returns with it held. */
static void
take_items (void)
{
  while (job_next < job_items) {
    const int i = job_next++;
    CcPoolTask task = job_task;
    void *data = job_data;
    pthread_mutex_unlock (&lock);
    task (data, i);
    pthread_mutex_lock (&lock);
    if (++job_done == job_items)
      pthread_cond_signal (&finished);
  }
}

/* born_in: the generation before the job that made the worker, so that
 * it takes part in that job too */
static void *
worker (void *born_in)
{
  pthread_mutex_lock (&lock);
  unsigned seen = (unsigned) (uintptr_t) born_in;
  for (;;) {
    while (generation == seen)
      pthread_cond_wait (&wake, &lock);
    seen = generation;
    take_items ();
  }
  return NULL;
}

/* Called with lock held. */
static int
grow_workers (int wanted)
{
  int status = 0;
  while (n_workers < wanted && n_workers < CC_CPU_MAX_THREADS - 1) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init (&attr);
    pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
    status = pthread_create (&thread, &attr, worker,
        (void *) (uintptr_t) generation);
    pthread_attr_destroy (&attr);
    if (status != 0)
      break;
    n_workers++;
  }
  return status == 0 ? 0 : (n_workers > 0 ? 0 : status);
}

int
cc_cpu_pool_run (int n, CcPoolTask task, void *data)
{
  int status;
  if (n <= 0)
    return 0;
  pthread_mutex_lock (&turn);
  pthread_mutex_lock (&lock);
  status = grow_workers (n - 1);
  job_task = task;
  job_data = data;
  job_items = n;
  job_next = 0;
  job_done = 0;
  generation++;
  /* as many workers as there are tasks beyond the caller's: waking every
   * worker for a small job (a region's window) costs more than the job
   * on a machine of many cores, and they all queue on the lock */
  for (int k = 0; k < n - 1 && k < n_workers; k++)
    pthread_cond_signal (&wake);
  take_items ();
  while (job_done < job_items)
    pthread_cond_wait (&finished, &lock);
  pthread_mutex_unlock (&lock);
  pthread_mutex_unlock (&turn);
  return status;
}

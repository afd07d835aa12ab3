/* cudaconv: the CPU back end's worker pool (see cudaconv-cpu-pool.h).
 *
 * One job at a time. The caller publishes it and rings the doorbells of
 * the workers it wakes, all of them itself, so that every one starts one
 * wake-up after the ring rather than one per level of a tree of wake-ups.
 * Everyone woken, the caller too, takes item indices from one atomic
 * ticket, and the caller sleeps until the last item is done. No lock is
 * shared while items are taken: 64 threads woken at once and queueing on
 * one mutex, each hand-over a wake-up, made 64 threads slower than 16.
 *
 * The ticket holds the job's generation (high 32 bits) and its next item
 * (low 32), so that a worker that woke late, after its job ended, takes
 * no item of the next one. The job's fields are written between a ticket
 * that says BUSY and the one that publishes them, as a sequence lock: a
 * worker reads them, then takes an item with a compare-and-swap on the
 * ticket it read first, which fails if they may have changed since.
 * Workers live as long as the process, asleep between jobs. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "cudaconv-cpu-pool.h"

/* the low half of a ticket while the job's fields are being written */
#define BUSY 0xffffffffu

/* A worker's doorbell: rings counted, so that none is lost when it was
 * rung before the worker came to wait, and a wake-up (a system call) only
 * for a worker asleep */
typedef struct {
  atomic_int rings;
  atomic_int asleep;
  pthread_mutex_t lock;
  pthread_cond_t rung;
} Doorbell;

static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static Doorbell bells[CC_CPU_MAX_THREADS - 1];
static int n_workers;
static int n_cpus;
static atomic_int size_by_work = 1;

/* the job: written by the caller only, under turn */
static _Atomic (CcPoolTask) job_task;
static _Atomic (void *) job_data;
static atomic_int job_items;
static _Atomic uint64_t ticket;
static atomic_int job_done;

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;

/* asleep and rings are sequentially consistent, so that either the ringer
 * sees the worker asleep or the worker sees the ring before it sleeps */
static void
ring (int k)
{
  Doorbell *bell = &bells[k];
  atomic_fetch_add (&bell->rings, 1);
  if (atomic_load (&bell->asleep)) {
    pthread_mutex_lock (&bell->lock);
    pthread_cond_signal (&bell->rung);
    pthread_mutex_unlock (&bell->lock);
  }
}

/* Waits for a ring of the worker's doorbell and takes it */
static void
answer (Doorbell *bell)
{
  pthread_mutex_lock (&bell->lock);
  atomic_store (&bell->asleep, 1);
  while (atomic_load (&bell->rings) == 0)
    pthread_cond_wait (&bell->rung, &bell->lock);
  atomic_store (&bell->asleep, 0);
  pthread_mutex_unlock (&bell->lock);
  atomic_fetch_sub (&bell->rings, 1);
}

/* Takes and runs items of the published job until none is left. */
static void
take_items (void)
{
  uint64_t t = atomic_load_explicit (&ticket, memory_order_acquire);
  for (;;) {
    if ((uint32_t) t == BUSY)
      return;
    CcPoolTask task = atomic_load_explicit (&job_task, memory_order_relaxed);
    void *data = atomic_load_explicit (&job_data, memory_order_relaxed);
    const int items = atomic_load_explicit (&job_items, memory_order_relaxed);
    /* the fields read before the ticket is checked again by the swap */
    atomic_thread_fence (memory_order_acquire);
    if ((uint32_t) t >= (uint32_t) items)
      return;
    if (!atomic_compare_exchange_weak_explicit (&ticket, &t, t + 1,
            memory_order_acq_rel, memory_order_acquire))
      continue;
    task (data, (int) (uint32_t) t);
    if (atomic_fetch_add_explicit (&job_done, 1, memory_order_acq_rel) + 1
        == items) {
      pthread_mutex_lock (&done_lock);
      pthread_cond_signal (&done_cond);
      pthread_mutex_unlock (&done_lock);
    }
    t = atomic_load_explicit (&ticket, memory_order_acquire);
  }
}

/* Worker k: answers its doorbell, takes items, and sleeps again; a late
 * ring finds no item of its job, which costs a wake-up and no more */
static void *
worker (void *index)
{
  Doorbell *bell = &bells[(int) (intptr_t) index];

  for (;;) {
    answer (bell);
    take_items ();
  }
  return NULL;
}

static pthread_once_t cpus_once = PTHREAD_ONCE_INIT;

static void
count_cpus (void)
{
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof (set), &set) == 0)
    n_cpus = CPU_COUNT (&set);
#endif
  if (n_cpus <= 0) {
    const long online = sysconf (_SC_NPROCESSORS_ONLN);
    n_cpus = online > 0 ? (int) online : 1;
  }
}

/* The CPUs this process may run on: more threads than those never pay
 * for themselves */
static int
cpus (void)
{
  pthread_once (&cpus_once, count_cpus);
  return n_cpus;
}

/* Called under turn. */
static int
grow_workers (int wanted)
{
  int status = 0;
  while (n_workers < wanted && n_workers < CC_CPU_MAX_THREADS - 1) {
    Doorbell *bell = &bells[n_workers];
    pthread_t thread;
    pthread_attr_t attr;
    pthread_mutex_init (&bell->lock, NULL);
    pthread_cond_init (&bell->rung, NULL);
    atomic_init (&bell->rings, 0);
    atomic_init (&bell->asleep, 0);
    pthread_attr_init (&attr);
    pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
    status = pthread_create (&thread, &attr, worker,
        (void *) (intptr_t) n_workers);
    pthread_attr_destroy (&attr);
    if (status != 0) {
      pthread_cond_destroy (&bell->rung);
      pthread_mutex_destroy (&bell->lock);
      break;
    }
    n_workers++;
  }
  return status == 0 ? 0 : (n_workers > 0 ? 0 : status);
}

void
cc_cpu_pool_size_by_work (int on)
{
  atomic_store_explicit (&size_by_work, on != 0, memory_order_relaxed);
}

int
cc_cpu_pool_threads (double work_ns, int n_threads)
{
  if (n_threads > CC_CPU_MAX_THREADS)
    n_threads = CC_CPU_MAX_THREADS;
  if (n_threads <= 1)
    return 1;
  if (!atomic_load_explicit (&size_by_work, memory_order_relaxed))
    return n_threads;
  if (n_threads > cpus ())
    n_threads = cpus ();
  /* as a double: work_ns may be larger than an int's threads */
  const double worth = work_ns / CC_CPU_MIN_TASK_NS;
  if (worth >= n_threads)
    return n_threads;
  return worth >= 2.0 ? (int) worth : 1;
}

int
cc_cpu_pool_run (int n, CcPoolTask task, void *data)
{
  int status, woken;
  if (n <= 0)
    return 0;
  if (n == 1) {
    task (data, 0);
    return 0;
  }
  pthread_mutex_lock (&turn);
  woken = n - 1 < cpus () - 1 ? n - 1 : cpus () - 1;
  status = grow_workers (woken);
  if (woken > n_workers)
    woken = n_workers;

  /* publish: BUSY, the fields, then the ticket of the new generation */
  const uint64_t generation =
      (atomic_load_explicit (&ticket, memory_order_relaxed) >> 32) + 1;
  atomic_store_explicit (&ticket, generation << 32 | BUSY,
      memory_order_relaxed);
  atomic_thread_fence (memory_order_release);
  atomic_store_explicit (&job_task, task, memory_order_relaxed);
  atomic_store_explicit (&job_data, data, memory_order_relaxed);
  atomic_store_explicit (&job_items, n, memory_order_relaxed);
  atomic_store_explicit (&job_done, 0, memory_order_relaxed);
  atomic_store_explicit (&ticket, generation << 32, memory_order_release);

  for (int k = 0; k < woken; k++)
    ring (k);
  take_items ();
  pthread_mutex_lock (&done_lock);
  while (atomic_load_explicit (&job_done, memory_order_acquire) < n)
    pthread_cond_wait (&done_cond, &done_lock);
  pthread_mutex_unlock (&done_lock);
  pthread_mutex_unlock (&turn);
  return status;
}

/* The library's one way to run work on other threads (internal).
 *
 * Every thread the library starts goes through this shim, and every public
 * entry that may start one decides once, with gch_parallel_for(), how many
 * workers it may use and which thresholds apply; that decision is passed down
 * explicitly (never read from a global on the way). The caller's count is
 * honoured exactly: with 1 worker no thread is ever created.
 *
 * The code splits work in two (the calling thread and one helper at a time),
 * so more than 2 workers are used as 2.
 *
 * Platform: C11 <threads.h>. Under ThreadSanitizer (GCHEAP_TSAN, set by
 * tests/tsan.sh) threads, mutexes and condition variables are POSIX threads
 * instead, because glibc's thrd_create and mtx_lock bypass TSan's
 * interceptors and it would then report false races. threading.c is the only
 * file of the library that may use POSIX for threads. */
#ifndef GCHEAP_THREADING_H
#define GCHEAP_THREADING_H

#include <stdint.h>

#include "tuning.h"

#if defined(GCHEAP_TSAN)
#include <pthread.h>
typedef pthread_t gch_thread_handle;
typedef pthread_mutex_t gch_mutex;
typedef pthread_cond_t gch_cond;
#else
#include <threads.h>
typedef thrd_t gch_thread_handle;
typedef mtx_t gch_mutex;
typedef cnd_t gch_cond;
#endif

/* A thread's body: the C11 thrd_start_t shape. */
typedef int (*gch_thread_fn)(void *arg);

typedef struct gch_thread {
    gch_thread_handle handle;
    int started; /* 1 between a successful start and the join */
#if defined(GCHEAP_TSAN)
    gch_thread_fn fn; /* what the POSIX thread runs (it must not move until joined) */
    void *arg;
#endif
} gch_thread;

/* How parallel one call into the library may be. */
typedef struct gch_parallel {
    unsigned workers; /* 1: no thread at all; 2: the caller plus one helper */
    gch_tuning knobs; /* thresholds, read once (tests lower them) */
} gch_parallel;

/* The most workers the code can use: the caller plus one helper. */
#define GCH_MAX_WORKERS 2u

/* The parallelism of a public call whose caller asked for `threads` workers
 * (0: the default, as many as the machine has processors, at most
 * GCH_MAX_WORKERS; 1: none besides the caller). Reads the tuning knobs. */
gch_parallel gch_parallel_for(unsigned threads);

/* Whether work over `refs` references is worth a second thread. */
static inline int gch_parallel_worth(const gch_parallel *p, uint64_t refs)
{
    return p->workers >= 2 && refs >= p->knobs.parallel_min_refs;
}

/* Starts fn(arg) on a new thread when workers >= 2. Returns 1 if it runs
 * there (join it with gch_thread_join), 0 if no thread was created (workers
 * 1, or the system refused one): then the caller does the work itself. */
int gch_thread_start(gch_thread *t, unsigned workers, gch_thread_fn fn, void *arg);

/* Waits for a thread started by gch_thread_start; nothing if none was. */
void gch_thread_join(gch_thread *t);

/* Runs fn(a) on this thread and, when b is not NULL, fn(b) on a second one
 * at the same time (workers >= 2 and `parallel`), or after fn(a) here. */
void gch_run_two(unsigned workers, int parallel, gch_thread_fn fn, void *a, void *b);

/* Lets other threads run (a spin-wait's pause), or sleeps about us
 * microseconds. */
void gch_thread_yield(void);
void gch_thread_sleep_us(unsigned us);

/* Mutex and condition variable; the init functions return 1 on success. */
int gch_mutex_init(gch_mutex *m);
void gch_mutex_destroy(gch_mutex *m);
void gch_mutex_lock(gch_mutex *m);
void gch_mutex_unlock(gch_mutex *m);
int gch_cond_init(gch_cond *c);
void gch_cond_destroy(gch_cond *c);
void gch_cond_wait(gch_cond *c, gch_mutex *m);
void gch_cond_broadcast(gch_cond *c);

/* Test hook: threads this process has created through the shim so far
 * (lets a test check that 1 worker means no thread). */
uint64_t gch_internal_threads_created(void);

#endif

/* The thread shim: see threading.h. The only file of the library that may use
 * POSIX for threads (under ThreadSanitizer, and to count processors). */
#include "threading.h"

#include "gcheap/alloc.h"
#include "gcheap/task.h"

#include <stdatomic.h>
#include <time.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(GCHEAP_TSAN)
#include <sched.h>
#endif

static atomic_uint_least64_t threads_created;

/* Processors online, at most GCH_MAX_WORKERS; asked once (glibc reads a
 * file for it), then remembered. */
static unsigned processors(void)
{
    static atomic_uint known; /* 0: not asked yet */
    unsigned k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k)
        return k;
    k = GCH_MAX_WORKERS; /* unknown: what the code always assumed */
#if defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n >= 1)
        k = n > (long)GCH_MAX_WORKERS ? GCH_MAX_WORKERS : (unsigned)n;
#endif
    atomic_store_explicit(&known, k, memory_order_relaxed);
    return k;
}

gch_parallel gch_parallel_for(unsigned threads)
{
    gch_parallel p;
    p.knobs = gch_tuning_get();
    if (threads == 0)
        threads = p.knobs.default_workers ? p.knobs.default_workers : processors();
    p.workers = threads > GCH_MAX_WORKERS ? GCH_MAX_WORKERS : threads;
    return p;
}

#if defined(GCHEAP_TSAN)
/* pthread's body shape around a C11 one: the gch_thread, which outlives the
 * thread (it is joined through it), carries the function and its argument. */
static void *pthread_body(void *thread)
{
    gch_thread *t = thread;
    t->fn(t->arg);
    return NULL;
}
#endif

int gch_thread_start(gch_thread *t, unsigned workers, gch_thread_fn fn, void *arg)
{
    t->started = 0;
    if (workers < 2)
        return 0;
#if defined(GCHEAP_TSAN)
    t->fn = fn;
    t->arg = arg;
    if (pthread_create(&t->handle, NULL, pthread_body, t) != 0)
        return 0;
#else
    if (thrd_create(&t->handle, fn, arg) != thrd_success)
        return 0;
#endif
    atomic_fetch_add_explicit(&threads_created, 1, memory_order_relaxed);
    t->started = 1;
    return 1;
}

void gch_thread_join(gch_thread *t)
{
    if (!t->started)
        return;
#if defined(GCHEAP_TSAN)
    pthread_join(t->handle, NULL);
#else
    thrd_join(t->handle, NULL);
#endif
    t->started = 0;
}

void gch_run_two(unsigned workers, int parallel, gch_thread_fn fn, void *a, void *b)
{
    gch_thread t;
    if (b && parallel && gch_thread_start(&t, workers, fn, b)) {
        fn(a);
        gch_thread_join(&t);
        return;
    }
    fn(a);
    if (b)
        fn(b);
}

/* gcheap/task.h: the program's way to the shim. */
struct gch_task {
    gch_thread thread;
    gch_thread_fn fn;
    void *arg;
};

gch_task *gch_task_start(unsigned threads, int (*fn)(void *arg), void *arg)
{
    gch_task *t = gch_malloc(sizeof *t);
    if (!t) {
        fn(arg);
        return NULL;
    }
    t->fn = fn;
    t->arg = arg;
    gch_thread_start(&t->thread, gch_parallel_for(threads).workers, fn, arg);
    return t;
}

void gch_task_finish(gch_task *t)
{
    if (!t)
        return;
    if (t->thread.started)
        gch_thread_join(&t->thread);
    else
        t->fn(t->arg);
    gch_free(t);
}

void gch_thread_yield(void)
{
#if defined(GCHEAP_TSAN)
    sched_yield();
#else
    thrd_yield();
#endif
}

void gch_thread_sleep_us(unsigned us)
{
    struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };
#if defined(GCHEAP_TSAN)
    nanosleep(&ts, NULL);
#else
    thrd_sleep(&ts, NULL);
#endif
}

#if defined(GCHEAP_TSAN)
int gch_mutex_init(gch_mutex *m) { return pthread_mutex_init(m, NULL) == 0; }
void gch_mutex_destroy(gch_mutex *m) { pthread_mutex_destroy(m); }
void gch_mutex_lock(gch_mutex *m) { pthread_mutex_lock(m); }
void gch_mutex_unlock(gch_mutex *m) { pthread_mutex_unlock(m); }
int gch_cond_init(gch_cond *c) { return pthread_cond_init(c, NULL) == 0; }
void gch_cond_destroy(gch_cond *c) { pthread_cond_destroy(c); }
void gch_cond_wait(gch_cond *c, gch_mutex *m) { pthread_cond_wait(c, m); }
void gch_cond_broadcast(gch_cond *c) { pthread_cond_broadcast(c); }
#else
int gch_mutex_init(gch_mutex *m) { return mtx_init(m, mtx_plain) == thrd_success; }
void gch_mutex_destroy(gch_mutex *m) { mtx_destroy(m); }
void gch_mutex_lock(gch_mutex *m) { mtx_lock(m); }
void gch_mutex_unlock(gch_mutex *m) { mtx_unlock(m); }
int gch_cond_init(gch_cond *c) { return cnd_init(c) == thrd_success; }
void gch_cond_destroy(gch_cond *c) { cnd_destroy(c); }
void gch_cond_wait(gch_cond *c, gch_mutex *m) { cnd_wait(c, m); }
void gch_cond_broadcast(gch_cond *c) { cnd_broadcast(c); }
#endif

uint64_t gch_internal_threads_created(void)
{
    return atomic_load_explicit(&threads_created, memory_order_relaxed);
}

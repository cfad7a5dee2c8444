/* gcheap/task.h - one piece of the caller's work run beside its own, through
 * the library's threading shim (src/util/threading.h): the program starts
 * no thread of its own, so `--threads 1` means no thread at all and a
 * ThreadSanitizer build (tests/tsan.sh) sees every thread.
 */
#ifndef GCHEAP_TASK_H
#define GCHEAP_TASK_H

typedef struct gch_task gch_task;

/* Starts fn(arg) on another thread when `threads` allows one (0: the
 * default, as many as the machine has processors, at most 2 workers; 1: no
 * thread). When no thread is started (1, the system refused one) fn(arg)
 * runs in gch_task_finish; when out of memory it runs here, before this
 * returns NULL. Either way it runs exactly once. */
gch_task *gch_task_start(unsigned threads, int (*fn)(void *arg), void *arg);

/* Waits for the task (or runs it here if no thread was started) and frees
 * it. NULL does nothing. */
void gch_task_finish(gch_task *t);

#endif

/* fail_alloc: a counting allocator for allocation-failure sweeps. Installed
 * through gch_set_allocator, it fails the fail_at-th call (malloc or realloc,
 * counted together; 0 = never) and counts the blocks outstanding, so a sweep
 * can check that every failure gives GCH_ENOMEM and frees everything.
 * Single-threaded: run the sweep with the library's default (serial) tuning
 * on small inputs. */
#ifndef GCHEAP_TEST_FAIL_ALLOC_H
#define GCHEAP_TEST_FAIL_ALLOC_H

typedef struct fail_alloc_state {
    long calls;   /* allocation calls so far */
    long fail_at; /* 1-based call to fail */
    long live;    /* blocks outstanding */
    int hit;      /* the failure happened */
} fail_alloc_state;

extern fail_alloc_state fail_alloc;

/* Resets the counters, arms the failure at call fail_at and installs the allocator. */
void fail_alloc_install(long fail_at);
/* Restores the C library's allocator. */
void fail_alloc_remove(void);

#endif

/* fail_alloc: a counting allocator for allocation-failure sweeps. Installed
 * through gch_set_allocator, it fails the fail_at-th call of the kinds it
 * counts (malloc and realloc together, or one of them: fail_alloc_install_kind;
 * 0 = never) and counts the blocks outstanding, so a sweep can check that
 * every failure gives GCH_ENOMEM and frees everything. A failed realloc that
 * would have shrunk its block sets hit_shrink: the library may then keep the
 * bigger block and succeed. Single-threaded: run the sweep with the library's
 * default (serial) tuning on small inputs. */
#ifndef GCHEAP_TEST_FAIL_ALLOC_H
#define GCHEAP_TEST_FAIL_ALLOC_H

typedef enum fail_alloc_kind {
    FAIL_ALLOC_ANY,     /* mallocs and reallocs counted together */
    FAIL_ALLOC_MALLOC,  /* mallocs only */
    FAIL_ALLOC_REALLOC, /* reallocs only */
} fail_alloc_kind;

typedef struct fail_alloc_state {
    long calls;           /* allocation calls of the counted kind so far */
    long mallocs, reallocs; /* calls of each kind so far */
    long fail_at;         /* 1-based counted call to fail */
    fail_alloc_kind kind;
    long live;            /* blocks outstanding */
    int hit;              /* the failure happened */
    int hit_shrink;       /* ... and it was a realloc to no larger a size */
} fail_alloc_state;

extern fail_alloc_state fail_alloc;

/* Resets the counters, arms the failure at call fail_at (both kinds counted
 * together) and installs the allocator. */
void fail_alloc_install(long fail_at);
/* The same, counting only the calls of kind. */
void fail_alloc_install_kind(long fail_at, fail_alloc_kind kind);
/* Restores the C library's allocator. */
void fail_alloc_remove(void);

#endif

/* Internal tuning knobs of the library (not part of the public API).
 *
 * The defaults suit real dumps. Tests lower the thresholds through
 * gch_internal_set_tuning() so that the parallel paths run on tiny inputs.
 * The knobs are read in one place, gch_parallel_for() (threading.h), once per
 * public call, and handed down with the worker count from there. */
#ifndef GCHEAP_TUNING_H
#define GCHEAP_TUNING_H

#include <stddef.h>

typedef struct gch_tuning {
    /* Fewest references for which a step uses a second thread. */
    size_t parallel_min_refs;
    /* .gclog: regions of complete lines this big or bigger are parsed in two
     * halves by two threads (0: always one thread). */
    size_t parse_block;
    /* .gclog: bytes read per block (the buffer grows for longer lines). */
    size_t read_block;
    /* .gclog: nonzero reads every block in line, with no reader thread. */
    int no_read_ahead;
    /* Dominator DFS: slots it fills itself before a second thread's page
     * touching takes over ahead of it (0: no such thread); it also needs
     * parallel_min_refs references. */
    size_t dfs_touch_ahead;
    /* Workers of a call that asks for the default (threads = 0); 0: as many
     * as the machine has processors (at most 2). Tests set 2 so that the
     * parallel paths run on a one-processor machine too. */
    unsigned default_workers;
    /* .gclog: the longest line accepted (0: GCH_GCLOG_MAX_LINE). */
    size_t max_line;
    /* gch_waste_find: nonzero ANDs every content hash with it, so that tests
     * make unequal contents collide and the byte-wise comparison must split
     * them (0: the whole hash). */
    unsigned long long waste_hash_mask;
    /* Ruby: bytes of lines in a piece, the unit one thread parses at a time
     * (0: 64 KiB; tests set a few bytes so that two threads share a small
     * dump). */
    size_t ruby_piece;
} gch_tuning;

/* The knobs in force (a copy). */
gch_tuning gch_tuning_get(void);

/* Test hook: sets every knob (a NULL t restores the defaults). Declared here
 * and by the tests that use it; not thread-safe: call it between loads. */
void gch_internal_set_tuning(const gch_tuning *t);

#endif

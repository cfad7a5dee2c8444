/* heap_check.h - invariant checks over a built heap and over the analyses.
 *
 * Shared by the unit tests and the fuzz harnesses (tests/fuzz), so it uses no
 * test framework: every check returns NULL when the invariant holds, else a
 * static description of the first violation (the fuzzers abort on it).
 *
 * To cover a new analysis (dominators, retained sizes, diff), add a
 * heap_check_X function here and call it from heap_check_analyses.
 */
#ifndef GCHEAP_TEST_HEAP_CHECK_H
#define GCHEAP_TEST_HEAP_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"
#include "gcheap/heap.h"

/* Structural invariants of a finished heap: CSR starts monotone and ending at
 * ref_count, every target < object_count, types < type_count, name offsets in
 * the string pool, root_object valid (naming an object with the root's id) or
 * GCH_NONE (and then counted in anomalies.dangling_roots), object ids unique,
 * total_size == exact sum of the sizes, per-type totals (when kept) equal to
 * a count of the objects. */
const char *heap_check_structure(const gch_heap *h);

/* Every heap of a dump, plus dump-level facts (at least one heap). */
const char *heap_check_dump(const gch_dump *d);

/* A failed library call: *out NULL, err->status == st, a message without
 * control bytes, and for GCH_EFORMAT with a line: 1 <= line <= max_line. */
const char *heap_check_error(gch_status st, const gch_dump *out, const gch_error *err,
                             uint64_t max_line);

/* Results of the analyses of one heap, kept so that runs can be compared. */
typedef struct heap_summary {
    uint64_t objects, bytes, refs, roots, types;
    uint64_t live_count[2], live_bytes[2]; /* [include_weak] */
    uint64_t hist_rows, hist_count, hist_bytes;
    uint64_t live_hist_count, live_hist_bytes;
    uint64_t reverse_hash;                 /* FNV over in_start/in_source */
} heap_summary;

/* Runs gch_live_set (strong and with weak roots), gch_histogram (all objects
 * and live only) and gch_heap_build_reverse on h and checks: live counts <=
 * objects and equal to the marks; live set closed under references, holding
 * every root, and no bigger than an independent breadth-first search;
 * histogram sums == totals; reverse edges == forward edges transposed.
 * *st receives the first non-OK library status (the check then stops and
 * returns NULL: out of memory is not a violation); sum (may be NULL) receives
 * the results. */
const char *heap_check_analyses(gch_heap *h, gch_status *st, heap_summary *sum);

/* Deep equality of two dumps (names, meta, types, objects, references,
 * roots, anomalies). compare_refs = 0 skips references and the anomalies that
 * depend on them (a dump read with skip_refs). */
const char *heap_check_same_dump(const gch_dump *a, const gch_dump *b, int compare_refs);

#endif

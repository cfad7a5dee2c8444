/* dart_waste.h - a Dart heap snapshot with planted waste, and the rows
 * `gcheap waste` must find in it, computed from the description (not from
 * the reader or the program): test_waste_dart.c and make_dart_waste (the
 * CLI test's snapshot) share it.
 *
 * The snapshot has the VM's layout (dart_writer.h) and what the VM writes
 * for its strings and collections (runtime/vm/object_graph.cc): Latin-1 and
 * UTF-16 strings with their length and at most 128 recorded code units,
 * LengthData for _List, typed data, ObjectPool, _GrowableList (its length;
 * references: type arguments, length, its backing _List), _Map and _Set
 * (used data; references: the index, a Uint32List, then the data _List).
 *
 * With planted set it holds groups of equal strings (Latin-1, UTF-16 with a
 * surrogate pair, one value in both forms, 128 units, empty), strings that
 * must not be grouped (recorded as a prefix only, with U+0000 or a lone
 * surrogate, 9 copies), empty, under-filled and full lists, empty and used
 * maps and sets, const maps, zero-length arrays of three types and
 * ObjectPools of length 0, among random distinct strings. Without it: the
 * same kinds of objects, none wasted beyond what any program holds (the
 * VM's shared empty arrays, a couple of equal strings).
 */
#ifndef GCHEAP_TEST_DART_WASTE_H
#define GCHEAP_TEST_DART_WASTE_H

#include <stddef.h>
#include <stdint.h>

#include "dart_writer.h"

/* An expected row (gch_waste_row's fields that the oracle knows). */
typedef struct dwp_row {
    unsigned kind;      /* GCH_WASTE_* */
    char type[64];      /* the type's name as gcheap prints it ("_Map (dart:collection)") */
    uint64_t id;        /* duplicates: the member the copy is (the first); else 0 */
    uint64_t count, bytes, wasted, copy, length, used, capacity;
    char text[512];     /* duplicates: the value in UTF-8 */
    uint64_t holder_count; /* empty collections: how many App holds (0: no holder) */
    char holder[96];    /* and the detail --holders gives ("held by App (...).cache (13)") */
} dwp_row;

typedef struct dwp {
    dtw_buf snapshot;
    uint64_t heap_bytes;  /* the heap objects' sizes */
    dwp_row *rows;
    size_t nrows;
} dwp;

/* Writes the snapshot (seed varies the sizes and the extra strings) and the
 * rows waste finds with min_count and fill_below (percent, an integer). */
void dwp_make(uint64_t seed, int planted, uint64_t min_count, unsigned fill_pct, dwp *out);
/* The planted snapshot with `distinct` more distinct strings (and a full
 * list every 4), for timing: no rows (the oracle is quadratic). */
void dwp_make_big(uint64_t seed, size_t distinct, dwp *out);
void dwp_free(dwp *d);

#endif

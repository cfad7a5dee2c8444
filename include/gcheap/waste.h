/* gcheap/waste.h - memory that is not leaking but wasted (`gcheap waste`):
 * duplicate strings and primitive arrays, empty and under-filled
 * collections, zero-length arrays, boxed primitives with equal values.
 *
 * The sections read contents: an HPROF heap loaded with keep_payloads (and
 * keep_fields, gch_waste_field_classes() as field_classes, for the
 * collections and boxes). Contents are hashed while the file is read in
 * offset order, one block at a time (no copy of the heap's strings is kept);
 * the members of a candidate group are then compared byte by byte, so a
 * hash collision never merges two different values. The defaults are
 * Eclipse MAT's (docs/waste.md cites the sources).
 */
#ifndef GCHEAP_WASTE_H
#define GCHEAP_WASTE_H

#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"

typedef enum gch_waste_kind {
    GCH_WASTE_DUP_STRINGS = 0, /* equal java.lang.String values, distinct objects */
    GCH_WASTE_DUP_ARRAYS,      /* primitive arrays with equal contents (not String values) */
    GCH_WASTE_EMPTY,           /* collections holding nothing */
    GCH_WASTE_UNDERFILLED,     /* collections whose backing array is mostly empty */
    GCH_WASTE_ZERO_ARRAYS,     /* arrays of length 0 */
    GCH_WASTE_BOXED,           /* java.lang.Integer & co. with equal values */
    GCH_WASTE_KINDS
} gch_waste_kind;

/* Section names as the program prints them ("duplicate-strings", ...). */
const char *gch_waste_kind_name(unsigned kind);

/* One row: a group of equal values (duplicates) or a type (the others). */
typedef struct gch_waste_row {
    uint8_t kind;          /* gch_waste_kind */
    uint8_t elem;          /* duplicate arrays: GCH_ELEM_*; else 0 */
    uint32_t type;         /* the objects' type (the String type for strings) */
    uint32_t object;       /* one member (duplicates: the value's text is read from it) */
    uint64_t id;           /* its id */
    uint64_t count;        /* objects in the group or of the type */
    uint64_t bytes;        /* their bytes: shallow sizes, and for collections and
                              strings what they own (backing arrays, value arrays,
                              each counted once) */
    uint64_t copy;         /* duplicates: bytes of one copy (string + value array,
                              or the array); zero-length arrays, boxes: one object */
    uint64_t wasted;       /* duplicates: bytes - copy ((count-1) x copy when no two
                              members share a value array); empty collections: bytes;
                              under-filled: the unused share of the backing arrays;
                              zero-length arrays: (count-1) x size; boxes: the
                              instances beyond one a distinct value */
    uint64_t length;       /* duplicate arrays: elements; strings: code units */
    uint64_t distinct;     /* boxes: distinct values */
    uint64_t used, capacity; /* under-filled: total elements and slots (fill = used/capacity) */
    uint32_t holder_type;  /* empty collections: the type holding most of them, or GCH_NONE */
    uint32_t holder_label; /* and the field (string offset in the heap), or GCH_NONE */
    uint64_t holder_count; /* how many that field holds */
} gch_waste_row;

/* holder_label of a holder that is an array (the collection is an element). */
#define GCH_WASTE_ELEMENT (GCH_NONE - 1)

typedef struct gch_waste_options {
    uint64_t min_count;    /* duplicates, zero-length arrays, boxes: groups of at least
                              this many objects (0: MAT's 10) */
    double fill_below;     /* under-filled: 0 < used/capacity < this (0: MAT's 0.21) */
    const uint8_t *mask;   /* only objects with mask[o] nonzero (a live set); NULL: all */
    gch_read_at_fn read;   /* reads the dump's bytes at the payloads' offsets */
    void *read_ctx;
    int holders;           /* find each empty-collection type's top holder field: needs
                              references (reverse ones are built) and labels */
    int js;                /* a V8 snapshot: empty JS Arrays, Maps and Sets from the
                              references and their labels, and duplicate strings from
                              the texts of string nodes (payloads_kept: GCH_PAYLOAD_TEXT) */
    int text;              /* the Strings' values are in the heap's string pool
                              (GCH_PAYLOAD_TEXT: Ruby): duplicate-strings from them,
                              the only section such a dump allows; no read needed */
    int dart;              /* a Dart snapshot (payloads_kept): duplicate-strings from the
                              values recorded whole (GCH_PAYLOAD_TEXT without flags),
                              empty and under-filled lists, maps and sets and
                              zero-length arrays from the recorded lengths
                              (GCH_PAYLOAD_LENGTH); no read needed */
} gch_waste_options;

typedef struct gch_waste {
    gch_waste_row *rows;   /* by section, then wasted bytes descending */
    size_t count;
    uint64_t wasted[GCH_WASTE_KINDS]; /* each section's total over its rows */
    int available;         /* 0 when no section could be looked at (no contents) */
    unsigned sections;     /* bit 1 << kind for each section looked at */
    int fields;            /* 1 when instance fields were read (collections, boxes) */
} gch_waste;

/* The Java classes whose instance fields the collections and boxes need
 * (NULL-terminated): pass it as gch_load_options.field_classes. */
const char *const *gch_waste_field_classes(void);

/* Finds the waste of heap (whose reverse references it builds when
 * holders is set). GCH_EIO when a read fails (the file changed since it was
 * loaded), GCH_ENOMEM. Free *out with gch_waste_free. */
gch_status gch_waste_find(gch_heap *heap, const gch_waste_options *opts, gch_waste *out,
                          gch_error *err);
void gch_waste_free(gch_waste *w);

#endif

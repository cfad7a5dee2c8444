/* The set of object ids a histogram-only load has seen (builder.c,
 * gch_load_options.histogram_only): enough to count duplicate objects and
 * roots on absent objects exactly without storing the objects.
 *
 * While ids increase, which is how dumps list objects (by address), each id is
 * kept as the varint of its distance from the previous one: about one or two
 * bytes an object, and no id can repeat. The first id that does not increase
 * moves every id into a hash set (16 bytes or more an object), which tells a
 * repeat from a new id from then on. */
#ifndef GCHEAP_SEEN_IDS_H
#define GCHEAP_SEEN_IDS_H

#include <stddef.h>
#include <stdint.h>
#include "hash.h"
#include "threading.h"

/* Where a walk over the varints may start: the id at index (0-based) and the
 * offset just past its varint (seen_ids_count_absent's second thread). */
typedef struct seen_checkpoint {
    size_t pos;
    uint64_t id, index;
} seen_checkpoint;

typedef struct seen_ids {
    uint64_t count;          /* distinct ids added */
    uint64_t last;           /* the last id added while increasing */
    unsigned char *deltas;   /* varints, while increasing (set == NULL) */
    size_t delta_len, delta_cap;
    uint64_t *set;           /* open addressing, 0 = empty slot; NULL while increasing */
    size_t set_cap;          /* a power of 2 */
    int has_zero;            /* id 0, which the set cannot hold */
    gch_hash_key key;        /* the set's keyed hash (ids come from the input) */
    seen_checkpoint *checks; /* while increasing: one about every SEEN_CHECK_EVERY ids */
    size_t nchecks, checks_cap;
    uint64_t next_check;     /* the count from which the next one is taken */
} seen_ids;

/* Adds id. Returns 1 if it is new, 0 if it was seen before, -1 when out of
 * memory (the set is then unchanged). */
int seen_ids_add(seen_ids *s, uint64_t id);

/* Whether a run of strictly increasing ids starting at first may be added
 * with seen_ids_append: the ids still increase and first is past the last. */
int seen_ids_can_append(const seen_ids *s, uint64_t first);

/* Adds n >= 1 strictly increasing ids, first to last, given as first and the
 * varints of the n - 1 distances after it (rest, rest_len bytes: the encoding
 * of this file), after seen_ids_can_append(s, first) said yes. Returns 0, or
 * -1 when out of memory (the set is then unchanged). */
int seen_ids_append(seen_ids *s, uint64_t n, uint64_t first, uint64_t last,
                    const unsigned char *rest, size_t rest_len);

/* Writes the varint of v at out (room for 10 bytes); returns its length. The
 * encoding of the distances seen_ids keeps. */
size_t seen_ids_put_varint(unsigned char *out, uint64_t v);

/* How many of ids[0..n) are absent from the set, or -1 when out of memory. */
int64_t seen_ids_count_absent(const seen_ids *s, const uint64_t *ids, size_t n);

/* The same, on two threads when par allows it and the ids are many: the walk
 * over the increasing ids is cut at a checkpoint near the middle root. */
int64_t seen_ids_count_absent_par(const seen_ids *s, const uint64_t *ids, size_t n,
                                  const gch_parallel *par);

void seen_ids_free(seen_ids *s);

#endif

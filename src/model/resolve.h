/* Object id -> object index, for the builder: a sorted-id directory when ids
 * came in increasing order (dumps list objects by address), else a hash table.
 * Bulk resolution of reference arrays pipelines the lookups with software
 * prefetch and splits the work between two threads on big heaps. */
#ifndef GCHEAP_RESOLVE_H
#define GCHEAP_RESOLVE_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"
#include "hash.h"
#include "id_index.h"

typedef struct id_lookup {
    int sorted;
    id_index index;       /* sorted */
    uint32_t *table;      /* hashed: open addressing, UINT32_MAX = empty */
    size_t mask;
    gch_hash_key key;     /* hashed: the key the table was built with */
    const uint64_t *ids;
} id_lookup;

/* One id; UINT32_MAX when absent. */
static inline uint32_t id_lookup_find(const id_lookup *l, uint64_t id)
{
    if (l->sorted)
        return id_index_find(&l->index, id);
    for (size_t j = gch_hash_u64(id, &l->key) & l->mask; l->table[j] != UINT32_MAX; j = (j + 1) & l->mask)
        if (l->ids[l->table[j]] == id)
            return l->table[j];
    return UINT32_MAX;
}

/* Resolves n raw ids (uint64_t, native byte order, read with memcpy) stored
 * at refs, in place: afterwards refs holds n uint32_t indices, UINT32_MAX for
 * an absent id. *dangling receives the number of absent ids and *first_dangling
 * the first of them (unchanged when none). par: how many threads may share
 * the work. */
void id_lookup_resolve(const id_lookup *l, unsigned char *refs, uint64_t n, uint64_t *dangling,
                       uint64_t *first_dangling, const gch_parallel *par);

#endif

/* The library's one map from 64-bit keys to 32-bit values (internal):
 * open addressing with linear probing, hashed with the process's secret key
 * (hash.h: the keys come from the input), grown by hash.h's rule. Every key
 * may be stored, 0 included (it has a slot of its own). Not walked to
 * produce output. A zeroed map is empty; gch_u64_map_free empties it again.
 * Users: the Ruby reader (addresses), the V8 reader's DevTools view (the
 * interface tree's children). */
#ifndef GCHEAP_U64_MAP_H
#define GCHEAP_U64_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

typedef struct gch_u64_map {
    uint64_t *keys; /* 0: empty slot */
    uint32_t *vals;
    size_t cap, count;
    int has_zero;   /* key 0 is held, its value in zero_val */
    uint32_t zero_val;
    gch_hash_key key; /* drawn when the table is first allocated */
} gch_u64_map;

void gch_u64_map_free(gch_u64_map *m);
/* The value of k, or UINT32_MAX when absent. */
uint32_t gch_u64_map_get(const gch_u64_map *m, uint64_t k);
/* Puts k -> v unless k is there (*found says which); returns where the value
 * now held lives (the caller may change it), or NULL when out of memory. */
uint32_t *gch_u64_map_put(gch_u64_map *m, uint64_t k, uint32_t v, int *found);

#endif

/* Hash tables of the Ruby reader (internal): addresses to indices (its
 * strings go to the library's string table, src/util/str_table.h). It
 * hashes with the process's secret key (src/util/hash.h) and grows by
 * doubling; it is not walked to produce output. */
#ifndef GCHEAP_RUBY_TABLES_H
#define GCHEAP_RUBY_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* Address (never 0) -> 32-bit value. */
typedef struct rb_addr_map {
    uint64_t *keys; /* 0: empty slot */
    uint32_t *vals;
    size_t cap, count;
    gch_hash_key key;
} rb_addr_map;

void rb_addr_map_init(rb_addr_map *m);
void rb_addr_map_free(rb_addr_map *m);
/* The value of k, or UINT32_MAX when absent. */
uint32_t rb_addr_map_get(const rb_addr_map *m, uint64_t k);
/* Puts k -> v unless k is there; *found says which, *out the value now
 * held. Returns 0 when out of memory. */
int rb_addr_map_put(rb_addr_map *m, uint64_t k, uint32_t v, uint32_t *out, int *found);

#endif

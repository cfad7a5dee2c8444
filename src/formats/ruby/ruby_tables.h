/* Hash tables of the Ruby reader (internal): addresses to indices, and
 * strings (class names, allocation sites, synthetic type names) to
 * indices. Both hash with the process's secret key (src/util/hash.h) and
 * grow by doubling; neither is walked to produce output. */
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

/* Byte strings, kept in the map's own pool, numbered 0, 1, ... in the
 * order they were first put. */
typedef struct rb_str_map {
    char *pool;             /* the strings, each followed by a NUL */
    size_t pool_len, pool_cap;
    size_t *off;            /* per string: where it starts in pool */
    size_t *len;
    size_t n, ncap;
    uint32_t *slots;        /* string number + 1, 0: empty */
    uint64_t *hashes;       /* per string */
    size_t cap;
    gch_hash_key key;
} rb_str_map;

void rb_str_map_init(rb_str_map *m);
void rb_str_map_free(rb_str_map *m);
/* The number of s[0..n), added when new (*added = 1). Returns 0 when out
 * of memory (or past 2^32 - 2 strings). */
int rb_str_map_put(rb_str_map *m, const char *s, size_t n, uint32_t *out, int *added);
static inline const char *rb_str_map_text(const rb_str_map *m, uint32_t i)
{
    return m->pool + m->off[i];
}
static inline size_t rb_str_map_len(const rb_str_map *m, uint32_t i)
{
    return m->len[i];
}

#endif

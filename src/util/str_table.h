/* The library's one string table (interner): byte strings numbered 0, 1,
 * ... in the order they were first put, kept in the table's own pool, hashed
 * with the process's secret key (hash.h: the strings come from the input).
 * Not walked to produce output. Users: the Ruby reader (class names, sites,
 * synthetic type names), the V8 DevTools view (class and interface names),
 * leaks (type names and fields along paths).
 * Internal. */
#ifndef GCHEAP_STR_TABLE_H
#define GCHEAP_STR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

typedef struct gch_str_table {
    char *pool;             /* the strings, each followed by a NUL */
    size_t pool_len, pool_cap;
    size_t *off;            /* per string: where it starts in pool */
    size_t *len;
    size_t n, ncap;
    uint32_t *slots;        /* string number + 1, 0: empty */
    uint64_t *hashes;       /* per string */
    size_t cap;
    gch_hash_key key;
} gch_str_table;

void gch_str_table_init(gch_str_table *m);
void gch_str_table_free(gch_str_table *m);
/* The number of s[0..n), added when new (*added = 1). Returns 0 when out
 * of memory (or past 2^32 - 2 strings). */
int gch_str_table_put(gch_str_table *m, const char *s, size_t n, uint32_t *out, int *added);
static inline const char *gch_str_table_text(const gch_str_table *m, uint32_t i)
{
    return m->pool + m->off[i];
}
static inline size_t gch_str_table_len(const gch_str_table *m, uint32_t i)
{
    return m->len[i];
}

#endif

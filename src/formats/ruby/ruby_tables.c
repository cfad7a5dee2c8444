/* Hash tables of the Ruby reader (ruby_tables.h). */
#include "ruby_tables.h"

#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"

void rb_addr_map_init(rb_addr_map *m)
{
    memset(m, 0, sizeof *m);
    m->key = gch_hash_key_get();
}

void rb_addr_map_free(rb_addr_map *m)
{
    gch_free(m->keys);
    gch_free(m->vals);
    memset(m, 0, sizeof *m);
}

uint32_t rb_addr_map_get(const rb_addr_map *m, uint64_t k)
{
    if (!m->cap || !k)
        return UINT32_MAX;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)gch_hash_u64(k, &m->key) & mask;; i = (i + 1) & mask) {
        if (m->keys[i] == k)
            return m->vals[i];
        if (!m->keys[i])
            return UINT32_MAX;
    }
}

static int addr_rehash(rb_addr_map *m, size_t ncap)
{
    uint64_t *keys = gch_calloc(ncap, sizeof *keys);
    uint32_t *vals = gch_malloc(ncap * sizeof *vals);
    if (!keys || !vals) {
        gch_free(keys);
        gch_free(vals);
        return 0;
    }
    size_t mask = ncap - 1;
    for (size_t j = 0; j < m->cap; j++) {
        if (!m->keys[j])
            continue;
        size_t i = (size_t)gch_hash_u64(m->keys[j], &m->key) & mask;
        while (keys[i])
            i = (i + 1) & mask;
        keys[i] = m->keys[j];
        vals[i] = m->vals[j];
    }
    gch_free(m->keys);
    gch_free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = ncap;
    return 1;
}

int rb_addr_map_put(rb_addr_map *m, uint64_t k, uint32_t v, uint32_t *out, int *found)
{
    if ((m->count + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 64;
        if (ncap > SIZE_MAX / 16 || !addr_rehash(m, ncap))
            return 0;
    }
    size_t mask = m->cap - 1;
    size_t i = (size_t)gch_hash_u64(k, &m->key) & mask;
    for (; m->keys[i]; i = (i + 1) & mask) {
        if (m->keys[i] == k) {
            *found = 1;
            *out = m->vals[i];
            return 1;
        }
    }
    m->keys[i] = k;
    m->vals[i] = v;
    m->count++;
    *found = 0;
    *out = v;
    return 1;
}

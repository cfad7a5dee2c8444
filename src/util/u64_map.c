/* The 64-bit to 32-bit map: see u64_map.h. */
#include "u64_map.h"

#include <string.h>

#include "gcheap/alloc.h"

void gch_u64_map_free(gch_u64_map *m)
{
    gch_free(m->keys);
    gch_free(m->vals);
    memset(m, 0, sizeof *m);
}

uint32_t gch_u64_map_get(const gch_u64_map *m, uint64_t k)
{
    if (!k)
        return m->has_zero ? m->zero_val : UINT32_MAX;
    if (!m->cap)
        return UINT32_MAX;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)gch_hash_u64(k, &m->key) & mask;; i = (i + 1) & mask) {
        if (m->keys[i] == k)
            return m->vals[i];
        if (!m->keys[i])
            return UINT32_MAX;
    }
}

static int rehash(gch_u64_map *m, size_t ncap)
{
    uint64_t *keys = gch_calloc(ncap, sizeof *keys);
    uint32_t *vals = gch_malloc(ncap * sizeof *vals);
    if (!keys || !vals) {
        gch_free(keys);
        gch_free(vals);
        return 0;
    }
    if (!m->cap)
        m->key = gch_hash_key_get();
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

uint32_t *gch_u64_map_put(gch_u64_map *m, uint64_t k, uint32_t v, int *found)
{
    if (!k) {
        *found = m->has_zero;
        if (!m->has_zero)
            m->zero_val = v;
        m->has_zero = 1;
        return &m->zero_val;
    }
    if (gch_table_grows(m->count, m->cap)) {
        size_t ncap = gch_table_next(m->cap, 64);
        if (ncap > SIZE_MAX / 16 || !rehash(m, ncap))
            return NULL;
    }
    size_t mask = m->cap - 1;
    size_t i = (size_t)gch_hash_u64(k, &m->key) & mask;
    for (; m->keys[i]; i = (i + 1) & mask) {
        if (m->keys[i] == k) {
            *found = 1;
            return &m->vals[i];
        }
    }
    m->keys[i] = k;
    m->vals[i] = v;
    m->count++;
    *found = 0;
    return &m->vals[i];
}

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

void rb_str_map_init(rb_str_map *m)
{
    memset(m, 0, sizeof *m);
    m->key = gch_hash_key_get();
}

void rb_str_map_free(rb_str_map *m)
{
    gch_free(m->pool);
    gch_free(m->off);
    gch_free(m->len);
    gch_free(m->slots);
    gch_free(m->hashes);
    memset(m, 0, sizeof *m);
}

static int str_rehash(rb_str_map *m, size_t ncap)
{
    uint32_t *slots = gch_calloc(ncap, sizeof *slots);
    if (!slots)
        return 0;
    size_t mask = ncap - 1;
    for (size_t s = 0; s < m->n; s++) {
        size_t i = (size_t)m->hashes[s] & mask;
        while (slots[i])
            i = (i + 1) & mask;
        slots[i] = (uint32_t)s + 1;
    }
    gch_free(m->slots);
    m->slots = slots;
    m->cap = ncap;
    return 1;
}

int rb_str_map_put(rb_str_map *m, const char *s, size_t n, uint32_t *out, int *added)
{
    uint64_t h = gch_hash_bytes(s, n, &m->key);
    if (m->cap) {
        size_t mask = m->cap - 1;
        for (size_t i = (size_t)h & mask; m->slots[i]; i = (i + 1) & mask) {
            uint32_t j = m->slots[i] - 1;
            if (m->hashes[j] == h && m->len[j] == n && memcmp(m->pool + m->off[j], s, n) == 0) {
                *out = j;
                *added = 0;
                return 1;
            }
        }
    }
    if (m->n >= UINT32_MAX - 2 || n > SIZE_MAX - m->pool_len - 1)
        return 0;
    if ((m->n + 1) * 2 > m->cap && !str_rehash(m, m->cap ? m->cap * 2 : 64))
        return 0;
    size_t c1 = m->ncap, c2 = m->ncap, c3 = m->ncap;
    if (!gch_grow((void **)&m->off, &c1, m->n + 1, sizeof *m->off, 64) ||
        !gch_grow((void **)&m->len, &c2, m->n + 1, sizeof *m->len, 64) ||
        !gch_grow((void **)&m->hashes, &c3, m->n + 1, sizeof *m->hashes, 64))
        return 0;
    m->ncap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    if (!gch_grow((void **)&m->pool, &m->pool_cap, m->pool_len + n + 1, 1, 4096))
        return 0;
    memcpy(m->pool + m->pool_len, s, n);
    m->pool[m->pool_len + n] = '\0';
    m->off[m->n] = m->pool_len;
    m->len[m->n] = n;
    m->hashes[m->n] = h;
    m->pool_len += n + 1;
    size_t mask = m->cap - 1;
    size_t i = (size_t)h & mask;
    while (m->slots[i])
        i = (i + 1) & mask;
    m->slots[i] = (uint32_t)m->n + 1;
    *out = (uint32_t)m->n++;
    *added = 1;
    return 1;
}

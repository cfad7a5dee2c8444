/* The string table: see str_table.h. */
#include "str_table.h"

#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"

void gch_str_table_init(gch_str_table *m)
{
    memset(m, 0, sizeof *m);
    m->key = gch_hash_key_get();
}

void gch_str_table_free(gch_str_table *m)
{
    gch_free(m->pool);
    gch_free(m->off);
    gch_free(m->len);
    gch_free(m->slots);
    gch_free(m->hashes);
    memset(m, 0, sizeof *m);
}

static int rehash(gch_str_table *m, size_t ncap)
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

int gch_str_table_put(gch_str_table *m, const char *s, size_t n, uint32_t *out, int *added)
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
    if ((m->n + 1) * 2 > m->cap && !rehash(m, m->cap ? m->cap * 2 : 64))
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

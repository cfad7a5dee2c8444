/* Ids a histogram-only load has seen: see seen_ids.h. */
#include "seen_ids.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gcheap/alloc.h"
#include "radix_sort.h"
#include "resolve.h"

static int set_insert(uint64_t *set, size_t mask, uint64_t id, const gch_hash_key *key)
{
    size_t j = gch_hash_u64(id, key) & mask;
    while (set[j] != 0) {
        if (set[j] == id)
            return 0;
        j = (j + 1) & mask;
    }
    set[j] = id;
    return 1;
}

static int set_contains(const seen_ids *s, uint64_t id)
{
    if (id == 0)
        return s->has_zero;
    size_t mask = s->set_cap - 1;
    for (size_t j = gch_hash_u64(id, &s->key) & mask; s->set[j] != 0; j = (j + 1) & mask)
        if (s->set[j] == id)
            return 1;
    return 0;
}

/* Reads the varint at *p (written by put_varint: never past the end). */
static uint64_t get_varint(const unsigned char **p)
{
    uint64_t v = 0;
    unsigned shift = 0;
    const unsigned char *q = *p;
    while (*q & 0x80) {
        v |= (uint64_t)(*q++ & 0x7f) << shift;
        shift += 7;
    }
    v |= (uint64_t)*q++ << shift;
    *p = q;
    return v;
}

/* Makes the set hold at least twice the ids (half empty), from the varints
 * the first time. */
static int set_grow(seen_ids *s, uint64_t need)
{
    size_t cap = 16;
    while (cap < need * 2)
        cap *= 2;
    if (s->set && cap <= s->set_cap)
        return 1;
    uint64_t *set = gch_calloc(cap, sizeof *set);
    if (!set)
        return 0;
    size_t mask = cap - 1;
    if (!s->set)
        s->key = gch_hash_key_get();
    if (s->set) {
        for (size_t j = 0; j < s->set_cap; j++)
            if (s->set[j])
                set_insert(set, mask, s->set[j], &s->key);
        gch_free(s->set);
    } else {
        const unsigned char *p = s->deltas;
        uint64_t id = 0;
        for (uint64_t i = 0; i < s->count; i++) {
            id += get_varint(&p);
            if (id)
                set_insert(set, mask, id, &s->key);
            else
                s->has_zero = 1;
        }
        gch_free(s->deltas);
        s->deltas = NULL;
        s->delta_len = s->delta_cap = 0;
        gch_free(s->checks);
        s->checks = NULL;
        s->nchecks = s->checks_cap = 0;
    }
    s->set = set;
    s->set_cap = cap;
    return 1;
}

size_t seen_ids_put_varint(unsigned char *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (unsigned char)v;
    return n;
}

/* Room for need more bytes of varints. */
static int delta_room(seen_ids *s, size_t need)
{
    if (s->delta_cap - s->delta_len >= need)
        return 1;
    size_t cap = s->delta_cap ? s->delta_cap : 1 << 16;
    while (cap - s->delta_len < need) {
        if (cap > SIZE_MAX / 2)
            return 0;
        cap *= 2;
    }
    unsigned char *d = gch_realloc(s->deltas, cap);
    if (!d)
        return 0;
    s->deltas = d;
    s->delta_cap = cap;
    return 1;
}

static int put_varint(seen_ids *s, uint64_t v)
{
    if (!delta_room(s, 10))
        return 0;
    s->delta_len += seen_ids_put_varint(s->deltas + s->delta_len, v);
    return 1;
}

/* Walks may start at the id just added (index count, its varint ending at
 * delta_len), one about every SEEN_CHECK_EVERY ids; a failed allocation
 * only means fewer places to start from. */
#define SEEN_CHECK_EVERY 1024

static void note_checkpoint(seen_ids *s, uint64_t id)
{
    if (s->count < s->next_check)
        return;
    if (s->nchecks == s->checks_cap) {
        size_t cap = s->checks_cap ? s->checks_cap * 2 : 64;
        seen_checkpoint *c = gch_reallocarray(s->checks, cap, sizeof *c);
        if (!c)
            return;
        s->checks = c;
        s->checks_cap = cap;
    }
    s->checks[s->nchecks++] = (seen_checkpoint){ s->delta_len, id, s->count };
    s->next_check = s->count + SEEN_CHECK_EVERY;
}

int seen_ids_can_append(const seen_ids *s, uint64_t first)
{
    return !s->set && (s->count == 0 || first > s->last);
}

int seen_ids_append(seen_ids *s, uint64_t n, uint64_t first, uint64_t last,
                    const unsigned char *rest, size_t rest_len)
{
    if (rest_len > SIZE_MAX - 10 || !delta_room(s, rest_len + 10))
        return -1;
    s->delta_len += seen_ids_put_varint(s->deltas + s->delta_len, s->count ? first - s->last : first);
    note_checkpoint(s, first);
    if (rest_len)
        memcpy(s->deltas + s->delta_len, rest, rest_len);
    s->delta_len += rest_len;
    s->last = last;
    s->count += n;
    return 0;
}

int seen_ids_add(seen_ids *s, uint64_t id)
{
    if (!s->set) {
        if (s->count == 0 || id > s->last) {
            if (!put_varint(s, s->count ? id - s->last : id))
                return -1;
            note_checkpoint(s, id);
            s->last = id;
            s->count++;
            return 1;
        }
        if (!set_grow(s, s->count + 1))
            return -1;
    }
    int fresh;
    if (id == 0) {
        fresh = !s->has_zero;
        s->has_zero = 1;
    } else {
        if (!set_grow(s, s->count + 1))
            return -1;
        fresh = set_insert(s->set, s->set_cap - 1, id, &s->key);
    }
    s->count += (uint64_t)fresh;
    return fresh;
}

/* One walk over the increasing ids from a checkpoint, counting which of the
 * sorted ids [from, to) are absent (all of them >= the checkpoint's id). */
typedef struct absent_walk {
    const seen_ids *s;
    const uint64_t *sorted;
    size_t from, to;
    seen_checkpoint start;
    int64_t absent;
} absent_walk;

static int walk_absent(void *arg)
{
    absent_walk *w = arg;
    const seen_ids *s = w->s;
    const unsigned char *p = s->deltas + w->start.pos;
    uint64_t i = w->start.index, id = w->start.id;
    int64_t absent = 0;
    for (size_t k = w->from; k < w->to; k++) {
        while (i < s->count && id < w->sorted[k]) {
            if (++i < s->count)
                id += get_varint(&p);
        }
        absent += !(i < s->count && id == w->sorted[k]);
    }
    w->absent = absent;
    return 0;
}

int64_t seen_ids_count_absent_par(const seen_ids *s, const uint64_t *ids, size_t n,
                                  const gch_parallel *par)
{
    int64_t absent = 0;
    if (n == 0)
        return 0; /* ids may be NULL then */
    if (s->set) {
        for (size_t k = 0; k < n; k++)
            absent += !set_contains(s, ids[k]);
        return absent;
    }
    /* Increasing ids: walks over the varints with the ids sorted. */
    uint64_t *sorted = gch_reallocarray(NULL, n, 2 * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, ids, n * sizeof *sorted);
    gch_radix_sort_u64(sorted, NULL, n, sorted + n, NULL);
    absent_walk a = { s, sorted, 0, n, { 0, 0, 0 }, 0 };
    if (s->count == 0) {
        gch_free(sorted);
        return (int64_t)n;
    }
    const unsigned char *p = s->deltas;
    a.start.id = get_varint(&p);
    a.start.pos = (size_t)(p - s->deltas);
    /* The second walk starts at the last checkpoint at or before the middle
     * root, and takes the roots from there on. */
    size_t mid = n / 2, lo = 0, hi = s->nchecks;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (s->checks[m].id <= sorted[mid])
            lo = m + 1;
        else
            hi = m;
    }
    if (par && n >= 2 && lo > 0 && gch_parallel_worth(par, s->count)) {
        absent_walk b = { s, sorted, mid, n, s->checks[lo - 1], 0 };
        a.to = mid;
        gch_run_two(par->workers, 1, walk_absent, &a, &b);
        absent = a.absent + b.absent;
    } else {
        walk_absent(&a);
        absent = a.absent;
    }
    gch_free(sorted);
    return absent;
}

int64_t seen_ids_count_absent(const seen_ids *s, const uint64_t *ids, size_t n)
{
    return seen_ids_count_absent_par(s, ids, n, NULL);
}

void seen_ids_free(seen_ids *s)
{
    gch_free(s->checks);
    gch_free(s->deltas);
    gch_free(s->set);
    memset(s, 0, sizeof *s);
}

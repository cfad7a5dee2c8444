/* Duplicate strings from texts the heap keeps in its string pool
 * (GCH_PAYLOAD_TEXT): Ruby's String "value"s, the names of V8's string
 * nodes, the values of Dart strings. One grouping serves the three: the
 * values are in memory, so no window: each is hashed, candidates with an
 * equal (hash, length) are sorted together, and a run large enough to
 * report is split by comparing each member's bytes with one member's, so
 * only equal values are ever counted together (a hash collision splits a
 * run, never merges two values; the unit test forces collisions with
 * tuning.h's hash mask). A row's sizes are the string objects' own
 * (Ruby's memsize, V8's and Dart's shallow sizes); its object, whose size
 * is the copy, is the member with the first payload entry (the lowest
 * address in Ruby, the first node in V8, the first object in Dart). */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/utf8.h"
#include "waste_internal.h"

typedef struct tcand {
    uint64_t hash;
    uint32_t len;
    uint32_t pay; /* its payload entry */
} tcand;

static int tcand_order(const void *pa, const void *pb)
{
    const tcand *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->pay < b->pay ? -1 : a->pay > b->pay;
}

/* FNV-1a over the bytes, then mixed (the test's collisions come from the
 * hash mask, tuning.h). */
static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001B3ull;
    h ^= h >> 29;
    return h * 0x9E3779B97F4A7C15ull;
}

static const char *text_of(const wctx *w, const tcand *c)
{
    return gch_heap_string(w->h, (uint32_t)w->h->payloads[c->pay].offset);
}

static gch_status emit(wctx *w, const waste_text_rule *rule, const tcand *c, size_t n)
{
    gch_waste_row *r = waste_row(w, GCH_WASTE_DUP_STRINGS);
    if (!r)
        return GCH_ENOMEM;
    r->object = w->pidx[c[0].pay];
    r->type = w->h->object_type[r->object];
    r->count = n;
    r->length = rule->utf16_length ? gch_utf16_units(text_of(w, &c[0]), c[0].len) : c[0].len;
    r->copy = gch_object_size(w->h, r->object);
    for (size_t i = 0; i < n; i++)
        r->bytes += gch_object_size(w->h, w->pidx[c[i].pay]);
    r->wasted = r->bytes - r->copy;
    return GCH_OK;
}

/* The candidates c[0..n-1] of one (hash, length), in payload order: groups
 * of equal bytes, each emitted when it has min members; tmp has room for n. */
static gch_status split(wctx *w, const waste_text_rule *rule, uint64_t min, tcand *c, size_t n,
                        tcand *tmp)
{
    while (n >= min) {
        size_t same = 1, other = 0;
        const char *first = text_of(w, &c[0]);
        for (size_t i = 1; i < n; i++) {
            if (memcmp(first, text_of(w, &c[i]), c[0].len) == 0)
                c[same++] = c[i];
            else
                tmp[other++] = c[i];
        }
        if (same >= min) {
            gch_status st = emit(w, rule, c, same);
            if (st != GCH_OK)
                return st;
        }
        memcpy(c, tmp, other * sizeof *c);
        n = other;
    }
    return GCH_OK;
}

/* Whether payload entry p is a text to group: an exact, whole value (no
 * GCH_TEXT_* flag) held by a wanted object, under the rule's limit. */
static int groupable(const wctx *w, const waste_text_rule *rule, size_t i)
{
    const gch_payload *p = &w->h->payloads[i];
    if (p->kind != GCH_PAYLOAD_TEXT || p->elem != 0 || !waste_wanted(w, w->pidx[i]))
        return 0;
    if (p->offset == GCH_NONE)
        return p->length == 0; /* no text kept: only an empty one is known */
    return !rule->max_units ||
           gch_utf16_units(gch_heap_string(w->h, (uint32_t)p->offset), p->length) < rule->max_units;
}

gch_status waste_text_groups(wctx *w, const waste_text_rule *rule)
{
    const gch_heap *h = w->h;
    uint64_t min = w->min_count < 2 ? 2 : w->min_count; /* one string duplicates nothing */
    size_t n = 0;
    tcand *c = gch_reallocarray(NULL, h->payload_count ? h->payload_count : 1, sizeof *c);
    tcand *tmp = gch_reallocarray(NULL, h->payload_count ? h->payload_count : 1, sizeof *tmp);
    gch_status st = GCH_OK;
    if (!c || !tmp) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < h->payload_count; i++) {
        if (!groupable(w, rule, i))
            continue;
        const gch_payload *p = &h->payloads[i];
        const char *s = gch_heap_string(h, (uint32_t)p->offset);
        c[n++] = (tcand){ text_hash(s, p->length) & w->hash_mask, p->length, (uint32_t)i };
    }
    qsort(c, n, sizeof *c, tcand_order);
    for (size_t i = 0; i < n && st == GCH_OK;) {
        size_t j = i + 1;
        while (j < n && c[j].hash == c[i].hash && c[j].len == c[i].len)
            j++;
        if (j - i >= min)
            st = split(w, rule, min, c + i, j - i, tmp);
        i = j;
    }
    if (st == GCH_ENOMEM)
        gch_error_set(w->err, GCH_ENOMEM, "out of memory");
done:
    gch_free(c);
    gch_free(tmp);
    return st;
}

/* gch_waste_find and the instance-field API against a brute-force oracle.
 * Random HPROF dumps (tests/support/hprof_writer.c) hold Strings with
 * values from a small alphabet (so that many are equal), primitive arrays
 * with few distinct contents, zero-length arrays, collections (ArrayList, a
 * subclass of it, HashMap, HashSet) of random sizes and capacities, held by
 * fields and by array elements, and Integers. The oracle groups what the
 * generator wrote by comparing contents pairwise and takes each object's size
 * from the loaded heap (the dump's own sizes): every row of gch_waste_find
 * must be an oracle group with the same count, bytes and wasted bytes, and
 * the other way round. A tuning knob cuts the hash to 2 bits so that unequal
 * contents collide and the byte-wise comparison must split them. Ruby
 * dumps' String values (kept in the heap) are checked the same way. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "gcheap/waste.h"
#include "hprof_writer.h"
#include "tuning.h"

enum { C_STRING = 0x100, C_BYTES = 0x110, C_INTS = 0x120, C_OBJS = 0x130, C_ABSLIST = 0x140,
       C_ARRAYLIST = 0x150, C_HASHMAP = 0x160, C_HASHSET = 0x170, C_INTEGER = 0x180,
       C_HOLDER = 0x190, C_PLAIN = 0x1A0, C_MYLIST = 0x1B0 };
enum { N_STRING = 1, N_BYTES, N_INTS, N_OBJS, N_ABSLIST, N_ARRAYLIST, N_HASHMAP, N_HASHSET,
       N_INTEGER, N_HOLDER, N_PLAIN, N_MYLIST, F_VALUE, F_CODER, F_MODCOUNT, F_SIZE,
       F_ELEMENTDATA, F_TABLE, F_MAP, F_A };

#define MAXOBJ 4096
#define MAXLEN 8

/* What the generator wrote, object by object. */
typedef struct gobj {
    uint64_t id, cls;
    int kind;              /* 0 string, 1 prim array, 2 object array, 3 collection, 4 integer, 5 other */
    unsigned elem;         /* prim array: 8 byte, 10 int */
    uint32_t len;          /* arrays: elements */
    unsigned char data[MAXLEN * 4];
    uint64_t value;        /* string: its array; integer: value; collection: backing array / inner map */
    int size;              /* collection */
    uint64_t holder;       /* who references it (0: none) */
    const char *label;     /* the holder's field, or NULL for an array element */
} gobj;

typedef struct gen {
    hpw *w;
    gobj o[MAXOBJ];
    size_t n;
    uint64_t next;
    unsigned rng;
} gen;

static unsigned rnd(gen *g, unsigned n)
{
    g->rng = g->rng * 1103515245u + 12345u;
    return (g->rng >> 8) % n;
}

static gobj *add(gen *g, uint64_t cls, int kind)
{
    assert_true(g->n < MAXOBJ);
    gobj *o = &g->o[g->n++];
    memset(o, 0, sizeof *o);
    o->id = g->next;
    g->next += 0x10;
    o->cls = cls;
    o->kind = kind;
    return o;
}

static gobj *find(gen *g, uint64_t id)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->o[i].id == id)
            return &g->o[i];
    return NULL;
}

static void classes(hpw *w)
{
    static const char *const names[] = { NULL, "java/lang/String", "[B", "[I", "[Ljava/lang/Object;",
        "java/util/AbstractList", "java/util/ArrayList", "java/util/HashMap", "java/util/HashSet",
        "java/lang/Integer", "Holder", "Plain", "MyList", "value", "coder", "modCount", "size",
        "elementData", "table", "map", "a" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    static const uint64_t cls[] = { 0, C_STRING, C_BYTES, C_INTS, C_OBJS, C_ABSLIST, C_ARRAYLIST,
                                    C_HASHMAP, C_HASHSET, C_INTEGER, C_HOLDER, C_PLAIN, C_MYLIST };
    for (unsigned i = 1; i < sizeof cls / sizeof *cls; i++)
        hpw_load_class(w, i, cls[i], i);
    hpw_begin(w, 0x1C);
    const hpw_field string_f[] = { { F_VALUE, 2, 0 }, { F_CODER, 8, 0 } };
    const hpw_field abs_f[] = { { F_MODCOUNT, 10, 0 } };
    const hpw_field list_f[] = { { F_SIZE, 10, 0 }, { F_ELEMENTDATA, 2, 0 } };
    const hpw_field map_f[] = { { F_TABLE, 2, 0 }, { F_SIZE, 10, 0 } };
    const hpw_field set_f[] = { { F_MAP, 2, 0 } };
    const hpw_field int_f[] = { { F_VALUE, 10, 0 } };
    const hpw_field holder_f[] = { { F_A, 2, 0 } };
    const hpw_field plain_f[] = { { F_SIZE, 10, 0 } };
    hpw_class_dump(w, C_STRING, 0, 0, 9, NULL, 0, string_f, 2);
    hpw_class_dump(w, C_BYTES, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_INTS, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_OBJS, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_ABSLIST, 0, 0, 4, NULL, 0, abs_f, 1);
    hpw_class_dump(w, C_ARRAYLIST, C_ABSLIST, 0, 12, NULL, 0, list_f, 2);
    hpw_class_dump(w, C_HASHMAP, 0, 0, 12, NULL, 0, map_f, 2);
    hpw_class_dump(w, C_HASHSET, 0, 0, 8, NULL, 0, set_f, 1);
    hpw_class_dump(w, C_INTEGER, 0, 0, 4, NULL, 0, int_f, 1);
    hpw_class_dump(w, C_HOLDER, 0, 0, 8, NULL, 0, holder_f, 1);
    hpw_class_dump(w, C_PLAIN, 0, 0, 4, NULL, 0, plain_f, 1);
    hpw_class_dump(w, C_MYLIST, C_ARRAYLIST, 0, 0, NULL, 0, NULL, 0);
}

static void instance(gen *g, uint64_t id, uint64_t cls, const uint64_t *v, const unsigned *types, size_t n)
{
    unsigned char buf[64];
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += hpw_value(g->w, types[i], v[i], buf + len);
    hpw_instance(g->w, id, cls, buf, (uint32_t)len);
}

static uint64_t object_array(gen *g, uint32_t len, const uint64_t *elems)
{
    gobj *a = add(g, C_OBJS, 2);
    a->len = len;
    hpw_object_array(g->w, a->id, C_OBJS, elems, len);
    return a->id;
}

/* A collection of cls with size entries in a backing array of cap slots
 * (cap 0: none, as a HashMap before its first put). */
static uint64_t collection(gen *g, uint64_t cls, int size, uint32_t cap)
{
    static const uint64_t zeros[64];
    uint64_t array = cap || cls != C_HASHMAP ? object_array(g, cap, zeros) : 0;
    gobj *c = add(g, cls, 3);
    c->size = size;
    c->value = array;
    if (cls == C_HASHMAP) {
        const unsigned t[] = { 2, 10 };
        instance(g, c->id, cls, (uint64_t[]){ array, (uint64_t)size }, t, 2);
    } else {
        const unsigned t[] = { 10, 2, 10 }; /* ArrayList's own fields, then AbstractList's */
        instance(g, c->id, cls, (uint64_t[]){ (uint64_t)size, array, 7 }, t, 3);
    }
    return c->id;
}

static hpw *generate(gen *g, unsigned seed)
{
    memset(g, 0, sizeof *g);
    g->rng = seed;
    g->next = 0x10000;
    g->w = hpw_new("1.0.2", 8, 0);
    classes(g->w);
    /* Strings: values of 1..4 characters over "ab" (a tenth of them share the
     * value array of the string before). */
    uint64_t last_array = 0;
    for (int i = 0; i < 300; i++) {
        uint64_t arr = last_array;
        if (!last_array || rnd(g, 10) != 0) {
            gobj *a = add(g, C_BYTES, 1);
            a->elem = 8;
            a->len = 1 + rnd(g, 4);
            for (uint32_t k = 0; k < a->len; k++)
                a->data[k] = (unsigned char)('a' + rnd(g, 2));
            hpw_prim_array(g->w, a->id, 8, a->len, a->data);
            arr = a->id;
        }
        gobj *s = add(g, C_STRING, 0);
        s->value = last_array = arr;
        const unsigned t[] = { 2, 8 };
        instance(g, s->id, C_STRING, (uint64_t[]){ arr, 0 }, t, 2);
    }
    /* Primitive arrays: 0..3 elements of 0 or 1, bytes or ints. */
    for (int i = 0; i < 200; i++) {
        gobj *a = add(g, rnd(g, 2) ? C_BYTES : C_INTS, 1);
        a->elem = a->cls == C_BYTES ? 8 : 10;
        a->len = rnd(g, 4);
        unsigned es = a->elem == 8 ? 1 : 4;
        for (uint32_t k = 0; k < a->len; k++)
            a->data[k * es + es - 1] = (unsigned char)rnd(g, 2);
        hpw_prim_array(g->w, a->id, a->elem, a->len, a->data);
    }
    /* Collections, held by a Holder's field or by an Object[] element. */
    static const uint32_t caps[] = { 0, 1, 4, 10, 40 };
    uint64_t held[200];
    size_t nheld = 0;
    for (int i = 0; i < 150; i++) {
        unsigned kind = rnd(g, 4);
        int size = (int)rnd(g, 4);
        uint32_t cap = caps[rnd(g, 5)];
        if ((uint32_t)size > cap)
            size = (int)cap;
        uint64_t id;
        if (kind == 0 || kind == 1) {
            id = collection(g, kind ? C_MYLIST : C_ARRAYLIST, size, cap);
        } else if (kind == 2) {
            id = collection(g, C_HASHMAP, size, cap);
        } else {
            uint64_t map = collection(g, C_HASHMAP, size, cap);
            gobj *s = add(g, C_HASHSET, 3);
            s->value = map;
            s->size = size;
            const unsigned t[] = { 2 };
            instance(g, s->id, C_HASHSET, (uint64_t[]){ map }, t, 1);
            find(g, map)->holder = s->id;
            find(g, map)->label = "map";
            id = s->id;
        }
        if (rnd(g, 3)) {
            gobj *h = add(g, C_HOLDER, 5);
            const unsigned t[] = { 2 };
            instance(g, h->id, C_HOLDER, (uint64_t[]){ id }, t, 1);
            find(g, id)->holder = h->id;
            find(g, id)->label = "a";
        } else {
            held[nheld++] = id;
        }
    }
    uint64_t arr = object_array(g, (uint32_t)nheld, held);
    for (size_t i = 0; i < nheld; i++)
        find(g, held[i])->holder = arr;
    /* Integers 0..5, and Plain objects (a "size" field, no collection). */
    for (int i = 0; i < 100; i++) {
        gobj *b = add(g, C_INTEGER, 4);
        b->value = rnd(g, 6);
        const unsigned t[] = { 10 };
        instance(g, b->id, C_INTEGER, (uint64_t[]){ b->value }, t, 1);
    }
    for (int i = 0; i < 20; i++) {
        gobj *p = add(g, C_PLAIN, 5);
        const unsigned t[] = { 10 };
        instance(g, p->id, C_PLAIN, (uint64_t[]){ 0 }, t, 1);
    }
    hpw_end(g->w);
    hpw_begin(g->w, 0x2C);
    hpw_end(g->w);
    return g->w;
}

/* ---------------------------------------------------------------- oracle */

typedef struct expect {
    int kind;
    uint64_t count, bytes, wasted, holder_count;
    uint64_t cls;
    int seen;
} expect;

typedef struct oracle {
    expect e[MAXOBJ];
    size_t n;
} oracle;

static const gch_heap *cur_heap;

static uint64_t size_of(uint64_t id)
{
    for (uint32_t i = 0; i < cur_heap->object_count; i++)
        if (cur_heap->object_id[i] == id)
            return gch_object_size(cur_heap, i);
    fail_msg("no object 0x%llx", (unsigned long long)id);
    return 0;
}

static int same_contents(const gobj *a, const gobj *b)
{
    unsigned es = a->elem == 8 ? 1 : 4;
    return a->elem == b->elem && a->len == b->len && memcmp(a->data, b->data, a->len * es) == 0;
}

static void oracle_dups(gen *g, oracle *or, uint64_t min)
{
    uint8_t done[MAXOBJ] = { 0 }, is_value[MAXOBJ] = { 0 };
    for (size_t i = 0; i < g->n; i++)
        if (g->o[i].kind == 0)
            is_value[find(g, g->o[i].value) - g->o] = 1;
    for (size_t i = 0; i < g->n; i++) {
        gobj *a = &g->o[i];
        int str = a->kind == 0;
        if (done[i] || (!str && (a->kind != 1 || is_value[i] || a->len == 0)))
            continue;
        const gobj *av = str ? find(g, a->value) : a;
        uint64_t count = 0, bytes = 0, seen_arrays[MAXOBJ];
        size_t nseen = 0;
        for (size_t j = i; j < g->n; j++) {
            gobj *b = &g->o[j];
            if (done[j] || b->kind != a->kind || (!str && (is_value[j] || b->len == 0)))
                continue;
            const gobj *bv = str ? find(g, b->value) : b;
            if (!same_contents(av, bv))
                continue;
            done[j] = 1;
            count++;
            bytes += size_of(b->id);
            if (str) {
                int dup = 0;
                for (size_t k = 0; k < nseen; k++)
                    dup |= seen_arrays[k] == bv->id;
                if (!dup) {
                    seen_arrays[nseen++] = bv->id;
                    bytes += size_of(bv->id);
                }
            }
        }
        if (count < min)
            continue;
        uint64_t copy = size_of(a->id) + (str ? size_of(av->id) : 0);
        or->e[or->n++] = (expect){ str ? GCH_WASTE_DUP_STRINGS : GCH_WASTE_DUP_ARRAYS, count, bytes,
                                   bytes - copy, 0, a->cls, 0 };
    }
}

static void oracle_zero_and_boxes(gen *g, oracle *or, uint64_t min)
{
    static const uint64_t array_cls[] = { C_BYTES, C_INTS, C_OBJS };
    for (int k = 0; k < 3; k++) {
        uint64_t count = 0, bytes = 0, one = 0;
        for (size_t i = 0; i < g->n; i++)
            if (g->o[i].cls == array_cls[k] && g->o[i].len == 0) {
                count++;
                bytes += one = size_of(g->o[i].id);
            }
        if (count && count >= min)
            or->e[or->n++] = (expect){ GCH_WASTE_ZERO_ARRAYS, count, bytes, bytes - one, 0, array_cls[k], 0 };
    }
    uint64_t count = 0, bytes = 0, distinct = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (g->o[i].kind != 4)
            continue;
        count++;
        bytes += size_of(g->o[i].id);
        int first = 1;
        for (size_t j = 0; j < i; j++)
            first &= !(g->o[j].kind == 4 && g->o[j].value == g->o[i].value);
        distinct += first;
    }
    if (count >= min && distinct < count)
        or->e[or->n++] = (expect){ GCH_WASTE_BOXED, count, bytes,
                                   bytes - (uint64_t)((long double)bytes * distinct / count), 0, C_INTEGER, 0 };
}

/* A collection's slots and the bytes it owns beyond its own (a zero-length
 * backing array is not its own: the JDK shares one). */
static void owned(gen *g, const gobj *c, uint64_t *slots, uint64_t *bytes)
{
    *slots = *bytes = 0;
    if (c->cls == C_HASHSET) {
        const gobj *m = find(g, c->value);
        owned(g, m, slots, bytes);
        *bytes += size_of(m->id);
        return;
    }
    const gobj *a = c->value ? find(g, c->value) : NULL;
    if (a && a->len) {
        *slots = a->len;
        *bytes = size_of(a->id);
    }
}

static void oracle_collections(gen *g, oracle *or, double fill_below)
{
    static const uint64_t cls[] = { C_ARRAYLIST, C_MYLIST, C_HASHMAP, C_HASHSET };
    for (int k = 0; k < 4; k++) {
        uint64_t empty = 0, empty_bytes = 0, under = 0, under_bytes = 0, wasted = 0;
        /* holders: count per (holder class, label) */
        uint64_t hcls[64], hn[64];
        const char *hl[64];
        size_t nh = 0;
        for (size_t i = 0; i < g->n; i++) {
            gobj *c = &g->o[i];
            if (c->cls != cls[k] || c->kind != 3)
                continue;
            if (c->cls == C_HASHMAP && c->holder && find(g, c->holder)->cls == C_HASHSET)
                continue; /* a set's map counts with the set */
            uint64_t slots, bytes;
            owned(g, c, &slots, &bytes);
            uint64_t own = size_of(c->id);
            if (c->size == 0) {
                empty++;
                empty_bytes += own + bytes;
                if (c->holder) {
                    uint64_t hc = find(g, c->holder)->cls;
                    size_t h = 0;
                    while (h < nh && !(hcls[h] == hc && hl[h] == c->label))
                        h++;
                    if (h == nh) {
                        hcls[nh] = hc;
                        hl[nh] = c->label;
                        hn[nh++] = 0;
                    }
                    hn[h]++;
                }
            } else if (slots && (double)c->size < fill_below * (double)slots) {
                under++;
                under_bytes += own + bytes;
                uint64_t array_bytes = c->cls == C_HASHSET ? bytes - size_of(c->value) : bytes;
                wasted += (uint64_t)((long double)array_bytes * (long double)(slots - (uint64_t)c->size) /
                                     (long double)slots);
            }
        }
        uint64_t best = 0;
        for (size_t h = 0; h < nh; h++)
            best = hn[h] > best ? hn[h] : best;
        if (empty)
            or->e[or->n++] = (expect){ GCH_WASTE_EMPTY, empty, empty_bytes, empty_bytes, best, cls[k], 0 };
        if (under)
            or->e[or->n++] = (expect){ GCH_WASTE_UNDERFILLED, under, under_bytes, wasted, 0, cls[k], 0 };
    }
}

/* ---------------------------------------------------------------- checks */

typedef struct buf_src {
    const unsigned char *p;
    size_t n;
} buf_src;

static int read_buf(void *ctx, uint64_t off, void *out, size_t n)
{
    const buf_src *b = ctx;
    if (off > b->n || n > b->n - off)
        return 1;
    memcpy(out, b->p + off, n);
    return 0;
}

static uint64_t class_of_type(const gch_heap *h, uint32_t t)
{
    return h->type_raw_id[t];
}

static void check_seed(unsigned seed, uint64_t min, unsigned long long mask)
{
    static gen g;
    hpw *w = generate(&g, seed);
    gch_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.keep_payloads = 1;
    lo.keep_fields = 1;
    lo.field_classes = gch_waste_field_classes();
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &lo, &d, &err), GCH_OK);
    gch_heap *h = d->heaps[0];
    cur_heap = h;
    gch_tuning t = gch_tuning_get();
    t.waste_hash_mask = mask;
    gch_internal_set_tuning(&t);
    buf_src src = { w->buf, w->len };
    gch_waste_options o = { .min_count = min, .fill_below = 0.21, .read = read_buf, .read_ctx = &src, .holders = 1 };
    gch_waste res;
    assert_int_equal(gch_waste_find(h, &o, &res, &err), GCH_OK);
    gch_internal_set_tuning(NULL);
    static oracle or;
    or.n = 0;
    oracle_dups(&g, &or, min);
    oracle_zero_and_boxes(&g, &or, min);
    oracle_collections(&g, &or, 0.21);
    assert_true(res.available && res.fields);
    if (min == 2) { /* every section has something to find */
        int kinds[GCH_WASTE_KINDS] = { 0 };
        for (size_t k = 0; k < or.n; k++)
            kinds[or.e[k].kind]++;
        for (unsigned k = 0; k < GCH_WASTE_KINDS; k++)
            if (!kinds[k])
                fail_msg("seed %u: the oracle has no %s group", seed, gch_waste_kind_name(k));
    }
    for (size_t i = 0; i < res.count; i++) {
        const gch_waste_row *r = &res.rows[i];
        uint64_t cls = class_of_type(h, r->type);
        size_t k = 0;
        while (k < or.n && !(!or.e[k].seen && or.e[k].kind == r->kind && or.e[k].cls == cls &&
                             or.e[k].count == r->count && or.e[k].bytes == r->bytes &&
                             or.e[k].wasted == r->wasted))
            k++;
        if (k == or.n)
            fail_msg("seed %u: row %s count %llu bytes %llu wasted %llu of class 0x%llx is no oracle group",
                     seed, gch_waste_kind_name(r->kind), (unsigned long long)r->count,
                     (unsigned long long)r->bytes, (unsigned long long)r->wasted, (unsigned long long)cls);
        or.e[k].seen = 1;
        if (r->kind == GCH_WASTE_EMPTY)
            assert_int_equal(r->holder_count, or.e[k].holder_count);
    }
    for (size_t k = 0; k < or.n; k++)
        if (!or.e[k].seen)
            fail_msg("seed %u: oracle group %s count %llu wasted %llu not found", seed,
                     gch_waste_kind_name((unsigned)or.e[k].kind), (unsigned long long)or.e[k].count,
                     (unsigned long long)or.e[k].wasted);
    /* Sections total their rows. */
    uint64_t sum[GCH_WASTE_KINDS] = { 0 };
    for (size_t i = 0; i < res.count; i++)
        sum[res.rows[i].kind] += res.rows[i].wasted;
    for (unsigned k = 0; k < GCH_WASTE_KINDS; k++)
        assert_int_equal(sum[k], res.wasted[k]);
    gch_waste_free(&res);
    gch_dump_free(d);
    hpw_free(w);
}

static void test_against_oracle(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 6; seed++) {
        check_seed(seed, 10, 0);
        check_seed(seed, 2, 0);
    }
}

/* Hashes cut to 2 bits: nearly every candidate collides with others. */
static void test_collisions_split(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 4; seed++) {
        check_seed(seed, 2, 0x3);
        check_seed(seed, 5, 0x1);
    }
}

/* gch_instance_field: own and inherited fields, references, absent ones. */
static void test_instance_fields(void **state)
{
    (void)state;
    static gen g;
    hpw *w = generate(&g, 7);
    gch_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.keep_payloads = 1;
    lo.keep_fields = 1;
    static const char *const only_lists[] = { "java.util.ArrayList", NULL };
    lo.field_classes = only_lists;
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &lo, &d, &err), GCH_OK);
    const gch_heap *h = d->heaps[0];
    buf_src src = { w->buf, w->len };
    size_t lists = 0, maps = 0;
    for (size_t i = 0; i < g.n; i++) {
        const gobj *c = &g.o[i];
        uint32_t o = GCH_NONE;
        for (uint32_t k = 0; k < h->object_count; k++)
            if (h->object_id[k] == c->id)
                o = k;
        assert_true(o != GCH_NONE);
        gch_value v;
        if (c->cls == C_ARRAYLIST || c->cls == C_MYLIST) { /* MyList: a subclass, kept too */
            assert_int_equal(gch_instance_field(h, o, "size", read_buf, &src, &v), 1);
            assert_int_equal(v.type, GCH_ELEM_INT);
            assert_int_equal(v.bits, (uint64_t)c->size);
            assert_int_equal(gch_instance_field(h, o, "elementData", read_buf, &src, &v), 1);
            assert_int_equal(v.type, GCH_ELEM_OBJECT);
            assert_int_equal(v.bits, c->value);
            assert_int_equal(gch_instance_field(h, o, "modCount", read_buf, &src, &v), 1);
            assert_int_equal(v.bits, 7);
            assert_int_equal(gch_instance_field(h, o, "table", read_buf, &src, &v), 0);
            const gch_payload *a = gch_heap_payload(h, c->value);
            assert_non_null(a);
            assert_int_equal(a->elem, GCH_ELEM_OBJECT);
            assert_int_equal(a->length, find(&g, c->value)->len);
            lists++;
        } else if (c->cls == C_HASHMAP) { /* not in the list: its fields are known, not kept */
            assert_non_null(gch_type_field(h, h->object_type[o], "size"));
            assert_int_equal(gch_instance_field(h, o, "size", read_buf, &src, &v), 0);
            maps++;
        } else if (c->kind == 0) {
            assert_int_equal(gch_heap_payload(h, c->id)->kind, GCH_PAYLOAD_STRING);
        }
    }
    assert_true(lists > 10 && maps > 10);
    /* A failed read says so. */
    buf_src cut = { w->buf, 10 };
    for (uint32_t k = 0; k < h->object_count; k++)
        if (strcmp(gch_type_name(h, h->object_type[k]), "java.util.ArrayList") == 0) {
            gch_value v;
            assert_int_equal(gch_instance_field(h, k, "size", read_buf, &cut, &v), -1);
            break;
        }
    gch_dump_free(d);
    hpw_free(w);
}

/* No payloads (a plain load): nothing available, no rows, no error. */
static void test_no_contents(void **state)
{
    (void)state;
    static gen g;
    hpw *w = generate(&g, 3);
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, NULL, &d, &err), GCH_OK);
    buf_src src = { w->buf, w->len };
    gch_waste_options o = { .read = read_buf, .read_ctx = &src };
    gch_waste res;
    assert_int_equal(gch_waste_find(d->heaps[0], &o, &res, &err), GCH_OK);
    assert_int_equal(res.available, 0);
    assert_int_equal(res.count, 0);
    gch_waste_free(&res);
    gch_dump_free(d);
    hpw_free(w);
}

/* A read that fails in the middle: GCH_EIO, nothing left allocated. */
static void test_read_failure(void **state)
{
    (void)state;
    static gen g;
    hpw *w = generate(&g, 5);
    gch_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.keep_payloads = 1;
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &lo, &d, &err), GCH_OK);
    /* The file ends in the middle of the last array's elements. */
    const gch_heap *h = d->heaps[0];
    uint64_t last = 0;
    for (size_t i = 0; i < h->payload_count; i++)
        if (h->payloads[i].kind == GCH_PAYLOAD_ARRAY && h->payloads[i].length > 0 && h->payloads[i].offset > last)
            last = h->payloads[i].offset;
    buf_src src = { w->buf, (size_t)last };
    gch_waste_options o = { .read = read_buf, .read_ctx = &src };
    gch_waste res;
    assert_int_equal(gch_waste_find(d->heaps[0], &o, &res, &err), GCH_EIO);
    assert_int_equal(res.count, 0);
    assert_null(res.rows);
    gch_dump_free(d);
    hpw_free(w);
}

/* Ruby dumps: duplicate-strings from the values kept in the heap (the
 * reader's GCH_PAYLOAD_TEXT). Random STRING lines with values from a small
 * alphabet, some without a value (non-ASCII in a real dump), random
 * memsizes; the oracle groups the lines it wrote by comparing values: count,
 * bytes (the sum of memsize), wasted (bytes less the memsize of the lowest
 * address). Every row is an oracle group and the other way round; with 1-
 * and 2-bit hashes too. */
static void test_ruby_strings(void **state)
{
    (void)state;
    static const char *const vals[] = { "a", "b", "ab", "ba", "", "abc", "x\\\"y", "a b" };
    enum { NS = 600, NV = 8 };
    static unsigned val[NS], size[NS];
    uint64_t seedv = 88172645463325252ull;
    for (unsigned mask = 0; mask <= 3; mask++)
        for (unsigned min = 2; min <= 40; min += 19) {
            size_t cap = NS * 128 + 256, len = 0;
            char *t = malloc(cap);
            assert_non_null(t);
            for (unsigned i = 0; i < NS; i++) {
                seedv ^= seedv << 13, seedv ^= seedv >> 7, seedv ^= seedv << 17;
                val[i] = (unsigned)(seedv % (NV + 2)); /* NV, NV + 1: no value */
                size[i] = 40 + 8 * (unsigned)(seedv >> 40 & 3);
                len += (size_t)snprintf(t + len, cap - len, "{\"address\":\"0x%x\", \"type\":\"STRING\"", 0x1000 + 0x28 * i);
                if (val[i] < NV)
                    len += (size_t)snprintf(t + len, cap - len, ", \"value\":\"%s\"", vals[val[i]]);
                len += (size_t)snprintf(t + len, cap - len, ", \"memsize\":%u}\n", size[i]);
            }
            gch_load_options lo;
            memset(&lo, 0, sizeof lo);
            lo.keep_payloads = 1;
            gch_dump *d = NULL;
            gch_error err;
            assert_int_equal(gch_load_buffer(t, len, GCH_FORMAT_RUBY, &lo, &d, &err), GCH_OK);
            gch_tuning tk = gch_tuning_get();
            tk.waste_hash_mask = mask;
            gch_internal_set_tuning(mask ? &tk : NULL);
            gch_waste_options o = { .min_count = min, .text = 1 };
            gch_waste res;
            assert_int_equal(gch_waste_find(d->heaps[0], &o, &res, &err), GCH_OK);
            gch_internal_set_tuning(NULL);
            assert_true(res.available);
            size_t groups = 0;
            for (unsigned v = 0; v < NV; v++) {
                uint64_t count = 0, bytes = 0, copy = 0;
                for (unsigned i = 0; i < NS; i++)
                    if (val[i] == v) {
                        if (!count++)
                            copy = size[i]; /* addresses increase with i */
                        bytes += size[i];
                    }
                if (count < min)
                    continue;
                groups++;
                size_t k = 0;
                while (k < res.count && !(res.rows[k].count == count && res.rows[k].bytes == bytes &&
                                          res.rows[k].wasted == bytes - copy))
                    k++;
                if (k == res.count)
                    fail_msg("mask %u min %u: value %u (%llu copies, %llu bytes) has no row", mask, min, v,
                             (unsigned long long)count, (unsigned long long)bytes);
                assert_int_equal(res.rows[k].kind, GCH_WASTE_DUP_STRINGS);
            }
            assert_int_equal(res.count, groups);
            gch_waste_free(&res);
            gch_dump_free(d);
            free(t);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_oracle),
        cmocka_unit_test(test_collisions_split),
        cmocka_unit_test(test_instance_fields),
        cmocka_unit_test(test_no_contents),
        cmocka_unit_test(test_read_failure),
        cmocka_unit_test(test_ruby_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

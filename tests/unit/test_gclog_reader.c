/* The .gclog reader and the heap builder, checked against hand counts and
 * against an independent model of random dumps rendered as text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gcheap/dominators.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "heap_check.h"
#include "thin.h"
#include "tuning.h"

static void assert_heaps_equal(const gch_heap *x, const gch_heap *y);

static gch_dump *parse_ok(const char *text)
{
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = gch_read_gclog_buffer(text, strlen(text), NULL, &d, &err);
    if (st != GCH_OK)
        fail_msg("parse failed at line %llu: %s", (unsigned long long)err.line, err.message);
    return d;
}

static void expect_error_n(const char *text, size_t size, uint64_t line, const char *fragment)
{
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = gch_read_gclog_buffer(text, size, NULL, &d, &err);
    assert_int_equal(st, GCH_EFORMAT);
    assert_null(d);
    assert_int_equal(err.line, line);
    if (!strstr(err.message, fragment))
        fail_msg("message '%s' lacks '%s'", err.message, fragment);
}

static void expect_error(const char *text, uint64_t line, const char *fragment)
{
    expect_error_n(text, strlen(text), line, fragment);
}

static const char seed_text[] =
    "a 2 bubblecs.exe 763f9d2\n"
    "t 2 System.RuntimeType\n"
    "o 7c79f 2 64\n"
    "t 1 System.NullReferenceException\n"
    "o 7cb42 2 64\n"
    "o 1ce004 1 18\n"
    "t 3 System.OutOfMemoryException\n"
    "o 1ce056 1d 118 1ce11f 1ce14c 1ce079 1ce113 1ce116 1ce267 1ce26a 1ce26d\n"
    "r 22c81b 5 0\n"
    "o 22c81e 1b 24\n"
    "r 22c81e 5 0\n"
    "o 22c823 1b 28\n"
    "r 22c823 5 0\n"
    "c bubblecs.exe 763fbef\n";

/* The seed document's own example: undeclared types 1d and 1b, eight
 * references to objects with no record, a root on an absent object. */
static void test_seed_example(void **state)
{
    (void)state;
    gch_dump *d = parse_ok(seed_text);
    assert_int_equal(d->heap_count, 1);
    gch_heap *h = d->heaps[0];
    assert_string_equal(h->name, "bubblecs.exe");
    assert_int_equal(h->object_count, 6);
    /* 0x64 + 0x64 + 0x18 + 0x118 + 0x24 + 0x28 = 100+100+24+280+36+40 */
    assert_int_equal(h->total_size, 580);
    assert_int_equal(h->object_id[3], 0x1ce056);
    assert_string_equal(gch_type_name(h, h->object_type[3]), "<unknown type 1d>");
    assert_string_equal(gch_type_name(h, h->object_type[4]), "<unknown type 1b>");
    assert_string_equal(gch_type_name(h, h->object_type[2]), "System.NullReferenceException");
    assert_int_equal(h->ref_count, 0);
    assert_int_equal(h->anomalies.dangling_refs, 8);
    assert_int_equal(h->anomalies.first_dangling_ref, 0x1ce11f);
    assert_int_equal(h->anomalies.unknown_types, 2);
    assert_int_equal(h->anomalies.unknown_type_objects, 3);
    assert_int_equal(h->anomalies.dangling_roots, 1);
    assert_int_equal(h->anomalies.missing_end, 0);
    assert_int_equal(h->root_count, 3);
    assert_int_equal(h->root_object[0], GCH_NONE);
    assert_int_equal(h->root_object[1], 4);
    assert_int_equal(h->root_kind[2], GCH_ROOT_RUNTIME);
    gch_dump_free(d);
}

/* Type after use, nulls, self and cyclic references, statics, weak roots. */
static void test_references_and_roots(void **state)
{
    (void)state;
    gch_dump *d = parse_ok("a 2 x.exe\n"
                           "o 10 1 8 20 0 10\n"
                           "o 20 2 10 10\n"
                           "t 1 A\n"
                           "t 2 B, with spaces\n"
                           "r 20 4 3 1\n"
                           "r 10 3 2\n"
                           "c x.exe\n");
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 2);
    assert_int_equal(h->ref_count, 3);
    /* object 10: refs 20 and itself (the null is dropped) */
    assert_int_equal(h->out_start[0], 0);
    assert_int_equal(h->out_start[1], 2);
    assert_int_equal(h->out_target[0], 1);
    assert_int_equal(h->out_target[1], 0);
    assert_int_equal(h->out_target[2], 0);
    assert_string_equal(gch_type_name(h, h->object_type[1]), "B, with spaces");
    assert_int_equal(h->root_kind[0], GCH_ROOT_STATIC);
    assert_int_equal(h->root_flags[0], GCH_ROOT_PINNED | GCH_ROOT_WEAK);
    assert_int_equal(h->root_has_container[0], 1);
    assert_string_equal(gch_type_name(h, h->root_container[0]), "A");
    assert_int_equal(h->root_has_container[1], 0);
    assert_int_equal(h->anomalies.unknown_types, 0);
    assert_int_equal(h->anomalies.dangling_refs, 0);
    assert_int_equal(h->total_size, 0x18);
    /* reverse edges: 20 is referenced by 10; 10 by 10 (self) and 20 */
    assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
    assert_int_equal(h->in_start[1] - h->in_start[0], 2);
    assert_int_equal(h->in_start[2] - h->in_start[1], 1);
    assert_int_equal(h->in_source[h->in_start[1]], 0);
    gch_dump_free(d);
}

static void test_duplicates_first_wins(void **state)
{
    (void)state;
    gch_dump *d = parse_ok("a 2 x\n"
                           "t 1 A\n"
                           "t 1 Other\n"
                           "o 10 1 8 20\n"
                           "o 20 1 4\n"
                           "o 10 1 100 10\n"
                           "o 30 1 2 10\n"
                           "c x\n");
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 3);
    assert_int_equal(h->anomalies.duplicate_objects, 1);
    assert_int_equal(h->anomalies.first_duplicate_object, 0x10);
    assert_int_equal(h->anomalies.duplicate_types, 1);
    assert_string_equal(gch_type_name(h, 0), "A");
    /* 8 + 4 + 2: the second record of 10 (size 0x100) is ignored */
    assert_int_equal(h->total_size, 14);
    assert_int_equal(h->object_id[2], 0x30);
    /* 30 -> 10 resolves to the first record, index 0 */
    assert_int_equal(h->out_target[h->out_start[2]], 0);
    assert_int_equal(h->ref_count, 2);
    gch_dump_free(d);
}

static void test_sections_and_truncation(void **state)
{
    (void)state;
    gch_dump *d = parse_ok("a 2 one.exe 10\no 1 1 4\nc one.exe 20\n"
                           "a 2 two.exe\no 1 1 8\no 2 1 8 1\n"
                           "a 2 three.exe\no 5 1 1\nc wrong.exe\n");
    assert_int_equal(d->heap_count, 3);
    assert_string_equal(d->heaps[0]->name, "one.exe");
    assert_int_equal(d->heaps[0]->total_size, 4);
    assert_int_equal(d->heaps[0]->anomalies.missing_end, 0);
    /* the second section is closed by the next 'a': truncated */
    assert_int_equal(d->heaps[1]->anomalies.missing_end, 1);
    assert_int_equal(d->heaps[1]->ref_count, 1);
    assert_int_equal(d->heaps[2]->anomalies.missing_end, 0);
    assert_int_equal(d->heaps[2]->anomalies.end_name_mismatch, 1);
    gch_dump_free(d);

    d = parse_ok("a 2 last\no 1 1 4");
    assert_int_equal(d->heaps[0]->anomalies.missing_end, 1);
    assert_int_equal(d->heaps[0]->object_count, 1);
    gch_dump_free(d);
}

static void test_whitespace_variants(void **state)
{
    (void)state;
    gch_dump *a = parse_ok("a 2 w 5\nt 1 T x\no 1 1 8 2\no 2 1 4\nr 1 1 0\nc w 6\n");
    gch_dump *b = parse_ok("\r\n  a\t2  w\t5\r\n\n t 1\tT x \r\n\to  1 1\t8   2\t\r\no 2 1 4\r\n"
                           "r 1 1 0\r\n\r\nc w 6");
    gch_heap *x = a->heaps[0], *y = b->heaps[0];
    assert_int_equal(x->object_count, y->object_count);
    assert_int_equal(x->total_size, y->total_size);
    assert_int_equal(x->ref_count, y->ref_count);
    assert_string_equal(gch_type_name(y, 0), "T x");
    assert_string_equal(y->name, "w");
    assert_int_equal(y->root_count, 1);
    gch_dump_free(a);
    gch_dump_free(b);
}

static void test_malformed_records(void **state)
{
    (void)state;
    expect_error("a 2 x\nq 1 2\n", 2, "unknown record type 'q'");
    expect_error("a 2 x\nob 1 2\n", 2, "unknown record type 'ob'");
    expect_error("a 2 x\no 1 2\n", 2, "missing object size");
    expect_error("a 2 x\no 1\n", 2, "missing type id");
    expect_error("a 2 x\no 1 2 3 4 zz\n", 2, "reference 'zz' is not a hexadecimal number");
    expect_error("a 2 x\no 1 2 g\n", 2, "object size 'g' is not a hexadecimal number");
    expect_error("a 2 x\no 10000000000000000 1 1\n", 2, "wider than 64 bits");
    expect_error("a 2 x\nt 1\n", 2, "missing type name");
    expect_error("a 2 x\nr 1 6 0\n", 2, "root kind 6");
    expect_error("a 2 x\nr 1 1 100\n", 2, "root flags 100");
    expect_error("a 2 x\nr 1 4 0 5 6\n", 2, "unexpected extra field '6'");
    expect_error("o 1 1 1\n", 1, "outside an appdomain section");
    expect_error("\n\nc x\n", 3, "no appdomain section is open");
    expect_error("a\n", 1, "missing format version");
    expect_error("a 2\n", 1, "missing appdomain name");
    expect_error("a 2 x\no 1 1 1\ro 2 1 1\n", 2, "carriage return");
    static const char nul_name[] = "a 2 x\nt 1 A\0B\n";
    expect_error_n(nul_name, sizeof nul_name - 1, 2, "NUL byte");
    /* empty input and blank-only input are not dumps */
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_gclog_buffer("", 0, NULL, &d, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "no 'a' record"));
    assert_int_equal(gch_read_gclog_buffer("\n \n", 3, NULL, &d, &err), GCH_EFORMAT);
}

static void test_wide_numbers(void **state)
{
    (void)state;
    /* 16 significant digits fit; leading zeros do not count */
    gch_dump *d = parse_ok("a 2 x\no ffffffffffffffff 1 0000000000000000001\nc x\n");
    assert_int_equal(d->heaps[0]->object_id[0], UINT64_MAX);
    assert_int_equal(d->heaps[0]->total_size, 1);
    gch_dump_free(d);
}

static void test_size_overflow_is_refused(void **state)
{
    (void)state;
    const char *text = "a 2 x\no 1 1 ffffffffffffffff\no 2 1 1\nc x\n";
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_gclog_buffer(text, strlen(text), NULL, &d, &err), GCH_ELIMIT);
    assert_non_null(strstr(err.message, "2^64"));
    assert_null(d);
}

/* Regression (found by fuzz_pipeline): roots in a heap without objects were
 * resolved against an empty id directory (a NULL id array). */
static void test_roots_in_a_heap_without_objects(void **state)
{
    (void)state;
    for (int skip = 0; skip < 2; skip++) {
        gch_load_options o = { 0 };
        o.skip_refs = skip;
        gch_dump *d = NULL;
        gch_error err;
        static const char text[] = "a 2 app\nt 1 8\nr 1 4 0\nr 2 3 0\nc app\n";
        assert_int_equal(gch_read_gclog_buffer(text, sizeof text - 1, &o, &d, &err), GCH_OK);
        const gch_heap *h = d->heaps[0];
        assert_int_equal(h->object_count, 0);
        assert_int_equal(h->root_count, 2);
        assert_int_equal(h->root_object[0], GCH_NONE);
        assert_int_equal(h->root_object[1], GCH_NONE);
        assert_int_equal(h->anomalies.dangling_roots, 2);
        assert_null(heap_check_dump(d));
        gch_dump_free(d);
    }
}

static void test_skip_refs(void **state)
{
    (void)state;
    gch_load_options o = { 0 };
    o.skip_refs = 1;
    gch_dump *d = NULL;
    gch_error err;
    const char *text = "a 2 x\no 1 1 8 2 3\no 2 1 4 1\nc x\n";
    assert_int_equal(gch_read_gclog_buffer(text, strlen(text), &o, &d, &err), GCH_OK);
    assert_int_equal(d->heaps[0]->ref_count, 0);
    assert_int_equal(d->heaps[0]->object_count, 2);
    assert_int_equal(d->heaps[0]->total_size, 12);
    gch_dump_free(d);
}

/* ---- random dumps vs an independent model ---- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct model_object {
    uint64_t id, type, size;
    uint64_t refs[8];
    int nrefs;
} model_object;

typedef struct text_buf {
    char *p;
    size_t n, cap;
} text_buf;

static void put(text_buf *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        if ((size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        t->cap = t->cap * 2 + (size_t)k + 64;
        t->p = realloc(t->p, t->cap);
        assert_non_null(t->p);
    }
}

static const char *sep(void)
{
    static const char *const seps[] = { " ", " ", " ", "\t", "  ", " \t " };
    return seps[rnd() % 6];
}

/* A source that hands out the text in tiny random pieces: line and block
 * boundaries must not matter. */
typedef struct piece_source {
    const char *p;
    size_t left;
} piece_source;

static long long piece_read(void *ctx, void *buf, size_t cap)
{
    piece_source *s = ctx;
    size_t n = 1 + rnd() % 7;
    if (n > cap)
        n = cap;
    if (n > s->left)
        n = s->left;
    memcpy(buf, s->p, n);
    s->p += n;
    s->left -= n;
    return (long long)n;
}

static void check_random_dump(int round)
{
    int nobj = 1 + (int)(rnd() % 40), ntypes = 1 + (int)(rnd() % 6);
    model_object *obj = calloc((size_t)nobj, sizeof *obj);
    assert_non_null(obj);
    /* distinct ids: a random base plus increasing gaps */
    uint64_t id = 1 + rnd() % 1000;
    for (int i = 0; i < nobj; i++) {
        obj[i].id = id;
        id += 1 + rnd() % 50;
        obj[i].type = 1 + rnd() % (uint64_t)ntypes;
        obj[i].size = rnd() % 100000;
    }
    /* Half the dumps list objects out of id order (the hash-table path). */
    if (rnd() % 2) {
        for (int i = nobj - 1; i > 0; i--) {
            int j = (int)(rnd() % (uint64_t)(i + 1));
            model_object tmp = obj[i];
            obj[i] = obj[j];
            obj[j] = tmp;
        }
    }
    uint64_t dangling = 0;
    for (int i = 0; i < nobj; i++) {
        obj[i].nrefs = (int)(rnd() % 8);
        for (int k = 0; k < obj[i].nrefs; k++) {
            int what = (int)(rnd() % 10);
            if (what == 0) {
                obj[i].refs[k] = 0; /* null */
            } else if (what == 1) {
                obj[i].refs[k] = id + 1 + rnd() % 100; /* beyond every id: absent */
                dangling++;
            } else {
                obj[i].refs[k] = obj[rnd() % (uint64_t)nobj].id;
            }
        }
    }
    text_buf t = { malloc(256), 0, 256 };
    assert_non_null(t.p);
    put(&t, "a%s2%sdom%d%s%x\n", sep(), sep(), round, sep(), round);
    int declared_at = (int)(rnd() % (uint64_t)(nobj + 1)); /* types may follow their objects */
    for (int i = 0; i <= nobj; i++) {
        if (i == declared_at)
            for (int ty = 1; ty <= ntypes; ty++)
                put(&t, "t%s%x%sType%d, v=%d\n", sep(), ty, sep(), ty, round);
        if (i == nobj)
            break;
        put(&t, "o%s%llx%s%llx%s%llx", sep(), (unsigned long long)obj[i].id, sep(),
            (unsigned long long)obj[i].type, sep(), (unsigned long long)obj[i].size);
        for (int k = 0; k < obj[i].nrefs; k++)
            put(&t, "%s%llx", sep(), (unsigned long long)obj[i].refs[k]);
        put(&t, rnd() % 3 ? "\n" : "\r\n");
    }
    int root = (int)(rnd() % (uint64_t)nobj);
    put(&t, "r %llx 4 1 %x\n", (unsigned long long)obj[root].id, 1);
    if (rnd() % 2)
        put(&t, "c dom%d %x", round, round + 1); /* sometimes no final newline */

    gch_dump *d = NULL;
    gch_error err;
    piece_source ps = { t.p, t.n };
    gch_source src = { piece_read, &ps };
    if (gch_read_gclog(&src, NULL, &d, &err) != GCH_OK)
        fail_msg("round %d: %s (line %llu)", round, err.message, (unsigned long long)err.line);
    /* The same text parsed in place, from a buffer of its exact size (so that
     * AddressSanitizer sees any read past its end), gives the same heap. */
    char *exact = malloc(t.n ? t.n : 1);
    assert_non_null(exact);
    memcpy(exact, t.p, t.n);
    gch_dump *in_place = NULL;
    if (gch_read_gclog_buffer(exact, t.n, NULL, &in_place, &err) != GCH_OK)
        fail_msg("round %d in place: %s (line %llu)", round, err.message,
                 (unsigned long long)err.line);
    assert_int_equal(in_place->heap_count, d->heap_count);
    assert_heaps_equal(in_place->heaps[0], d->heaps[0]);
    const char *why = heap_check_dump(in_place);
    if (why)
        fail_msg("round %d: %s", round, why);
    gch_dump_free(in_place);
    free(exact);
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, nobj);
    uint64_t total = 0, refs = 0;
    for (int i = 0; i < nobj; i++) {
        assert_int_equal(h->object_id[i], obj[i].id);
        assert_int_equal(gch_object_size(h, i), obj[i].size);
        char name[64];
        snprintf(name, sizeof name, "Type%d, v=%d", (int)obj[i].type, round);
        assert_string_equal(gch_type_name(h, h->object_type[i]), name);
        total += obj[i].size;
        uint32_t e = h->out_start[i];
        for (int k = 0; k < obj[i].nrefs; k++) {
            uint64_t r = obj[i].refs[k];
            if (r == 0 || r > id)
                continue;
            assert_true(e < h->out_start[i + 1]);
            assert_int_equal(h->object_id[h->out_target[e]], r);
            e++;
            refs++;
        }
        assert_int_equal(e, h->out_start[i + 1]);
    }
    assert_int_equal(h->total_size, total);
    assert_int_equal(h->ref_count, refs);
    assert_int_equal(h->anomalies.dangling_refs, dangling);
    assert_int_equal(h->root_object[0], (uint32_t)root);
    gch_dump_free(d);
    free(t.p);
    free(obj);
}

static void test_random_dumps_match_model(void **state)
{
    (void)state;
    rng_state = 12345;
    for (int round = 0; round < 2000; round++)
        check_random_dump(round);
}


/* ---- the block-splitting parser and the threaded paths ----
 *
 * Tiny knobs make every region split into two chunks parsed by two threads,
 * cut lines across read blocks, grow the buffer for long lines, and resolve
 * references with two threads. Results must not depend on any of it. */

static const gch_tuning tiny_defaults = { 1, 1, 64, 0, 0, 2, 0, 0, 0 };

static void set_tiny(size_t read_block)
{
    gch_tuning t = tiny_defaults;
    t.read_block = read_block;
    t.no_read_ahead = read_block % 3 == 0; /* blocks read in line, or by the reader thread */
    gch_internal_set_tuning(&t);
}

/* Sizes of 2^32 - 1 and more do not fit the heap's 32-bit slots: they are
 * kept whole beside them (heap.h, gch_object_size), also when a repeated
 * record is dropped before or after them (the table follows the objects that
 * move down), through the buffer reader and the block reader with two
 * threads. The expected sizes are the numbers written in the dump. */
static void test_big_sizes(void **state)
{
    (void)state;
    static const char text[] = "a 2 x\n"
                               "t 1 A\n"
                               "o 10 1 fffffffe\n"
                               "o 20 1 ffffffff 10\n"
                               "o 10 1 1ffffffff\n" /* repeat: dropped with its big size */
                               "o 30 1 100000000 20\n"
                               "o 40 1 7\n"
                               "o 30 1 5\n" /* repeat of a big one: dropped */
                               "o 50 1 123456789abc 30 40\n"
                               "r 50 4 1 1\n"
                               "c x\n";
    static const uint64_t want[] = { 0xfffffffeu, 0xffffffffu, 0x100000000u, 7, 0x123456789abcu };
    for (int variant = 0; variant < 3; variant++) {
        gch_dump *d = NULL;
        if (variant == 0) {
            d = parse_ok(text);
        } else {
            set_tiny(variant == 1 ? 7 : 64);
            piece_source ps = { text, sizeof text - 1 };
            gch_source src = { piece_read, &ps };
            gch_error err;
            assert_int_equal(gch_read_gclog(&src, NULL, &d, &err), GCH_OK);
            gch_internal_set_tuning(NULL);
        }
        gch_heap *h = d->heaps[0];
        assert_int_equal(h->object_count, 5);
        assert_int_equal(h->anomalies.duplicate_objects, 2);
        uint64_t total = 0;
        for (uint32_t i = 0; i < 5; i++) {
            assert_int_equal(gch_object_size(h, i), want[i]);
            total += want[i];
        }
        assert_int_equal(h->total_size, total);
        assert_int_equal(h->big_size_count, 3); /* 2^32 - 1 itself is the stand-in */
        const char *why = heap_check_dump(d);
        if (why)
            fail_msg("variant %d: %s", variant, why);
        /* The retained sizes add the whole sizes: 50 holds everything. */
        gch_domtree t;
        assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
        assert_int_equal(t.live_bytes, total);
        assert_int_equal(t.retained[4], total);
        assert_int_equal(t.retained[2], want[2] + want[1] + want[0]);
        gch_domtree_free(&t);
        gch_dump_free(d);
    }
}

static void test_random_dumps_split(void **state)
{
    (void)state;
    rng_state = 777;
    int rounds = 1500 / (int)test_thin();
    for (int round = 0; round < rounds; round++) {
        set_tiny(1 + (size_t)(rnd() % 300));
        check_random_dump(round);
    }
    gch_internal_set_tuning(NULL);
}

/* The objects holding references to absent objects (info's
 * dangling_references_held_by): counted per holder by hand below, the three
 * holding most kept, most first, ties in object order. */
static void test_dangling_holders(void **state)
{
    (void)state;
    gch_dump *d = parse_ok("a 1 x 0\n"
                           "t 1 T\n"
                           "o 10 1 8 90\n"             /* 1 absent */
                           "o 20 1 8 91 92 93 10\n"    /* 3 absent, one present */
                           "o 30 1 8 94 95\n"          /* 2 absent */
                           "o 40 1 8 96 97 98\n"       /* 3 absent: ties 20, after it */
                           "o 50 1 8 10 20\n"          /* none */
                           "c 1 x\n");
    const gch_anomalies *a = &d->heaps[0]->anomalies;
    assert_int_equal(a->dangling_refs, 9);
    assert_int_equal(a->dangling_holders, 4);
    static const uint64_t ids[3] = { 0x20, 0x40, 0x30 }, refs[3] = { 3, 3, 2 };
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(a->dangling_holder_id[k], ids[k]);
        assert_int_equal(a->dangling_holder_refs[k], refs[k]);
    }
    gch_dump_free(d);
}

static void assert_heaps_equal(const gch_heap *x, const gch_heap *y)
{
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->meta_count, y->meta_count);
    for (size_t i = 0; i < x->meta_count; i++) {
        assert_string_equal(x->meta[i].key, y->meta[i].key);
        assert_string_equal(x->meta[i].value, y->meta[i].value);
    }
    assert_int_equal(x->type_count, y->type_count);
    for (uint32_t t = 0; t < x->type_count; t++) {
        assert_string_equal(gch_type_name(x, t), gch_type_name(y, t));
        assert_int_equal(x->type_raw_id[t], y->type_raw_id[t]);
        assert_int_equal(x->type_declared[t], y->type_declared[t]);
    }
    assert_int_equal(x->object_count, y->object_count);
    assert_int_equal(x->ref_count, y->ref_count);
    assert_int_equal(x->total_size, y->total_size);
    assert_int_equal(x->type_count, y->type_count);
    for (uint32_t t = 0; t < x->type_count; t++) {
        assert_int_equal(x->type_objects[t], y->type_objects[t]);
        assert_int_equal(x->type_bytes[t], y->type_bytes[t]);
    }
    for (uint32_t i = 0; i < x->object_count; i++) {
        assert_int_equal(x->object_id[i], y->object_id[i]);
        assert_int_equal(x->object_type[i], y->object_type[i]);
        assert_int_equal(gch_object_size(x, i), gch_object_size(y, i));
    }
    for (uint32_t i = 0; i <= x->object_count; i++)
        assert_int_equal(x->out_start[i], y->out_start[i]);
    for (uint64_t e = 0; e < x->ref_count; e++)
        assert_int_equal(x->out_target[e], y->out_target[e]);
    assert_int_equal(x->root_count, y->root_count);
    for (uint32_t r = 0; r < x->root_count; r++) {
        assert_int_equal(x->root_raw_id[r], y->root_raw_id[r]);
        assert_int_equal(x->root_object[r], y->root_object[r]);
        assert_int_equal(x->root_kind[r], y->root_kind[r]);
        assert_int_equal(x->root_flags[r], y->root_flags[r]);
        assert_int_equal(x->root_container[r], y->root_container[r]);
    }
    assert_memory_equal(&x->anomalies, &y->anomalies, sizeof x->anomalies);
}

/* Parses text with the default knobs and with tiny ones (every read block
 * size from 1 to 160 bytes, references stored or skipped): same dump, or the
 * same error on the same line. */
/* Checks what the in-place reader releases: consecutive parts of the buffer,
 * from its start, never past its end. */
typedef struct release_log {
    const char *base, *next;
    size_t size;
    int calls;
} release_log;

static void on_release(void *ctx, const void *data, size_t size)
{
    release_log *l = ctx;
    assert_ptr_equal(data, l->next);
    assert_true(size > 0);
    assert_true((size_t)(l->next - l->base) + size <= l->size);
    assert_int_equal(l->next[size - 1], '\n'); /* whole lines */
    l->next += size;
    l->calls++;
}

static void check_split_equivalence(const char *shared_text, size_t size)
{
    /* An exact-size copy: AddressSanitizer sees any read past its end. */
    char *text = malloc(size ? size : 1);
    assert_non_null(text);
    memcpy(text, shared_text, size);
    for (int skip = 0; skip < 2; skip++) {
        gch_load_options o = { 0 };
        o.skip_refs = skip;
        gch_internal_set_tuning(NULL);
        gch_dump *a = NULL;
        gch_error ea;
        gch_status sa = gch_read_gclog_buffer(text, size, &o, &a, &ea);
        for (size_t rb = 1; rb <= 160; rb++) {
            set_tiny(rb);
            gch_dump *b = NULL;
            gch_error eb;
            /* The load option selects in-line reads too. */
            gch_load_options ob = o;
            ob.no_read_ahead = rb % 5 == 0;
            /* In place (many small regions, then a block for the tail), and
             * streamed through blocks only. */
            release_log log = { text, text, size, 0 };
            ob.release = on_release;
            ob.release_ctx = &log;
            for (int streamed = 0; streamed < 2; streamed++) {
                piece_source ps = { text, size };
                gch_source src = { piece_read, &ps };
                gch_status sb = streamed ? gch_read_gclog(&src, &ob, &b, &eb)
                                         : gch_read_gclog_buffer(text, size, &ob, &b, &eb);
                assert_int_equal(sa, sb);
                if (sa != GCH_OK) {
                    assert_int_equal(ea.line, eb.line);
                    assert_string_equal(ea.message, eb.message);
                    continue;
                }
                assert_int_equal(a->heap_count, b->heap_count);
                for (size_t i = 0; i < a->heap_count; i++)
                    assert_heaps_equal(a->heaps[i], b->heaps[i]);
                const char *why = heap_check_dump(b);
                if (why)
                    fail_msg("read block %zu: %s", rb, why);
                gch_dump_free(b);
            }
            /* Lines that end 16 bytes (the reader's read-past margin) or more
             * before the end were parsed in place and released. */
            if (sa == GCH_OK && size > 16 && memchr(text, '\n', size - 16))
                assert_true(log.calls > 0);
        }
        gch_dump_free(a);
    }
    gch_internal_set_tuning(NULL);
    free(text);
}

static const char split_text[] =
    "\r\n  a\t2  first.exe\t5\r\n"
    "o 100 7 10 110 0 120 999\n"               /* type declared later; a dangling ref */
    "t 7 Seven, with spaces \r\n"
    "\n"
    " o 110\t7 20 100\t\r\n"
    "o 120 8 0000000000000000030 100 110\n"    /* long field: the line-by-line path */
    "t 7 Duplicate\n"
    "o 110 7 99 100\n"                          /* duplicate object: the first wins */
    "o 130 9 40 100 110 120 130 100 110 120 130 100 110 120 130 100 110 120 130 100 110 "
    "120 130 100 110 120 130 100 110 120 130 100 110 120 130 100 110 120 130\n"
    "r 100 4 1 7\n"
    "r 555 1 2\n"
    "r 130 3 0 9\n"
    "c first.exe 9\n"
    "a 2 second\n"                              /* never closed: truncated */
    "o 5 1 1 6\n"
    "o 6 2 2 5 5 0 0 5\n"
    "t 2 Two\n"
    "o 4 1 3 4 6\n"                             /* ids go down: the hash path */
    "a 2 first.exe\n"
    "t 1 One\n"
    "o 1 1 1\n"
    "o 2 1 1 1\n"
    "o 3 1 1 2\n"
    "r 3 1 0\n"
    "c other.exe 4";                            /* mismatch, no final newline */

static void test_split_equivalence(void **state)
{
    (void)state;
    check_split_equivalence(split_text, sizeof split_text - 1);
    /* Without its 'c' lines and in CRLF form. */
    text_buf t = { malloc(64), 0, 64 };
    assert_non_null(t.p);
    for (const char *p = split_text + 2; *p; p++)
        put(&t, *p == '\n' ? "\r\n" : "%c", *p);
    check_split_equivalence(t.p, t.n);
    free(t.p);
}

static void test_split_errors(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "a 2 x\no 1 1 1\no 2 1 1\no 3 1 1\nc x\no 4 1 1\no 5 1 1\n", /* after the close */
        "o 1 1 1\no 2 1 1\na 2 x\n",
        "a 2 x\no 1 1 1 2\no 2 1 1\no 3 1 1\no 4 1 1 zz\no 5 1 1\n",
        "a 2 x\no 1 1 1\no 2 1 1\no 3 1 1 4 5\ro 4 1 1\n",
        "a 2 x\no 1 1 1\no 2 1 1\no 3 1 1 4 5\r\r\no 4 1 1\n",
        "a 2 x\no 1 1 1\no 2 1 1\no 3 1 1 10000000000000000\n",
        "a 2 x\no 1 1 1\no 2 1 1\nob 3 1 1\n",
        "a 2 x\no 1 1 1\no 2 1\no 3 1 1\n",
        "a 2 x\no 1 1 1\no 2 1 1 3\x01\no 3 1 1\n",
        "a 2 x\no 1 1 1\nc x\nc x\no 2 1 1\n",
        "a 2 x\no 1 1 ffffffffffffffff\no 2 1 1\no 3 1 1\nc x\n",
        "a 2 x\no 1 1 1\no 2 1 1\nr 2 9 0\no 3 1 1\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        check_split_equivalence(texts[i], strlen(texts[i]));
    static const char nul[] = "a 2 x\no 1 1 1\no 2 1 1 \0 3\no 3 1 1\n";
    check_split_equivalence(nul, sizeof nul - 1);
}

/* Random reference fields (1-20 digit tokens, leading zeros, blank runs, a
 * stray CR, NUL, high byte or letter now and then) at every alignment:
 * skipping references (stat) must accept exactly what storing them (info)
 * accepts, with the same error on the same line. */
static void test_skip_refs_random(void **state)
{
    (void)state;
    static const char hexd[] = "0123456789abcdefABCDEF";
    static const char junk[] = "g\r\x80\xa0xZ";
    rng_state = 4242;
    int rounds = 20000 / (int)test_thin();
    for (int round = 0; round < rounds; round++) {
        text_buf t = { malloc(64), 0, 64 };
        assert_non_null(t.p);
        put(&t, "a 2 x\no %.*s 1 8", 1 + (int)(rnd() % 8), "12345678");
        int tokens = (int)(rnd() % 5);
        for (int k = 0; k < tokens; k++) {
            int blanks = 1 + (int)(rnd() % 3);
            for (int i = 0; i < blanks; i++)
                put(&t, rnd() % 2 ? " " : "\t");
            int digits = 1 + (int)(rnd() % 20), zeros = rnd() % 3 ? 0 : (int)(rnd() % 6);
            for (int i = 0; i < digits; i++)
                put(&t, "%c", i < zeros ? '0' : hexd[rnd() % (sizeof hexd - 1)]);
        }
        if (rnd() % 3 == 0)
            put(&t, rnd() % 2 ? " " : " \t ");
        if (rnd() % 4 == 0) {
            /* one stray byte somewhere after "o " (a NUL for 'Z') */
            size_t at = 8 + (size_t)(rnd() % (t.n - 8));
            char ch = junk[rnd() % (sizeof junk - 1)];
            t.p[at] = ch == 'Z' ? '\0' : ch;
        }
        put(&t, rnd() % 3 ? "\n" : "\r\n");
        put(&t, "o 2 1 4\nc x\n");
        gch_load_options o[2] = { { 0 }, { 0 } };
        o[1].skip_refs = 1;
        gch_dump *d[2] = { NULL, NULL };
        gch_error e[2];
        gch_status st[2];
        for (int k = 0; k < 2; k++)
            st[k] = gch_read_gclog_buffer(t.p, t.n, &o[k], &d[k], &e[k]);
        assert_int_equal(st[0], st[1]);
        if (st[0] == GCH_OK) {
            assert_int_equal(d[0]->heaps[0]->object_count, d[1]->heaps[0]->object_count);
            assert_int_equal(d[0]->heaps[0]->total_size, d[1]->heaps[0]->total_size);
        } else {
            assert_int_equal(e[0].line, e[1].line);
            assert_string_equal(e[0].message, e[1].message);
        }
        gch_dump_free(d[0]);
        gch_dump_free(d[1]);
        free(t.p);
    }
}

/* A source that hands out 1-7 bytes at a time and fails (returns -1) once
 * fail_after bytes are out. */
typedef struct failing_source {
    const char *p;
    size_t left, fail_after;
} failing_source;

static long long failing_read(void *ctx, void *buf, size_t cap)
{
    failing_source *s = ctx;
    if (s->fail_after == 0)
        return -1;
    size_t n = 1 + rnd() % 7;
    if (n > cap)
        n = cap;
    if (n > s->left)
        n = s->left;
    if (n > s->fail_after)
        n = s->fail_after;
    memcpy(buf, s->p, n);
    s->p += n;
    s->left -= n;
    s->fail_after -= n;
    return (long long)n;
}

/* Read errors at every offset, with blocks read ahead by the reader thread or
 * in line: GCH_EIO, or the format error of a line before the failure, the
 * same either way. */
static void test_read_errors(void **state)
{
    (void)state;
    text_buf t = { malloc(64), 0, 64 };
    assert_non_null(t.p);
    put(&t, "a 2 x\nt 1 T\n");
    for (int i = 1; i <= 30; i++)
        put(&t, "o %x 1 8 %x %x\n", i * 16, i * 16 + 16, i * 4096);
    put(&t, "o 999 1 zz\n");
    for (int i = 31; i <= 40; i++)
        put(&t, "o %x 1 8 %x\n", i * 16, i * 16 - 16);
    put(&t, "c x\n");
    static const size_t blocks[] = { 1, 5, 16, 64, 100000 };
    rng_state = 99;
    int seen[2] = { 0, 0 };
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        for (size_t fail_after = b % test_thin(); fail_after <= t.n; fail_after += test_thin()) {
            gch_status st[2];
            gch_error e[2];
            for (int inline_reads = 0; inline_reads < 2; inline_reads++) {
                gch_tuning k = { 1, 1, blocks[b], inline_reads, 0, 2, 0, 0, 0 };
                gch_internal_set_tuning(&k);
                failing_source s = { t.p, t.n, fail_after };
                gch_source src = { failing_read, &s };
                gch_dump *d = NULL;
                for (int skip = 0; skip < 2; skip++) {
                    gch_load_options o = { 0 };
                    o.skip_refs = skip;
                    s.p = t.p;
                    s.left = t.n;
                    s.fail_after = fail_after;
                    st[inline_reads] = gch_read_gclog(&src, &o, &d, &e[inline_reads]);
                    assert_null(d);
                    assert_int_equal(e[inline_reads].status, st[inline_reads]);
                }
            }
            assert_int_equal(st[0], st[1]);
            if (st[0] == GCH_EFORMAT) {
                assert_int_equal(e[0].line, 33);
                assert_string_equal(e[0].message, e[1].message);
                seen[0]++;
            } else {
                assert_int_equal(st[0], GCH_EIO);
                seen[1]++;
            }
        }
    }
    assert_true(seen[0] > 0 && seen[1] > 0);
    gch_internal_set_tuning(NULL);
    free(t.p);
}

/* Histogram-only reads (plain `stat`) against stored ones (skip_refs), with
 * blocks small enough that most chunks hold only objects, types and roots
 * (the chunks merged in bulk: gch_builder_hist_append) and the split of a
 * region between two threads: the same status, error, per-type totals, total
 * size and anomalies. Dumps: increasing ids with types and roots between
 * objects, type ids past the direct table (2^16), and variants with an id
 * repeated or going back late in the dump, a second section, an object whose
 * id is not past the last one at a chunk's start, a malformed line. */
static void test_histogram_only_blocks(void **state)
{
    (void)state;
    rng_state = 4242;
    for (int variant = 0; variant < 24; variant++) {
        text_buf t = { malloc(64), 0, 64 };
        assert_non_null(t.p);
        put(&t, "a 2 app 10\n");
        uint64_t id = variant % 3 == 0 ? 0 : 16;
        int n = 200 + (int)(rnd() % 400);
        for (int i = 0; i < n; i++) {
            uint64_t type = rnd() % 5 == 0 ? 0x10000 + rnd() % 3 : rnd() % 40;
            if (rnd() % 9 == 0)
                put(&t, "t %llx T%llx\n", (unsigned long long)type, (unsigned long long)type);
            if (rnd() % 7 == 0)
                put(&t, "r %llx %d 0\n", (unsigned long long)(id + (rnd() % 2) * 8), (int)(rnd() % 6));
            /* variant 5 and 11 and 17: the bytes of a type pass 2^64 */
            uint64_t size = variant % 6 == 5 && rnd() % 4 == 0 ? UINT64_MAX / 3 : rnd() % 300;
            put(&t, "o %llx %llx %llx", (unsigned long long)id, (unsigned long long)type,
                (unsigned long long)size);
            for (int k = (int)(rnd() % 4); k > 0; k--)
                put(&t, " %llx", (unsigned long long)(rnd() % 4096));
            put(&t, "\n");
            if (variant % 4 == 1 && i == n * 3 / 4)
                id -= 16 * (1 + rnd() % 20); /* back: repeats from here on */
            else if (variant % 4 == 2 && i == n / 2)
                put(&t, "c app\na 2 second\n");
            else if (variant % 4 == 3 && i == n / 2)
                put(&t, "o %llx 1 8\n", (unsigned long long)id); /* a repeat of the last id */
            id += rnd() % 50 == 0 ? (uint64_t)1 << 40 : 8 + 8 * (rnd() % 40);
        }
        if (variant == 23)
            put(&t, "o 5 1 8 zz\n");
        put(&t, "c app\n");
        static const size_t blocks[] = { 40, 97, 256, 1000, 100000 };
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
            set_tiny(blocks[b]);
            gch_load_options o = { 0 };
            o.skip_refs = 1;
            gch_dump *stored = NULL, *counted = NULL;
            gch_error es, ec;
            gch_status ss = gch_read_gclog_buffer(t.p, t.n, &o, &stored, &es);
            o.histogram_only = 1;
            gch_status sc = gch_read_gclog_buffer(t.p, t.n, &o, &counted, &ec);
            assert_int_equal(ss, sc);
            if (ss != GCH_OK) {
                assert_true(variant == 23 || variant % 6 == 5);
                assert_int_equal(es.line, ec.line);
                assert_string_equal(es.message, ec.message);
                continue;
            }
            assert_int_equal(stored->heap_count, counted->heap_count);
            for (size_t i = 0; i < stored->heap_count; i++) {
                const gch_heap *x = stored->heaps[i], *y = counted->heaps[i];
                assert_true(y->histogram_only);
                assert_int_equal(y->object_count, 0);
                assert_int_equal(x->type_count, y->type_count);
                assert_true(x->total_size == y->total_size);
                assert_memory_equal(&x->anomalies, &y->anomalies, sizeof x->anomalies);
                for (uint32_t k = 0; k < x->type_count; k++) {
                    assert_string_equal(gch_type_name(x, k), gch_type_name(y, k));
                    assert_int_equal(x->type_objects[k], y->type_objects[k]);
                    assert_true(x->type_bytes[k] == y->type_bytes[k]);
                }
                if (variant % 4 == 3)
                    assert_true(x->anomalies.duplicate_objects > 0);
            }
            gch_dump_free(stored);
            gch_dump_free(counted);
        }
        free(t.p);
    }
    gch_internal_set_tuning(NULL);
}

/* Ids in a dense run plus far outliers: directory buckets then hold many ids
 * (the binary-search part of bucket lookups). Every reference must resolve,
 * with one thread or two, ids sorted or not. */
static void test_crowded_id_buckets(void **state)
{
    (void)state;
    for (int variant = 0; variant < 4; variant++) {
        gch_tuning t = { variant & 1 ? 1 : (size_t)1 << 30, 0, 1 << 20, 0, 0, 2, 0, 0, 0 };
        gch_internal_set_tuning(&t);
        text_buf tb = { malloc(64), 0, 64 };
        assert_non_null(tb.p);
        put(&tb, "a 2 x\nt 1 T\n");
        const int n = 3000;
        if (variant & 2)
            put(&tb, "o fffffffffff00000 1 8 1 %x\n", n);
        put(&tb, "o 1 1 8 ffffffffffff0000\n");
        for (int i = 2; i <= n; i++)
            put(&tb, "o %x 1 8 %x %x\n", i, i - 1, (i * 7919) % n + 1);
        put(&tb, "o ffffffffffff0000 1 8 1 %x\n", n);
        put(&tb, "r 1 1 0\nc x\n");
        gch_dump *d = parse_ok(tb.p);
        gch_heap *h = d->heaps[0];
        assert_int_equal(h->anomalies.dangling_refs, 0);
        assert_int_equal(h->ref_count, (uint64_t)(2 * (n - 1) + 1 + 2 + (variant & 2 ? 2 : 0)));
        for (uint32_t i = 0; i < h->object_count; i++)
            for (uint32_t e = h->out_start[i]; e < h->out_start[i + 1]; e++)
                assert_true(h->out_target[e] < h->object_count);
        gch_dump_free(d);
        free(tb.p);
    }
    gch_internal_set_tuning(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_dangling_holders),
        cmocka_unit_test(test_references_and_roots),
        cmocka_unit_test(test_duplicates_first_wins),
        cmocka_unit_test(test_big_sizes),
        cmocka_unit_test(test_sections_and_truncation),
        cmocka_unit_test(test_whitespace_variants),
        cmocka_unit_test(test_malformed_records),
        cmocka_unit_test(test_wide_numbers),
        cmocka_unit_test(test_size_overflow_is_refused),
        cmocka_unit_test(test_skip_refs),
        cmocka_unit_test(test_roots_in_a_heap_without_objects),
        cmocka_unit_test(test_random_dumps_match_model),
        cmocka_unit_test(test_random_dumps_split),
        cmocka_unit_test(test_split_equivalence),
        cmocka_unit_test(test_split_errors),
        cmocka_unit_test(test_skip_refs_random),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_crowded_id_buckets),
        cmocka_unit_test(test_histogram_only_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Hostile .gclog inputs against the library: each test states the exact
 * outcome (status, error line and message, or the exact totals). Big inputs
 * are generated here, never committed. Small ones live in testdata/hostile/
 * (read from there, so the command-level cases and these agree). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/histogram.h"
#include "gcheap/load.h"
#include "heap_check.h"
#include "tuning.h"

/* ---- helpers ---- */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t ncap = t->cap ? t->cap : 1024;
        while (ncap <= t->len + (size_t)n)
            ncap *= 2;
        t->s = realloc(t->s, ncap);
        assert_non_null(t->s);
        t->cap = ncap;
    }
}

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hostile/%s", GCHEAP_TESTDATA, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    size_t got;
    while ((got = fread(s + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            s = realloc(s, cap);
            assert_non_null(s);
        }
    }
    fclose(f);
    *len = n;
    return s;
}

typedef struct chunked {
    const char *p;
    size_t left, chunk;
} chunked;

static long long chunked_read(void *ctx, void *buf, size_t cap)
{
    chunked *c = ctx;
    size_t n = c->left < cap ? c->left : cap;
    if (n > c->chunk)
        n = c->chunk;
    memcpy(buf, c->p, n);
    c->p += n;
    c->left -= n;
    return (long long)n;
}

static void check_all(gch_dump *d)
{
    const char *why = heap_check_dump(d);
    if (why)
        fail_msg("invariant: %s", why);
    for (size_t i = 0; i < d->heap_count; i++) {
        gch_status st;
        why = heap_check_analyses(d->heaps[i], &st, NULL);
        if (why)
            fail_msg("analysis invariant: %s", why);
        assert_int_equal(st, GCH_OK);
    }
}

/* Reads data both from memory and through small reads (7 bytes; 64 KiB, a
 * pipe's size, for big inputs: the reader rescans a partial line after each
 * read); both must succeed and agree; returns the memory one, checked. */
static gch_dump *accept(const char *data, size_t len, const gch_load_options *opts)
{
    gch_dump *d = NULL, *s = NULL;
    gch_error err;
    gch_status st = gch_read_gclog_buffer(data, len, opts, &d, &err);
    if (st != GCH_OK)
        fail_msg("rejected (%d) at line %llu: %s", (int)st, (unsigned long long)err.line, err.message);
    chunked c = { data, len, len > (1u << 20) ? 65536 : 7 };
    gch_source src = { chunked_read, &c };
    assert_int_equal(gch_read_gclog(&src, opts, &s, &err), GCH_OK);
    const char *why = heap_check_same_dump(d, s, !(opts && opts->skip_refs));
    if (why)
        fail_msg("streamed read differs: %s", why);
    gch_dump_free(s);
    check_all(d);
    return d;
}

static gch_dump *accept_file(const char *name)
{
    size_t len;
    char *data = slurp(name, &len);
    gch_dump *d = accept(data, len, NULL);
    free(data);
    return d;
}

/* The input must fail with want at line (0: no line) with exactly msg. */
static void reject(const char *data, size_t len, const gch_load_options *opts, gch_status want,
                   uint64_t line, const char *msg)
{
    gch_dump *d = (gch_dump *)1;
    gch_error err;
    gch_status st = gch_read_gclog_buffer(data, len, opts, &d, &err);
    assert_int_equal(st, want);
    assert_null(d);
    assert_int_equal(err.status, want);
    assert_int_equal(err.line, line);
    assert_string_equal(err.message, msg);
    const char *why = heap_check_error(st, d, &err, UINT64_MAX);
    if (why)
        fail_msg("error invariant: %s", why);
}

static void reject_file(const char *name, gch_status want, uint64_t line, const char *msg)
{
    size_t len;
    char *data = slurp(name, &len);
    reject(data, len, NULL, want, line, msg);
    gch_load_options skip;
    memset(&skip, 0, sizeof skip);
    skip.skip_refs = 1;
    reject(data, len, &skip, want, line, msg); /* every command gets the same error */
    free(data);
}

static uint64_t live_count(const gch_heap *h, uint64_t *bytes)
{
    uint8_t *live;
    uint64_t n;
    assert_int_equal(gch_live_set(h, 0, &live, &n, bytes, NULL), GCH_OK);
    gch_free(live);
    return n;
}

/* ---- small files (testdata/hostile) ---- */

static void empty_input(void **state)
{
    (void)state;
    reject_file("empty.gclog", GCH_EFORMAT, 0, "no 'a' record: not a .gclog heap dump (empty input?)");
}

static void only_a_record(void **state)
{
    (void)state;
    gch_dump *d = accept_file("only_a.gclog");
    assert_int_equal(d->heap_count, 1);
    const gch_heap *h = d->heaps[0];
    assert_string_equal(h->name, "app.exe");
    assert_int_equal(h->object_count, 0);
    assert_int_equal(h->total_size, 0);
    assert_int_equal(h->root_count, 0);
    assert_int_equal(h->anomalies.missing_end, 1);
    gch_dump_free(d);
}

static void no_end_record(void **state)
{
    (void)state;
    gch_dump *d = accept_file("no_end.gclog");
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 2);
    assert_int_equal(h->total_size, 0x20);
    assert_int_equal(h->ref_count, 1);
    assert_int_equal(h->anomalies.missing_end, 1);
    uint64_t bytes;
    assert_int_equal(live_count(h, &bytes), 2);
    assert_int_equal(bytes, 0x20);
    gch_dump_free(d);
}

static void ids_wider_than_64_bits(void **state)
{
    (void)state;
    reject_file("id_17_digits.gclog", GCH_EFORMAT, 3,
                "'o' record: object id '10000000000000000' is wider than 64 bits");
    static const char r[] = "a 2 x\no 1 1 8 1ffffffffffffffff\n";
    reject(r, sizeof r - 1, NULL, GCH_EFORMAT, 2,
           "'o' record: reference '1ffffffffffffffff' is wider than 64 bits");
}

static void ids_with_leading_zeros(void **state)
{
    (void)state;
    /* Leading zeros are allowed however many; the value must fit 64 bits. */
    gch_dump *d = accept_file("id_leading_zeros.gclog");
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 2);
    assert_int_equal(h->object_id[0], 1);
    assert_int_equal(h->object_id[1], 2);
    assert_int_equal(h->ref_count, 1);
    assert_int_equal(h->root_object[0], 0);
    assert_int_equal(h->total_size, 0x18);
    gch_dump_free(d);
    static const char max[] = "a 2 x\no ffffffffffffffff 1 ffffffffffffffff 0ffffffffffffffff\n"
                              "r 0000ffffffffffffffff 0 0\n";
    d = accept(max, sizeof max - 1, NULL);
    h = d->heaps[0];
    assert_int_equal(h->object_id[0], UINT64_MAX);
    assert_int_equal(h->total_size, UINT64_MAX);
    assert_int_equal(h->ref_count, 1); /* a reference to itself */
    assert_int_equal(h->root_object[0], 0);
    gch_dump_free(d);
}

static void size_sum_beyond_2_64(void **state)
{
    (void)state;
    reject_file("size_sum_overflow.gclog", GCH_ELIMIT, 0,
                "the sizes of the objects in 'app' add up to more than 2^64 bytes");
    gch_dump *d = accept_file("size_sum_max.gclog");
    assert_int_equal(d->heaps[0]->total_size, UINT64_MAX);
    uint64_t bytes;
    assert_int_equal(live_count(d->heaps[0], &bytes), 2);
    assert_int_equal(bytes, UINT64_MAX);
    gch_dump_free(d);
}

static void duplicate_ids_first_wins(void **state)
{
    (void)state;
    gch_dump *d = accept_file("duplicate_ids.gclog");
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 3);
    assert_int_equal(h->anomalies.duplicate_objects, 2);
    assert_int_equal(h->anomalies.first_duplicate_object, 1);
    /* Object 1 keeps its first record: type T, size 0x10, one reference to 2. */
    assert_int_equal(h->object_id[0], 1);
    assert_int_equal(gch_object_size(h, 0), 0x10);
    assert_string_equal(gch_type_name(h, h->object_type[0]), "T");
    assert_int_equal(h->out_start[1] - h->out_start[0], 1);
    assert_int_equal(h->object_id[h->out_target[h->out_start[0]]], 2);
    assert_int_equal(gch_object_size(h, 1), 0x20);
    assert_int_equal(h->total_size, 0x70);
    assert_int_equal(h->ref_count, 2);
    uint64_t bytes;
    assert_int_equal(live_count(h, &bytes), 2);
    assert_int_equal(bytes, 0x30);
    gch_dump_free(d);
}

/* A duplicate record is dropped before anything is counted: the undeclared
 * type only the dropped record used is no type at all (issue 20, finding 4). */
static void duplicate_of_undeclared_type(void **state)
{
    (void)state;
    gch_dump *d = accept_file("duplicate_undeclared.gclog");
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 1);
    assert_int_equal(h->anomalies.duplicate_objects, 1);
    assert_int_equal(h->anomalies.unknown_type_objects, 0);
    assert_int_equal(h->anomalies.unknown_types, 0);
    assert_int_equal(h->reported_types, 1);
    assert_int_equal(h->reported_declared_types, 1);
    assert_string_equal(gch_type_name(h, h->object_type[0]), "A");
    gch_dump_free(d);
}

/* Types merged by name count once, as every report shows them: A (ids 1 and
 * 2), B (declared, no objects) and the undeclared 7; 8 was only used by a
 * duplicate of object 12. */
static void types_merged_by_name_count_once(void **state)
{
    (void)state;
    gch_dump *d = accept_file("same_name_types.gclog");
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 3);
    assert_int_equal(h->anomalies.duplicate_objects, 1);
    assert_int_equal(h->anomalies.unknown_types, 1);
    assert_int_equal(h->anomalies.unknown_type_objects, 1);
    assert_int_equal(h->reported_types, 3);
    assert_int_equal(h->reported_declared_types, 2);
    assert_int_equal(h->object_type[0], h->object_type[1]);
    gch_dump_free(d);
}

static void self_references_and_whole_cycle(void **state)
{
    (void)state;
    gch_dump *d = accept_file("self_ref.gclog");
    assert_int_equal(d->heaps[0]->ref_count, 4);
    uint64_t bytes;
    assert_int_equal(live_count(d->heaps[0], &bytes), 2);
    assert_int_equal(bytes, 0x30);
    gch_dump_free(d);
    d = accept_file("cycle_whole_heap.gclog");
    assert_int_equal(live_count(d->heaps[0], &bytes), 4);
    assert_int_equal(bytes, 0xa0);
    gch_dump_free(d);
}

static void nul_and_invalid_utf8_in_names(void **state)
{
    (void)state;
    reject_file("nul_in_type.gclog", GCH_EFORMAT, 2, "'t' record: NUL byte in the type name");
    gch_dump *d = accept_file("invalid_utf8.gclog");
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->type_count, 3);
    assert_string_equal(gch_type_name(h, 0), "Bad\377\376Name"); /* kept as bytes */
    assert_string_equal(gch_type_name(h, 1), "Cut\303");
    assert_string_equal(gch_type_name(h, 2), "Caf\303\251");
    gch_dump_free(d);
}

static void carriage_returns(void **state)
{
    (void)state;
    /* Regression: CR-only line ends used to give one section named
     * "app\rt 1 T\r..." with no objects and a success. */
    reject_file("cr_only.gclog", GCH_EFORMAT, 1,
                "'a' record: carriage return inside the line (line ends must be LF or CRLF)");
    reject_file("cr_in_record.gclog", GCH_EFORMAT, 3,
                "'o' record: carriage return inside the line (line ends must be LF or CRLF)");
    static const char t[] = "a 2 x\nt 1 A\rB\n";
    reject(t, sizeof t - 1, NULL, GCH_EFORMAT, 2,
           "'t' record: carriage return inside the line (line ends must be LF or CRLF)");
    /* CRLF, blank lines, tabs and spaces around fields are fine. */
    gch_dump *d = accept_file("blank_tabs_crlf.gclog");
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 1);
    assert_int_equal(h->root_object[0], 0);
    assert_string_equal(gch_type_name(h, 0), "T");
    assert_int_equal(h->anomalies.missing_end + h->anomalies.end_name_mismatch, 0);
    gch_dump_free(d);
}

static void binary_garbage(void **state)
{
    (void)state;
    reject_file("binary_garbage.gclog", GCH_EFORMAT, 1,
                "unknown record type '\211PNG' (expected a, t, o, r or c)");
}

static void roots_zero_absent_and_containers(void **state)
{
    (void)state;
    gch_dump *d = accept_file("no_roots.gclog");
    uint64_t bytes;
    assert_int_equal(d->heaps[0]->root_count, 0);
    assert_int_equal(live_count(d->heaps[0], &bytes), 0);
    assert_int_equal(bytes, 0);
    gch_dump_free(d);

    d = accept_file("root_on_absent.gclog");
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->root_count, 3);
    assert_int_equal(h->anomalies.dangling_roots, 2);
    assert_int_equal(h->root_object[1], GCH_NONE);
    assert_int_equal(h->root_object[2], GCH_NONE);
    assert_int_equal(live_count(h, &bytes), 1);
    gch_dump_free(d);

    d = accept_file("static_absent_container.gclog");
    h = d->heaps[0];
    assert_int_equal(h->anomalies.absent_containers, 1);
    assert_string_equal(gch_type_name(h, h->root_container[0]), "Holder");
    assert_int_equal(h->root_container[1], GCH_NONE);
    assert_int_equal(h->root_container_raw[1], 0x77);
    gch_dump_free(d);
}

static void two_sections_same_name(void **state)
{
    (void)state;
    gch_dump *d = accept_file("same_name_sections.gclog");
    assert_int_equal(d->heap_count, 2);
    assert_string_equal(d->heaps[0]->name, "app");
    assert_string_equal(d->heaps[1]->name, "app");
    assert_int_equal(d->heaps[0]->total_size, 8);
    assert_int_equal(d->heaps[1]->total_size, 0x300);
    gch_dump_free(d);
}

/* Regression (fuzz_gclog): with skip_refs (stat, roots) a malformed reference
 * was accepted while a full read (info, stat --live) rejected the file. */
static void skip_refs_still_checks_references(void **state)
{
    (void)state;
    reject_file("bad_reference.gclog", GCH_EFORMAT, 3,
                "'o' record: reference 'zz' is not a hexadecimal number");
    gch_load_options skip;
    memset(&skip, 0, sizeof skip);
    skip.skip_refs = 1;
    static const char ok[] = "a 2 x\nt 1 T\no 1 1 8 2 3\no 2 1 8\nc x\n";
    gch_dump *d = accept(ok, sizeof ok - 1, &skip);
    /* Regression: refs_loaded stayed 1 although nothing was stored. */
    assert_int_equal(d->heaps[0]->refs_loaded, 0);
    assert_int_equal(d->heaps[0]->ref_count, 0);
    assert_int_equal(d->heaps[0]->object_count, 2);
    gch_dump_free(d);
}

/* Regression (fuzz_gclog): a section name with control bytes reached the
 * error message (and so the terminal) unchanged. */
static void messages_have_no_control_bytes(void **state)
{
    (void)state;
    static const char esc[] = "a 2 a\tb\033[2Jc\no 1 1 8000000000000000\no 2 1 8000000000000000\n";
    reject(esc, sizeof esc - 1, NULL, GCH_ELIMIT, 0,
           "the sizes of the objects in 'a?b?[2Jc' add up to more than 2^64 bytes");
}

/* ---- generated big inputs ---- */

static void ten_megabyte_line(void **state)
{
    (void)state;
    size_t n = 10u << 20;
    text t = { 0 };
    put(&t, "a 2 x\nt 1 ");
    for (size_t i = 0; i < n; i++)
        put(&t, "%c", 'A' + (int)(i % 26));
    put(&t, "\no 1 1 8\nr 1 1 0\nc x\n");
    gch_dump *d = accept(t.s, t.len, NULL);
    assert_int_equal(strlen(gch_type_name(d->heaps[0], 0)), n);
    gch_dump_free(d);
    /* The same line as garbage: the message quotes at most 24 bytes. */
    t.len = 0;
    put(&t, "a 2 x\no 1 1 ");
    for (size_t i = 0; i < n; i++)
        put(&t, "z");
    put(&t, "\n");
    reject(t.s, t.len, NULL, GCH_EFORMAT, 2,
           "'o' record: object size 'zzzzzzzzzzzzzzzzzzzzzzzz...' is not a hexadecimal number");
    free(t.s);
}

/* Regression: the streaming reader searched a partial line for '\n' from its
 * start after every read, so a long line arriving in small reads (a network
 * pipe) took quadratic time: minutes for this 10 MB line in 16-byte reads. */
static void long_line_in_small_reads(void **state)
{
    (void)state;
    size_t n = 10u << 20;
    char *s = malloc(n + 64);
    assert_non_null(s);
    size_t len = (size_t)sprintf(s, "a 2 x\nt 1 ");
    memset(s + len, 'N', n);
    len += n;
    len += (size_t)sprintf(s + len, "\nc x\n");
    chunked c = { s, len, 16 };
    gch_source src = { chunked_read, &c };
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_gclog(&src, NULL, &d, &err), GCH_OK);
    assert_int_equal(strlen(gch_type_name(d->heaps[0], 0)), n);
    gch_dump_free(d);
    free(s);
}

static void million_references(void **state)
{
    (void)state;
    /* About 8 MB on one line: longer than the streaming reader's 4 MB block. */
    text t = { 0 };
    put(&t, "a 2 x\nt 1 Big\nt 2 Small\no 1 1 10");
    for (uint32_t i = 0; i < 1000000; i++)
        put(&t, " %x", 0x100000 + i % 1000);
    put(&t, "\n");
    for (uint32_t i = 0; i < 1000; i++)
        put(&t, "o %x 2 8\n", 0x100000 + i);
    put(&t, "r 1 1 0\nc x\n");
    assert_true(t.len > (4u << 20));
    gch_dump *d = accept(t.s, t.len, NULL);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 1001);
    assert_int_equal(h->ref_count, 1000000);
    assert_int_equal(h->out_start[1], 1000000);
    uint64_t bytes;
    assert_int_equal(live_count(h, &bytes), 1001);
    assert_int_equal(bytes, 0x10 + 1000 * 8);
    gch_dump_free(d);
    free(t.s);
}

static void long_chain(void **state)
{
    (void)state;
    /* A 1,000,000-long chain in the library test (the 10,000,000 one runs at
     * the command level in tests/cli/test_hostile_big.sh): nothing recurses. */
    const uint32_t n = 1000000;
    text t = { 0 };
    put(&t, "a 2 chain\nt 1 Node\n");
    for (uint32_t i = 1; i < n; i++)
        put(&t, "o %x 1 8 %x\n", i, i + 1);
    put(&t, "o %x 1 8\nr 1 1 0\nc chain\n", n);
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_gclog_buffer(t.s, t.len, NULL, &d, &err), GCH_OK);
    free(t.s);
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, n);
    assert_int_equal(h->ref_count, n - 1);
    uint64_t bytes;
    assert_int_equal(live_count(h, &bytes), n);
    assert_int_equal(bytes, 8ull * n);
    gch_status st;
    const char *why = heap_check_analyses(h, &st, NULL);
    if (why)
        fail_msg("analysis invariant: %s", why);
    assert_int_equal(st, GCH_OK);
    gch_dump_free(d);
}

/* ---- endless lines (issue 20, finding 3) ---- */

/* An input that goes on and on: prefix, then byte repeated (as /dev/zero
 * gives zeros), stopping after cap bytes in all. given counts what was read. */
typedef struct endless {
    const char *prefix;
    unsigned char byte;
    uint64_t given, cap;
} endless;

static long long endless_read(void *ctx, void *buf, size_t cap)
{
    endless *e = ctx;
    size_t n = cap, pre = strlen(e->prefix);
    if (n > e->cap - e->given)
        n = (size_t)(e->cap - e->given);
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)buf)[i] = e->given + i < pre ? (unsigned char)e->prefix[e->given + i] : e->byte;
    e->given += n;
    return (long long)n;
}

static void reject_endless(endless *e, uint64_t line, const char *msg)
{
    gch_source src = { endless_read, e };
    gch_dump *d = (gch_dump *)1;
    gch_error err;
    gch_status st = gch_read_gclog(&src, NULL, &d, &err);
    assert_null(d);
    assert_int_equal(st, GCH_EFORMAT);
    assert_int_equal(err.line, line);
    assert_string_equal(err.message, msg);
}

/* Zeros cannot start a record: the reader stops at its first block (8 MiB;
 * before, it doubled its buffer until memory ran out). */
static void endless_zeros(void **state)
{
    (void)state;
    endless e = { "", 0, 0, 96u << 20 };
    reject_endless(&e, 1, "unknown record type '????????????????????????...' (expected a, t, o, r or c)");
    assert_true(e.given <= 16u << 20);
    /* After valid lines too, and for any byte that is not a record letter. */
    endless g = { "a 2 x\nt 1 T\n", 'q', 0, 96u << 20 };
    reject_endless(&g, 3, "unknown record type 'qqqqqqqqqqqqqqqqqqqqqqqq...' (expected a, t, o, r or c)");
    assert_true(g.given <= 16u << 20);
}

/* Blanks could still become a record: the line grows to the limit, then it
 * is an error (before, 80 MiB of blanks were one blank line). */
static void endless_blanks(void **state)
{
    (void)state;
    endless e = { "a 2 x\n", ' ', 0, 80u << 20 };
    reject_endless(&e, 2, "line longer than 67108864 bytes");
    assert_true(e.given <= GCH_GCLOG_MAX_LINE + (16u << 20));
}

/* The limit exactly, from memory (lines parsed in place) and through reads
 * of every size (lines reassembled in blocks): a line of the longest length
 * is accepted, one byte more is refused at its line, and a long line whose
 * first bytes are no record gives the message of the whole line. */
static void line_limit_exact(void **state)
{
    (void)state;
    enum { LONGEST = 4096 };
    static const size_t blocks[] = { 64, 100, 1000, 4096, 5000 };
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        gch_tuning k = gch_tuning_get();
        k.read_block = blocks[b];
        k.max_line = LONGEST;
        gch_internal_set_tuning(&k);
        for (int extra = 0; extra <= 1; extra++) {
            text t = { 0 };
            put(&t, "a 2 x\nt 1 ");
            for (size_t i = 0; i < LONGEST - 4 + (size_t)extra; i++)
                put(&t, "%c", 'A' + (int)(i % 26));
            put(&t, "\no 1 1 8\nc x\n");
            if (!extra) {
                gch_dump *d = accept(t.s, t.len, NULL);
                assert_int_equal(strlen(gch_type_name(d->heaps[0], 0)), LONGEST - 4);
                gch_dump_free(d);
            } else {
                reject(t.s, t.len, NULL, GCH_EFORMAT, 2, "line longer than 4096 bytes");
                for (size_t chunk = 1; chunk <= 4099; chunk += 1366) {
                    chunked c = { t.s, t.len, chunk };
                    gch_source src = { chunked_read, &c };
                    gch_dump *d = (gch_dump *)1;
                    gch_error err;
                    assert_int_equal(gch_read_gclog(&src, NULL, &d, &err), GCH_EFORMAT);
                    assert_int_equal(err.line, 2);
                    assert_string_equal(err.message, "line longer than 4096 bytes");
                }
            }
            free(t.s);
        }
        text g = { 0 };
        put(&g, "a 2 x\n");
        for (int i = 0; i < 3 * LONGEST; i++)
            put(&g, "z");
        put(&g, "\nc x\n");
        reject(g.s, g.len, NULL, GCH_EFORMAT, 2,
               "unknown record type 'zzzzzzzzzzzzzzzzzzzzzzzz...' (expected a, t, o, r or c)");
        free(g.s);
    }
    gch_internal_set_tuning(NULL);
}

int main(void)
{
    if (getenv("GCHEAP_TEST_FILTER"))
        cmocka_set_test_filter(getenv("GCHEAP_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_input),
        cmocka_unit_test(only_a_record),
        cmocka_unit_test(no_end_record),
        cmocka_unit_test(ids_wider_than_64_bits),
        cmocka_unit_test(ids_with_leading_zeros),
        cmocka_unit_test(size_sum_beyond_2_64),
        cmocka_unit_test(duplicate_ids_first_wins),
        cmocka_unit_test(duplicate_of_undeclared_type),
        cmocka_unit_test(types_merged_by_name_count_once),
        cmocka_unit_test(self_references_and_whole_cycle),
        cmocka_unit_test(nul_and_invalid_utf8_in_names),
        cmocka_unit_test(carriage_returns),
        cmocka_unit_test(binary_garbage),
        cmocka_unit_test(roots_zero_absent_and_containers),
        cmocka_unit_test(two_sections_same_name),
        cmocka_unit_test(skip_refs_still_checks_references),
        cmocka_unit_test(messages_have_no_control_bytes),
        cmocka_unit_test(ten_megabyte_line),
        cmocka_unit_test(long_line_in_small_reads),
        cmocka_unit_test(million_references),
        cmocka_unit_test(long_chain),
        cmocka_unit_test(endless_zeros),
        cmocka_unit_test(endless_blanks),
        cmocka_unit_test(line_limit_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

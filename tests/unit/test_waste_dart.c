/* gch_waste_find on Dart heap snapshots (options.dart) against the oracle
 * of tests/support/dart_waste.c, which groups and sums over the description
 * the snapshot was written from: every row must be an oracle row (same
 * section, type, count, bytes, wasted, copy, length, slots) and the other
 * way round; with 1- and 2-bit hashes too (collisions the byte comparison
 * must split), at two minimum counts, from a buffer and from a pipe. The
 * reader's payload entries (texts with their flags, lengths with the
 * backing array) are checked on a small snapshot by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "chunks.h"
#include "dart_waste.h"
#include "dart_writer.h"
#include "gcheap/load.h"
#include "gcheap/waste.h"
#include "tuning.h"

static gch_dump *load(const dtw_buf *b, int from_pipe)
{
    gch_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.keep_payloads = 1;
    gch_dump *d = NULL;
    gch_error err;
    gch_status st;
    if (from_pipe) {
        chunks c = { (const char *)b->data, b->size, 1000 };
        gch_source src = { chunk_read, &c };
        st = gch_load(&src, GCH_FORMAT_AUTO, &lo, &d, &err);
    } else {
        st = gch_load_buffer(b->data, b->size, GCH_FORMAT_DART, &lo, &d, &err);
    }
    if (st != GCH_OK)
        fail_msg("load: %s", err.message);
    assert_true(d->heaps[0]->payloads_kept);
    return d;
}

static int same(const gch_heap *h, const gch_waste_row *r, const dwp_row *e)
{
    if (r->kind != e->kind || strcmp(gch_type_name(h, r->type), e->type) != 0 || r->count != e->count ||
        r->bytes != e->bytes || r->wasted != e->wasted || r->used != e->used || r->capacity != e->capacity)
        return 0;
    if (e->kind == GCH_WASTE_DUP_STRINGS || e->kind == GCH_WASTE_ZERO_ARRAYS)
        if (r->copy != e->copy)
            return 0;
    if (e->kind != GCH_WASTE_DUP_STRINGS)
        return 1;
    const gch_payload *p = gch_heap_payload(h, r->id);
    return r->length == e->length && r->id == e->id && p && p->kind == GCH_PAYLOAD_TEXT &&
           p->length == strlen(e->text) &&
           memcmp(gch_heap_string(h, (uint32_t)p->offset), e->text, p->length) == 0;
}

/* Every row of res is one of want and the other way round. */
static void check_rows(const gch_heap *h, const gch_waste *res, const dwp *want, const char *what)
{
    for (size_t i = 0; i < want->nrows; i++) {
        size_t k = 0;
        while (k < res->count && !same(h, &res->rows[k], &want->rows[i]))
            k++;
        if (k == res->count)
            fail_msg("%s: no row for %s %s (count %llu, bytes %llu, wasted %llu, \"%s\")", what,
                     gch_waste_kind_name(want->rows[i].kind), want->rows[i].type,
                     (unsigned long long)want->rows[i].count, (unsigned long long)want->rows[i].bytes,
                     (unsigned long long)want->rows[i].wasted, want->rows[i].text);
    }
    for (size_t k = 0; k < res->count; k++)
        if (k >= want->nrows)
            fail_msg("%s: row %s %s (count %llu) is not the oracle's", what,
                     gch_waste_kind_name(res->rows[k].kind), gch_type_name(h, res->rows[k].type),
                     (unsigned long long)res->rows[k].count);
    uint64_t total[GCH_WASTE_KINDS] = { 0 };
    for (size_t i = 0; i < want->nrows; i++)
        total[want->rows[i].kind] += want->rows[i].wasted;
    for (unsigned k = 0; k < GCH_WASTE_KINDS; k++)
        assert_int_equal(res->wasted[k], total[k]);
}

static void test_planted(void **state)
{
    (void)state;
    for (unsigned min = 2; min <= 10; min += 8)
        for (unsigned mask = 0; mask <= 3; mask++)
            for (int pipe = 0; pipe <= 1; pipe++) {
                dwp want;
                dwp_make(0x9E3779B97F4A7C15ull + mask, 1, min, 21, &want);
                gch_dump *d = load(&want.snapshot, pipe);
                assert_int_equal(d->heaps[0]->total_size, want.heap_bytes);
                gch_tuning tk = gch_tuning_get();
                tk.waste_hash_mask = mask;
                gch_internal_set_tuning(mask ? &tk : NULL);
                gch_waste_options o = { .min_count = min, .dart = 1, .text = 1 };
                gch_waste res;
                gch_error err;
                assert_int_equal(gch_waste_find(d->heaps[0], &o, &res, &err), GCH_OK);
                gch_internal_set_tuning(NULL);
                assert_true(res.available);
                assert_int_equal(res.sections, 1u << GCH_WASTE_DUP_STRINGS | 1u << GCH_WASTE_EMPTY |
                                                   1u << GCH_WASTE_UNDERFILLED | 1u << GCH_WASTE_ZERO_ARRAYS);
                char what[64];
                snprintf(what, sizeof what, "min %u mask %u%s", min, mask, pipe ? " (pipe)" : "");
                check_rows(d->heaps[0], &res, &want, what);
                /* The oracle found the plants: 5 groups of strings (6 with "nine"), empty
                 * lists, maps and sets, under-filled lists, zero-length _List and
                 * _Uint8List (and _Int32List at 2). */
                assert_int_equal(want.nrows, min == 10 ? 11 : 13);
                gch_waste_free(&res);
                gch_dump_free(d);
                dwp_free(&want);
            }
}

/* --holders: App.cache holds the empty maps, App.items 13 of the empty lists. */
static void test_holders(void **state)
{
    (void)state;
    dwp want;
    dwp_make(7, 1, 10, 21, &want);
    gch_dump *d = load(&want.snapshot, 0);
    const gch_heap *h = d->heaps[0];
    gch_waste_options o = { .dart = 1, .text = 1, .holders = 1 };
    gch_waste res;
    gch_error err;
    assert_int_equal(gch_waste_find(d->heaps[0], &o, &res, &err), GCH_OK);
    check_rows(h, &res, &want, "holders");
    size_t seen = 0;
    for (size_t i = 0; i < want.nrows; i++) {
        const dwp_row *e = &want.rows[i];
        if (e->kind != GCH_WASTE_EMPTY)
            continue;
        for (size_t k = 0; k < res.count; k++) {
            const gch_waste_row *r = &res.rows[k];
            if (r->kind != GCH_WASTE_EMPTY || strcmp(gch_type_name(h, r->type), e->type) != 0)
                continue;
            seen++;
            if (!e->holder_count) {
                assert_int_equal(r->holder_type, GCH_NONE);
                continue;
            }
            assert_string_equal(gch_type_name(h, r->holder_type), "App (package:app/app.dart)");
            assert_string_equal(gch_heap_string(h, r->holder_label),
                                strstr(e->holder, ".cache") ? "cache" : "items");
            assert_int_equal(r->holder_count, e->holder_count);
        }
    }
    assert_int_equal(seen, 3); /* _GrowableList, _Map, _Set */
    gch_waste_free(&res);
    gch_dump_free(d);
    dwp_free(&want);
}

/* Without planted waste: no section above MAT's 5%, no group of 10. */
static void test_clean(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        dwp want;
        dwp_make(seed, 0, 10, 21, &want);
        gch_dump *d = load(&want.snapshot, 0);
        gch_waste_options o = { .dart = 1, .text = 1 };
        gch_waste res;
        gch_error err;
        assert_int_equal(gch_waste_find(d->heaps[0], &o, &res, &err), GCH_OK);
        check_rows(d->heaps[0], &res, &want, "clean");
        for (unsigned k = 0; k < GCH_WASTE_KINDS; k++)
            assert_true(res.wasted[k] <= d->heaps[0]->total_size / 20);
        for (size_t k = 0; k < res.count; k++)
            assert_int_not_equal(res.rows[k].kind, GCH_WASTE_DUP_STRINGS);
        gch_waste_free(&res);
        gch_dump_free(d);
        dwp_free(&want);
    }
}

/* The reader's entries, by hand: a list before its backing array, a cut
 * string, a lossy one, Latin-1 above 0x7F, a map (its first length
 * reference is its index), and no entries without keep_payloads. */
static void test_payload_entries(void **state)
{
    (void)state;
    dtw *w = dtw_new_vm("e", (const char *const[]){ "main" }, 1, NULL, 0);
    uint64_t glist = dtw_class(w, "_GrowableList", "", "dart:core");
    uint64_t list = dtw_class(w, "_List", "", "dart:core");
    uint64_t one = dtw_class(w, "_OneByteString", "", "dart:core");
    uint64_t two = dtw_class(w, "_TwoByteString", "", "dart:core");
    uint64_t m = dtw_class(w, "_Map", "", "dart:collection");
    uint64_t g = dtw_object(w, glist, 32);              /* 4 */
    uint64_t a = dtw_object(w, list, 64);               /* 5 */
    uint64_t cut = dtw_object(w, one, 48);              /* 6 */
    uint64_t lossy = dtw_object(w, two, 32);            /* 7 */
    uint64_t latin = dtw_object(w, one, 32);            /* 8 */
    uint64_t map = dtw_object(w, m, 48);                /* 9 */
    uint64_t idx = dtw_object(w, list, 24);             /* 10 */
    dtw_data_length(w, g, 2);
    dtw_data_length(w, a, 7);
    dtw_data_latin1(w, cut, "abc", 200);
    dtw_data_utf16(w, lossy, (const uint16_t[]){ 'a', 0xDC00, 0 }, 3, 3);
    dtw_data_latin1(w, latin, "caf\xe9", 4);
    dtw_data_length(w, map, 0);
    dtw_data_length(w, idx, 1);
    dtw_ref(w, g, 0);
    dtw_ref(w, g, 3); /* the isolate: synthetic, dropped, not a backing array */
    dtw_ref(w, g, a);
    dtw_ref(w, map, idx);
    dtw_ref(w, map, a);
    dtw_buf b = { 0 };
    dtw_write(w, 1, 0, &b);
    dtw_free(w);
    gch_dump *d = load(&b, 0);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->payload_count, 7);
    const gch_payload *p = gch_heap_payload(h, g);
    assert_int_equal(p->kind, GCH_PAYLOAD_LENGTH);
    assert_int_equal(p->value, 2);
    assert_int_equal(p->offset, a);
    p = gch_heap_payload(h, a);
    assert_int_equal(p->value, 7);
    assert_int_equal(p->offset, 0);
    p = gch_heap_payload(h, map);
    assert_int_equal(p->offset, idx);
    p = gch_heap_payload(h, cut);
    assert_int_equal(p->kind, GCH_PAYLOAD_TEXT);
    assert_int_equal(p->elem, GCH_TEXT_CUT);
    assert_string_equal(gch_heap_string(h, (uint32_t)p->offset), "abc");
    p = gch_heap_payload(h, lossy);
    assert_int_equal(p->elem, GCH_TEXT_LOSSY);
    assert_string_equal(gch_heap_string(h, (uint32_t)p->offset), "a\xef\xbf\xbd\xef\xbf\xbd");
    p = gch_heap_payload(h, latin);
    assert_int_equal(p->elem, 0);
    assert_int_equal(p->length, 5);
    assert_string_equal(gch_heap_string(h, (uint32_t)p->offset), "caf\xc3\xa9");
    gch_dump_free(d);
    gch_error err;
    assert_int_equal(gch_load_buffer(b.data, b.size, GCH_FORMAT_DART, NULL, &d, &err), GCH_OK);
    assert_false(d->heaps[0]->payloads_kept);
    assert_int_equal(d->heaps[0]->payload_count, 0);
    gch_dump_free(d);
    dtw_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planted),
        cmocka_unit_test(test_holders),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_payload_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Writing an index as a stream (gch_index_write through gch_index_io): the
 * same bytes whatever the thread count (one: no thread; two: a writer
 * thread and the views' chunks prepared on two, forced on small heaps by the
 * tuning knobs); the table of contents after the last chunk and the header
 * written last, at offset 0, inside what was appended; every checksum
 * recomputed here from the bytes at the chunk's place; the model's chunks
 * equal to the heap's arrays; the file opens and gch_index_check passes;
 * without write_at (an output that cannot seek) the same bytes at the end;
 * a callback failing at its k-th call, for every k, gives GCH_EIO, nothing
 * written after it, nothing leaked; an allocation failing in turn gives
 * GCH_ENOMEM with nothing leaked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/index.h"
#include "fail_alloc.h"
#include "graph_heap.h"
#include "thin.h"
#include "threading.h"
#include "tuning.h"

typedef struct sink {
    unsigned char *p;
    size_t n, cap;
    long calls;        /* callback calls so far (write and write_at) */
    long fail_at;      /* 1-based call that fails (0: none) */
    long after;        /* calls after the failing one (must stay 0) */
    int header_at;     /* write_at calls */
} sink;

static int sink_write(void *ctx, const void *data, size_t n)
{
    sink *s = ctx;
    s->calls++;
    if (s->fail_at && s->calls > s->fail_at)
        s->after++;
    if (s->fail_at && s->calls >= s->fail_at)
        return -1;
    if (s->n + n > s->cap) {
        s->cap = (s->n + n) * 2;
        s->p = realloc(s->p, s->cap);
        assert_non_null(s->p);
    }
    memcpy(s->p + s->n, data, n);
    s->n += n;
    return 0;
}

static int sink_write_at(void *ctx, uint64_t offset, const void *data, size_t n)
{
    sink *s = ctx;
    s->calls++;
    s->header_at++;
    if (s->fail_at && s->calls > s->fail_at)
        s->after++;
    if (s->fail_at && s->calls >= s->fail_at)
        return -1;
    assert_true(offset <= s->n && n <= s->n - offset); /* inside what was appended */
    memcpy(s->p + offset, data, n);
    return 0;
}

/* The dump of generator g: random heaps (half of them with ids that do not
 * rise, so that an id order is written; th_random_dump gives some weak
 * roots, so one view or two), and a 70,000-object chain whose id, type and
 * size chunks span several of the stream's hashing pieces. */
static gch_dump *make_dump(uint32_t g)
{
    gch_dump *d;
    if (g == 0) {
        uint32_t n = 70000;
        d = th_dump_new(n, 3, 2, n - 1);
        gch_heap *h = d->heaps[0];
        uint32_t *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
        assert_non_null(src);
        assert_non_null(dst);
        for (uint32_t i = 0; i + 1 < n; i++) {
            src[i] = i;
            dst[i] = i + 1;
        }
        th_set_edges(h, src, dst, n - 1);
        free(src);
        free(dst);
        h->total_size = 0;
        for (uint32_t i = 0; i < n; i++) {
            h->object_id[i] = 0x10000 + 16ull * (n - i); /* falling: an id order */
            h->object_type[i] = i % 3;
            th_set_size(h, i, 16 + i % 5);
            h->total_size += 16 + i % 5;
        }
        h->root_object[0] = 0;
        h->root_raw_id[0] = h->object_id[0];
        h->root_object[1] = n / 2;
        h->root_raw_id[1] = h->object_id[n / 2];
        h->root_flags[1] = GCH_ROOT_WEAK;
    } else {
        th_rng r = { 0x5eed0000ULL + g };
        d = th_random_dump(&r, 60);
        gch_heap *h = d->heaps[0];
        for (uint32_t i = h->object_count; g % 2 && i > 1; i--) {
            uint32_t j = th_below(&r, i);
            uint64_t t = h->object_id[i - 1];
            h->object_id[i - 1] = h->object_id[j];
            h->object_id[j] = t;
        }
        for (uint32_t k = 0; k < h->root_count; k++)
            if (h->root_object[k] != GCH_NONE)
                h->root_raw_id[k] = h->object_id[h->root_object[k]];
    }
    d->format = "gclog";
    return d;
}

/* Writes d's index with `threads` into s (s->fail_at armed by the caller;
 * dry: no write_at, as for a pipe), then frees the analysis and d with it. */
static gch_status write_dry(gch_dump *d, unsigned threads, sink *s, int dry)
{
    gch_analysis_options o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    gch_analysis *a;
    assert_int_equal(gch_analysis_new(d, &o, &a, NULL), GCH_OK);
    gch_index_stamp st;
    memset(&st, 0, sizeof st);
    st.dump_size = 99;
    gch_index_io io = { sink_write, dry ? NULL : sink_write_at, s };
    gch_error err;
    gch_status rc = gch_index_write(a, &st, "w.gclog", &io, &err);
    if (rc != GCH_OK)
        assert_int_not_equal(err.message[0], '\0');
    gch_analysis_free(a);
    return rc;
}

static gch_status write_with(gch_dump *d, unsigned threads, sink *s)
{
    return write_dry(d, threads, s, 0);
}

static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
#define TAG(s) ((uint32_t)(s)[0] | (uint32_t)(s)[1] << 8 | (uint32_t)(s)[2] << 16 | (uint32_t)(s)[3] << 24)

/* The chunk tag of view 0 in the file: its bytes and element count. */
static const unsigned char *chunk_of(const sink *s, const char *tag, uint64_t *count)
{
    uint64_t toc = get64(s->p + 24);
    uint32_t n = get32(s->p + 32);
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e = s->p + toc + 40 * (size_t)i;
        if (get32(e) == TAG(tag) && get32(e + 4) >> 16 == 0) {
            *count = get64(e + 24);
            return s->p + get64(e + 16);
        }
    }
    fail_msg("no chunk %s", tag);
    return NULL;
}

/* The layout, recomputed from the bytes: the header names the whole file
 * and a table at its end (64-aligned, right after the last chunk), every
 * chunk 64-aligned before the table with the checksum of its bytes, the
 * header's checksums right; the library's own check agrees. */
static void check_layout(const sink *s, const gch_heap *h)
{
    assert_true(s->n > 64);
    uint64_t size = get64(s->p + 16), toc = get64(s->p + 24);
    uint32_t n = get32(s->p + 32);
    assert_int_equal(size, s->n);
    assert_int_equal(toc % 64, 0);
    assert_int_equal(toc + 40ull * n, s->n);
    assert_int_equal(get64(s->p + 40), gch_index_hash(s->p + toc, 40ull * n));
    assert_int_equal(get64(s->p + 56), gch_index_hash(s->p, 56));
    uint64_t end = 64;
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e = s->p + toc + 40 * (size_t)i;
        uint64_t off = get64(e + 16), bytes = get64(e + 24) * get32(e + 8);
        assert_int_equal(off % 64, 0);
        assert_true(off >= 64 && off + bytes <= toc);
        assert_int_equal(get64(e + 32), gch_index_hash(s->p + off, (size_t)bytes));
        if (off + bytes > end)
            end = off + bytes;
    }
    assert_int_equal(toc, (end + 63) / 64 * 64);
    /* The model's chunks hold the heap's arrays. */
    uint64_t c;
    const unsigned char *p = chunk_of(s, "OIDS", &c);
    assert_int_equal(c, h->object_count);
    assert_memory_equal(p, h->object_id, (size_t)c * 8);
    p = chunk_of(s, "OTYP", &c);
    assert_memory_equal(p, h->object_type, (size_t)c * 4);
    p = chunk_of(s, "OTGT", &c);
    assert_int_equal(c, h->ref_count);
    if (c)
        assert_memory_equal(p, h->out_target, (size_t)c * 4);
    gch_index *ix;
    gch_error err;
    assert_int_equal(gch_index_open(s->p, s->n, &ix, &err), GCH_OK);
    gch_status st = gch_index_check(ix, &err);
    if (st != GCH_OK)
        print_message("check: %s\n", err.message);
    assert_int_equal(st, GCH_OK);
    gch_index_close(ix);
}

static void two_threads_forced(void)
{
    gch_tuning k = gch_tuning_get();
    k.parallel_min_refs = 0; /* a writer thread however small the heap */
    k.default_workers = 2;
    gch_internal_set_tuning(&k);
}

static void same_bytes_any_threads(void **state)
{
    (void)state;
    two_threads_forced();
    for (uint32_t g = 0; g < 60; g += test_thin()) {
        sink one = { 0 }, two = { 0 };
        gch_dump *oracle = make_dump(g);
        uint64_t before = gch_internal_threads_created();
        assert_int_equal(write_with(make_dump(g), 1, &one), GCH_OK);
        assert_int_equal(gch_internal_threads_created(), before); /* one: no thread */
        assert_int_equal(write_with(make_dump(g), 2, &two), GCH_OK);
        assert_true(gch_internal_threads_created() > before);     /* two: the writer's */
        assert_int_equal(one.n, two.n);
        assert_memory_equal(one.p, two.p, one.n);
        /* No write_at (a pipe): the whole file at the end, the same bytes. */
        sink dry = { 0 };
        assert_int_equal(write_dry(make_dump(g), 1 + g % 2, &dry, 1), GCH_OK);
        assert_int_equal(dry.header_at, 0);
        assert_int_equal(dry.n, one.n);
        assert_memory_equal(dry.p, one.p, one.n);
        free(dry.p);
        assert_int_equal(one.header_at, 1);
        check_layout(&one, oracle->heaps[0]);
        gch_dump_free(oracle);
        free(one.p);
        free(two.p);
    }
    gch_internal_set_tuning(NULL);
}

/* A callback failing at its k-th call, for every k up to the calls of a
 * whole write, on one thread (the counting allocator then checks that
 * nothing is left) and on two (AddressSanitizer's leak check at exit). */
static void write_failures(void **state)
{
    (void)state;
    two_threads_forced();
    for (uint32_t g = 0; g < 4; g++) {
        sink whole = { 0 };
        assert_int_equal(write_with(make_dump(g), 1, &whole), GCH_OK);
        assert_true(whole.calls > 20);
        sink dry = { 0 };
        assert_int_equal(write_dry(make_dump(g), 1, &dry, 1), GCH_OK);
        for (unsigned mode = 1; mode <= 3; mode++) { /* threads 1, 2; 3: dry on 1 */
            unsigned threads = mode == 2 ? 2 : 1;
            long calls = mode == 3 ? dry.calls : whole.calls;
            /* The big heap: every 7th on two; under GCHEAP_TEST_THIN fewer. */
            long step = (g == 0 && threads == 2 ? 7 : 1) * (long)test_thin();
            for (long k = 1; k <= calls; k += step) {
                sink s = { 0 };
                s.fail_at = k;
                if (threads == 1) /* everything made and freed under it */
                    th_alloc_install(-1);
                gch_status st = write_dry(make_dump(g), threads, &s, mode == 3);
                if (threads == 1) {
                    size_t live = th_alloc_live_blocks();
                    th_alloc_uninstall();
                    assert_int_equal(live, 0);
                }
                assert_int_equal(st, GCH_EIO);
                assert_int_equal(s.calls, k); /* nothing after the failure */
                assert_int_equal(s.after, 0);
                free(s.p);
            }
        }
        free(dry.p);
        free(whole.p);
    }
    gch_internal_set_tuning(NULL);
}

/* Every allocation failing in turn (one thread: a fixed order): GCH_ENOMEM
 * (or GCH_OK when a shrinking realloc failed harmlessly), nothing leaked. */
static void alloc_failures(void **state)
{
    (void)state;
    sink whole = { 0 };
    assert_int_equal(write_with(make_dump(3), 1, &whole), GCH_OK);
    long failing = 0;
    for (long n = 1;; n++) {
        sink s = { 0 };
        fail_alloc_install(0); /* the dump made under it, then the n-th call fails */
        gch_dump *d = make_dump(3);
        fail_alloc.fail_at = fail_alloc.calls + n;
        gch_analysis_options o;
        memset(&o, 0, sizeof o);
        o.threads = 1;
        gch_analysis *a = NULL;
        gch_status st = gch_analysis_new(d, &o, &a, NULL);
        if (st == GCH_OK) {
            gch_index_stamp stamp;
            memset(&stamp, 0, sizeof stamp);
            stamp.dump_size = 99;
            gch_index_io io = { sink_write, sink_write_at, &s };
            st = gch_index_write(a, &stamp, "w.gclog", &io, NULL);
            gch_analysis_free(a);
        } else {
            gch_dump_free(d);
        }
        int hit = fail_alloc.hit;
        long live = fail_alloc.live;
        fail_alloc_remove();
        if (live != 0)
            fail_msg("allocation %ld failed: %ld blocks leaked (status %d)", n, live, (int)st);
        if (!hit) {
            assert_int_equal(st, GCH_OK);
            assert_int_equal(s.n, whole.n);
            assert_memory_equal(s.p, whole.p, s.n);
            free(s.p);
            break;
        }
        failing++;
        if (st == GCH_OK) /* a shrinking realloc may fail harmlessly */
            assert_memory_equal(s.p, whole.p, s.n);
        else
            assert_int_equal(st, GCH_ENOMEM);
        free(s.p);
    }
    print_message("failed each of %ld allocations in turn\n", failing);
    assert_true(failing > 10);
    free(whole.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_bytes_any_threads),
        cmocka_unit_test(write_failures),
        cmocka_unit_test(alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* fuzz_ruby: the Ruby heap dump reader (ObjectSpace.dump_all JSON lines) on
 * arbitrary bytes. Each input is read four ways, which must agree:
 *   1. gch_read_ruby_buffer (in place);
 *   2. gch_read_ruby through a source handing out 1-64 byte chunks;
 *   3. gch_read_ruby_buffer with skip_refs (the same objects, no reference);
 *   4. gch_read_ruby_buffer with keep_payloads (String values kept: the same
 *      heap, and every payload a TEXT inside the string pool);
 *   5. under another hash key (fuzz_check_other_key).
 * And line by line, the line parser's fast path (rb_parse_line_fast) either
 * declines or fills the record the general parser fills.
 * A success must pass heap_check_dump, with each object's site an offset
 * into the pool; a failure must be EFORMAT or ELIMIT with a clean message and
 * a line inside the input. Same status, same error line and message.
 * Seeds: tests/fuzz/seeds/ruby/ (hand-written and cut from a real dump).
 */
#include "fuzz_common.h"
#include "gcheap/alloc.h"
#include "ruby_line.h"

#define H "fuzz_ruby"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_extras(const gch_dump *d)
{
    const gch_heap *h = d->heaps[0];
    if (h->object_site)
        for (uint32_t o = 0; o < h->object_count; o++)
            if (h->object_site[o] != GCH_NONE && h->object_site[o] >= h->strings_size)
                fuzz_fail(H, "a site outside the string pool");
    for (size_t i = 0; i < h->payload_count; i++) {
        const gch_payload *p = &h->payloads[i];
        if (p->kind != GCH_PAYLOAD_TEXT || p->offset + p->length >= h->strings_size ||
            (i && h->payloads[i - 1].id >= p->id))
            fuzz_fail(H, "a bad String payload");
    }
}

static int same_str(rb_str a, rb_str b)
{
    return a.n == b.n && a.escaped == b.escaped && (a.n == 0 || a.p == b.p);
}

/* Each line: the fast path declines, or agrees with the general parser. */
static void check_fast_path(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        rb_record f, g;
        rb_refs rf = { NULL, 0, 0 }, rg = { NULL, 0, 0 };
        size_t col;
        if (rb_parse_line_fast(p, le, &f, &rf)) {
            if (rb_parse_line_general(p, le, &g, &rg, &col) != NULL)
                fuzz_fail(H, "the fast path took a line the general parser refuses");
            if (f.kind != g.kind || !same_str(f.type, g.type) || f.address != g.address ||
                f.klass != g.klass || f.superclass != g.superclass || f.memsize != g.memsize ||
                f.line != g.line || f.has_address != g.has_address || f.has_type != g.has_type ||
                f.has_line != g.has_line || f.has_value != g.has_value || f.has_file != g.has_file ||
                f.has_name != g.has_name || !same_str(f.name, g.name) || !same_str(f.root, g.root) ||
                !same_str(f.imemo_type, g.imemo_type) || !same_str(f.strct, g.strct) ||
                !same_str(f.value, g.value) || !same_str(f.file, g.file) || f.nrefs != g.nrefs ||
                (f.nrefs && memcmp(rf.v, rg.v, f.nrefs * sizeof *rf.v) != 0))
                fuzz_fail(H, "the fast path and the general parser disagree on a line");
        }
        gch_free(rf.v);
        gch_free(rg.v);
        p = nl ? nl + 1 : end;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_fast_path(data, size);
    uint64_t lines = fuzz_line_count(data, size);
    gch_dump *whole = NULL, *streamed = NULL, *skipped = NULL, *texts = NULL;
    gch_error e1, e2, e3, e4;

    gch_status s1 = gch_read_ruby_buffer(data, size, NULL, &whole, &e1);
    if (s1 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(whole));
        check_extras(whole);
    } else if (s1 != GCH_EFORMAT && s1 != GCH_ELIMIT) {
        fuzz_fail(H, "unexpected status (not OK, EFORMAT or ELIMIT)");
    } else {
        FUZZ_CHECK(H, heap_check_error(s1, whole, &e1, lines));
    }

    fuzz_stream fs = { data, size, 0, (uint32_t)size * 2654435761u };
    gch_source src = { fuzz_stream_read, &fs };
    gch_status s2 = gch_read_ruby(&src, NULL, &streamed, &e2);
    if (s2 != s1)
        fuzz_fail(H, "streamed read and buffer read disagree on the status");
    if (s1 == GCH_OK)
        FUZZ_CHECK(H, heap_check_same_dump(whole, streamed, 1));
    else if (e1.line != e2.line || strcmp(e1.message, e2.message) != 0)
        fuzz_fail(H, "streamed read and buffer read report different errors");

    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_refs = 1;
    gch_status s3 = gch_read_ruby_buffer(data, size, &opts, &skipped, &e3);
    if (s3 != s1)
        fuzz_fail(H, "skip_refs read and full read disagree on the status");
    if (s1 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(skipped));
        FUZZ_CHECK(H, heap_check_same_dump(whole, skipped, 0));
    } else if (s1 == GCH_EFORMAT && (e1.line != e3.line || strcmp(e1.message, e3.message) != 0)) {
        fuzz_fail(H, "skip_refs read and full read report different errors");
    }

    memset(&opts, 0, sizeof opts);
    opts.keep_payloads = 1;
    gch_status s4 = gch_read_ruby_buffer(data, size, &opts, &texts, &e4);
    if (s4 != s1 && !(s1 == GCH_OK && s4 == GCH_ELIMIT)) /* values may fill the pool */
        fuzz_fail(H, "keep_payloads read and full read disagree on the status");
    if (s4 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(texts));
        FUZZ_CHECK(H, heap_check_same_dump(whole, texts, 1));
        check_extras(texts);
    }
    fuzz_check_other_key(H, gch_read_ruby_buffer, data, size, s1, whole, &e1);
    gch_dump_free(whole);
    gch_dump_free(streamed);
    gch_dump_free(skipped);
    gch_dump_free(texts);
    return 0;
}

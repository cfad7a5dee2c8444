/* fuzz_hprof: the HPROF reader on arbitrary bytes: read fully and with
 * skip_refs through fuzz_binary_reader_once (fuzz_common.h), which says what
 * must hold; then with keep_payloads, which must give the same result and a
 * payload table that is sorted, unique, and points inside the input; then
 * with keep_fields as well (every class), whose instance entries and field
 * table must lie inside the input too, and on which gch_waste_find and
 * gch_instance_field read only bytes of the input.
 * Seeds: tests/fuzz/seeds/hprof/ (dumps of the test writer, both identifier
 * sizes) and the testdata files ending in .hprof. */
#include "fuzz_common.h"
#include "gcheap/waste.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What must hold of a heap's payloads; NULL when it does. */
static const char *payloads_wrong(const gch_heap *h, size_t size)
{
    if (!h->payloads_kept)
        return "keep_payloads: payloads_kept is 0";
    for (size_t i = 0; i < h->payload_count; i++) {
        const gch_payload *p = &h->payloads[i];
        if (i && h->payloads[i - 1].id >= p->id)
            return "payloads not sorted by id, or an id twice";
        if (gch_heap_payload(h, p->id) != p)
            return "gch_heap_payload does not find an entry";
        if (p->kind == GCH_PAYLOAD_ARRAY && p->elem == GCH_ELEM_OBJECT) {
            if (p->offset > size || (uint64_t)p->length * 4 > size - p->offset)
                return "an object array payload outside the input";
        } else if (p->kind == GCH_PAYLOAD_ARRAY) {
            uint64_t bytes = (uint64_t)p->length * gch_elem_size(p->elem);
            if (gch_elem_size(p->elem) == 0 || p->offset > size || bytes > size - p->offset)
                return "an array payload outside the input";
        } else if (p->kind == GCH_PAYLOAD_INSTANCE) {
            if (p->offset > size || p->length > size - p->offset)
                return "an instance payload outside the input";
        } else if (p->kind != GCH_PAYLOAD_STRING || p->coder > GCH_CODER_NONE) {
            return "a payload of an unknown kind or coder";
        }
    }
    return NULL;
}

typedef struct buffer {
    const uint8_t *data;
    size_t size;
} buffer;

/* Reads of the input: a read outside it is a bug of the caller. */
static int read_input(void *ctx, uint64_t off, void *out, size_t n)
{
    const buffer *b = ctx;
    if (off > b->size || n > b->size - off)
        fuzz_fail("fuzz_hprof", "a read outside the input");
    memcpy(out, b->data + off, n);
    return 0;
}

/* keep_fields: the field table, the waste sections and every field read. */
static void check_fields(const uint8_t *data, size_t size, gch_status plain_status)
{
    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.keep_payloads = 1;
    opts.keep_fields = 1;
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = gch_read_hprof_buffer(data, size, &opts, &d, &err);
    if (st != plain_status && st != GCH_ENOMEM)
        fuzz_fail("fuzz_hprof", "keep_fields changes the status");
    if (st != GCH_OK)
        return;
    gch_heap *h = d->heaps[0];
    FUZZ_CHECK("fuzz_hprof", payloads_wrong(h, size));
    if (!h->type_fields)
        fuzz_fail("fuzz_hprof", "keep_fields: no field table");
    for (uint32_t t = 0; t < h->type_count; t++)
        if (h->type_fields[t] > h->type_fields[t + 1])
            fuzz_fail("fuzz_hprof", "field table starts decrease");
    buffer b = { data, size };
    for (uint32_t o = 0; o < h->object_count && o < 4096; o++) {
        gch_value v;
        uint32_t t = h->object_type[o];
        for (uint32_t f = h->type_fields[t]; f < h->type_fields[t + 1]; f++)
            if (gch_instance_field(h, o, h->fields[f].name, read_input, &b, &v) < 0)
                fuzz_fail("fuzz_hprof", "gch_instance_field failed to read the input");
    }
    gch_waste w;
    gch_waste_options wo = { .min_count = 2, .read = read_input, .read_ctx = &b, .holders = 1 };
    st = gch_waste_find(h, &wo, &w, &err);
    if (st != GCH_OK && st != GCH_ENOMEM)
        fuzz_fail("fuzz_hprof", "gch_waste_find failed on a dump that loaded");
    gch_waste_free(&w);
    gch_dump_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_binary_reader_once("fuzz_hprof", gch_read_hprof_buffer, data, size);

    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    gch_dump *plain = NULL, *kept = NULL;
    gch_error e1, e2;
    gch_status s1 = gch_read_hprof_buffer(data, size, &opts, &plain, &e1);
    opts.keep_payloads = 1;
    gch_status s2 = gch_read_hprof_buffer(data, size, &opts, &kept, &e2);
    if (s1 != s2)
        fuzz_fail("fuzz_hprof", "keep_payloads changes the status");
    if (s1 == GCH_OK) {
        FUZZ_CHECK("fuzz_hprof", heap_check_same_dump(plain, kept, 1));
        FUZZ_CHECK("fuzz_hprof", payloads_wrong(kept->heaps[0], size));
        if (plain->heaps[0]->payloads_kept || plain->heaps[0]->payloads)
            fuzz_fail("fuzz_hprof", "payloads without keep_payloads");
    } else if (s1 == GCH_EFORMAT && (e1.offset != e2.offset || strcmp(e1.message, e2.message) != 0)) {
        fuzz_fail("fuzz_hprof", "keep_payloads changes the error");
    }
    gch_dump_free(plain);
    gch_dump_free(kept);
    check_fields(data, size, s1);
    return 0;
}

/* The test-only HPROF writer: see hprof_writer.h. */
#include "hprof_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void need(hpw *w, size_t n)
{
    if (w->len + n <= w->cap)
        return;
    size_t cap = w->cap ? w->cap : 256;
    while (cap < w->len + n)
        cap *= 2;
    w->buf = realloc(w->buf, cap);
    if (!w->buf) {
        fprintf(stderr, "hprof_writer: out of memory\n");
        abort();
    }
    w->cap = cap;
}

hpw *hpw_new(const char *version, unsigned id_size, uint64_t timestamp_ms)
{
    hpw *w = calloc(1, sizeof *w);
    if (!w)
        abort();
    w->id_size = id_size;
    w->record = SIZE_MAX;
    char head[64];
    int n = snprintf(head, sizeof head, "JAVA PROFILE %s", version);
    hpw_bytes(w, head, (size_t)n + 1);
    hpw_u4(w, id_size);
    hpw_u8(w, timestamp_ms);
    return w;
}

void hpw_free(hpw *w)
{
    if (w) {
        free(w->buf);
        free(w);
    }
}

void hpw_bytes(hpw *w, const void *p, size_t n)
{
    need(w, n);
    if (n)
        memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void put_be(hpw *w, uint64_t v, unsigned size)
{
    unsigned char b[8];
    for (unsigned i = 0; i < size; i++)
        b[i] = (unsigned char)(v >> (8 * (size - 1 - i)));
    hpw_bytes(w, b, size);
}

void hpw_u1(hpw *w, unsigned v) { put_be(w, v, 1); }
void hpw_u2(hpw *w, unsigned v) { put_be(w, v, 2); }
void hpw_u4(hpw *w, uint32_t v) { put_be(w, v, 4); }
void hpw_u8(hpw *w, uint64_t v) { put_be(w, v, 8); }
void hpw_id(hpw *w, uint64_t v) { put_be(w, v, w->id_size); }

void hpw_begin_raw(hpw *w, unsigned tag, uint32_t length)
{
    hpw_u1(w, tag);
    hpw_u4(w, 0);
    hpw_u4(w, length);
    w->record = SIZE_MAX;
}

void hpw_begin(hpw *w, unsigned tag)
{
    hpw_begin_raw(w, tag, 0);
    w->record = w->len - 9;
}

void hpw_end(hpw *w)
{
    if (w->record == SIZE_MAX)
        return;
    uint32_t len = (uint32_t)(w->len - w->record - 9);
    for (unsigned i = 0; i < 4; i++)
        w->buf[w->record + 5 + i] = (unsigned char)(len >> (8 * (3 - i)));
    w->record = SIZE_MAX;
}

void hpw_string(hpw *w, uint64_t id, const char *text)
{
    hpw_begin(w, 0x01);
    hpw_id(w, id);
    hpw_bytes(w, text, strlen(text));
    hpw_end(w);
}

void hpw_load_class(hpw *w, uint32_t serial, uint64_t class_id, uint64_t name_id)
{
    hpw_begin(w, 0x02);
    hpw_u4(w, serial);
    hpw_id(w, class_id);
    hpw_u4(w, 1);
    hpw_id(w, name_id);
    hpw_end(w);
}

static unsigned type_size(const hpw *w, unsigned type)
{
    switch (type) {
    case 1: case 2: return w->id_size;
    case 4: case 8: return 1;
    case 5: case 9: return 2;
    case 6: case 10: return 4;
    case 7: case 11: return 8;
    default: return 0;
    }
}

size_t hpw_value(const hpw *w, unsigned type, uint64_t v, unsigned char *out)
{
    unsigned n = type_size(w, type);
    for (unsigned i = 0; i < n; i++)
        out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
    return n;
}

void hpw_class_dump(hpw *w, uint64_t class_id, uint64_t super_id, uint64_t loader_id,
                    uint32_t instance_size, const hpw_field *statics, size_t nstatics,
                    const hpw_field *fields, size_t nfields)
{
    hpw_u1(w, 0x20);
    hpw_id(w, class_id);
    hpw_u4(w, 1);
    hpw_id(w, super_id);
    hpw_id(w, loader_id);
    for (int i = 0; i < 4; i++)
        hpw_id(w, 0); /* signers, protection domain, reserved x2 */
    hpw_u4(w, instance_size);
    hpw_u2(w, 0); /* constant pool */
    hpw_u2(w, (unsigned)nstatics);
    for (size_t i = 0; i < nstatics; i++) {
        unsigned char v[8];
        hpw_id(w, statics[i].name_id);
        hpw_u1(w, statics[i].type);
        hpw_bytes(w, v, hpw_value(w, statics[i].type, statics[i].value, v));
    }
    hpw_u2(w, (unsigned)nfields);
    for (size_t i = 0; i < nfields; i++) {
        hpw_id(w, fields[i].name_id);
        hpw_u1(w, fields[i].type);
    }
}

void hpw_instance(hpw *w, uint64_t id, uint64_t class_id, const void *values, uint32_t n)
{
    hpw_u1(w, 0x21);
    hpw_id(w, id);
    hpw_u4(w, 1);
    hpw_id(w, class_id);
    hpw_u4(w, n);
    hpw_bytes(w, values, n);
}

void hpw_object_array(hpw *w, uint64_t id, uint64_t class_id, const uint64_t *elems, uint32_t n)
{
    hpw_u1(w, 0x22);
    hpw_id(w, id);
    hpw_u4(w, 1);
    hpw_u4(w, n);
    hpw_id(w, class_id);
    for (uint32_t i = 0; i < n; i++)
        hpw_id(w, elems[i]);
}

void hpw_prim_array(hpw *w, uint64_t id, unsigned type, uint32_t n, const void *data)
{
    hpw_u1(w, 0x23);
    hpw_id(w, id);
    hpw_u4(w, 1);
    hpw_u4(w, n);
    hpw_u1(w, type);
    size_t bytes = (size_t)n * type_size(w, type);
    if (data) {
        hpw_bytes(w, data, bytes);
    } else {
        need(w, bytes);
        memset(w->buf + w->len, 0, bytes);
        w->len += bytes;
    }
}

void hpw_prim_array_nodata(hpw *w, uint64_t id, unsigned type, uint32_t n)
{
    hpw_u1(w, 0xC3);
    hpw_id(w, id);
    hpw_u4(w, 1);
    hpw_u4(w, n);
    hpw_u1(w, type);
}

void hpw_root(hpw *w, unsigned tag, uint64_t id, uint32_t a, uint32_t b)
{
    hpw_u1(w, tag);
    hpw_id(w, id);
    switch (tag) {
    case 0x01: /* JNI global: the global ref's id */
        hpw_id(w, a);
        break;
    case 0x02: case 0x03: case 0x08: case 0x8E: /* thread serial, frame / trace */
        hpw_u4(w, a);
        hpw_u4(w, b);
        break;
    case 0x04: case 0x06: /* thread serial */
        hpw_u4(w, a);
        break;
    default:
        break;
    }
}

void hpw_heap_info(hpw *w, uint32_t heap_type, uint64_t name_id)
{
    hpw_u1(w, 0xFE);
    hpw_u4(w, heap_type);
    hpw_id(w, name_id);
}

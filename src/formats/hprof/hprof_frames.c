/* Stack frames for the labels of stack roots: a ROOT JAVA FRAME (or JNI
 * LOCAL) names its thread's serial and a depth in that thread's STACK TRACE;
 * the trace lists STACK FRAME ids; a frame names its method, source file,
 * line and class (by the LOAD CLASS serial). The label then reads as a Java
 * stack trace line, as Eclipse MAT and VisualVM show it:
 * "OrderWorker.run (Words.java:42)". Record layouts: the HPROF format of
 * the JDK (heapDumper.cpp, DumperSupport / ThreadDumper; docs/hprof-format.md).
 * Every entry is backed by a record of the input; lookups are binary searches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "hprof_internal.h"
#include "search.h"

gch_status hp_add_frame(hprof_reader *r, size_t body, size_t len)
{
    if (len < 4 * (size_t)r->id_size + 8)
        return GCH_OK; /* too short to name anything: no frame text, as for a missing one */
    if (!gch_grow((void **)&r->frames, &r->frame_cap, r->frame_count + 1, sizeof *r->frames, 64))
        return hp_oom(r);
    hp_frame_ref *f = &r->frames[r->frame_count++];
    f->id = hp_id(r, r->data + body);
    f->body = body;
    return GCH_OK;
}

gch_status hp_add_trace(hprof_reader *r, size_t body, size_t len)
{
    if (len < 12)
        return GCH_OK;
    if (!gch_grow((void **)&r->traces, &r->trace_cap, r->trace_count + 1, sizeof *r->traces, 64))
        return hp_oom(r);
    hp_trace *t = &r->traces[r->trace_count++];
    const unsigned char *p = r->data + body;
    t->serial = hp_u4(p);
    uint32_t n = hp_u4(p + 8);
    size_t backed = (len - 12) / r->id_size; /* a count the record cannot back is cut */
    t->frame_count = n < backed ? n : (uint32_t)backed;
    t->frames = body + 12;
    return GCH_OK;
}

gch_status hp_add_class_serial(hprof_reader *r, size_t body)
{
    if (!gch_grow((void **)&r->class_serials, &r->class_serial_cap, 2 * r->class_serial_count + 2,
                  sizeof *r->class_serials, 256))
        return hp_oom(r);
    const unsigned char *p = r->data + body;
    r->class_serials[2 * r->class_serial_count] = hp_u4(p);
    r->class_serials[2 * r->class_serial_count + 1] = hp_id(r, p + 8 + r->id_size);
    r->class_serial_count++;
    return GCH_OK;
}

static int compare_frames(const void *pa, const void *pb)
{
    const hp_frame_ref *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->body < b->body ? -1 : a->body > b->body; /* the first record of an id wins */
}

static int compare_traces(const void *pa, const void *pb)
{
    const hp_trace *a = pa, *b = pb;
    if (a->serial != b->serial)
        return a->serial < b->serial ? -1 : 1;
    return a->frames < b->frames ? -1 : a->frames > b->frames;
}

static int compare_pairs(const void *pa, const void *pb)
{
    const uint64_t *a = pa, *b = pb;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return 0;
}

void hp_index_frames(hprof_reader *r)
{
    if (r->frame_count)
        qsort(r->frames, r->frame_count, sizeof *r->frames, compare_frames);
    if (r->trace_count)
        qsort(r->traces, r->trace_count, sizeof *r->traces, compare_traces);
    if (r->class_serial_count)
        qsort(r->class_serials, r->class_serial_count, 2 * sizeof *r->class_serials, compare_pairs);
}

static const hp_trace *find_trace(const hprof_reader *r, uint32_t serial)
{
    size_t lo = GCH_LOWER_BOUND_BY(r->traces, hp_trace, serial, 0, r->trace_count, serial);
    return lo < r->trace_count && r->traces[lo].serial == serial ? &r->traces[lo] : NULL;
}

static const hp_frame_ref *find_frame(const hprof_reader *r, uint64_t id)
{
    size_t lo = GCH_LOWER_BOUND_BY(r->frames, hp_frame_ref, id, 0, r->frame_count, id);
    return lo < r->frame_count && r->frames[lo].id == id ? &r->frames[lo] : NULL;
}

static uint64_t class_name_id(const hprof_reader *r, uint32_t serial)
{
    /* pairs (serial, name id): the key is the first of each 16 bytes */
    size_t lo = gch_lower_bound(r->class_serials, 2 * sizeof *r->class_serials, 0,
                                sizeof *r->class_serials, 0, r->class_serial_count, serial);
    return lo < r->class_serial_count && r->class_serials[2 * lo] == serial
               ? r->class_serials[2 * lo + 1] : 0;
}

/* Appends the string with id, printable ASCII only ('/' as '.' when dots),
 * at most max bytes; returns the new length of buf (n when id names none). */
static size_t put_string(const hprof_reader *r, uint64_t id, int dots, size_t max, char *buf,
                         size_t n, size_t cap)
{
    uint32_t len;
    const char *s = id ? hp_string_get(r, id, &len) : NULL;
    for (uint32_t i = 0; s && i < len && i < max && n + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[n++] = dots && c == '/' ? '.' : c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    buf[n] = '\0';
    return n;
}

size_t hp_frame_text(const hprof_reader *r, uint32_t trace_serial, uint32_t depth, char *buf,
                     size_t cap)
{
    buf[0] = '\0';
    const hp_trace *t = find_trace(r, trace_serial);
    if (!t || depth >= t->frame_count || cap < 64)
        return 0;
    const hp_frame_ref *f = find_frame(r, hp_id(r, r->data + t->frames + (size_t)depth * r->id_size));
    if (!f)
        return 0;
    const unsigned char *p = r->data + f->body;
    unsigned id = r->id_size;
    uint64_t method = hp_id(r, p + id), file = hp_id(r, p + 3 * id);
    uint32_t class_serial = hp_u4(p + 4 * id);
    int32_t line = (int32_t)hp_u4(p + 4 * id + 4);
    size_t n = put_string(r, class_name_id(r, class_serial), 1, 200, buf, 0, cap);
    if (n)
        buf[n++] = '.';
    size_t before = n;
    n = put_string(r, method, 0, 100, buf, n, cap);
    if (n == before)
        return 0; /* no method name: no frame worth showing */
    char tail[160] = "";
    size_t fl = put_string(r, file, 0, 100, tail, 0, sizeof tail);
    if (line == -3)
        snprintf(tail, sizeof tail, "Native Method");
    else if (line == -2)
        snprintf(tail + fl, sizeof tail - fl, "%sCompiled Code", fl ? ", " : "");
    else if (line > 0 && fl)
        snprintf(tail + fl, sizeof tail - fl, ":%d", (int)line);
    else if (!fl)
        snprintf(tail, sizeof tail, "Unknown Source");
    int k = snprintf(buf + n, cap - n, " (%s)", tail);
    return k < 0 || (size_t)k >= cap - n ? cap - 1 : n + (size_t)k;
}

/* Pass 1 of the HPROF reader: the header, the framing of every record and
 * sub-record, and the indexes later passes need (strings, LOAD CLASS, CLASS
 * DUMP, threads). See hprof_internal.h and docs/hprof-format.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "search.h"
#include "hprof_internal.h"

gch_status hp_oom(hprof_reader *r)
{
    return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
}

unsigned hp_type_size(const hprof_reader *r, unsigned t)
{
    switch (t) {
    case HP_T_ARRAY_OBJECT:
    case HP_T_OBJECT: return r->id_size;
    default: return gch_elem_size(t);
    }
}

/* The model's element types are HPROF's basic types, numbered alike: one
 * size table (gch_elem_size) serves both. */
_Static_assert((int)HP_T_BOOLEAN == (int)GCH_ELEM_BOOLEAN && (int)HP_T_CHAR == (int)GCH_ELEM_CHAR &&
                   (int)HP_T_FLOAT == (int)GCH_ELEM_FLOAT && (int)HP_T_DOUBLE == (int)GCH_ELEM_DOUBLE &&
                   (int)HP_T_BYTE == (int)GCH_ELEM_BYTE && (int)HP_T_SHORT == (int)GCH_ELEM_SHORT &&
                   (int)HP_T_INT == (int)GCH_ELEM_INT && (int)HP_T_LONG == (int)GCH_ELEM_LONG,
               "HPROF basic types and GCH_ELEM_* differ");

/* ------------------------------------------------------------------------ */
/* Sub-record extents */

/* The fixed body size (after the tag) of a sub-record with no variable part,
 * or 0 for the variable ones and unknown tags. */
static size_t fixed_body(const hprof_reader *r, unsigned tag)
{
    size_t id = r->id_size;
    switch (tag) {
    case HP_ROOT_UNKNOWN: case HP_ROOT_STICKY_CLASS: case HP_ROOT_MONITOR_USED:
    case HP_ROOT_INTERNED_STRING: case HP_ROOT_FINALIZING: case HP_ROOT_DEBUGGER:
    case HP_ROOT_REFERENCE_CLEANUP: case HP_ROOT_VM_INTERNAL: case HP_UNREACHABLE:
        return id;
    case HP_ROOT_JNI_GLOBAL: return 2 * id;
    case HP_ROOT_JNI_LOCAL: case HP_ROOT_JAVA_FRAME: case HP_ROOT_THREAD_OBJ:
    case HP_ROOT_JNI_MONITOR:
        return id + 8;
    case HP_ROOT_NATIVE_STACK: case HP_ROOT_THREAD_BLOCK: return id + 4;
    case HP_HEAP_DUMP_INFO: return 4 + id;
    case HP_PRIM_ARRAY_NODATA: return id + 9;
    default: return 0;
    }
}

/* Skips count (name id, type[, value]) entries of a class dump starting at *p. */
static gch_status skip_class_fields(hprof_reader *r, size_t *p, size_t end, size_t count,
                                    int with_value, size_t key_bytes, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        if (end - *p < key_bytes + 1)
            return hp_fail(r, *p, "class dump: truncated %s %zu of %zu", what, i, count);
        unsigned t = r->data[*p + key_bytes];
        unsigned sz = hp_type_size(r, t);
        if (sz == 0)
            return hp_fail(r, *p + key_bytes, "class dump: %s %zu has unknown type %u", what, i, t);
        *p += key_bytes + 1;
        if (with_value) {
            if (end - *p < sz)
                return hp_fail(r, *p, "class dump: truncated value of %s %zu", what, i);
            *p += sz;
        }
    }
    return GCH_OK;
}

static gch_status class_dump_end(hprof_reader *r, size_t off, size_t end, size_t *next)
{
    size_t id = r->id_size, p = off + 1 + 7 * id + 8;
    if (end - off < 1 + 7 * id + 8 + 2)
        return hp_fail(r, off, "truncated class dump");
    size_t n = hp_u2(r->data + p);
    p += 2;
    gch_status st = skip_class_fields(r, &p, end, n, 1, 2, "constant pool entry");
    if (st != GCH_OK)
        return st;
    if (end - p < 2)
        return hp_fail(r, p, "class dump: truncated static field count");
    n = hp_u2(r->data + p);
    p += 2;
    if ((st = skip_class_fields(r, &p, end, n, 1, id, "static field")) != GCH_OK)
        return st;
    if (end - p < 2)
        return hp_fail(r, p, "class dump: truncated instance field count");
    n = hp_u2(r->data + p);
    p += 2;
    if ((st = skip_class_fields(r, &p, end, n, 0, id, "instance field")) != GCH_OK)
        return st;
    *next = p;
    return GCH_OK;
}

/* Checks that a body of head + count * unit bytes fits before end. */
static gch_status counted_end(hprof_reader *r, size_t off, size_t end, size_t head,
                              uint64_t count, unsigned unit, const char *what, size_t *next)
{
    if (end - off < head)
        return hp_fail(r, off, "truncated %s", what);
    size_t left = end - off - head;
    if (unit == 0 || count > left / unit)
        return hp_fail(r, off, "%s: %llu elements of %u bytes exceed the %zu bytes left in the record",
                       what, (unsigned long long)count, unit, left);
    *next = off + head + (size_t)count * unit;
    return GCH_OK;
}

gch_status hp_sub_record_end(hprof_reader *r, size_t off, size_t end, size_t *next)
{
    unsigned tag = r->data[off];
    size_t id = r->id_size, fixed = fixed_body(r, tag);
    const unsigned char *d = r->data;
    if (fixed) {
        if (end - off - 1 < fixed)
            return hp_fail(r, off, "truncated heap sub-record 0x%02X", tag);
        *next = off + 1 + fixed;
        return GCH_OK;
    }
    switch (tag) {
    case HP_CLASS_DUMP:
        return class_dump_end(r, off, end, next);
    case HP_INSTANCE_DUMP:
        if (end - off < 1 + 2 * id + 8)
            return hp_fail(r, off, "truncated instance dump");
        return counted_end(r, off, end, 1 + 2 * id + 8, hp_u4(d + off + 1 + 2 * id + 4), 1,
                           "instance dump", next);
    case HP_OBJ_ARRAY_DUMP:
        if (end - off < 1 + 2 * id + 8)
            return hp_fail(r, off, "truncated object array dump");
        return counted_end(r, off, end, 1 + 2 * id + 8, hp_u4(d + off + 1 + id + 4), (unsigned)id,
                           "object array dump", next);
    case HP_PRIM_ARRAY_DUMP: {
        if (end - off < 1 + id + 9)
            return hp_fail(r, off, "truncated primitive array dump");
        unsigned t = d[off + 1 + id + 8];
        if (gch_elem_size(t) == 0)
            return hp_fail(r, off + 1 + id + 8, "primitive array dump: unknown element type %u", t);
        return counted_end(r, off, end, 1 + id + 9, hp_u4(d + off + 1 + id + 4), gch_elem_size(t),
                           "primitive array dump", next);
    }
    default:
        return hp_fail(r, off, "unknown heap dump sub-record tag 0x%02X", tag);
    }
}

/* ------------------------------------------------------------------------ */
/* Indexes */

static gch_status add_string(hprof_reader *r, size_t body, size_t len)
{
    if (!gch_grow((void **)&r->strings, &r->string_cap, r->string_count + 1, sizeof *r->strings, 256))
        return hp_oom(r);
    hp_string *s = &r->strings[r->string_count++];
    s->id = hp_id(r, r->data + body);
    s->off = body + r->id_size;
    s->len = (uint32_t)(len - r->id_size);
    return GCH_OK;
}

static gch_status add_load_class(hprof_reader *r, size_t body)
{
    if (!gch_grow((void **)&r->load_class, &r->load_class_cap, 2 * r->load_class_count + 2,
                  sizeof *r->load_class, 256))
        return hp_oom(r);
    const unsigned char *p = r->data + body;
    r->load_class[2 * r->load_class_count] = hp_id(r, p + 4);
    r->load_class[2 * r->load_class_count + 1] = hp_id(r, p + 8 + r->id_size);
    r->load_class_count++;
    return GCH_OK;
}

static gch_status add_class(hprof_reader *r, size_t off)
{
    if (!gch_grow((void **)&r->classes, &r->class_cap, r->class_count + 1, sizeof *r->classes, 256))
        return hp_oom(r);
    hp_class *k = &r->classes[r->class_count++];
    memset(k, 0, sizeof *k);
    size_t id = r->id_size, p = off + 1;
    const unsigned char *d = r->data;
    k->record = p;
    k->id = hp_id(r, d + p);
    k->super_id = hp_id(r, d + p + id + 4);
    k->loader_id = hp_id(r, d + p + 2 * id + 4);
    k->signers_id = hp_id(r, d + p + 3 * id + 4);
    k->domain_id = hp_id(r, d + p + 4 * id + 4);
    k->instance_size = hp_u4(d + p + 7 * id + 4);
    /* Walk again to find the static and instance field lists (checked already). */
    p += 7 * id + 8;
    size_t n = hp_u2(d + p);
    p += 2;
    for (size_t i = 0; i < n; i++)
        p += 3 + hp_type_size(r, d[p + 2]);
    k->statics = p;
    k->static_count = hp_u2(d + p);
    p += 2;
    for (size_t i = 0; i < k->static_count; i++)
        p += id + 1 + hp_type_size(r, d[p + id]);
    k->fields = p;
    k->field_count = hp_u2(d + p);
    return GCH_OK;
}

static gch_status add_thread(hprof_reader *r, size_t off)
{
    if (!gch_grow((void **)&r->threads, &r->thread_cap, r->thread_count + 1, sizeof *r->threads, 16))
        return hp_oom(r);
    hp_thread *t = &r->threads[r->thread_count++];
    memset(t, 0, sizeof *t);
    t->object_id = hp_id(r, r->data + off + 1);
    t->serial = hp_u4(r->data + off + 1 + r->id_size);
    t->trace_serial = hp_u4(r->data + off + 1 + r->id_size + 4);
    return GCH_OK;
}

/* Objects are emitted in id order, merging the runs of increasing ids (the
 * builder then finds ids without a hash table): a dump lists most objects by
 * address, in a few runs (one per heap space or region, the class dumps). */
static gch_status note_run(hprof_reader *r, size_t off, size_t end)
{
    uint64_t id = hp_id(r, r->data + off + 1);
    if (r->runs_overflow)
        return GCH_OK;
    if (r->run_count == 0 || id <= r->run_last_id) {
        if (r->run_count == HP_MAX_RUNS) {
            r->runs_overflow = 1;
            return GCH_OK;
        }
        if (!gch_grow((void **)&r->runs, &r->run_cap, r->run_count + 1, sizeof *r->runs, 64))
            return hp_oom(r);
        hp_run *run = &r->runs[r->run_count++];
        run->off = off;
        run->end = end;
        run->count = 0;
    }
    r->runs[r->run_count - 1].count++;
    r->run_last_id = id;
    return GCH_OK;
}

/* How many references the object at off can have: its class, then what its
 * record has room for (so the builder can be sized once, from input bytes). */
static uint64_t ref_bound(const hprof_reader *r, size_t off, size_t next)
{
    switch (r->data[off]) {
    case HP_CLASS_DUMP: return 4 + r->classes[r->class_count - 1].static_count;
    case HP_INSTANCE_DUMP: return 1 + (next - off - 1 - 2 * r->id_size - 8) / r->id_size;
    case HP_OBJ_ARRAY_DUMP: return 1 + (next - off - 1 - 2 * r->id_size - 8) / r->id_size;
    default: return 1;
    }
}

/* Scans the sub-records of one HEAP DUMP (SEGMENT) body [off, end). */
static gch_status scan_heap_body(hprof_reader *r, size_t off, size_t end)
{
    while (off < end) {
        size_t next;
        gch_status st = hp_sub_record_end(r, off, end, &next);
        if (st != GCH_OK)
            return st;
        unsigned tag = r->data[off];
        r->sub_records++;
        if (tag == HP_CLASS_DUMP)
            st = add_class(r, off);
        else if (tag == HP_ROOT_THREAD_OBJ)
            st = add_thread(r, off);
        if (st == GCH_OK && hp_is_object(tag)) {
            r->objects++;
            r->ref_bound += ref_bound(r, off, next);
            st = note_run(r, off, end);
        }
        if (tag >= 0x80 && tag != HP_ROOT_UNKNOWN)
            r->art_records++;
        if (st != GCH_OK)
            return st;
        off = next;
    }
    return GCH_OK;
}

/* The minimum body of the top-level records the indexes read. */
static gch_status check_record_body(hprof_reader *r, size_t off, unsigned tag, size_t len)
{
    size_t need = 0;
    if (tag == HP_UTF8)
        need = r->id_size;
    else if (tag == HP_LOAD_CLASS)
        need = 8 + 2 * (size_t)r->id_size;
    if (len < need)
        return hp_fail(r, off, "record 0x%02X: %zu bytes, needs at least %zu", tag, len, need);
    return GCH_OK;
}

static gch_status scan_record(hprof_reader *r, size_t off, unsigned tag, size_t body, size_t len)
{
    gch_status st = check_record_body(r, off, tag, len);
    if (st != GCH_OK)
        return st;
    switch (tag) {
    case HP_UTF8: return add_string(r, body, len);
    case HP_LOAD_CLASS: {
        gch_status cs = add_load_class(r, body);
        return cs != GCH_OK ? cs : hp_add_class_serial(r, body);
    }
    case HP_FRAME: return hp_add_frame(r, body, len);
    case HP_TRACE: return hp_add_trace(r, body, len);
    case HP_HEAP_DUMP_SEGMENT:
        r->segments++;
        r->ended = 0;
        /* fall through */
    case HP_HEAP_DUMP:
        r->heap_records++;
        return scan_heap_body(r, body, body + len);
    case HP_UNLOAD_CLASS: case HP_ALLOC_SITES:
    case HP_HEAP_SUMMARY: case HP_START_THREAD: case HP_END_THREAD: case HP_CPU_SAMPLES:
    case HP_CONTROL_SETTINGS:
        return GCH_OK;
    case HP_HEAP_DUMP_END:
        r->ended = 1;
        return GCH_OK;
    default:
        return hp_fail(r, off, "unknown record tag 0x%02X", tag);
    }
}

static gch_status read_header(hprof_reader *r)
{
    static const char magic[] = "JAVA PROFILE 1.0.";
    const unsigned char *nul = memchr(r->data, '\0', r->size < 32 ? r->size : 32);
    if (r->size < sizeof magic - 1 || memcmp(r->data, magic, sizeof magic - 1) != 0)
        return hp_fail(r, 0, "not an HPROF dump (no \"JAVA PROFILE 1.0.\" header)");
    if (!nul)
        return hp_fail(r, 0, "HPROF header: no NUL after the version");
    size_t vlen = (size_t)(nul - r->data);
    memcpy(r->version, r->data, vlen < sizeof r->version ? vlen : sizeof r->version - 1);
    size_t p = vlen + 1;
    if (r->size - p < 12)
        return hp_fail(r, p, "HPROF header: truncated identifier size and timestamp");
    r->id_size = hp_u4(r->data + p);
    if (r->id_size != 4 && r->id_size != 8)
        return hp_fail(r, p, "HPROF header: identifier size %u (only 4 and 8 are read)", r->id_size);
    r->timestamp_ms = hp_u8(r->data + p + 4);
    r->body = p + 12;
    /* ART writes 1.0.3 (hprof-conv rewrites it to 1.0.2). */
    r->art = strcmp(r->version, "JAVA PROFILE 1.0.3") == 0;
    return GCH_OK;
}

static int compare_strings(const void *pa, const void *pb)
{
    const hp_string *a = pa, *b = pb;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int compare_classes(const void *pa, const void *pb)
{
    const hp_class *a = pa, *b = pb;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int compare_pairs(const void *pa, const void *pb)
{
    const uint64_t *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Class ids come from the input: keyed hashing (src/util/hash.h). */
static uint64_t mix(const hprof_reader *r, uint64_t x)
{
    return gch_hash_u64(x, &r->class_hash_key);
}

static gch_status build_class_hash(hprof_reader *r)
{
    size_t cap = 16;
    while (cap < 2 * r->class_count + 2)
        cap *= 2;
    r->class_hash = gch_malloc(cap * sizeof *r->class_hash);
    if (!r->class_hash)
        return hp_oom(r);
    r->class_hash_cap = cap;
    r->class_hash_key = gch_hash_key_get();
    for (size_t i = 0; i < cap; i++)
        r->class_hash[i] = HP_NONE;
    for (size_t i = 0; i < r->class_count; i++) {
        if (i > 0 && r->classes[i].id == r->classes[i - 1].id)
            continue; /* a second dump of a class: the first wins */
        size_t j = mix(r, r->classes[i].id) & (cap - 1);
        while (r->class_hash[j] != HP_NONE)
            j = (j + 1) & (cap - 1);
        r->class_hash[j] = (uint32_t)i;
    }
    return GCH_OK;
}

uint32_t hp_class_find(const hprof_reader *r, uint64_t id)
{
    if (!r->class_hash_cap)
        return HP_NONE;
    size_t mask = r->class_hash_cap - 1, j = mix(r, id) & mask;
    for (;;) {
        uint32_t i = r->class_hash[j];
        if (i == HP_NONE || r->classes[i].id == id)
            return i;
        j = (j + 1) & mask;
    }
}

uint32_t hp_string_index(const hprof_reader *r, uint64_t id)
{
    size_t lo = GCH_LOWER_BOUND_BY(r->strings, hp_string, id, 0, r->string_count, id);
    return lo < r->string_count && r->strings[lo].id == id ? (uint32_t)lo : HP_NONE;
}

const char *hp_string_get(const hprof_reader *r, uint64_t id, uint32_t *len)
{
    uint32_t i = hp_string_index(r, id);
    if (i != HP_NONE) {
        *len = r->strings[i].len;
        return (const char *)r->data + r->strings[i].off;
    }
    *len = 0;
    return NULL;
}

/* The first thread (in dump order) with serial: a binary search of
 * thread_by_serial, whose entries sort by serial, then by index. */
const hp_thread *hp_thread_find(const hprof_reader *r, uint32_t serial)
{
    size_t lo = 0, hi = r->thread_count;
    uint64_t key = (uint64_t)serial << 32;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->thread_by_serial[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->thread_count && r->thread_by_serial[lo] >> 32 == serial)
        return &r->threads[(uint32_t)r->thread_by_serial[lo]];
    return NULL;
}

static int compare_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

static gch_status index_threads(hprof_reader *r)
{
    if (r->thread_count == 0)
        return GCH_OK;
    if (r->thread_count > UINT32_MAX - 1)
        return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32 thread roots");
    r->thread_by_serial = gch_malloc(r->thread_count * sizeof *r->thread_by_serial);
    if (!r->thread_by_serial)
        return hp_oom(r);
    for (size_t i = 0; i < r->thread_count; i++)
        r->thread_by_serial[i] = (uint64_t)r->threads[i].serial << 32 | i;
    qsort(r->thread_by_serial, r->thread_count, sizeof *r->thread_by_serial, compare_u64);
    return GCH_OK;
}

static gch_status finish_indexes(hprof_reader *r)
{
    if (r->string_count)
        qsort(r->strings, r->string_count, sizeof *r->strings, compare_strings);
    if (r->load_class_count)
        qsort(r->load_class, r->load_class_count, 2 * sizeof *r->load_class, compare_pairs);
    if (r->class_count > UINT32_MAX - 1)
        return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32 classes");
    if (r->class_count)
        qsort(r->classes, r->class_count, sizeof *r->classes, compare_classes);
    /* Names from LOAD CLASS: merge the two sorted lists. */
    for (size_t i = 0, j = 0; i < r->class_count; i++) {
        while (j < r->load_class_count && r->load_class[2 * j] < r->classes[i].id)
            j++;
        if (j < r->load_class_count && r->load_class[2 * j] == r->classes[i].id)
            r->classes[i].name_id = r->load_class[2 * j + 1];
    }
    hp_index_frames(r);
    gch_status st = index_threads(r);
    return st != GCH_OK ? st : build_class_hash(r);
}

/* The hint of a dump that ends early: what the complete records before the
 * end hold, so that a cut file says how much of it there is (a heap dump
 * written by a JVM killed while dumping, a copy cut short). Analysis needs
 * the whole heap (a partial one would report wrong retained sizes and
 * paths), so this is a message, not a partial result: docs/hprof-format.md. */
static const char *read_so_far(const hprof_reader *r, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "truncated dump? the %llu complete records before it hold %llu heap dump record%s "
             "with %llu objects",
             (unsigned long long)r->records, (unsigned long long)r->heap_records,
             r->heap_records == 1 ? "" : "s", (unsigned long long)r->objects);
    return buf;
}

gch_status hp_scan(hprof_reader *r)
{
    gch_status st = read_header(r);
    if (st != GCH_OK)
        return st;
    size_t off = r->body;
    char read[160];
    while (off < r->size) {
        if (r->size - off < 9)
            return hp_fail(r, off, "truncated record header (%zu bytes left; %s)", r->size - off,
                           read_so_far(r, read, sizeof read));
        unsigned tag = r->data[off];
        size_t len = hp_u4(r->data + off + 5);
        if (len > r->size - off - 9)
            return hp_fail(r, off, "record 0x%02X: length %zu exceeds the %zu bytes left (%s)", tag,
                           len, r->size - off - 9, read_so_far(r, read, sizeof read));
        if ((st = scan_record(r, off, tag, off + 9, len)) != GCH_OK)
            return st;
        r->records++;
        off += 9 + len;
    }
    /* Records are self-delimiting: a dump cut at a record boundary is found
     * by the records that must come last. */
    if (r->heap_records == 0)
        return hp_fail(r, r->size, "no HEAP DUMP record (%s)", read_so_far(r, read, sizeof read));
    if (r->segments && !r->ended)
        return hp_fail(r, r->size, "no HEAP DUMP END after the heap dump segments (%s)",
                       read_so_far(r, read, sizeof read));
    if (r->art_records)
        r->art = 1;
    return finish_indexes(r);
}

void hp_walk_init(const hprof_reader *r, hp_walk *w)
{
    w->off = w->end = 0;
    w->rec = r->body;
}

int hp_walk_next(hprof_reader *r, hp_walk *w, size_t *off, size_t *next)
{
    while (w->off >= w->end) {
        if (w->rec >= r->size || r->size - w->rec < 9)
            return 0;
        unsigned tag = r->data[w->rec];
        size_t len = hp_u4(r->data + w->rec + 5);
        if (len > r->size - w->rec - 9)
            return 0;
        if (tag == HP_HEAP_DUMP || tag == HP_HEAP_DUMP_SEGMENT) {
            w->off = w->rec + 9;
            w->end = w->off + len;
        }
        w->rec += 9 + len;
    }
    if (hp_sub_record_end(r, w->off, w->end, next) != GCH_OK)
        return 0;
    *off = w->off;
    w->off = *next;
    return 1;
}

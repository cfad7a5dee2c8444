/* Thread names for the labels of thread roots: each THREAD OBJECT root names
 * a java.lang.Thread; its `name` field a java.lang.String; the String's
 * `value` a byte[] (JDK 9+, `coder` 0 Latin-1, 1 UTF-16 in the JVM's byte
 * order) or a char[] (JDK 8, big-endian in the dump). Three walks over the
 * heap sub-records, each looking for a handful of ids. */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "hprof_internal.h"
#include "search.h"

#define MAX_THREADS 4096 /* more threads: only the first are named */

/* An id to find and the thread it is for; done once the first object with
 * the id was read (for the first entry of a run of equal ids). */
typedef struct wanted {
    uint64_t id;
    size_t thread;
    int done;
} wanted;

static int compare_wanted(const void *pa, const void *pb)
{
    const wanted *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* The first entry with id, or NULL. */
static const wanted *find_wanted(const wanted *w, size_t n, uint64_t id)
{
    size_t lo = GCH_LOWER_BOUND_BY(w, wanted, id, 0, n, id);
    return lo < n && w[lo].id == id ? &w[lo] : NULL;
}

static uint64_t string_id(const hprof_reader *r, const char *text)
{
    size_t len = strlen(text);
    for (size_t i = 0; i < r->string_count; i++)
        if (r->strings[i].len == len && memcmp(r->data + r->strings[i].off, text, len) == 0)
            return r->strings[i].id;
    return 0;
}

/* Reads, from the instance at off, the object field named field (into *obj)
 * and the byte field named coder (into *coder_out, when coder is not 0). */
static void read_fields(const hprof_reader *r, size_t off, uint64_t field, uint64_t coder,
                        uint64_t *obj, int *coder_out)
{
    const unsigned char *d = r->data + off + 1;
    uint32_t ki = hp_class_find(r, hp_id(r, d + r->id_size + 4));
    if (ki == HP_NONE || hp_u4(d + 2 * r->id_size + 4) != r->classes[ki].dump_bytes)
        return;
    const unsigned char *p = d + 2 * r->id_size + 8;
    uint32_t first = r->classes[ki].field_count ? ki : r->classes[ki].next_fields;
    for (uint32_t c = first; c != HP_NONE; c = r->classes[c].next_fields) {
        const hp_field *f = r->layout + r->classes[c].layout_first;
        for (uint32_t i = 0; i < r->classes[c].field_count; i++, f++) {
            if (f->name_id == field && (f->type == HP_T_OBJECT || f->type == HP_T_ARRAY_OBJECT))
                *obj = hp_id(r, p);
            else if (coder && f->name_id == coder && f->type == HP_T_BYTE)
                *coder_out = p[0];
            p += hp_type_size(r, f->type);
        }
    }
}

/* Sets the printable name of t from a primitive array at off. */
static void decode_name(const hprof_reader *r, size_t off, hp_thread *t)
{
    const unsigned char *d = r->data + off + 1;
    uint32_t length = hp_u4(d + r->id_size + 4);
    unsigned type = d[r->id_size + 8];
    const unsigned char *p = d + r->id_size + 9;
    size_t n = 0, units = length;
    unsigned step = 1;
    if (type == HP_T_CHAR) {
        step = 2;                       /* JDK 8 char[]: big-endian */
        p++;
    } else if (type == HP_T_BYTE && t->coder == 1) {
        step = 2;                       /* UTF-16 bytes in the JVM's order: take the */
        units = length / 2;             /* byte that is not zero in ASCII text */
        if (units && p[0] == 0)
            p++;
    } else if (type != HP_T_BYTE) {
        return;
    }
    for (size_t i = 0; i < units && n + 1 < sizeof t->name; i++) {
        unsigned char c = p[i * step];
        t->name[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    t->name[n] = '\0';
}

/* One walk: for the first sub-record of tag with each wanted id (the
 * builder keeps the first object of a duplicated id too), calls back for
 * the first thread that wants it; copy() then hands the result to the other
 * threads that want the same id. Each object is read at most once, however
 * many threads name it and however often the dump repeats it. */
static void walk(hprof_reader *r, unsigned tag, wanted *w, size_t n,
                 void (*found)(hprof_reader *r, size_t off, hp_thread *t, void *ctx),
                 void (*copy)(hp_thread *to, const hp_thread *from), void *ctx)
{
    hp_walk it;
    size_t off, next;
    hp_walk_init(r, &it);
    while (hp_walk_next(r, &it, &off, &next)) {
        if (r->data[off] != tag)
            continue;
        wanted *x = (wanted *)find_wanted(w, n, hp_id(r, r->data + off + 1));
        if (x && !x->done) {
            x->done = 1;
            found(r, off, &r->threads[x->thread], ctx);
        }
    }
    for (size_t i = 1; i < n; i++)
        if (w[i].id == w[i - 1].id)
            copy(&r->threads[w[i].thread], &r->threads[w[i - 1].thread]);
}

typedef struct names { uint64_t name, value, coder; } names;

static void found_thread(hprof_reader *r, size_t off, hp_thread *t, void *ctx)
{
    const names *k = ctx;
    read_fields(r, off, k->name, 0, &t->name_string, NULL);
}

static void found_string(hprof_reader *r, size_t off, hp_thread *t, void *ctx)
{
    const names *k = ctx;
    read_fields(r, off, k->value, k->coder, &t->name_value, &t->coder);
}

static void found_value(hprof_reader *r, size_t off, hp_thread *t, void *ctx)
{
    (void)ctx;
    decode_name(r, off, t);
}

static void copy_thread(hp_thread *to, const hp_thread *from) { to->name_string = from->name_string; }

static void copy_string(hp_thread *to, const hp_thread *from)
{
    to->name_value = from->name_value;
    to->coder = from->coder;
}

static void copy_value(hp_thread *to, const hp_thread *from)
{
    memcpy(to->name, from->name, sizeof to->name);
}

/* Fills w with the ids field() of the threads, sorted; returns the count. */
static size_t collect(const hprof_reader *r, wanted *w, int step)
{
    size_t n = 0;
    for (size_t i = 0; i < r->thread_count && i < MAX_THREADS; i++) {
        const hp_thread *t = &r->threads[i];
        uint64_t id = step == 0 ? t->object_id : step == 1 ? t->name_string : t->name_value;
        if (id) {
            w[n].id = id;
            w[n].done = 0;
            w[n++].thread = i;
        }
    }
    qsort(w, n, sizeof *w, compare_wanted);
    return n;
}

gch_status hp_thread_names(hprof_reader *r)
{
    names k = { string_id(r, "name"), string_id(r, "value"), string_id(r, "coder") };
    if (r->thread_count == 0 || !k.name || !k.value)
        return GCH_OK;
    size_t cap = r->thread_count < MAX_THREADS ? r->thread_count : MAX_THREADS;
    wanted *w = gch_malloc(cap * sizeof *w);
    if (!w)
        return hp_oom(r);
    size_t n = collect(r, w, 0);
    walk(r, HP_INSTANCE_DUMP, w, n, found_thread, copy_thread, &k);
    if ((n = collect(r, w, 1)) > 0)
        walk(r, HP_INSTANCE_DUMP, w, n, found_string, copy_string, &k);
    if ((n = collect(r, w, 2)) > 0)
        walk(r, HP_PRIM_ARRAY_DUMP, w, n, found_value, copy_value, &k);
    gch_free(w);
    return GCH_OK;
}

/* The Dart twin fixtures' heap: see dart_twin.h. */
#include "text_buf.h"
#include "dart_twin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Class ids 1..3 are the VM's synthetic classes (dtw_new_vm); these follow. */
enum {
    C_APP = 4, C_NODE, C_LIST, C_STR1, C_CACHE, C_MINT, C_PRIVATE, C_DOUBLE, C_STR2, C_CONFIG,
    C_EXTBYTES, C_LEAKED, C_UNUSED, C_END
};

typedef struct twin_class {
    const char *name, *library, *uri;
    const char *fields[4]; /* field i names reference position i; NULL: none */
    const char *gclog_name; /* the type name the Dart reader gives this class */
} twin_class;

static const twin_class classes[C_END] = {
    [C_APP] = { "App", "app", "package:app/app.dart", { "head", "isolate", "cache", "name" },
                "App (package:app/app.dart)" },
    [C_NODE] = { "Node", "graph", "package:app/graph.dart", { "next", "value" },
                 "Node (package:app/graph.dart)" },
    [C_LIST] = { "_List", "dart.core", "dart:core", { NULL }, "_List (dart:core)" },
    [C_STR1] = { "_OneByteString", "dart.core", "dart:core", { NULL }, "_OneByteString (dart:core)" },
    [C_CACHE] = { "Cache", "cache", "package:app/cache.dart", { "entries", "hits", "_lock@123" },
                  "Cache (package:app/cache.dart)" },
    [C_MINT] = { "_Mint", "dart.core", "dart:core", { NULL }, "_Mint (dart:core)" },
    /* A private name: the reader cuts class and field names at '@'. */
    [C_PRIVATE] = { "_Private@4567", "app", "package:app/app.dart", { "_secret@4567" },
                    "_Private (package:app/app.dart)" },
    [C_DOUBLE] = { "_Double", "dart.core", "dart:core", { NULL }, "_Double (dart:core)" },
    [C_STR2] = { "_TwoByteString", "dart.core", "dart:core", { NULL }, "_TwoByteString (dart:core)" },
    [C_CONFIG] = { "Config", "config", "package:app/config.dart", { "name", "limits", "title" },
                   "Config (package:app/config.dart)" },
    [C_EXTBYTES] = { "_ExternalUint8Array", "dart.typed_data", "dart:typed_data", { NULL },
                     "_ExternalUint8Array (dart:typed_data)" },
    [C_LEAKED] = { "Leaked", "leak", "package:app/leak.dart", { "peer", "payload" },
                   "Leaked (package:app/leak.dart)" },
    /* No object has this class; the reader still declares it as a type. */
    [C_UNUSED] = { "Unused", "unused", "package:app/unused.dart", { NULL },
                   "Unused (package:app/unused.dart)" },
};

enum { D_NONE, D_LENGTH, D_LATIN1, D_UTF16, D_INT, D_DOUBLE };

typedef struct twin_object {
    unsigned klass;
    unsigned size;
    int data;
    const char *text; /* D_LATIN1 */
    double number;    /* D_INT, D_DOUBLE, D_LENGTH */
    uint32_t refs[4]; /* snapshot ids; 0 = omitted; ref_count of them */
    unsigned ref_count;
    uint64_t hash;
} twin_object;

#define R(...) { __VA_ARGS__ }, (unsigned)(sizeof(uint32_t[]){ __VA_ARGS__ } / sizeof(uint32_t))
#define NOREFS { 0 }, 0

/* The synthetic objects' references (before the ones dtw_write adds to the
 * root: Read-Only Pages and the isolate, which the reader skips). */
static const uint32_t root_refs[] = { 4, 14 };
static const uint32_t readonly_refs[] = { 25 };
static const char *const static_fields[] = { "config", "cache", "counter", "buffer" };
static const uint32_t isolate_refs[] = { 20, 12, 0, 26 }; /* .counter is unboxed: 0 */

#define FIRST_OBJECT 4
/* Heap objects, snapshot ids 4..31. Shapes:
 *   Root -> 4 App -> .head 5 Node -> 6 -> 7 -> 5 (a cycle), each with a .value;
 *   4 App and the isolate's .cache -> 12 Cache -> .entries 10 _List -> 8, 9 Node
 *   -> 11 (a diamond: 10 dominates 11);
 *   18 "app" is shared by 4 App (.name), 20 Config (.name) and the dead 27;
 *   20 Config and what it holds (21..24) are reachable only from the isolate's
 *   static .config; 26 (external bytes) only from .buffer; 25 only from
 *   Read-Only Pages;
 *   27 <-> 28 Leaked (a dead cycle) -> 29 _List -> 30; 31 is dead alone;
 *   4 -> 3 (the isolate), 12 -> 1 (the root) and 29 -> 2 (read-only pages)
 *   name synthetic objects: the reader drops them. */
static const twin_object objects[] = {
    /* 4 */ { C_APP, 32, D_NONE, NULL, 0, R(5, 3, 12, 18), 0x1001 },
    /* 5 */ { C_NODE, 24, D_NONE, NULL, 0, R(6, 15), 0 },
    /* 6 */ { C_NODE, 24, D_NONE, NULL, 0, R(7, 16), 0x1002 },
    /* 7 */ { C_NODE, 24, D_NONE, NULL, 0, R(5, 0), 0 },
    /* 8 */ { C_NODE, 24, D_NONE, NULL, 0, R(11, 0), 0 },
    /* 9 */ { C_NODE, 24, D_NONE, NULL, 0, R(11, 17), 0 },
    /* 10 */ { C_LIST, 40, D_LENGTH, NULL, 2, R(8, 9), 0 },
    /* 11 */ { C_STR1, 32, D_LATIN1, "shared", 0, NOREFS, 0x1003 },
    /* 12 */ { C_CACHE, 32, D_NONE, NULL, 0, R(10, 13, 1), 0 },
    /* 13 */ { C_MINT, 16, D_INT, NULL, -5, NOREFS, 0 },
    /* 14 */ { C_PRIVATE, 16, D_NONE, NULL, 0, R(19), 0 },
    /* 15 */ { C_STR1, 24, D_LATIN1, "a", 0, NOREFS, 0 },
    /* 16 */ { C_STR1, 24, D_LATIN1, "b", 0, NOREFS, 0 },
    /* 17 */ { C_DOUBLE, 16, D_DOUBLE, NULL, 3.5, NOREFS, 0 },
    /* 18 */ { C_STR1, 32, D_LATIN1, "app", 0, NOREFS, 0x1004 },
    /* 19 */ { C_STR2, 32, D_UTF16, NULL, 0, NOREFS, 0 },
    /* 20 */ { C_CONFIG, 24, D_NONE, NULL, 0, R(18, 22, 21), 0 },
    /* 21 */ { C_STR1, 40, D_LATIN1, "twin fixture", 0, NOREFS, 0 },
    /* 22 */ { C_LIST, 32, D_LENGTH, NULL, 3, R(23, 24, 0), 0 },
    /* 23 */ { C_MINT, 16, D_INT, NULL, 4096, NOREFS, 0 },
    /* 24 */ { C_DOUBLE, 16, D_DOUBLE, NULL, 0.25, NOREFS, 0 },
    /* 25 */ { C_STR1, 16, D_LATIN1, "", 0, NOREFS, 0 },
    /* 26 */ { C_EXTBYTES, 24, D_LENGTH, NULL, 4096, NOREFS, 0 },
    /* 27 */ { C_LEAKED, 24, D_NONE, NULL, 0, R(28, 18), 0 },
    /* 28 */ { C_LEAKED, 24, D_NONE, NULL, 0, R(27, 29), 0 },
    /* 29 */ { C_LIST, 48, D_LENGTH, NULL, 2, R(30, 2), 0 },
    /* 30 */ { C_STR1, 56, D_LATIN1, "leaked payload", 0, NOREFS, 0 },
    /* 31 */ { C_MINT, 16, D_INT, NULL, 1LL << 40, NOREFS, 0 },
};
#define OBJECT_COUNT (uint32_t)(sizeof objects / sizeof *objects)
#define COUNT(a) (sizeof a / sizeof *a)

void dart_twin_dartheap(dtw_buf *out)
{
    const char *isolates[] = { "main" };
    dtw *w = dtw_new_vm("twin", isolates, 1, static_fields, COUNT(static_fields));
    for (unsigned c = FIRST_OBJECT; c < C_END; c++) {
        const twin_class *k = &classes[c];
        uint64_t id = dtw_class(w, k->name, k->library, k->uri);
        if (id != c)
            abort();
        for (unsigned f = 0; f < COUNT(k->fields); f++)
            if (k->fields[f])
                dtw_field(w, id, f, k->fields[f]);
    }
    for (size_t i = 0; i < COUNT(root_refs); i++)
        dtw_ref(w, 1, root_refs[i]);
    for (size_t i = 0; i < COUNT(readonly_refs); i++)
        dtw_ref(w, 2, readonly_refs[i]);
    for (size_t i = 0; i < COUNT(isolate_refs); i++)
        dtw_ref(w, 3, isolate_refs[i]);
    static const uint16_t units[] = { 0x3b1, 0x3b2, 0x3b3 }; /* "αβγ" */
    for (uint32_t i = 0; i < OBJECT_COUNT; i++) {
        const twin_object *o = &objects[i];
        uint64_t id = dtw_object(w, o->klass, o->size);
        if (id != FIRST_OBJECT + i)
            abort();
        switch (o->data) {
        case D_LENGTH: dtw_data_length(w, id, (uint64_t)o->number); break;
        case D_LATIN1: dtw_data_latin1(w, id, o->text, strlen(o->text)); break;
        case D_UTF16: dtw_data_utf16(w, id, units, COUNT(units), COUNT(units)); break;
        case D_INT: dtw_data_int(w, id, (int64_t)o->number); break;
        case D_DOUBLE: dtw_data_double(w, id, o->number); break;
        default: break;
        }
        for (unsigned r = 0; r < o->ref_count; r++)
            dtw_ref(w, id, o->refs[r]);
        if (o->hash)
            dtw_hash(w, id, o->hash);
    }
    dtw_property(w, 26, 4096, "ExternalTypedData");
    dtw_property(w, 26, 512, "Finalizer");
    dtw_write(w, 1, 2, out);
    dtw_free(w);
}

uint64_t dart_twin_gclog_id(uint64_t dart_id)
{
    uint64_t v = 0, scale = 1;
    do {
        v += (dart_id % 10) * scale;
        scale *= 16;
        dart_id /= 10;
    } while (dart_id);
    return v;
}

static int synthetic(uint32_t id) { return id >= 1 && id < FIRST_OBJECT; }

static void add_roots(text *t, const uint32_t *refs, size_t n, unsigned kind)
{
    for (size_t i = 0; i < n; i++)
        if (refs[i] && !synthetic(refs[i]))
            text_add(t, "r %llx %x 0\n", (unsigned long long)dart_twin_gclog_id(refs[i]), kind);
}

char *dart_twin_gclog(size_t *len)
{
    text t = { NULL, 0, 0 };
    text_add(&t, "a 2 twin\n");
    for (unsigned c = FIRST_OBJECT; c < C_END; c++)
        text_add(&t, "t %x %s\n", c, classes[c].gclog_name);
    for (uint32_t i = 0; i < OBJECT_COUNT; i++) {
        const twin_object *o = &objects[i];
        text_add(&t, "o %llx %x %x", (unsigned long long)dart_twin_gclog_id(FIRST_OBJECT + i), o->klass,
            o->size);
        for (unsigned r = 0; r < o->ref_count; r++)
            if (o->refs[r] && !synthetic(o->refs[r]))
                text_add(&t, " %llx", (unsigned long long)dart_twin_gclog_id(o->refs[r]));
        text_add(&t, "\n");
    }
    add_roots(&t, root_refs, COUNT(root_refs), 0);
    add_roots(&t, readonly_refs, COUNT(readonly_refs), 5);
    add_roots(&t, isolate_refs, COUNT(isolate_refs), 4);
    text_add(&t, "c twin\n");
    *len = t.len;
    return t.s;
}

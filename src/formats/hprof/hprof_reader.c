/* The HPROF heap dump reader (OpenJDK "JAVA PROFILE 1.0.1/1.0.2", Android ART
 * "1.0.3"): pass 3, emitting roots and objects to the builder, and the entry
 * point. The format and its mapping onto the heap model are described in
 * docs/hprof-format.md; the passes in hprof_internal.h. */
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/builder.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "grow.h"
#include "builder_internal.h"
#include "civil_time.h"
#include "hprof_internal.h"

#define PROGRESS_EVERY 65536     /* objects between progress calls */
#define LABELLED_ELEMENTS 65536  /* array elements past this index carry no "[i]" label */
#define REF_CHUNK 4096           /* unlabelled array elements handed over at a time */

/* Raw type ids for types no class dump declares (class ids are addresses). */
#define SYNTHETIC_CLASS_TYPE 1   /* java.lang.Class when its class dump is absent */

typedef struct emitter {
    hprof_reader *r;
    gch_builder *b;
    uint64_t *refs;
    const char **labels;
    size_t scratch_cap;
    char *index_labels;          /* "[0]\0[1]\0..." for the first LABELLED_ELEMENTS */
    uint32_t *index_label_off;
    uint64_t unreachable, weak_referents, emitted;
    uint64_t art_heap_objects[4]; /* default, app, image, zygote */
    unsigned art_heap;
    char text[640];
} emitter;

static const char *const art_heap_names[4] = { "default", "app", "image", "zygote" };

static gch_status grow_scratch(emitter *e, size_t n)
{
    if (n <= e->scratch_cap)
        return GCH_OK;
    size_t cap = e->scratch_cap;
    if (!gch_grow((void **)&e->refs, &cap, n, sizeof *e->refs, 256))
        return hp_oom(e->r);
    cap = e->scratch_cap;
    if (!gch_grow((void **)&e->labels, &cap, n, sizeof *e->labels, 256))
        return hp_oom(e->r);
    e->scratch_cap = cap;
    return GCH_OK;
}

/* The labels of e->refs, or NULL when the caller wants none. */
static const char *const *labels_or_null(const emitter *e)
{
    return e->r->opts->skip_labels ? NULL : e->labels;
}

static const char *name_at(const hprof_reader *r, uint32_t off)
{
    return off == HP_NONE ? NULL : r->names + off;
}

/* ------------------------------------------------------------------------ */
/* Types */

static gch_status declare_types(emitter *e)
{
    static const char *const prim_names[12] = {
        [HP_T_BOOLEAN] = "boolean[]", [HP_T_CHAR] = "char[]", [HP_T_FLOAT] = "float[]",
        [HP_T_DOUBLE] = "double[]", [HP_T_BYTE] = "byte[]", [HP_T_SHORT] = "short[]",
        [HP_T_INT] = "int[]", [HP_T_LONG] = "long[]",
    };
    hprof_reader *r = e->r;
    gch_status st = GCH_OK;
    for (size_t i = 0; i < r->class_count && st == GCH_OK; i++) {
        const hp_class *k = &r->classes[i];
        const char *name = r->names + k->name;
        uint32_t type;
        st = gch_builder_add_type(e->b, k->id, name, strlen(name), &type, r->err);
        if (st == GCH_OK && r->opts->keep_modules && k->loader_id) {
            const char *text = hp_loader_text(r, k->loader_id, e->text, sizeof e->text);
            st = gch_builder_set_type_module(e->b, type, text, strlen(text), r->err);
        }
    }
    for (unsigned t = 0; t < 12 && st == GCH_OK; t++)
        if (prim_names[t] && !r->prim_array_class[t])
            st = gch_builder_add_type(e->b, t, prim_names[t], strlen(prim_names[t]), NULL, r->err);
    if (st == GCH_OK && r->class_class == HP_NONE)
        st = gch_builder_add_type(e->b, SYNTHETIC_CLASS_TYPE, "java.lang.Class", 15, NULL, r->err);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Roots */

typedef struct root_kind {
    unsigned tag, kind;
    const char *label;
    int has_thread;
} root_kind;

static const root_kind root_kinds[] = {
    { HP_ROOT_UNKNOWN, GCH_ROOT_INTERNAL, "unknown", 0 },
    { HP_ROOT_JNI_GLOBAL, GCH_ROOT_HANDLE, "JNI global", 0 },
    { HP_ROOT_JNI_LOCAL, GCH_ROOT_LOCAL, "JNI local", 1 },
    { HP_ROOT_JAVA_FRAME, GCH_ROOT_LOCAL, "Java frame", 1 },
    { HP_ROOT_NATIVE_STACK, GCH_ROOT_LOCAL, "native stack", 1 },
    { HP_ROOT_STICKY_CLASS, GCH_ROOT_RUNTIME, "sticky class", 0 },
    { HP_ROOT_THREAD_BLOCK, GCH_ROOT_LOCAL, "thread block", 1 },
    { HP_ROOT_MONITOR_USED, GCH_ROOT_RUNTIME, "monitor used", 0 },
    { HP_ROOT_THREAD_OBJ, GCH_ROOT_RUNTIME, "thread object", 1 },
    { HP_ROOT_INTERNED_STRING, GCH_ROOT_INTERNAL, "interned string", 0 },
    { HP_ROOT_FINALIZING, GCH_ROOT_FINALIZER, "finalizing", 0 },
    { HP_ROOT_DEBUGGER, GCH_ROOT_RUNTIME, "debugger", 0 },
    { HP_ROOT_REFERENCE_CLEANUP, GCH_ROOT_RUNTIME, "reference cleanup", 0 },
    { HP_ROOT_VM_INTERNAL, GCH_ROOT_INTERNAL, "VM internal", 0 },
    { HP_ROOT_JNI_MONITOR, GCH_ROOT_HANDLE, "JNI monitor", 1 },
};

static gch_status emit_root(emitter *e, size_t off, const root_kind *k)
{
    hprof_reader *r = e->r;
    const unsigned char *d = r->data + off + 1;
    uint64_t id = hp_id(r, d);
    if (id == 0)
        return GCH_OK; /* a thread attached through JNI without its object yet */
    const char *label = k->label;
    if (k->has_thread) {
        /* The thread object root writes its own serial; the others the thread's.
         * Java frame and JNI local roots add their depth in the thread's stack
         * trace: the frame, as a stack trace line, goes into the label. */
        uint32_t serial = hp_u4(d + r->id_size);
        const hp_thread *t = hp_thread_find(r, serial);
        uint64_t thread = k->tag == HP_ROOT_THREAD_OBJ ? id : t ? t->object_id : 0;
        const char *name = t && t->name[0] ? t->name : NULL;
        char frame[400] = "";
        if (t && (k->tag == HP_ROOT_JAVA_FRAME || k->tag == HP_ROOT_JNI_LOCAL))
            hp_frame_text(r, t->trace_serial, hp_u4(d + r->id_size + 4), frame, sizeof frame);
        int n = snprintf(e->text, sizeof e->text, "%s%s%s, thread %u", k->label, *frame ? " in " : "",
                         frame, serial);
        size_t at = n < 0 ? 0 : (size_t)n < sizeof e->text ? (size_t)n : sizeof e->text - 1;
        if (thread && name)
            snprintf(e->text + at, sizeof e->text - at, " \"%s\" (0x%llx)", name,
                     (unsigned long long)thread);
        else if (thread)
            snprintf(e->text + at, sizeof e->text - at, " (0x%llx)", (unsigned long long)thread);
        label = e->text;
    }
    return gch_builder_add_root(e->b, id, k->kind, 0, 0, 0, label, r->err);
}

/* ------------------------------------------------------------------------ */
/* Objects */

/* The static fields of object type: references of the class object (labels
 * "static NAME") and static roots naming the class and the field, which
 * are added with or without skip_refs. Returns the count of references in
 * e->refs/e->labels after the first n. */
static gch_status class_statics(emitter *e, const hp_class *k, size_t *n)
{
    hprof_reader *r = e->r;
    size_t p = k->statics + 2;
    for (size_t i = 0; i < k->static_count; i++) {
        unsigned t = r->data[p + r->id_size];
        const char *label = name_at(r, r->static_label[k->static_labels + i]);
        uint64_t target = label ? hp_id(r, r->data + p + r->id_size + 1) : 0;
        p += r->id_size + 1 + hp_type_size(r, t);
        if (!target)
            continue;
        gch_status st = gch_builder_add_root(e->b, target, GCH_ROOT_STATIC, 0, 1, k->id,
                                             label + 7 /* after "static " */, r->err);
        if (st != GCH_OK)
            return st;
        if (!r->opts->skip_refs) {
            e->refs[*n] = target;
            e->labels[(*n)++] = label;
        }
    }
    return GCH_OK;
}

static gch_status emit_class_object(emitter *e, size_t off)
{
    static const char *const own[4] = { "<super>", "<classloader>", "<signers>", "<protection domain>" };
    hprof_reader *r = e->r;
    uint32_t ki = hp_class_find(r, hp_id(r, r->data + off + 1));
    const hp_class *k = &r->classes[ki];
    if (k->record != off + 1)
        return GCH_OK; /* a second dump of the same class: the first one counts */
    uint64_t type = r->class_class != HP_NONE ? r->classes[r->class_class].id : SYNTHETIC_CLASS_TYPE;
    uint64_t size = hp_class_object_size(r, k);
    gch_status st = grow_scratch(e, 4 + (size_t)k->static_count);
    if (st != GCH_OK)
        return st;
    size_t n = 0;
    if (!r->opts->skip_refs) {
        uint64_t links[4] = { k->super_id, k->loader_id, k->signers_id, k->domain_id };
        for (size_t i = 0; i < 4; i++) {
            e->refs[n] = links[i];
            e->labels[n++] = own[i];
        }
    }
    if ((st = class_statics(e, k, &n)) != GCH_OK)
        return st;
    return gch_builder_add_object_labeled(e->b, k->id, type, size, e->refs, labels_or_null(e), n, r->err);
}

/* A java.lang.ref.Reference's referent is a weak root, not a reference. */
static gch_status weak_referent(emitter *e, uint64_t target, const hp_class *k)
{
    e->weak_referents++;
    snprintf(e->text, sizeof e->text, "referent of %s", e->r->names + k->name);
    return gch_builder_add_root(e->b, target, GCH_ROOT_HANDLE, GCH_ROOT_WEAK, 0, 0, e->text, e->r->err);
}

/* Decodes the field values at p through the class hierarchy of k into
 * e->refs/e->labels starting at *n. */
static gch_status decode_fields(emitter *e, const hp_class *k, const unsigned char *p, size_t *n)
{
    hprof_reader *r = e->r;
    const hp_class *holder = k;
    uint32_t first = k->field_count ? (uint32_t)(k - r->classes) : k->next_fields;
    for (uint32_t c = first; c != HP_NONE; c = r->classes[c].next_fields) {
        const hp_class *level = &r->classes[c];
        const hp_field *f = r->layout + level->layout_first;
        for (uint32_t i = 0; i < level->field_count; i++, f++) {
            if (f->type != HP_T_OBJECT && f->type != HP_T_ARRAY_OBJECT) {
                p += gch_elem_size(f->type);
                continue;
            }
            uint64_t target = hp_id(r, p);
            p += r->id_size;
            if (f->weak) {
                gch_status st = target ? weak_referent(e, target, holder) : GCH_OK;
                if (st != GCH_OK)
                    return st;
                continue;
            }
            e->refs[*n] = target;
            e->labels[(*n)++] = name_at(r, f->label);
        }
    }
    return GCH_OK;
}

static gch_status emit_instance(emitter *e, size_t off)
{
    hprof_reader *r = e->r;
    const unsigned char *d = r->data + off + 1;
    uint64_t id = hp_id(r, d), class_id = hp_id(r, d + r->id_size + 4);
    uint32_t bytes = hp_u4(d + 2 * r->id_size + 4);
    uint32_t ki = hp_class_find(r, class_id);
    if (ki == HP_NONE) /* an undeclared type: counted by the builder */
        return gch_builder_object_begin(e->b, id, class_id, (bytes + r->rule.header + 7) & ~7ull, r->err);
    const hp_class *k = &r->classes[ki];
    if (bytes != k->dump_bytes)
        return hp_fail(r, off, "instance 0x%llx of %s has %u bytes of fields, its class declares %llu",
                       (unsigned long long)id, r->names + k->name, bytes,
                       (unsigned long long)k->dump_bytes);
    uint64_t size = hp_instance_size(r, k);
    if (r->opts->keep_payloads && ki == r->string_class) {
        gch_status st = hp_payload_string(r, id, d + 2 * r->id_size + 8);
        if (st != GCH_OK)
            return st;
    }
    if (r->opts->keep_payloads && k->keep_fields) {
        gch_status st = hp_payload_instance(r, id, off + 1 + 2 * (size_t)r->id_size + 8, bytes);
        if (st != GCH_OK)
            return st;
    }
    /* Without references, only a Reference's weak referent root is wanted. */
    if (r->opts->skip_refs && !k->is_reference)
        return gch_builder_object_begin(e->b, id, class_id, size, r->err);
    gch_status st = grow_scratch(e, (size_t)k->ref_fields + 1);
    if (st != GCH_OK)
        return st;
    /* The class goes after the fields: a DFS over the references (the
     * dominator tree's) then reaches most instances before their class, and
     * their edges to it are forward edges, which it does not store, instead
     * of back or cross edges, which it does (12 bytes each while the tree is
     * built: 62 MB less at the peak of `top` on the 10M-object benchmark). */
    size_t n = 0;
    if ((st = decode_fields(e, k, d + 2 * r->id_size + 8, &n)) != GCH_OK)
        return st;
    e->refs[n] = class_id;
    e->labels[n++] = "<class>";
    if (r->opts->skip_refs)
        n = 0;
    return gch_builder_add_object_labeled(e->b, id, class_id, size, e->refs, labels_or_null(e), n, r->err);
}

static gch_status index_labels(emitter *e)
{
    if (e->index_label_off)
        return GCH_OK;
    e->index_labels = gch_malloc((size_t)LABELLED_ELEMENTS * 8);
    e->index_label_off = gch_malloc((size_t)LABELLED_ELEMENTS * sizeof *e->index_label_off);
    if (!e->index_labels || !e->index_label_off)
        return hp_oom(e->r);
    size_t pos = 0;
    for (uint32_t i = 0; i < LABELLED_ELEMENTS; i++) {
        e->index_label_off[i] = (uint32_t)pos;
        pos += (size_t)snprintf(e->index_labels + pos, 8, "[%u]", (unsigned)i) + 1;
    }
    return GCH_OK;
}

static gch_status emit_object_array(emitter *e, size_t off)
{
    hprof_reader *r = e->r;
    const unsigned char *d = r->data + off + 1;
    uint64_t id = hp_id(r, d), class_id = hp_id(r, d + r->id_size + 8);
    uint32_t length = hp_u4(d + r->id_size + 4);
    uint64_t size = hp_array_size(r, r->rule.ref_size, length);
    if (r->opts->keep_payloads && r->opts->keep_fields) {
        gch_status st = hp_payload_object_array(r, off);
        if (st != GCH_OK)
            return st;
    }
    if (r->opts->skip_refs)
        return gch_builder_object_begin(e->b, id, class_id, size, r->err);
    size_t labelled = length < LABELLED_ELEMENTS ? length : LABELLED_ELEMENTS;
    gch_status st;
    if ((st = index_labels(e)) != GCH_OK || (st = grow_scratch(e, labelled + 1)) != GCH_OK)
        return st;
    const unsigned char *p = d + 2 * r->id_size + 8;
    e->refs[0] = class_id;
    e->labels[0] = "<class>";
    for (size_t i = 0; i < labelled; i++, p += r->id_size) {
        e->refs[i + 1] = hp_id(r, p);
        e->labels[i + 1] = e->index_labels + e->index_label_off[i];
    }
    st = gch_builder_add_object_labeled(e->b, id, class_id, size, e->refs, labels_or_null(e), labelled + 1, r->err);
    for (size_t done = labelled; st == GCH_OK && done < length;) {
        size_t n = length - done < REF_CHUNK ? length - done : REF_CHUNK;
        for (size_t i = 0; i < n; i++, p += r->id_size)
            e->refs[i] = hp_id(r, p);
        st = gch_builder_object_refs(e->b, e->refs, n, r->err);
        done += n;
    }
    return st;
}

static gch_status emit_prim_array(emitter *e, size_t off)
{
    hprof_reader *r = e->r;
    const unsigned char *d = r->data + off + 1;
    uint64_t id = hp_id(r, d);
    uint32_t length = hp_u4(d + r->id_size + 4);
    unsigned t = d[r->id_size + 8];
    if (gch_elem_size(t) == 0)
        return hp_fail(r, off + 1 + r->id_size + 8, "primitive array: unknown element type %u", t);
    uint64_t class_id = r->prim_array_class[t] ? r->prim_array_class[t] : t;
    uint64_t size = hp_array_size(r, gch_elem_size(t), length);
    if (r->opts->keep_payloads && r->data[off] == HP_PRIM_ARRAY_DUMP) {
        gch_status st = hp_payload_array(r, off);
        if (st != GCH_OK)
            return st;
    }
    if (r->opts->skip_refs || !r->prim_array_class[t])
        return gch_builder_object_begin(e->b, id, class_id, size, r->err);
    static const char *const class_label[1] = { "<class>" };
    return gch_builder_add_object_labeled(e->b, id, class_id, size, &class_id,
                                          r->opts->skip_labels ? NULL : class_label, 1, r->err);
}

static gch_status emit_sub_record(emitter *e, size_t off)
{
    hprof_reader *r = e->r;
    unsigned tag = r->data[off];
    switch (tag) {
    case HP_CLASS_DUMP: return emit_class_object(e, off);
    case HP_INSTANCE_DUMP: return emit_instance(e, off);
    case HP_OBJ_ARRAY_DUMP: return emit_object_array(e, off);
    case HP_PRIM_ARRAY_DUMP:
    case HP_PRIM_ARRAY_NODATA: return emit_prim_array(e, off);
    case HP_UNREACHABLE:
        e->unreachable++;
        return GCH_OK;
    case HP_HEAP_DUMP_INFO: {
        uint32_t heap = hp_u4(r->data + off + 1);
        e->art_heap = heap == 'A' ? 1 : heap == 'I' ? 2 : heap == 'Z' ? 3 : 0;
        return GCH_OK;
    }
    default:
        break;
    }
    for (size_t i = 0; i < sizeof root_kinds / sizeof *root_kinds; i++)
        if (root_kinds[i].tag == tag)
            return emit_root(e, off, &root_kinds[i]);
    return hp_fail(r, off, "unknown heap dump sub-record tag 0x%02X", tag);
}

static gch_status emit_object(emitter *e, size_t off)
{
    gch_status st = emit_sub_record(e, off);
    if (st == GCH_OK && ++e->emitted % PROGRESS_EVERY == 0 && e->r->opts->progress)
        e->r->opts->progress(e->r->opts->progress_ctx, off);
    return st;
}

/* Everything in dump order (Android dumps, and dumps in too many runs). */
static gch_status emit_in_dump_order(emitter *e)
{
    hprof_reader *r = e->r;
    hp_walk w;
    size_t off, next;
    size_t released = 0;
    hp_walk_init(r, &w);
    while (hp_walk_next(r, &w, &off, &next)) {
        gch_status st = hp_is_object(r->data[off]) ? emit_object(e, off) : emit_sub_record(e, off);
        if (st != GCH_OK)
            return st;
        if (hp_is_object(r->data[off]))
            e->art_heap_objects[e->art_heap]++;
        if (r->opts->release && off > released + (16u << 20)) {
            size_t upto = off & ~(size_t)0xfffff;
            r->opts->release(r->opts->release_ctx, r->data + released, upto - released);
            released = upto;
        }
    }
    return r->err && r->err->status != GCH_OK ? r->err->status : GCH_OK;
}

/* A position in a run: the next object sub-record and its id. */
typedef struct run_cursor {
    hp_walk w;
    uint64_t left, id;
    size_t off;
    size_t released;         /* bytes of the run before this are handed back */
    size_t limit;            /* where the next run starts (or the end of the dump) */
} run_cursor;

static void cursor_next(hprof_reader *r, run_cursor *c)
{
    size_t off, next;
    while (hp_walk_next(r, &c->w, &off, &next))
        if (hp_is_object(r->data[off])) {
            c->off = off;
            c->id = hp_id(r, r->data + off + 1);
            c->left--;
            return;
        }
    c->left = 0; /* unreachable for scanned dumps */
}

/* Restores the min-heap order of cursors (by id) below position i. */
static void sift_down(run_cursor **heap, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && heap[l]->id < heap[m]->id)
            m = l;
        if (l + 1 < n && heap[l + 1]->id < heap[m]->id)
            m = l + 1;
        if (m == i)
            return;
        run_cursor *t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
}

/* Hands back to the caller (gch_load_options.release) what a run has passed:
 * runs are disjoint ranges of the dump in dump order, and only objects are
 * left to emit, so nothing there is read again. A finished run gives back
 * everything up to the next run. */
static void release_run(emitter *e, run_cursor *c, size_t upto, size_t min_bytes)
{
    if (upto > c->released + min_bytes) {
        e->r->opts->release(e->r->opts->release_ctx, e->r->data + c->released, upto - c->released);
        c->released = upto;
    }
}

/* Objects in id order: a k-way merge of the runs found by the scan. */
static gch_status emit_merged(emitter *e)
{
    hprof_reader *r = e->r;
    size_t k = r->run_count;
    run_cursor *cursors = gch_calloc(k ? k : 1, sizeof *cursors);
    run_cursor **heap = gch_calloc(k ? k : 1, sizeof *heap);
    gch_status st = cursors && heap ? GCH_OK : hp_oom(r);
    size_t n = 0;
    for (size_t i = 0; st == GCH_OK && i < k; i++) {
        run_cursor *c = &cursors[i];
        c->w.off = r->runs[i].off;
        c->w.end = c->w.rec = r->runs[i].end;
        c->left = r->runs[i].count;
        c->released = r->runs[i].off;
        c->limit = i + 1 < k ? r->runs[i + 1].off : r->size;
        cursor_next(r, c);
        heap[n++] = c;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(heap, n, i);
    while (st == GCH_OK && n > 0) {
        run_cursor *c = heap[0];
        st = emit_object(e, c->off);
        if (c->left > 0) {
            cursor_next(r, c);
            if (r->opts->release)
                release_run(e, c, c->off, 8u << 20);
        } else {
            if (r->opts->release)
                release_run(e, c, c->limit, 0);
            heap[0] = heap[--n];
        }
        sift_down(heap, n, 0);
    }
    gch_free(cursors);
    gch_free(heap);
    return st;
}

static gch_status emit_heap(emitter *e)
{
    hprof_reader *r = e->r;
    if (r->art || r->runs_overflow)
        return emit_in_dump_order(e);
    /* Roots and the other sub-records first, then the objects. */
    hp_walk w;
    size_t off, next;
    hp_walk_init(r, &w);
    while (hp_walk_next(r, &w, &off, &next)) {
        gch_status st = hp_is_object(r->data[off]) ? GCH_OK : emit_sub_record(e, off);
        if (st != GCH_OK)
            return st;
    }
    if (r->err && r->err->status != GCH_OK)
        return r->err->status;
    return emit_merged(e);
}

/* ------------------------------------------------------------------------ */
/* Metadata */

/* A header line of the heap, its value formatted as printf does. */
#define META(e, ...) gch_builder_add_metaf((e)->b, (e)->r->err, __VA_ARGS__)

/* The dump's time, milliseconds since 1970, as an ISO 8601 date in UTC. */
static const char *utc(uint64_t ms, char *buf, size_t cap)
{
    gch_format_utc((long long)(ms / 1000 > (uint64_t)LLONG_MAX / 2 ? (uint64_t)LLONG_MAX / 2 : ms / 1000),
                   (int)(ms % 1000), buf, cap);
    return buf;
}

static gch_status add_meta_lines(emitter *e)
{
    typedef unsigned long long ull;
    char date[64];
    hprof_reader *r = e->r;
    gch_status st;
    if ((st = META(e, "version", "%s", r->version)) != GCH_OK ||
        (st = META(e, "identifier size", "%u", r->id_size)) != GCH_OK ||
        (st = META(e, "timestamp", "%s (%llu ms since 1970)", utc(r->timestamp_ms, date, sizeof date),
                   (ull)r->timestamp_ms)) != GCH_OK ||
        (st = META(e, "records", "%llu (%llu heap dump records, %llu sub-records)", (ull)r->records,
                   (ull)r->heap_records, (ull)r->sub_records)) != GCH_OK ||
        (st = META(e, "classes", "%zu", r->class_count)) != GCH_OK ||
        (st = META(e, "strings", "%zu", r->string_count)) != GCH_OK ||
        (st = META(e, "object layout", "%s", r->rule.name)) != GCH_OK)
        return st;
    if (r->gaps_sampled &&
        (st = META(e, "object layout evidence", "%llu of %llu address gaps match the sizes",
                   (ull)r->gaps_matched, (ull)r->gaps_sampled)) != GCH_OK)
        return st;
    if (e->weak_referents &&
        (st = META(e, "weak referents", "%llu (java.lang.ref.Reference.referent, weak roots)",
                   (ull)e->weak_referents)) != GCH_OK)
        return st;
    if (e->unreachable && (st = META(e, "unreachable records", "%llu", (ull)e->unreachable)) != GCH_OK)
        return st;
    for (unsigned h = 1; r->art && h < 4; h++)
        if (e->art_heap_objects[h] &&
            (st = META(e, "ART heap", "%s: %llu objects", art_heap_names[h],
                       (ull)e->art_heap_objects[h])) != GCH_OK)
            return st;
    return GCH_OK;
}

static gch_status emit(emitter *e)
{
    gch_status st = gch_builder_begin_heap(e->b, "java", 4, e->r->err);
    if (st != GCH_OK)
        return st;
    gch_builder_set_id_radix(e->b, 16);
    if (e->r->opts->skip_refs)
        gch_builder_set_refs_skipped(e->b);
    st = gch_builder_reserve(e->b, e->r->objects, e->r->opts->skip_refs ? 0 : e->r->ref_bound,
                             !e->r->opts->skip_refs && !e->r->opts->skip_labels, e->r->err);
    if (st != GCH_OK)
        return st;
    if ((st = declare_types(e)) != GCH_OK || (st = emit_heap(e)) != GCH_OK ||
        (st = add_meta_lines(e)) != GCH_OK)
        return st;
    return gch_builder_end_heap(e->b, e->r->err);
}

static void reader_free(hprof_reader *r)
{
    gch_free(r->strings);
    gch_free(r->classes);
    gch_free(r->class_hash);
    gch_free(r->load_class);
    gch_free(r->threads);
    gch_free(r->thread_by_serial);
    gch_free(r->frames);
    gch_free(r->traces);
    gch_free(r->class_serials);
    gch_free(r->loaders);
    gch_free(r->field_label_of);
    gch_free(r->static_label_of);
    gch_free(r->class_name_of);
    gch_free(r->runs);
    gch_free(r->layout);
    gch_free(r->static_label);
    gch_free(r->names);
    gch_free(r->payloads);
}

static void emitter_free(emitter *e)
{
    gch_builder_free(e->b);
    gch_free(e->refs);
    gch_free(e->labels);
    gch_free(e->index_labels);
    gch_free(e->index_label_off);
}

gch_status gch_read_hprof_buffer(const void *data, size_t size, const gch_load_options *opts,
                                 gch_dump **out, gch_error *err)
{
    static const gch_load_options no_options;
    gch_error_clear(err);
    *out = NULL;
    hprof_reader r;
    memset(&r, 0, sizeof r);
    r.data = data;
    r.size = data ? size : 0;
    r.opts = opts ? opts : &no_options;
    r.err = err;
    emitter e;
    memset(&e, 0, sizeof e);
    e.r = &r;
    gch_status st = hp_scan(&r);
    if (st == GCH_OK)
        st = hp_prepare_classes(&r);
    if (st == GCH_OK && r.opts->keep_payloads)
        hp_payloads_prepare(&r);
    if (st == GCH_OK && !r.opts->skip_labels)
        st = hp_thread_names(&r);
    if (st == GCH_OK && r.opts->keep_modules)
        st = hp_loaders_find(&r);
    if (st == GCH_OK)
        st = gch_builder_new(&e.b, "hprof", err);
    if (st == GCH_OK)
        st = emit(&e);
    if (st == GCH_OK)
        st = gch_builder_finish(e.b, out, err);
    /* The builder made one heap: the payloads go to it. */
    if (st == GCH_OK && r.opts->keep_payloads && (st = hp_payloads_attach(&r, (*out)->heaps[0])) != GCH_OK) {
        gch_dump_free(*out);
        *out = NULL;
    }
    if (st == GCH_OK && r.opts->progress)
        r.opts->progress(r.opts->progress_ctx, size);
    if (st != GCH_OK && err && err->status == GCH_OK)
        err->status = st;
    emitter_free(&e);
    reader_free(&r);
    return st;
}

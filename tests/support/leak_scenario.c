/* leak_scenario.c - see leak_scenario.h. */
#include "leak_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_writer.h"
#include "gcdump_writer.h"

const char *const ls_type_names[LS_TYPES] = {
    [LS_HOLDER] = "App.Holder",     [LS_LIST] = "App.ListenerList",
    [LS_ARRAY] = "App.Listener[]",  [LS_LISTENER] = "App.Listener",
    [LS_CLOSURE] = "App.Closure",   [LS_CACHE] = "App.Cache",
    [LS_BYTES] = "System.Byte[]",   [LS_SESSION] = "App.Session",
};

/* The heap as plain arrays: objects (type, size, id, references) and roots
 * (object, static or local). */
typedef struct model {
    uint32_t n, cap;
    uint32_t *type, *size, *ref_start, *refs;
    uint64_t *id;
    uint32_t nrefs, refcap;
    uint32_t roots[64 + 4096];
    int root_static[64 + 4096];
    uint32_t nroots;
} model;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

static uint32_t add(model *m, uint32_t type, uint32_t size, uint64_t id)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->type = xrealloc(m->type, m->cap * sizeof *m->type);
        m->size = xrealloc(m->size, m->cap * sizeof *m->size);
        m->id = xrealloc(m->id, m->cap * sizeof *m->id);
        m->ref_start = xrealloc(m->ref_start, (m->cap + 1) * sizeof *m->ref_start);
    }
    m->type[m->n] = type;
    m->size[m->n] = size;
    m->id[m->n] = id;
    m->ref_start[m->n] = m->nrefs;
    m->ref_start[m->n + 1] = m->nrefs;
    return m->n++;
}

/* References are added to the object added last. */
static void ref(model *m, uint32_t target)
{
    if (m->nrefs == m->refcap) {
        m->refcap = m->refcap ? m->refcap * 2 : 64;
        m->refs = xrealloc(m->refs, m->refcap * sizeof *m->refs);
    }
    m->refs[m->nrefs++] = target;
    m->ref_start[m->n] = m->nrefs;
}

static void root(model *m, uint32_t o, int is_static)
{
    if (m->nroots == sizeof m->roots / sizeof *m->roots)
        abort();
    m->roots[m->nroots] = o;
    m->root_static[m->nroots++] = is_static;
}

uint64_t ls_listener_id(uint32_t i) { return 0x100000 + (uint64_t)i * 0x50; }

/* Objects are added parents first, each one's references right after it is
 * added, so indices of targets are known: holder 0, list 1, array 2,
 * listener i 3 + 2i, its closure 4 + 2i, then the cache, its arrays, the
 * sessions and their arrays, the garbage. */
static void build(const ls_params *p, model *m)
{
    memset(m, 0, sizeof *m);
    const uint32_t L = p->listeners, base = 3;
    add(m, LS_HOLDER, 24, 0x1000);
    ref(m, 1);
    add(m, LS_LIST, 32, 0x1020);
    ref(m, 2);
    add(m, LS_ARRAY, 16 + 8 * L, 0x800000 + (uint64_t)p->dump * 0x100000);
    for (uint32_t i = 0; i < L; i++)
        ref(m, base + 2 * i);
    for (uint32_t i = 0; i < L; i++) {
        add(m, LS_LISTENER, LS_LISTENER_SIZE, ls_listener_id(i));
        ref(m, base + 2 * i + 1);
        add(m, LS_CLOSURE, LS_CLOSURE_SIZE, ls_listener_id(i) + 0x28);
    }
    uint32_t cache = m->n;
    add(m, LS_CACHE, 64, 0x1100);
    for (uint32_t k = 0; k < 10; k++)
        ref(m, cache + 1 + k);
    for (uint32_t k = 0; k < 10; k++)
        add(m, LS_BYTES, 1000, 0x2000 + (uint64_t)k * 0x400);
    uint64_t churn = 0x4000000 + (uint64_t)p->dump * 0x100000;
    for (uint32_t j = 0; j < p->sessions; j++) {
        uint32_t s = add(m, LS_SESSION, 48, churn + (uint64_t)j * 0x200);
        ref(m, s + 1);
        add(m, LS_BYTES, 200, churn + (uint64_t)j * 0x200 + 0x30);
        root(m, s, 0);
    }
    for (uint32_t j = 0; j < p->garbage; j++)
        add(m, LS_SESSION, 48, 0x9000000 + (uint64_t)p->dump * 0x100000 + (uint64_t)j * 0x40);
    root(m, 0, 1);
    root(m, cache, 1);
}

static void model_free(model *m)
{
    free(m->type);
    free(m->size);
    free(m->id);
    free(m->ref_start);
    free(m->refs);
}

/* ------------------------------------------------------------------ gclog */

void ls_write_gclog(const ls_params *p, unsigned char **data, size_t *size)
{
    model m;
    build(p, &m);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    fprintf(f, "a 2 leaky.exe %x\n", 1000 + p->dump);
    for (unsigned t = 0; t < LS_TYPES; t++)
        fprintf(f, "t %x %s\n", 0x10 + t, ls_type_names[t]);
    for (uint32_t o = 0; o < m.n; o++) {
        fprintf(f, "o %llx %x %x", (unsigned long long)m.id[o], 0x10 + m.type[o], m.size[o]);
        for (uint32_t e = m.ref_start[o]; e < m.ref_start[o + 1]; e++)
            fprintf(f, " %llx", (unsigned long long)m.id[m.refs[e]]);
        fputc('\n', f);
    }
    for (uint32_t r = 0; r < m.nroots; r++) {
        uint32_t o = m.roots[r];
        if (m.root_static[r])
            fprintf(f, "r %llx 4 0 %x\n", (unsigned long long)m.id[o], 0x10 + m.type[o]);
        else
            fprintf(f, "r %llx 1 0\n", (unsigned long long)m.id[o]);
    }
    fprintf(f, "c leaky.exe %x\n", 2000 + p->dump);
    fclose(f);
    *data = (unsigned char *)buf;
    *size = len;
    model_free(&m);
}

/* ----------------------------------------------------------------- gcdump */

/* Pseudo-node types follow the application's in the file's type list. */
enum { G_ROOTS = LS_TYPES, G_STATICS, G_SV_HOLDER, G_SV_CACHE, G_LOCALS, G_TYPES };

void ls_write_gcdump(const ls_params *p, unsigned char **data, size_t *size)
{
    model m;
    build(p, &m);
    gcdw_type types[G_TYPES];
    for (unsigned t = 0; t < LS_TYPES; t++)
        types[t] = (gcdw_type){ ls_type_names[t], "App.dll" };
    types[G_ROOTS] = (gcdw_type){ "[.NET Roots]", NULL };
    types[G_STATICS] = (gcdw_type){ "[static vars]", NULL };
    types[G_SV_HOLDER] = (gcdw_type){ "[static var App.Holder.instance]", NULL };
    types[G_SV_CACHE] = (gcdw_type){ "[static var App.Cache.instance]", NULL };
    types[G_LOCALS] = (gcdw_type){ "[local vars]", NULL };
    /* Nodes: the model's objects, then five pseudo-nodes. */
    const uint32_t P = m.n;
    gcdw_node *nodes = calloc(m.n + 5, sizeof *nodes);
    uint32_t *kids = xrealloc(NULL, (m.nrefs + 8 + m.nroots) * sizeof *kids);
    if (!nodes)
        abort();
    memcpy(kids, m.refs, m.nrefs * sizeof *kids);
    for (uint32_t o = 0; o < m.n; o++) {
        nodes[o].type = m.type[o];
        nodes[o].size = (int32_t)m.size[o];
        nodes[o].address = m.id[o];
        nodes[o].children = kids + m.ref_start[o];
        nodes[o].child_count = m.ref_start[o + 1] - m.ref_start[o];
    }
    uint32_t *k = kids + m.nrefs;
    /* [.NET Roots] -> [static vars], [local vars] */
    nodes[P] = (gcdw_node){ G_ROOTS, 0, 0, k, 2, 0 };
    k[0] = P + 1;
    k[1] = P + 4;
    k += 2;
    nodes[P + 1] = (gcdw_node){ G_STATICS, 0, 0, k, 2, 0 };
    k[0] = P + 2;
    k[1] = P + 3;
    k += 2;
    uint32_t locals = 0;
    for (uint32_t r = 0; r < m.nroots; r++) {
        if (m.root_static[r]) {
            uint32_t slot = m.type[m.roots[r]] == LS_HOLDER ? P + 2 : P + 3;
            nodes[slot] = (gcdw_node){ slot == P + 2 ? G_SV_HOLDER : G_SV_CACHE, 0, 0, k, 1, 0 };
            *k++ = m.roots[r];
        }
    }
    nodes[P + 4] = (gcdw_node){ G_LOCALS, 0, 0, k, 0, 0 };
    for (uint32_t r = 0; r < m.nroots; r++)
        if (!m.root_static[r]) {
            *k++ = m.roots[r];
            locals++;
        }
    nodes[P + 4].child_count = locals;
    gcdw_desc d;
    memset(&d, 0, sizeof d);
    d.types = types;
    d.type_count = G_TYPES;
    d.nodes = nodes;
    d.node_count = m.n + 5;
    d.root = P;
    d.is64 = 1;
    d.process_name = "leaky.exe";
    d.no_interop = 1;
    gcdw_result res;
    gcdw_write(&d, &res);
    *data = res.data;
    *size = res.size;
    free(nodes);
    free(kids);
    model_free(&m);
}

/* ------------------------------------------------------------------- Dart */

void ls_write_dart(const ls_params *p, unsigned char **data, size_t *size)
{
    model m;
    build(p, &m);
    const char *isolates[] = { "main" };
    dtw *w = dtw_new_vm("leaky", isolates, 1, NULL, 0);
    uint64_t cls[LS_TYPES];
    for (unsigned t = 0; t < LS_TYPES; t++)
        cls[t] = dtw_class(w, ls_type_names[t], "package:app/app.dart", "package:app/app.dart");
    dtw_field(w, cls[LS_HOLDER], 0, "listeners");
    dtw_field(w, cls[LS_LIST], 0, "items");
    dtw_field(w, cls[LS_LISTENER], 0, "callback");
    dtw_field(w, cls[LS_SESSION], 0, "buffer");
    uint64_t first = 0;
    for (uint32_t o = 0; o < m.n; o++) {
        uint64_t id = dtw_object(w, cls[m.type[o]], m.size[o]);
        if (o == 0)
            first = id;
    }
    for (uint32_t o = 0; o < m.n; o++)
        for (uint32_t e = m.ref_start[o]; e < m.ref_start[o + 1]; e++)
            dtw_ref(w, first + o, first + m.refs[e]);
    for (uint32_t r = 0; r < m.nroots; r++)
        dtw_ref(w, 1, first + m.roots[r]);
    dtw_buf out;
    memset(&out, 0, sizeof out);
    dtw_write(w, 0, 0, &out);
    *data = out.data;
    *size = out.size;
    dtw_free(w);
    model_free(&m);
}

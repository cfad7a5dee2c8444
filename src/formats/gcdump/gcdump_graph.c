/* Maps a .gcdump MemoryGraph onto the heap builder.
 *
 * Nodes with a nonzero address are heap objects, identified by that address.
 * Nodes with address 0 (and the root node) are pseudo-nodes such as
 * "[.NET Roots]", "[static vars]" or "[static var Ns.Type.field]": a walk from
 * the root through pseudo-nodes turns every edge from a pseudo-node to an
 * object into a root, its kind taken from the pseudo-node's name. Nodes never
 * defined (blob offset 0, the UNDEFINED record) are not objects: references to
 * them are left for the builder to count as dangling. See docs/gcdump-format.md.
 *
 * The blob is decoded three times (validate and sum sizes, walk pseudo-nodes,
 * add objects) rather than kept decoded: a node record costs a few varints,
 * and this keeps the reader's memory at a few bytes per node.
 */
#include <stdio.h>
#include <string.h>

#include "gcdump_decode.h"
#include "gcdump_graph.h"
#include "gcheap/builder.h"
#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "hash.h"

#define REF_CHUNK 512
#define PROGRESS_EVERY (1u << 16)

static gch_status oom(gch_error *err) { return gch_error_set(err, GCH_ENOMEM, "out of memory"); }

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static uint32_t node_offset(const gcd_graph *g, uint32_t i) { return le32(g->node_offsets + (size_t)i * 4); }

static uint64_t node_address(const gcd_graph *g, uint32_t i) { return le64(g->addresses + (size_t)i * 8); }

/* ---- node records ---- */

typedef struct node_rec {
    uint32_t type;
    uint32_t size;
    uint32_t child_count;
    gcd_cursor kids; /* positioned on the next child delta */
} node_rec;

static gch_status decode_node(const gcd_graph *g, uint32_t i, node_rec *n, gch_error *err)
{
    uint32_t off = node_offset(g, i);
    if (off >= g->blob_len)
        return gch_error_at(err, g->node_offsets_at + (uint64_t)i * 4,
                             "node %lu starts at blob offset %lu, past the %zu-byte blob",
                             (unsigned long)i, (unsigned long)off, g->blob_len);
    gcd_cursor c;
    gcd_cursor_init(&c, g->blob, g->blob_len, g->blob_at, err);
    c.pos = off;
    int32_t type_and_size, v;
    gch_status st = gcd_read_varint(&c, &type_and_size, "a node's type");
    if (st != GCH_OK)
        return st;
    uint32_t type = (uint32_t)type_and_size >> 1;
    if (type_and_size < 0 || type >= g->type_count)
        return gcd_fail_at(&c, off, "node %lu has type %ld, not one of the %lu types",
                           (unsigned long)i, (long)(type_and_size >> 1), (unsigned long)g->type_count);
    if (type_and_size & 1) {
        size_t at = c.pos;
        if ((st = gcd_read_varint(&c, &v, "a node's size")) != GCH_OK)
            return st;
        if (v < 0)
            return gcd_fail_at(&c, at, "node %lu has negative size %ld", (unsigned long)i, (long)v);
    } else {
        v = g->type_size[type];
        if (v < 0)
            return gcd_fail_at(&c, off, "node %lu takes its size from type %lu, which records none",
                               (unsigned long)i, (unsigned long)type);
    }
    n->type = type;
    n->size = (uint32_t)v;
    size_t at = c.pos;
    if ((st = gcd_read_varint(&c, &v, "a node's child count")) != GCH_OK)
        return st;
    if (v < 0 || (size_t)v > gcd_remaining(&c))
        return gcd_fail_at(&c, at, "node %lu has a bad child count %ld", (unsigned long)i, (long)v);
    n->child_count = (uint32_t)v;
    n->kids = c;
    return GCH_OK;
}

/* Reads the next child of node i (children are stored as deltas from i). */
static gch_status next_child(const gcd_graph *g, uint32_t i, node_rec *n, uint32_t *child)
{
    size_t at = n->kids.pos;
    int32_t delta;
    gch_status st = gcd_read_varint(&n->kids, &delta, "a child reference");
    if (st != GCH_OK)
        return st;
    int64_t c = (int64_t)i + delta;
    if (c < 0 || c >= (int64_t)g->node_count)
        return gcd_fail_at(&n->kids, at, "node %lu refers to node %lld, not one of the %lu nodes",
                           (unsigned long)i, (long long)c, (unsigned long)g->node_count);
    *child = (uint32_t)c;
    return GCH_OK;
}

/* ---- pass 1: validation ---- */

#define NODE_PSEUDO 1u    /* address 0, or the root */
#define NODE_UNDEFINED 2u /* never defined: blob offset 0 */
#define NODE_REACHED 4u   /* pseudo-node reached from the root */

typedef struct graph_scan {
    uint8_t *flags;
    uint32_t pseudo_count, undefined_count;
} graph_scan;

/* Decodes every node once, so that later passes meet only valid records, and
 * checks that the sizes add up to the total the file records. */
static gch_status validate_nodes(const gcd_graph *g, graph_scan *s, gch_error *err)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < g->node_count; i++) {
        node_rec n;
        gch_status st = decode_node(g, i, &n, err);
        for (uint32_t k = 0; st == GCH_OK && k < n.child_count; k++) {
            uint32_t child;
            st = next_child(g, i, &n, &child);
        }
        if (st != GCH_OK)
            return st;
        sum += n.size;
        if (node_offset(g, i) == 0) {
            s->flags[i] |= NODE_UNDEFINED;
            s->undefined_count++;
        }
        if (node_address(g, i) == 0 || i == (uint32_t)g->root_index) {
            s->flags[i] |= NODE_PSEUDO;
            s->pseudo_count++;
        }
    }
    if (g->total_size < 0 || sum != (uint64_t)g->total_size)
        return gch_error_at(err, g->total_size_at,
                             "the node sizes add up to %llu bytes but the file records a total of "
                             "%lld",
                             (unsigned long long)sum, (long long)g->total_size);
    return GCH_OK;
}

/* ---- pass 2: roots from the pseudo-nodes ---- */

static int lower_ascii(int ch) { return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch; }

/* Case-insensitive (ASCII) substring test; needle is lowercase. */
static int contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && lower_ascii((unsigned char)hay[k]) == needle[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

/* Root kind and flags packed in a byte: kind in the low nibble, flags above. */
#define PACK_CLASS(kind, flags) ((uint8_t)((kind) | (flags) << 4))
#define CLASS_KIND(c) ((unsigned)(c) & 0xFu)
#define CLASS_FLAGS(c) ((unsigned)(c) >> 4)

/* The root kind a pseudo-node's name stands for; names that say nothing
 * (e.g. "[other roots]", "[COM/WinRT Objects]") inherit their parent's. */
static uint8_t classify_pseudo(const char *name, uint8_t inherited)
{
    if (contains(name, "static var"))
        return PACK_CLASS(GCH_ROOT_STATIC, 0u);
    if (contains(name, "local var"))
        return PACK_CLASS(GCH_ROOT_LOCAL, contains(name, "pinned") ? GCH_ROOT_PINNED : 0u);
    if (contains(name, "finaliz"))
        return PACK_CLASS(GCH_ROOT_FINALIZER, 0u);
    if (contains(name, "handle")) {
        unsigned flags = 0;
        if (contains(name, "pinned"))
            flags |= GCH_ROOT_PINNED;
        /* Not "dependent": dotnet-gcdump lists a dependent handle's secondary
         * only when its primary is alive, so the secondary is alive too. */
        if (contains(name, "weak"))
            flags |= GCH_ROOT_WEAK;
        return PACK_CLASS(GCH_ROOT_HANDLE, flags);
    }
    return inherited;
}

static const char *node_type_name(const gcd_graph *g, uint32_t type)
{
    return g->type_name[type] ? g->type_name[type] : "[?]";
}

/* Breadth-first from the root through pseudo-nodes only: every edge from a
 * reached pseudo-node to an object becomes a root labeled with the pseudo-node's
 * name (the innermost one, e.g. "[static var Ns.Type.field]": it is what a
 * retainer path needs to name). Pseudo-nodes not reached root nothing. */
static gch_status add_roots(gch_builder *b, const gcd_graph *g, graph_scan *s, gch_error *err)
{
    uint32_t *queue = gch_malloc((size_t)s->pseudo_count * sizeof *queue);
    uint8_t *klass = gch_malloc(g->node_count ? g->node_count : 1);
    if (!queue || !klass) {
        gch_free(queue);
        gch_free(klass);
        return oom(err);
    }
    gch_status st = GCH_OK;
    uint32_t head = 0, tail = 0, root = (uint32_t)g->root_index;
    node_rec n;
    if ((st = decode_node(g, root, &n, err)) == GCH_OK) {
        klass[root] = classify_pseudo(node_type_name(g, n.type), PACK_CLASS(GCH_ROOT_RUNTIME, 0u));
        s->flags[root] |= NODE_REACHED;
        queue[tail++] = root;
    }
    while (st == GCH_OK && head < tail) {
        uint32_t p = queue[head++];
        if ((st = decode_node(g, p, &n, err)) != GCH_OK)
            break;
        const char *label = node_type_name(g, n.type);
        for (uint32_t k = 0; st == GCH_OK && k < n.child_count; k++) {
            uint32_t c = 0;
            if ((st = next_child(g, p, &n, &c)) != GCH_OK)
                break;
            if (!(s->flags[c] & NODE_PSEUDO)) {
                st = gch_builder_add_root(b, node_address(g, c), CLASS_KIND(klass[p]),
                                          CLASS_FLAGS(klass[p]), 0, 0, label, err);
                continue;
            }
            if (s->flags[c] & NODE_REACHED)
                continue;
            node_rec cn;
            if ((st = decode_node(g, c, &cn, err)) != GCH_OK)
                break;
            klass[c] = classify_pseudo(node_type_name(g, cn.type), klass[p]);
            s->flags[c] |= NODE_REACHED;
            queue[tail++] = c; /* each pseudo-node enters once: tail <= pseudo_count */
        }
    }
    gch_free(queue);
    gch_free(klass);
    return st;
}

/* ---- types ---- */

/* File type index -> builder raw id. Types whose shown name (and module, with
 * keep_modules) is the same share one raw id: the index of the first of them.
 * That merges the size buckets once their markers are stripped, and the
 * duplicate names PerfView may write (its type table is not interned). */
typedef struct type_map {
    uint32_t *raw;          /* per file type: raw id, or GCH_NONE before first use */
    char **keys;            /* hash table of shown-name keys */
    uint32_t *values;
    size_t cap;
    gch_hash_key key;       /* see hash.h */
} type_map;

static gch_status type_map_init(type_map *m, uint32_t type_count, gch_error *err)
{
    memset(m, 0, sizeof *m);
    m->key = gch_hash_key_get();
    m->cap = 16;
    while (m->cap < (size_t)type_count * 2)
        m->cap *= 2;
    m->raw = gch_malloc((type_count ? type_count : 1) * sizeof *m->raw);
    m->keys = gch_calloc(m->cap, sizeof *m->keys);
    m->values = gch_calloc(m->cap, sizeof *m->values);
    if (!m->raw || !m->keys || !m->values)
        return oom(err);
    for (uint32_t t = 0; t < type_count; t++)
        m->raw[t] = GCH_NONE;
    return GCH_OK;
}

static void type_map_free(type_map *m)
{
    for (size_t i = 0; m->keys && i < m->cap; i++)
        gch_free(m->keys[i]);
    gch_free(m->keys);
    gch_free(m->values);
    gch_free(m->raw);
}

/* The name a type is shown with: size buckets stripped unless asked not to. */
static char *shown_type_name(const gcd_graph *g, uint32_t t, const gch_load_options *opts)
{
    const char *name = g->type_name[t];
    char placeholder[48];
    if (!name) {
        /* Only deferred-type graphs (names resolved from symbols) have these. */
        snprintf(placeholder, sizeof placeholder, "<unnamed type %lu>", (unsigned long)t);
        name = placeholder;
    }
    char *out = gch_malloc(strlen(name) + 1);
    if (!out)
        return NULL;
    if (opts->size_buckets)
        memcpy(out, name, strlen(name) + 1);
    else
        gcd_strip_size_bucket(name, out);
    return out;
}

/* Builds the merge key: the shown name, plus the module when modules are kept. */
static char *type_key(const char *shown, const char *module)
{
    size_t a = strlen(shown), m = module ? strlen(module) : 0;
    char *key = gch_malloc(a + m + 2);
    if (!key)
        return NULL;
    memcpy(key, shown, a);
    key[a] = '\x01'; /* cannot occur in a name */
    memcpy(key + a + 1, module ? module : "", m);
    key[a + 1 + m] = '\0';
    return key;
}


/* A module as PerfView shows it: the file name without folder and extension
 * ("C:\\Windows\\...\\mscorlib.dll" and "mscorlib.ni.dll" are "mscorlib");
 * other names (dotnet-gcdump's "Module(0x...)") as written. */
static const char *short_module(const char *path, size_t *len)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '\\' || *p == '/')
            base = p + 1;
    size_t n = strlen(base);
    static const char *const ext[] = { ".dll", ".exe", ".ni" };
    for (size_t k = 0; k < sizeof ext / sizeof *ext; k++) {
        size_t e = strlen(ext[k]);
        int match = n > e;
        for (size_t i = 0; match && i < e; i++)
            match = (base[n - e + i] | 0x20) == ext[k][i];
        if (match)
            n -= e;
    }
    if (n == 0) { /* nothing but an extension: keep what was written */
        *len = strlen(path);
        return path;
    }
    *len = n;
    return base;
}

/* Gives file type t its raw id, declaring it to the builder on first use. */
static gch_status resolve_type(gch_builder *b, const gcd_graph *g, type_map *m, uint32_t t,
                               const gch_load_options *opts, gch_error *err)
{
    char *shown = shown_type_name(g, t, opts);
    const char *module = opts->keep_modules ? g->type_module[t] : NULL;
    char *key = shown ? type_key(shown, module) : NULL;
    if (!key) {
        gch_free(shown);
        return oom(err);
    }
    size_t j = gch_hash_bytes(key, strlen(key), &m->key) & (m->cap - 1);
    while (m->keys[j] && strcmp(m->keys[j], key) != 0)
        j = (j + 1) & (m->cap - 1);
    gch_status st = GCH_OK;
    if (m->keys[j]) {
        m->raw[t] = m->values[j];
        gch_free(key);
    } else {
        m->keys[j] = key; /* the table has room: cap >= 2 * type_count */
        m->values[j] = t;
        m->raw[t] = t;
        uint32_t index;
        st = gch_builder_add_type(b, t, shown, strlen(shown), &index, err);
        if (st == GCH_OK && module) {
            size_t len;
            const char *name = short_module(module, &len);
            st = gch_builder_set_type_module(b, index, name, len, err);
        }
    }
    gch_free(shown);
    return st;
}

/* ---- pass 3: objects ---- */

static gch_status add_object_refs(gch_builder *b, const gcd_graph *g, uint32_t i, node_rec *n,
                                  gch_error *err)
{
    uint64_t refs[REF_CHUNK];
    size_t count = 0;
    for (uint32_t k = 0; k < n->child_count; k++) {
        uint32_t c = 0;
        gch_status st = next_child(g, i, n, &c);
        if (st != GCH_OK)
            return st;
        /* A pseudo-node child has address 0, which the builder drops as null. */
        refs[count++] = node_address(g, c);
        if (count == REF_CHUNK) {
            if ((st = gch_builder_object_refs(b, refs, count, err)) != GCH_OK)
                return st;
            count = 0;
        }
    }
    return count ? gch_builder_object_refs(b, refs, count, err) : GCH_OK;
}

static gch_status add_objects(gch_builder *b, const gcd_graph *g, const graph_scan *s,
                              const gch_load_options *opts, gch_error *err)
{
    type_map m;
    gch_status st = type_map_init(&m, g->type_count, err);
    for (uint32_t i = 0; st == GCH_OK && i < g->node_count; i++) {
        if (opts->progress && i % PROGRESS_EVERY == 0)
            opts->progress(opts->progress_ctx, g->blob_at + node_offset(g, i));
        if (s->flags[i] & (NODE_PSEUDO | NODE_UNDEFINED))
            continue;
        node_rec n;
        if ((st = decode_node(g, i, &n, err)) != GCH_OK)
            break;
        if (m.raw[n.type] == GCH_NONE && (st = resolve_type(b, g, &m, n.type, opts, err)) != GCH_OK)
            break;
        st = gch_builder_object_begin(b, node_address(g, i), m.raw[n.type], n.size, err);
        if (st == GCH_OK && !opts->skip_refs)
            st = add_object_refs(b, g, i, &n, err);
    }
    type_map_free(&m);
    return st;
}

gch_status gcd_build_heap(gch_builder *b, const gcd_graph *g, const gcd_info *info,
                          const gch_load_options *opts, gch_error *err)
{
    graph_scan s = { gch_calloc(g->node_count ? g->node_count : 1, 1), 0, 0 };
    if (!s.flags)
        return oom(err);
    gch_status st = validate_nodes(g, &s, err);
    if (st == GCH_OK) {
        const char *name = info->process_name && info->process_name[0] ? info->process_name : "gcdump";
        st = gch_builder_begin_heap(b, name, strlen(name), err);
    }
    if (st == GCH_OK) {
        gch_builder_set_id_radix(b, 16);
        gch_builder_set_sampled(b, info->count_multiplier_count > 0 ||
                                       info->average_count_multiplier != 1.0f ||
                                       info->average_size_multiplier != 1.0f);
        if (opts->skip_refs)
            gch_builder_set_refs_skipped(b);
        st = gcd_add_meta(b, g, info, s.pseudo_count, s.undefined_count, err);
    }
    if (st == GCH_OK)
        st = add_roots(b, g, &s, err);
    if (st == GCH_OK)
        st = add_objects(b, g, &s, opts, err);
    if (st == GCH_OK)
        st = gch_builder_end_heap(b, err);
    gch_free(s.flags);
    return st;
}

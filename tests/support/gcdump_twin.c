/* The twin fixtures' heap: see gcdump_twin.h. */
#include "text_buf.h"
#include "gcdump_twin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    T_ROOTS, T_STATIC_VARS, T_SV_INSTANCE, T_SV_EMPTY, T_LOCALS, T_PINNED_LOCALS, T_OTHER,
    T_STRONG, T_PINNED_HANDLES, T_FINALIZER, /* pseudo-node categories */
    T_CACHE, T_NODE, T_STRING, T_BYTES, T_BYTES_1K, T_BYTES_10K, T_OBJECTS, T_RESOURCE, T_DEAD,
    T_FREE, T_COUNT
};

#define CORELIB "System.Private.CoreLib.dll"

static const gcdw_type types[T_COUNT] = {
    [T_ROOTS] = { "[.NET Roots]", NULL },
    [T_STATIC_VARS] = { "[static vars]", NULL },
    [T_SV_INSTANCE] = { "[static var App.Cache.instance]", NULL },
    [T_SV_EMPTY] = { "[static var System.String.Empty]", NULL },
    [T_LOCALS] = { "[local vars]", NULL },
    [T_PINNED_LOCALS] = { "[Pinned local vars]", NULL },
    [T_OTHER] = { "[other roots]", NULL },
    [T_STRONG] = { "[strong Handles]", NULL },
    [T_PINNED_HANDLES] = { "[pinned Handles]", NULL },
    [T_FINALIZER] = { "[finalizer Handles]", NULL },
    [T_CACHE] = { "App.Cache", "App.dll" },
    [T_NODE] = { "App.Node", "App.dll" },
    [T_STRING] = { "System.String", CORELIB },
    [T_BYTES] = { "System.Byte[]", CORELIB },
    [T_BYTES_1K] = { "System.Byte[] (Bytes > 1K)", CORELIB },
    [T_BYTES_10K] = { "System.Byte[] (Bytes > 10K)", CORELIB },
    [T_OBJECTS] = { "System.Object[]", CORELIB },
    [T_RESOURCE] = { "App.FileResource", "App.dll" },
    [T_DEAD] = { "App.Dead", "App.dll" },
    [T_FREE] = { "Free", NULL },
};

/* The .gclog type of each object type: the size buckets are one type,
 * System.Byte[] (as gcheap shows them by default). */
static unsigned gclog_type(unsigned t) { return t == T_BYTES_1K || t == T_BYTES_10K ? T_BYTES : t; }

/* .gclog root kind and flags of the objects a category holds; a category
 * with kind -1 holds only categories. */
typedef struct category {
    int kind;
    unsigned flags;
    int container; /* type index of a static's class, or -1 */
} category;

static const category categories[T_CACHE] = {
    [T_ROOTS] = { -1, 0, -1 },
    [T_STATIC_VARS] = { -1, 0, -1 },
    [T_SV_INSTANCE] = { 4, 0, T_CACHE },
    [T_SV_EMPTY] = { 4, 0, T_STRING },
    [T_LOCALS] = { 1, 0, -1 },
    [T_PINNED_LOCALS] = { 1, 1, -1 },
    [T_OTHER] = { -1, 0, -1 },
    [T_STRONG] = { 3, 0, -1 },
    [T_PINNED_HANDLES] = { 3, 1, -1 },
    [T_FINALIZER] = { 2, 0, -1 },
};

static const uint32_t k0[] = { 1, 4, 5, 6 }, k1[] = { 2, 3 }, k2[] = { 10 }, k3[] = { 11 },
                      k4[] = { 12, 13 }, k5[] = { 14, 27 }, k6[] = { 7, 8, 9 }, k7[] = { 15, 10 },
                      k8[] = { 14 }, k9[] = { 16 }, k10[] = { 17, 11 }, k12[] = { 18, 12 },
                      k15[] = { 19 }, k16[] = { 18 }, k17[] = { 13, 20, 21, 13 }, k21[] = { 12 },
                      k22[] = { 23 }, k23[] = { 22, 24, 26 };
#define KIDS(k) k, (uint32_t)(sizeof k / sizeof *k)
#define NONE NULL, 0

/* Live: 10-18, 20, 21 (and 14 in the large-object segment); dead: a cycle
 * 22 <-> 23 holding 24 and 26, and a Free gap 25. 19 and 27 were never
 * defined: 15's reference to 19 dangles and the pinned local var on 27 names
 * an absent object. */
static const gcdw_node nodes[] = {
    /* 0 */ { T_ROOTS, 0, 0, KIDS(k0), 0 },
    /* 1 */ { T_STATIC_VARS, 0, 0, KIDS(k1), 0 },
    /* 2 */ { T_SV_INSTANCE, 0, 0, KIDS(k2), 0 },
    /* 3 */ { T_SV_EMPTY, 0, 0, KIDS(k3), 0 },
    /* 4 */ { T_LOCALS, 0, 0, KIDS(k4), 0 },
    /* 5 */ { T_PINNED_LOCALS, 0, 0, KIDS(k5), 0 },
    /* 6 */ { T_OTHER, 0, 0, KIDS(k6), 0 },
    /* 7 */ { T_STRONG, 0, 0, KIDS(k7), 0 },
    /* 8 */ { T_PINNED_HANDLES, 0, 0, KIDS(k8), 0 },
    /* 9 */ { T_FINALIZER, 0, 0, KIDS(k9), 0 },
    /* 10 */ { T_CACHE, 24, 0x2c61000, KIDS(k10), 0 },
    /* 11 */ { T_STRING, 14, 0x2c61018, NONE, 0 },
    /* 12 */ { T_NODE, 20, 0x2c61028, KIDS(k12), 0 },
    /* 13 */ { T_STRING, 34, 0x2c6103c, NONE, 0 },
    /* 14 */ { T_BYTES_10K, 20012, 0x3c61000, NONE, 0 },
    /* 15 */ { T_NODE, 20, 0x2c61060, KIDS(k15), 0 },
    /* 16 */ { T_RESOURCE, 16, 0x2c61074, KIDS(k16), 0 },
    /* 17 */ { T_OBJECTS, 32, 0x2c61084, KIDS(k17), 0 },
    /* 18 */ { T_STRING, 26, 0x2c610a4, NONE, 0 },
    /* 19 */ { T_NODE, 0, 0x2c610be, NONE, 1 },
    /* 20 */ { T_BYTES, 112, 0x2c610d0, NONE, 0 },
    /* 21 */ { T_NODE, 20, 0x2c61140, KIDS(k21), 0 },
    /* 22 */ { T_DEAD, 16, 0x2c61154, KIDS(k22), 0 },
    /* 23 */ { T_DEAD, 16, 0x2c61164, KIDS(k23), 0 },
    /* 24 */ { T_STRING, 30, 0x2c61174, NONE, 0 },
    /* 25 */ { T_FREE, 12, 0x2c61192, NONE, 0 },
    /* 26 */ { T_BYTES_1K, 1036, 0x2c6119e, NONE, 0 },
    /* 27 */ { T_STRING, 0, 0x2c615aa, NONE, 1 },
};
#define NODE_COUNT (uint32_t)(sizeof nodes / sizeof *nodes)

static gcdw_desc twin_desc(void)
{
    static const gcdw_segment segments[] = {
        { { 0x2c61000, 0x2c615b0, 0x2c615b0, 0x2c61154, 0x2c61000, 0x2c61000, 0 } },
        { { 0x3c61000, 0x3c65e2c, 0x3c65e2c, 0x3c65e2c, 0x3c65e2c, 0x3c61000, 0 } },
    };
    gcdw_desc d;
    memset(&d, 0, sizeof d);
    d.types = types;
    d.type_count = T_COUNT;
    d.nodes = nodes;
    d.node_count = NODE_COUNT;
    d.root = 0;
    d.is64 = 0;
    d.process_name = "demo.exe";
    d.machine_name = "BUILD01";
    d.process_id = 4242;
    d.time_ticks = 635560517200000000LL | (1LL << 62); /* 2015-01-05T10:48:40Z, Utc */
    d.segments = segments;
    d.segment_count = 2;
    d.segment_version = 0;
    d.no_interop = 1;
    return d;
}

void gcdump_twin_gcdump(gcdw_result *out)
{
    gcdw_desc d = twin_desc();
    gcdw_write(&d, out);
}

void gcdump_twin_sampled(gcdw_result *out)
{
    /* One multiplier per type: dotnet-gcdump writes them when it sampled. */
    static float mults[T_COUNT];
    for (int i = 0; i < T_COUNT; i++)
        mults[i] = i % 3 == 0 ? 4.0f : 1.0f;
    gcdw_desc d = twin_desc();
    d.count_multipliers = mults;
    d.count_multiplier_count = T_COUNT;
    d.average_count_multiplier = 2.0f;
    d.average_size_multiplier = 1.5f;
    gcdw_write(&d, out);
}

/* Type ids in the .gclog: the description's type index + 1, as in the .gcdump
 * (the buckets take System.Byte[]'s). */
char *gcdump_twin_gclog(size_t *len)
{
    text t = { NULL, 0, 0 };
    text_add(&t, "a 2 demo.exe\n");
    unsigned char used[T_COUNT] = { 0 };
    for (uint32_t i = 0; i < NODE_COUNT; i++)
        if (nodes[i].address && !nodes[i].undefined)
            used[gclog_type(nodes[i].type)] = 1;
    for (unsigned ty = T_CACHE; ty < T_COUNT; ty++)
        if (used[ty])
            text_add(&t, "t %x %s\n", ty + 1, types[ty].name);
    for (uint32_t i = 0; i < NODE_COUNT; i++) {
        const gcdw_node *n = &nodes[i];
        if (!n->address || n->undefined)
            continue;
        text_add(&t, "o %llx %x %x", (unsigned long long)n->address, gclog_type(n->type) + 1,
            (unsigned)n->size);
        for (uint32_t k = 0; k < n->child_count; k++)
            text_add(&t, " %llx", (unsigned long long)nodes[n->children[k]].address);
        text_add(&t, "\n");
    }
    /* Roots: breadth-first through the categories, as the pseudo-nodes nest. */
    uint32_t queue[NODE_COUNT], head = 0, tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
        const gcdw_node *p = &nodes[queue[head++]];
        const category *c = &categories[p->type];
        for (uint32_t k = 0; k < p->child_count; k++) {
            uint32_t ch = p->children[k];
            if (nodes[ch].address == 0) {
                queue[tail++] = ch;
                continue;
            }
            if (c->kind < 0)
                abort(); /* objects hang only under categories with a kind */
            text_add(&t, "r %llx %x %x", (unsigned long long)nodes[ch].address, (unsigned)c->kind, c->flags);
            if (c->container >= 0)
                text_add(&t, " %x", (unsigned)c->container + 1);
            text_add(&t, "\n");
        }
    }
    text_add(&t, "c demo.exe\n");
    *len = t.len;
    return t.s;
}

size_t gcdump_twin_truncated_size(size_t full_size) { return full_size / 2; }

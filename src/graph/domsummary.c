/* The bounded summary of the dominator tree: see include/gcheap/domsummary.h.
 *
 * 1. The max_objects best positions by (retained desc, position asc), with a
 *    bounded min-heap whose top is the worst kept (gcheap/topk.h): most positions are
 *    rejected by one comparison with it.
 * 2. The kept positions in ascending order are the kept nodes in preorder;
 *    a node's parent is found through node_of[], written only at kept
 *    positions (its untouched pages are never faulted in).
 * 3. One pass over every live object: one whose dominator is kept (a bit per
 *    position says so) but which is not kept itself is added to its
 *    dominator's merged node.
 */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/domsummary.h"
#include "gcheap/topk.h"

/* Position a ranks before position b. */
static int ranks_before(const void *ctx, uint32_t a, uint32_t b)
{
    const uint64_t *ret = ctx;
    return ret[a] != ret[b] ? ret[a] > ret[b] : a < b;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void gch_dom_summary_free(gch_dom_summary *s)
{
    if (!s)
        return;
    gch_free(s->parent);
    gch_free(s->object);
    gch_free(s->retained);
    gch_free(s->merged);
    memset(s, 0, sizeof *s);
}

gch_status gch_dom_summary_build(const gch_domtree *t, uint32_t max_objects,
                                 gch_dom_summary *out, gch_error *err)
{
    memset(out, 0, sizeof *out);
    if (!t->preorder || !t->preorder_retained || !t->preorder_idom)
        return gch_error_set(err, GCH_EINVAL,
                             "the dominator summary needs a tree in preorder with preorder_idom");
    const uint32_t N = (uint32_t)t->live_count;
    const uint32_t *pidom = t->preorder_idom;
    const uint64_t *ret = t->preorder_retained;
    const uint32_t K = max_objects < N ? max_objects : N;
    const size_t cap = 2 * (size_t)K + 2;
    uint32_t *kept = gch_reallocarray(NULL, K ? K : 1, sizeof *kept);
    uint64_t *bits = gch_calloc((size_t)N / 64 + 1, sizeof *bits);
    uint32_t *node_of = gch_calloc(N ? N : 1, sizeof *node_of);
    uint64_t *mret = gch_calloc((size_t)K + 1, sizeof *mret);
    uint64_t *mcount = gch_calloc((size_t)K + 1, sizeof *mcount);
    out->parent = gch_reallocarray(NULL, cap, sizeof *out->parent);
    out->object = gch_reallocarray(NULL, cap, sizeof *out->object);
    out->retained = gch_reallocarray(NULL, cap, sizeof *out->retained);
    out->merged = gch_calloc(cap, sizeof *out->merged);
    if (!kept || !bits || !node_of || !mret || !mcount || !out->parent || !out->object ||
        !out->retained || !out->merged)
        goto nomem;

    gch_top_k_keyed(N, K, ret, ranks_before, ret, kept); /* the K best, in heap order */
    qsort(kept, K, sizeof *kept, cmp_u32);

    out->parent[0] = GCH_NONE;
    out->object[0] = GCH_NONE;
    out->retained[0] = t->live_bytes;
    for (uint32_t i = 0; i < K; i++) {
        uint32_t p = kept[i], d = pidom[p];
        bits[p / 64] |= (uint64_t)1 << (p % 64);
        node_of[p] = i + 1;
        out->parent[i + 1] = d == GCH_DOM_VROOT ? 0 : node_of[d];
        out->object[i + 1] = t->preorder[p];
        out->retained[i + 1] = ret[p];
    }
    for (uint32_t q = 0; q < N; q++) {
        uint32_t d = pidom[q];
        if (bits[q / 64] >> (q % 64) & 1)
            continue;
        uint32_t node;
        if (d == GCH_DOM_VROOT)
            node = 0;
        else if (bits[d / 64] >> (d % 64) & 1)
            node = node_of[d];
        else
            continue;
        mret[node] += ret[q];
        mcount[node]++;
    }
    uint32_t nodes = K + 1;
    for (uint32_t p = 0; p <= K; p++) {
        if (!mcount[p])
            continue;
        out->parent[nodes] = p;
        out->object[nodes] = GCH_NONE;
        out->retained[nodes] = mret[p];
        out->merged[nodes] = mcount[p];
        nodes++;
    }
    out->node_count = nodes;
    out->kept_count = K;
    gch_free(kept);
    gch_free(bits);
    gch_free(node_of);
    gch_free(mret);
    gch_free(mcount);
    return GCH_OK;

nomem:
    gch_free(kept);
    gch_free(bits);
    gch_free(node_of);
    gch_free(mret);
    gch_free(mcount);
    gch_dom_summary_free(out);
    return gch_error_set(err, GCH_ENOMEM, "out of memory summarising the dominator tree");
}

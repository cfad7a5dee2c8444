/* Dominator tree (Semi-NCA) and retained sizes: see include/gcheap/dominators.h
 * and docs/graph-algorithms.md.
 *
 * Vertices are renumbered in DFS preorder: 0 is the virtual root, 1..N the
 * reachable objects. All per-vertex arrays are indexed by preorder number.
 *
 *   pre[obj]    preorder number of an object, 0 when unreached
 *   vert[i]     object of preorder number i
 *   parent[i]   DFS-tree parent; becomes idom[i] in place
 *   best[i]     DFS stack, then: initial semi value, then the smallest semi
 *               value on i's compressed forest path ("label" as a value)
 *   anc[i]      DFS edge cursor, then: forest ancestor (path-compressed)
 *   semi[i]     semidominator
 *
 * No recursion: the DFS uses best[] as its stack and anc[] as per-vertex edge
 * cursors; path compression reverses the ancestor pointers on the way up and
 * restores them (compressed) on the way down.
 */
#include "gcheap/dominators.h"

#include <string.h>

#include "gcheap/alloc.h"
#include "graph_internal.h"

/* Semi-NCA "eval": v is a predecessor of w. Returns the semidominator
 * candidate v contributes: v itself when v is not processed yet (v <= w), else
 * the smallest semi value on v's forest path, after compressing that path. */
static uint32_t eval(uint32_t *anc, uint32_t *best, uint32_t v, uint32_t w)
{
    if (v <= w)
        return v;
    /* Up: reverse the pointers while the ancestor itself is processed. */
    uint32_t x = v, prev = GCH_NONE;
    while (anc[x] > w) {
        uint32_t next = anc[x];
        anc[x] = prev;
        prev = x;
        x = next;
    }
    /* x is the topmost processed vertex; anc[x] is the root of the tree. */
    uint32_t root = anc[x];
    /* Down: fold best values and point every vertex at the root. */
    while (prev != GCH_NONE) {
        uint32_t y = prev;
        prev = anc[y];
        if (best[x] < best[y])
            best[y] = best[x];
        anc[y] = root;
        x = y;
    }
    return best[v];
}

void gch_domtree_free(gch_domtree *t)
{
    if (!t)
        return;
    gch_free(t->idom);
    gch_free(t->retained);
    gch_free(t->child_start);
    gch_free(t->children);
    memset(t, 0, sizeof *t);
}

gch_status gch_domtree_build(const gch_heap *heap, int include_weak, gch_domtree *out,
                             gch_error *err)
{
    memset(out, 0, sizeof *out);
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL,
                             "the dominator tree needs references, which were not loaded");
    const uint32_t n = heap->object_count;
    const size_t n1 = (size_t)n + 1;
    const uint32_t *out_start = heap->out_start, *out_target = heap->out_target;
    const int use_reverse = heap->in_start != NULL && heap->in_source != NULL;

    uint32_t *pre = gch_calloc(n1, sizeof *pre);
    uint32_t *vert = gch_reallocarray(NULL, n1, sizeof *vert);
    uint32_t *parent = gch_reallocarray(NULL, n1, sizeof *parent);
    uint32_t *best = gch_reallocarray(NULL, n1, sizeof *best);
    uint32_t *anc = gch_reallocarray(NULL, n1, sizeof *anc);
    uint32_t *semi = NULL, *pstart = NULL, *preds = NULL;
    if (!pre || !vert || !parent || !best || !anc)
        goto nomem;

    /* 1. Iterative DFS from the virtual root, numbering in preorder. */
    uint32_t N = 0;
    {
        uint32_t *stack = best, *cursor = anc;
        vert[0] = GCH_NONE;
        parent[0] = 0;
        for (uint32_t r = 0; r < heap->root_count; r++) {
            if (!gch__root_counts(heap, r, include_weak))
                continue;
            uint32_t o = heap->root_object[r];
            if (pre[o])
                continue;
            pre[o] = ++N;
            vert[N] = o;
            parent[N] = 0;
            cursor[N] = out_start[o];
            uint32_t sp = 0;
            stack[sp++] = N;
            while (sp) {
                uint32_t i = stack[sp - 1];
                uint32_t e = cursor[i], end = out_start[vert[i] + 1];
                while (e < end && pre[out_target[e]])
                    e++;
                if (e == end) {
                    sp--;
                    continue;
                }
                uint32_t t = out_target[e];
                cursor[i] = e + 1;
                pre[t] = ++N;
                vert[N] = t;
                parent[N] = i;
                cursor[N] = out_start[t];
                stack[sp++] = N;
            }
        }
    }

    /* 2. Initial semi values, kept in best[] until each vertex is processed:
     * the DFS parent, or the virtual root for objects a counted root names. */
    for (uint32_t i = 1; i <= N; i++)
        best[i] = parent[i];
    for (uint32_t r = 0; r < heap->root_count; r++)
        if (gch__root_counts(heap, r, include_weak))
            best[pre[heap->root_object[r]]] = 0;

    /* 3. Predecessors. Without the heap's reverse index, build one over the
     * reachable vertices in preorder numbers (every target of a reachable
     * object is reachable), then drop pre[]. */
    if (!use_reverse) {
        pstart = gch_calloc((size_t)N + 2, sizeof *pstart);
        if (!pstart)
            goto nomem;
        for (uint32_t i = 1; i <= N; i++) {
            uint32_t o = vert[i];
            for (uint32_t e = out_start[o]; e < out_start[o + 1]; e++)
                pstart[pre[out_target[e]] + 1]++;
        }
        for (uint32_t i = 0; i <= N; i++)
            pstart[i + 1] += pstart[i];
        preds = gch_reallocarray(NULL, pstart[N + 1] ? pstart[N + 1] : 1, sizeof *preds);
        if (!preds)
            goto nomem;
        /* Place (pstart[j] advances to the end of j's range), then shift back. */
        for (uint32_t i = 1; i <= N; i++) {
            uint32_t o = vert[i];
            for (uint32_t e = out_start[o]; e < out_start[o + 1]; e++)
                preds[pstart[pre[out_target[e]]]++] = i;
        }
        for (uint32_t j = N + 1; j > 0; j--)
            pstart[j] = pstart[j - 1];
        pstart[0] = 0;
        gch_free(pre);
        pre = NULL;
    }
    semi = gch_reallocarray(NULL, (size_t)N + 1, sizeof *semi);
    if (!semi)
        goto nomem;

    /* 4. Semidominators in reverse preorder; link each vertex to its parent. */
    for (uint32_t w = N; w >= 1; w--) {
        uint32_t s = best[w];
        if (use_reverse) {
            uint32_t o = vert[w];
            for (uint32_t e = heap->in_start[o]; e < heap->in_start[o + 1]; e++) {
                uint32_t v = pre[heap->in_source[e]];
                if (v) {
                    uint32_t c = eval(anc, best, v, w);
                    if (c < s)
                        s = c;
                }
            }
        } else {
            for (uint32_t e = pstart[w]; e < pstart[w + 1]; e++) {
                uint32_t c = eval(anc, best, preds[e], w);
                if (c < s)
                    s = c;
            }
        }
        semi[w] = s;
        best[w] = s;
        anc[w] = parent[w];
    }
    gch_free(pstart);
    gch_free(preds);
    gch_free(best);
    gch_free(anc);
    gch_free(pre);
    pstart = preds = best = anc = pre = NULL;

    /* 5. NCA step: idom(w) is the nearest dominator-tree ancestor of parent(w)
     * numbered at most semi(w). In place: parent[] becomes idom[]. */
    for (uint32_t w = 1; w <= N; w++) {
        uint32_t d = parent[w];
        while (d > semi[w])
            d = parent[d];
        parent[w] = d;
    }
    gch_free(semi);
    semi = NULL;

    /* 6. Results by object: idom, and retained sizes accumulated in reverse
     * preorder (every vertex is numbered after its immediate dominator). */
    out->object_count = n;
    out->idom = gch_reallocarray(NULL, n ? n : 1, sizeof *out->idom);
    out->retained = gch_calloc(n ? n : 1, sizeof *out->retained);
    if (!out->idom || !out->retained)
        goto nomem;
    for (uint32_t o = 0; o < n; o++)
        out->idom[o] = GCH_NONE;
    uint64_t bytes = 0;
    for (uint32_t i = 1; i <= N; i++) {
        uint32_t o = vert[i], d = parent[i];
        out->retained[o] = heap->object_size[o];
        bytes += heap->object_size[o];
        out->idom[o] = d ? vert[d] : GCH_DOM_VROOT;
    }
    for (uint32_t i = N; i >= 1; i--) {
        uint32_t d = parent[i];
        if (d)
            out->retained[vert[d]] += out->retained[vert[i]];
    }
    out->live_count = N;
    out->live_bytes = bytes;
    gch_free(vert);
    gch_free(parent);
    vert = parent = NULL;

    /* 7. Children CSR (slot n = virtual root), each list sorted. */
    out->child_start = gch_calloc((size_t)n + 2, sizeof *out->child_start);
    out->children = gch_reallocarray(NULL, N ? N : 1, sizeof *out->children);
    if (!out->child_start || !out->children)
        goto nomem;
    {
        uint32_t *cs = out->child_start;
        const uint32_t *idom = out->idom;
        for (uint32_t o = 0; o < n; o++) {
            uint32_t d = idom[o];
            if (d != GCH_NONE)
                cs[(d == GCH_DOM_VROOT ? n : d) + 1]++;
        }
        for (uint32_t k = 0; k <= n; k++)
            cs[k + 1] += cs[k];
        for (uint32_t o = 0; o < n; o++) {
            uint32_t d = idom[o];
            if (d != GCH_NONE)
                out->children[cs[d == GCH_DOM_VROOT ? n : d]++] = o;
        }
        for (uint32_t k = n + 1; k > 0; k--)
            cs[k] = cs[k - 1];
        cs[0] = 0;
        if (gch__sort_lists_by_key_desc(out->children, cs, (size_t)n + 1, out->retained, n) != 0)
            goto nomem;
    }
    return GCH_OK;

nomem:
    gch_free(pre);
    gch_free(vert);
    gch_free(parent);
    gch_free(best);
    gch_free(anc);
    gch_free(semi);
    gch_free(pstart);
    gch_free(preds);
    gch_domtree_free(out);
    return gch_error_set(err, GCH_ENOMEM, "out of memory computing the dominator tree");
}

const uint32_t *gch_domtree_children(const gch_domtree *t, uint32_t node, uint32_t *count)
{
    uint32_t slot;
    if (node == GCH_DOM_VROOT)
        slot = t->object_count;
    else if (node < t->object_count && t->idom[node] != GCH_NONE)
        slot = node;
    else {
        *count = 0;
        return NULL;
    }
    *count = t->child_start[slot + 1] - t->child_start[slot];
    return t->children + t->child_start[slot];
}

gch_status gch_dom_chain(const gch_domtree *t, uint32_t object, uint32_t **chain_out,
                         size_t *len_out, gch_error *err)
{
    *chain_out = NULL;
    *len_out = 0;
    if (object >= t->object_count)
        return gch_error_set(err, GCH_EINVAL, "object index %u out of range", (unsigned)object);
    size_t len = 0;
    for (uint32_t d = t->idom[object]; d != GCH_NONE && d != GCH_DOM_VROOT; d = t->idom[d])
        len++;
    if (!len)
        return GCH_OK;
    uint32_t *chain = gch_reallocarray(NULL, len, sizeof *chain);
    if (!chain)
        return gch_error_set(err, GCH_ENOMEM, "out of memory listing dominators");
    size_t k = 0;
    for (uint32_t d = t->idom[object]; d != GCH_NONE && d != GCH_DOM_VROOT; d = t->idom[d])
        chain[k++] = d;
    *chain_out = chain;
    *len_out = len;
    return GCH_OK;
}

/* Retained size per type: see gch_type_retained in include/gcheap/dominators.h.
 *
 * The union of the dominator subtrees of a type's instances is the union of
 * the subtrees of its topmost instances (those with no dominator-tree ancestor
 * of the same type), and those subtrees are disjoint. An iterative preorder
 * walk of the dominator tree keeps, per type, how many instances are on the
 * current path (active[]); an instance entered while its type's count is 0 is
 * topmost and adds its retained size.
 *
 * The walk's stack holds positions in t->children (one uint32 per level): the
 * node at a level is children[pos], its siblings follow it up to the end of
 * its parent's list.
 *
 * A tree in preorder only (with preorder_idom) has no children lists: its
 * objects are first put in a preorder of the dominator tree (from subtree
 * sizes), then walked the same way with the path on a stack.
 */
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/dominators.h"

/* How far ahead the walk in dominator-tree order prefetches (random reads). */
#define AHEAD 16

/* The live objects of a tree in preorder only, in an order where every
 * dominator subtree is contiguous: the DFS preorder is not one (an object
 * between a dominator and its dominated objects may hang elsewhere). order[k]
 * = the position (in t->preorder) of the k-th object of a preorder of the
 * dominator tree. next[] is scratch of N entries: subtree sizes, accumulated
 * in reverse (every object comes after its dominator), then each object's
 * next free slot for its children, children placed in position order. */
static void dominator_order(const uint32_t *pidom, uint32_t N, uint32_t *next, uint32_t *order)
{
    for (uint32_t i = 0; i < N; i++)
        next[i] = 1;
    for (uint32_t i = N; i-- > 0;)
        if (pidom[i] != GCH_DOM_VROOT)
            next[pidom[i]] += next[i];
    uint32_t root_next = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t d = pidom[i], size = next[i];
        uint32_t *slot = d == GCH_DOM_VROOT ? &root_next : &next[d];
        uint32_t k = *slot;
        *slot += size;
        next[i] = k + 1;
        order[k] = i;
    }
}

static gch_status type_retained_preorder(const gch_heap *heap, const gch_domtree *t,
                                         uint64_t *per_type_out, gch_error *err)
{
    const uint32_t types = heap->type_count, *pre = t->preorder, *pidom = t->preorder_idom;
    const uint64_t *ret = t->preorder_retained;
    const uint32_t *object_type = heap->object_type;
    const uint32_t N = (uint32_t)t->live_count;
    if (types)
        memset(per_type_out, 0, (size_t)types * sizeof *per_type_out);
    if (!N)
        return GCH_OK;
    uint32_t *active = gch_calloc(types ? types : 1, sizeof *active);
    uint32_t *next = gch_reallocarray(NULL, N, sizeof *next);
    uint32_t *order = gch_reallocarray(NULL, N, sizeof *order);
    if (!active || !next || !order)
        goto nomem;
    dominator_order(pidom, N, next, order);
    /* The path from the virtual root to the current object: positions and
     * their types, in next[]'s memory (a path has at most N objects). */
    uint32_t *stack = next, sp = 0;
    uint32_t *stype = gch_reallocarray(NULL, N, sizeof *stype);
    if (!stype)
        goto nomem;
    for (uint32_t k = 0; k < N; k++) {
        if (k + AHEAD < N)
            __builtin_prefetch(&object_type[pre[order[k + AHEAD]]]);
        uint32_t i = order[k], d = pidom[i];
        while (sp && stack[sp - 1] != d)
            active[stype[--sp]]--;
        uint32_t ty = object_type[pre[i]];
        if (active[ty]++ == 0)
            per_type_out[ty] += ret[i];
        stack[sp] = i;
        stype[sp++] = ty;
    }
    gch_free(stype);
    gch_free(active);
    gch_free(next);
    gch_free(order);
    return GCH_OK;
nomem:
    gch_free(active);
    gch_free(next);
    gch_free(order);
    return gch_error_set(err, GCH_ENOMEM, "out of memory computing retained sizes by type");
}

gch_status gch_type_retained(const gch_heap *heap, const gch_domtree *t, uint64_t *per_type_out,
                             gch_error *err)
{
    if (t->object_count != heap->object_count)
        return gch_error_set(err, GCH_EINVAL, "the dominator tree does not match the heap");
    if (t->preorder_idom && t->preorder && t->preorder_retained)
        return type_retained_preorder(heap, t, per_type_out, err);
    if (!t->child_start)
        return gch_error_set(err, GCH_EINVAL,
                             "the dominator tree was built without its children lists");
    const uint32_t n = t->object_count, types = heap->type_count;
    if (types)
        memset(per_type_out, 0, (size_t)types * sizeof *per_type_out);
    const uint32_t *cs = t->child_start, *children = t->children;
    if (cs[n] == cs[n + 1])
        return GCH_OK;

    uint32_t *active = gch_calloc(types ? types : 1, sizeof *active);
    size_t cap = 64, sp = 0;
    uint32_t *stack = gch_reallocarray(NULL, cap, sizeof *stack);
    if (!active || !stack)
        goto nomem;

    stack[sp++] = cs[n];
    while (sp) {
        /* Enter the node at the top of the stack. */
        uint32_t c = children[stack[sp - 1]];
        uint32_t ty = heap->object_type[c];
        if (active[ty]++ == 0)
            per_type_out[ty] += t->retained[c];
        if (cs[c] < cs[c + 1]) {
            if (sp == cap) {
                uint32_t *ns = gch_reallocarray(stack, cap * 2, sizeof *stack);
                if (!ns)
                    goto nomem;
                stack = ns;
                cap *= 2;
            }
            stack[sp++] = cs[c];
            continue;
        }
        /* Leave c, and every ancestor whose last child has been left, then
         * step to the next sibling (entered on the next iteration). */
        while (sp) {
            uint32_t pos = stack[sp - 1];
            uint32_t x = children[pos];
            active[heap->object_type[x]]--;
            uint32_t d = t->idom[x];
            uint32_t slot = d == GCH_DOM_VROOT ? n : d;
            if (pos + 1 < cs[slot + 1]) {
                stack[sp - 1] = pos + 1;
                break;
            }
            sp--;
        }
    }
    gch_free(active);
    gch_free(stack);
    return GCH_OK;

nomem:
    gch_free(active);
    gch_free(stack);
    return gch_error_set(err, GCH_ENOMEM, "out of memory computing retained sizes by type");
}

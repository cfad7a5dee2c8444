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
#include "graph_internal.h"

/* How far ahead the placement prefetches object_type (random reads). */
#define AHEAD 16

/* A live object at its place in a preorder of the dominator tree. */
typedef struct dom_slot {
    uint32_t parent; /* the slot of its immediate dominator; UINT32_MAX: the virtual root */
    uint32_t type;
    uint32_t pos;    /* its position in t->preorder */
} dom_slot;

/* Per position while placing: the next free slot of its children, and its
 * own slot (one cache line holds both). */
typedef struct place {
    uint32_t next, slot;
} place;

/* Puts the live objects of a tree in preorder only into a preorder of the
 * dominator tree, slot[]: the DFS preorder is not one (an object between a
 * dominator and the objects it dominates may hang elsewhere). Subtree sizes
 * are accumulated in reverse (every object comes after its dominator); then,
 * in position order, each object takes the next free slot of its dominator
 * and reserves its subtree's slots after it. */
static void dominator_order(const gch_heap *heap, const gch_domtree *t, place *pl, dom_slot *slot)
{
    const int skip_empty = heap->v8_pseudo != NULL;
    const uint32_t N = (uint32_t)t->live_count, *pidom = t->preorder_idom, *pre = t->preorder;
    const uint32_t *object_type = heap->object_type;
    /* pl[] comes zeroed: next counts the objects below, the object itself
     * not included, until it is placed. */
    for (uint32_t i = N; i-- > 0;) {
        if (i >= AHEAD) {
            uint32_t a = pidom[i - AHEAD];
            if (a != GCH_DOM_VROOT)
                __builtin_prefetch(&pl[a], 1);
        }
        if (pidom[i] != GCH_DOM_VROOT)
            pl[pidom[i]].next += pl[i].next + 1;
    }
    uint32_t root_next = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (i + AHEAD < N) {
            __builtin_prefetch(&object_type[pre[i + AHEAD]]);
            uint32_t a = pidom[i + AHEAD / 2];
            if (a != GCH_DOM_VROOT)
                __builtin_prefetch(&pl[a], 1);
            /* Where that object's slot will be, near enough: its dominator's
             * next free slot now (siblings placed in between only move it
             * on by their subtrees). pl[a] was fetched AHEAD / 4 ago. */
            a = pidom[i + AHEAD / 4];
            if (a != GCH_DOM_VROOT && pl[a].next < N)
                __builtin_prefetch(&slot[pl[a].next], 1);
        }
        uint32_t d = pidom[i], size = pl[i].next + 1, k;
        if (d == GCH_DOM_VROOT) {
            k = root_next;
            root_next += size;
            slot[k].parent = UINT32_MAX;
        } else {
            k = pl[d].next;
            pl[d].next += size;
            slot[k].parent = pl[d].slot;
        }
        pl[i].next = k + 1;
        pl[i].slot = k;
        slot[k].type = object_type[pre[i]];
        if (skip_empty && heap->object_size32[pre[i]] == 0)
            slot[k].type = heap->type_count; /* counts for no type */
        slot[k].pos = i;
    }
}

static gch_status type_retained_preorder(const gch_heap *heap, const gch_domtree *t,
                                         uint64_t *per_type_out, gch_error *err)
{
    const uint32_t types = heap->type_count;
    const uint64_t *ret = t->preorder_retained;
    const uint32_t N = (uint32_t)t->live_count;
    if (types)
        memset(per_type_out, 0, (size_t)types * sizeof *per_type_out);
    if (!N)
        return GCH_OK;
    uint32_t *active = gch_calloc((size_t)types + 1, sizeof *active);
    place *pl = gch_calloc(N, sizeof *pl);
    dom_slot *slot = gch_reallocarray(NULL, N, sizeof *slot);
    if (!active || !pl || !slot) {
        gch_free(active);
        gch_free(pl);
        gch_free(slot);
        return gch_error_set(err, GCH_ENOMEM, "out of memory computing retained sizes by type");
    }
    dominator_order(heap, t, pl, slot);
    /* The path from the virtual root to the current slot, in pl's memory
     * (a path has at most N objects): slot numbers. */
    uint32_t *stack = (uint32_t *)(void *)pl, sp = 0;
    for (uint32_t k = 0; k < N; k++) {
        uint32_t d = slot[k].parent, ty = slot[k].type;
        while (sp && stack[sp - 1] != d)
            active[slot[stack[--sp]].type]--;
        if (active[ty]++ == 0 && ty < types)
            per_type_out[ty] += ret[slot[k].pos];
        stack[sp++] = k;
    }
    gch_free(active);
    gch_free(pl);
    gch_free(slot);
    return GCH_OK;
}

/* The type an instance counts for; type_count (none) for an object of size
 * 0 of a V8 snapshot as DevTools shows it: its Summary leaves those out
 * (HeapSnapshot.ts calculateClassesRetainedSize, :1969-2017). */
static uint32_t type_or_none(const gch_heap *heap, uint32_t o)
{
    return heap->v8_pseudo && heap->object_size32[o] == 0 ? heap->type_count : heap->object_type[o];
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

    uint32_t *active = gch_calloc((size_t)types + 1, sizeof *active);
    size_t cap = 64, sp = 0;
    uint32_t *stack = gch_reallocarray(NULL, cap, sizeof *stack);
    if (!active || !stack)
        goto nomem;

    stack[sp++] = cs[n];
    while (sp) {
        /* Enter the node at the top of the stack. */
        uint32_t c = children[stack[sp - 1]];
        uint32_t ty = type_or_none(heap, c);
        if (active[ty]++ == 0 && ty < types)
            per_type_out[ty] += t->retained[c];
        if (cs[c] < cs[c + 1]) {
            if (!gch__stack_room(&stack, &cap, sp))
                goto nomem;
            stack[sp++] = cs[c];
            continue;
        }
        /* Leave c, and every ancestor whose last child has been left, then
         * step to the next sibling (entered on the next iteration). */
        while (sp) {
            uint32_t pos = stack[sp - 1];
            uint32_t x = children[pos];
            active[type_or_none(heap, x)]--;
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

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
 */
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/dominators.h"

gch_status gch_type_retained(const gch_heap *heap, const gch_domtree *t, uint64_t *per_type_out,
                             gch_error *err)
{
    if (t->object_count != heap->object_count)
        return gch_error_set(err, GCH_EINVAL, "the dominator tree does not match the heap");
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

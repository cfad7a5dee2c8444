/* In-place sort of uint32 arrays with a caller's order: see src/graph_internal.h. */
#include "graph_internal.h"

static void sift_down(uint32_t *a, size_t root, size_t n, gch__before_fn before, const void *ctx)
{
    /* Max-heap where "bigger" means "comes later". */
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && before(ctx, a[child], a[child + 1]))
            child++;
        if (!before(ctx, a[root], a[child]))
            return;
        uint32_t tmp = a[root];
        a[root] = a[child];
        a[child] = tmp;
        root = child;
    }
}

void gch__sort_u32(uint32_t *a, size_t n, gch__before_fn before, const void *ctx)
{
    if (n < 2)
        return;
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            uint32_t x = a[i];
            size_t j = i;
            while (j > 0 && before(ctx, x, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n, before, ctx);
    for (size_t end = n - 1; end > 0; end--) {
        uint32_t tmp = a[0];
        a[0] = a[end];
        a[end] = tmp;
        sift_down(a, 0, end, before, ctx);
    }
}

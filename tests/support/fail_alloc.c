/* fail_alloc: see fail_alloc.h. Each block carries its size in a header so
 * that realloc can be forwarded and a shrinking realloc recognised. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"
#include "gcheap/alloc.h"

fail_alloc_state fail_alloc;

typedef union header {
    size_t size;
    max_align_t align;
} header;

static int fails_now(fail_alloc_kind kind)
{
    if (kind == FAIL_ALLOC_MALLOC)
        fail_alloc.mallocs++;
    else
        fail_alloc.reallocs++;
    if (fail_alloc.kind != FAIL_ALLOC_ANY && fail_alloc.kind != kind)
        return 0;
    if (++fail_alloc.calls != fail_alloc.fail_at)
        return 0;
    fail_alloc.hit = 1;
    return 1;
}

static void *t_malloc(void *ctx, size_t n)
{
    (void)ctx;
    if (fails_now(FAIL_ALLOC_MALLOC))
        return NULL;
    header *h = malloc(sizeof *h + n);
    if (!h)
        return NULL;
    h->size = n;
    fail_alloc.live++;
    return h + 1;
}

static void *t_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    header *h = (header *)p - 1;
    if (fails_now(FAIL_ALLOC_REALLOC)) {
        fail_alloc.hit_shrink = n <= h->size;
        return NULL;
    }
    header *nh = realloc(h, sizeof *nh + n);
    if (!nh)
        return NULL;
    nh->size = n;
    return nh + 1;
}

static void t_free(void *ctx, void *p)
{
    (void)ctx;
    if (!p)
        return;
    fail_alloc.live--;
    free((header *)p - 1);
}

void fail_alloc_install_kind(long fail_at, fail_alloc_kind kind)
{
    static const gch_allocator counting = { t_malloc, t_realloc, t_free, NULL, NULL };
    memset(&fail_alloc, 0, sizeof fail_alloc);
    fail_alloc.fail_at = fail_at;
    fail_alloc.kind = kind;
    gch_set_allocator(&counting);
}

void fail_alloc_install(long fail_at)
{
    fail_alloc_install_kind(fail_at, FAIL_ALLOC_ANY);
}

void fail_alloc_remove(void)
{
    gch_set_allocator(NULL);
}

/* Ordering of per-type rows: see stat_sort.h. */
#include "stat_sort.h"

#include <stdlib.h>
#include <string.h>

#include "sort.h"

/* The order: a key (0 bytes, 1 count, 2 name) over a heap's type names. */
typedef struct type_order {
    const gch_heap *heap;
    int key;
} type_order;

static int cmp_u64_desc(uint64_t a, uint64_t b) { return a < b ? 1 : a > b ? -1 : 0; }

static int compare(const void *pa, const void *pb, const void *ctx)
{
    const gch_type_row *a = pa, *b = pb;
    const type_order *o = ctx;
    const gch_heap *sort_heap = o->heap;
    const int sort_key = o->key;
    int c = 0;
    if (sort_key == 2)
        c = strcmp(gch_type_name(sort_heap, a->type), gch_type_name(sort_heap, b->type));
    else if (sort_key == 1)
        c = cmp_u64_desc(a->count, b->count);
    if (!c)
        c = cmp_u64_desc(a->bytes, b->bytes);
    if (!c)
        c = cmp_u64_desc(a->count, b->count);
    if (!c)
        c = strcmp(gch_type_name(sort_heap, a->type), gch_type_name(sort_heap, b->type));
    return c;
}

int stat_sort_valid(const char *key)
{
    return !key || strcmp(key, "bytes") == 0 || strcmp(key, "count") == 0 || strcmp(key, "name") == 0;
}

void stat_sort_rows(const gch_heap *heap, gch_type_row *rows, uint32_t n, const char *key)
{
    type_order o = { heap, !key || strcmp(key, "bytes") == 0 ? 0 : strcmp(key, "count") == 0 ? 1 : 2 };
    cli_sort(rows, n, sizeof *rows, compare, &o);
}

/* Class loaders by their class, for the module of a type (`--module`): a
 * CLASS DUMP names its loader by object id only; the loader's INSTANCE DUMP
 * names its class. One walk over the heap sub-records finds the instances of
 * the (few, distinct) loader ids, as Eclipse MAT shows a loader by its class
 * ("jdk.internal.loader.ClassLoaders$AppClassLoader"); a loader class with
 * several instances (a web container's loader per application) keeps the
 * address to tell them apart ("...ParallelWebappClassLoader@0x7f00"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "hprof_internal.h"

typedef struct hp_loader {
    uint64_t id;
    uint32_t class_index; /* HP_NONE until its instance is found */
} hp_loader;

static int compare_ids(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

static hp_loader *find_loader(hp_loader *l, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && l[lo].id == id ? &l[lo] : NULL;
}

gch_status hp_loaders_find(hprof_reader *r)
{
    uint64_t *ids = gch_malloc((r->class_count ? r->class_count : 1) * sizeof *ids);
    if (!ids)
        return hp_oom(r);
    size_t n = 0;
    for (size_t i = 0; i < r->class_count; i++)
        if (r->classes[i].loader_id)
            ids[n++] = r->classes[i].loader_id;
    qsort(ids, n, sizeof *ids, compare_ids);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || ids[u - 1] != ids[i])
            ids[u++] = ids[i];
    hp_loader *l = gch_malloc((u ? u : 1) * sizeof *l);
    if (!l) {
        gch_free(ids);
        return hp_oom(r);
    }
    for (size_t i = 0; i < u; i++) {
        l[i].id = ids[i];
        l[i].class_index = HP_NONE;
    }
    gch_free(ids);
    hp_walk it;
    size_t off, next;
    hp_walk_init(r, &it);
    while (u && hp_walk_next(r, &it, &off, &next)) {
        if (r->data[off] != HP_INSTANCE_DUMP)
            continue;
        hp_loader *x = find_loader(l, u, hp_id(r, r->data + off + 1));
        if (x && x->class_index == HP_NONE)
            x->class_index = hp_class_find(r, hp_id(r, r->data + off + 1 + r->id_size + 4));
    }
    r->loaders = l;
    r->loader_count = u;
    return GCH_OK;
}

const char *hp_loader_text(const hprof_reader *r, uint64_t id, char *buf, size_t cap)
{
    const hp_loader *x = find_loader(r->loaders, r->loader_count, id);
    if (!x || x->class_index == HP_NONE) {
        snprintf(buf, cap, "loader 0x%llx", (unsigned long long)id);
        return buf;
    }
    size_t same = 0; /* loaders of the same class: few, a linear count is enough */
    for (size_t i = 0; i < r->loader_count && same < 2; i++)
        same += r->loaders[i].class_index == x->class_index;
    const char *name = r->names + r->classes[x->class_index].name;
    if (same > 1)
        snprintf(buf, cap, "%.400s@0x%llx", name, (unsigned long long)id);
    else
        snprintf(buf, cap, "%.400s", name);
    return buf;
}

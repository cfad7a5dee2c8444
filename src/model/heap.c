/* Heap model accessors and the reverse-reference index: see include/gcheap/heap.h. */
#include "gcheap/heap.h"
#include "gcheap/builder.h"

#include "gcheap/alloc.h"
#include "search.h"

static const char *const root_kind_names[GCH_ROOT_KIND_COUNT] = {
    "internal", "local", "finalizer", "handle", "static", "runtime"
};

const char *gch_root_kind_name(unsigned kind)
{
    return kind < GCH_ROOT_KIND_COUNT ? root_kind_names[kind] : "unknown";
}

void gch_heap_free_types(gch_heap *h)
{
    gch_free(h->type_name);
    gch_free(h->type_module);
    gch_free(h->type_raw_id);
    gch_free(h->type_declared);
    gch_free(h->type_objects);
    gch_free(h->type_bytes);
}

static void heap_free(gch_heap *h)
{
    if (!h)
        return;
    if (!(h->borrowed & GCH_BORROWED_REVERSE)) {
        gch_free(h->in_start);
        gch_free(h->in_source);
    }
    if (h->borrowed & GCH_BORROWED_MODEL) {
        gch_free(h->meta); /* its strings are borrowed */
        gch_free(h);
        return;
    }
    gch_free(h->name);
    for (size_t i = 0; i < h->meta_count; i++) {
        gch_free(h->meta[i].key);
        gch_free(h->meta[i].value);
    }
    gch_free(h->meta);
    gch_free(h->strings);
    gch_heap_free_types(h);
    gch_free(h->object_id);
    gch_free(h->object_type);
    gch_free(h->object_size32);
    gch_free(h->big_size_object);
    gch_free(h->big_size_value);
    gch_free(h->out_start);
    gch_free(h->out_target);
    gch_free(h->out_label);
    gch_free(h->root_raw_id);
    gch_free(h->root_object);
    gch_free(h->root_kind);
    gch_free(h->root_flags);
    gch_free(h->root_container);
    gch_free(h->root_container_raw);
    gch_free(h->root_has_container);
    gch_free(h->root_label);
    gch_free(h->payloads);
    gch_free(h->object_site);
    gch_free(h->v8_distance);
    gch_free(h->v8_pseudo);
    gch_free(h->v8_detachedness);
    gch_free(h->fields);
    gch_free(h->type_fields);
    gch_free(h->field_names);
    gch_free(h);
}

uint64_t gch_heap_big_size(const gch_heap *heap, uint32_t o)
{
    size_t a = GCH_LOWER_BOUND(heap->big_size_object, 0, heap->big_size_count, o);
    /* Every GCH_SIZE_BIG slot has its entry (the builder keeps them in step). */
    return a < heap->big_size_count && heap->big_size_object[a] == o ? heap->big_size_value[a]
                                                                      : GCH_SIZE_BIG;
}

/* Shared with the builder, which frees heaps it could not finish. */
void gch_heap_free_internal(gch_heap *h);
void gch_heap_free_internal(gch_heap *h) { heap_free(h); }

void gch_dump_free(gch_dump *dump)
{
    if (!dump)
        return;
    for (size_t i = 0; i < dump->heap_count; i++)
        heap_free(dump->heaps[i]);
    gch_free(dump->heaps);
    if (dump->release)
        dump->release(dump->release_ctx);
    gch_free(dump);
}

const char *gch_heap_string(const gch_heap *heap, uint32_t off)
{
    if (off == GCH_NONE || !heap->strings || off >= heap->strings_size)
        return "";
    return heap->strings + off;
}

const char *gch_type_name(const gch_heap *heap, uint32_t t)
{
    if (t >= heap->type_count)
        return "";
    return gch_heap_string(heap, heap->type_name[t]);
}

gch_status gch_heap_build_reverse(gch_heap *heap, gch_error *err)
{
    if (heap->in_start)
        return GCH_OK;
    uint32_t n = heap->object_count;
    uint32_t *start = gch_calloc((size_t)n + 1, sizeof *start);
    uint32_t *source = gch_reallocarray(NULL, heap->ref_count ? heap->ref_count : 1, sizeof *source);
    if (!start || !source) {
        gch_free(start);
        gch_free(source);
        return gch_error_set(err, GCH_ENOMEM, "out of memory building reverse references");
    }
    /* Counting sort by target: count, prefix-sum into start[t+1], then place. */
    for (uint64_t e = 0; e < heap->ref_count; e++)
        start[heap->out_target[e] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t e = heap->out_start[i]; e < heap->out_start[i + 1]; e++)
            source[start[heap->out_target[e]]++] = i;
    }
    /* start[t] now holds the end of t's range; shift back by one slot. */
    for (uint32_t i = n; i > 0; i--)
        start[i] = start[i - 1];
    start[0] = 0;
    heap->in_start = start;
    heap->in_source = source;
    return GCH_OK;
}

uint32_t gch_heap_find_object(const gch_heap *heap, uint64_t id)
{
    for (uint32_t i = 0; i < heap->object_count; i++)
        if (heap->object_id[i] == id)
            return i;
    return GCH_NONE;
}

const gch_payload *gch_heap_payload(const gch_heap *heap, uint64_t id)
{
    size_t lo = GCH_LOWER_BOUND_BY(heap->payloads, gch_payload, id, 0, heap->payload_count, id);
    return lo < heap->payload_count && heap->payloads[lo].id == id ? &heap->payloads[lo] : NULL;
}

unsigned gch_elem_size(unsigned elem)
{
    switch (elem) {
    case GCH_ELEM_BOOLEAN: case GCH_ELEM_BYTE: return 1;
    case GCH_ELEM_CHAR: case GCH_ELEM_SHORT: return 2;
    case GCH_ELEM_FLOAT: case GCH_ELEM_INT: return 4;
    case GCH_ELEM_DOUBLE: case GCH_ELEM_LONG: return 8;
    default: return 0;
    }
}

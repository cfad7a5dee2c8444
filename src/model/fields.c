/* Instance fields read back from the dump (gcheap/heap.h, "Instance
 * fields"): the heap keeps each type's field layout and where each kept
 * instance's field bytes lie; a value is read from the file on demand, so
 * loading copies no field value. */
#include <string.h>

#include "gcheap/heap.h"

const gch_field *gch_type_field(const gch_heap *heap, uint32_t t, const char *name)
{
    if (!heap->type_fields || t >= heap->type_count)
        return NULL;
    for (uint32_t i = heap->type_fields[t]; i < heap->type_fields[t + 1]; i++)
        if (strcmp(heap->fields[i].name, name) == 0)
            return &heap->fields[i];
    return NULL;
}

int gch_field_read(const gch_payload *p, const gch_field *f, gch_read_at_fn read, void *ctx,
                   gch_value *out)
{
    if (!p || p->kind != GCH_PAYLOAD_INSTANCE || f->size == 0 || f->size > 8 ||
        (uint64_t)f->offset + f->size > p->length)
        return 0;
    unsigned char b[8];
    if (read(ctx, p->offset + f->offset, b, f->size) != 0)
        return -1;
    uint64_t v = 0;
    for (unsigned i = 0; i < f->size; i++) /* big-endian, as HPROF writes values */
        v = v << 8 | b[i];
    out->type = f->type;
    out->bits = v;
    return 1;
}

int gch_instance_field(const gch_heap *heap, uint32_t o, const char *name, gch_read_at_fn read,
                       void *ctx, gch_value *out)
{
    if (o >= heap->object_count)
        return 0;
    const gch_field *f = gch_type_field(heap, heap->object_type[o], name);
    if (!f)
        return 0;
    return gch_field_read(gch_heap_payload(heap, heap->object_id[o]), f, read, ctx, out);
}

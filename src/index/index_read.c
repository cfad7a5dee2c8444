/* Reading an index: the header and table of contents when opened, each chunk
 * (checksum, then every value in bounds) on its first use, and a dump whose
 * arrays point into the index's memory (docs/index-format.md). */
#include <stddef.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/index.h"
#include "index_format.h"
#include "index_internal.h"
#include "index_read.h"

static gch_status bad(gch_error *err, uint64_t offset, const char *what)
{
    return gch_error_at(err, offset, "index: %s", what);
}

int gch_index_is_index(const void *data, size_t n)
{
    return n >= 8 && memcmp(data, GCX_MAGIC, 8) == 0;
}

static gch_status check_header(const unsigned char *p, size_t size, gcx_header *hd, gch_error *err)
{
    if (!gch_index_is_index(p, size))
        return bad(err, 0, "no index signature");
    if (size < GCX_HEADER_SIZE)
        return bad(err, size, "truncated header");
    memcpy(hd, p, sizeof *hd);
    if (hd->bom != GCX_BOM)
        return bad(err, 12, hd->bom == 0x04030201u ? "written on a machine of the other byte order"
                                                  : "bad byte-order mark");
    if (hd->version != GCH_INDEX_VERSION)
        return gch_error_at(err, 8, "index: version %u (this gcheap reads version %u): build it "
                            "again with 'gcheap index'", hd->version, GCH_INDEX_VERSION);
    if (gch_index_hash(p, offsetof(gcx_header, header_checksum)) != hd->header_checksum)
        return bad(err, 56, "header checksum mismatch");
    if (hd->file_size != size)
        return gch_error_at(err, size < hd->file_size ? size : hd->file_size,
                            "index: the header says %llu bytes, the file has %llu (truncated?)",
                            (unsigned long long)hd->file_size, (unsigned long long)size);
    if (hd->toc_offset % 8 || hd->toc_offset < GCX_HEADER_SIZE || hd->toc_offset > size ||
        hd->chunk_count > (size - hd->toc_offset) / GCX_TOC_ENTRY_SIZE)
        return bad(err, 24, "table of contents outside the file");
    if (gch_index_hash(p + hd->toc_offset, (size_t)hd->chunk_count * GCX_TOC_ENTRY_SIZE) !=
        hd->toc_checksum)
        return bad(err, hd->toc_offset, "table of contents checksum mismatch");
    return GCH_OK;
}

/* Every chunk lies inside the file, aligned, with a known element size. */
static gch_status check_toc(const gch_index *ix, gch_error *err)
{
    for (size_t i = 0; i < ix->chunk_count; i++) {
        const gcx_toc *t = &ix->toc[i];
        uint64_t at = ix->toc_offset + i * GCX_TOC_ENTRY_SIZE;
        if (t->elem_size == 0 || t->elem_size > 4096)
            return bad(err, at, "bad element size");
        if (t->offset % 8 || t->offset > ix->size ||
            t->count > (ix->size - t->offset) / t->elem_size)
            return bad(err, at, "chunk outside the file");
        if (t->heap != GCX_NO_HEAP && t->heap >= ix->heap_count)
            return bad(err, at, "chunk of a section the index does not have");
    }
    return GCH_OK;
}

/* The dump's record: checked whole when the index is opened. */
static gch_status read_dump_rec(gch_index *ix, gch_error *err)
{
    for (size_t i = 0; i < ix->chunk_count; i++) {
        const gcx_toc *t = &ix->toc[i];
        if (t->tag != GCX_DUMP || t->heap != GCX_NO_HEAP)
            continue;
        /* Read before check_toc: its bounds are checked here. */
        if (t->elem_size != 1 || t->offset > ix->size || t->count > ix->size - t->offset)
            return bad(err, t->offset, "dump record outside the file");
        const unsigned char *p = ix->data + t->offset;
        if (t->count < sizeof(gcx_dump_rec) + 1 || p[t->count - 1] != 0)
            return bad(err, t->offset, "malformed dump record");
        if (gch_index_hash(p, (size_t)t->count) != t->checksum)
            return bad(err, t->offset, "dump record checksum mismatch");
        memcpy(&ix->rec, p, sizeof ix->rec);
        if (!memchr(ix->rec.format, 0, sizeof ix->rec.format) ||
            !memchr(ix->rec.compression, 0, sizeof ix->rec.compression) ||
            !gch_index_static_name(ix->rec.format)[0])
            return bad(err, t->offset, "malformed dump record");
        /* Every section has at least its record chunk. */
        if (ix->rec.heap_count > ix->chunk_count)
            return bad(err, t->offset, "more sections than chunks");
        if (ix->rec.heap_count == 0) /* every reader gives at least one section */
            return bad(err, t->offset, "no sections");
        ix->heap_count = ix->rec.heap_count;
        ix->dump_name = (const char *)p + sizeof(gcx_dump_rec);
        ix->stamp.dump_size = ix->rec.dump_size;
        ix->stamp.mtime_sec = ix->rec.mtime_sec;
        ix->stamp.mtime_nsec = ix->rec.mtime_nsec;
        ix->stamp.head_hash = ix->rec.head_hash;
        ix->stamp.tail_hash = ix->rec.tail_hash;
        ix->stamp.options = ix->rec.options;
        return GCH_OK;
    }
    return bad(err, ix->toc_offset, "no dump record");
}

/* The chunks of each section, found without a scan of the whole table. */
static gch_status index_heaps(gch_index *ix, gch_error *err)
{
    ix->heap_first = gch_calloc((size_t)ix->heap_count + 1, sizeof *ix->heap_first);
    ix->by_heap = gch_calloc(ix->chunk_count ? ix->chunk_count : 1, sizeof *ix->by_heap);
    ix->checked = gch_calloc(ix->chunk_count ? ix->chunk_count : 1, 1);
    if (!ix->heap_first || !ix->by_heap || !ix->checked)
        return gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
    for (size_t i = 0; i < ix->chunk_count; i++)
        if (ix->toc[i].heap != GCX_NO_HEAP)
            ix->heap_first[ix->toc[i].heap + 1]++;
    for (uint32_t h = 0; h < ix->heap_count; h++)
        ix->heap_first[h + 1] += ix->heap_first[h];
    uint32_t *fill = gch_calloc((size_t)ix->heap_count + 1, sizeof *fill);
    if (!fill)
        return gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
    memcpy(fill, ix->heap_first, ((size_t)ix->heap_count + 1) * sizeof *fill);
    for (size_t i = 0; i < ix->chunk_count; i++)
        if (ix->toc[i].heap != GCX_NO_HEAP)
            ix->by_heap[fill[ix->toc[i].heap]++] = (uint32_t)i;
    gch_free(fill);
    return GCH_OK;
}

gch_status gch_index_open(const void *data, size_t size, gch_index **out, gch_error *err)
{
    *out = NULL;
    gcx_header hd;
    gch_status st = check_header(data, size, &hd, err);
    if (st != GCH_OK)
        return st;
    gch_index *ix = gch_calloc(1, sizeof *ix);
    if (!ix)
        return gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
    ix->data = data;
    ix->size = size;
    ix->toc_offset = hd.toc_offset;
    ix->chunk_count = hd.chunk_count;
    ix->toc = (const gcx_toc *)(ix->data + hd.toc_offset);
    ix->heap_count = 0;
    ix->threads = 1;
    st = read_dump_rec(ix, err);
    if (st == GCH_OK)
        st = check_toc(ix, err);
    if (st == GCH_OK)
        st = index_heaps(ix, err);
    if (st != GCH_OK) {
        gch_index_close(ix);
        return st;
    }
    *out = ix;
    return GCH_OK;
}

void gch_index_close(gch_index *ix)
{
    if (!ix)
        return;
    gch_free(ix->heap_first);
    gch_free(ix->by_heap);
    gch_free(ix->checked);
    gch_free(ix);
}

void gch_index_set_threads(gch_index *ix, unsigned threads) { ix->threads = threads; }

const gch_index_stamp *gch_index_stamp_of(const gch_index *ix) { return &ix->stamp; }
const char *gch_index_dump_name(const gch_index *ix) { return ix->dump_name; }
size_t gch_index_chunk_count(const gch_index *ix) { return ix->chunk_count; }

static void tag_text(uint32_t tag, char out[5])
{
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)(tag >> (8 * i));
        out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    out[4] = '\0';
}

gch_status gcx_chunk(gch_index *ix, uint32_t heap, uint32_t tag, unsigned view, uint32_t elem,
                     uint64_t count, int required, const void **out, uint32_t *pos,
                     gch_error *err)
{
    return gcx_find(ix, heap, tag, view, elem, count, required, 1, out, pos, err);
}

gch_status gcx_find(gch_index *ix, uint32_t heap, uint32_t tag, unsigned view, uint32_t elem,
                    uint64_t count, int required, int sum, const void **out, uint32_t *pos,
                    gch_error *err)
{
    *out = NULL;
    char name[5];
    tag_text(tag, name);
    for (uint32_t k = ix->heap_first[heap]; k < ix->heap_first[heap + 1]; k++) {
        uint32_t i = ix->by_heap[k];
        const gcx_toc *t = &ix->toc[i];
        if (t->tag != tag || t->view != view)
            continue;
        if (t->elem_size != elem || (count != UINT64_MAX && t->count != count))
            return gch_error_at(err, t->offset, "index: chunk %s of section %u: %llu elements of "
                                "%u bytes where %llu of %u were expected", name, heap,
                                (unsigned long long)t->count, t->elem_size,
                                (unsigned long long)count, elem);
        const unsigned char *p = ix->data + t->offset;
        if (sum && !(ix->checked[i] & GCX_SUMMED)) {
            if (gch_index_hash(p, (size_t)(t->count * t->elem_size)) != t->checksum)
                return gch_error_at(err, t->offset, "index: chunk %s of section %u: checksum "
                                    "mismatch", name, heap);
            ix->checked[i] |= 1;
        }
        *out = p;
        if (pos)
            *pos = i;
        return GCH_OK;
    }
    if (required)
        return gch_error_at(err, ix->toc_offset, "index: section %u has no chunk %s", heap, name);
    return GCH_OK;
}

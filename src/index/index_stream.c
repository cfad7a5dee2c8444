/* The index's output as a stream (index_stream.h): the adding thread appends
 * entries to a list under a mutex and signals; the writer takes them in
 * list order, writes each chunk's bytes (64-aligned) and checksums them as
 * it goes, a piece at a time while the piece is in the cache, and records
 * the offset and checksum in the entry. The offsets depend only on the
 * order and sizes of the chunks, never on timing: the file is the same
 * with or without the thread. The writer waits on a condition variable
 * when it has caught up (no busy waiting). */
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "index_format.h"
#include "index_read.h"
#include "index_stream.h"
#include "threading.h"

/* Bytes hashed, then written, at a time: a piece stays in the cache between
 * the two (a multiple of the hash's 32-byte stripe). */
#define PIECE (256u * 1024u)

typedef struct entry {
    gcx_toc toc;           /* offset and checksum: set by the writer */
    const void *data;
    size_t alias;          /* + 1: the earlier entry whose bytes this one names */
    int filled;            /* 0: a place reserved, not yet filled */
    void *owned;           /* the stream's to free once written (gcx_stream_give) */
} entry;

struct gcx_stream {
    gch_index_io io;
    gch_mutex m;
    gch_cond c;
    gch_thread thread;
    int threaded;          /* a writer thread runs */
    /* Under m: */
    entry *e;
    size_t count, cap;
    size_t written;        /* entries done, in order */
    int done, stop;        /* no more entries; give up */
    int busy;              /* without a thread: someone is writing */
    gch_status st;         /* the first failure */
    /* The writer's own (the adding thread's after the join): */
    uint64_t at;           /* bytes written so far (or that would be, when dry) */
    int dry;               /* no write_at: checksums only, the bytes at the end */
};

static uint64_t align_up(uint64_t v) { return (v + GCX_ALIGN - 1) / GCX_ALIGN * GCX_ALIGN; }

static int put(gcx_stream *s, const void *p, size_t n)
{
    if (n && !s->dry && s->io.write(s->io.ctx, p, n) != 0)
        return 0;
    s->at += n;
    return 1;
}

/* Zeros up to offset to (at most GCX_ALIGN of them, or the header's). */
static int pad(gcx_stream *s, uint64_t to)
{
    static const unsigned char zeros[GCX_ALIGN > GCX_HEADER_SIZE ? GCX_ALIGN : GCX_HEADER_SIZE];
    return put(s, zeros, (size_t)(to - s->at));
}

/* Writes entry x's bytes at the next aligned offset (the header's place
 * first, when nothing was written yet), hashing them as it goes: its offset
 * and checksum go into x. */
static gch_status write_entry(gcx_stream *s, entry *x)
{
    static const unsigned char none[1];
    if (s->at == 0 && !pad(s, GCX_HEADER_SIZE))
        return GCH_EIO;
    if (!pad(s, align_up(s->at)))
        return GCH_EIO;
    size_t bytes = (size_t)(x->toc.count * x->toc.elem_size);
    const unsigned char *p = bytes ? x->data : none;
    x->toc.offset = s->at;
    gcx_hash h;
    gcx_hash_begin(&h);
    for (size_t off = 0; off < bytes; off += PIECE) {
        size_t n = bytes - off < PIECE ? bytes - off : PIECE;
        gcx_hash_stripes(&h, p + off, n / 32 * 32);
        if (!put(s, p + off, n))
            return GCH_EIO;
    }
    x->toc.checksum = gcx_hash_end(&h, p + bytes / 32 * 32, bytes % 32);
    return GCH_OK;
}

/* Entry k, under m: an alias takes its target's place at once; a chunk is
 * written with m released (the adder may add meanwhile). */
static gch_status take(gcx_stream *s, size_t k)
{
    entry x = s->e[k];
    gch_status st = GCH_OK;
    if (x.alias) {
        x.toc.offset = s->e[x.alias - 1].toc.offset;
        x.toc.checksum = s->e[x.alias - 1].toc.checksum;
    } else {
        gch_mutex_unlock(&s->m);
        st = write_entry(s, &x);
        gch_mutex_lock(&s->m);
    }
    s->e[k].toc = x.toc;
    if (st == GCH_OK && !s->dry) { /* its bytes are in the file: a buffer of its own goes */
        gch_free(s->e[k].owned);
        s->e[k].owned = NULL;
    }
    if (st == GCH_OK)
        s->written = k + 1;
    else if (s->st == GCH_OK)
        s->st = st;
    return st;
}

/* Whether entry `written` can be written now (under m). */
static int next_ready(const gcx_stream *s)
{
    return s->written < s->count && s->e[s->written].filled;
}

static int writer_main(void *arg)
{
    gcx_stream *s = arg;
    gch_mutex_lock(&s->m);
    for (;;) {
        while (!next_ready(s) && !s->done && !s->stop)
            gch_cond_wait(&s->c, &s->m);
        if (s->stop || !next_ready(s) || take(s, s->written) != GCH_OK)
            break;
    }
    gch_mutex_unlock(&s->m);
    return 0;
}

/* Without a thread, under m: the thread that filled a place writes what is
 * ready, unless another is writing already (it will go on to this one). */
static void pump(gcx_stream *s)
{
    if (s->threaded) {
        gch_cond_broadcast(&s->c);
        return;
    }
    if (s->busy)
        return;
    s->busy = 1;
    while (s->st == GCH_OK && next_ready(s) && take(s, s->written) == GCH_OK)
        ;
    s->busy = 0;
}

gcx_stream *gcx_stream_new(const gch_index_io *io, unsigned workers, int threaded)
{
    gcx_stream *s = gch_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->io = *io;
    s->dry = !io->write_at;
    if (!gch_mutex_init(&s->m)) {
        gch_free(s);
        return NULL;
    }
    if (!gch_cond_init(&s->c)) {
        gch_mutex_destroy(&s->m);
        gch_free(s);
        return NULL;
    }
    s->threaded = threaded && gch_thread_start(&s->thread, workers, writer_main, s);
    return s;
}

size_t gcx_stream_reserve(gcx_stream *s, size_t n)
{
    gch_mutex_lock(&s->m);
    size_t first = s->count;
    if (s->st == GCH_OK &&
        !gch_grow((void **)&s->e, &s->cap, s->count + n, sizeof *s->e, 64))
        s->st = GCH_ENOMEM;
    if (s->st == GCH_OK) {
        memset(s->e + s->count, 0, n * sizeof *s->e);
        s->count += n;
    }
    gch_mutex_unlock(&s->m);
    return first;
}

int gcx_stream_fill(gcx_stream *s, size_t k, uint32_t tag, uint16_t heap, uint16_t view,
                    uint32_t elem, const void *data, uint64_t count, size_t alias)
{
    gch_mutex_lock(&s->m);
    if (s->st == GCH_OK && k < s->count && !s->e[k].filled) {
        entry *x = &s->e[k];
        x->toc.tag = tag;
        x->toc.heap = heap;
        x->toc.view = view;
        x->toc.elem_size = elem;
        x->toc.count = count;
        x->data = count ? data : NULL;
        x->alias = alias;
        x->filled = 1;
        pump(s);
    }
    int ok = s->st == GCH_OK;
    gch_mutex_unlock(&s->m);
    return ok;
}

void gcx_stream_give(gcx_stream *s, size_t k, void *buf)
{
    gch_mutex_lock(&s->m);
    if (k < s->count && !s->e[k].owned && (s->written <= k || s->dry)) {
        s->e[k].owned = buf;
        buf = NULL;
    }
    gch_mutex_unlock(&s->m);
    gch_free(buf); /* written already (or no such place) */
}

int gcx_stream_add(gcx_stream *s, uint32_t tag, uint16_t heap, uint16_t view, uint32_t elem,
                   const void *data, uint64_t count, size_t alias)
{
    size_t k = gcx_stream_reserve(s, 1);
    return gcx_stream_fill(s, k, tag, heap, view, elem, data, count, alias);
}

void gcx_stream_chunk(gcx_stream *s, size_t k, uint32_t *tag, uint32_t *elem, uint64_t *count,
                      const void **data)
{
    gch_mutex_lock(&s->m);
    *tag = s->e[k].toc.tag;
    *elem = s->e[k].toc.elem_size;
    *count = s->e[k].toc.count;
    *data = s->e[k].data;
    gch_mutex_unlock(&s->m);
}

gch_status gcx_stream_status(gcx_stream *s)
{
    gch_mutex_lock(&s->m);
    gch_status st = s->st;
    gch_mutex_unlock(&s->m);
    return st;
}

/* Stops (or lets finish) the writer and waits for it. */
static void join(gcx_stream *s, int stop)
{
    gch_mutex_lock(&s->m);
    s->done = 1;
    s->stop = stop;
    gch_cond_broadcast(&s->c);
    gch_mutex_unlock(&s->m);
    if (s->threaded)
        gch_thread_join(&s->thread);
}

static void stream_free(gcx_stream *s)
{
    for (size_t i = 0; i < s->count; i++)
        gch_free(s->e[i].owned);
    gch_cond_destroy(&s->c);
    gch_mutex_destroy(&s->m);
    gch_free(s->e);
    gch_free(s);
}

/* The chunks' bytes again, in order, behind the header (dry: nothing was
 * written yet); the same bytes as the streamed file's. */
static int write_all(gcx_stream *s, const gcx_header *hd)
{
    s->dry = 0;
    s->at = 0;
    int ok = put(s, hd, sizeof *hd);
    for (size_t i = 0; ok && i < s->count; i++) {
        const entry *x = &s->e[i];
        if (!x->alias)
            ok = pad(s, x->toc.offset) &&
                 put(s, x->data, (size_t)(x->toc.count * x->toc.elem_size));
    }
    return ok && pad(s, hd->toc_offset);
}

/* The table of contents after the last chunk, then the header at 0 (or,
 * dry, the whole file now). */
static gch_status write_tail(gcx_stream *s)
{
    size_t toc_bytes = s->count * sizeof(gcx_toc);
    gcx_toc *toc = gch_calloc(s->count ? s->count : 1, sizeof *toc);
    if (!toc)
        return GCH_ENOMEM;
    for (size_t i = 0; i < s->count; i++)
        toc[i] = s->e[i].toc;
    gcx_header hd;
    memset(&hd, 0, sizeof hd);
    memcpy(hd.magic, GCX_MAGIC, 8);
    hd.version = GCH_INDEX_VERSION;
    hd.bom = GCX_BOM;
    hd.toc_offset = align_up(s->at > GCX_HEADER_SIZE ? s->at : GCX_HEADER_SIZE);
    hd.file_size = hd.toc_offset + toc_bytes;
    hd.chunk_count = (uint32_t)s->count;
    hd.toc_checksum = gch_index_hash(toc, toc_bytes);
    hd.header_checksum = gch_index_hash(&hd, offsetof(gcx_header, header_checksum));
    int ok;
    if (s->dry)
        ok = write_all(s, &hd) && put(s, toc, toc_bytes);
    else
        ok = (s->at > 0 || pad(s, GCX_HEADER_SIZE)) && pad(s, hd.toc_offset) &&
             put(s, toc, toc_bytes) && s->io.write_at(s->io.ctx, 0, &hd, sizeof hd) == 0;
    gch_free(toc);
    return ok ? GCH_OK : GCH_EIO;
}

gch_status gcx_stream_finish(gcx_stream *s, gch_error *err)
{
    join(s, 0);
    gch_status st = s->st;
    if (st == GCH_OK && s->written != s->count) /* a place never filled: the adder's error */
        st = GCH_EINVAL;
    if (st == GCH_OK)
        st = write_tail(s);
    stream_free(s);
    if (st == GCH_EIO)
        return gch_error_set(err, GCH_EIO, "write failed");
    if (st == GCH_EINVAL)
        return gch_error_set(err, st, "index: a chunk was never handed over");
    if (st != GCH_OK)
        return gch_error_set(err, st, "out of memory writing the index");
    return GCH_OK;
}

void gcx_stream_abort(gcx_stream *s)
{
    join(s, 1);
    stream_free(s);
}

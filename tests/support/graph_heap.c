/* Test helpers for the graph algorithms: see graph_heap.h. */
#include "graph_heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"

static void *must(void *p)
{
    if (!p) {
        fprintf(stderr, "test helper: out of memory\n");
        abort();
    }
    return p;
}

gch_dump *th_dump_new(uint32_t n, uint32_t types, uint32_t roots, uint64_t refs)
{
    gch_dump *d = must(gch_calloc(1, sizeof *d));
    d->format = "test";
    d->heaps = must(gch_calloc(1, sizeof *d->heaps));
    d->heap_count = 1;
    gch_heap *h = must(gch_calloc(1, sizeof *h));
    d->heaps[0] = h;
    h->name = must(gch_strndup("test", 4));
    h->id_radix = 16;
    h->refs_loaded = 1;

    h->strings_size = (size_t)types * 12 + 1;
    h->strings = must(gch_calloc(h->strings_size, 1));
    h->type_count = types;
    h->type_name = must(gch_calloc(types ? types : 1, sizeof *h->type_name));
    h->type_module = must(gch_calloc(types ? types : 1, sizeof *h->type_module));
    h->type_raw_id = must(gch_calloc(types ? types : 1, sizeof *h->type_raw_id));
    h->type_declared = must(gch_calloc(types ? types : 1, 1));
    size_t off = 1;
    for (uint32_t t = 0; t < types; t++) {
        h->type_name[t] = (uint32_t)off;
        off += (size_t)sprintf(h->strings + off, "T%u", (unsigned)t) + 1;
        h->type_module[t] = GCH_NONE;
        h->type_raw_id[t] = t + 1;
        h->type_declared[t] = 1;
    }

    h->object_count = n;
    h->object_id = must(gch_malloc(((size_t)n ? n : 1) * sizeof *h->object_id));
    h->object_type = must(gch_calloc(n ? n : 1, sizeof *h->object_type));
    h->object_size32 = must(gch_calloc(n ? n : 1, sizeof *h->object_size32));
    for (uint32_t i = 0; i < n; i++)
        h->object_id[i] = (uint64_t)i + 1;
    h->out_start = must(gch_calloc((size_t)n + 1, sizeof *h->out_start));
    h->out_target = must(gch_calloc(refs ? refs : 1, sizeof *h->out_target));
    h->ref_count = refs;

    h->root_count = roots;
    size_t rc = roots ? roots : 1;
    h->root_raw_id = must(gch_calloc(rc, sizeof *h->root_raw_id));
    h->root_object = must(gch_malloc(rc * sizeof *h->root_object));
    h->root_kind = must(gch_calloc(rc, 1));
    h->root_flags = must(gch_calloc(rc, 1));
    h->root_container = must(gch_malloc(rc * sizeof *h->root_container));
    h->root_container_raw = must(gch_calloc(rc, sizeof *h->root_container_raw));
    h->root_has_container = must(gch_calloc(rc, 1));
    h->root_label = must(gch_malloc(rc * sizeof *h->root_label));
    for (uint32_t r = 0; r < rc; r++)
        h->root_object[r] = h->root_container[r] = h->root_label[r] = GCH_NONE;
    return d;
}

void th_set_size(gch_heap *h, uint32_t i, uint64_t size)
{
    uint32_t k = 0, count = h->big_size_count;
    while (k < count && h->big_size_object[k] < i)
        k++;
    int has = k < count && h->big_size_object[k] == i;
    h->object_size32[i] = size < GCH_SIZE_BIG ? (uint32_t)size : GCH_SIZE_BIG;
    if (size < GCH_SIZE_BIG) {
        if (has) { /* no longer big: drop its entry */
            memmove(h->big_size_object + k, h->big_size_object + k + 1,
                    (count - k - 1) * sizeof *h->big_size_object);
            memmove(h->big_size_value + k, h->big_size_value + k + 1,
                    (count - k - 1) * sizeof *h->big_size_value);
            h->big_size_count--;
        }
        return;
    }
    if (!has) {
        h->big_size_object = must(gch_reallocarray(h->big_size_object, (size_t)count + 1,
                                                   sizeof *h->big_size_object));
        h->big_size_value = must(gch_reallocarray(h->big_size_value, (size_t)count + 1,
                                                  sizeof *h->big_size_value));
        memmove(h->big_size_object + k + 1, h->big_size_object + k,
                (count - k) * sizeof *h->big_size_object);
        memmove(h->big_size_value + k + 1, h->big_size_value + k,
                (count - k) * sizeof *h->big_size_value);
        h->big_size_object[k] = i;
        h->big_size_count++;
    }
    h->big_size_value[k] = size;
}

void th_set_edges(gch_heap *h, const uint32_t *src, const uint32_t *dst, size_t m)
{
    uint32_t n = h->object_count;
    gch_free(h->out_target);
    h->out_target = must(gch_malloc((m ? m : 1) * sizeof *h->out_target));
    h->ref_count = m;
    memset(h->out_start, 0, ((size_t)n + 1) * sizeof *h->out_start);
    for (size_t k = 0; k < m; k++)
        h->out_start[src[k] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        h->out_start[i + 1] += h->out_start[i];
    uint32_t *fill = must(calloc((size_t)n + 1, sizeof *fill));
    for (size_t k = 0; k < m; k++)
        h->out_target[h->out_start[src[k]] + fill[src[k]]++] = dst[k];
    free(fill);
}

/* ------------------------------------------------------------------------ */

/* Each block is preceded by a 16-byte header holding its size. */
static long fail_at_ = -1, calls_;
static size_t live_blocks_, live_bytes_, peak_bytes_;

static void *cnt_malloc(void *ctx, size_t size)
{
    (void)ctx;
    if (calls_++ == fail_at_)
        return NULL;
    unsigned char *p = malloc(size + 16);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    live_blocks_++;
    live_bytes_ += size;
    if (live_bytes_ > peak_bytes_)
        peak_bytes_ = live_bytes_;
    return p + 16;
}

static void *cnt_realloc(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    if (calls_++ == fail_at_)
        return NULL;
    unsigned char *old = (unsigned char *)ptr - 16;
    size_t old_size;
    memcpy(&old_size, old, sizeof old_size);
    unsigned char *p = realloc(old, size + 16);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    live_bytes_ = live_bytes_ - old_size + size;
    if (live_bytes_ > peak_bytes_)
        peak_bytes_ = live_bytes_;
    return p + 16;
}

static void cnt_free(void *ctx, void *ptr)
{
    (void)ctx;
    unsigned char *p = (unsigned char *)ptr - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    live_blocks_--;
    live_bytes_ -= size;
    free(p);
}

void th_alloc_install(long fail_at)
{
    static const gch_allocator a = { cnt_malloc, cnt_realloc, cnt_free, NULL, NULL };
    fail_at_ = fail_at;
    calls_ = 0;
    live_blocks_ = live_bytes_ = peak_bytes_ = 0;
    gch_set_allocator(&a);
}

void th_alloc_uninstall(void) { gch_set_allocator(NULL); }
long th_alloc_calls(void) { return calls_; }
size_t th_alloc_live_blocks(void) { return live_blocks_; }
size_t th_alloc_live_bytes(void) { return live_bytes_; }
size_t th_alloc_peak_bytes(void) { return peak_bytes_; }
void th_alloc_reset_peak(void) { peak_bytes_ = live_bytes_; }

uint64_t th_rand(th_rng *r)
{
    uint64_t x = r->s ? r->s : 0x9e3779b97f4a7c15ULL;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545f4914f6cdd53ULL;
}

uint32_t th_below(th_rng *r, uint32_t bound)
{
    return bound ? (uint32_t)((th_rand(r) >> 32) % bound) : 0;
}

gch_dump *th_random_dump(th_rng *r, uint32_t max_n)
{
    uint32_t n = 1 + th_below(r, max_n);
    uint32_t types = 1 + th_below(r, 4);
    uint32_t roots = th_below(r, 7);
    gch_dump *d = th_dump_new(n, types, roots, 0);
    gch_heap *h = d->heaps[0];
    for (uint32_t i = 0; i < n; i++) {
        h->object_type[i] = th_below(r, types);
        h->object_size32[i] = th_below(r, 100);
        h->total_size += gch_object_size(h, i);
    }
    /* Edge density varies: sparse graphs have interesting dominators. */
    size_t m = th_below(r, 3 * n + 1);
    if (th_below(r, 3) == 0)
        m = th_below(r, n + 1);
    uint32_t *src = must(malloc((m ? m : 1) * sizeof *src));
    uint32_t *dst = must(malloc((m ? m : 1) * sizeof *dst));
    for (size_t k = 0; k < m; k++) {
        src[k] = th_below(r, n);
        /* Bias towards forward edges (tree-ish shapes), with back edges too. */
        if (th_below(r, 4) && src[k] + 1 < n)
            dst[k] = src[k] + 1 + th_below(r, n - src[k] - 1 < 4 ? n - src[k] - 1 : 4);
        else
            dst[k] = th_below(r, n);
    }
    th_set_edges(h, src, dst, m);
    free(src);
    free(dst);
    for (uint32_t k = 0; k < roots; k++) {
        uint32_t pick = th_below(r, 10);
        if (pick == 0)
            h->root_object[k] = GCH_NONE;
        else if (pick == 1 && k > 0)
            h->root_object[k] = h->root_object[k - 1]; /* duplicate */
        else
            h->root_object[k] = th_below(r, n);
        h->root_raw_id[k] = h->root_object[k] == GCH_NONE ? 0xdead : h->root_object[k] + 1ULL;
        h->anomalies.dangling_roots += h->root_object[k] == GCH_NONE; /* as a reader counts them */
        h->root_kind[k] = (uint8_t)th_below(r, GCH_ROOT_KIND_COUNT);
        h->root_flags[k] = (uint8_t)(th_below(r, 4) == 0 ? GCH_ROOT_WEAK : 0);
        if (th_below(r, 5) == 0)
            h->root_flags[k] |= GCH_ROOT_PINNED;
    }
    return d;
}

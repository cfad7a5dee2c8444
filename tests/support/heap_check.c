/* Invariant checks: see heap_check.h. Scratch memory comes from the C library
 * (not gch_malloc) so that allocation-failure tests only fail library calls. */
#include "heap_check.h"

#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/histogram.h"

#define CHECK(cond, what) \
    do {                  \
        if (!(cond))      \
            return what;  \
    } while (0)

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

static int string_ok(const gch_heap *h, uint32_t off)
{
    if (off == GCH_NONE)
        return 1;
    return h->strings && off < h->strings_size &&
           memchr(h->strings + off, '\0', h->strings_size - off) != NULL;
}

const char *heap_check_structure(const gch_heap *h)
{
    CHECK(h->name, "heap without a name");
    CHECK(h->out_start, "out_start is NULL");
    CHECK(h->object_count == 0 || (h->object_id && h->object_type && h->object_size32),
          "object arrays missing");
    /* Big sizes: ascending objects, each a GCH_SIZE_BIG slot, each such slot listed. */
    uint32_t big_slots = 0;
    for (uint32_t i = 0; i < h->object_count; i++)
        big_slots += h->object_size32[i] == GCH_SIZE_BIG;
    CHECK(big_slots == h->big_size_count, "GCH_SIZE_BIG slots and big sizes differ in number");
    for (uint32_t k = 0; k < h->big_size_count; k++) {
        CHECK(h->big_size_object[k] < h->object_count, "big size of an absent object");
        CHECK(k == 0 || h->big_size_object[k - 1] < h->big_size_object[k],
              "big sizes not in ascending object order");
        CHECK(h->object_size32[h->big_size_object[k]] == GCH_SIZE_BIG,
              "big size of an object whose slot holds its size");
        CHECK(h->big_size_value[k] >= GCH_SIZE_BIG, "big size that fits its slot");
    }
    CHECK(h->out_start[0] == 0, "out_start[0] != 0");
    for (uint32_t i = 0; i < h->object_count; i++)
        CHECK(h->out_start[i] <= h->out_start[i + 1], "out_start not monotone");
    CHECK(h->out_start[h->object_count] == h->ref_count, "out_start[n] != ref_count");
    CHECK(h->ref_count == 0 || h->out_target, "out_target is NULL with references");
    for (uint64_t e = 0; e < h->ref_count; e++) {
        CHECK(h->out_target[e] < h->object_count, "reference target >= object_count");
        if (h->out_label)
            CHECK(string_ok(h, h->out_label[e]), "reference label outside the string pool");
    }
    CHECK(h->refs_loaded || h->ref_count == 0, "references stored although skipped");

    for (uint32_t t = 0; t < h->type_count; t++) {
        CHECK(h->type_name[t] != GCH_NONE && string_ok(h, h->type_name[t]),
              "type name outside the string pool");
        CHECK(!h->type_module || string_ok(h, h->type_module[t]), "type module outside the string pool");
        CHECK(h->type_declared[t] <= 1, "type_declared not 0/1");
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < h->object_count; i++) {
        CHECK(h->object_type[i] < h->type_count, "object type >= type_count");
        CHECK(gch_object_size(h, i) <= UINT64_MAX - total, "sizes overflow but the heap was accepted");
        total += gch_object_size(h, i);
    }
    CHECK(total == h->total_size, "total_size != sum of object sizes");
    if (h->type_objects) {
        /* The builder's per-type totals against a count of the objects. */
        uint64_t *objects = calloc(h->type_count ? h->type_count : 1, sizeof *objects);
        uint64_t *bytes = calloc(h->type_count ? h->type_count : 1, sizeof *bytes);
        if (!objects || !bytes) {
            free(objects);
            free(bytes);
            return "out of memory checking per-type totals";
        }
        for (uint32_t i = 0; i < h->object_count; i++) {
            objects[h->object_type[i]]++;
            bytes[h->object_type[i]] += gch_object_size(h, i);
        }
        const char *bad = NULL;
        for (uint32_t t = 0; t < h->type_count && !bad; t++)
            if (objects[t] != h->type_objects[t] || bytes[t] != h->type_bytes[t])
                bad = "per-type totals != counts of the objects";
        free(objects);
        free(bytes);
        CHECK(!bad, bad);
    }

    uint64_t dangling = 0;
    for (uint32_t r = 0; r < h->root_count; r++) {
        uint32_t o = h->root_object[r];
        if (o == GCH_NONE)
            dangling++;
        else {
            CHECK(o < h->object_count, "root_object >= object_count");
            CHECK(h->object_id[o] == h->root_raw_id[r], "root names an object with another id");
        }
        CHECK(h->root_kind[r] < GCH_ROOT_KIND_COUNT, "root kind out of range");
        /* Containers and labels are optional columns (NULL: not kept). */
        uint32_t cont = h->root_container ? h->root_container[r] : GCH_NONE;
        CHECK(cont == GCH_NONE || cont < h->type_count, "root container type >= type_count");
        CHECK(cont == GCH_NONE || (h->root_has_container && h->root_has_container[r]),
              "root container without has_container");
        CHECK(!h->root_label || string_ok(h, h->root_label[r]), "root label outside the string pool");
    }
    CHECK(dangling == h->anomalies.dangling_roots, "dangling_roots != roots without object");
    CHECK(h->anomalies.missing_end <= 1 && h->anomalies.end_name_mismatch <= 1,
          "missing_end/end_name_mismatch not 0/1");
    CHECK(h->anomalies.unknown_type_objects <= h->object_count + h->anomalies.duplicate_objects,
          "more objects of undeclared types than objects");

    if (h->object_count > 1) {
        uint64_t *ids = malloc((size_t)h->object_count * sizeof *ids);
        if (ids) { /* no scratch memory: skip this one check */
            memcpy(ids, h->object_id, (size_t)h->object_count * sizeof *ids);
            qsort(ids, h->object_count, sizeof *ids, cmp_u64);
            int dup = 0;
            for (uint32_t i = 1; i < h->object_count && !dup; i++)
                dup = ids[i] == ids[i - 1];
            free(ids);
            CHECK(!dup, "two objects with the same id survived");
        }
    }
    return NULL;
}

const char *heap_check_dump(const gch_dump *d)
{
    CHECK(d, "success without a dump");
    CHECK(d->format, "dump without a format");
    CHECK(d->heap_count >= 1 && d->heaps, "dump without heaps");
    for (size_t i = 0; i < d->heap_count; i++) {
        const char *why = heap_check_structure(d->heaps[i]);
        if (why)
            return why;
    }
    return NULL;
}

const char *heap_check_error(gch_status st, const gch_dump *out, const gch_error *err,
                             uint64_t max_line)
{
    CHECK(out == NULL, "failure but *out is not NULL");
    CHECK(err->status == st, "err->status differs from the returned status");
    CHECK(memchr(err->message, '\0', sizeof err->message), "message not terminated");
    CHECK(err->message[0], "failure without a message");
    for (const unsigned char *p = (const unsigned char *)err->message; *p; p++)
        CHECK(*p >= 0x20 && *p != 0x7f, "control byte in an error message");
    if (st == GCH_EFORMAT && err->line)
        CHECK(err->line <= max_line, "error line beyond the end of the input");
    return NULL;
}

/* Independent reachability: a plain breadth-first search. Returns the number
 * of reachable objects, or UINT64_MAX without scratch memory. */
static uint64_t bfs_count(const gch_heap *h, int include_weak, const uint8_t *live, int *subset)
{
    uint32_t n = h->object_count;
    uint8_t *seen = calloc(n ? n : 1, 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!seen || !queue) {
        free(seen);
        free(queue);
        return UINT64_MAX;
    }
    size_t head = 0, tail = 0;
    for (uint32_t r = 0; r < h->root_count; r++) {
        uint32_t o = h->root_object[r];
        if (o == GCH_NONE || seen[o] || (!include_weak && (h->root_flags[r] & GCH_ROOT_WEAK)))
            continue;
        seen[o] = 1;
        queue[tail++] = o;
    }
    while (head < tail) {
        uint32_t o = queue[head++];
        for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++) {
            uint32_t t = h->out_target[e];
            if (!seen[t]) {
                seen[t] = 1;
                queue[tail++] = t;
            }
        }
    }
    *subset = 1;
    for (uint32_t i = 0; i < n; i++)
        if (live[i] && !seen[i])
            *subset = 0;
    free(seen);
    free(queue);
    return tail;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static const char *check_histogram(const gch_heap *h, const uint8_t *mask, uint64_t want_count,
                                   uint64_t want_bytes, gch_status *st, uint64_t *rows_out,
                                   uint64_t *count_out, uint64_t *bytes_out)
{
    gch_type_row *rows = NULL;
    uint32_t n = 0;
    gch_error err;
    *st = gch_histogram(h, mask, &rows, &n, &err);
    if (*st != GCH_OK)
        return NULL;
    uint64_t count = 0, bytes = 0;
    const char *why = NULL;
    for (uint32_t i = 0; i < n && !why; i++) {
        if (rows[i].type >= h->type_count)
            why = "histogram row with type >= type_count";
        else if (i && rows[i].type <= rows[i - 1].type)
            why = "histogram rows not in type order";
        else if (!rows[i].count)
            why = "histogram row with no objects";
        else if (rows[i].bytes > h->total_size)
            why = "histogram row bytes > total_size";
        count += rows[i].count;
        bytes += rows[i].bytes;
    }
    gch_free(rows);
    if (h->v8_pseudo) { /* V8 as DevTools shows it: the Summary counts no object of size 0 */
        want_count = 0;
        for (uint32_t o = 0; o < h->object_count; o++)
            want_count += (!mask || mask[o]) && gch_object_size(h, o) > 0;
    }
    if (!why && (count != want_count || bytes != want_bytes))
        why = "histogram sums differ from the totals";
    *rows_out = n;
    *count_out = count;
    *bytes_out = bytes;
    return why;
}

const char *heap_check_analyses(gch_heap *h, gch_status *st, heap_summary *sum)
{
    heap_summary s;
    memset(&s, 0, sizeof s);
    s.objects = h->object_count;
    s.bytes = h->total_size;
    s.refs = h->ref_count;
    s.roots = h->root_count;
    s.types = h->type_count;
    *st = GCH_OK;
    const char *why = NULL;
    gch_error err;
    uint8_t *strong_live = NULL;

    for (int weak = 0; weak <= 1 && !why; weak++) {
        uint8_t *live = NULL;
        uint64_t count = 0, bytes = 0;
        *st = gch_live_set(h, weak, &live, &count, &bytes, &err);
        if (*st != GCH_OK)
            goto out;
        uint64_t marks = 0, mbytes = 0;
        for (uint32_t i = 0; i < h->object_count && !why; i++) {
            if (live[i] > 1)
                why = "live mark not 0/1";
            if (!live[i])
                continue;
            marks++;
            mbytes += gch_object_size(h, i);
            for (uint32_t e = h->out_start[i]; e < h->out_start[i + 1]; e++)
                if (!live[h->out_target[e]])
                    why = "live set not closed under references";
        }
        for (uint32_t r = 0; r < h->root_count && !why; r++)
            if (h->root_object[r] != GCH_NONE && (weak || !(h->root_flags[r] & GCH_ROOT_WEAK)) &&
                !live[h->root_object[r]])
                why = "a root object is not live";
        if (!why && (count > h->object_count || bytes > h->total_size))
            why = "live totals exceed the heap totals";
        if (!why && (count != marks || bytes != mbytes))
            why = "live totals differ from the marks";
        if (!why) {
            /* Totals only (no per-object array): the same numbers. */
            uint64_t count2 = 0, bytes2 = 0;
            *st = gch_live_set(h, weak, NULL, &count2, &bytes2, &err);
            if (*st != GCH_OK) {
                gch_free(live);
                goto out;
            }
            if (count2 != count || bytes2 != bytes)
                why = "live totals without the array differ";
        }
        if (!why) {
            int subset = 0;
            uint64_t reach = bfs_count(h, weak, live, &subset);
            if (reach != UINT64_MAX && (reach != count || !subset))
                why = "live set differs from a breadth-first search";
        }
        s.live_count[weak] = count;
        s.live_bytes[weak] = bytes;
        if (weak)
            gch_free(live);
        else
            strong_live = live;
    }
    if (why)
        goto out;

    why = check_histogram(h, NULL, h->object_count, h->total_size, st, &s.hist_rows, &s.hist_count,
                          &s.hist_bytes);
    if (why || *st != GCH_OK)
        goto out;
    uint64_t live_rows;
    why = check_histogram(h, strong_live, s.live_count[0], s.live_bytes[0], st, &live_rows,
                          &s.live_hist_count, &s.live_hist_bytes);
    if (why || *st != GCH_OK)
        goto out;

    *st = gch_heap_build_reverse(h, &err);
    if (*st != GCH_OK) {
        if (h->in_start || h->in_source)
            why = "failed reverse build left arrays behind";
        goto out;
    }
    if (gch_heap_build_reverse(h, &err) != GCH_OK)
        why = "second reverse build failed";
    else if (!h->in_start || !h->in_source)
        why = "reverse arrays missing";
    else if (h->in_start[0] != 0 || h->in_start[h->object_count] != h->ref_count)
        why = "in_start bounds wrong";
    if (why)
        goto out;
    for (uint32_t i = 0; i < h->object_count && !why; i++)
        if (h->in_start[i] > h->in_start[i + 1])
            why = "in_start not monotone";
    if (!why && h->object_count) {
        /* Walk forward edges in source order: each must be the next entry of
         * its target's reverse list, and every list must be used up exactly. */
        uint32_t *pos = malloc((size_t)h->object_count * sizeof *pos);
        if (pos) {
            memcpy(pos, h->in_start, (size_t)h->object_count * sizeof *pos);
            for (uint32_t i = 0; i < h->object_count && !why; i++)
                for (uint32_t e = h->out_start[i]; e < h->out_start[i + 1] && !why; e++) {
                    uint32_t t = h->out_target[e];
                    if (pos[t] >= h->in_start[t + 1] || h->in_source[pos[t]] != i)
                        why = "reverse edges are not the forward edges transposed";
                    else
                        pos[t]++;
                }
            for (uint32_t t = 0; t < h->object_count && !why; t++)
                if (pos[t] != h->in_start[t + 1])
                    why = "reverse list with an edge that has no forward twin";
            free(pos);
        }
    }
    uint64_t hv = 0xcbf29ce484222325ULL;
    for (uint32_t i = 0; i <= h->object_count && !why; i++)
        hv = fnv(hv, h->in_start[i]);
    for (uint64_t e = 0; e < h->ref_count && !why; e++)
        hv = fnv(hv, h->in_source[e]);
    s.reverse_hash = hv;
    /* Add dominators / retained sizes here when include/gcheap/graph.h has them. */
out:
    gch_free(strong_live);
    if (sum)
        *sum = s;
    return why;
}

static int same_str(const char *a, const char *b) { return strcmp(a, b) == 0; }

const char *heap_check_same_dump(const gch_dump *a, const gch_dump *b, int compare_refs)
{
    CHECK(same_str(a->format, b->format), "formats differ");
    CHECK(a->heap_count == b->heap_count, "heap counts differ");
    for (size_t k = 0; k < a->heap_count; k++) {
        const gch_heap *x = a->heaps[k], *y = b->heaps[k];
        CHECK(same_str(x->name, y->name), "heap names differ");
        CHECK(x->meta_count == y->meta_count, "meta counts differ");
        for (size_t i = 0; i < x->meta_count; i++)
            CHECK(same_str(x->meta[i].key, y->meta[i].key) &&
                      same_str(x->meta[i].value, y->meta[i].value),
                  "meta differs");
        CHECK(x->type_count == y->type_count, "type counts differ");
        for (uint32_t t = 0; t < x->type_count; t++)
            CHECK(same_str(gch_type_name(x, t), gch_type_name(y, t)) &&
                      x->type_raw_id[t] == y->type_raw_id[t] &&
                      x->type_declared[t] == y->type_declared[t],
                  "types differ");
        CHECK(x->object_count == y->object_count && x->total_size == y->total_size,
              "object counts or totals differ");
        for (uint32_t i = 0; i < x->object_count; i++)
            CHECK(x->object_id[i] == y->object_id[i] && x->object_type[i] == y->object_type[i] &&
                      gch_object_size(x, i) == gch_object_size(y, i),
                  "objects differ");
        CHECK(x->root_count == y->root_count, "root counts differ");
        for (uint32_t r = 0; r < x->root_count; r++)
            CHECK(x->root_raw_id[r] == y->root_raw_id[r] && x->root_object[r] == y->root_object[r] &&
                      x->root_kind[r] == y->root_kind[r] && x->root_flags[r] == y->root_flags[r] &&
                      x->root_container[r] == y->root_container[r] &&
                      x->root_container_raw[r] == y->root_container_raw[r] &&
                      x->root_has_container[r] == y->root_has_container[r],
                  "roots differ");
        gch_anomalies ax = x->anomalies, ay = y->anomalies;
        if (compare_refs) {
            CHECK(x->ref_count == y->ref_count, "reference counts differ");
            for (uint32_t i = 0; i <= x->object_count; i++)
                CHECK(x->out_start[i] == y->out_start[i], "reference starts differ");
            for (uint64_t e = 0; e < x->ref_count; e++)
                CHECK(x->out_target[e] == y->out_target[e], "reference targets differ");
        } else {
            ax.dangling_refs = ay.dangling_refs = 0;
            ax.first_dangling_ref = ay.first_dangling_ref = 0;
            ax.dangling_holders = ay.dangling_holders = 0;
            memset(ax.dangling_holder_id, 0, sizeof ax.dangling_holder_id);
            memset(ay.dangling_holder_id, 0, sizeof ay.dangling_holder_id);
            memset(ax.dangling_holder_refs, 0, sizeof ax.dangling_holder_refs);
            memset(ay.dangling_holder_refs, 0, sizeof ay.dangling_holder_refs);
        }
        CHECK(memcmp(&ax, &ay, sizeof ax) == 0, "anomalies differ");
    }
    return NULL;
}

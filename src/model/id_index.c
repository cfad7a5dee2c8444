/* Sorted-id directory: see id_index.h. */
#include "id_index.h"

#include <stdint.h>


#include "gcheap/alloc.h"
#include "threading.h"

/* first[b] is the index of the first id in bucket b or later: for the
 * buckets after id i's, up to id i + 1's, that is i + 1. A job fills the
 * buckets [bfrom, bto] from the ids [i0, i1): the buckets up to id i0's get
 * i0, then each id fills the gap after its own bucket. Gaps are short (about
 * one bucket per id), so each id stores its value into the FILL_AHEAD buckets
 * after its own without looking at the gap's length (a later id overwrites
 * what is not its own); only a longer gap takes a loop. No branch depends on
 * the spacing of the ids, which a bucket-by-bucket walk mispredicted. */
enum { FILL_AHEAD = 8 };

typedef struct fill_job {
    id_index *ix;
    uint32_t i0, i1;     /* ids */
    uint32_t bfrom, bto; /* buckets, inclusive */
} fill_job;

static int fill_buckets(void *arg)
{
    const fill_job *j = arg;
    const uint64_t *ids = j->ix->ids, min = j->ix->min;
    const unsigned shift = j->ix->shift;
    uint32_t *first = j->ix->first;
    const uint32_t bto = j->bto;
    if (j->i0 == j->i1) {
        for (uint32_t b = j->bfrom; b <= bto; b++)
            first[b] = j->i0;
        return 0;
    }
    uint32_t k = (uint32_t)((ids[j->i0] - min) >> shift);
    for (uint32_t b = j->bfrom; b <= k && b <= bto; b++)
        first[b] = j->i0;
    for (uint32_t i = j->i0; i < j->i1; i++) {
        uint32_t next = i + 1 < j->i1 ? (uint32_t)((ids[i + 1] - min) >> shift) : bto;
        if (next > bto)
            next = bto;
        if (next - k <= FILL_AHEAD && bto - k >= FILL_AHEAD) {
            for (uint32_t w = 1; w <= FILL_AHEAD; w++)
                first[k + w] = i + 1;
        } else {
            for (uint32_t b = k + 1; b <= next; b++)
                first[b] = i + 1;
        }
        k = next;
    }
    return 0;
}

/* ---- the rank form ---- */

/* A job sets the bits of the ids [i0, i1), then counts the lines [l0, l1)
 * (which hold exactly those ids); ids before i0 are in earlier lines. */
typedef struct rank_job {
    id_index *ix;
    uint32_t i0, i1;
    uint64_t l0, l1;
} rank_job;

static int fill_rank(void *arg)
{
    const rank_job *j = arg;
    const uint64_t *ids = j->ix->ids, min = j->ix->min;
    const unsigned shift = j->ix->shift;
    id_rank_line *rank = j->ix->rank;
    for (uint32_t i = j->i0; i < j->i1; i++) {
        uint64_t p = (ids[i] - min) >> shift;
        rank[p / ID_RANK_BITS].word[p % ID_RANK_BITS / 64] |= (uint64_t)1 << (p % 64);
    }
    uint32_t running = j->i0;
    for (uint64_t l = j->l0; l < j->l1; l++) {
        id_rank_line *line = &rank[l];
        unsigned in_line = 0;
        line->base = running;
        for (unsigned k = 0; k < ID_RANK_WORDS; k++) {
            line->before[k] = (uint16_t)in_line;
            in_line += id_index_popcount(line->word[k]);
        }
        running += in_line;
    }
    return 0;
}

/* Builds the rank form when it takes at most budget bytes: 1 when built, 0
 * when the directory should be used instead, -1 when out of memory. */
static int build_rank(id_index *ix, uint64_t budget, const gch_parallel *par)
{
    const uint64_t *ids = ix->ids;
    const uint32_t count = ix->count;
    /* The lowest bit in which any id differs from min is the lowest one
     * that (id - min) can have: below it every id agrees. */
    uint64_t differ = 0;
    for (uint32_t i = 1; i < count; i++)
        differ |= ids[i] ^ ids[0];
    unsigned shift = 0;
    while (shift < 63 && differ && !((differ >> shift) & 1))
        shift++;
    /* Positions 0..last (no + 1 that could wrap when the ids span 2^64). */
    uint64_t last = (ix->max - ix->min) >> shift;
    uint64_t lines = last / ID_RANK_BITS + 1;
    if (budget < 64 || lines > (budget - 64) / sizeof(id_rank_line) ||
        lines > (SIZE_MAX - 64) / sizeof(id_rank_line))
        return 0;
    unsigned char *mem = gch_calloc((size_t)lines * sizeof(id_rank_line) + 64, 1);
    if (!mem)
        return -1;
    ix->shift = shift;
    ix->rank_mem = mem;
    ix->rank = (id_rank_line *)(void *)(mem + (64 - (uintptr_t)mem % 64) % 64);
    rank_job all = { ix, 0, count, 0, lines };
    if (gch_parallel_worth(par, count) && count >= 2) {
        /* Split at a line boundary: the lines of the low half hold no id of
         * the high half. */
        uint32_t h = count / 2;
        uint64_t split = ((ids[h] - ix->min) >> shift) / ID_RANK_BITS;
        while (h > 0 && ((ids[h - 1] - ix->min) >> shift) / ID_RANK_BITS == split)
            h--;
        rank_job low = { ix, 0, h, 0, split }, high = { ix, h, count, split, lines };
        gch_run_two(par->workers, 1, fill_rank, &low, &high);
        return 1;
    }
    fill_rank(&all);
    return 1;
}

/* The index of the first id in bucket b or later, searched from index from
 * on (no id before from is in bucket b or later). It gallops forward before
 * bisecting: filling buckets in order, the answer is near from, in memory the
 * previous search brought into the cache. */
static uint32_t bucket_start(const id_index *ix, uint32_t b, uint32_t from)
{
    uint32_t lo = from, hi = ix->count;
    for (uint64_t step = 1;; step *= 2) {
        uint64_t at = (uint64_t)lo + step - 1;
        if (at >= ix->count)
            break;
        if (((ix->ids[at] - ix->min) >> ix->shift) >= b) {
            hi = (uint32_t)at;
            break;
        }
        lo = (uint32_t)at + 1;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (((ix->ids[mid] - ix->min) >> ix->shift) < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

gch_status id_index_build(id_index *ix, const uint64_t *ids, uint32_t count, uint64_t lookups,
                          const gch_parallel *par, gch_error *err)
{
    ix->ids = ids;
    ix->count = count;
    ix->first = NULL;
    ix->rank = NULL;
    ix->rank_mem = NULL;
    ix->min = count ? ids[0] : 0;
    ix->max = count ? ids[count - 1] : 0;
    /* About one bucket per ID_INDEX_IDS_PER_BUCKET ids; fewer when only a few
     * lookups will follow (roots only): then the directory is cheap to build. */
    uint64_t want = count / ID_INDEX_IDS_PER_BUCKET;
    if (lookups < want)
        want = lookups;
    uint32_t buckets = 2;
    while (buckets < want && buckets < (1u << 31))
        buckets <<= 1;
    uint64_t range = ix->max - ix->min;
    unsigned shift = 0;
    while (shift < 64 && (range >> shift) >= buckets)
        shift++;
    ix->bucket_count = buckets;
    /* The rank form when it is no bigger than this directory. */
    int ranked = count ? build_rank(ix, ((uint64_t)buckets + 2) * sizeof *ix->first, par) : 0;
    if (ranked < 0)
        return gch_error_set(err, GCH_ENOMEM, "out of memory indexing object ids");
    if (ranked)
        return GCH_OK;
    ix->shift = shift;
    /* + 2: bucket `buckets` is an empty one, for ids outside [min, max]. */
    ix->first = gch_reallocarray(NULL, (size_t)buckets + 2, sizeof *ix->first);
    if (!ix->first)
        return gch_error_set(err, GCH_ENOMEM, "out of memory indexing object ids");
    ix->first[buckets + 1] = count;
    if ((uint64_t)buckets * 32 < count) {
        /* Sparse directory: binary-search each bucket's start instead of
         * walking every id. */
        uint32_t at = 0;
        for (uint32_t b = 0; b <= buckets; b++)
            ix->first[b] = at = bucket_start(ix, b, at);
        return GCH_OK;
    }
    /* A big directory is filled by two threads, each taking half of the ids
     * and the buckets up to the last of them (and their new pages). */
    fill_job all = { ix, 0, count, 0, buckets };
    if (gch_parallel_worth(par, lookups) && count >= 2) {
        uint32_t h = count / 2, split = (uint32_t)((ids[h - 1] - ix->min) >> shift);
        fill_job low = { ix, 0, h, 0, split }, high = { ix, h, count, split + 1, buckets };
        gch_run_two(par->workers, 1, fill_buckets, &low, &high);
        return GCH_OK;
    }
    fill_buckets(&all);
    return GCH_OK;
}

void id_index_free(id_index *ix)
{
    gch_free(ix->first);
    ix->first = NULL;
    gch_free(ix->rank_mem);
    ix->rank_mem = NULL;
    ix->rank = NULL;
}

/* Keyed hashing: see hash.h. */
#include "hash.h"

#include <string.h>

#include "gcheap/alloc.h"
#include <threads.h>
#include <time.h>

static gch_hash_key process_key;
static gch_hash_key test_key;
static int test_key_set;
static once_flag key_once = ONCE_FLAG_INIT;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static gch_hash_key key_from(uint64_t seed)
{
    gch_hash_key k;
    k.sip0 = splitmix64(&seed);
    k.sip1 = splitmix64(&seed);
    k.x = splitmix64(&seed);
    k.m = splitmix64(&seed) | 1;
    return k;
}

/* Folds v into the running seed s (a mixing step, so that every bit of each
 * source reaches every bit of the seed). */
static void absorb(uint64_t *s, uint64_t v)
{
    *s ^= v;
    *s = splitmix64(s);
}

static void draw_key(void)
{
    uint64_t s = 0x6a09e667f3bcc908ULL;
    struct timespec ts = { 0 }; /* zeroed: MemorySanitizer does not see libc's timespec_get fill it */
    if (timespec_get(&ts, TIME_UTC) == TIME_UTC) {
        absorb(&s, (uint64_t)ts.tv_sec);
        absorb(&s, (uint64_t)ts.tv_nsec);
    }
    absorb(&s, (uint64_t)clock());
    absorb(&s, (uint64_t)time(NULL));
    int on_stack = 0;
    absorb(&s, (uint64_t)(uintptr_t)&on_stack);
    absorb(&s, (uint64_t)(uintptr_t)&process_key);
    void (*fn)(void) = draw_key;
    uint64_t fn_bits = 0;
    memcpy(&fn_bits, &fn, sizeof fn < sizeof fn_bits ? sizeof fn : sizeof fn_bits);
    absorb(&s, fn_bits);
    /* A second reading of the clock: how long the above took adds a little. */
    if (timespec_get(&ts, TIME_UTC) == TIME_UTC)
        absorb(&s, (uint64_t)ts.tv_nsec);
    process_key = key_from(s);
}

gch_hash_key gch_hash_key_get(void)
{
    call_once(&key_once, draw_key);
    return test_key_set ? test_key : process_key;
}

void gch_internal_set_hash_seed(uint64_t seed)
{
    test_key_set = seed != 0;
    if (seed)
        test_key = key_from(seed);
}

/* ---- SipHash-1-3 (Aumasson and Bernstein; the round count of Rust's and
 * Python's table hashing) ---- */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND                                                                                   \
    do {                                                                                           \
        v0 += v1;                                                                                  \
        v1 = ROTL(v1, 13);                                                                         \
        v1 ^= v0;                                                                                  \
        v0 = ROTL(v0, 32);                                                                         \
        v2 += v3;                                                                                  \
        v3 = ROTL(v3, 16);                                                                         \
        v3 ^= v2;                                                                                  \
        v0 += v3;                                                                                  \
        v3 = ROTL(v3, 21);                                                                         \
        v3 ^= v0;                                                                                  \
        v2 += v1;                                                                                  \
        v1 = ROTL(v1, 17);                                                                         \
        v1 ^= v2;                                                                                  \
        v2 = ROTL(v2, 32);                                                                         \
    } while (0)

static uint64_t load_le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

uint64_t gch_hash_bytes(const void *data, size_t n, const gch_hash_key *k)
{
    const unsigned char *p = data;
    uint64_t v0 = k->sip0 ^ 0x736f6d6570736575ULL;
    uint64_t v1 = k->sip1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k->sip0 ^ 0x6c7967656e657261ULL;
    uint64_t v3 = k->sip1 ^ 0x7465646279746573ULL;
    const unsigned char *end = p + (n - n % 8);
    for (; p != end; p += 8) {
        uint64_t m = load_le64(p);
        v3 ^= m;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)n << 56;
    switch (n & 7) {
    case 7: b |= (uint64_t)p[6] << 48; /* fall through */
    case 6: b |= (uint64_t)p[5] << 40; /* fall through */
    case 5: b |= (uint64_t)p[4] << 32; /* fall through */
    case 4: b |= (uint64_t)p[3] << 24; /* fall through */
    case 3: b |= (uint64_t)p[2] << 16; /* fall through */
    case 2: b |= (uint64_t)p[1] << 8;  /* fall through */
    case 1: b |= (uint64_t)p[0]; break;
    default: break;
    }
    v3 ^= b;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

uint32_t *gch_table_build(size_t nslots, uint32_t count, uint32_t bias,
                          uint64_t (*hash)(const void *ctx, uint32_t entry), const void *ctx)
{
    uint32_t *t = gch_reallocarray(NULL, nslots, sizeof *t);
    if (!t)
        return NULL;
    const uint32_t empty = bias - 1;
    for (size_t i = 0; i < nslots; i++)
        t[i] = empty;
    const size_t mask = nslots - 1;
    for (uint32_t e = 0; e < count; e++) {
        size_t i = (size_t)hash(ctx, e) & mask;
        while (t[i] != empty)
            i = (i + 1) & mask;
        t[i] = e + bias;
    }
    return t;
}

int gch_table_grow(uint32_t **slots, size_t *nslots, size_t first, uint32_t count, uint32_t bias,
                   uint64_t (*hash)(const void *ctx, uint32_t entry), const void *ctx)
{
    size_t n = gch_table_next(*nslots, first);
    uint32_t *t = gch_table_build(n, count, bias, hash, ctx);
    if (!t)
        return 0;
    gch_free(*slots);
    *slots = t;
    *nslots = n;
    return 1;
}

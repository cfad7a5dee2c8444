/* The index's checksum: XXH64 (seed 0), as Yann Collet's xxHash specifies it
 * (github.com/Cyan4973/xxHash, doc/xxhash_spec.md): four lanes of multiply and
 * rotate over 32-byte stripes, several GB/s, so that checking a chunk before
 * its first use costs little next to reading it. */
#include <string.h>

#include "gcheap/index.h"
#include "index_read.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* The little-endian integer of the n (4 or 8) bytes at p: on a big-endian
 * machine the bytes land in the high end of v, and the swap brings them down
 * in the right order. */
static inline uint64_t read_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, n);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint64_t read64(const unsigned char *p) { return read_le(p, 8); }
static inline uint64_t read32(const unsigned char *p) { return read_le(p, 4); }

static inline uint64_t round1(uint64_t acc, uint64_t in)
{
    acc += in * P2;
    acc = rotl(acc, 31);
    return acc * P1;
}

static inline uint64_t merge(uint64_t acc, uint64_t v)
{
    acc ^= round1(0, v);
    return acc * P1 + P4;
}

void gcx_hash_begin(gcx_hash *s)
{
    s->v[0] = P1 + P2;
    s->v[1] = P2;
    s->v[2] = 0;
    s->v[3] = 0 - P1;
    s->stripes = 0;
}

void gcx_hash_stripes(gcx_hash *s, const void *data, size_t n)
{
    const unsigned char *p = data, *end = p + n / 32 * 32;
    uint64_t v1 = s->v[0], v2 = s->v[1], v3 = s->v[2], v4 = s->v[3];
    for (; p < end; p += 32) {
        v1 = round1(v1, read64(p));
        v2 = round1(v2, read64(p + 8));
        v3 = round1(v3, read64(p + 16));
        v4 = round1(v4, read64(p + 24));
    }
    s->v[0] = v1;
    s->v[1] = v2;
    s->v[2] = v3;
    s->v[3] = v4;
    s->stripes += n / 32;
}

uint64_t gcx_hash_end(const gcx_hash *s, const void *tail, size_t n)
{
    const unsigned char *p = tail, *end = p + n % 32;
    uint64_t h;
    n += (size_t)(s->stripes * 32);
    if (s->stripes) {
        uint64_t v1 = s->v[0], v2 = s->v[1], v3 = s->v[2], v4 = s->v[3];
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        h = merge(h, v1);
        h = merge(h, v2);
        h = merge(h, v3);
        h = merge(h, v4);
    } else {
        h = P5;
    }
    h += (uint64_t)n;
    while (p + 8 <= end) {
        h ^= round1(0, read64(p));
        h = rotl(h, 27) * P1 + P4;
        p += 8;
    }
    if (p + 4 <= end) {
        h ^= (uint64_t)read32(p) * P1;
        h = rotl(h, 23) * P2 + P3;
        p += 4;
    }
    while (p < end) {
        h ^= (*p) * P5;
        h = rotl(h, 11) * P1;
        p++;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

uint64_t gch_index_hash(const void *data, size_t n)
{
    gcx_hash s;
    gcx_hash_begin(&s);
    size_t whole = n / 32 * 32;
    gcx_hash_stripes(&s, data, whole);
    return gcx_hash_end(&s, (const unsigned char *)data + whole, n - whole);
}

/* flood.c - hash-flooding attack generators: see flood.h. */
#include "flood.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#define LOW24 0xffffffULL

uint64_t flood_fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

uint64_t flood_fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

/* The inverse of odd c modulo 2^64 (Newton's iteration doubles the correct
 * low bits each step: 3, 6, 12, 24, 48, 96). */
static uint64_t inverse(uint64_t c)
{
    uint64_t x = c;
    for (int i = 0; i < 5; i++)
        x *= 2 - c * x;
    return x;
}

/* fmix64 is a bijection: x ^= x >> 33 undoes itself (the shift is past half
 * the width), the multiplications are by odd numbers. */
static uint64_t unfmix64(uint64_t h)
{
    uint64_t x = h;
    x ^= x >> 33;
    x *= inverse(0xc4ceb9fe1a85ec53ULL);
    x ^= x >> 33;
    x *= inverse(0xff51afd7ed558ccdULL);
    x ^= x >> 33;
    return x;
}

void flood_fmix_ids(uint64_t *out, size_t n)
{
    size_t k = 0;
    for (uint64_t i = 1; k < n; i++) {
        uint64_t id = unfmix64(i << 24 | 0xa5a5a5);
        if (id != 0) /* 0 is a null reference */
            out[k++] = id;
    }
}

void flood_fibonacci_ids(uint64_t *out, size_t n)
{
    const uint64_t inv = inverse(0x9e3779b97f4a7c15ULL);
    for (size_t i = 0; i < n; i++) {
        uint64_t y = (uint64_t)(i & 0xff) << 56 | 0x5a5a5aULL << 32 | (uint64_t)((i >> 8) + 1);
        out[i] = y * inv; /* nonzero: y is */
    }
}

enum { BLOCK = 4 };

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.";

/* The low 24 bits of FNV-1a's state depend only on the low 24 bits before. */
static uint64_t fnv_step(uint64_t s, unsigned char c) { return ((s ^ c) * 0x100000001b3ULL) & LOW24; }

/* Block i: 4 letters spelling the low 24 bits of i * 2654435761 (distinct
 * for distinct i < 2^24; consecutive blocks would differ in one letter, and
 * with FNV's small multiplier those never collide). */
static uint64_t block_state(uint64_t s, uint32_t i, char out[BLOCK])
{
    uint32_t x = i * 2654435761u;
    for (int j = 0; j < BLOCK; j++) {
        out[j] = alphabet[x % 64];
        x /= 64;
        s = fnv_step(s, (unsigned char)out[j]);
    }
    return s;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Two different blocks leading from state s to one state (birthday search
 * over 2^16 blocks: about 128 colliding pairs expected in 2^24). */
static uint64_t colliding_blocks(uint64_t s, char a[BLOCK], char b[BLOCK])
{
    enum { CANDIDATES = 1 << 16 };
    uint64_t *v = malloc(CANDIDATES * sizeof *v);
    assert_non_null(v);
    char tmp[BLOCK];
    for (uint32_t i = 0; i < CANDIDATES; i++)
        v[i] = block_state(s, i, tmp) << 32 | i;
    qsort(v, CANDIDATES, sizeof *v, compare_u64);
    for (uint32_t i = 1; i < CANDIDATES; i++) {
        if (v[i] >> 32 == v[i - 1] >> 32) {
            uint64_t next = block_state(s, (uint32_t)v[i - 1], a);
            block_state(s, (uint32_t)v[i], b);
            free(v);
            return next;
        }
    }
    free(v);
    fail_msg("no colliding blocks from state %llx", (unsigned long long)s);
    return 0;
}

char *flood_fnv_names(size_t n, size_t *stride)
{
    unsigned stages = 1;
    while (stages < 20 && ((size_t)1 << stages) < n)
        stages++;
    assert_true(n <= (size_t)1 << stages);
    char blocks[20][2][BLOCK];
    uint64_t s = fnv_step(0xcbf29ce484222325ULL & LOW24, 'N');
    for (unsigned k = 0; k < stages; k++)
        s = colliding_blocks(s, blocks[k][0], blocks[k][1]);
    *stride = 1 + BLOCK * (size_t)stages + 1;
    char *out = malloc(n * *stride);
    assert_non_null(out);
    for (size_t i = 0; i < n; i++) {
        char *p = out + i * *stride;
        *p++ = 'N';
        for (unsigned k = 0; k < stages; k++, p += BLOCK)
            memcpy(p, blocks[k][(i >> k) & 1], BLOCK);
        *p = '\0';
    }
    return out;
}

double flood_time(void (*fn)(void *ctx, int k), void *ctx, int k)
{
    clock_t t0 = clock();
    fn(ctx, k);
    double t = (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* A floor of 1 ms: below it clock() granularity would decide ratios. */
    return t > 0.001 ? t : 0.001;
}

void flood_check_each(void (*fn)(void *ctx, int k), void *ctx)
{
    for (int k = 0; k < 4; k++)
        fn(ctx, k);
}

int flood_near_linear(const char *what, void (*fn)(void *ctx, int k), void *ctx)
{
    /* The four inputs in turn, five rounds, the fastest of each: drift of a
     * shared machine hits all four alike, and it only ever adds time. */
    double t[4] = { 0, 0, 0, 0 };
    for (int run = 0; run < 5; run++)
        for (int k = 0; k < 4; k++) {
            double x = flood_time(fn, ctx, k);
            if (run == 0 || x < t[k])
                t[k] = x;
        }
    double growth = t[FLOOD_CRAFTED_4N] / t[FLOOD_CRAFTED_N];
    double plain_growth = t[FLOOD_PLAIN_4N] / t[FLOOD_PLAIN_N];
    double bound = 6 * (plain_growth > 4 ? plain_growth / 4 : 1);
    double against_plain = t[FLOOD_CRAFTED_4N] / t[FLOOD_PLAIN_4N];
    int ok = growth < bound && against_plain < 3;
    printf("%s\t%s: crafted n %.4f s, 4n %.4f s (x%.2f, bound x%.2f); plain n %.4f s, 4n %.4f s "
           "(x%.2f); crafted/plain at 4n %.2f (bound 3)\n",
           ok ? "PASS" : "FAIL", what, t[0], t[1], growth, bound, t[2], t[3], plain_growth,
           against_plain);
    return ok;
}

void flood_assert_scaling(const char *what, void (*fn)(void *ctx, int k), void *ctx, int plain)
{
    double t[8] = { 0 };
    int inputs = plain ? 8 : 4;
    for (int run = 0; run < 3; run++)
        for (int k = 0; k < inputs; k++) {
            double x = flood_time(fn, ctx, k);
            if (run == 0 || x < t[k])
                t[k] = x;
        }
    double growth = t[3] / t[0], bound = 16;
    printf("# %s: n %.4f s, 2n %.4f s, 4n %.4f s, 8n %.4f s (8n/n x%.2f)\n", what, t[0], t[1],
           t[2], t[3], growth);
    if (plain) {
        double plain_growth = t[7] / t[4];
        bound = 16 * (plain_growth > 8 ? plain_growth / 8 : 1);
        printf("# %s: plain n %.4f s, 8n %.4f s (x%.2f, bound x%.2f); against plain at 8n x%.2f\n",
               what, t[4], t[7], plain_growth, bound, t[3] / t[7]);
        if (t[3] / t[7] >= 4)
            fail_msg("%s: the input took %.1fx the time of an ordinary one of its size", what,
                     t[3] / t[7]);
    }
    if (growth >= bound)
        fail_msg("%s: 8x the input took %.1fx the time (%.4f s against %.4f s): not near-linear",
                 what, growth, t[3], t[0]);
}

uint64_t flood_plain_u64(uint64_t *state)
{
    for (;;) {
        uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        if (z)
            return z;
    }
}

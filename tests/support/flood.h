/* flood.h - test-only: hash-flooding attack generators (issue 20, finding 1),
 * and a near-linear growth check.
 *
 * Before the tables were keyed, the library hashed with fixed functions an
 * input could aim at:
 *  - object and type ids: MurmurHash3's fmix64, then the low bits (builder,
 *    id resolution);
 *  - type ids in the .gclog parser's per-chunk table: Fibonacci hashing, bits
 *    32 and up of raw * 0x9e3779b97f4a7c15;
 *  - names: FNV-1a, then the low bits (the builder's string pool, the
 *    .gcdump reader's type names).
 * Each generator below makes keys whose unkeyed hashes agree in their low 24
 * bits: every one of them lands in the same slot of any table of up to 2^24
 * slots, so with those hashes inserting n keys probed n^2/2 slots. With keyed
 * hashing they are keys like any others. */
#ifndef GCHEAP_TEST_FLOOD_H
#define GCHEAP_TEST_FLOOD_H

#include <stddef.h>
#include <stdint.h>

/* The unkeyed hashes, as they were (for the tests' own checks). */
uint64_t flood_fmix64(uint64_t x);
uint64_t flood_fnv1a(const char *s, size_t n);

/* n distinct nonzero ids, in no order, with equal low 24 bits of fmix64. */
void flood_fmix_ids(uint64_t *out, size_t n);
/* n distinct nonzero ids with equal bits 32-55 of id * 0x9e3779b97f4a7c15. */
void flood_fibonacci_ids(uint64_t *out, size_t n);

/* n distinct names (n <= 2^20) made only of [A-Za-z0-9_.], whose FNV-1a
 * hashes agree in the low 24 bits (a multicollision: up to 20 pairs of 4-byte
 * blocks, each pair leading from one state to the same state). Returns one
 * buffer: name i is at out + i * (*stride), NUL-terminated. free() it. */
char *flood_fnv_names(size_t n, size_t *stride);

/* The inputs of a growth check: fn(ctx, k) loads (and checks) input k, one
 * of FLOOD_CRAFTED_N, FLOOD_CRAFTED_4N (the attack at sizes n and 4n) and
 * FLOOD_PLAIN_N, FLOOD_PLAIN_4N (inputs of the same shape and sizes with
 * ordinary keys). */
enum { FLOOD_CRAFTED_N, FLOOD_CRAFTED_4N, FLOOD_PLAIN_N, FLOOD_PLAIN_4N };

/* The processor time of one call of fn(ctx, k), in seconds (1 ms at least). */
double flood_time(void (*fn)(void *ctx, int k), void *ctx, int k);

/* Runs (and so checks) each of the four inputs once: what the unit test
 * does (tests/unit/test_flood.c); no timing. */
void flood_check_each(void (*fn)(void *ctx, int k), void *ctx);

/* Near-linear growth, measured by bench/run.sh --flood (build/tests/flood_bench,
 * test_flood.c built with GCHEAP_FLOOD_BENCH): prints one line with the
 * times and ratios and returns 1 within the bounds, 0 past them (never fails
 * a test: a timing belongs in a benchmark). Each input's time is the fastest
 * of five, the four inputs taken in turn:
 *  - the attack on 4n costs under 6 times the attack on n (a quadratic cost
 *    gives about 16). Where the ordinary input itself grows faster than
 *    4x (a table that fits a cache at n and not at 4n), the bound grows in
 *    proportion: 6 * max(1, plain(4n) / (4 * plain(n)));
 *  - the attack on 4n costs under 3 times the ordinary input on 4n. */
int flood_near_linear(const char *what, void (*fn)(void *ctx, int k), void *ctx);

/* Growth over four sizes n, 2n, 4n, 8n: fn(ctx, k) runs size k (0..3), and
 * with `plain`, fn(ctx, 4 + k) an ordinary input of the same shape and size.
 * Each time is the fastest of three, the inputs taken in turn. Fails
 * (cmocka) when 8n costs 16 times n or more (linear gives 8, n log n a
 * little more, quadratic 64); with `plain`, the bound grows with the plain
 * input's own growth (16 * max(1, plain(8n) / (8 * plain(n))): tables that
 * outgrow the caches) and the input at 8n must cost under 4 times the plain
 * one. The smallest size must take a few milliseconds (flood_time's 1 ms
 * floor would otherwise decide the ratio). Prints the times. */
void flood_assert_scaling(const char *what, void (*fn)(void *ctx, int k), void *ctx, int plain);

/* A deterministic stream of nonzero 64-bit numbers (splitmix64) for the
 * ordinary inputs. */
uint64_t flood_plain_u64(uint64_t *state);

#endif

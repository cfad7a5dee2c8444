/* Keyed hashing for every hash table of the library.
 *
 * The keys of our tables (object ids, type ids, names) come from the input.
 * With a fixed hash a file can choose keys that all land in one probe run of
 * an open-addressing table and make loading quadratic (320k crafted object
 * ids took 33 s: issue 20). So every table hashes with a per-process secret
 * key that the input cannot predict:
 *
 *  - 64-bit keys: gch_hash_u64, a multiply by a secret odd number after an
 *    xor with a secret word, then the MurmurHash3 finalizer (fmix64). It
 *    costs one multiply more than the unkeyed mixer it replaces, on the hot
 *    id-resolution path;
 *  - byte strings: gch_hash_bytes, SipHash-1-3 (a keyed pseudo-random
 *    function: no key-independent collisions are known) with a secret
 *    128-bit key. Strings are hashed once per declaration, never per object.
 *
 * The secret is drawn once per process from what C11 offers (the clock to the
 * nanosecond, processor time, and the addresses of a stack variable, a static
 * and a function, which address-space randomisation moves). Output never
 * depends on it: no table is iterated to produce results, every table only
 * maps a key to an index assigned in input order (tests/unit/test_flood.c
 * checks this by loading under several keys). */
#ifndef GCHEAP_HASH_H
#define GCHEAP_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct gch_hash_key {
    uint64_t sip0, sip1; /* SipHash key */
    uint64_t x, m;       /* integer mixer: xor word, odd multiplier */
} gch_hash_key;

/* The process's key (drawn on first use; thread-safe). */
gch_hash_key gch_hash_key_get(void);

/* Test hook: derives the key from seed instead of the secret (seed 0 goes
 * back to the secret). Not thread-safe: call it between loads. */
void gch_internal_set_hash_seed(uint64_t seed);

static inline uint64_t gch_hash_u64(uint64_t v, const gch_hash_key *k)
{
    uint64_t x = (v ^ k->x) * k->m;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* SipHash-1-3 of n bytes at p. */
uint64_t gch_hash_bytes(const void *p, size_t n, const gch_hash_key *k);

/* The growth rule of every open-addressing table of the library (linear
 * probing over a power-of-two number of uint32_t slots): at most half the
 * slots are used, and a table that must grow doubles, from `first` slots.
 * gch_table_grows says whether adding one entry to `used` needs a bigger
 * table, gch_table_next its new size. */
static inline int gch_table_grows(size_t used, size_t slots) { return (used + 1) * 2 > slots; }
static inline size_t gch_table_next(size_t slots, size_t first) { return slots ? slots * 2 : first; }

/* A new table of nslots slots (a power of two, more than count) holding the
 * entries 0..count-1, each as entry + bias, placed by linear probing from
 * hash(ctx, entry); empty slots hold bias - 1 (bias 0: UINT32_MAX, i.e.
 * GCH_NONE; bias 1: 0). NULL when out of memory. */
uint32_t *gch_table_build(size_t nslots, uint32_t count, uint32_t bias,
                          uint64_t (*hash)(const void *ctx, uint32_t entry), const void *ctx);
/* Replaces the table *slots of *nslots slots by one of gch_table_next(*nslots,
 * first) slots built as gch_table_build says. 1, or 0 when out of memory
 * (then the table is unchanged). */
int gch_table_grow(uint32_t **slots, size_t *nslots, size_t first, uint32_t count, uint32_t bias,
                   uint64_t (*hash)(const void *ctx, uint32_t entry), const void *ctx);

#endif

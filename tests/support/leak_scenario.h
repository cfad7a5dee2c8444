/* leak_scenario.h - test-only: one small application heap with a known leak,
 * written as .gclog, .gcdump and Dart snapshot, for the suspects and leaks
 * tests. Shares no code with src/.
 *
 * The heap (sizes in bytes):
 *   static root -> App.Holder (24) -> App.ListenerList (32)
 *       -> App.Listener[] (16 + 8 L, a new array in every dump)
 *       -> L x App.Listener (40) -> App.Closure (32)
 *   static root -> App.Cache (64) -> 10 x System.Byte[] (1000)
 *   S local roots -> App.Session (48) -> System.Byte[] (200)
 *   G unreachable App.Session (garbage, 48 each)
 * Listener i and its closure keep their ids in every dump (ids_kept), the
 * sessions get new ids in every dump (churn), as does the array. */
#ifndef GCHEAP_TEST_LEAK_SCENARIO_H
#define GCHEAP_TEST_LEAK_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

enum { LS_HOLDER, LS_LIST, LS_ARRAY, LS_LISTENER, LS_CLOSURE, LS_CACHE, LS_BYTES, LS_SESSION,
       LS_TYPES };

enum { LS_LISTENER_SIZE = 40, LS_CLOSURE_SIZE = 32 };

typedef struct ls_params {
    uint32_t listeners;   /* L */
    uint32_t sessions;    /* S */
    uint32_t garbage;     /* G */
    uint32_t dump;        /* the dump's number in its series: churned ids depend on it */
} ls_params;

/* The type names, as every format writes them. */
extern const char *const ls_type_names[LS_TYPES];

/* The id the .gclog and .gcdump writers give listener i (its closure: +0x28). */
uint64_t ls_listener_id(uint32_t i);

/* Writers: malloc'd bytes in *data, length in *size (abort on failure). */
void ls_write_gclog(const ls_params *p, unsigned char **data, size_t *size);
void ls_write_gcdump(const ls_params *p, unsigned char **data, size_t *size);
void ls_write_dart(const ls_params *p, unsigned char **data, size_t *size);

#endif

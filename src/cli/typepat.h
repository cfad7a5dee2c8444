/* Type patterns, one syntax for every command that takes a type (stat,
 * objects, objsize, retainers, diff, check):
 *
 *   NAME      the exact name                    System.String
 *   GLOB      '*' any run, '?' one character,   MyApp.*Session*
 *             '\\' quotes the next one
 *   ~TEXT     case-insensitive substring        ~session
 *
 * A name also matches through its stable form (typepat_stable), so a gate
 * written on one run of a JVM or V8 program matches the next.
 *
 * A pattern that matches no type gets a "did you mean" list of the closest
 * type names (typepat_suggest). */
#ifndef GCHEAP_CLI_TYPEPAT_H
#define GCHEAP_CLI_TYPEPAT_H

#include <stddef.h>

/* 1 when name matches pattern, or its stable form does (typepat_stable). */
int typepat_match(const char *pattern, const char *name);

/* The stable form of a run-specific name (docs/ci-gates.md, "Names that
 * change between runs"): a JVM hidden class without its address and lambda
 * counter ("OrderService$$Lambda$7/0x00007f38dc00bc10" is
 * "OrderService$$Lambda"), a V8 name without an embedded node id
 * ("scope @35213" is "scope"). Into buf; NULL when name has no such part (or
 * does not fit). */
const char *typepat_stable(const char *name, char *buf, size_t cap);

/* Collects suggestions for a pattern that matched nothing: call
 * typepat_consider for every candidate name, then typepat_text. */
typedef struct typepat_suggest {
    const char *pattern;
    const char *best[3];   /* closest first; pointers stay the caller's */
    size_t score[3];
    size_t n;
} typepat_suggest;

void typepat_suggest_init(typepat_suggest *s, const char *pattern);
void typepat_consider(typepat_suggest *s, const char *name);
/* " (did you mean 'A', 'B'?)" or "" when nothing is close; into buf. */
const char *typepat_text(const typepat_suggest *s, char *buf, size_t cap);

#endif

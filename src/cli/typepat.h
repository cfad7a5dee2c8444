/* Type patterns, one syntax for every command that takes a type (stat,
 * objects, objsize, retainers, diff, check):
 *
 *   NAME      the exact name                    System.String
 *   GLOB      '*' any run, '?' one character,   MyApp.*Session*
 *             '\\' quotes the next one
 *   ~TEXT     case-insensitive substring        ~session
 *
 * A pattern that matches no type gets a "did you mean" list of the closest
 * type names (typepat_suggest). */
#ifndef GCHEAP_CLI_TYPEPAT_H
#define GCHEAP_CLI_TYPEPAT_H

#include <stddef.h>

/* 1 when name matches pattern. */
int typepat_match(const char *pattern, const char *name);

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

/* Glob matching of type names for --type NAME (objsize, retainers).
 *
 * TODO: another change adds a glob matcher to the library (src/limits.c);
 * switch why_type_matches() to it once it lands and delete this file. */
#include <string.h>

#include "why.h"

int type_pattern_is_glob(const char *pattern)
{
    return strpbrk(pattern, "*?") != NULL;
}

/* Iterative: on a mismatch after a '*', retry with the star swallowing one more
 * byte (only the last star needs backtracking). O(len(pattern) * len(name)). */
int type_glob_match(const char *pattern, const char *name)
{
    const char *p = pattern, *n = name;
    const char *star = NULL, *star_n = NULL;
    while (*n) {
        if (*p == '*') {
            star = ++p;
            star_n = n;
        } else if (*p == '?' || *p == *n) {
            p++;
            n++;
        } else if (star) {
            p = star;
            n = ++star_n;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

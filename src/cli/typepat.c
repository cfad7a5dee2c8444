/* Type patterns: see typepat.h. */
#include "typepat.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gcheap/limits.h"
#include "options.h"
#include "text.h"

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* The names gcheap gave V8 closures and regexps before it followed the
 * current DevTools (docs/ci-gates.md): a pattern written on them matches the
 * new names too, so existing gates keep working. */
static const char *const old_v8_names[][2] = { { "(closure)", "Function" }, { "(regexp)", "RegExp" } };

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

const char *typepat_stable(const char *name, char *buf, size_t cap)
{
    size_t n = 0, changed = 0;
    for (const char *p = name; *p;) {
        /* " @35213": a V8 node id inside a name */
        if (p[0] == ' ' && p[1] == '@' && p[2] >= '0' && p[2] <= '9') {
            const char *q = p + 2;
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == '\0' || *q == ' ' || *q == ')' || *q == ']') {
                p = q;
                changed = 1;
                continue;
            }
        }
        /* "/0x00007f38dc00bc10" at the end: a JVM hidden class's address */
        if (p[0] == '/' && p[1] == '0' && (p[2] == 'x' || p[2] == 'X') && is_hex(p[3])) {
            const char *q = p + 3;
            while (is_hex(*q))
                q++;
            if (*q == '\0') {
                changed = 1;
                break;
            }
        }
        if (n + 1 >= cap)
            return NULL;
        buf[n++] = *p++;
    }
    buf[n] = '\0';
    /* "$$Lambda$7": the JVM's counter of lambda classes, also run-specific */
    char *l = n ? strstr(buf, "$$Lambda$") : NULL;
    if (l && l[9] >= '0' && l[9] <= '9') {
        char *q = l + 9;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q == '\0') {
            l[8] = '\0';
            changed = 1;
        }
    }
    return changed ? buf : NULL;
}

static int match_one(const char *pattern, const char *name)
{
    if (pattern[0] == '~')
        return contains_nocase(name, pattern + 1);
    for (size_t k = 0; k < sizeof old_v8_names / sizeof *old_v8_names; k++)
        if (strcmp(name, old_v8_names[k][1]) == 0 && gch_glob_match(pattern, old_v8_names[k][0]))
            return 1;
    return gch_glob_match(pattern, name);
}

int typepat_match(const char *pattern, const char *name)
{
    if (match_one(pattern, name))
        return 1;
    char buf[4096];
    const char *stable = typepat_stable(name, buf, sizeof buf);
    return stable && match_one(pattern, stable);
}

void typepat_suggest_init(typepat_suggest *s, const char *pattern)
{
    memset(s, 0, sizeof *s);
    s->pattern = pattern;
}

/* How far name is from the pattern: the edit distance to the whole name or
 * to its last dotted part (users type "Sesion" for "MyApp.Session"),
 * compared without case; a name holding the pattern's text scores 1. */
/* A glob that would match name but for case ("myapp.*" for "MyApp.Cache"). */
static int glob_matches_nocase(const char *pattern, const char *name)
{
    char p[1024], n[1024];
    size_t i = 0, j = 0;
    for (; pattern[i] && i + 1 < sizeof p; i++)
        p[i] = (char)tolower((unsigned char)pattern[i]);
    for (; name[j] && j + 1 < sizeof n; j++)
        n[j] = (char)tolower((unsigned char)name[j]);
    if (pattern[i] || name[j])
        return 0; /* too long to compare here */
    p[i] = n[j] = '\0';
    return gch_glob_match(p, n);
}

static size_t score_of(const char *pattern, const char *name)
{
    if (pattern[0] != '~' && strpbrk(pattern, "*?") && glob_matches_nocase(pattern, name))
        return 1;
    char p[65], a[65];
    const char *want = pattern[0] == '~' ? pattern + 1 : pattern;
    size_t i = 0;
    for (; want[i] && i < 64; i++)
        p[i] = (char)tolower((unsigned char)want[i]);
    p[i] = '\0';
    if (strlen(want) >= 3 && contains_nocase(name, want))
        return 1;
    size_t best = SIZE_MAX;
    const char *parts[2] = { name, strrchr(name, '.') };
    for (int k = 0; k < 2; k++) {
        const char *s = parts[k];
        if (!s)
            continue;
        if (k == 1)
            s++;
        size_t j = 0;
        for (; s[j] && j < 64; j++)
            a[j] = (char)tolower((unsigned char)s[j]);
        a[j] = '\0';
        if (s[j])
            continue; /* longer than 64: not compared */
        size_t d = cli_edit_distance(p, a);
        if (d < best)
            best = d;
    }
    return best;
}

void typepat_consider(typepat_suggest *s, const char *name)
{
    size_t len = strlen(s->pattern);
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    size_t d = score_of(s->pattern, name);
    if (d > limit)
        return;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->best[i], name) == 0)
            return;
    size_t at = s->n;
    while (at > 0 && s->score[at - 1] > d)
        at--;
    if (at >= 3)
        return;
    size_t last = s->n < 3 ? s->n : 2;
    for (size_t i = last; i > at; i--) {
        s->best[i] = s->best[i - 1];
        s->score[i] = s->score[i - 1];
    }
    s->best[at] = name;
    s->score[at] = d;
    if (s->n < 3)
        s->n++;
}

const char *typepat_text(const typepat_suggest *s, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (s->n == 0)
        return buf;
    size_t used = (size_t)snprintf(buf, cap, " (did you mean ");
    for (size_t i = 0; i < s->n && used < cap; i++) {
        char shown[512];
        message_text(s->best[i], shown, sizeof shown);
        used += (size_t)snprintf(buf + used, cap - used, "%s'%s'", i ? ", " : "", shown);
    }
    if (used < cap)
        snprintf(buf + used, cap - used, "?)");
    return buf;
}

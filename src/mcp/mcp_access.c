/* See mcp_access.h. */
#include "mcp_access.h"

#include <stdlib.h>
#include <string.h>

#include "gcheap/hex.h"
#include "xalloc.h"

static void free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

int mcp_access_init(mcp_access *a, mcp_realpath_fn realpath, const char *const *allow,
                    size_t nallow, strbuf *why)
{
    static const char *const here[] = { "." };
    memset(a, 0, sizeof *a);
    a->realpath = realpath;
    if (nallow == 0) {
        allow = here;
        nallow = 1;
    }
    a->allow = xcalloc(nallow, sizeof *a->allow);
    for (size_t i = 0; i < nallow; i++) {
        const char *reason = "";
        a->allow[i] = realpath(allow[i], &reason);
        if (!a->allow[i]) {
            sb_addf(why, "--allow %s: %s", allow[i], reason);
            mcp_access_free(a);
            return -1;
        }
        a->nallow++;
    }
    return 0;
}

void mcp_access_free(mcp_access *a)
{
    free_list(a->allow, a->nallow);
    free_list(a->roots, a->nroots);
    a->allow = a->roots = NULL;
    a->nallow = a->nroots = 0;
}

char *mcp_file_uri_path(const char *uri)
{
    const char *p;
    if (strncmp(uri, "file://", 7) != 0)
        return NULL;
    p = uri + 7;
    if (strncmp(p, "localhost/", 10) == 0)
        p += 9;
    if (*p != '/')
        return NULL; /* another host */
    char *out = xmalloc(strlen(p) + 1), *o = out;
    for (; *p && *p != '?' && *p != '#'; p++) {
        if (*p == '%' && gch_hex_digit(p[1]) >= 0 && gch_hex_digit(p[2]) >= 0) {
            *o++ = (char)(gch_hex_digit(p[1]) * 16 + gch_hex_digit(p[2]));
            p += 2;
        } else
            *o++ = *p;
    }
    *o = '\0';
    if (strlen(out) != (size_t)(o - out)) { /* %00 */
        free(out);
        return NULL;
    }
    return out;
}

void mcp_access_set_roots(mcp_access *a, char **uris, size_t n)
{
    free_list(a->roots, a->nroots);
    a->roots = xcalloc(n ? n : 1, sizeof *a->roots);
    a->nroots = 0;
    a->roots_known = 1;
    for (size_t i = 0; i < n; i++) {
        char *path = mcp_file_uri_path(uris[i]);
        const char *reason;
        char *real = path ? a->realpath(path, &reason) : NULL;
        free(path);
        if (real)
            a->roots[a->nroots++] = real;
    }
}

/* path (canonical) is dir or below it. */
static int inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int inside_any(const char *path, char *const *dirs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (inside(path, dirs[i]))
            return 1;
    return 0;
}

static void list_dirs(strbuf *why, char *const *dirs, size_t n)
{
    for (size_t i = 0; i < n && i < 4; i++) {
        sb_add(why, i ? ", " : "");
        sb_escape(why, ESC_MESSAGE, dirs[i]);
    }
    if (n > 4)
        sb_add(why, ", ...");
    if (n == 0)
        sb_add(why, "none");
}

/* The canonical form of a path to write: an existing file's, or the
 * canonical folder plus a plain last name. */
static char *resolve_new(const mcp_access *a, const char *path, const char **reason)
{
    char *real = a->realpath(path, reason);
    if (real)
        return real;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        *reason = "not a file name";
        return NULL;
    }
    char *dir = xstrdup(slash ? path : ".");
    if (slash)
        dir[slash == path ? 1 : (size_t)(slash - path)] = '\0';
    real = a->realpath(dir, reason);
    free(dir);
    if (!real)
        return NULL;
    char *whole = xmalloc(strlen(real) + strlen(base) + 2);
    strcpy(whole, real);
    if (strcmp(real, "/") != 0)
        strcat(whole, "/");
    strcat(whole, base);
    free(real);
    return whole;
}

int mcp_access_check(const mcp_access *a, const char *path, int mode, char **resolved,
                     strbuf *why)
{
    const char *reason = "";
    *resolved = NULL;
    char *real = mode == MCP_WRITE ? resolve_new(a, path, &reason) : a->realpath(path, &reason);
    if (!real) {
        sb_add(why, "gcheap: ");
        sb_escape(why, ESC_MESSAGE, path);
        sb_addf(why, ": %s", reason);
        return -1;
    }
    const char *rule = NULL;
    if (!inside_any(real, a->allow, a->nallow))
        rule = "outside the folders the server may use (--allow: ";
    else if (a->roots_known && !inside_any(real, a->roots, a->nroots))
        rule = "outside the client's roots (";
    if (rule) {
        sb_add(why, "gcheap: access denied: ");
        sb_escape(why, ESC_MESSAGE, path);
        if (strcmp(real, path) != 0) {
            sb_add(why, " (resolves to ");
            sb_escape(why, ESC_MESSAGE, real);
            sb_add(why, ")");
        }
        sb_addf(why, " is %s", rule);
        if (strstr(rule, "--allow"))
            list_dirs(why, a->allow, a->nallow);
        else
            list_dirs(why, a->roots, a->nroots);
        sb_add(why, "); paths that leave them through '..' or a symlink are refused too");
        free(real);
        return -1;
    }
    *resolved = real;
    return 0;
}

/* Which paths the MCP server may read and write: inside one of the allowed
 * folders (--allow, default the current folder) and, when the client
 * declared MCP roots, inside one of those too. A path is judged by its
 * canonical form (realpath: symlinks and '..' resolved), so a path that
 * leaves the folders through '..' or a symlink is refused; the command then
 * gets the canonical path, not the one asked for. */
#ifndef GCHEAP_MCP_ACCESS_H
#define GCHEAP_MCP_ACCESS_H

#include <stddef.h>

#include "text.h"

/* The canonical absolute path (malloc'd), or NULL with *reason. */
typedef char *(*mcp_realpath_fn)(const char *path, const char **reason);

typedef struct mcp_access {
    mcp_realpath_fn realpath;
    char **allow;       /* canonical folders */
    size_t nallow;
    char **roots;       /* canonical folders of the client's file:// roots */
    size_t nroots;
    int roots_known;    /* the client answered roots/list: roots apply */
} mcp_access;

/* Canonicalises the allowed folders; 0, or -1 with why (the folder and the
 * reason) when one cannot be resolved. */
int mcp_access_init(mcp_access *a, mcp_realpath_fn realpath, const char *const *allow,
                    size_t nallow, strbuf *why);
void mcp_access_free(mcp_access *a);
/* Replaces the roots with the file:// URIs uris[0..n) (other schemes and
 * unresolvable folders are dropped: they allow nothing). */
void mcp_access_set_roots(mcp_access *a, char **uris, size_t n);

enum { MCP_READ = 1, MCP_WRITE = 2 };

/* Checks path for reading (an existing file) or writing (an existing file,
 * or a new name in an existing folder). 0 and *resolved (malloc'd), or -1
 * and the message in why: "gcheap: PATH: No such file or directory" as the
 * CLI says it, or the access rule that refused it. */
int mcp_access_check(const mcp_access *a, const char *path, int mode, char **resolved,
                     strbuf *why);

/* "file:///a%20b" -> "/a b" (malloc'd); NULL when not a local file URI. */
char *mcp_file_uri_path(const char *uri);

#endif

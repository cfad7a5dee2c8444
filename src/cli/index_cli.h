/* A dump's index (.gcx, gcheap/index.h) for the program: where it lies, what
 * identifies the dump it was built from, and loading a dump from it. */
#ifndef GCHEAP_CLI_INDEX_CLI_H
#define GCHEAP_CLI_INDEX_CLI_H

#include "gcheap/index.h"
#include "options.h"

/* The stamp of the dump at path as `c` would load it: its size, mtime, the
 * hashes of its first and last MiB, the load options that change the model.
 * 0, or -1 with *reason (static text). */
int cli_index_stamp(const char *path, const cli_common *c, gch_index_stamp *st,
                    const char **reason);

/* The load options of `c` that change the model, and whether two are the
 * same (an index, or a dump a session keeps, serves only the same). */
gch_index_options cli_index_options(const cli_common *c);
int cli_index_same_options(const gch_index_options *a, const gch_index_options *b);

/* Where an index of path lies: beside it (DUMP.gcx), or under
 * $XDG_CACHE_HOME/gcheap/ (default ~/.cache/gcheap/), named by the dump's
 * file name and a hash of its absolute path. malloc'd; the cache one is NULL
 * when no cache folder can be named. */
char *cli_index_beside(const char *path);
char *cli_index_cache_path(const char *path);

/* Why the index recorded as `have` does not serve a load stamped `want`
 * (static text), or NULL when it does. */
const char *cli_index_stale(const gch_index_stamp *have, const gch_index_stamp *want);

/* Serves cli_load from an index when one applies: the .gcx given as path,
 * or a fresh index of path (beside it, then in the cache) unless --no-index
 * or the command needs what only the dump holds (payloads, fields). Returns
 * 1 with *out loaded from the index; 0 when no index serves (the dump is
 * parsed; a note on stderr says why an index found was not used);
 * EXIT_INPUT with the run's error recorded when path is an index that cannot
 * be used. */
int cli_index_load(const char *path, const cli_common *c, int need, gch_dump **out);

/* Whether the file at path starts with an index's signature. */
int cli_index_starts_like(const char *path);

/* The dump the index at ipath was built from, when it is still there: the
 * index's path without ".gcx" (where `gcheap index` writes it), then the
 * recorded file name in the index's folder (-o FILE beside the dump). It
 * must match the index's record (size, mtime, the hashes of its head and
 * tail) and, when c is not NULL, c's load options. malloc'd path, or NULL
 * with the reason in msg. For a .gcx given alone to a command that reads
 * values only the dump holds (load_dump.c, payload.c). */
char *cli_index_recorded_dump(const char *ipath, const cli_common *c, char *msg, size_t cap);

#endif

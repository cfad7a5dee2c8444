/* The only place the program touches POSIX: opening, reading and mapping
 * inputs, asking whether stderr is a terminal. Everything else is standard C. */
#ifndef GCHEAP_CLI_PLATFORM_H
#define GCHEAP_CLI_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct plat_file plat_file;

/* Opens path for reading ("-" is standard input). Returns NULL and sets
 * *reason (static text) on failure. */
plat_file *plat_open(const char *path, const char **reason);
/* Reads up to cap bytes: count, 0 at end, -1 on error (retries on EINTR). */
long long plat_read(plat_file *f, void *buf, uint64_t cap);
/* Reads exactly n bytes at offset off of a regular file (pread): 0, or -1
 * on an error or when the file ends first. */
int plat_read_at(plat_file *f, uint64_t off, void *buf, uint64_t n);
/* Size of a regular file, or 0 when unknown (a pipe). */
uint64_t plat_size(const plat_file *f);
void plat_close(plat_file *f);
/* Maps a regular file's bytes read-only and returns them (NULL when it cannot:
 * a pipe, an empty file, no address space). *size gets the length. The bytes
 * stay readable until plat_unmap or plat_close. If the file shrinks meanwhile,
 * touching the lost pages does not crash the program: it prints
 * "gcheap: NAME: the file shrank while it was being read" and exits with
 * status 2. One file is mapped at a time. */
const void *plat_map(plat_file *f, const char *name, uint64_t *size);
/* Drops the mapped pages wholly inside [p, p + n) from memory; reading them
 * again brings them back from the page cache. */
void plat_release(plat_file *f, const void *p, uint64_t n);
/* Reads a regular file's bytes (the size plat_open found) into memory of
 * its own (free it with free): a copy that no later change to the file can
 * take away, where a mapping's pages vanish when the file shrinks. NULL
 * when it cannot (not a regular file, or empty: *reason is NULL then; out
 * of memory, a read error, or the file shrank: *reason says which). */
void *plat_read_whole(plat_file *f, uint64_t *size, const char **reason);
void plat_unmap(plat_file *f);
/* A file the program writes (report -o). It never removes or replaces what
 * it did not create: a path that is a symlink, a FIFO or a device is
 * written through in place; a regular file or a new path is written to a
 * temporary file in the same folder (".NAME.XXXXXX", the old file's mode,
 * or 0666 less the umask), renamed over the path by plat_out_commit. */
typedef struct plat_out plat_out;
/* Opens path for writing; NULL with *reason (static text) on failure.
 * *f receives the stream to write to. */
plat_out *plat_out_open(const char *path, FILE **f, const char **reason);
/* Closes the stream and, when everything was written, renames the
 * temporary file over the path. 0 on success; -1 with *reason (static
 * text) when a write, the close or the rename failed: then only the
 * temporary file is removed. Frees o. */
int plat_out_commit(plat_out *o, const char **reason);
/* Closes the stream and removes the temporary file, if any. Frees o. */
void plat_out_discard(plat_out *o);

/* A whole file mapped read-only for as long as the caller keeps it (an
 * index, whose arrays a loaded dump uses in place): *data and *size get its
 * bytes. NULL with *reason (static text) when it cannot be opened or mapped
 * (absent, empty, not a regular file). */
typedef struct plat_mapping plat_mapping;
plat_mapping *plat_mapping_open(const char *path, const void **data, uint64_t *size,
                                const char **reason);
/* Unmaps (a void * so that it serves as a gch_dump release hook). NULL is fine. */
void plat_mapping_close(void *mapping);
/* Makes the folder path and its parents (0777 less the umask): 0 or -1. */
int plat_mkdirs(const char *path);

/* What tells one version of a file from another: a dump kept loaded is read
 * again when its stamp changed. */
typedef struct plat_stamp {
    uint64_t size, dev, ino;
    int64_t mtime_sec, mtime_nsec;
} plat_stamp;
/* The stamp of the file at path: 0, or -1 when it cannot be had (absent, not
 * a regular file). */
int plat_file_stamp(const char *path, plat_stamp *st);
/* 1 when standard input is a terminal (the shell prompts). */
int plat_stdin_is_tty(void);
/* 1 when stderr is a terminal. */
int plat_stderr_is_tty(void);
/* From now on, a fatal SIGINT/SIGTERM/SIGHUP/SIGQUIT first clears the
 * progress line on stderr (Ctrl-C leaves no half line behind). */
void plat_clear_line_on_interrupt(void);
/* Seconds on a monotonic clock. */
double plat_now(void);

/* The canonical absolute path of an existing path (symlinks and '..'
 * resolved; malloc'd), or NULL with *reason (strerror text). */
char *plat_realpath(const char *path, const char **reason);
/* A stream writing into a growing memory buffer: *buf and *len are valid
 * after fflush or fclose (then the caller frees *buf). NULL on failure. */
FILE *plat_memstream(char **buf, size_t *len);
/* For a protocol on standard output (gcheap mcp): a stream on the real
 * stdout, which is then pointed at stderr so that no other write can reach
 * the protocol's stream; SIGPIPE ignored. NULL on failure. */
FILE *plat_protocol_stdout(void);

/* The library's allocator for the program (gch_set_allocator): blocks of
 * PLAT_BIG_BLOCK bytes or more on mappings of their own, 2 MiB-aligned,
 * with transparent huge pages asked for (madvise), so that an array of
 * 100 MB written once costs some fifty page faults instead of 25,000;
 * grown in place or moved without a copy (mremap). Smaller blocks, and
 * blocks that began small, are the C library's. Thread-safe. NULL (the C
 * library's allocator) where huge pages cannot be asked for, and under
 * AddressSanitizer (whose checks see only the C library's blocks). */
#define PLAT_BIG_BLOCK ((size_t)4 << 20)
struct gch_allocator;
const struct gch_allocator *plat_big_page_allocator(void);
/* How many big blocks are mapped now (tests). */
size_t plat_big_blocks(void);

#endif

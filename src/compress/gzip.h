/* gzip.h - the gzip file format (RFC 1952) around DEFLATE (inflate.h).
 *
 * A gunzip reader decompresses any number of concatenated gzip members from
 * pulled input and hands out the decompressed bytes in pieces, as a stream.
 * Every header field is checked (method 8, no reserved flag bits, FEXTRA,
 * FNAME, FCOMMENT skipped, the FHCRC header CRC verified), and every member's
 * CRC-32 and length (ISIZE, modulo 2^32) are verified against the data. Bytes
 * after a member that do not start another member are an error. Data comes
 * out before the CRC of its member is checked: a caller trusts it only once a
 * read has returned 0 (the end, every member verified).
 *
 * Memory: a fixed 1 MiB buffer (and 32 KiB of history) whatever the input.
 */
#ifndef GCH_GZIP_H
#define GCH_GZIP_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"
#include "inflate.h"

/* 1 when the first n bytes at head start a gzip member (1f 8b). */
int gch_gzip_magic(const void *head, size_t n);

typedef struct gch_gunzip gch_gunzip;

/* A reader of the gzip data that pull (see inflate.h) supplies. GCH_ENOMEM
 * when the buffers cannot be had. Free with gch_gunzip_free. */
gch_status gch_gunzip_new(gch_pull_fn pull, void *ctx, gch_gunzip **out, gch_error *err);
void gch_gunzip_free(gch_gunzip *z);

/* Up to cap decompressed bytes into buf. Returns the count (> 0), 0 when the
 * input ended after a complete, verified member, or -1 on failure: then
 * gch_gunzip_error says why (GCH_EFORMAT with the offset in the compressed
 * input, GCH_EIO when pull failed) and every later call returns -1. */
long long gch_gunzip_read(gch_gunzip *z, void *buf, size_t cap);
const gch_error *gch_gunzip_error(const gch_gunzip *z);

/* Compressed bytes read so far (for progress), and decompressed bytes made. */
uint64_t gch_gunzip_in_offset(const gch_gunzip *z);
uint64_t gch_gunzip_out_total(const gch_gunzip *z);
/* Members started so far. */
unsigned long gch_gunzip_members(const gch_gunzip *z);

/* Decompresses gzip data held in memory into a buffer grown with what comes
 * out (never sized from ISIZE); *out is freed with gch_free. */
gch_status gch_gunzip_buffer(const void *data, size_t size, unsigned char **out, size_t *out_size,
                             gch_error *err);

#endif

/* inflate.h - DEFLATE decoding (RFC 1951), the input bit reader it shares with
 * the gzip wrapper (gzip.h), and CRC-32.
 *
 * Input is pulled: the bit reader asks a callback for the next chunk of
 * compressed bytes when it has used up the current one, so the decoder needs
 * no resumable state for input, and a mapped file is one chunk. Output goes
 * to a buffer the caller owns; the decoder stops when the buffer is nearly
 * full and resumes where it stopped on the next call, with the stream's
 * earlier output (up to 32 KiB) kept in front of the write position for
 * matches to copy from.
 *
 * Nothing here prints or exits; only gch_inflate_buffer allocates (through
 * the library's allocation hook).
 */
#ifndef GCH_INFLATE_H
#define GCH_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"

/* Sets *chunk to the next piece of compressed input and returns its size; 0
 * at the end of the input; -1 on a read error. The piece stays readable until
 * the next call. */
typedef long long (*gch_pull_fn)(void *ctx, const unsigned char **chunk);

/* A pull source over bytes held in memory: the whole buffer as one chunk,
 * then the end. Start it as { data, size, 0 }; ctx is the gch_mem_input. */
typedef struct gch_mem_input {
    const unsigned char *data;
    size_t size;
    int given;
} gch_mem_input;
long long gch_mem_pull(void *ctx, const unsigned char **chunk);

/* A little-endian bit reader over pulled chunks. Past the end of the input it
 * feeds zero bytes and counts them (pad), so decoding never waits on a
 * missing byte; a caller that finds bits of padding consumed
 * (gch_bitin_overrun) reports the input as truncated. */
typedef struct gch_bitin {
    const unsigned char *next, *end; /* the unread part of the current chunk */
    uint64_t bits;                   /* bits in hand, the next one lowest */
    unsigned count;                  /* how many of them are valid (padding included) */
    unsigned pad;                    /* zero bytes fed after the end of the input */
    uint64_t pulled;                 /* input bytes in all the chunks so far */
    gch_pull_fn pull;
    void *ctx;
    int eof;                         /* pull said end of input */
    int failed;                      /* pull said read error */
} gch_bitin;

void gch_bitin_init(gch_bitin *in, gch_pull_fn pull, void *ctx);

/* Offset in the input of the byte holding the next unread bit (the end of the
 * input once padding is being read). */
uint64_t gch_bitin_offset(const gch_bitin *in);

/* 1 when bits beyond the end of the input have been consumed. */
int gch_bitin_overrun(const gch_bitin *in);

/* Drops the bits up to the next byte boundary. */
void gch_bitin_align(gch_bitin *in);

/* The next byte (the reader must be byte-aligned), or -1 at the end of the
 * input or on a read error (in->failed tells which). */
int gch_bitin_byte(gch_bitin *in);

/* 1 when no input byte is left (byte-aligned reader); may pull a chunk. */
int gch_bitin_at_end(gch_bitin *in);

/* Entries of the decoding tables: root tables of 2^10 (literal/length) and
 * 2^8 (distance) entries, followed by second-level tables for longer codes.
 * The sizes hold any complete code (bounds from zlib's examples/enough.c:
 * 1332 and 402 entries) with room to spare. */
#define GCH_INFLATE_LITLEN_ENTRIES 1536
#define GCH_INFLATE_DIST_ENTRIES 512

/* How much room past the write position one decoding step may use: the
 * longest match (258 bytes) plus the overrun of word-sized copies. */
#define GCH_INFLATE_ROOM 274

typedef enum gch_inflate_result {
    GCH_INFLATE_MORE,  /* the output buffer is (nearly) full: make room, call again */
    GCH_INFLATE_END,   /* the final block ended: the reader is just past it */
    GCH_INFLATE_ERROR  /* malformed or truncated: message and offset say why */
} gch_inflate_result;

typedef struct gch_inflate {
    int state;             /* where the next call resumes (inflate.c) */
    int final;             /* the current block is the last one */
    int fixed_loaded;      /* the tables hold the fixed code */
    uint32_t stored_left;  /* bytes left in the current stored block */
    const char *message;   /* on GCH_INFLATE_ERROR: what is wrong (static storage) */
    uint64_t error_offset; /* on GCH_INFLATE_ERROR: input offset where decoding stopped */
    uint32_t litlen[GCH_INFLATE_LITLEN_ENTRIES];
    uint32_t dist[GCH_INFLATE_DIST_ENTRIES];
} gch_inflate;

/* Prepares s for a new DEFLATE stream. */
void gch_inflate_reset(gch_inflate *s);

/* Decodes from in into out[*pos .. cap). out[lo .. *pos) is this stream's
 * output so far, or at least its last 32 KiB: a match reaching before lo is
 * an error ("distance too far back"). Bytes past the new *pos up to cap may
 * be overwritten. Stops with GCH_INFLATE_MORE when fewer than
 * GCH_INFLATE_ROOM bytes of room are left, so call it with more room than
 * that. */
gch_inflate_result gch_inflate_run(gch_inflate *s, gch_bitin *in, unsigned char *out, size_t lo,
                                   size_t *pos, size_t cap);

/* Decodes one whole raw DEFLATE stream held in memory (no wrapper) into a
 * buffer that grows with what is decoded; *out is freed with gch_free. The
 * stream must end exactly at size. Errors: GCH_EFORMAT (err->offset set),
 * GCH_ENOMEM. For tests and the fuzz harness. */
gch_status gch_inflate_buffer(const void *data, size_t size, unsigned char **out, size_t *out_size,
                              gch_error *err);

/* CRC-32 (ISO-HDLC, as in gzip): crc of the bytes so far (0 to start), updated
 * with n more bytes. */
uint32_t gch_crc32(uint32_t crc, const void *data, size_t n);

#endif

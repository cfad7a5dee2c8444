/* Parsing a buffer of Ruby dump lines in pieces, on two threads where the
 * input allows (internal to the Ruby reader; docs/ruby-format.md).
 *
 * The buffer (a mapped file, or one read whole) is cut at line ends into
 * pieces of about 64 KiB. Parsing a line (rb_parse_line) needs
 * nothing but its bytes, so a piece's lines are parsed into records kept
 * with the piece by whichever thread takes it; the pieces are then handed
 * to the caller's function one after another, in file order, on the calling
 * thread. What the caller builds from them, and the first error it meets,
 * are the same whatever the number of threads.
 *
 * The calling thread takes the next piece in order, parses it unless the
 * helper has, and hands it over while its bytes are still in the cache; the
 * helper parses pieces ahead, at most a ring of 8, and sleeps when it is
 * that far ahead. With one worker there is no helper: each piece is parsed
 * and handed over in turn. Memory: 8 pieces' records. */
#ifndef GCHEAP_RUBY_PIECES_H
#define GCHEAP_RUBY_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"
#include "ruby_line.h"
#include "threading.h"

typedef struct rb_parsed {
    rb_record rec;
    size_t ref_at; /* its references: refs.v[ref_at .. ref_at + rec.nrefs) */
    uint64_t line; /* its line in the piece, from 1 */
} rb_parsed;

typedef struct rb_piece {
    const char *p, *end; /* whole lines (the last may lack its newline) */
    rb_parsed *recs;     /* the object and ROOT lines (blank lines have none) */
    size_t n, cap;
    rb_refs refs;
    uint64_t lines;      /* lines of the piece, up to the failing one if any */
    /* The first line that does not parse (its number is `lines`): a static
     * message ("out of memory" when a record could not be kept), NULL when
     * none; col its column, (size_t)-1 when it is about the whole line. */
    const char *msg;
    size_t col;
} rb_piece;

/* Receives the pieces in file order; a status other than GCH_OK stops. */
typedef gch_status (*rb_piece_fn)(void *ctx, const rb_piece *pc);

/* Parses [data, data + size) in pieces (par: the workers and the piece
 * size knob), lines longer than max_line refused, and hands each piece to
 * fn. Returns fn's first failure, GCH_OK otherwise. */
gch_status rb_parse_pieces(const char *data, size_t size, const gch_parallel *par, size_t max_line,
                           rb_piece_fn fn, void *ctx);

#endif

/* Ruby dump lines parsed in pieces on up to two threads (ruby_pieces.h). */
#include "ruby_pieces.h"

#include <stdatomic.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"

#define RB_PIECE_BYTES ((size_t)64 << 10)

static void piece_reset(rb_piece *pc, const char *p, const char *end)
{
    pc->p = p;
    pc->end = end;
    pc->n = 0;
    pc->refs.at = 0;
    pc->lines = 0;
    pc->msg = NULL;
    pc->col = (size_t)-1;
}

static int blank_line(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p == end;
}

/* Parses the piece's lines until the first that fails. */
static void piece_parse(rb_piece *pc, size_t max_line)
{
    const char *p = pc->p, *end = pc->end;
    while (p < end) {
        pc->lines++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if ((size_t)(le - p) > max_line) {
            pc->msg = "line longer than 67108864 bytes";
            return;
        }
        if (!blank_line(p, le)) {
            if (pc->n == pc->cap && !gch_grow((void **)&pc->recs, &pc->cap, pc->n + 1, sizeof *pc->recs, 256)) {
                pc->msg = "out of memory";
                return;
            }
            rb_parsed *x = &pc->recs[pc->n];
            size_t col;
            const char *msg = rb_parse_line(p, le, &x->rec, &pc->refs, &col);
            if (msg) {
                pc->msg = msg;
                pc->col = strcmp(msg, "out of memory") == 0 ? (size_t)-1 : col;
                return;
            }
            x->ref_at = pc->refs.at;
            x->line = pc->lines;
            pc->refs.at += x->rec.nrefs;
            pc->n++;
        }
        p = nl ? nl + 1 : end;
    }
}

/* Piece k holds the lines that start in bytes [k * piece, (k + 1) * piece)
 * of the buffer: each thread finds its bounds alone (a piece inside a long
 * line holds no line). */
static const char *line_start_at(const char *data, size_t size, size_t at)
{
    if (at == 0)
        return data;
    if (at >= size)
        return data + size;
    const char *nl = memchr(data + at - 1, '\n', size - (at - 1));
    return nl ? nl + 1 : data + size;
}

/* The pieces in flight: RING of them parsed ahead of the one handed over. */
#define RING 8u

typedef struct rb_slot {
    rb_piece pc;
    atomic_int ready; /* parsed, not handed over yet */
} rb_slot;

typedef struct rb_run {
    const char *data;
    size_t size, piece, max_line;
    uint64_t npieces;
    rb_slot ring[RING];
    atomic_uint_least64_t next;    /* the next piece to take */
    atomic_uint_least64_t applied; /* pieces handed over */
    atomic_int stop;               /* the caller failed: take no more */
    gch_mutex lock;                /* the helper waits here when RING ahead */
    gch_cond moved;
    int two;
} rb_run;

/* Takes the next piece if it is fewer than RING ahead of `applied` and
 * parses it: 1 when it did, 0 when it may not yet, -1 when none is left. */
static int take_one(rb_run *run, uint64_t applied)
{
    uint64_t k = atomic_load(&run->next);
    if (k >= run->npieces || atomic_load(&run->stop))
        return -1;
    if (k >= applied + RING)
        return 0;
    if (!atomic_compare_exchange_strong(&run->next, &k, k + 1))
        return 0;
    rb_slot *sl = &run->ring[k % RING];
    size_t at = (size_t)k * run->piece;
    size_t to = run->size - at > run->piece ? at + run->piece : run->size;
    piece_reset(&sl->pc, line_start_at(run->data, run->size, at), line_start_at(run->data, run->size, to));
    piece_parse(&sl->pc, run->max_line);
    atomic_store(&sl->ready, 1);
    return 1;
}

static int helper_thread(void *arg)
{
    rb_run *run = arg;
    for (;;) {
        uint64_t applied = atomic_load(&run->applied);
        int got = take_one(run, applied);
        if (got < 0)
            return 0;
        if (got == 0) { /* RING ahead: wait for the caller to move on */
            gch_mutex_lock(&run->lock);
            while (!atomic_load(&run->stop) && atomic_load(&run->applied) == applied &&
                   atomic_load(&run->next) >= applied + RING)
                gch_cond_wait(&run->moved, &run->lock);
            gch_mutex_unlock(&run->lock);
        }
    }
}

/* Wakes the helper after `applied` or `stop` moved. */
static void nudge(rb_run *run)
{
    if (!run->two)
        return;
    gch_mutex_lock(&run->lock);
    gch_cond_broadcast(&run->moved);
    gch_mutex_unlock(&run->lock);
}

gch_status rb_parse_pieces(const char *data, size_t size, const gch_parallel *par, size_t max_line,
                           rb_piece_fn fn, void *ctx)
{
    rb_run *run = gch_calloc(1, sizeof *run);
    if (!run)
        return GCH_ENOMEM;
    run->data = data;
    run->size = size;
    run->piece = par->knobs.ruby_piece ? par->knobs.ruby_piece : RB_PIECE_BYTES;
    run->max_line = max_line;
    run->npieces = size / run->piece + (size % run->piece != 0);
    for (unsigned i = 0; i < RING; i++)
        atomic_init(&run->ring[i].ready, 0);
    atomic_init(&run->next, 0);
    atomic_init(&run->applied, 0);
    atomic_init(&run->stop, 0);
    gch_thread t;
    if (run->npieces > 1 && par->workers >= 2 && gch_mutex_init(&run->lock)) {
        if (gch_cond_init(&run->moved))
            run->two = gch_thread_start(&t, par->workers, helper_thread, run);
        if (!run->two) {
            gch_cond_destroy(&run->moved);
            gch_mutex_destroy(&run->lock);
        }
    }
    gch_status st = GCH_OK;
    for (uint64_t k = 0; k < run->npieces && st == GCH_OK; k++) {
        rb_slot *sl = &run->ring[k % RING];
        while (!atomic_load(&sl->ready)) /* parse pieces until k is, or wait for the helper's */
            if (take_one(run, k) <= 0)
                gch_thread_yield();
        st = fn(ctx, &sl->pc);
        atomic_store(&sl->ready, 0);
        atomic_store(&run->applied, k + 1);
        if (st != GCH_OK)
            atomic_store(&run->stop, 1);
        nudge(run);
    }
    if (run->two) {
        gch_thread_join(&t);
        gch_cond_destroy(&run->moved);
        gch_mutex_destroy(&run->lock);
    }
    for (unsigned i = 0; i < RING; i++) {
        gch_free(run->ring[i].pc.recs);
        gch_free(run->ring[i].pc.refs.v);
    }
    gch_free(run);
    return st;
}

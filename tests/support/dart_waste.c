/* A Dart heap snapshot with planted waste and its expected rows
 * (dart_waste.h). The description below is the truth: the snapshot is
 * written from it, and the oracle groups and sums over it by brute force,
 * with the rules of docs/waste.md ("Dart heap snapshots") stated on what
 * each object is (a string, a growable list, a map, an array), never on
 * what the reader or the program made of the bytes. */
#include "dart_waste.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/waste.h"

enum { K_STR, K_LIST, K_MAP, K_CONST, K_ARRAY, K_POOL, K_OTHER };

typedef struct dobj {
    int kind, cls;
    uint64_t size;
    uint16_t units[300];
    size_t kept;        /* strings: units recorded */
    uint64_t full;      /* strings: the string's length */
    int utf16;
    uint64_t length;    /* LengthData */
    size_t backing;     /* list: its backing _List (index), SIZE_MAX none */
    int held;           /* 1: App.cache holds it, 2: App.items */
} dobj;

/* Classes: simple name, library URI (the type prints as "name (uri)"). */
enum { C_ONE, C_TWO, C_GLIST, C_LIST, C_MAP, C_SET, C_CONSTMAP, C_U8, C_I32, C_U32, C_POOL, C_SMI,
       C_APP, NCLS };
static const char *const cls_name[NCLS] = { "_OneByteString", "_TwoByteString", "_GrowableList",
    "_List", "_Map", "_Set", "_ConstMap", "_Uint8List", "_Int32List", "_Uint32List", "ObjectPool",
    "_Smi", "App" };
static const char *const cls_uri[NCLS] = { "dart:core", "dart:core", "dart:core", "dart:core",
    "dart:collection", "dart:collection", "dart:collection", "dart:typed_data", "dart:typed_data",
    "dart:typed_data", "", "dart:core", "package:app/app.dart" };

typedef struct plan {
    dobj *o;
    size_t n, cap;
    uint64_t rng;
} plan;

static uint64_t rnd(plan *p, uint64_t n)
{
    p->rng ^= p->rng << 13, p->rng ^= p->rng >> 7, p->rng ^= p->rng << 17;
    return n ? p->rng % n : 0;
}

static dobj *add(plan *p, int kind, int cls, uint64_t size)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->o = realloc(p->o, p->cap * sizeof *p->o);
        if (!p->o)
            abort();
    }
    dobj *d = &p->o[p->n++];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->cls = cls;
    d->size = size;
    d->backing = SIZE_MAX;
    return d;
}

/* A string of units (kept of them recorded, of full); sizes as the VM's:
 * a header and the characters, rounded to 16, with a random extra. */
static void str(plan *p, const uint16_t *u, size_t kept, uint64_t full, int utf16)
{
    uint64_t size = ((16 + full * (utf16 ? 2 : 1) + 15) / 16) * 16 + 16 * rnd(p, 2);
    dobj *d = add(p, K_STR, utf16 ? C_TWO : C_ONE, size);
    memcpy(d->units, u, kept * sizeof *u);
    d->kept = kept;
    d->full = full;
    d->utf16 = utf16;
}

static size_t ascii(const char *s, uint16_t *u)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        u[i] = (unsigned char)s[i];
    return n;
}

static void copies(plan *p, const char *s, unsigned n, int utf16)
{
    uint16_t u[300];
    size_t k = ascii(s, u);
    for (unsigned i = 0; i < n; i++)
        str(p, u, k, k, utf16);
}

static size_t array(plan *p, int cls, uint64_t length)
{
    add(p, cls == C_POOL ? K_POOL : K_ARRAY, cls, 16 + 8 * length + (cls == C_LIST ? 8 : 0))->length = length;
    return p->n - 1;
}

static void list(plan *p, uint64_t len, size_t backing, int held)
{
    dobj *d = add(p, K_LIST, C_GLIST, 32);
    d->length = len;
    d->backing = backing;
    d->held = held;
}

static void map(plan *p, int cls, uint64_t used, int held)
{
    dobj *d = add(p, cls == C_CONSTMAP ? K_CONST : K_MAP, cls, 48);
    d->length = used;
    d->held = held;
}

/* The strings: planted groups and the ones never grouped. */
static void plant_strings(plan *p, int planted)
{
    static const uint16_t snow[] = { 'n', 'a', 0xEF, 'v', 'e', ' ', 0x2603, ' ', 0xD83D, 0xDE00 };
    uint16_t u[300];
    if (!planted) {
        copies(p, "twice", 2, 0);
        return;
    }
    copies(p, "config.key.alpha", 12, 0);
    for (unsigned i = 0; i < 15; i++)
        str(p, snow, 10, 10, 1);
    copies(p, "mixed-form", 6, 0); /* one value in both forms: equal Dart strings */
    copies(p, "mixed-form", 5, 1);
    for (size_t i = 0; i < 128; i++)
        u[i] = (uint16_t)('a' + i % 26);
    for (unsigned i = 0; i < 11; i++)
        str(p, u, 128, 128, 0); /* recorded whole: exactly the VM's 128 */
    for (unsigned i = 0; i < 20; i++)
        str(p, u, 128, 300 + i % 2, 0); /* a prefix only: never grouped */
    copies(p, "", 10, 0);
    u[0] = 'x', u[1] = 0xD800, u[2] = 'y'; /* a lone surrogate */
    for (unsigned i = 0; i < 12; i++)
        str(p, u, 3, 3, 1);
    u[0] = 'n', u[1] = 0, u[2] = 'l'; /* U+0000 */
    for (unsigned i = 0; i < 12; i++)
        str(p, u, 3, 3, 1);
    copies(p, "nine", 9, 0); /* below the minimum */
}

static void plant_collections(plan *p, int planted)
{
    size_t empty_list = array(p, C_LIST, 0); /* the VM's shared _emptyList */
    array(p, C_LIST, 0);                     /* compact_hash's _uninitializedData */
    array(p, C_U32, 1);                      /* and _uninitializedIndex */
    if (planted) {
        for (unsigned i = 0; i < 14; i++)
            list(p, 0, empty_list, i < 13 ? 2 : 0);
        for (unsigned i = 0; i < 6; i++) { /* empty, owning an array: the array counts */
            list(p, 0, SIZE_MAX, 0);
            p->o[p->n - 1].backing = array(p, C_LIST, i % 2 ? 7 : 15);
        }
        for (unsigned i = 0; i < 8; i++) /* 2 of 31: under-filled */
            list(p, 2, array(p, C_LIST, 31), 0);
        for (unsigned i = 0; i < 5; i++) { /* 3 of 15 (20%): under-filled, array after the list */
            list(p, 3, SIZE_MAX, 0);
            p->o[p->n - 1].backing = array(p, C_LIST, 15);
        }
        for (unsigned i = 0; i < 13; i++)
            map(p, C_MAP, 0, 1);
        for (unsigned i = 0; i < 11; i++)
            map(p, C_SET, 0, 0);
        for (unsigned i = 0; i < 3; i++)
            map(p, C_CONSTMAP, 0, 0);
        for (unsigned i = 0; i < 12; i++)
            array(p, C_LIST, 0);
        for (unsigned i = 0; i < 10; i++)
            array(p, C_U8, 0);
        for (unsigned i = 0; i < 4; i++)
            array(p, C_I32, 0);
        for (unsigned i = 0; i < 11; i++)
            array(p, C_POOL, 0);
    }
    for (unsigned i = 0; i < 7; i++) /* 10 of 31 (32%): not under-filled */
        list(p, 10, array(p, C_LIST, 31), 0);
    for (unsigned i = 0; i < 10; i++) /* full */
        list(p, 7, array(p, C_LIST, 7), 0);
    for (unsigned i = 0; i < 4; i++)
        map(p, C_MAP, 6, 0);
    map(p, C_CONSTMAP, 0, 0); /* const {} */
    for (unsigned i = 0; i < 2; i++) /* a program's few empty maps: below any threshold */
        map(p, C_MAP, 0, 0);
    for (unsigned i = 0; i < 6; i++)
        array(p, C_U8, 1 + rnd(p, 64));
}

static void plant(plan *p, int planted, size_t distinct)
{
    plant_strings(p, planted);
    plant_collections(p, planted);
    for (size_t i = 0; i < distinct; i++) { /* distinct strings, and a full list every 4 */
        char s[64];
        snprintf(s, sizeof s, "distinct-%zu-%llu", i, (unsigned long long)rnd(p, 1000000));
        copies(p, s, 1, i % 3 == 0);
        if (i % 4 == 3)
            list(p, 3, array(p, C_LIST, 3), 0);
    }
}

/* ------------------------------------------------------------------------ */
/* The snapshot */

/* App objects: one for each map App.cache holds and each list App.items holds. */
static size_t app_count(const plan *p)
{
    size_t maps = 0, lists = 0;
    for (size_t i = 0; i < p->n; i++) {
        maps += p->o[i].held == 1;
        lists += p->o[i].held == 2;
    }
    return maps > lists ? maps : lists;
}

static void write_snapshot(const plan *p, dtw_buf *out)
{
    static const char *const iso[] = { "main" };
    dtw *w = dtw_new_vm("waste", iso, 1, NULL, 0);
    uint64_t cls[NCLS];
    for (int c = 0; c < NCLS; c++)
        cls[c] = dtw_class(w, cls_name[c], "", cls_uri[c]);
    dtw_field(w, cls[C_APP], 0, "cache");
    dtw_field(w, cls[C_APP], 1, "items");
    uint64_t first = 0; /* the description's object i is snapshot object first + i */
    for (size_t i = 0; i < p->n; i++) {
        const dobj *d = &p->o[i];
        uint64_t id = dtw_object(w, cls[d->cls], d->size);
        if (i == 0)
            first = id;
        if (d->kind == K_STR && d->utf16) {
            dtw_data_utf16(w, id, d->units, d->kept, d->full);
        } else if (d->kind == K_STR) {
            char s[300];
            for (size_t k = 0; k < d->kept; k++)
                s[k] = (char)d->units[k];
            s[d->kept] = '\0';
            dtw_data_latin1(w, id, s, d->full);
        } else if (d->kind != K_OTHER) {
            dtw_data_length(w, id, d->length);
        }
    }
    uint64_t smi = dtw_object(w, cls[C_SMI], 0);
    dtw_data_int(w, smi, 3);
    for (size_t i = 0; i < p->n; i++) {
        const dobj *d = &p->o[i];
        uint64_t id = first + i;
        if (d->kind == K_LIST) { /* type arguments (omitted), length, data */
            dtw_ref(w, id, 0);
            dtw_ref(w, id, smi);
            dtw_ref(w, id, d->backing == SIZE_MAX ? 0 : first + d->backing);
        } else if (d->kind == K_MAP || d->kind == K_CONST) { /* index, hash mask, data, used, deleted */
            dtw_ref(w, id, first + 2);
            dtw_ref(w, id, smi);
            dtw_ref(w, id, first + 1);
            dtw_ref(w, id, smi);
            dtw_ref(w, id, smi);
        }
        dtw_ref(w, 1, id); /* every object a root */
    }
    /* The App objects: .cache holds the empty maps, .items the lists so marked. */
    size_t apps = app_count(p);
    uint64_t app0 = 0;
    for (size_t a = 0; a < apps; a++) {
        uint64_t id = dtw_object(w, cls[C_APP], 24);
        if (a == 0)
            app0 = id;
        dtw_ref(w, 1, id);
    }
    for (size_t a = 0; a < apps; a++) { /* refs in App order: cache, items */
        uint64_t cache = 0, items = 0;
        for (size_t i = 0, m = 0; i < p->n && !cache; i++)
            if (p->o[i].held == 1 && m++ == a)
                cache = first + i;
        for (size_t i = 0, m = 0; i < p->n && !items; i++)
            if (p->o[i].held == 2 && m++ == a)
                items = first + i;
        dtw_ref(w, app0 + a, cache);
        dtw_ref(w, app0 + a, items);
    }
    dtw_write(w, 1, 0, out);
    dtw_free(w);
}

/* ------------------------------------------------------------------------ */
/* The oracle */

static dwp_row *row(dwp *d, unsigned kind, int cls)
{
    d->rows = realloc(d->rows, (d->nrows + 1) * sizeof *d->rows);
    if (!d->rows)
        abort();
    dwp_row *r = &d->rows[d->nrows++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    if (cls_uri[cls][0])
        snprintf(r->type, sizeof r->type, "%s (%s)", cls_name[cls], cls_uri[cls]);
    else
        snprintf(r->type, sizeof r->type, "%s", cls_name[cls]);
    return r;
}

/* A string waste groups: recorded whole, no U+0000, no lone surrogate. */
static int exact(const dobj *s)
{
    if (s->kind != K_STR || s->kept != s->full)
        return 0;
    for (size_t i = 0; i < s->kept; i++) {
        uint16_t c = s->units[i];
        if (c == 0)
            return 0;
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < s->kept && s->units[i + 1] >= 0xDC00 &&
            s->units[i + 1] < 0xE000) {
            i++;
            continue;
        }
        if (c >= 0xD800 && c < 0xE000)
            return 0;
    }
    return 1;
}

static void utf8(const dobj *s, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < s->kept && n + 5 < cap; i++) {
        uint32_t c = s->units[i];
        if (c >= 0xD800 && c < 0xDC00) /* a pair (exact strings only) */
            c = 0x10000 + ((c - 0xD800) << 10) + (uint32_t)(s->units[++i] - 0xDC00);
        if (c < 0x80) {
            out[n++] = (char)c;
        } else if (c < 0x800) {
            out[n++] = (char)(0xC0 | c >> 6), out[n++] = (char)(0x80 | (c & 63));
        } else if (c < 0x10000) {
            out[n++] = (char)(0xE0 | c >> 12), out[n++] = (char)(0x80 | (c >> 6 & 63));
            out[n++] = (char)(0x80 | (c & 63));
        } else {
            out[n++] = (char)(0xF0 | c >> 18), out[n++] = (char)(0x80 | (c >> 12 & 63));
            out[n++] = (char)(0x80 | (c >> 6 & 63)), out[n++] = (char)(0x80 | (c & 63));
        }
    }
    out[n] = '\0';
}

static void oracle_strings(const plan *p, uint64_t first, uint64_t min, dwp *d)
{
    char *done = calloc(p->n, 1);
    for (size_t i = 0; i < p->n; i++) {
        const dobj *a = &p->o[i];
        if (done[i] || !exact(a))
            continue;
        uint64_t count = 0, bytes = 0;
        for (size_t j = i; j < p->n; j++) {
            const dobj *b = &p->o[j];
            if (exact(b) && b->kept == a->kept && memcmp(a->units, b->units, a->kept * 2) == 0) {
                done[j] = 1;
                count++;
                bytes += b->size;
            }
        }
        if (count < min)
            continue;
        dwp_row *r = row(d, GCH_WASTE_DUP_STRINGS, a->cls);
        r->id = first + i;
        r->count = count;
        r->bytes = bytes;
        r->copy = a->size;
        r->wasted = bytes - a->size;
        r->length = a->full;
        utf8(a, r->text, sizeof r->text);
    }
    free(done);
}

static void oracle_collections(const plan *p, uint64_t min, unsigned fill, dwp *d)
{
    for (int c = 0; c < NCLS; c++) {
        uint64_t empty = 0, eb = 0, under = 0, ub = 0, used = 0, cap = 0, wasted = 0, zero = 0,
                 zb = 0, zfirst = 0;
        for (size_t i = 0; i < p->n; i++) {
            const dobj *o = &p->o[i];
            if (o->cls != c)
                continue;
            const dobj *b = o->backing == SIZE_MAX ? NULL : &p->o[o->backing];
            uint64_t bcap = b ? b->length : 0;
            if (o->kind == K_LIST && o->length == 0) {
                empty++;
                eb += o->size + (bcap ? b->size : 0);
            } else if (o->kind == K_LIST && o->length < bcap && 100 * o->length < fill * bcap) {
                under++;
                ub += o->size + b->size;
                used += o->length;
                cap += bcap;
                wasted += b->size * (bcap - o->length) / bcap;
            } else if (o->kind == K_MAP && o->length == 0) {
                empty++;
                eb += o->size;
            } else if (o->kind == K_ARRAY && o->length == 0) {
                if (!zero++)
                    zfirst = o->size;
                zb += o->size;
            }
        }
        if (empty) {
            dwp_row *r = row(d, GCH_WASTE_EMPTY, c);
            r->count = empty;
            r->bytes = r->wasted = eb;
            for (size_t i = 0; i < p->n; i++) /* App holds only empty ones */
                r->holder_count += p->o[i].cls == c && p->o[i].held;
            if (r->holder_count)
                snprintf(r->holder, sizeof r->holder, "held by App (package:app/app.dart).%s (%llu)",
                         c == C_MAP ? "cache" : "items", (unsigned long long)r->holder_count);
        }
        if (under) {
            dwp_row *r = row(d, GCH_WASTE_UNDERFILLED, c);
            r->count = under;
            r->bytes = ub;
            r->used = used;
            r->capacity = cap;
            r->wasted = wasted;
        }
        if (zero >= min) {
            dwp_row *r = row(d, GCH_WASTE_ZERO_ARRAYS, c);
            r->count = zero;
            r->bytes = zb;
            r->copy = zfirst;
            r->wasted = zb - zfirst;
        }
    }
}

void dwp_make(uint64_t seed, int planted, uint64_t min_count, unsigned fill_pct, dwp *out)
{
    memset(out, 0, sizeof *out);
    plan p = { NULL, 0, 0, seed | 1 };
    plant(&p, planted, 50);
    write_snapshot(&p, &out->snapshot);
    for (size_t i = 0; i < p.n; i++)
        out->heap_bytes += p.o[i].size;
    out->heap_bytes += 24 * app_count(&p); /* the App objects (the _Smi has size 0) */
    /* The description's first object follows Root, Read-Only Pages, the isolate. */
    oracle_strings(&p, 4, min_count, out);
    oracle_collections(&p, min_count, fill_pct, out);
    free(p.o);
}

void dwp_make_big(uint64_t seed, size_t distinct, dwp *out)
{
    memset(out, 0, sizeof *out);
    plan p = { NULL, 0, 0, seed | 1 };
    plant(&p, 1, distinct);
    write_snapshot(&p, &out->snapshot);
    for (size_t i = 0; i < p.n; i++)
        out->heap_bytes += p.o[i].size;
    free(p.o);
}

void dwp_free(dwp *d)
{
    dtw_buf_free(&d->snapshot);
    free(d->rows);
    memset(d, 0, sizeof *d);
}

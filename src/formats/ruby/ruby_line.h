/* One line of a Ruby heap dump (ObjectSpace.dump_all): a flat JSON object,
 * parsed in place (internal to the Ruby reader; docs/ruby-format.md).
 *
 * The parser checks the whole line is one JSON object (strings, numbers,
 * literals, arrays and objects nested to any depth, walked with a counter:
 * no recursion) and picks the members the reader uses from the top level:
 * address, type, class, superclass, references, memsize, name, root,
 * imemo_type, struct, value, file, line. The others (flags, bytesize,
 * embedded, ...) are checked and skipped. Strings are kept as the bytes
 * between their quotes, escapes unresolved (rb_unescape turns them into
 * text). */
#ifndef GCHEAP_RUBY_LINE_H
#define GCHEAP_RUBY_LINE_H

#include <stddef.h>
#include <stdint.h>

/* The object kinds dump_all writes ("type"), in obj_type()'s order of
 * objspace_dump.c, plus ROOT. RB_UNKNOWN: any other word (kept as text). */
typedef enum rb_kind {
    RB_UNKNOWN = 0,
    RB_ROOT,
    RB_NONE, RB_NIL, RB_OBJECT, RB_CLASS, RB_ICLASS, RB_MODULE, RB_FLOAT, RB_STRING,
    RB_REGEXP, RB_ARRAY, RB_HASH, RB_STRUCT, RB_BIGNUM, RB_FILE, RB_FIXNUM, RB_TRUE,
    RB_FALSE, RB_DATA, RB_MATCH, RB_SYMBOL, RB_RATIONAL, RB_COMPLEX, RB_IMEMO, RB_UNDEF,
    RB_NODE, RB_ZOMBIE, RB_MOVED,
    RB_KIND_COUNT
} rb_kind;

/* The word dump_all writes for kind k ("OBJECT"), NULL for RB_UNKNOWN. */
const char *rb_kind_word(rb_kind k);

/* A string member: the bytes between the quotes, escapes unresolved. */
typedef struct rb_str {
    const char *p;
    size_t n;
    int escaped; /* holds a backslash */
} rb_str;

typedef struct rb_record {
    rb_kind kind;
    rb_str type;          /* the "type" word as written */
    uint64_t address;     /* 0 when absent */
    uint64_t klass;       /* "class", 0 when absent */
    uint64_t superclass;  /* "superclass", 0 when absent */
    uint64_t memsize;     /* 0 when absent */
    uint64_t line;        /* "line" */
    int has_address, has_type, has_line, has_value, has_file, has_name;
    rb_str name, root, imemo_type, strct, value, file;
    /* "references": their count and where the addresses went (refs[0..]) */
    size_t nrefs;
} rb_record;

/* Growing room for references (the reader owns it): a line's references
 * are written from v[at] on, so that a piece of lines can keep them all. */
typedef struct rb_refs {
    uint64_t *v;
    size_t cap;
    size_t at;
} rb_refs;

/* Parses the line [p, end) (no newline) into *r, the references into
 * refs->v[refs->at ...]. Returns NULL on success, else a message (static text) and *col
 * the offset in the line where it went wrong. Returns "out of memory" only
 * when refs cannot grow. */
const char *rb_parse_line(const char *p, const char *end, rb_record *r, rb_refs *refs, size_t *col);

/* rb_parse_line is these two: the fast path, which takes the object lines
 * laid out as dump_all writes them ("address" first, ", " between members,
 * no other blank, nothing nested but "references" and a flat "flags") and
 * returns 1 with *r (and the references) as the general parser would fill
 * them, or 0 for any other line (then *r holds anything); and the general
 * parser, any JSON object line, which also words every error. Apart for the
 * tests that hold one to the other. */
int rb_parse_line_fast(const char *p, const char *end, rb_record *r, rb_refs *refs);
const char *rb_parse_line_general(const char *p, const char *end, rb_record *r, rb_refs *refs,
                                  size_t *col);

/* Writes the text of JSON string s (escapes resolved, \u0000 as U+FFFD so
 * the result holds no NUL) to out, which has room for s.n bytes (the
 * unescaped text is never longer). Returns its length. s was checked by
 * rb_parse_line. */
size_t rb_unescape(rb_str s, char *out);

#endif

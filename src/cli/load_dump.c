/* Loading dumps for the commands: messages, progress line, section choice. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/rules.h"
#include "gcheap/waste.h"
#include "index_cli.h"
#include "run_ctx.h"
#include "platform.h"
#include "text.h"

int cli_ctx_err_is_tty(void) { return cli_ctx_get()->err == stderr && plat_stderr_is_tty(); }

const char *cli_display_path(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

typedef struct progress {
    const char *path;    /* named on the line: diff reads two files */
    uint64_t total;      /* 0 when unknown (a pipe) */
    double last;
    int shown;
} progress;

static void on_progress(void *ctx, uint64_t bytes)
{
    progress *p = ctx;
    double now = plat_now();
    if (now - p->last < 0.2)
        return;
    p->last = now;
    if (!p->shown)
        plat_clear_line_on_interrupt();
    p->shown = 1;
    char name[256];
    message_text(cli_display_path(p->path), name, sizeof name);
    if (p->total)
        fprintf(stderr, "\r\033[Kgcheap: reading %s %3d%% (%" PRIu64 " MB)", name,
                (int)(bytes * 100 / p->total), bytes / 1000000);
    else
        fprintf(stderr, "\r\033[Kgcheap: reading %s %" PRIu64 " MB", name, bytes / 1000000);
    fflush(stderr);
}

/* The file, and a copy of its first bytes: when --input-format names another
 * format than the file's signature, the error says so. */
typedef struct file_source {
    plat_file *f;
    unsigned char head[64];
    size_t head_size;
} file_source;

static long long source_read(void *ctx, void *buf, size_t cap)
{
    file_source *fs = ctx;
    long long got = plat_read(fs->f, buf, cap);
    if (got > 0 && fs->head_size < sizeof fs->head) {
        size_t n = sizeof fs->head - fs->head_size;
        if (n > (size_t)got)
            n = (size_t)got;
        memcpy(fs->head + fs->head_size, buf, n);
        fs->head_size += n;
    }
    return got;
}

/* The parsed part of a mapped file leaves memory as the parser moves on. */
static void release_parsed(void *ctx, const void *data, size_t size)
{
    plat_release(ctx, data, size);
}

/* The classes whose instance fields a load keeps: waste's, the leak rules',
 * or both (a NULL-terminated list in static storage). */
static const char *const *field_classes(int need)
{
    static const char *both[128];
    int waste = (need & CLI_LOAD_FIELDS) != 0, rules = (need & CLI_LOAD_RULE_FIELDS) != 0;
    if (!waste || !rules)
        return waste ? gch_waste_field_classes() : rules ? gch_rule_field_classes() : NULL;
    if (!both[0]) {
        size_t n = 0;
        const char *const *lists[2] = { gch_waste_field_classes(), gch_rule_field_classes() };
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; lists[k][i] && n + 1 < sizeof both / sizeof *both; i++)
                both[n++] = lists[k][i];
    }
    return both;
}

int cli_load(const char *path, const cli_common *common, int need_refs, gch_dump **out)
{
    const char *reason = NULL;
    *out = NULL;
    int ix = cli_index_load(path, common, need_refs, out);
    if (ix)
        return ix == 1 ? 0 : ix;
    plat_file *f = plat_open(path, &reason);
    if (!f) {
        cli_error("%s: %s", cli_display_path(path), reason);
        return EXIT_INPUT;
    }
    file_source fs;
    memset(&fs, 0, sizeof fs);
    fs.f = f;
    gch_source src = { source_read, &fs };
    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_refs = !(need_refs & CLI_LOAD_REFS);
    opts.skip_labels = !(need_refs & CLI_LOAD_LABELS);
    /* GCHEAP_TEST_STORE_OBJECTS: a test hook (tests/cli/histogram_only.sh)
     * that loads the objects anyway, to compare both paths. */
    opts.histogram_only = (need_refs & CLI_LOAD_TYPE_TOTALS) && !getenv("GCHEAP_TEST_STORE_OBJECTS");
    opts.threads = cli_threads(common);
    opts.size_buckets = common->size_buckets;
    opts.keep_modules = common->module;
    opts.hprof_compressed_refs = common->hprof_refs;
    /* Ruby keeps String values in the heap, from a pipe or gzip too. */
    opts.keep_payloads = (need_refs & CLI_LOAD_PAYLOADS) != 0;
    opts.v8_raw = common->v8_raw;
    progress prog = { path, plat_size(f), plat_now(), 0 };
    /* A regular file (its size is known) reads fastest in line; a pipe is read
     * ahead (docs/performance.md, round 4). */
    opts.no_read_ahead = prog.total > 0;
    if (!common->no_progress && !common->quiet && cli_ctx_err_is_tty()) {
        opts.progress = on_progress;
        opts.progress_ctx = &prog;
    }
    gch_error err;
    gch_status st;
    char name[512];
    uint64_t size;
    /* A session (shell, mcp) reads the file into a copy: a mapping's pages
     * vanish if the file shrinks meanwhile, and the SIGBUS that touching one
     * raises can only end the process (plat_map), not a command; nor can
     * the readers be handed other bytes than they saw a moment before. The
     * copy costs the file's size in memory while the load runs. The
     * one-shot program maps (no copy, no extra memory). */
    void *copy = NULL;
    const void *bytes;
    if (need_refs & CLI_LOAD_COPY) {
        const char *why = NULL;
        bytes = copy = plat_read_whole(f, &size, &why);
        if (!copy && why) {
            plat_close(f);
            cli_error("%s: %s", cli_display_path(path), why);
            return EXIT_INPUT;
        }
    } else {
        bytes = plat_map(f, message_text(cli_display_path(path), name, sizeof name), &size);
    }
    if (bytes) {
        /* In place: no copy of the file (docs/performance.md, round 5). */
        fs.head_size = size < sizeof fs.head ? (size_t)size : sizeof fs.head;
        memcpy(fs.head, bytes, fs.head_size);
        opts.release = copy ? NULL : release_parsed;
        opts.release_ctx = f;
        /* Offsets into the mapping are offsets into the file: a command
         * reads the bytes there again (payload.c). */
        opts.keep_payloads = (need_refs & CLI_LOAD_PAYLOADS) != 0;
        opts.keep_fields = (need_refs & (CLI_LOAD_FIELDS | CLI_LOAD_RULE_FIELDS)) != 0;
        opts.field_classes = field_classes(need_refs);
        st = gch_load_buffer(bytes, (size_t)size, common->input_format, &opts, out, &err);
        free(copy);
    } else {
        st = gch_load(&src, common->input_format, &opts, out, &err);
    }
    plat_close(f);
    if (prog.shown)
        fputs("\r\033[K", stderr);
    if (st == GCH_OK)
        return 0;
    const char *shown = cli_display_path(path);
    /* Only formats with a signature (gcdump, dart) are recognised for sure:
     * anything else detects as gclog. */
    gch_format seen = gch_detect_format(fs.head, fs.head_size);
    if (st == GCH_EFORMAT && common->input_format != GCH_FORMAT_AUTO && seen != GCH_FORMAT_GCLOG &&
        seen != common->input_format) {
        cli_error("%s: not a %s file: it starts like a %s file (--input-format %s was given)", shown,
                  gch_format_name(common->input_format), gch_format_name(seen),
                  gch_format_name(common->input_format));
        return EXIT_INPUT;
    }
    /* Malformed input and input past a limit (GCH_ELIMIT) both say where. */
    int located = st == GCH_EFORMAT || st == GCH_ELIMIT;
    if (located && err.line)
        cli_error("%s:%" PRIu64 ": %s", shown, err.line, err.message);
    else if (located && err.has_offset)
        cli_error("%s: offset %" PRIu64 ": %s", shown, err.offset, err.message);
    else
        cli_error("%s: %s", shown, err.message[0] ? err.message : gch_status_string(st));
    return EXIT_INPUT;
}

int cli_select(const char *command, const char *path, const gch_dump *dump, const cli_common *common,
               int lenient, gch_heap ***out, size_t *count)
{
    *out = xmalloc_array(dump->heap_count, sizeof **out);
    *count = 0;
    for (size_t i = 0; i < dump->heap_count; i++)
        if (!common->domain || strcmp(common->domain, dump->heaps[i]->name) == 0)
            (*out)[(*count)++] = dump->heaps[i];
    if (*count == 0 && common->domain && !lenient) {
        strbuf b = STRBUF_INIT;
        sb_addf(&b, "%s: %s: no section named '%s' (sections:", command, cli_display_path(path),
                common->domain);
        char safe[512];
        for (size_t i = 0; i < dump->heap_count; i++)
            sb_addf(&b, "%s '%s'", i ? "," : "", message_text(dump->heaps[i]->name, safe, sizeof safe));
        cli_error("%s)", sb_str(&b));
        sb_free(&b);
        free(*out);
        *out = NULL;
        return EXIT_INPUT;
    }
    return 0;
}

void cli_warn_anomalies(const char *path, const gch_dump *dump, const gch_heap *h,
                        const cli_common *common, int loaded)
{
    if (common->quiet)
        return;
    const gch_anomalies *a = &h->anomalies;
    char line[1024];
    size_t n = 0;
#define ADD(...) n += (size_t)snprintf(line + n, n < sizeof line ? sizeof line - n : 0, __VA_ARGS__)
    const char *fmt = h->id_radix == 10 ? "%" PRIu64 : "%" PRIx64;
    char id[32];
    if (a->dangling_refs && (loaded & CLI_LOAD_REFS)) {
        snprintf(id, sizeof id, fmt, a->first_dangling_ref);
        ADD("%s%" PRIu64 " %s (first: %s, held by %" PRIu64 " object%s: see gcheap info)",
            n ? ", " : "", a->dangling_refs,
            a->dangling_refs == 1 ? "reference to an absent object" : "references to absent objects", id,
            a->dangling_holders, a->dangling_holders == 1 ? "" : "s");
    }
    if (a->unknown_type_objects)
        ADD("%s%" PRIu64 " object%s of %" PRIu64 " undeclared type%s", n ? ", " : "",
            a->unknown_type_objects, a->unknown_type_objects == 1 ? "" : "s", a->unknown_types,
            a->unknown_types == 1 ? "" : "s");
    if (a->dangling_roots)
        ADD("%s%" PRIu64 " %s", n ? ", " : "", a->dangling_roots,
            a->dangling_roots == 1 ? "root on an absent object" : "roots on absent objects");
    if (a->duplicate_objects) {
        snprintf(id, sizeof id, fmt, a->first_duplicate_object);
        ADD("%s%" PRIu64 " duplicate object record%s ignored (first: %s)", n ? ", " : "",
            a->duplicate_objects, a->duplicate_objects == 1 ? "" : "s", id);
    }
    if (a->duplicate_types)
        ADD("%s%" PRIu64 " duplicate type record%s ignored", n ? ", " : "", a->duplicate_types,
            a->duplicate_types == 1 ? "" : "s");
    if (a->absent_containers)
        ADD("%s%" PRIu64 " static root%s with an undeclared container type", n ? ", " : "",
            a->absent_containers, a->absent_containers == 1 ? "" : "s");
    if (a->missing_end)
        ADD("%sno end record (truncated dump?)", n ? ", " : "");
    if (a->end_name_mismatch)
        ADD("%send record names another section", n ? ", " : "");
    if (h->sampled)
        ADD("%ssampled dump: counts are estimates", n ? ", " : "");
#undef ADD
    if (!n)
        return;
    char safe[512];
    if (dump->heap_count > 1)
        stderr_printf("gcheap: warning: %s [%s]: %s\n", cli_display_path(path),
                message_text(h->name, safe, sizeof safe), line);
    else
        stderr_printf("gcheap: warning: %s: %s\n", cli_display_path(path), line);
}

const char *cli_type_name(const gch_heap *heap, uint32_t type, const cli_common *common, char *buf,
                          size_t cap)
{
    const char *name = gch_type_name(heap, type);
    if (common->module && heap->type_module && heap->type_module[type] != GCH_NONE) {
        snprintf(buf, cap, "%s!%s", gch_heap_string(heap, heap->type_module[type]), name);
        return buf;
    }
    if (common->short_names) {
        /* Dart names read "Name (library URI)": keep the part before " (". */
        const char *paren = strstr(name, " (");
        if (paren && name[strlen(name) - 1] == ')') {
            size_t n = (size_t)(paren - name);
            if (n >= cap)
                n = cap - 1;
            memcpy(buf, name, n);
            buf[n] = '\0';
            return buf;
        }
    }
    return name;
}

const char *cli_root_flags_text(unsigned flags, char *buf, size_t cap)
{
    static const char *const names[] = { "pinned", "weak", "interior" };
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned bit = 0; bit < 8 && n < cap; bit++) {
        if (!(flags & (1u << bit)))
            continue;
        const char *sep = n ? "|" : "";
        if (bit < 3)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, names[bit]);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s0x%x", sep, 1u << bit);
    }
    if (!n)
        snprintf(buf, cap, "-");
    return buf;
}

const char *cli_root_container_text(const gch_heap *h, uint32_t r, const cli_common *c, char *buf,
                                    size_t cap)
{
    buf[0] = '\0';
    if (!h->root_has_container || !h->root_has_container[r])
        return buf;
    if (h->root_container[r] != GCH_NONE) {
        char tmp[4096];
        snprintf(buf, cap, "%s", cli_type_name(h, h->root_container[r], c, tmp, sizeof tmp));
    } else {
        snprintf(buf, cap, h->id_radix == 10 ? "<unknown type %" PRIu64 ">" : "<unknown type %" PRIx64 ">",
                 h->root_container_raw[r]);
    }
    return buf;
}

const char *cli_root_holder_name(const gch_heap *h, uint32_t r, const cli_common *c, char *buf,
                                 size_t cap)
{
    char cont[4096];
    const char *label = h->root_label && h->root_label[r] != GCH_NONE
                            ? gch_heap_string(h, h->root_label[r]) : "";
    cli_root_container_text(h, r, c, cont, sizeof cont);
    snprintf(buf, cap, "%.1000s%s%.1000s", cont, *cont && *label ? "." : "", label);
    return buf;
}

const char *cli_root_holder_text(const gch_heap *h, uint32_t r, const cli_common *c, char *buf,
                                 size_t cap)
{
    char name[2100];
    cli_root_holder_name(h, r, c, name, sizeof name);
    snprintf(buf, cap, "%s%s%s", gch_root_kind_name(h->root_kind[r]), *name ? " " : "", name);
    return buf;
}

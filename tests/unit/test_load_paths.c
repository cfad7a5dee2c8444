/* The loader's and the sniffer's less travelled paths (issue 36: every
 * reader at 90% or more of its lines, docs/reliability.md): what each
 * foreign file signature is called (the magic numbers of file(1)'s magic
 * database and of each format's own documentation), read errors of the
 * source before, inside and after detection, with gzip and without, a
 * forced format the data is not, progress through gzip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gcheap/load.h"
#include "sniff.h"

static void expect_sniff(const char *bytes, size_t n, int in_gzip, const char *want)
{
    const char *got = gch_sniff_foreign((const unsigned char *)bytes, n, in_gzip);
    if (!want) {
        if (got)
            fail_msg("%zu bytes: got '%s', want none", n, got);
        return;
    }
    if (!got || strcmp(got, want) != 0)
        fail_msg("%zu bytes: got '%s', want '%s'", n, got ? got : "(none)", want);
}

#define SNIFF(lit, g, want) expect_sniff(lit, sizeof lit - 1, g, want)

static void test_sniff_signatures(void **state)
{
    (void)state;
    SNIFF("", 0, "an empty file");
    SNIFF("", 1, "an empty file once decompressed");
    SNIFF("\x1f\x8b\x08\x00", 1, "gzip data inside gzip data: decompress it once first");
    SNIFF("dart", 0, "a Dart heap snapshot cut short");
    SNIFF("\x14\0\0\0!FastSer", 0, "a .gcdump file cut short");
    SNIFF("BZh91AY&SY", 0, "bzip2 data: only gzip is read, decompress it first");
    SNIFF("\xfd" "7zXZ\0\0\x04", 0, "xz data: only gzip is read, decompress it first");
    SNIFF("\x28\xb5\x2f\xfd\0\0", 0, "zstd data: only gzip is read, decompress it first");
    SNIFF("\x04\x22\x4d\x18\0\0", 0, "lz4 data: only gzip is read, decompress it first");
    SNIFF("7z\xbc\xaf\x27\x1c\0\x04", 0, "a 7-Zip archive");
    SNIFF("PK\x03\x04\x14\0", 0, "a zip archive");
    SNIFF("PK\x05\x06\0\0", 0, "a zip archive");
    SNIFF("\x89PNG\r\n\x1a\n", 0, "a PNG image");
    SNIFF("\xff\xd8\xff\xe0", 0, "a JPEG image");
    SNIFF("GIF89a\x01\0", 0, "a GIF image");
    SNIFF("GIF87a\x01\0", 0, "a GIF image");
    SNIFF("%PDF-1.7\n", 0, "a PDF document");
    SNIFF("\xef\xbb\xbf  <!DOCTYPE html>", 0, "an HTML page");
    SNIFF("\n<HTML><body>", 0, "an HTML page");
    SNIFF("<?xml version=\"1.0\"?>", 0, "an XML document");
    SNIFF("<svg xmlns=", 0, "HTML or XML markup");
    SNIFF(" {\"a\": 1}", 0, "JSON text, but not a V8 or JavaScriptCore heap snapshot");
    SNIFF("[1, 2]", 0, "JSON text, but not a V8 or JavaScriptCore heap snapshot");
    SNIFF("4242:\n num     #instances         #bytes  class name (module)\n", 0,
          "a JVM class histogram (jcmd GC.class_histogram, jmap -histo), which counts classes "
          "but holds no objects: take a heap dump with jcmd PID GC.heap_dump FILE");
    SNIFF("MDMP\x93\xa7\0\0", 0, "a Windows minidump, a process image");
    SNIFF("\xfe\xed\xfa\xcf\0\0", 0, "a Mach-O file");
    SNIFF("\xcf\xfa\xed\xfe\0\0", 0, "a Mach-O file");
    SNIFF("\x01\x02\x03", 0, "binary data");
    SNIFF("\x7f\x7f", 0, "binary data");
    SNIFF("hello", 0, NULL);
    /* ELF: e_ident[5] is the byte order, e_type the u2 at 16. */
    char elf[20];
    memset(elf, 0, sizeof elf);
    memcpy(elf, "\x7f" "ELF\x02\x01", 6);
    static const char *const kinds[] = { "an ELF file", "an ELF object file", "an ELF executable",
                                         "an ELF shared library or executable",
                                         "an ELF core dump, a process image", "an ELF file" };
    for (unsigned t = 0; t < 6; t++) {
        elf[16] = (char)t; /* little-endian */
        expect_sniff(elf, sizeof elf, 0, kinds[t]);
    }
    elf[5] = 2; /* big-endian: the type is in byte 17 */
    elf[16] = 0;
    elf[17] = 3;
    expect_sniff(elf, sizeof elf, 0, kinds[3]);
    elf[5] = 7; /* no byte order */
    expect_sniff(elf, sizeof elf, 0, "an ELF file");
    expect_sniff(elf, 10, 0, "an ELF file");
    char mz[64];
    memset(mz, 0, sizeof mz);
    memcpy(mz, "MZ", 2);
    expect_sniff(mz, sizeof mz, 0, "a Windows executable");
    expect_sniff(mz, 10, 0, NULL); /* "MZ": too short for a PE header, and text */
}

/* A source that hands out `data` in pieces of `piece` bytes and then fails
 * (returns -1) once `fail_at` bytes were given (SIZE_MAX: never). */
typedef struct src_state {
    const unsigned char *data;
    size_t size, pos, piece, fail_at;
} src_state;

static long long src_read(void *ctx, void *buf, size_t cap)
{
    src_state *s = ctx;
    if (s->pos >= s->fail_at)
        return -1;
    size_t n = s->size - s->pos;
    if (n > cap)
        n = cap;
    if (n > s->piece)
        n = s->piece;
    if (s->fail_at != SIZE_MAX && n > s->fail_at - s->pos)
        n = s->fail_at - s->pos;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (long long)n;
}

static unsigned char *read_file(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GCHEAP_TESTDATA, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    rewind(f);
    unsigned char *p = malloc((size_t)n + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return p;
}

static gch_status load_with(const unsigned char *data, size_t size, size_t piece, size_t fail_at,
                            gch_format format, const gch_load_options *o, gch_error *err)
{
    src_state s = { data, size, 0, piece, fail_at };
    gch_source src = { src_read, &s };
    gch_dump *d = NULL;
    gch_status st = gch_load(&src, format, o, &d, err);
    if (st == GCH_OK)
        gch_dump_free(d);
    else
        assert_null(d);
    return st;
}

/* Read errors: in the 64-byte head, while a binary format is slurped, and
 * inside a gzip stream (plain and gzip, every format that has a file). */
static void test_read_errors(void **state)
{
    (void)state;
    static const char *const files[] = { "basic.gclog", "hprof/leak.hprof", "gzip/sample.gclog.6.gz",
                                         "hprof/leak.hprof" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        size_t size;
        unsigned char *data = read_file(files[i], &size);
        gch_error err;
        assert_int_equal(load_with(data, size, 4096, SIZE_MAX, GCH_FORMAT_AUTO, NULL, &err), GCH_OK);
        size_t cuts[] = { 0, 10, 100, size / 2, size - 1 };
        for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
            gch_status st = load_with(data, size, 4096, cuts[c], GCH_FORMAT_AUTO, NULL, &err);
            assert_int_not_equal(st, GCH_OK);
            if (st == GCH_EIO)
                assert_non_null(strstr(err.message, "read error"));
        }
        free(data);
    }
}

/* A forced format the data is not: "not a ... file" or the reader's own
 * error; an unknown format value is the caller's mistake. */
static void test_forced_formats(void **state)
{
    (void)state;
    size_t size;
    unsigned char *gclog = read_file("basic.gclog", &size);
    gch_error err;
    static const gch_format binary[] = { GCH_FORMAT_GCDUMP, GCH_FORMAT_DART, GCH_FORMAT_HPROF };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(load_with(gclog, size, 7, SIZE_MAX, binary[i], NULL, &err), GCH_EFORMAT);
        gch_dump *d = NULL;
        assert_int_equal(gch_load_buffer(gclog, size, binary[i], NULL, &d, &err), GCH_EFORMAT);
        assert_null(d);
    }
    assert_int_equal(load_with(gclog, size, 7, SIZE_MAX, (gch_format)99, NULL, &err), GCH_EINVAL);
    gch_dump *d = NULL;
    assert_int_equal(gch_load_buffer(gclog, size, (gch_format)99, NULL, &d, &err), GCH_EINVAL);
    free(gclog);
}

/* Progress through gzip: reported in compressed bytes, never past the
 * file's size, and reaching it (stream and buffer). */
typedef struct progress { uint64_t last, calls, size; int backwards; } progress;

static void on_progress(void *ctx, uint64_t bytes)
{
    progress *p = ctx;
    if (bytes < p->last || bytes > p->size)
        p->backwards = 1;
    p->last = bytes;
    p->calls++;
}

static void test_gzip_progress(void **state)
{
    (void)state;
    static const char *const files[] = { "gzip/sample.gclog.6.gz", "gzip/sample.gclog.1.gz" };
    for (size_t i = 0; i < 2; i++) {
        size_t size;
        unsigned char *data = read_file(files[i], &size);
        progress p = { 0, 0, size, 0 };
        gch_load_options o;
        memset(&o, 0, sizeof o);
        o.progress = on_progress;
        o.progress_ctx = &p;
        gch_error err;
        assert_int_equal(load_with(data, size, 1000, SIZE_MAX, GCH_FORMAT_AUTO, &o, &err), GCH_OK);
        assert_true(p.calls > 0);
        assert_false(p.backwards);
        assert_int_equal(p.last, size);
        memset(&p, 0, sizeof p);
        p.size = size;
        gch_dump *d = NULL;
        assert_int_equal(gch_load_buffer(data, size, GCH_FORMAT_AUTO, &o, &d, &err), GCH_OK);
        gch_dump_free(d);
        assert_true(p.calls > 0);
        assert_false(p.backwards);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sniff_signatures),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_forced_formats),
        cmocka_unit_test(test_gzip_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

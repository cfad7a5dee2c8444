/* Naming what an input is when it is not a heap dump: see sniff.h.
 *
 * A .gclog is text whose first line is blank or starts with a record letter,
 * and the binary formats start with their signature, so a known signature of
 * another kind of file, markup, or a control byte first cannot start a dump.
 * Text that merely is not a .gclog is left to the .gclog reader, whose message
 * names the line. */
#include "sniff.h"

#include <ctype.h>
#include <string.h>

static int starts(const unsigned char *p, size_t n, const char *sig, size_t len)
{
    return n >= len && memcmp(p, sig, len) == 0;
}

/* Case-insensitive prefix. */
static int starts_nocase(const unsigned char *p, size_t n, const char *word)
{
    size_t len = strlen(word);
    if (n < len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (tolower(p[i]) != word[i])
            return 0;
    return 1;
}

static const char *elf_kind(const unsigned char *p, size_t n)
{
    if (n < 18 || (p[5] != 1 && p[5] != 2))
        return "an ELF file";
    unsigned type = p[5] == 1 ? (unsigned)p[16] | (unsigned)p[17] << 8 : (unsigned)p[16] << 8 | p[17];
    switch (type) {
    case 1: return "an ELF object file";
    case 2: return "an ELF executable";
    case 3: return "an ELF shared library or executable";
    case 4: return "an ELF core dump, a process image";
    default: return "an ELF file";
    }
}

/* A signature cut short: the whole input is a prefix of it. */
static int cut_signature(const unsigned char *p, size_t n, const char *sig, size_t len)
{
    return n > 0 && n < len && memcmp(p, sig, n) == 0;
}

static const char *compressed(const unsigned char *p, size_t n)
{
    if (starts(p, n, "BZh", 3) && n > 3 && p[3] >= '1' && p[3] <= '9')
        return "bzip2 data: only gzip is read, decompress it first";
    if (starts(p, n, "\xfd" "7zXZ", 6))
        return "xz data: only gzip is read, decompress it first";
    if (starts(p, n, "\x28\xb5\x2f\xfd", 4))
        return "zstd data: only gzip is read, decompress it first";
    if (starts(p, n, "\x04\x22\x4d\x18", 4))
        return "lz4 data: only gzip is read, decompress it first";
    if (starts(p, n, "7z\xbc\xaf\x27\x1c", 6))
        return "a 7-Zip archive";
    if (starts(p, n, "PK\x03\x04", 4) || starts(p, n, "PK\x05\x06", 4) || starts(p, n, "PK\x07\x08", 4))
        return "a zip archive";
    return NULL;
}

/* Whether text (NUL-free ASCII) occurs in the n bytes at p. */
static int has_text(const unsigned char *p, size_t n, const char *text)
{
    size_t len = strlen(text);
    for (size_t i = 0; i + len <= n; i++)
        if (memcmp(p + i, text, len) == 0)
            return 1;
    return 0;
}

static const char *documents(const unsigned char *p, size_t n)
{
    if (starts(p, n, "\x89PNG", 4))
        return "a PNG image";
    if (starts(p, n, "\xff\xd8\xff", 3))
        return "a JPEG image";
    if (starts(p, n, "GIF87a", 6) || starts(p, n, "GIF89a", 6))
        return "a GIF image";
    if (starts(p, n, "%PDF-", 5))
        return "a PDF document";
    size_t i = 0;
    if (starts(p, n, "\xef\xbb\xbf", 3))
        i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    if (starts_nocase(p + i, n - i, "<!doctype html") || starts_nocase(p + i, n - i, "<html"))
        return "an HTML page";
    if (starts(p + i, n - i, "<?xml", 5))
        return "an XML document";
    if (i < n && p[i] == '<')
        return "HTML or XML markup";
    if (i < n && (p[i] == '{' || p[i] == '['))
        return "JSON text, but not a V8 or JavaScriptCore heap snapshot";
    if (has_text(p, n, "#instances"))
        return "a JVM class histogram (jcmd GC.class_histogram, jmap -histo), which counts "
               "classes but holds no objects: take a heap dump with jcmd PID GC.heap_dump FILE";
    return NULL;
}

static const char *executables(const unsigned char *p, size_t n)
{
    if (starts(p, n, "\x7f" "ELF", 4))
        return elf_kind(p, n);
    if (starts(p, n, "MDMP", 4))
        return "a Windows minidump, a process image";
    if (starts(p, n, "\xfe\xed\xfa\xce", 4) || starts(p, n, "\xfe\xed\xfa\xcf", 4) ||
        starts(p, n, "\xce\xfa\xed\xfe", 4) || starts(p, n, "\xcf\xfa\xed\xfe", 4))
        return "a Mach-O file";
    if (starts(p, n, "MZ", 2) && n >= 64)
        return "a Windows executable";
    return NULL;
}

const char *gch_sniff_foreign(const unsigned char *head, size_t n, int inside_gzip)
{
    if (n == 0)
        return inside_gzip ? "an empty file once decompressed" : "an empty file";
    if (inside_gzip && n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return "gzip data inside gzip data: decompress it once first";
    if (cut_signature(head, n, "dartheap", 8))
        return "a Dart heap snapshot cut short";
    if (n >= 4 && cut_signature(head, n, "\x14\0\0\0!FastSerialization.1", 24))
        return "a .gcdump file cut short";
    const char *what = compressed(head, n);
    if (!what)
        what = documents(head, n);
    if (!what)
        what = executables(head, n);
    if (!what && ((head[0] < 0x20 && !isspace(head[0])) || head[0] == 0x7f))
        what = "binary data";
    return what;
}

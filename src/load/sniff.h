/* sniff.h - naming inputs that are not heap dumps from their first bytes. */
#ifndef GCH_SNIFF_H
#define GCH_SNIFF_H

#include <stddef.h>

/* What the first n bytes at head (64 are enough) look like when they cannot
 * start a dump of any format gcheap reads ("a zip archive", "an ELF core
 * dump", "an empty file", ...), or NULL when they may start one. Called only
 * when detection found no binary format's signature. inside_gzip: the bytes
 * came out of a gzip file (the names then say so). */
const char *gch_sniff_foreign(const unsigned char *head, size_t n, int inside_gzip);

#endif

/* gcheap/utf8.h - the one UTF-8 encoder (the readers that decode UTF-16 or
 * JSON escapes, and the program's string payloads). */
#ifndef GCHEAP_UTF8_H
#define GCHEAP_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Writes code point cp (at most 0x10FFFF; surrogates are the caller's
 * business) as UTF-8 into out, which has room for 4 bytes; returns the
 * number of bytes written, 1 to 4. */
size_t gch_utf8_encode(uint32_t cp, unsigned char *out);

/* The UTF-16 code units of n bytes of UTF-8 (JavaScript's String length):
 * one a code point, two for one above U+FFFF (a 4-byte sequence). */
size_t gch_utf16_units(const char *s, size_t n);

#endif

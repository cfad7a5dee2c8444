/* The UTF-8 encoder: see include/gcheap/utf8.h. */
#include "gcheap/utf8.h"

size_t gch_utf8_encode(uint32_t cp, unsigned char *o)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    size_t n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    static const unsigned char lead[5] = { 0, 0, 0xc0, 0xe0, 0xf0 };
    for (size_t i = n - 1; i > 0; i--) {
        o[i] = (unsigned char)(0x80 | (cp & 0x3f));
        cp >>= 6;
    }
    o[0] = (unsigned char)(lead[n] | cp);
    return n;
}

size_t gch_utf16_units(const char *s, size_t n)
{
    size_t units = 0;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if ((c & 0xc0) != 0x80)
            units += c >= 0xf0 ? 2 : 1;
    }
    return units;
}

/* The hexadecimal digit decoder: see include/gcheap/hex.h. */
#include "gcheap/hex.h"

int gch_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

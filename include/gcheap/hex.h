/* gcheap/hex.h - the one hexadecimal digit decoder (JSON's \u escapes in the
 * tokenizer and the MCP parser, %XX in file URIs, hexadecimal object ids). */
#ifndef GCHEAP_HEX_H
#define GCHEAP_HEX_H

/* The value 0..15 of hexadecimal digit c (either case), -1 when c is none. */
int gch_hex_digit(int c);

#endif

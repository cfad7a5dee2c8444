#!/bin/bash
# Writes the hand-made Dart heap snapshot fixtures byte by byte. The .dartheap
# files are committed; this script documents them and can recreate them:
#   cd testdata/dart && bash make_fixtures.sh
# Every value below is one LEB128 byte unless noted. Expected contents are
# counted by hand in tests/unit/test_dart_fixtures.c.
set -eu
cd "$(dirname "$0")"

hex() { local x; for x in "$@"; do printf "\\x$x"; done; }   # raw bytes
str() { printf '%s' "$1"; }                                      # ASCII text

# mini.dartheap: the VM layout (Root, Read-Only Pages, one isolate), field
# names, a _Smi of -1 (uleb of the 64-bit pattern, 10 bytes), an external
# property, identity hash codes and 3 bytes of zero padding.
{
  str dartheap
  hex 00                                   # flags
  hex 04; str mini                         # name "mini"
  hex 30 40 0a                             # shallow size 48, capacity 64, external size 10
  hex 05                                   # 5 classes
  hex 00 04; str Root; hex 00 00 00 00     # class 1 Root: no library, no fields
  hex 00 0f; str "Read-Only Pages"; hex 00 00 00 00   # class 2
  hex 00 07; str Isolate; hex 00 00 00 01  # class 3 Isolate, 1 field:
  hex 01 00 05; str count; hex 00          #   strong, index 0, "count", reserved ""
  hex 00 04; str Node; hex 03; str app; hex 12; str package:app/a.dart; hex 00 02   # class 4 Node, 2 fields:
  hex 01 00 04; str next; hex 00           #   index 0 "next"
  hex 01 01 05; str value; hex 00          #   index 1 "value"
  hex 00 04; str _Smi; hex 09; str dart.core; hex 09; str dart:core; hex 00 00      # class 5 _Smi
  hex 08                                   # reference count 8
  hex 06                                   # 6 objects
  hex 01 00 00 03 04 02 03                 # 1 Root, size 0, NoData, refs 4, 2, 3
  hex 02 00 00 00                          # 2 Read-Only Pages, size 0, NoData, no refs
  hex 03 00 08 04; str 1234; hex 01 05     # 3 Isolate, size 0, NameData "1234", refs 5
  hex 04 18 00 02 05 06                    # 4 Node, size 24, NoData, refs 5, 6
  hex 04 18 00 02 00 06                    # 5 Node, size 24, NoData, refs 0 (omitted), 6
  hex 05 00 03 ff ff ff ff ff ff ff ff ff 01 00   # 6 _Smi, size 0, IntData -1, no refs
  hex 01 05 0a 03; str buf                 # 1 external property: object 5, 10 bytes, "buf"
  hex 00 00 00 2a 2b 00                    # identity hash codes of objects 1..6
  hex 00 00 00                             # padding
} > mini.dartheap

# nohash.dartheap: no Read-Only Pages / Isolate classes (only object 1 is the
# root), an empty name, every data tag 1..8, a _Mint of INT64_MIN in signed
# LEB (10 bytes: as a uleb it would overflow), a header shallow size (200)
# that differs from the objects' sum (176), no hash codes, no padding.
{
  str dartheap
  hex 00                                   # flags
  hex 00                                   # name ""
  hex c8 01 80 02 00                       # shallow size 200 (2 bytes), capacity 256 (2 bytes), external 0
  hex 05                                   # 5 classes
  hex 00 04; str Root; hex 00 00 00 00                                              # class 1
  hex 00 05; str _Mint; hex 09; str dart.core; hex 09; str dart:core; hex 00 00     # class 2
  hex 00 0e; str _OneByteString; hex 09; str dart.core; hex 09; str dart:core; hex 00 00  # class 3
  hex 00 05; str _List; hex 09; str dart.core; hex 09; str dart:core; hex 00 00     # class 4
  hex 00 06; str Object; hex 09; str dart.core; hex 09; str dart:core; hex 00 00    # class 5
  hex 04                                   # reference count 4
  hex 09                                   # 9 objects
  hex 01 00 00 02 02 04                    # 1 Root -> 2, 4
  hex 02 10 03 80 80 80 80 80 80 80 80 80 7f 00   # 2 _Mint 16, IntData INT64_MIN, no refs
  hex 03 20 05 0b 05; str hello; hex 00    # 3 _OneByteString 32, Latin1 length 11, kept 5 "hello"
  hex 04 28 07 02 02 03 01                 # 4 _List 40, LengthData 2, refs 3, 1 (the root: dropped)
  hex 05 08 01 00                          # 5 Object 8, NullData
  hex 05 08 02 01 00                       # 6 Object 8, BoolData true
  hex 05 10 04 00 00 00 00 00 00 f8 3f 00  # 7 Object 16, DoubleData 1.5 (8 bytes little-endian)
  hex 05 18 06 02 02 b1 03 b2 03 00        # 8 Object 24, UTF-16 length 2, kept 2: U+03B1 U+03B2
  hex 05 20 08 03; str foo; hex 00         # 9 Object 32, NameData "foo"
  hex 00                                   # no external properties; file ends: no hash codes
} > nohash.dartheap

# bad_ref.dartheap: object 2 references object 5 of 2. The bad reference is
# the byte at offset 32 (magic 0-7, header 8-13, class 14-20, counts 21-22,
# object 1 23-27, object 2 28-32).
{
  str dartheap
  hex 00 00 00 00 00                       # flags, name "", shallow, capacity, external
  hex 01                                   # 1 class
  hex 00 01; str A; hex 00 00 00 00        # class 1 "A"
  hex 01 02                                # reference count 1, 2 objects
  hex 01 00 00 01 02                       # 1 -> 2
  hex 01 08 00 01 05                       # 2 -> 5: out of range
  hex 00                                   # no external properties
} > bad_ref.dartheap

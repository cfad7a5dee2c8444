#!/bin/sh
# Developer tool (not a test): regenerates testdata/gzip/, the compressed
# fixtures of tests/unit/test_gzip.c, with the real gzip and with zlib (through
# python3's zlib module, here only, never in the suite). Run from the top:
#   sh tests/tools/make_gzip_fixtures.sh build/gendump
# Inputs: sample.gclog (gendump, deterministic) and sample.bin (bytes with a
# skewed distribution, so that Huffman codes reach 15 bits, and repeats at
# every distance class).
set -eu
gendump=${1:-build/gendump}
out=testdata/gzip
mkdir -p "$out"
"$gendump" --objects 1200 --seed 7 -o "$out/sample.gclog" 2>/dev/null
python3 - "$out" <<'PY'
import sys, struct, zlib
out = sys.argv[1]
# sample.bin: geometric byte values (rare bytes get long codes), literal runs
# and copies from every distance class up to 32 KiB back.
x = 12345
def rnd():
    global x
    x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
    return x >> 33
data = bytearray()
while len(data) < 49152:
    r = rnd() % 10
    if r < 6 or len(data) < 300:
        v = 0
        while rnd() % 3 == 0 and v < 255:
            v += 1
        data.append(v)
    else:
        dist = 1 + rnd() % min(len(data), 32768)
        n = 3 + rnd() % 256
        for _ in range(n):
            data.append(data[-dist])
data = bytes(data[:49152])
open(f"{out}/sample.bin", "wb").write(data)

def gz(raw_deflate, payload, flags=0, extra=b"", name=b"", comment=b""):
    h = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", 0) + b"\x00\x03"
    if flags & 4: h += struct.pack("<H", len(extra)) + extra
    if flags & 8: h += name + b"\0"
    if flags & 16: h += comment + b"\0"
    if flags & 2: h += struct.pack("<H", zlib.crc32(h) & 0xffff)
    return h + raw_deflate + struct.pack("<II", zlib.crc32(payload), len(payload) & 0xffffffff)

def deflate(payload, level=6, strategy=zlib.Z_DEFAULT_STRATEGY, wbits=-15, mem=8):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)
    return c.compress(payload) + c.flush()

for level in (0, 1, 6, 9):
    open(f"{out}/sample.bin.zlib{level}.gz", "wb").write(gz(deflate(data, level), data))
open(f"{out}/sample.bin.fixed.gz", "wb").write(gz(deflate(data, 6, zlib.Z_FIXED), data))
open(f"{out}/sample.bin.rle.gz", "wb").write(gz(deflate(data, 6, zlib.Z_RLE), data))
open(f"{out}/sample.bin.huffman.gz", "wb").write(gz(deflate(data, 6, zlib.Z_HUFFMAN_ONLY), data))
open(f"{out}/sample.bin.window9.gz", "wb").write(gz(deflate(data, 9, wbits=-9, mem=1), data))

# Every block type in one raw stream: stored, then fixed, then dynamic
# blocks; each part ends with a full flush (byte-aligned, no history kept).
parts = [(data[:5000], 0, zlib.Z_DEFAULT_STRATEGY), (data[5000:9000], 6, zlib.Z_FIXED),
         (data[9000:], 9, zlib.Z_DEFAULT_STRATEGY)]
raw = b""
for i, (p, level, strategy) in enumerate(parts):
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
    raw += c.compress(p) + c.flush(zlib.Z_FINISH if i == len(parts) - 1 else zlib.Z_FULL_FLUSH)
assert zlib.decompress(raw, -15) == data
open(f"{out}/allblocks.deflate", "wb").write(raw)

# Every header flag: FTEXT, FHCRC, FEXTRA, FNAME, FCOMMENT.
text = open(f"{out}/sample.gclog", "rb").read()
open(f"{out}/flags.gz", "wb").write(gz(deflate(text), text, 1 | 2 | 4 | 8 | 16,
     extra=b"AB\x04\x00xyzw" + bytes(300), name=b"sample.gclog", comment=b"every header flag"))
PY
for l in 1 2 3 4 5 6 7 8 9; do
    gzip -"$l" -n -c "$out/sample.gclog" > "$out/sample.gclog.$l.gz"
    gzip -"$l" -n -c "$out/sample.bin" > "$out/sample.bin.$l.gz"
done
# gzip with the file name (FNAME) and a member per input: concatenated members.
cp "$out/sample.gclog" /tmp/gcheap-named.gclog
gzip -c /tmp/gcheap-named.gclog > "$out/named.gz"
rm -f /tmp/gcheap-named.gclog
cat "$out/sample.gclog.1.gz" "$out/sample.bin.9.gz" "$out/named.gz" > "$out/concat.gz"
ls -l "$out"

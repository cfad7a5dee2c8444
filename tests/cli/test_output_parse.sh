#!/bin/sh
# Output safety: type names with tabs, quotes, commas, backslashes, control
# bytes and invalid UTF-8 (testdata/hostile/escape_names.gclog,
# invalid_utf8.gclog) must parse back with standard parsers to the original
# names: json (json module), csv (csv module), tsv (split on tabs, then undo
# \t \n \r \\ \xHH). The exact bytes are checked by the golden cases
# testdata/cases/hostile_escape_*.case; this adds the round trip. Needs
# python3; without it the check is skipped (and says so).
# Usage: sh test_output_parse.sh GCHEAP_BIN TESTDATA_DIR BUILD_TESTS_DIR
set -u
bin=$1
data=$2
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found: parse-back check skipped (golden cases still check the bytes)"
    exit 0
fi
cd "$data" || exit 1
python3 - "$bin" <<'EOF'
import csv, io, json, subprocess, sys

binary = sys.argv[1]
expected = {
    "hostile/escape_names.gclog": [b"Tab\tInside", b'Quote"And,Comma', b"Back\\slash",
                                    b"Ctl\x01\x1b[31mRed", b"Semi;colon'apos", b"Del\x7f"],
    "hostile/invalid_utf8.gclog": [b"Bad\xff\xfeName", b"Cut\xc3", b"Caf\xc3\xa9"],
}

def run(fmt, path):
    p = subprocess.run([binary, "stat", "--format", fmt, path], capture_output=True)
    assert p.returncode == 0 and p.stderr == b"", (fmt, path, p.returncode, p.stderr)
    return p.stdout

def tsv_unescape(field):
    out, i = bytearray(), 0
    simple = {ord("t"): 9, ord("n"): 10, ord("r"): 13, ord("\\"): 92}
    while i < len(field):
        c = field[i]
        if c == 92:
            n = field[i + 1]
            if n == ord("x"):
                out.append(int(field[i + 2:i + 4], 16)); i += 4; continue
            out.append(simple[n]); i += 2; continue
        out.append(c); i += 1
    return bytes(out)

def csv_expect(name):
    # csv writes control bytes other than tab, CR and LF as \xNN (terminal and
    # spreadsheet safety, docs/schemas.md) and doubles a backslash;
    # everything else round-trips.
    return b"".join(b"\\x%02x" % c if (c < 0x20 and c not in (9, 10, 13)) or c == 0x7f
                    else b"\\\\" if c == 0x5c else bytes([c]) for c in name)

def json_expect(name):
    # Invalid UTF-8 bytes become U+FFFD; everything else round-trips.
    return name.decode("utf-8", "replace")

failures = 0
for path, names in expected.items():
    got = {
        "tsv": sorted(tsv_unescape(line.split(b"\t")[2]) for line in run("tsv", path).splitlines()[1:]),
        "csv": sorted(row[2].encode("utf-8", "surrogateescape") for row in
                      list(csv.reader(io.StringIO(run("csv", path).decode("utf-8", "surrogateescape"),
                                                  newline="")))[1:]),
    }
    doc = json.loads(run("json", path).decode("utf-8"))
    got_json = sorted(r["type"] for r in doc["sections"][0]["rows"])
    for fmt, values in got.items():
        ok = values == sorted(csv_expect(n) if fmt == "csv" else n for n in names)
        failures += not ok
        print(("ok  " if ok else "FAIL") + f" {fmt} round trip of {path}" + ("" if ok else f": {values!r}"))
    ok = got_json == sorted(json_expect(n) for n in names)
    failures += not ok
    print(("ok  " if ok else "FAIL") + f" json round trip of {path}" + ("" if ok else f": {got_json!r}"))
sys.exit(1 if failures else 0)
EOF

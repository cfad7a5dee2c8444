// tests/node/waste_plant.js - writes a V8 heap snapshot with planted empty
// collections for tests/cli/test_waste_node.sh, and the oracle beside it.
//   node waste_plant.js OUT.heapsnapshot [clean]
// Planted (unless "clean"): 300 empty WasteMap (a subclass of Map) and 200
// empty WasteSet, each held by a WasteHolder's property m / s; 250 empty
// Arrays held by a WasteHolder's property list. Then the snapshot is read
// back as JSON and the oracle written to OUT.oracle: one line per type,
// "TYPE<TAB>COUNT<TAB>BYTES", counted straight from the nodes and edges
// arrays by the rules of docs/waste.md (a Map/Set whose "table" internal
// edge points at an array node with no edge but "map"; an Array with no edge
// but "__proto__" and "map"), the bytes being self sizes (the table's too).
// Also planted: 40 copies of the string "planted duplicate text 4242", each
// built at run time from character codes (a distinct flat string object,
// not the interned literal), held by the array wasteStrings. The oracle's
// OUT.strings: one line per text that 10 or more plain "string" nodes share
// (texts shorter than V8's 1024-character cut), "COUNT<TAB>BYTES<TAB>WASTED
// <TAB>LENGTH<TAB>TEXT", bytes the members' self sizes, wasted bytes minus
// the first member's (in node order), length in UTF-16 code units.
'use strict';
const v8 = require('v8');
const fs = require('fs');

class WasteMap extends Map {}
class WasteSet extends Set {}
class WasteHolder {
    constructor(m, s, list) { this.m = m; this.s = s; this.list = list; }
}

const out = process.argv[2];
const kept = [];
const strings = [];
// (the codes come from two pieces: no literal holds the whole text)
const plantedCodes = [...('planted duplicate text ' + (4000 + 242))].map((c) => c.charCodeAt(0));
if (process.argv[3] !== 'clean') {
    for (let i = 0; i < 40; i++) strings.push(String.fromCharCode.apply(null, plantedCodes));
    for (let i = 0; i < 300; i++) kept.push(new WasteHolder(new WasteMap(), null, null));
    for (let i = 0; i < 200; i++) kept.push(new WasteHolder(null, new WasteSet(), null));
    for (let i = 0; i < 250; i++) kept.push(new WasteHolder(null, null, []));
}
globalThis.wasteKept = kept;
globalThis.wasteStrings = strings;
v8.writeHeapSnapshot(out);

const snap = JSON.parse(fs.readFileSync(out, 'utf8'));
const meta = snap.snapshot.meta, nf = meta.node_fields.length, ef = meta.edge_fields.length;
const nodeTypes = meta.node_types[0], edgeTypes = meta.edge_types[0];
const N = snap.nodes, E = snap.edges, S = snap.strings;
const count = N.length / nf, first = new Array(count + 1);
for (let i = 0, e = 0; i < count; i++) { first[i] = e; e += N[i * nf + 4] * ef; }
first[count] = E.length;
const edgeName = (k) => (edgeTypes[E[k]] === 'element' || edgeTypes[E[k]] === 'hidden') ? String(E[k + 1]) : S[E[k + 1]];
const totals = new Map();
for (let i = 0; i < count; i++) {
    if (nodeTypes[N[i * nf]] !== 'object') continue;
    const name = S[N[i * nf + 1]];
    let bytes = 0;
    if (name === 'Array') {
        let only = true;
        for (let k = first[i]; k < first[i + 1]; k += ef) {
            const n = edgeName(k), t = edgeTypes[E[k]];
            if (!((t === 'property' && n === '__proto__') || (t === 'internal' && n === 'map'))) only = false;
        }
        if (only) bytes = N[i * nf + 3];
    } else {
        let table = -1;
        for (let k = first[i]; k < first[i + 1]; k += ef)
            if (edgeTypes[E[k]] === 'internal' && edgeName(k) === 'table') { table = E[k + 2] / nf; break; }
        if (table >= 0 && nodeTypes[N[table * nf]] === 'array') {
            let only = true;
            for (let k = first[table]; k < first[table + 1]; k += ef)
                if (!(edgeTypes[E[k]] === 'internal' && edgeName(k) === 'map')) only = false;
            if (only) bytes = N[i * nf + 3] + N[table * nf + 3];
        }
    }
    if (!bytes) continue;
    const t = totals.get(name) || [0, 0];
    t[0]++;
    t[1] += bytes;
    totals.set(name, t);
}
fs.writeFileSync(out.replace(/\.heapsnapshot$/, '') + '.oracle',
    [...totals].map(([n, [c, b]]) => `${n}\t${c}\t${b}\n`).join(''));

const groups = new Map();
for (let i = 0; i < count; i++) {
    if (nodeTypes[N[i * nf]] !== 'string') continue;
    const text = S[N[i * nf + 1]];
    if (text.length >= 1024) continue;
    const g = groups.get(text);
    if (g) { g.count++; g.bytes += N[i * nf + 3]; } else groups.set(text, { count: 1, bytes: N[i * nf + 3], first: N[i * nf + 3] });
}
fs.writeFileSync(out.replace(/\.heapsnapshot$/, '') + '.strings',
    [...groups].filter(([, g]) => g.count >= 10)
        .map(([t, g]) => `${g.count}\t${g.bytes}\t${g.bytes - g.first}\t${t.length}\t${JSON.stringify(t)}\n`).join(''));

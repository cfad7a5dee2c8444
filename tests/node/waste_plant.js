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
if (process.argv[3] !== 'clean') {
    for (let i = 0; i < 300; i++) kept.push(new WasteHolder(new WasteMap(), null, null));
    for (let i = 0; i < 200; i++) kept.push(new WasteHolder(null, new WasteSet(), null));
    for (let i = 0; i < 250; i++) kept.push(new WasteHolder(null, null, []));
}
globalThis.wasteKept = kept;
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

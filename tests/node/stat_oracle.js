// The oracle for `gcheap stat` on a V8 heap snapshot, computed directly from
// the file's nodes array (one run per snapshot, not per row):
//   node stat_oracle.js SNAPSHOT GCHEAP_STAT_JSON [EXPECT_TYPE=COUNT ...]
// Prints the oracle table (count, bytes, type; by type name) on stdout, then
// compares it with the rows of `gcheap stat --format json` (every row, same
// count and bytes) and checks the expected counts. Exit 1 on any difference.
//
// Class names as DevTools' JSHeapSnapshotNode.className(): hidden -> (system),
// object/native -> the node's name, code -> (compiled code), else (TYPE);
// gcheap shows an empty object name as "(no name)".
'use strict';
const fs = require('fs');
const [snapPath, statPath, ...expect] = process.argv.slice(2);
const snap = JSON.parse(fs.readFileSync(snapPath, 'utf8'));
const meta = snap.snapshot.meta;
const nf = meta.node_fields.length;
const typeAt = meta.node_fields.indexOf('type');
const nameAt = meta.node_fields.indexOf('name');
const sizeAt = meta.node_fields.indexOf('self_size');
const types = meta.node_types[typeAt];
const nodes = snap.nodes;
if (nodes.length / nf !== snap.snapshot.node_count) throw new Error('node_count disagrees with nodes');

const table = new Map();
for (let i = 0; i < nodes.length; i += nf) {
  const type = types[nodes[i + typeAt]];
  let cls;
  if (type === 'hidden') cls = '(system)';
  else if (type === 'object' || type === 'native') cls = snap.strings[nodes[i + nameAt]] || '(no name)';
  else if (type === 'code') cls = '(compiled code)';
  else cls = '(' + type + ')';
  const row = table.get(cls) || { count: 0, bytes: 0 };
  row.count++;
  row.bytes += nodes[i + sizeAt];
  table.set(cls, row);
}
const names = [...table.keys()].sort();
for (const n of names) console.log(`${table.get(n).count}\t${table.get(n).bytes}\t${n}`);

const stat = JSON.parse(fs.readFileSync(statPath, 'utf8'));
const rows = stat.sections[0].rows;
let bad = 0;
const seen = new Map(rows.map(r => [r.type, r]));
if (rows.length !== table.size) {
  console.error(`types: gcheap ${rows.length}, oracle ${table.size}`);
  bad++;
}
for (const n of names) {
  const g = seen.get(n), o = table.get(n);
  if (!g || g.count !== o.count || g.bytes !== o.bytes) {
    console.error(`${n}: gcheap ${g ? g.count + ' ' + g.bytes : 'missing'}, oracle ${o.count} ${o.bytes}`);
    bad++;
  }
}
// The id of the first node of each expected type, for the caller's lookups.
for (const e of expect) {
  const type = e.split('=')[0];
  for (let i = 0; i < nodes.length; i += nf) {
    const t = types[nodes[i + typeAt]];
    if ((t === 'object' || t === 'native') && snap.strings[nodes[i + nameAt]] === type) {
      console.log(`#id\t${type}\t${nodes[i + meta.node_fields.indexOf('id')]}`);
      break;
    }
  }
}
for (const e of expect) {
  const [type, count] = e.split('=');
  const o = table.get(type);
  if (!o || o.count !== Number(count)) {
    console.error(`expected ${count} of ${type} in the snapshot, found ${o ? o.count : 0}`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);

// Compares gcheap's figures for a V8 snapshot with those of the DevTools
// heap snapshot worker (devtools_oracle.js), in one run:
//   node devtools_compare.js ORACLE_DIR STAT.json OBJECTS.tsv
// STAT.json: `gcheap stat --retained --format json`; OBJECTS.tsv: `gcheap
// objects --retained --format tsv` (every object). Checked:
//   - every node: self size, retained size, distance and class name (a
//     synthetic node, DevTools' class "(synthetic)", is named by its own name
//     in gcheap: "(GC roots)", "(Stack roots)", ...);
//   - every Summary row (DevTools' rows of one name taken together, as gcheap
//     groups by name; a name "" is gcheap's "(no name)"): count, self size,
//     retained size, and distance (the least distance of the row's objects of
//     size > 0, from gcheap's per-object distances).
// Prints the agreement per figure; exit 1 on any difference.
'use strict';
const fs = require('fs');
const path = require('path');
const [dir, statFile, objFile] = process.argv.slice(2);

const nodes = new Map();
for (const line of fs.readFileSync(path.join(dir, 'nodes.tsv'), 'utf8').split('\n')) {
  if (!line) continue;
  const [id, cls, self, ret, dist, , type, raw] = line.split('\t');
  let name = JSON.parse(cls) || '(no name)';
  if (type === 'synthetic') name = JSON.parse(raw) || '(synthetic)';
  nodes.set(id, {cls: name, self: +self, ret: +ret, dist: +dist});
}

// Whether a node's gcheap name is a class DevTools shows (not a pseudo-node name)
const syntheticIds = new Set();
for (const line of fs.readFileSync(path.join(dir, 'nodes.tsv'), 'utf8').split('\n'))
  if (line && line.split('\t')[6] === 'synthetic') syntheticIds.add(line.split('\t')[0]);
function isDevtoolsClass(cls) {
  for (const id of syntheticIds) if (nodes.get(id).cls === cls && nodes.get(id).self > 0) return false;
  return true;
}
const summary = new Map();
for (const line of fs.readFileSync(path.join(dir, 'summary.tsv'), 'utf8').split('\n')) {
  if (!line) continue;
  const [n, count, self, ret, dist] = line.split('\t');
  let name = JSON.parse(n) || '(no name)';
  if (name === '(synthetic)') {
    // one pseudo-node of size > 0 (Node.js: "Node / Environment"): its own name
    const own = [...nodes.values()].filter(x => x.self > 0 && !isDevtoolsClass(x.cls, line)).map(x => x.cls);
    if (own.length === 1) name = own[0];
  }
  const row = summary.get(name) || {count: 0, self: 0, ret: 0, dist: Infinity};
  row.count += +count;
  row.self += +self;
  row.ret += +ret;
  row.dist = Math.min(row.dist, +dist);
  summary.set(name, row);
}

let failed = 0;
const shown = {};
function differs(what, key, want, got) {
  failed++;
  shown[what] = (shown[what] || 0) + 1;
  if (shown[what] <= 10) console.log(`differs: ${what} ${key}: DevTools ${want}, gcheap ${got}`);
}

// per node
const lines = fs.readFileSync(objFile, 'utf8').split('\n');
const head = lines[0].split('\t');
const col = name => head.indexOf(name);
const [cId, cSize, cDist, cRet, cType] = ['id', 'size', 'distance', 'retained', 'type'].map(col);
const minDist = new Map();
let seen = 0;
const agree = {self: 0, retained: 0, distance: 0, class: 0};
for (let i = 1; i < lines.length; i++) {
  if (!lines[i]) continue;
  const f = lines[i].split('\t');
  const n = nodes.get(f[cId]);
  if (!n) { differs('node', f[cId], 'no such node', 'a node'); continue; }
  seen++;
  const dist = f[cDist] === '-' || f[cDist] === '' ? -5 : +f[cDist];
  const ret = f[cRet] === '-' || f[cRet] === '' ? -1 : +f[cRet];
  if (n.self === +f[cSize]) agree.self++; else differs('self', f[cId], n.self, f[cSize]);
  if (n.ret === ret) agree.retained++; else differs('retained', f[cId], n.ret, f[cRet]);
  if (n.dist === dist) agree.distance++; else differs('distance', f[cId], n.dist, f[cDist]);
  if (n.cls === f[cType]) agree.class++; else differs('class', f[cId], n.cls, f[cType]);
  if (+f[cSize] > 0)
    minDist.set(f[cType], Math.min(minDist.has(f[cType]) ? minDist.get(f[cType]) : Infinity, dist));
}
if (seen !== nodes.size) differs('nodes', 'count', nodes.size, seen);
console.log(`nodes: ${nodes.size}; agree: self ${agree.self}, retained ${agree.retained}, ` +
            `distance ${agree.distance}, class ${agree.class}`);

// Summary rows
const stat = JSON.parse(fs.readFileSync(statFile, 'utf8'));
const rows = new Map();
for (const sec of stat.sections) for (const r of sec.rows) rows.set(r.type, r);
const ragree = {count: 0, self: 0, retained: 0, distance: 0};
for (const [name, want] of summary) {
  const got = rows.get(name);
  if (!got) { differs('row', name, 'a row', 'none'); continue; }
  if (want.count === got.count) ragree.count++; else differs('row count', name, want.count, got.count);
  if (want.self === got.bytes) ragree.self++; else differs('row self', name, want.self, got.bytes);
  if (want.ret === got.retained) ragree.retained++; else differs('row retained', name, want.ret, got.retained);
  const d = minDist.get(name);
  if (want.dist === d) ragree.distance++; else differs('row distance', name, want.dist, d);
}
for (const [name, got] of rows)
  if (got.count > 0 && !summary.has(name)) differs('row', name, 'none', `${got.count} objects`);
console.log(`Summary rows: ${summary.size}; agree: count ${ragree.count}, self ${ragree.self}, ` +
            `retained ${ragree.retained}, distance ${ragree.distance}`);
process.exit(failed ? 1 : 0);

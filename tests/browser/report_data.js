// Reads a gcheap report, checks its structure and prints views of its data
// for tests/cli/test_report.sh to compare with other gcheap commands.
//   node report_data.js REPORT.html VIEW [SECTION]
// Structure checked on every call (exit 1 with a message otherwise): one
// data element, two <script> elements in all, no template marker left, the
// data has no raw '<', '>' or '&' and parses as JSON; every tree node comes
// after its parent, merged nodes are leaves, and each node's retained size
// is its own size plus its children's.
// Views (tab-separated, no header):
//   types    count bytes retained type        (section SECTION, default 0)
//   kept     retained of every kept object, one per line (biggest first)
//   keptids  id retained of every kept object
//   rootkids id retained of the kept children of the root, then "merged BYTES COUNT"
//   nodes    node count, kept count
//   suspects group id retained accumulation-id accumulation-retained (--suspects)
//   compare  type base_count new_count base_bytes new_bytes base_retained new_retained
//   sections name objects bytes live_objects live_bytes (every section of the first dump)
//   anomalies name count of every anomaly of section SECTION
//   leakrows row objects bytes heads count_growth bytes_growth id what (a
//            series' leaks, section SECTION)
//   leaksjson FILE: compares the series' leaks with FILE, the output of
//            `gcheap leaks --format json` on the same series (rows without
//            their paths, files, each section's name and members); prints
//            "same", else the first difference (exit 1)
//   leakpaths the path of each leak row (below)
//   instances type id size retained of every instance listed (section SECTION)
//   instpaths the path of the first instance of each type row that opens
// Paths: per object ID "ID root KIND HOLDER" then one line per kept step
// "ID DEPTH STEP-ID SIZE TYPE FIELD" (empty for null), as
// tests/cli/test_report_leaks.sh makes them from `gcheap retainers`.
'use strict';
const fs = require('fs');
const [file, view, secArg] = process.argv.slice(2);
const html = fs.readFileSync(file, 'utf8');
function die(msg) { console.error(file + ': ' + msg); process.exit(1); }
const open = '<script type="application/json" id="gcheap-data">';
const a = html.indexOf(open);
if (a < 0 || html.indexOf(open, a + 1) >= 0) die('not exactly one data element');
const b = html.indexOf('</script>', a);
const text = html.slice(a + open.length, b);
if (/[<>&]/.test(text)) die('raw <, > or & in the data');
if (/[\u2028\u2029]/.test(text)) die('raw U+2028/U+2029 in the data');
if ((html.match(/<script/gi) || []).length !== 2) die('not exactly two <script> elements');
if (/@(TITLE|CSS|JS|DATA)@/.test(html)) die('a template marker is left');
let data;
try { data = JSON.parse(text); } catch (e) { die('data is not JSON: ' + e.message); }

for (const d of data.dumps) {
  for (const s of d.sections) {
    const t = s.tree, n = t.parent.length, sum = new Array(n).fill(0), kids = new Array(n).fill(0);
    for (let k = 1; k < n; k++) {
      if (!(t.parent[k] >= 0 && t.parent[k] < k)) die('node ' + k + ' comes before its parent');
      sum[t.parent[k]] += t.retained[k];
      kids[t.parent[k]]++;
    }
    for (let k = 0; k < n; k++) {
      if (k && t.type[k] < 0 && kids[k]) die('merged node ' + k + ' has children');
      if (k && t.type[k] < 0 && !(t.merged[k] > 0)) die('merged node ' + k + ' stands for nothing');
      if (t.type[k] >= s.types.name.length) die('node ' + k + ' names no type row');
      if (t.type[k] >= 0 || k === 0) {
        if (t.retained[k] !== t.size[k] + sum[k]) die('node ' + k + ': retained != size + children');
      }
    }
    if (t.retained[0] !== s.totals.live_bytes) die('root retains ' + t.retained[0] + ', live ' + s.totals.live_bytes);
  }
}

const sec = data.dumps[0].sections[+(secArg || 0)];
const pathLines = (id, p) => {
  if (!p) return [id + '\tunreachable'];
  const r = [[id, 'root', p.root_kind || '', p.holder || ''].join('\t')];
  for (const st of p.steps) r.push([id, st.depth, st.id, st.size, st.type, st.field || ''].join('\t'));
  return r;
};
const leakSec = () => {
  if (!data.leaks) die('no leaks: not a series');
  return data.leaks.sections[+(secArg || 0)];
};
const out = [];
const kept = () => {
  const t = sec.tree, r = [];
  for (let k = 1; k < t.parent.length; k++) if (t.type[k] >= 0) r.push(k);
  return r;
};
if (view === 'types') {
  const t = sec.types;
  for (let i = 0; i < t.name.length; i++) out.push([t.count[i], t.bytes[i], t.retained[i], t.name[i]].join('\t'));
} else if (view === 'kept') {
  kept().map((k) => sec.tree.retained[k]).sort((x, y) => y - x).forEach((v) => out.push(String(v)));
} else if (view === 'keptids') {
  kept().forEach((k) => out.push(sec.tree.id[k] + '\t' + sec.tree.retained[k]));
} else if (view === 'rootkids') {
  const t = sec.tree;
  let merged = '0\t0';
  for (let k = 1; k < t.parent.length; k++) {
    if (t.parent[k] !== 0) continue;
    if (t.type[k] >= 0) out.push(t.id[k] + '\t' + t.retained[k]);
    else merged = t.retained[k] + '\t' + t.merged[k];
  }
  out.push('merged\t' + merged);
} else if (view === 'suspects') {
  (sec.suspects || []).forEach((x) => out.push([x.group, x.id, x.retained, x.accumulation.id, x.accumulation.retained].join('\t')));
} else if (view === 'nodes') {
  out.push(sec.tree.parent.length + '\t' + kept().length);
} else if (view === 'compare') {
  const c = data.compare;
  for (let i = 0; i < c.name.length; i++)
    out.push([c.name[i], c.base_count[i], c.new_count[i], c.base_bytes[i], c.new_bytes[i],
              c.base_retained[i], c.new_retained[i]].join('\t'));
} else if (view === 'anomalies') {
  for (const k of Object.keys(sec.anomalies)) out.push(k + '\t' + sec.anomalies[k]);
} else if (view === 'sections') {
  for (const s of data.dumps[0].sections)
    out.push([s.name, s.totals.objects, s.totals.bytes, s.totals.live_objects, s.totals.live_bytes].join('\t'));
} else if (view === 'leakrows') {
  for (const r of leakSec().rows)
    out.push([r.row, r.objects, r.bytes, r.heads, r.count_growth, r.bytes_growth, r.id, r.what].join('\t'));
} else if (view === 'leaksjson') {
  const want = JSON.parse(fs.readFileSync(secArg, 'utf8'));
  const strip = (rows) => rows.map((r) => { const x = Object.assign({}, r); delete x.path; return x; });
  // The page shows C1 controls and bidi marks as their bytes, \xNN each
  // (src/cli/report/html_escape.c); leaks' json keeps them as characters.
  const visible = (v) => typeof v !== 'string' ? v : v.replace(/[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (ch) => [...Buffer.from(ch, 'utf8')].map((b) => '\\x' + b.toString(16).padStart(2, '0')).join(''));
  for (const w of want.sections || [])
    for (const r of w.rows || []) for (const k of Object.keys(r)) r[k] = visible(r[k]);
  const diffs = [];
  const same = (what, a, b) => { if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push(what + ': ' + JSON.stringify(a) + ' != ' + JSON.stringify(b)); };
  if (!data.leaks) die('no leaks: not a series');
  same('files', data.leaks.files, want.files);
  same('sections', data.leaks.sections.length, want.sections.length);
  data.leaks.sections.forEach((s, i) => {
    const w = want.sections[i] || {};
    same('name', s.name, w.domain);
    for (const k of ['dumps', 'by_ids', 'leaked_objects', 'leaked_bytes', 'internal_rows']) same(k, s[k], w[k]);
    same('rows of ' + s.name, strip(s.rows), w.rows);
  });
  out.push(diffs.length ? diffs[0] : 'same');
  if (diffs.length) { console.log(out.join('\n')); process.exit(1); }
} else if (view === 'leakpaths') {
  for (const r of leakSec().rows) out.push(...pathLines(r.id, r.path));
} else if (view === 'instances') {
  for (const x of sec.instances || [])
    for (const o of x.objects) out.push([sec.types.name[x.row], o.id, o.size, o.retained].join('\t'));
} else if (view === 'instpaths') {
  for (const x of sec.instances || []) out.push(...pathLines(x.objects[0].id, x.path));
} else {
  die('unknown view ' + view);
}
if (out.length) process.stdout.write(out.join('\n') + '\n');

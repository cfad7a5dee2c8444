// Writes three heap snapshots of one process, s1 s2 s3 in DIR, for
// `gcheap leaks` (tests/cli/test_v8_leaks.sh): N SessionEntry objects
// (default 3000) are put in a global Map between s1 and s2 and stay there
// until s3, so memlab's leak is exactly N SessionEntry objects held by the
// Map's internal table (the Map itself is older than s1). Short-lived Churn
// objects are made between snapshots and never kept.
//   node leak_map_series.js DIR [N]
const v8 = require('v8');
const dir = process.argv[2];
const n = process.argv[3] === undefined ? 3000 : Number(process.argv[3]);
class SessionEntry { constructor(i) { this.i = i; this.state = 'open'; } }
class Churn { constructor(i) { this.tmp = i; } }
const sessions = new Map();
globalThis.sessions = sessions;
let churn = [];
function noise() { churn = []; for (let i = 0; i < 500; i++) churn.push(new Churn(i)); }
// In a function of its own: no handle of the caller's frame keeps the last entry.
function fill() { for (let i = 0; i < n; i++) sessions.set(i, new SessionEntry(i)); }
noise();
v8.writeHeapSnapshot(dir + '/s1.heapsnapshot');
fill();
noise();
v8.writeHeapSnapshot(dir + '/s2.heapsnapshot');
noise();
v8.writeHeapSnapshot(dir + '/s3.heapsnapshot');

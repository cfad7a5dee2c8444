// Writes three heap snapshots of one process, s1 s2 s3 in DIR, for
// `gcheap leaks` (tests/cli/test_v8_leaks.sh). With GROW=N (default 100),
// N LeakyItem objects are added to a global array before s2 and N more
// before s3: the first N are memlab's leak (new in s2, still alive in s3).
// Between snapshots short-lived objects churn: they must never be reported.
//   node leak_series.js DIR [N]   (N = 0: churn only, no leak)
const v8 = require('v8');
const dir = process.argv[2];
const grow = process.argv[3] === undefined ? 100 : Number(process.argv[3]);
class LeakyItem {
    constructor(i) { this.i = i; this.payload = new Array(8).fill(i); }
}
class Churn { constructor(i) { this.tmp = i; } }
const keep = [];
globalThis.keep = keep;
let churn = [];
function step() { for (let i = 0; i < grow; i++) keep.push(new LeakyItem(i)); }
function noise() { churn = []; for (let i = 0; i < 500; i++) churn.push(new Churn(i)); }
noise();
v8.writeHeapSnapshot(dir + '/s1.heapsnapshot');
step(); noise();
v8.writeHeapSnapshot(dir + '/s2.heapsnapshot');
step(); noise();
v8.writeHeapSnapshot(dir + '/s3.heapsnapshot');

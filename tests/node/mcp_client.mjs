// The MCP client side of tests/cli/test_mcp.sh: the official TypeScript SDK
// (@modelcontextprotocol/sdk, installed by the test into SDK_DIR) drives
// `gcheap mcp` over stdio, one node process for the whole test.
//
//   node mcp_client.mjs SDK_DIR PLAN GCHEAP_BIN ALLOW_DIR... 
//
// PLAN: one JSON object per line:
//   {"tool":..., "args":{...}, "expect":FILE, "status":N, "err":FILE, "page":N}
// expect is the CLI's --format json for the same command line (status 0/1),
// err its stderr (status 2: the tool result must be an error with that text).
// Then the raw checks: malformed lines written straight to a second server
// get their JSON-RPC error codes, and the server keeps answering.
// Prints "ok ..." / "FAIL ..." lines and "N passed, M failed"; exit 1 on a failure.
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const [sdkDir, planFile, bin, ...allow] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(`${sdkDir}/node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

let passed = 0, failed = 0;
const ok = () => { passed++; };
const bad = (what) => { failed++; console.log(`FAIL ${what}`); };
const check = (cond, what) => (cond ? ok() : bad(what));

const serverArgs = ['mcp'];
for (const a of allow) serverArgs.push('--allow', a);
const transport = new StdioClientTransport({ command: bin, args: serverArgs, stderr: 'pipe' });
let stderrText = '';
transport.stderr?.on('data', (d) => { stderrText += d; });
const client = new Client({ name: 'gcheap-test', version: '1.0.0' }, { capabilities: {} });
await client.connect(transport);
check(client.getServerVersion()?.name === 'gcheap', 'initialize: serverInfo');

// tools/list: one tool per command of the table that asks a question of a
// dump (the script passes them): not mcp and shell, nor index, which writes a
// file (an agent's questions use an index built by `gcheap index`)
const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const wanted = (process.env.GCHEAP_COMMANDS || '').split(' ')
  .filter((n) => n && n !== 'mcp' && n !== 'shell' && n !== 'index').sort();
check(isDeepStrictEqual(names, wanted), `tools ${names} != commands ${wanted}`);
for (const t of tools) {
  check(t.inputSchema?.type === 'object' && t.outputSchema?.type === 'object', `${t.name}: schemas`);
  check(!('format' in (t.inputSchema.properties || {})), `${t.name}: no format property`);
}

// Rows of a document in order: [section index, row] pairs.
function rowsOf(doc) {
  const out = [];
  (doc.sections || []).forEach((s, i) => (s.rows || []).forEach((r) => out.push([i, r])));
  return out;
}

// Calls a tool page by page (limit rows) and puts the pages back together:
// the sections of the first page with each section's rows concatenated.
async function paged(tool, args, limit) {
  let cursor, whole, pages = 0, rows = 0;
  for (;;) {
    const a = { ...args, limit };
    if (cursor) a.cursor = cursor;
    const res = await client.callTool({ name: tool, arguments: a });
    if (res.isError) return { error: res.content?.[0]?.text ?? '' };
    const doc = structuredClone(res.structuredContent);
    pages++;
    const n = rowsOf(doc).length;
    rows += n;
    if (n > limit) return { error: `page of ${n} rows > limit ${limit}` };
    const next = doc.next_cursor;
    const truncated = doc.truncated;
    delete doc.next_cursor;
    delete doc.truncated;
    if (!whole) {
      whole = doc;
    } else {
      doc.sections.forEach((s, i) => { whole.sections[i].rows = (whole.sections[i].rows || []).concat(s.rows || []); });
    }
    if (!next) {
      if (truncated) return { error: 'truncated without next_cursor' };
      return { doc: whole, pages, rows };
    }
    if (truncated !== true) return { error: 'next_cursor without truncated' };
    cursor = next;
  }
}

const plan = readFileSync(planFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
for (const c of plan) {
  const label = `${c.tool} ${JSON.stringify(c.args)}`;
  if (c.status === 2) {
    const res = await client.callTool({ name: c.tool, arguments: c.args });
    const text = res.content?.[0]?.text ?? '';
    const want = c.err ? readFileSync(c.err, 'utf8').trimEnd() : null;
    check(res.isError === true && (want === null ? text.includes(c.contains) : text === want),
      `${label}: error '${text}' (expected ${want ?? c.contains})`);
    continue;
  }
  if (c.tool === 'report') {
    const res = await client.callTool({ name: c.tool, arguments: c.args });
    check(!res.isError && res.structuredContent?.output === c.args.output, `${label}: ${JSON.stringify(res)}`);
    if (c.args.dumps)
      check(isDeepStrictEqual(res.structuredContent?.files, c.args.dumps), `${label}: files ${JSON.stringify(res.structuredContent?.files)}`);
    check(isDeepStrictEqual(readFileSync(c.args.output), readFileSync(c.expect)), `${label}: the HTML differs from the CLI's`);
    continue;
  }
  const expect = JSON.parse(readFileSync(c.expect, 'utf8'));
  // one answer with every row: the CLI's document exactly
  const all = await client.callTool({ name: c.tool, arguments: { ...c.args, limit: 1e15 } });
  check(!all.isError && isDeepStrictEqual(all.structuredContent, expect),
    `${label}: structuredContent differs from the CLI's --format json`);
  check(all.content?.[0]?.type === 'text' && all.content[0].text.length < 1000, `${label}: summary`);
  // pages: every row exactly once, in order (at most about 5 pages a case)
  const page = Math.max(c.page, Math.ceil(rowsOf(expect).length / 4));
  const p = await paged(c.tool, c.args, page);
  if (p.error) {
    bad(`${label}: paging: ${p.error}`);
  } else {
    check(isDeepStrictEqual(p.doc, expect), `${label}: pages of ${page} do not make the document`);
    check(p.rows === rowsOf(expect).length, `${label}: ${p.rows} rows paged, ${rowsOf(expect).length} in the document`);
  }
}

// ping through the SDK
check(isDeepStrictEqual(await client.ping(), {}), 'ping');
await client.close();

// ---- raw lines: error codes, and the server keeps answering ----
async function raw(lines) {
  const child = spawn(bin, serverArgs, { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', () => {});
  for (const l of lines) child.stdin.write(l);
  child.stdin.end();
  const code = await new Promise((r) => child.on('close', r));
  return { code, answers: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}
const ping = (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n';
const req = (id, method, params) => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
const cases = [
  ['not json at all\n', -32700],
  [Buffer.from([0x7b, 0xff, 0x00, 0xfe, 0x0a]), -32700],
  ['{"jsonrpc":"2.0","id":1,"method":"ping"\n', -32700],
  ['['.repeat(100000) + '\n', -32700],
  ['"' + 'x'.repeat(5 << 20) + '"\n', -32700],
  ['[' + ping(1).trim() + ']\n', -32600],
  ['{"id":1,"method":"ping"}\n', -32600],
  ['{"jsonrpc":"2.0","id":1}\n', -32600],
  [req(1, 'no/such/method', {}), -32601],
  [req(1, 'tools/call', {}), -32602],
  [req(1, 'tools/call', { name: 'top', arguments: 'x' }), -32602],
  [req(1, 'tools/call', { name: 'nope', arguments: {} }), -32602],
];
const lines = [];
cases.forEach(([l], i) => { lines.push(l); lines.push(ping(`after-${i}`)); });
const { code, answers } = await raw(lines);
check(code === 0, `raw server exit ${code}`);
check(answers.length === cases.length * 2, `raw: ${answers.length} answers for ${cases.length * 2} messages`);
cases.forEach(([l, want], i) => {
  const a = answers[2 * i], p = answers[2 * i + 1];
  check(a?.error?.code === want, `raw case ${i} (${String(l).slice(0, 40)}): ${JSON.stringify(a)?.slice(0, 200)}`);
  check(p?.id === `after-${i}` && isDeepStrictEqual(p.result, {}), `raw case ${i}: no answer to the ping after it`);
});

// a progress token: increasing progress notifications with that token, then
// the result (checked on the raw stream: the SDK runs notification handlers
// asynchronously, so it may see a fast call's result first)
{
  const top = plan.find((x) => x.status === 0 && x.tool === 'top');
  const line = JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'tools/call',
    params: { name: 'top', arguments: top.args, _meta: { progressToken: 'tok' } } }) + '\n';
  const { answers: a } = await raw([line]);
  const notes = a.filter((m) => m.method === 'notifications/progress');
  check(notes.length >= 1 && notes.every((m, i) => m.params.progressToken === 'tok' &&
    (i === 0 || m.params.progress > notes[i - 1].params.progress)), `progress ${JSON.stringify(notes)}`);
  check(a.length === notes.length + 1 && a[a.length - 1].id === 'p', 'progress before the result');
}

console.log(`${passed} passed, ${failed} failed`);
if (stderrText && failed) console.log(stderrText.slice(0, 2000));
process.exit(failed ? 1 : 0);

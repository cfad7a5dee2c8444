// A minimal Chrome DevTools Protocol client for the report tests: starts
// headless Chromium, speaks CDP over one WebSocket (RFC 6455 client framing:
// masked text frames out; text, continuation, ping and close frames in) and
// records console errors, exceptions and network requests. Node 20 has no
// WebSocket client of its own, and the tests install nothing from npm.
'use strict';
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--remote-debugging-port=0', '--window-size=1280,900'];

function launch(exe) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gcheap-chromium-'));
  const proc = spawn(exe, [...FLAGS, '--user-data-dir=' + dir, 'about:blank'],
                     { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error('chromium did not start:\n' + err)), 30000);
    proc.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/[^\s]+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, dir, browserUrl: m[1] });
      }
    });
    proc.on('exit', (code) => reject(new Error('chromium exited with ' + code + ':\n' + err)));
  });
}

function getJson(url) {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => { try { resolve(JSON.parse(body)); } catch (e) { reject(e); } });
    }).on('error', reject);
  });
}

class Socket {
  constructor(sock, head) {
    this.sock = sock;
    this.buf = head && head.length ? Buffer.from(head) : Buffer.alloc(0);
    this.parts = [];
    this.onmessage = null;
    sock.on('data', (d) => { this.buf = Buffer.concat([this.buf, d]); this.parse(); });
  }
  static connect(url) {
    const u = new URL(url);
    const key = crypto.randomBytes(16).toString('base64');
    return new Promise((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, headers: {
        Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': key,
        'Sec-WebSocket-Version': '13' } });
      req.on('upgrade', (res, sock, head) => {
        const want = crypto.createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11')
          .digest('base64');
        if (res.headers['sec-websocket-accept'] !== want) reject(new Error('bad websocket accept'));
        else resolve(new Socket(sock, head));
      });
      req.on('response', (res) => reject(new Error('no websocket upgrade: ' + res.statusCode)));
      req.on('error', reject);
      req.end();
    });
  }
  frame(opcode, payload) {
    const mask = crypto.randomBytes(4);
    const n = payload.length;
    const head = n < 126 ? Buffer.alloc(2) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
    head[0] = 0x80 | opcode;
    if (n < 126) head[1] = 0x80 | n;
    else if (n < 65536) { head[1] = 0x80 | 126; head.writeUInt16BE(n, 2); }
    else { head[1] = 0x80 | 127; head.writeBigUInt64BE(BigInt(n), 2); }
    const body = Buffer.alloc(n);
    for (let i = 0; i < n; i++) body[i] = payload[i] ^ mask[i & 3];
    this.sock.write(Buffer.concat([head, mask, body]));
  }
  send(text) { this.frame(0x1, Buffer.from(text, 'utf8')); }
  parse() {
    for (;;) {
      const b = this.buf;
      if (b.length < 2) return;
      const fin = b[0] & 0x80, op = b[0] & 0x0f, masked = b[1] & 0x80;
      let n = b[1] & 0x7f, off = 2;
      if (n === 126) { if (b.length < 4) return; n = b.readUInt16BE(2); off = 4; }
      else if (n === 127) { if (b.length < 10) return; n = Number(b.readBigUInt64BE(2)); off = 10; }
      const maskKey = masked ? b.subarray(off, off + 4) : null;
      if (masked) off += 4;
      if (b.length < off + n) return;
      let payload = Buffer.from(b.subarray(off, off + n));
      if (maskKey) for (let i = 0; i < n; i++) payload[i] ^= maskKey[i & 3];
      this.buf = b.subarray(off + n);
      if (op === 0x9) { this.frame(0xa, payload); continue; }
      if (op === 0x8) { this.sock.end(); return; }
      if (op === 0x1 || op === 0x0) {
        this.parts.push(payload);
        if (fin) {
          const text = Buffer.concat(this.parts).toString('utf8');
          this.parts = [];
          if (this.onmessage) this.onmessage(text);
        }
      }
    }
  }
  close() { this.sock.destroy(); }
}

// A page session: send(method, params) -> result; events recorded.
class Page {
  constructor(ws) {
    this.ws = ws;
    this.id = 0;
    this.pending = new Map();
    this.waiters = [];
    this.errors = [];     // console errors, exceptions, log entries of level error
    this.requests = [];   // every URL the page asked for
    ws.onmessage = (text) => this.dispatch(JSON.parse(text));
  }
  dispatch(msg) {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(p.method + ': ' + msg.error.message));
      else p.resolve(msg.result);
      return;
    }
    const m = msg.method, a = msg.params || {};
    if (m === 'Network.requestWillBeSent') this.requests.push(a.request.url);
    if (m === 'Runtime.exceptionThrown') this.errors.push('exception: ' + JSON.stringify(a.exceptionDetails));
    if (m === 'Runtime.consoleAPICalled' && (a.type === 'error' || a.type === 'assert'))
      this.errors.push('console.' + a.type + ': ' + JSON.stringify(a.args));
    if (m === 'Log.entryAdded' && a.entry.level === 'error') this.errors.push('log: ' + a.entry.text);
    this.waiters = this.waiters.filter((w) => (w.method === m ? (w.resolve(a), false) : true));
  }
  send(method, params) {
    const id = ++this.id;
    this.ws.send(JSON.stringify({ id, method, params: params || {} }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
  }
  waitFor(method, ms) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('timed out waiting for ' + method)), ms || 30000);
      this.waiters.push({ method, resolve: (a) => { clearTimeout(t); resolve(a); } });
    });
  }
  // Evaluates an expression in the page; returns its value (JSON-able).
  async eval(expr) {
    const r = await this.send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error('evaluate failed: ' + expr + '\n' + JSON.stringify(r.exceptionDetails));
    return r.result.value;
  }
  async mouse(type, x, y) {
    await this.send('Input.dispatchMouseEvent', { type, x, y, button: type === 'mouseMoved' ? 'none' : 'left',
                                                  clickCount: 1 });
  }
  async click(x, y) {
    await this.mouse('mouseMoved', x, y);
    await this.mouse('mousePressed', x, y);
    await this.mouse('mouseReleased', x, y);
  }
}

// Opens url in a fresh headless Chromium; returns { page, close }.
async function open(exe, url) {
  const b = await launch(exe);
  const port = new URL(b.browserUrl).port;
  const targets = await getJson('http://127.0.0.1:' + port + '/json/list');
  const target = targets.find((t) => t.type === 'page');
  const ws = await Socket.connect(target.webSocketDebuggerUrl);
  const page = new Page(ws);
  for (const d of ['Page', 'Runtime', 'Log', 'Network']) await page.send(d + '.enable');
  const loaded = page.waitFor('Page.loadEventFired', 60000);
  await page.send('Page.navigate', { url });
  await loaded;
  const close = () => {
    ws.close();
    b.proc.kill('SIGKILL');
    try { fs.rmSync(b.dir, { recursive: true, force: true }); } catch (e) { /* best effort */ }
  };
  return { page, close };
}

module.exports = { open };

// html_page.mjs — opens a gpuclean HTML report in headless Chromium through the DevTools
// protocol and prints one JSON object: the page's uncaught exceptions and console
// messages, whether its script finished (body data-js), how many <img> elements and
// alert() calls the page made (a hostile name that broke out of the markup would make
// some), and, for each node index given, the side panel's text after a click on the
// node, and for each plot point clicked the node it selected.
//   node --experimental-websocket tests/integration/html_page.mjs CHROMIUM FILE.html [K ...]
// GC_SHOT=FILE.png saves a screenshot of the page as it opens, GC_DOM=FILE.html its DOM
// (outerHTML) after the script ran, both before any click. Browser log entries (a CSP
// violation, a failed load) are reported with the console messages.
// Test code only (Node 20: WebSocket behind the flag; fetch built in).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [chrome, file, ...clicks] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'gc-chrome-'));
const proc = spawn(chrome, ['--headless', '--disable-gpu', '--no-sandbox', '--no-first-run',
  '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--window-size=1400,1000', 'about:blank'],
  { stdio: ['ignore', 'ignore', 'pipe'] });
const fail = (why) => { console.log(JSON.stringify({ error: why })); cleanup(2); };
let exited = false;
proc.on('exit', () => { exited = true; });
async function cleanup(code) {
  proc.removeAllListeners('exit');
  if (!exited) { const gone = new Promise((r) => proc.once('exit', r)); proc.kill('SIGKILL'); await gone; }
  rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  process.exit(code);
}
const timer = setTimeout(() => fail('timeout'), 60000);

const port = await new Promise((res) => {
  let buf = '';
  proc.stderr.on('data', (d) => { buf += d; const m = buf.match(/DevTools listening on ws:\/\/[^:]+:(\d+)\//); if (m) res(m[1]); });
  proc.once('exit', () => { exited = true; fail('chromium exited: ' + buf.slice(-500)); });
});
let page = null;
for (let i = 0; i < 50 && !page; i++) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  page = list.find((t) => t.type === 'page');
  if (!page) await new Promise((r) => setTimeout(r, 100));
}
if (!page) fail('no page target');
const ws = new WebSocket(page.webSocketDebuggerUrl);
await new Promise((r) => ws.addEventListener('open', r));
let id = 0;
const pending = new Map(), events = [];
ws.addEventListener('message', (ev) => {
  const m = JSON.parse(ev.data);
  if (m.id && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); } else if (m.method) events.push(m);
});
const send = (method, params = {}) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params })); });
const evaluate = async (expr) => {
  const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
  if (r.result.exceptionDetails) throw new Error(JSON.stringify(r.result.exceptionDetails));
  return r.result.result.value;
};

await send('Runtime.enable');
await send('Page.enable');
await send('Log.enable');
await send('Page.addScriptToEvaluateOnNewDocument',
  { source: 'window.__alerts = 0; window.alert = function () { window.__alerts++; };' });
await send('Page.navigate', { url: 'file://' + resolve(file) });
const state = await evaluate(`new Promise((res) => { const t0 = Date.now(); (function w() {
  const s = document.body && document.body.getAttribute('data-js');
  if ((s && s !== 'loading') || Date.now() - t0 > 20000) res(s); else setTimeout(w, 50); })(); })`);
const out = { state, images: await evaluate('document.images.length'), alerts: await evaluate('window.__alerts'),
  panels: {}, points: {} };
const fs = await import('node:fs');
if (process.env.GC_SHOT) {
  const shot = await send('Page.captureScreenshot', { format: 'png' });
  fs.writeFileSync(process.env.GC_SHOT, Buffer.from(shot.result.data, 'base64'));
}
if (process.env.GC_DOM) fs.writeFileSync(process.env.GC_DOM, await evaluate('document.documentElement.outerHTML'));
for (const k of clicks) {
  out.panels[k] = await evaluate(`(() => { const g = document.getElementById('n${Number(k)}');
    if (!g) return null; g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    return document.getElementById('gc-panel').textContent; })()`);
}
out.points = await evaluate(`(() => { const p = document.querySelector('circle.pt[data-k]'); if (!p) return null;
  p.dispatchEvent(new MouseEvent('click', { bubbles: true })); const s = document.querySelector('g.n.sel');
  return { point: p.getAttribute('data-k'), selected: s ? s.getAttribute('data-k') : null }; })()`);
out.errorColours = await evaluate(`(() => { const b = document.querySelector('#gc-tools button[data-mode=error]');
  if (!b) return null; b.click(); let n = 0; document.querySelectorAll('g.n > rect').forEach((r) => { if (r.style.fill) n++; });
  return n; })()`);
out.exceptions = events.filter((e) => e.method === 'Runtime.exceptionThrown').map((e) => e.params.exceptionDetails.exception
  ? e.params.exceptionDetails.exception.description : e.params.exceptionDetails.text);
out.console = events.filter((e) => e.method === 'Runtime.consoleAPICalled').map((e) => e.params.type + ': ' +
  e.params.args.map((a) => a.value ?? a.description).join(' ')).concat(
  events.filter((e) => e.method === 'Log.entryAdded').map((e) => 'log ' + e.params.entry.level + ': ' + e.params.entry.text));
clearTimeout(timer);
console.log(JSON.stringify(out));
ws.close();
cleanup(0);

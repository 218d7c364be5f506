#!/usr/bin/env node
// runner.mjs — gpuclean's LiteRT.js runner.
//
// Compiles one .tflite model with LiteRT.js (@litertjs/core, the LiteRT runtime built to
// WebAssembly with its CompiledModel API) for the CPU accelerator (XNNPACK in wasm) and,
// where Dawn (npm `webgpu`) finds a GPU adapter, for the GPU accelerator (ML Drift over
// WebGPU) at fp32 and/or fp16; captures what the runtime logs (the GPU delegate's
// residency line, its list of rejected ops with reasons); runs every signature on
// deterministic or given inputs; writes every output as .npy and a summary result.json.
//
//   node runner.mjs MODEL --out DIR [--accelerator cpu|gpu|both] [--precision fp16|fp32|both]
//        [--pattern sin | --random SEED | --input NAME_OR_INDEX=file.npy ...]
//        [--timeout SECONDS] [--runs N]
//
// Each mode runs in its own child process (`--worker MODE`) under a wall-clock limit, so
// a wasm abort, a hung GPU promise or an out-of-memory kill costs that mode only.
// Files: DIR/result.json (schema 1), DIR/<mode>/output_<k>.npy (signature 0) or
// DIR/<mode>/s<j>_output_<k>.npy (signature j > 0), DIR/inputs/s<j>_input_<k>.npy (the
// inputs actually fed), DIR/<mode>/worker.log (the worker's raw stdout/stderr).
// Exit status: 0 the run finished (whatever the model did), 2 bad usage or bad input,
// 3 the runner itself failed.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCHEMA = 1;

// ---------------------------------------------------------------- arguments
function usage(msg) {
  if (msg) process.stderr.write(`runner.mjs: ${msg}\n`);
  process.stderr.write('usage: node runner.mjs MODEL --out DIR [--accelerator cpu|gpu|both] ' +
    '[--precision fp16|fp32|both] [--pattern sin | --random SEED | --input NAME_OR_INDEX=file.npy ...] ' +
    '[--timeout SECONDS] [--runs N]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { model: null, out: null, accelerator: 'both', precision: 'both', pattern: 'sin',
              seed: null, inputs: [], timeout: 120, runs: 3, worker: null, probe: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => { if (i + 1 >= argv.length) usage(`${a} needs a value`); return argv[++i]; };
    if (a === '--out') o.out = val();
    else if (a === '--accelerator') o.accelerator = val();
    else if (a === '--precision') o.precision = val();
    else if (a === '--pattern') { o.pattern = val(); o.seed = null; }
    else if (a === '--random') { const s = val(); if (!/^\d+$/.test(s)) usage(`--random needs a non-negative integer seed, not '${s}'`); o.seed = BigInt(s); o.pattern = null; }
    else if (a === '--input') { const s = val(); const eq = s.indexOf('='); if (eq <= 0) usage(`--input needs NAME_OR_INDEX=file.npy, not '${s}'`); o.inputs.push({ key: s.slice(0, eq), file: s.slice(eq + 1) }); }
    else if (a === '--timeout') { o.timeout = Number(val()); if (!(o.timeout > 0)) usage('--timeout needs a positive number of seconds'); }
    else if (a === '--runs') { o.runs = Number(val()); if (!Number.isInteger(o.runs) || o.runs < 0 || o.runs > 1000) usage('--runs needs an integer 0..1000'); }
    else if (a === '--worker') o.worker = val();
    else if (a === '--probe-gpu') o.probe = true;
    else if (a === '-h' || a === '--help') { usage(); }
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (!o.model) o.model = a;
    else usage(`unexpected argument '${a}'`);
  }
  if (!['cpu', 'gpu', 'both'].includes(o.accelerator)) usage(`--accelerator must be cpu, gpu or both`);
  if (!['fp16', 'fp32', 'both'].includes(o.precision)) usage(`--precision must be fp16, fp32 or both`);
  if (o.pattern !== null && o.pattern !== 'sin') usage(`--pattern knows only 'sin'`);
  if (!o.probe && !o.model) usage('no model given');
  if (!o.out) usage('--out DIR is required');
  return o;
}

// ---------------------------------------------------------------- small helpers
function writeAtomic(file, data) {
  const tmp = `${file}.tmp${process.pid}`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}
const writeJson = (file, obj) => writeAtomic(file, JSON.stringify(obj, null, 1) + '\n');
function readJsonMaybe(file) { try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return null; } }
function pkgVersion(name) {
  const j = readJsonMaybe(path.join(HERE, 'node_modules', name, 'package.json'));
  return j ? j.version : null;
}
const round = (x, d = 2) => (x === null || x === undefined) ? null : Number(x.toFixed(d));

// ---------------------------------------------------------------- .npy in and out
// dtype name <-> numpy descr and typed array. Names follow numpy.
const DTYPES = {
  float32: { descr: '<f4', T: Float32Array }, float64: { descr: '<f8', T: Float64Array },
  int32: { descr: '<i4', T: Int32Array }, uint8: { descr: '|u1', T: Uint8Array },
  int8: { descr: '|i1', T: Int8Array }, int16: { descr: '<i2', T: Int16Array },
  uint16: { descr: '<u2', T: Uint16Array }, uint32: { descr: '<u4', T: Uint32Array },
  int64: { descr: '<i8', T: BigInt64Array }, uint64: { descr: '<u8', T: BigUint64Array },
  bool: { descr: '|b1', T: Uint8Array }, float16: { descr: '<f2', T: Uint16Array },
};
const DESCR_TO_DTYPE = Object.fromEntries(Object.entries(DTYPES).map(([k, v]) => [v.descr, k]));
DESCR_TO_DTYPE['<u1'] = 'uint8'; DESCR_TO_DTYPE['<i1'] = 'int8'; DESCR_TO_DTYPE['<b1'] = 'bool';

function npyBytes(dtype, shape, typed) {
  const descr = DTYPES[dtype].descr;
  const shp = shape.length === 0 ? '()' : shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shp}, }`;
  const pre = 10;
  const total = Math.ceil((pre + h.length + 1) / 64) * 64;
  h = h + ' '.repeat(total - pre - h.length - 1) + '\n';
  const head = Buffer.alloc(pre);
  head.write('\x93NUMPY', 0, 'latin1'); head[6] = 1; head[7] = 0; head.writeUInt16LE(h.length, 8);
  const body = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
  return Buffer.concat([head, Buffer.from(h, 'latin1'), body]);
}

function readNpy(file) {
  let b;
  try { b = fs.readFileSync(file); } catch (e) { throw new BadInput(`${file}: cannot read (${e.code || e.message})`); }
  if (b.length < 10 || b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new BadInput(`${file}: not a .npy file (no \\x93NUMPY magic)`);
  const major = b[6];
  let hlen, off;
  if (major === 1) { hlen = b.readUInt16LE(8); off = 10; }
  else if (major === 2 || major === 3) { if (b.length < 12) throw new BadInput(`${file}: truncated header`); hlen = b.readUInt32LE(8); off = 12; }
  else throw new BadInput(`${file}: unsupported .npy version ${major}`);
  if (off + hlen > b.length) throw new BadInput(`${file}: truncated header`);
  const h = b.toString('latin1', off, off + hlen);
  const d = /'descr'\s*:\s*'([^']+)'/.exec(h), f = /'fortran_order'\s*:\s*(True|False)/.exec(h), s = /'shape'\s*:\s*\(([^)]*)\)/.exec(h);
  if (!d || !f || !s) throw new BadInput(`${file}: malformed .npy header`);
  const dtype = DESCR_TO_DTYPE[d[1]];
  if (!dtype) throw new BadInput(`${file}: unsupported dtype '${d[1]}'`);
  const shape = s[1].split(',').map(t => t.trim()).filter(Boolean).map(Number);
  if (shape.some(v => !Number.isInteger(v) || v < 0)) throw new BadInput(`${file}: bad shape (${s[1]})`);
  if (f[1] === 'True' && shape.filter(v => v > 1).length > 1) throw new BadInput(`${file}: fortran_order arrays are not supported`);
  const n = shape.reduce((a, v) => a * v, 1);
  const T = DTYPES[dtype].T, bytes = n * T.BYTES_PER_ELEMENT, start = off + hlen;
  if (start + bytes > b.length) throw new BadInput(`${file}: data truncated (${b.length - start} of ${bytes} bytes)`);
  const copy = new Uint8Array(bytes); copy.set(b.subarray(start, start + bytes));
  return { dtype, shape, data: new T(copy.buffer) };
}

class BadInput extends Error {}

// ---------------------------------------------------------------- deterministic inputs
// --pattern sin: float 0.5+0.5*sin(0.37*i+k); int32 (i*7+k)%3; uint8 (i*37+k)%256; k is
// the input's index in its signature. --random SEED: xorshift64* seeded with SplitMix64
// of (SEED, signature, input); float ~ N(0,1) (Box-Muller), int32 uniform in [0,2],
// uint8 uniform in [0,255] (int32 inputs are usually indices or lengths: keep them small).
function splitmix64(x) {
  x = (x + 0x9E3779B97F4A7C15n) & 0xFFFFFFFFFFFFFFFFn;
  let z = x;
  z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & 0xFFFFFFFFFFFFFFFFn;
  z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & 0xFFFFFFFFFFFFFFFFn;
  return z ^ (z >> 31n);
}
function makeRng(seed, sig, k) {
  let s = splitmix64(splitmix64(splitmix64(seed) ^ BigInt(sig)) ^ BigInt(k));
  if (s === 0n) s = 1n;
  // xorshift64* on two 32-bit halves would be faster; BigInt keeps it simple and exact.
  const next64 = () => {
    s ^= s >> 12n; s ^= (s << 25n) & 0xFFFFFFFFFFFFFFFFn; s ^= s >> 27n;
    return (s * 0x2545F4914F6CDD1Dn) & 0xFFFFFFFFFFFFFFFFn;
  };
  const uniform = () => Number(next64() >> 11n) / 9007199254740992;   // [0,1), 53 bits
  return { uniform };
}
function makeInput(dtype, n, k, sig, opts) {
  const spec = DTYPES[dtype];
  if (!spec) throw new Error(`no generator for dtype ${dtype}`);
  const x = new spec.T(n);
  if (opts.seed === null) {
    if (dtype === 'float32') for (let i = 0; i < n; i++) x[i] = 0.5 + 0.5 * Math.sin(0.37 * i + k);
    else if (dtype === 'int32') for (let i = 0; i < n; i++) x[i] = (i * 7 + k) % 3;
    else if (dtype === 'uint8') for (let i = 0; i < n; i++) x[i] = (i * 37 + k) % 256;
    else throw new Error(`no generator for dtype ${dtype}`);
  } else {
    const r = makeRng(opts.seed, sig, k);
    if (dtype === 'float32') {
      for (let i = 0; i < n; i += 2) {
        const u1 = 1 - r.uniform(), u2 = r.uniform(), m = Math.sqrt(-2 * Math.log(u1));
        x[i] = m * Math.cos(2 * Math.PI * u2); if (i + 1 < n) x[i + 1] = m * Math.sin(2 * Math.PI * u2);
      }
    } else if (dtype === 'int32') for (let i = 0; i < n; i++) x[i] = Math.floor(r.uniform() * 3);
    else if (dtype === 'uint8') for (let i = 0; i < n; i++) x[i] = Math.floor(r.uniform() * 256);
    else throw new Error(`no generator for dtype ${dtype}`);
  }
  return x;
}

// ---------------------------------------------------------------- log parsing
// The GPU delegate prints (to the wasm module's stderr, which lands in console.*):
//   "ERROR: Following operations are not supported by GPU delegate:" then "OP: reason" lines,
//   "N operations will run on the GPU, and the remaining M operations will run on the CPU."
//   "No operations will run on the GPU, and all M operations will run on the CPU."
// LiteRT.js itself warns "... on non-JSPI browser. Falling back to WASM execution."
function parseLog(lines) {
  const r = { residency: null, unsupported: [], partitions: null, replaced: null, nodes: null,
              fallback_all: false, delegate_init_failed: false, failed_node: null, errors: [] };
  let inUns = false;
  for (const raw of lines) {
    const line = raw.replace(/%c/g, '').trim();
    if (!line) continue;
    let m;
    if ((m = /(\d+) operations will run on the GPU, and the remaining (\d+) operations will run on the CPU/.exec(line))) {
      r.residency = { gpu_ops: +m[1], cpu_ops: +m[2], line: line.replace(/^(ERROR|INFO|WARNING):\s*/, '') }; inUns = false; continue;
    }
    if ((m = /No operations will run on the GPU, and all (\d+) operations will run on the CPU/.exec(line))) {
      r.residency = { gpu_ops: 0, cpu_ops: +m[1], line: line.replace(/^(ERROR|INFO|WARNING):\s*/, '') }; inUns = false; continue;
    }
    if (/Following operations are not supported by GPU delegate/.test(line)) { inUns = true; continue; }
    if (inUns) {
      const mm = /^(?:ERROR:\s*)?([A-Z][A-Z0-9_]*(?: [A-Za-z0-9_]+)?): (.*)$/.exec(line);
      if (mm && !/^(INFO|WARNING|ERROR)$/.test(mm[1])) { r.unsupported.push({ op: mm[1], reason: mm[2].trim() }); continue; }
      inUns = false;
    }
    if ((m = /Replacing (\d+) out of (\d+) node\(s\).*?(\d+) partitions/.exec(line))) { r.replaced = +m[1]; r.nodes = +m[2]; r.partitions = +m[3]; }
    if (/Falling back to WASM execution/.test(line)) r.fallback_all = true;
    if (/Restored original execution plan after delegate application failure/.test(line)) r.delegate_init_failed = true;
    if (!r.failed_node && (m = /Node number (\d+) \(([^)]+)\) failed to (prepare|invoke)/.exec(line))) r.failed_node = { index: +m[1], op: m[2], stage: m[3] };
    if (/^ERROR\b|error/i.test(line) && !/Sparsity|npu_registry|not supported by GPU delegate|default WebGPU device/.test(line)) r.errors.push(line);
  }
  r.errors = r.errors.slice(0, 40);
  return r;
}

// Known limits of LiteRT.js itself (not verdicts about the GPU).
const RUNTIME_LIMITS = [
  [/Element type (\w+) is not supported/, m => `LiteRT.js cannot feed or read ${m[1]} tensors`],
  [/Asyncify is not defined/, () => 'LiteRT.js wasm build lacks Asyncify (needed by this model on WebGPU)'],
  [/unresolved custom op: ([^.\s]+)/, m => `custom op ${m[1]} is not registered in LiteRT.js`],
  [/Variable tensors not yet supported/, () => 'LiteRT.js cannot load models with variable tensors'],
  [/Cannot read properties of undefined/, () => 'LiteRT.js failed on this model\'s tensor types'],
  [/memory access out of bounds/, () => 'LiteRT.js wasm memory fault'],
  [/Aborted\(\)/, () => 'LiteRT.js wasm abort'],
];
function classify(errText, logLines) {
  const hay = [errText || '', ...logLines].join('\n');
  for (const [re, why] of RUNTIME_LIMITS) { const m = re.exec(hay); if (m) return { cls: 'runtime_limit', why: why(m) }; }
  return null;
}

// ---------------------------------------------------------------- worker: one mode
async function worker(o) {
  const mode = o.worker;                       // cpu | gpu-fp32 | gpu-fp16 | probe
  const modeDir = path.join(o.out, mode);
  if (!o.probe) fs.mkdirSync(modeDir, { recursive: true });
  const captured = [];
  let capturing = true;
  const rawOut = process.stdout.write.bind(process.stdout), rawErr = process.stderr.write.bind(process.stderr);
  const grab = (orig) => (chunk, ...rest) => { if (capturing) for (const l of String(chunk).split('\n')) if (l.trim()) captured.push(l); return orig(chunk, ...rest); };
  process.stdout.write = grab(rawOut); process.stderr.write = grab(rawErr);
  for (const k of ['log', 'info', 'warn', 'error', 'debug']) {
    console[k] = (...a) => { const s = a.map(v => typeof v === 'string' ? v : (v && v.stack) || String(v)).join(' '); process.stderr.write(s + '\n'); };
  }
  const rec = { mode, accelerator: mode === 'cpu' ? 'cpu' : 'gpu', precision: mode.startsWith('gpu-') ? mode.slice(4) : null,
                compile: { ok: false, ms: null, error: null }, status: 'error', error: null, error_class: null,
                executed_on: null, fully_accelerated: null, signatures: [] };
  const gpuInfo = { available: false, reason: null, adapter: null, features: [] };

  // WebGPU through Dawn (npm `webgpu`): only for GPU modes and the probe.
  let device = null;
  if (o.probe || rec.accelerator === 'gpu') {
    try {
      const { create, globals } = await import(path.join(HERE, 'node_modules', 'webgpu', 'index.js'));
      Object.assign(globalThis, globals);
      const gpu = create([]);
      Object.defineProperty(globalThis, 'navigator', { value: { gpu, userAgent: 'node' }, configurable: true });
      const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
      if (!adapter) gpuInfo.reason = 'Dawn found no WebGPU adapter (no Vulkan GPU driver)';
      else {
        const info = adapter.info || {};
        gpuInfo.adapter = { vendor: info.vendor || '', architecture: info.architecture || '', device: info.device || '', description: info.description || '' };
        gpuInfo.features = [...adapter.features].sort();
        const want = ['shader-f16', 'subgroups'].filter(f => adapter.features.has(f));
        device = await adapter.requestDevice({ requiredFeatures: want, requiredLimits: {
          maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize, maxBufferSize: adapter.limits.maxBufferSize } });
        gpuInfo.available = true;
      }
    } catch (e) { gpuInfo.reason = `WebGPU (Dawn) failed: ${String(e && e.message || e).slice(0, 300)}`; }
    const warns = captured.filter(l => /Couldn't load Vulkan|Vulkan/.test(l)).slice(0, 3);
    if (!gpuInfo.available && warns.length) gpuInfo.reason += ` [${warns.join(' | ').slice(0, 300)}]`;
    if (o.probe) { capturing = false; writeJson(path.join(o.out, 'gpu_probe.json'), gpuInfo); process.exit(0); }
    rec.gpu = gpuInfo;
    if (!device) { rec.status = 'unavailable'; rec.error = gpuInfo.reason; rec.error_class = 'unavailable'; return finish(); }
  }

  function finish() {
    capturing = false;
    // LiteRT.js tries to make a default WebGPU device even for wasm; on the CPU path
    // that failure (and its stack) is noise.
    for (let i = 0; i < captured.length; i++) {
      if (/Failed to create default WebGPU device/.test(captured[i])) {
        let j = i + 1; while (j < captured.length && /^\s+at /.test(captured[j])) j++;
        captured.splice(i, j - i); i--;
      }
    }
    const p = parseLog(captured);
    Object.assign(rec, { residency: p.residency, unsupported: p.unsupported, partitions: p.partitions,
      replaced: p.replaced, nodes: p.nodes, fallback_all: p.fallback_all,
      delegate_init_failed: p.delegate_init_failed, failed_node: p.failed_node, log_errors: p.errors });
    rec.log = captured.slice(0, 400).map(l => l.replace(/%c/g, '').slice(0, 500));
    if (rec.error && !rec.error_class) {
      const c = classify(rec.error, captured);
      rec.error_class = c ? c.cls : (rec.compile.ok ? 'run_failed' : 'compile_failed');
      if (c) rec.limit = c.why;
    }
    // A model with an unregistered custom op "runs" in LiteRT.js, but its tensors were
    // never allocated: the outputs are garbage. That is a LiteRT.js limit, not a result.
    const unresolved = captured.map(l => /unresolved custom op: ([^.\s]+)/.exec(l)).find(Boolean);
    if (rec.status === 'ok' && (unresolved || captured.some(l => /Failed to allocate tensors/.test(l)))) {
      rec.status = 'runtime_limit'; rec.error_class = 'runtime_limit';
      rec.limit = unresolved ? `custom op ${unresolved[1]} is not registered in LiteRT.js` : 'LiteRT.js failed to allocate tensors';
      rec.error = rec.error || rec.limit;
    }
    if (rec.error_class === 'runtime_limit') rec.status = 'runtime_limit';
    writeJson(path.join(modeDir, 'mode.json'), rec);
    process.exit(0);
  }

  // LiteRT.js under Node: it expects a browser/worker, so give it the few globals its
  // Emscripten loader reaches for: self, require, __dirname/__filename, importScripts.
  const wasmDir = path.join(HERE, 'node_modules', '@litertjs', 'core', 'wasm');
  globalThis.self = globalThis;
  globalThis.require = createRequire(import.meta.url);
  globalThis.__dirname = wasmDir;
  globalThis.__filename = path.join(wasmDir, 'litert.js');
  globalThis.importScripts = (url) => {
    let p = String(url);
    if (p.startsWith('file://')) p = fileURLToPath(p);
    vm.runInThisContext(fs.readFileSync(p, 'utf8'), { filename: p });
  };
  let core;
  try {
    core = await import(path.join(HERE, 'node_modules', '@litertjs', 'core', 'dist', 'index.js'));
    await core.loadLiteRt(wasmDir + '/');
    if (device) core.setWebGpuDevice(device);
  } catch (e) { rec.error = `LiteRT.js failed to load: ${String(e && e.message || e)}`; rec.error_class = 'runner_failed'; return finish(); }

  const modelBytes = new Uint8Array(fs.readFileSync(o.model));
  let model;
  const t0 = performance.now();
  try {
    model = await core.loadAndCompile(modelBytes, rec.accelerator === 'cpu' ? { accelerator: 'wasm' }
      : { accelerator: 'webgpu', gpuOptions: { precision: rec.precision } });
    rec.compile.ok = true;
  } catch (e) {
    rec.compile.error = String(e && e.message || e).slice(0, 2000);
    rec.error = rec.compile.error;
  }
  rec.compile.ms = round(performance.now() - t0, 1);
  if (!model) return finish();
  rec.executed_on = model.options && model.options.accelerator === 'webgpu' ? 'gpu' : 'cpu';
  try { rec.fully_accelerated = rec.executed_on === 'gpu' ? !!model.isFullyAccelerated : null; } catch { rec.fully_accelerated = null; }

  // Every signature, in the model's order.
  const inDir = path.join(o.out, 'inputs');
  fs.mkdirSync(inDir, { recursive: true });
  const sigs = Object.values(model.signatures);
  let anyFail = null;
  for (let j = 0; j < sigs.length; j++) {
    const sig = sigs[j];
    const srec = { index: j, key: sig.key, ok: false, inputs: [], outputs: [], first_ms: null, avg_ms: null, error: null };
    rec.signatures.push(srec);
    try {
      let ins, outs;
      try { ins = sig.getInputDetails(); outs = sig.getOutputDetails(); }
      catch (e) { throw Object.assign(new Error(String(e && e.message || e)), { limit: true }); }
      const tensors = [];
      for (let k = 0; k < ins.length; k++) {
        const d = ins[k];
        const shape = Array.from(d.shape).map(v => v < 0 ? 1 : v);
        const n = shape.reduce((a, v) => a * v, 1);
        const given = o.inputs.find(g => g.key === d.name || g.key === String(k));
        let data;
        if (given) {
          const a = readNpy(given.file);
          const an = a.shape.reduce((x, v) => x * v, 1);
          if (an !== n) throw new BadInput(`${given.file}: ${an} elements, but input '${d.name}' of signature '${sig.key}' needs ${n} (shape [${shape}])`);
          if (a.dtype === d.dtype) data = a.data;
          else if (['float32', 'float64', 'int32', 'uint8', 'int8', 'int16', 'uint16', 'uint32'].includes(a.dtype)) data = DTYPES[d.dtype].T.from(a.data);
          else throw new BadInput(`${given.file}: dtype ${a.dtype} cannot feed ${d.dtype} input '${d.name}'`);
        } else data = makeInput(d.dtype, n, k, j, o);
        const f = `s${j}_input_${k}.npy`;
        if (!fs.existsSync(path.join(inDir, f))) writeAtomic(path.join(inDir, f), npyBytes(d.dtype, shape, data));
        srec.inputs.push({ name: d.name, dtype: d.dtype, shape, file: `inputs/${f}`, source: given ? given.file : (o.seed === null ? 'pattern sin' : `random ${o.seed}`) });
        tensors.push(new core.Tensor(data, shape));
      }
      const runOnce = async () => {
        const res = await sig.run(tensors);
        const arrays = [];
        for (const t of res) {
          const host = t.accelerator === 'wasm' ? t : await t.moveTo('wasm');
          arrays.push(host.toTypedArray().slice());
          host.delete();
        }
        return arrays;
      };
      let t1 = performance.now();
      const arrays = await runOnce();
      srec.first_ms = round(performance.now() - t1, 2);
      if (o.runs > 0) {
        t1 = performance.now();
        for (let r = 0; r < o.runs; r++) await runOnce();
        srec.avg_ms = round((performance.now() - t1) / o.runs, 3);
      }
      for (let k = 0; k < arrays.length; k++) {
        const d = outs[k] || { name: `output_${k}`, dtype: 'float32', shape: [arrays[k].length] };
        const shape = Array.from(d.shape).map(v => v < 0 ? 1 : v);
        const f = j === 0 ? `output_${k}.npy` : `s${j}_output_${k}.npy`;
        const n = shape.reduce((a, v) => a * v, 1);
        writeAtomic(path.join(modeDir, f), npyBytes(d.dtype, n === arrays[k].length ? shape : [arrays[k].length], arrays[k]));
        srec.outputs.push({ index: k, name: d.name, dtype: d.dtype, shape: n === arrays[k].length ? shape : [arrays[k].length], file: `${mode}/${f}`, n: arrays[k].length });
      }
      srec.ok = true;
    } catch (e) {
      if (e instanceof BadInput) { capturing = false; process.stderr.write(`runner.mjs: ${e.message}\n`); process.exit(2); }
      srec.error = String(e && e.message || e).slice(0, 2000);
      if (e && e.limit) srec.error_class = 'runtime_limit';
      anyFail = anyFail || srec.error;
    }
  }
  if (anyFail) rec.error = anyFail;
  rec.status = anyFail ? 'error' : 'ok';
  return finish();
}

// ---------------------------------------------------------------- orchestrator
function runChild(args, seconds, logFile) {
  return new Promise((resolve) => {
    const fd = fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', fd, fd] });
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, seconds * 1000);
    child.on('exit', (code, signal) => { clearTimeout(timer); fs.closeSync(fd); resolve({ code, signal, timedOut }); });
    child.on('error', (e) => { clearTimeout(timer); fs.closeSync(fd); resolve({ code: null, signal: null, timedOut: false, error: e.message }); });
  });
}
function tail(file, n = 12) {
  try { return fs.readFileSync(file, 'utf8').split('\n').filter(l => l.trim()).slice(-n).map(l => l.slice(0, 400)); } catch { return []; }
}

async function orchestrate(o) {
  let st;
  try { st = fs.statSync(o.model); } catch (e) { process.stderr.write(`runner.mjs: ${o.model}: cannot read (${e.code})\n`); process.exit(2); }
  if (!st.isFile()) { process.stderr.write(`runner.mjs: ${o.model}: not a regular file\n`); process.exit(2); }
  const head = Buffer.alloc(8); const fd = fs.openSync(o.model, 'r'); fs.readSync(fd, head, 0, 8, 0); fs.closeSync(fd);
  if (st.size < 8 || head.toString('latin1', 4, 8) !== 'TFL3') { process.stderr.write(`runner.mjs: ${o.model}: not a .tflite model (no TFL3 identifier)\n`); process.exit(2); }
  for (const g of o.inputs) if (!fs.existsSync(g.file)) { process.stderr.write(`runner.mjs: ${g.file}: cannot read input\n`); process.exit(2); }
  if (!pkgVersion('@litertjs/core')) { process.stderr.write('runner.mjs: LiteRT.js runtime not installed: run make test / tools/setup.sh\n'); process.exit(3); }
  fs.mkdirSync(o.out, { recursive: true });
  const passArgs = ['--out', o.out, '--runs', String(o.runs)];
  if (o.seed !== null) passArgs.push('--random', String(o.seed));
  for (const g of o.inputs) passArgs.push('--input', `${g.key}=${g.file}`);

  const result = {
    schema: SCHEMA, runtime: 'js', model: path.resolve(o.model), model_bytes: st.size,
    inputs_from: o.inputs.length ? 'files' : (o.seed === null ? 'pattern sin' : `random ${o.seed}`),
    versions: { litertjs: pkgVersion('@litertjs/core'), webgpu: pkgVersion('webgpu'), dawn: pkgVersion('webgpu') ? `dawn.node from npm webgpu ${pkgVersion('webgpu')}` : null,
                node: process.version, platform: `${process.platform}-${process.arch}` },
    gpu: null, modes: [], started: new Date().toISOString(),
  };
  const save = () => writeJson(path.join(o.out, 'result.json'), result);
  const modes = [];
  if (o.accelerator !== 'gpu') modes.push('cpu');
  if (o.accelerator !== 'cpu') for (const p of (o.precision === 'both' ? ['fp32', 'fp16'] : [o.precision])) modes.push(`gpu-${p}`);

  if (o.accelerator !== 'cpu') {
    const r = await runChild(['--probe-gpu', '--worker', 'probe', ...passArgs], Math.min(o.timeout, 60), path.join(o.out, 'gpu_probe.log'));
    result.gpu = readJsonMaybe(path.join(o.out, 'gpu_probe.json')) ||
      { available: false, reason: r.timedOut ? 'WebGPU probe timed out' : `WebGPU probe died (${r.signal || 'exit ' + r.code})`, adapter: null, features: [] };
    if (!result.gpu.available) {
      const why = tail(path.join(o.out, 'gpu_probe.log'), 40).find(l => /Couldn't load Vulkan|No adapter|vulkan/i.test(l));
      if (why) result.gpu.reason += ` (${why.trim().slice(0, 200)})`;
    }
    result.versions.gpu_adapter = result.gpu.adapter;
  }
  save();
  for (const mode of modes) {
    const dir = path.join(o.out, mode);
    fs.mkdirSync(dir, { recursive: true });
    try { fs.unlinkSync(path.join(dir, 'mode.json')); } catch { /* absent */ }
    let rec;
    if (mode !== 'cpu' && result.gpu && !result.gpu.available) {
      rec = { mode, accelerator: 'gpu', precision: mode.slice(4), compile: { ok: false, ms: null, error: null }, status: 'unavailable',
              error: result.gpu.reason, error_class: 'unavailable', signatures: [] };
    } else {
      const t0 = Date.now();
      const r = await runChild(['--worker', mode, o.model, ...passArgs], o.timeout, path.join(dir, 'worker.log'));
      if (r.code === 2) { process.stderr.write(tail(path.join(dir, 'worker.log'), 1).join('\n') + '\n'); process.exit(2); }
      rec = readJsonMaybe(path.join(dir, 'mode.json'));
      if (!rec) {
        rec = { mode, accelerator: mode === 'cpu' ? 'cpu' : 'gpu', precision: mode === 'cpu' ? null : mode.slice(4), compile: { ok: false, ms: null, error: null },
                status: r.timedOut ? 'timeout' : 'crashed', error_class: r.timedOut ? 'timeout' : 'crashed',
                error: r.timedOut ? `no result within ${o.timeout} s (killed)` : `worker died (${r.signal ? 'signal ' + r.signal : 'exit ' + r.code}${r.error ? ': ' + r.error : ''})`,
                log: tail(path.join(dir, 'worker.log'), 40), signatures: [] };
        const c = classify(rec.error, rec.log);
        if (c) { rec.status = rec.error_class = 'runtime_limit'; rec.limit = c.why; }
      }
      rec.wall_ms = Date.now() - t0;
    }
    result.modes.push(rec);
    save();
  }
  result.finished = new Date().toISOString();
  save();
  process.exit(0);
}

const opts = parseArgs(process.argv.slice(2));
(opts.worker ? worker(opts) : orchestrate(opts)).catch((e) => {
  try { process.stderr.write(`runner.mjs: internal error: ${e && e.stack || e}\n`); } catch { /* stderr gone */ }
  process.exit(3);
});

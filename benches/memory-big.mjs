#!/usr/bin/env node
// The CPU wasm module's memory for a big random model, stage by stage, in Node (no page): the
// module's linear memory (`memory.buffer.byteLength`, which only grows, so each figure is the
// high-water mark so far) and the process's peak RSS, after
//   - init: the module instantiated;
//   - file: the weights streamed into a `WeightsFile` in 16 MB chunks, as the worker does (it
//     splits the file into its tensors as they arrive);
//   - load: `Session.createCpu` (the projections packed from the file's tensors, F16 tiles for a
//     big model, each tensor freed once used; the embeddings, biases and norms in F32), then the
//     emptied `WeightsFile` freed, as the worker does;
//   - first translation: the sentence of benches/big-model.mjs;
//   - more translations: RUNS more, the same sentence;
//   - twin: the comparison view's `twin()` translating once (issue 58 part 6: does it pack again?);
//   - twinHeadsOff: the twin with two heads off (`setAblation`, as the comparison view does) translating.
// PROBE=1 adds each stage's free memory (see `freeMB`).
// Prints one JSON line per run; `--summary FILE...` prints the medians and ranges of such lines.
// OUT=FILE also writes the first translation's answer there (every number in it, by path), and
// `--compare A B` prints the largest difference between two such files and whether their output
// ids are the same (the same model before and after a change).
//
//   DIR=benches/out/random-tc-big node benches/memory-big.mjs     (after `attnscope random tc-big
//   --out benches/out/random-tc-big --max-len 24`; each run is a fresh process: wasm memory never
//   shrinks)
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const TEXT = 'My father and I often eat apples and drink tea after dinner.';
const MB = 1e6;

if (process.argv[2] === '--summary') {
  const runs = process.argv
    .slice(3)
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  for (const key of Object.keys(runs[0].stages)) {
    const wasm = runs.map((r) => r.stages[key].wasmMB);
    const rss = runs.map((r) => r.stages[key].maxRssMB);
    const ms = runs.map((r) => r.stages[key].ms);
    const free = runs.map((r) => r.stages[key].freeMB).filter((v) => v !== undefined);
    const live = free.length ? `, free ${median(free)} MB (${Math.min(...free)}–${Math.max(...free)})` : '';
    console.log(
      `${key}: wasm ${median(wasm)} MB (${Math.min(...wasm)}–${Math.max(...wasm)}), peak RSS ${median(rss)} MB (${Math.min(...rss)}–${Math.max(...rss)})${live}, ${median(ms)} ms, ${runs.length} runs`,
    );
  }
  process.exit(0);
}

/** Every number of an answer, by path: { 'trace.tgtIds': [...], ... }. */
function numbers(value, path = '', out = {}) {
  const put = (v) => {
    out[path] ??= [];
    out[path].push(v);
  };
  if (typeof value === 'number') put(value);
  else if (value instanceof Uint8Array && value.length % 4 === 0)
    for (const v of new Float32Array(value.slice().buffer)) put(v); // f32s as bytes (flat.rs)
  else if (ArrayBuffer.isView(value)) for (const v of value) put(v);
  else if (Array.isArray(value)) for (const item of value) numbers(item, path, out);
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) numbers(item, path ? `${path}.${key}` : key, out);
  return out;
}

if (process.argv[2] === '--compare') {
  const [a, b] = process.argv.slice(3).map((file) => JSON.parse(readFileSync(file, 'utf8')));
  let worst = { diff: 0, path: '' };
  for (const path of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const [x, y] = [a[path] ?? [], b[path] ?? []];
    if (x.length !== y.length) {
      console.log(`${path}: ${x.length} values against ${y.length}`);
      continue;
    }
    x.forEach((v, i) => {
      const diff = Math.abs(v - y[i]);
      if (diff > worst.diff) worst = { diff, path };
    });
  }
  const ids = (n) => JSON.stringify(Object.entries(n).filter(([path]) => /ids$/i.test(path)));
  console.log(`largest difference ${worst.diff} (${worst.path}); ids ${ids(a) === ids(b) ? 'identical' : 'DIFFER'}`);
  process.exit(0);
}

const dir = join(root, process.env.DIR || 'benches/out/random-tc-big');
const RUNS = Number(process.env.RUNS || 2);
const pkg = process.env.PKG || join(root, 'pkg/cpu'); // another build of the module to measure
const { initSync, Session, WeightsFile } = await import(join(pkg, 'attnscope.js'));
const wasm = initSync({ module: readFileSync(join(pkg, 'attnscope_bg.wasm')) });
const stages = {};
let last = performance.now();
const mark = (name) => {
  const now = performance.now();
  stages[name] = {
    wasmMB: Math.round(wasm.memory.buffer.byteLength / MB),
    maxRssMB: Math.round((process.resourceUsage().maxRSS * 1024) / MB),
    ms: Math.round(now - last),
  };
  if (process.env.PROBE === '1') stages[name].freeMB = freeMB();
  last = now;
  console.error(name, JSON.stringify(stages[name])); // as it goes: a run that dies says where
};
// PROBE=1: how much of the high-water mark is free at each stage (so live ≈ wasmMB − freeMB):
// 4 MB blocks (each a `WeightsFile` holding one 4 MB tensor) taken until the memory would grow,
// then given back. Blocks smaller than 4 MB are not counted, and the probe may raise the
// high-water mark by one block.
function block(bytes) {
  const header = new TextEncoder().encode(JSON.stringify({ a: { dtype: 'U8', shape: [bytes], data_offsets: [0, bytes] } }));
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(header.length), true);
  const file = new WeightsFile(8 + header.length + bytes);
  for (const part of [length, header, new Uint8Array(bytes)]) file.push(part);
  return file;
}
function freeMB() {
  const before = wasm.memory.buffer.byteLength;
  const blocks = [];
  while (wasm.memory.buffer.byteLength === before) blocks.push(block(4 * MB));
  const free = (blocks.length - 1) * 4;
  for (const b of blocks) b.free();
  return free;
}
mark('init');

const weightsPath = join(dir, 'model.safetensors');
const size = statSync(weightsPath).size;
const weights = new WeightsFile(size);
const chunk = Buffer.alloc(16 << 20);
const fd = openSync(weightsPath, 'r');
for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) weights.push(chunk.subarray(0, read));
closeSync(fd);
mark('file');

const file = (name) => readFileSync(join(dir, name));
const session = Session.createCpu(file('config.json'), weights, file('src_tokenizer.json'), file('tgt_tokenizer.json'));
if (process.env.FREE_FILE !== '0') weights.free();
mark('load');
const first = await session.translate(TEXT);
mark('firstTranslation');
if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(numbers(first)));
for (let i = 0; i < RUNS; i++) await session.translate(TEXT);
mark('moreTranslations');
const twin = session.twin();
await twin.translate(TEXT);
mark('twin');
try {
  await twin.setAblation('encoder:0:0,cross:1:2');
  await twin.translate(TEXT);
  mark('twinHeadsOff');
} catch (error) {
  mark('twinHeadsOff');
  stages.twinHeadsOff.error = String(error?.message ?? error);
}
console.log(
  JSON.stringify({
    model: dir,
    weightBytes: size,
    outputTokens: (first.trace?.tgtIds ?? first.tgtIds ?? []).length,
    stages,
  }),
);

#!/usr/bin/env node
// The CPU wasm module's memory for a big random model, stage by stage, in Node (no page): the
// module's linear memory (`memory.buffer.byteLength`, which only grows, so each figure is the
// high-water mark so far) and the process's peak RSS, after
//   - init: the module instantiated;
//   - file: the weights streamed into a `WeightsFile` in 16 MB chunks, as the worker does;
//   - load: `Session.createCpu` (parse, F16 → F32, the model's tensors);
//   - first translation: the sentence of benches/big-model.mjs (this packs the weights);
//   - more translations: RUNS more, the same sentence;
//   - twin: the comparison view's `twin()` translating once (issue 58 part 6: does it pack again?).
// Prints one JSON line per run; `--summary FILE...` prints the medians and ranges of such lines.
//
//   DIR=benches/out/random-tc-big node benches/memory-big.mjs     (after `attnscope random tc-big
//   --out benches/out/random-tc-big --max-len 24`; each run is a fresh process: wasm memory never
//   shrinks)
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
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
    console.log(
      `${key}: wasm ${median(wasm)} MB (${Math.min(...wasm)}–${Math.max(...wasm)}), peak RSS ${median(rss)} MB (${Math.min(...rss)}–${Math.max(...rss)}), ${median(ms)} ms, ${runs.length} runs`,
    );
  }
  process.exit(0);
}

const dir = join(root, process.env.DIR || 'benches/out/random-tc-big');
const RUNS = Number(process.env.RUNS || 2);
const { initSync, Session, WeightsFile } = await import(join(root, 'pkg/cpu/attnscope.js'));
const wasm = initSync({ module: readFileSync(join(root, 'pkg/cpu/attnscope_bg.wasm')) });
const stages = {};
let last = performance.now();
const mark = (name) => {
  const now = performance.now();
  stages[name] = {
    wasmMB: Math.round(wasm.memory.buffer.byteLength / MB),
    maxRssMB: Math.round((process.resourceUsage().maxRSS * 1024) / MB),
    ms: Math.round(now - last),
  };
  last = now;
};
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
mark('load');
const first = await session.translate(TEXT);
mark('firstTranslation');
for (let i = 0; i < RUNS; i++) await session.translate(TEXT);
mark('moreTranslations');
const twin = session.twin();
await twin.translate(TEXT);
mark('twin');
console.log(
  JSON.stringify({
    model: dir,
    weightBytes: size,
    outputTokens: (first.trace?.tgtIds ?? first.tgtIds ?? []).length,
    stages,
  }),
);

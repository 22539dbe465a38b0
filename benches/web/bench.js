// In-browser benchmark: attnscope (CPU wasm, WebGPU wasm) against onnxruntime-web (wasm) on the
// same model and sentences. Results go to window.__bench (read by benches/browser.mjs).
import initCpu, { Session as CpuSession, modelFileNames } from '/pkg/cpu/attnscope.js';
import * as ort from '/vendor/ort/ort.wasm.min.mjs';

const params = new URLSearchParams(location.search);
const MODEL = params.get('model') || 'en-zh';
const ENGINES = (params.get('engines') || 'cpu,ort,webgpu').split(',');
const RUNS = Number(params.get('runs') || 20);
const WARMUP = 3;
const LENGTHS = (params.get('lengths') || '8,16,32,64').split(',').map(Number);
const out = document.getElementById('out');
const log = (line) => {
  out.textContent += `\n${line}`;
};

const WORDS = {
  'en-zh': [['i', 'love', 'eating', 'apples', 'and', 'my', 'father', 'likes', 'drinking', 'tea', 'every', 'day'], ' '],
  'date-iso': [['2', '9', ' ', 'a', 'u', 'g', '1', '5', '8'], ''],
};
const sentence = (n) => {
  const [words, joiner] = WORDS[MODEL];
  return Array.from({ length: n - 1 }, (_, i) => words[i % words.length]).join(joiner);
};

async function bytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor((s.length - 1) / 2)], p95: s[Math.round((s.length - 1) * 0.95)], runs: s.length };
}

/** Time `fn` (after `setup`, which is not timed) over RUNS runs after WARMUP. */
async function time(fn, setup = async () => {}) {
  for (let i = 0; i < WARMUP; i++) {
    await setup();
    await fn();
  }
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    await setup();
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return stats(samples);
}

/** The model's files, by the names the wasm module gives them (after initCpu). */
async function loadFiles() {
  const files = {};
  for (const [key, name] of Object.entries(modelFileNames())) files[key] = await bytes(`/models/${MODEL}/${name}`);
  return files;
}

/**
 * attnscope on one backend: encode (start), one cached decode step at the end of the sentence
 * (step, after an untimed back), and the whole sentence (translate). Each call answers with the
 * trace so far, as the page gets it.
 */
async function attnscope(Session, backend, files) {
  const session = await Session.create(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer, backend);
  const rows = [];
  for (const n of LENGTHS) {
    const text = sentence(n);
    const cold = performance.now();
    const { trace } = await session.translate(text);
    const coldMs = performance.now() - cold;
    const encode = await time(() => session.start(text));
    await session.runToEnd();
    const step = await time(
      () => session.step(),
      () => session.back(),
    );
    const greedy = await time(() => session.translate(text));
    rows.push({
      n,
      out: trace.steps.length,
      tgtIds: Array.from(trace.tgtIds),
      srcIds: Array.from(trace.srcIds),
      coldMs,
      encode,
      step,
      greedy,
    });
  }
  session.free();
  return rows;
}

/** onnxruntime-web on the exported encoder/decoder (the decoder recomputes the prefix). */
async function onnx(reference, files) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = '/vendor/ort/';
  const config = JSON.parse(new TextDecoder().decode(files.config));
  const enc = await ort.InferenceSession.create(await bytes(`/bench-out/${MODEL}/encoder.onnx`), { executionProviders: ['wasm'] });
  const dec = await ort.InferenceSession.create(await bytes(`/bench-out/${MODEL}/decoder.onnx`), { executionProviders: ['wasm'] });
  const ids = (a) => new ort.Tensor('int64', BigInt64Array.from(a.map(BigInt)), [1, a.length]);
  const rows = [];
  for (const ref of reference) {
    const src = ids(ref.srcIds);
    const encode = async () => (await enc.run({ src_ids: src })).memory;
    const greedy = async () => {
      const memory = await encode();
      const tokens = [config.bos_id];
      while (tokens.length < config.max_len) {
        const { logits } = await dec.run({ tgt_ids: ids(tokens), memory });
        const [, t, v] = logits.dims;
        const last = logits.data.subarray((t - 1) * v, t * v);
        let best = 0;
        for (let i = 1; i < v; i++) if (last[i] > last[best]) best = i;
        if (best === config.eos_id) break;
        tokens.push(best);
      }
      return tokens;
    };
    const cold = performance.now();
    const tokens = await greedy();
    const coldMs = performance.now() - cold;
    const expected = ref.tgtIds.filter((id) => id !== config.eos_id);
    const same = tokens.length === expected.length && tokens.every((t, i) => t === expected[i]);
    if (!same) throw new Error(`onnxruntime-web tokens differ at n=${ref.n}: ${tokens} vs ${expected}`);
    const memory = await encode();
    const prefix = ids(ref.tgtIds.slice(0, ref.out));
    rows.push({
      n: ref.n,
      out: ref.out,
      coldMs,
      encode: await time(encode),
      step: await time(() => dec.run({ tgt_ids: prefix, memory })),
      greedy: await time(greedy),
    });
  }
  return rows;
}

async function main() {
  const results = { model: MODEL, userAgent: navigator.userAgent, engines: {} };
  let t = performance.now();
  await initCpu({ module_or_path: await bytes('/pkg/cpu/attnscope_bg.wasm') });
  results.cpuModuleLoadMs = performance.now() - t;
  const files = await loadFiles();
  results.engines.cpu = await attnscope(CpuSession, 'cpu', files);
  log(`cpu done`);
  if (ENGINES.includes('ort')) {
    t = performance.now();
    results.engines.ort = await onnx(results.engines.cpu, files);
    log(`onnxruntime-web ${ort.env.versions?.web || ''} done (${(performance.now() - t).toFixed(0)} ms)`);
  }
  if (ENGINES.includes('webgpu') && navigator.gpu) {
    t = performance.now();
    const glue = await import('/pkg/webgpu/attnscope.js');
    await glue.default({ module_or_path: await bytes('/pkg/webgpu/attnscope_bg.wasm') });
    results.gpuModuleLoadMs = performance.now() - t;
    const adapter = await navigator.gpu.requestAdapter();
    results.adapter = adapter
      ? { vendor: adapter.info?.vendor, architecture: adapter.info?.architecture, fallback: adapter.info?.isFallbackAdapter }
      : null;
    results.engines.webgpu = await attnscope(glue.Session, 'webgpu', files);
    for (const [i, row] of results.engines.webgpu.entries()) {
      const cpu = results.engines.cpu[i];
      if (row.tgtIds.join() !== cpu.tgtIds.join()) throw new Error(`WebGPU tokens differ from CPU at n=${row.n}`);
    }
    log('webgpu done');
  }
  for (const rows of Object.values(results.engines)) {
    for (const r of rows) {
      delete r.tgtIds;
      delete r.srcIds;
    }
  }
  window.__bench = results;
  log(JSON.stringify(results, null, 1));
}

main().catch((error) => {
  window.__bench = { error: String(error?.stack || error) };
  log(`error: ${error}`);
});

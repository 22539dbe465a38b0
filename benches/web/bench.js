// In-browser benchmark: attnscope (CPU wasm, WebGPU wasm) against onnxruntime-web (wasm) on the
// same model and sentences, onnxruntime-web with its key/value cache and without it. Results go
// to window.__bench (read by benches/browser.mjs).
//
// Stages, for every engine that has them (K = the sentence's decoder steps, </s> included):
//   encode           attnscope: start(text) as the page calls it (tokenize, encode, cross K/V,
//                    encoder attention read back, answer); onnxruntime-web: the encoder graph
//                    (with the cache: encoder_with_cross_kv.onnx, which adds the cross K/V)
//   cached_step      one cached decoder step, the mean over the K steps of the greedy decode.
//                    attnscope: reset, runToEnd (K steps and one answer), minus that answer
//                    timed right after; onnxruntime-web: K steps of decoder_with_past.onnx
//   greedy           the whole greedy translation with the cache (attnscope: translate(text),
//                    its answer included; onnxruntime-web: from source ids)
//   greedy_uncached  onnxruntime-web without the cache: decoder.onnx over the prefix every step
//   full_redecode    one pass of the decoder over the whole output prefix, without the cache
//                    (onnxruntime-web: decoder.onnx; attnscope: recomputeDecoder(), every
//                    attention matrix and the logits read back)
//   greedy_cold      the first greedy translation of the sentence (one sample)
//   answer           attnscope: answer() after the translation — the focused head's stages
//                    (they re-run the decoder over the whole prefix), the analysis, the copy to JS
//   page_step        attnscope: back, then step() as the page calls it: one cached step + answer
import initCpu, { Session as CpuSession, modelFileNames } from '/pkg/cpu/attnscope.js';
import * as ort from '/vendor/ort/ort.wasm.min.mjs';

const params = new URLSearchParams(location.search);
const MODEL = params.get('model') || 'en-zh';
const ENGINES = (params.get('engines') || 'cpu,webgpu,ort,ort-nocache').split(',');
const RUNS = Number(params.get('runs') || 20);
const GPU_RUNS = Number(params.get('gpuRuns') || RUNS);
const WARMUP = 3;
// The engines' names in the results (benches/tables.mjs reads them).
const NAMES = {
  cpu: 'attnscope-cpu-wasm',
  webgpu: 'attnscope-webgpu-wasm',
  ort: 'onnxruntime-web',
  'ort-nocache': 'onnxruntime-web-nocache',
};
const out = document.getElementById('out');
const log = (line) => {
  out.textContent += `\n${line}`;
};
const now = () => performance.now();

async function bytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

async function json(url) {
  const r = await fetch(url);
  if (!r.ok)
    throw new Error(`${url}: HTTP ${r.status}${url.includes('export.json') ? ' (run benches/export_onnx.py: its check must pass)' : ''}`);
  return r.json();
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor((s.length - 1) / 2)], p95: s[Math.round((s.length - 1) * 0.95)], runs: s.length };
}

/** `sample()` answers the milliseconds of one sample; `runs` of them after WARMUP. */
async function measure(sample, runs) {
  for (let i = 0; i < WARMUP; i++) await sample();
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await sample());
  return stats(samples);
}

/** A sample that times `fn` after an untimed `setup`. */
const timed =
  (fn, setup = async () => {}) =>
  async () => {
    await setup();
    const t = now();
    await fn();
    return now() - t;
  };

const single = (ms) => ({ median: ms, p95: ms, runs: 1 });

/** The model's files, by the names the wasm module gives them (after initCpu). */
async function loadFiles() {
  const files = {};
  for (const [key, name] of Object.entries(modelFileNames())) files[key] = await bytes(`/models/${MODEL}/${name}`);
  return files;
}

/**
 * The bench sentences (benches/web/sentences.json; benches/native.rs builds the same): n − 1
 * words in turn, only those that are one source token each where the file says so, and </s>.
 */
async function sentences(session, config) {
  const file = await json('/bench/sentences.json');
  const spec = file.models[MODEL];
  const words = [];
  for (const word of spec.candidates) {
    if (!spec.oneTokenWords || (await session.start(word)).trace.srcIds.length === 2) words.push(word);
  }
  return file.lengths
    .filter((n) => n <= config.max_len)
    .map((n) => ({ n, text: Array.from({ length: n - 1 }, (_, i) => words[i % words.length]).join(spec.joiner) }));
}

/** attnscope on one backend: every stage of every sentence, through the page's calls. */
async function attnscope(Session, backend, files, inputs, runs) {
  const session = await Session.create(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer, backend);
  const rows = [];
  for (const { n, text } of inputs) {
    const cold = now();
    const { trace } = await session.translate(text);
    const coldMs = now() - cold;
    if (trace.srcIds.length !== n) throw new Error(`${backend}: the ${n}-token sentence has ${trace.srcIds.length} source tokens`);
    const k = trace.steps.length;
    const stages = {
      greedy_cold: single(coldMs),
      encode: await measure(
        timed(() => session.start(text)),
        runs,
      ),
      greedy: await measure(
        timed(() => session.translate(text)),
        runs,
      ),
    };
    // Now at the end of the translation: K steps from <s>, less the answer runToEnd ends with.
    stages.cached_step = await measure(async () => {
      await session.reset();
      const t0 = now();
      await session.runToEnd();
      const t1 = now();
      await session.answer();
      return (t1 - t0 - (now() - t1)) / k;
    }, runs);
    stages.answer = await measure(
      timed(() => session.answer()),
      runs,
    );
    stages.page_step = await measure(
      timed(
        () => session.step(),
        () => session.back(),
      ),
      runs,
    );
    // The whole output at once, without the cache (what a cached step saves).
    stages.full_redecode = await measure(
      timed(() => session.recomputeDecoder()),
      runs,
    );
    rows.push({ n, out: k, srcIds: Array.from(trace.srcIds), tgtIds: Array.from(trace.tgtIds), stages });
  }
  session.free();
  return rows;
}

/** onnxruntime-web's sessions of one exported graph pair. */
async function ortSessions(exported, encoderKey, decoderKey) {
  const load = async (key) =>
    ort.InferenceSession.create(await bytes(`/bench-out/${MODEL}/${exported.files[key]}`), { executionProviders: ['wasm'] });
  return { enc: await load(encoderKey), dec: await load(decoderKey) };
}

const ids = (a) => new ort.Tensor('int64', BigInt64Array.from(a.map(BigInt)), [1, a.length]);

/** attnscope's greedy rule: the most likely id that is not <pad> or <s> (never generated). */
function nextToken(logits, config) {
  const v = config.tgt_vocab_size;
  const last = logits.data.subarray(logits.data.length - v);
  let best = -1;
  for (let i = 0; i < v; i++) {
    if (i === config.pad_id || i === config.bos_id) continue;
    if (best < 0 || last[i] > last[best]) best = i;
  }
  return best;
}

/** Greedy decoding from <s> to </s> or max_len; `logitsAfter(tokens)` gives the next token's logits. */
async function greedyIds(config, logitsAfter) {
  const tokens = [config.bos_id];
  while (tokens.length < config.max_len) {
    tokens.push(nextToken(await logitsAfter(tokens), config));
    if (tokens.at(-1) === config.eos_id) break;
  }
  return tokens;
}

function checkTokens(engine, ref, tokens) {
  if (tokens.join() !== ref.tgtIds.join()) throw new Error(`${engine} tokens differ at n=${ref.n}: ${tokens} vs ${ref.tgtIds}`);
}

/**
 * onnxruntime-web with the key/value cache: encoder_with_cross_kv.onnx once, then
 * decoder_with_past.onnx one token a step, feeding present_* back as past_*. Every output is
 * fetched, attention rows included, as attnscope reads every attention row back.
 */
async function onnxCached(exported, config, reference, runs) {
  const { enc, dec } = await ortSessions(exported, 'encoder_with_cross', 'decoder_with_past');
  const pastNames = dec.inputNames.filter((n) => n.startsWith('past_'));
  const crossNames = enc.outputNames.filter((n) => n.startsWith('cross_'));
  const empty = new ort.Tensor('float32', new Float32Array(0), exported.pastShape);
  const encode = async (src) => {
    const out = await enc.run({ src_ids: src });
    return Object.fromEntries(crossNames.map((n) => [n, out[n]]));
  };
  // One cached step: the outputs, and the cache grown by the token.
  const step = async (token, cache, cross) => {
    const out = await dec.run({ tgt_ids: ids([token]), ...cache, ...cross });
    return [out, Object.fromEntries(pastNames.map((n) => [n, out[n.replace('past_', 'present_')]]))];
  };
  const emptyCache = () => Object.fromEntries(pastNames.map((n) => [n, empty]));
  const greedy = async (src) => {
    const cross = await encode(src);
    let cache = emptyCache();
    return greedyIds(config, async (tokens) => {
      let out;
      [out, cache] = await step(tokens.at(-1), cache, cross);
      return out.logits;
    });
  };
  const rows = [];
  for (const ref of reference) {
    const src = ids(ref.srcIds);
    const cold = now();
    checkTokens(NAMES.ort, ref, await greedy(src));
    const coldMs = now() - cold;
    const cross = await encode(src);
    const steps = async () => {
      let cache = emptyCache();
      let out;
      for (const token of ref.tgtIds.slice(0, ref.out)) {
        [out, cache] = await step(token, cache, cross);
        nextToken(out.logits, config);
      }
    };
    const stages = {
      greedy_cold: single(coldMs),
      encode: await measure(
        timed(() => enc.run({ src_ids: src })),
        runs,
      ),
      cached_step: await measure(async () => (await timed(steps)()) / ref.out, runs),
      greedy: await measure(
        timed(() => greedy(src)),
        runs,
      ),
    };
    rows.push({ n: ref.n, out: ref.out, stages });
  }
  return rows;
}

/** onnxruntime-web without a cache (the reference): decoder.onnx re-runs the prefix each step. */
async function onnxUncached(exported, config, reference, runs) {
  const { enc, dec } = await ortSessions(exported, 'encoder', 'decoder');
  const encode = async (src) => (await enc.run({ src_ids: src })).memory;
  const greedy = async (src) => {
    const memory = await encode(src);
    return greedyIds(config, async (tokens) => (await dec.run({ tgt_ids: ids(tokens), memory })).logits);
  };
  const rows = [];
  for (const ref of reference) {
    const src = ids(ref.srcIds);
    const cold = now();
    checkTokens(NAMES['ort-nocache'], ref, await greedy(src));
    const coldMs = now() - cold;
    const memory = await encode(src);
    const prefix = ids(ref.tgtIds.slice(0, ref.out));
    const stages = {
      greedy_cold: single(coldMs),
      encode: await measure(
        timed(() => enc.run({ src_ids: src })),
        runs,
      ),
      full_redecode: await measure(
        timed(() => dec.run({ tgt_ids: prefix, memory })),
        runs,
      ),
      greedy_uncached: await measure(
        timed(() => greedy(src)),
        runs,
      ),
    };
    rows.push({ n: ref.n, out: ref.out, stages });
  }
  return rows;
}

async function main() {
  const results = { model: MODEL, userAgent: navigator.userAgent, runs: RUNS, gpuRuns: GPU_RUNS, engines: {} };
  let t = now();
  await initCpu({ module_or_path: await bytes('/pkg/cpu/attnscope_bg.wasm') });
  results.cpuModuleLoadMs = now() - t;
  const files = await loadFiles();
  const config = JSON.parse(new TextDecoder().decode(files.config));
  const probe = await CpuSession.create(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer, 'cpu');
  const inputs = await sentences(probe, config);
  probe.free();
  const cpu = await attnscope(CpuSession, 'cpu', files, inputs, RUNS);
  results.engines[NAMES.cpu] = cpu;
  log('attnscope cpu done');
  if (ENGINES.some((e) => e.startsWith('ort'))) {
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.wasmPaths = '/vendor/ort/';
    results.onnxruntimeWeb = ort.env.versions?.web;
    const exported = await json(`/bench-out/${MODEL}/export.json`);
    if (!exported.check?.tokensIdentical) throw new Error(`${MODEL}: the ONNX export was not checked`);
    if (ENGINES.includes('ort')) {
      t = now();
      results.engines[NAMES.ort] = await onnxCached(exported, config, cpu, RUNS);
      log(`onnxruntime-web (cache) done (${(now() - t).toFixed(0)} ms)`);
    }
    if (ENGINES.includes('ort-nocache')) {
      t = now();
      results.engines[NAMES['ort-nocache']] = await onnxUncached(exported, config, cpu, RUNS);
      log(`onnxruntime-web (no cache) done (${(now() - t).toFixed(0)} ms)`);
    }
  }
  if (ENGINES.includes('webgpu') && navigator.gpu) {
    t = now();
    const glue = await import('/pkg/webgpu/attnscope.js');
    await glue.default({ module_or_path: await bytes('/pkg/webgpu/attnscope_bg.wasm') });
    results.gpuModuleLoadMs = now() - t;
    const adapter = await navigator.gpu.requestAdapter();
    results.adapter = adapter
      ? { vendor: adapter.info?.vendor, architecture: adapter.info?.architecture, fallback: adapter.info?.isFallbackAdapter }
      : null;
    const gpu = await attnscope(glue.Session, 'webgpu', files, inputs, GPU_RUNS);
    for (const [i, row] of gpu.entries()) {
      if (row.tgtIds.join() !== cpu[i].tgtIds.join()) throw new Error(`WebGPU tokens differ from CPU at n=${row.n}`);
    }
    results.engines[NAMES.webgpu] = gpu;
    log('attnscope webgpu done');
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

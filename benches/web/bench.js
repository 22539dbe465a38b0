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
//                    (the decoder over the whole prefix, up to the focused layer), the analysis,
//                    the copy to JS
//   page_step        attnscope: back, then step() as the page calls it: one cached step + answer
//
// With outTokens=K (a random model, which never chooses </s>), every engine decodes exactly K
// tokens (or to max_len if sooner): onnxruntime-web's greedy loop stops after K; attnscope, whose
// wasm API decodes to </s> or max_len, is given the K greedy tokens (`forceIds`, the same cached
// steps as choosing them) and each step's own top candidate is checked to be that token. Its
// greedy is then start(text) + forceIds(K tokens) (two answers, start's and the last); its cached
// step is forceIds over the K tokens less its answer, ÷ K. The stages answer, page_step and
// full_redecode are skipped in that mode.
//
// Other parameters: dir (where the model's four files are; /models/MODEL), onnx (its export;
// /bench-out/MODEL), gpuLengths (source lengths the WebGPU module runs; all), gpuWarmup (3).
import initCpu, { Session as CpuSession, modelFileNames } from '/pkg/cpu/attnscope.js';
import * as ort from '/vendor/ort/ort.wasm.min.mjs';
import { benchSentences } from './sentences.js';

const params = new URLSearchParams(location.search);
const MODEL = params.get('model') || 'en-zh';
const ENGINES = (params.get('engines') || 'cpu,webgpu,ort,ort-nocache').split(',');
const RUNS = Number(params.get('runs') || 20);
const GPU_RUNS = Number(params.get('gpuRuns') || RUNS);
const WARMUP = 3;
const GPU_WARMUP = Number(params.get('gpuWarmup') || WARMUP);
const MODEL_DIR = params.get('dir') || `/models/${MODEL}`;
const ONNX_DIR = params.get('onnx') || `/bench-out/${MODEL}`;
const OUT_TOKENS = Number(params.get('outTokens') || 0);
const GPU_LENGTHS = params.get('gpuLengths')?.split(',').map(Number);
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

/** `sample()` answers the milliseconds of one sample; `runs` of them after `warmup` untimed. */
async function measure(sample, runs, warmup = WARMUP) {
  for (let i = 0; i < warmup; i++) await sample();
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
  for (const [key, name] of Object.entries(modelFileNames())) files[key] = await bytes(`${MODEL_DIR}/${name}`);
  return files;
}

/** attnscope on one backend: every stage of every sentence, through the page's calls. With
 * OUT_TOKENS, the capped stages instead, given `reference` (another engine's rows) if any. */
async function attnscope(Session, backend, files, inputs, runs, { warmup = WARMUP, reference = null } = {}) {
  const session = await Session.create(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer, backend);
  const config = JSON.parse(new TextDecoder().decode(files.config));
  const rows = [];
  for (const { n, text } of inputs) {
    if (OUT_TOKENS) {
      rows.push(
        await capped(
          session,
          config,
          { n, text },
          reference?.find((r) => r.n === n),
          runs,
          warmup,
        ),
      );
      continue;
    }
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

/** The model's own choice at each step of a trace: its most likely candidate that may be generated. */
function chosenIds(trace, config) {
  return trace.steps.map((s) => s.candidates.find((c) => c.id !== config.pad_id && c.id !== config.bos_id)?.id);
}

/**
 * attnscope with the output capped at OUT_TOKENS (see the top of this file): the greedy tokens
 * are the reference's or, without one, chosen by the module one step() at a time (untimed, as
 * each step answers); then timed as K forced cached steps, checked once against the model's
 * own choice at every step.
 */
async function capped(session, config, { n, text }, reference, runs, warmup) {
  const backend = session.backend();
  let ids = reference?.tgtIds.slice(1);
  if (!ids) {
    let { trace } = await session.start(text);
    while (trace.steps.length < OUT_TOKENS && !trace.finished) ({ trace } = await session.step());
    ids = trace.tgtIds.slice(1);
  }
  const given = Uint32Array.from(ids);
  const { trace } = await session.start(text);
  if (trace.srcIds.length !== n) throw new Error(`${backend}: the ${n}-token sentence has ${trace.srcIds.length} source tokens`);
  const chosen = chosenIds((await session.forceIds(given, false)).trace, config);
  if (chosen.join() !== ids.join())
    throw new Error(`${backend}: the model's own choices differ from the greedy tokens at n=${n}: ${chosen} vs ${ids}`);
  const k = ids.length;
  const stages = {
    encode: await measure(
      timed(() => session.start(text)),
      runs,
      warmup,
    ),
    greedy: await measure(
      timed(async () => {
        await session.start(text);
        await session.forceIds(given, false);
      }),
      runs,
      warmup,
    ),
    cached_step: await measure(
      async () => {
        await session.reset();
        const t0 = now();
        await session.forceIds(given, false);
        const t1 = now();
        await session.answer();
        return (t1 - t0 - (now() - t1)) / k;
      },
      runs,
      warmup,
    ),
  };
  return { n, out: k, srcIds: Array.from(trace.srcIds), tgtIds: [config.bos_id, ...ids], stages };
}

/** onnxruntime-web's sessions of one exported graph pair. */
async function ortSessions(exported, encoderKey, decoderKey) {
  const load = async (key) =>
    ort.InferenceSession.create(await bytes(`${ONNX_DIR}/${exported.files[key]}`), { executionProviders: ['wasm'] });
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

/**
 * Greedy decoding from <s> to </s> or max_len, or OUT_TOKENS tokens where set; `logitsAfter(tokens)`
 * gives the next token's logits.
 */
async function greedyIds(config, logitsAfter) {
  const tokens = [config.bos_id];
  const limit = OUT_TOKENS ? Math.min(config.max_len, OUT_TOKENS + 1) : config.max_len;
  while (tokens.length < limit) {
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
  const results = {
    model: MODEL,
    userAgent: navigator.userAgent,
    runs: RUNS,
    gpuRuns: GPU_RUNS,
    warmup: WARMUP,
    gpuWarmup: GPU_WARMUP,
    outTokens: OUT_TOKENS || null,
    engines: {},
  };
  let t = now();
  await initCpu({ module_or_path: await bytes('/pkg/cpu/attnscope_bg.wasm') });
  results.cpuModuleLoadMs = now() - t;
  const files = await loadFiles();
  const config = JSON.parse(new TextDecoder().decode(files.config));
  results.config = config;
  const probe = await CpuSession.create(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer, 'cpu');
  const inputs = await benchSentences(probe, config);
  probe.free();
  const cpu = await attnscope(CpuSession, 'cpu', files, inputs, RUNS);
  results.engines[NAMES.cpu] = cpu;
  log('attnscope cpu done');
  if (ENGINES.some((e) => e.startsWith('ort'))) {
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.wasmPaths = '/vendor/ort/';
    results.onnxruntimeWeb = ort.env.versions?.web;
    const exported = await json(`${ONNX_DIR}/export.json`);
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
    const gpuInputs = inputs.filter(({ n }) => !GPU_LENGTHS || GPU_LENGTHS.includes(n));
    const gpu = await attnscope(glue.Session, 'webgpu', files, gpuInputs, GPU_RUNS, { warmup: GPU_WARMUP, reference: cpu });
    for (const row of gpu) {
      if (row.tgtIds.join() !== cpu.find((r) => r.n === row.n).tgtIds.join())
        throw new Error(`WebGPU tokens differ from CPU at n=${row.n}`);
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

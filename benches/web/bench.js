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
//                    (the decoder over the whole prefix, up to the focused layer), the copy to JS
//   analysis         attnscope: analysis() after the translation — the summaries the page gets
//                    right after each answer (the mean and max over heads, the rollouts)
//   page_step        attnscope: back, then step() as the page calls it: one cached step + answer
//
// With outTokens=K (a random model, which never chooses </s>), every engine decodes exactly K
// tokens (or to max_len if sooner): onnxruntime-web's greedy loop stops after K; attnscope, whose
// wasm API decodes to </s> or max_len, is given the K greedy tokens (`forceIds`, the same cached
// steps as choosing them) and each step's own top candidate is checked to be that token. Its
// greedy is then start(text) + forceIds(K tokens) (two answers, start's and the last); its cached
// step is forceIds over the K tokens less its answer, ÷ K. The stages answer, analysis, page_step and
// full_redecode are skipped in that mode.
//
// The race: attnscope CPU and onnxruntime-web take turns sentence by sentence (every stage of one
// length on attnscope, then on each onnxruntime-web engine, then the next length). The two stages
// a ratio divides, encode and greedy, are then timed with the engines taking turns sample by
// sample (measure.js's measureTurns), each sample a batch of calls where one call is short: the
// host's noise comes in spells that lasted a whole stage of one engine (1.5× in one load of five).
//
// Other parameters: dir (where the model's four files are; /models/MODEL), onnx (its export;
// /bench-out/MODEL), lengths (the source lengths timed; all that fit), gpuLengths (those the
// WebGPU module runs; all), gpuWarmup (3), warmupPasses (10).
import initCpu, { Session as CpuSession, modelFileNames } from '/pkg/cpu/attnscope.js';
import { measure, measureCalls, measureTurns, now, single, timed, WARMUP } from './measure.js';
import { onnxCached, onnxUncached, ortVersion, setUpOrt } from './onnx.js';
import { benchSentences } from './sentences.js';

const params = new URLSearchParams(location.search);
const MODEL = params.get('model') || 'en-zh';
const ENGINES = (params.get('engines') || 'cpu,webgpu,ort,ort-nocache').split(',');
const RUNS = Number(params.get('runs') || 20);
const GPU_RUNS = Number(params.get('gpuRuns') || RUNS);
const GPU_WARMUP = Number(params.get('gpuWarmup') || WARMUP);
const MODEL_DIR = params.get('dir') || `/models/${MODEL}`;
const ONNX_DIR = params.get('onnx') || `/bench-out/${MODEL}`;
const OUT_TOKENS = Number(params.get('outTokens') || 0);
const GPU_LENGTHS = params.get('gpuLengths')?.split(',').map(Number);
const LENGTHS = params.get('lengths')?.split(',').map(Number);
const WARMUP_PASSES = Number(params.get('warmupPasses') ?? 10);
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

/** The model's files, by the names the wasm module gives them (after initCpu). */
async function loadFiles() {
  const files = {};
  for (const [key, name] of Object.entries(modelFileNames())) files[key] = await bytes(`${MODEL_DIR}/${name}`);
  return files;
}

const openSession = (Session, backend, files) =>
  Session.create(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer, backend);

/** attnscope on one sentence through the page's calls: every stage. With OUT_TOKENS, the capped
 * stages instead, given `reference` (another engine's row of the sentence) if any. */
async function attnscopeRow(session, config, { n, text }, runs, { warmup = WARMUP, reference = null, raced = false } = {}) {
  if (OUT_TOKENS) return capped(session, config, { n, text }, reference, runs, { warmup, raced });
  const backend = session.backend();
  const cold = now();
  const { trace } = await session.translate(text);
  const coldMs = now() - cold;
  if (trace.srcIds.length !== n) throw new Error(`${backend}: the ${n}-token sentence has ${trace.srcIds.length} source tokens`);
  const k = trace.steps.length;
  const calls = { encode: () => session.start(text), greedy: () => session.translate(text) };
  const stages = { greedy_cold: single(coldMs), ...(await unraced(calls, raced, runs, warmup)) };
  // Now at the end of the translation: K steps from <s>, less the answer runToEnd ends with.
  stages.cached_step = await measure(
    async () => {
      await session.reset();
      const t0 = now();
      await session.runToEnd();
      const t1 = now();
      await session.answer();
      return (t1 - t0 - (now() - t1)) / k;
    },
    runs,
    warmup,
  );
  stages.answer = await measure(
    timed(() => session.answer()),
    runs,
    warmup,
  );
  stages.analysis = await measure(
    timed(() => session.analysis()),
    runs,
    warmup,
  );
  stages.page_step = await measure(
    timed(
      () => session.step(),
      () => session.back(),
    ),
    runs,
    warmup,
  );
  // The whole output at once, without the cache (what a cached step saves).
  stages.full_redecode = await measure(
    timed(() => session.recomputeDecoder()),
    runs,
    warmup,
  );
  return { n, out: k, srcIds: Array.from(trace.srcIds), tgtIds: Array.from(trace.tgtIds), stages, calls };
}

/** The stages in `calls`, each timed on its own; none where the race times them (`raced`). */
async function unraced(calls, raced, runs, warmup) {
  if (raced) return {};
  return { encode: await measureCalls(calls.encode, runs, warmup), greedy: await measureCalls(calls.greedy, runs, warmup) };
}

/** attnscope on every sentence of `inputs` on one backend (the WebGPU module, after the race);
 * `references`: another engine's rows, one of which per sentence `capped` may take. */
async function attnscope(Session, backend, files, inputs, runs, { references = [], ...options }) {
  const session = await openSession(Session, backend, files);
  const config = JSON.parse(new TextDecoder().decode(files.config));
  const rows = [];
  for (const input of inputs) {
    const reference = references.find((r) => r.n === input.n) ?? null;
    rows.push(await attnscopeRow(session, config, input, runs, { ...options, reference }));
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
async function capped(session, config, { n, text }, reference, runs, { warmup, raced }) {
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
  const calls = {
    encode: () => session.start(text),
    greedy: async () => {
      await session.start(text);
      await session.forceIds(given, false);
    },
  };
  const stages = {
    ...(await unraced(calls, raced, runs, warmup)),
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
  return { n, out: k, srcIds: Array.from(trace.srcIds), tgtIds: [config.bos_id, ...ids], stages, calls };
}

/**
 * Every sentence translated WARMUP_PASSES times by every engine, untimed, before anything is timed.
 * V8 compiles wasm in tiers (a quick baseline first, optimised code for a function only once it
 * is hot), so whichever length was timed first ran partly on baseline code: attnscope's 8-token
 * encoder took 1.1–2.3× onnxruntime-web's in 5 page loads without this pass.
 */
async function warmUp(session, onnx, inputs) {
  for (let pass = 0; pass < WARMUP_PASSES; pass++) {
    for (const { text } of inputs) {
      const { trace } = await session.start(text);
      if (!OUT_TOKENS) await session.translate(text); // a random model would decode to max_len
      for (const [, engine] of onnx) await engine.warm(Array.from(trace.srcIds));
    }
  }
}

/**
 * The race: attnscope CPU and the onnxruntime-web engines asked for, sentence by sentence (each
 * onnxruntime-web engine reproduces attnscope's tokens of the sentence before it is timed).
 */
async function race(files, config, inputs) {
  const engines = {};
  const session = await openSession(CpuSession, 'cpu', files);
  engines[NAMES.cpu] = [];
  const onnx = [];
  if (ENGINES.some((e) => e.startsWith('ort'))) {
    setUpOrt();
    const exported = await json(`${ONNX_DIR}/export.json`);
    if (!exported.check?.tokensIdentical) throw new Error(`${MODEL}: the ONNX export was not checked`);
    const o = { dir: ONNX_DIR, exported, config, runs: RUNS, outTokens: OUT_TOKENS };
    if (ENGINES.includes('ort')) onnx.push([NAMES.ort, await onnxCached({ ...o, name: NAMES.ort })]);
    if (ENGINES.includes('ort-nocache')) onnx.push([NAMES['ort-nocache'], await onnxUncached({ ...o, name: NAMES['ort-nocache'] })]);
  }
  for (const [name] of onnx) engines[name] = [];
  await warmUp(session, onnx, inputs);
  for (const input of inputs) {
    const row = await attnscopeRow(session, config, input, RUNS, { raced: true });
    engines[NAMES.cpu].push(row);
    const takers = [[row, row.calls]];
    for (const [name, engine] of onnx) {
      const other = await engine.row(row);
      engines[name].push(other);
      takers.push([other, engine.calls(row)]);
    }
    await takeTurns(takers);
    log(`${input.n} tokens: ${Object.keys(engines).join(', ')} done`);
  }
  session.free();
  return engines;
}

/** The stages a ratio divides (encode, greedy), the engines taking turns sample by sample
 * (measure.js): `takers` are [row, calls] pairs, and each row gets the stages its calls have. */
async function takeTurns(takers) {
  for (const stage of ['encode', 'greedy']) {
    const these = takers.filter(([, calls]) => calls[stage]);
    const results = await measureTurns(
      these.map(([, calls]) => calls[stage]),
      RUNS,
    );
    these.forEach(([row], k) => {
      row.stages[stage] = results[k];
    });
  }
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
  const probe = await openSession(CpuSession, 'cpu', files);
  const inputs = (await benchSentences(probe, config)).filter(({ n }) => !LENGTHS || LENGTHS.includes(n));
  probe.free();
  results.engines = await race(files, config, inputs);
  results.onnxruntimeWeb = ortVersion();
  const cpu = results.engines[NAMES.cpu];
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
    const gpu = await attnscope(glue.Session, 'webgpu', files, gpuInputs, GPU_RUNS, { warmup: GPU_WARMUP, references: cpu });
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
      delete r.calls;
    }
  }
  window.__bench = results;
  log(JSON.stringify(results, null, 1));
}

main().catch((error) => {
  window.__bench = { error: String(error?.stack || error) };
  log(`error: ${error}`);
});

// onnxruntime-web on the bench page (bench.js): the exported graphs of benches/export_onnx.py,
// run by attnscope's greedy rule, with the key/value cache and without it. Each engine is built
// once per page load and then measures one sentence at a time (`row(reference)`), so the bench
// can race it against attnscope length by length. `reference` is attnscope's row of the same
// sentence: its source and target ids, which every engine must reproduce. `warm(srcIds)` decodes
// a sentence untimed (the bench's warm-up pass). The stages a ratio divides (encode, greedy) are
// not in `row`: `calls(reference)` gives them as functions, and bench.js times them taking turns
// with attnscope's (measure.js's measureTurns).
import * as ort from '/vendor/ort/ort.wasm.min.mjs';
import { measure, now, single, timed } from './measure.js';

export const ortVersion = () => ort.env.versions?.web;

/** One thread (the page is not cross-origin isolated) and the wasm files at /vendor/ort/. */
export function setUpOrt() {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = '/vendor/ort/';
}

async function bytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/** onnxruntime-web's sessions of one exported graph pair. */
async function ortSessions(dir, exported, encoderKey, decoderKey) {
  const load = async (key) => ort.InferenceSession.create(await bytes(`${dir}/${exported.files[key]}`), { executionProviders: ['wasm'] });
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
 * Greedy decoding from <s> to </s> or max_len, or `outTokens` tokens where set (not 0);
 * `logitsAfter(tokens)` gives the next token's logits.
 */
async function greedyIds(config, outTokens, logitsAfter) {
  const tokens = [config.bos_id];
  const limit = outTokens ? Math.min(config.max_len, outTokens + 1) : config.max_len;
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
 * `o`: { name, dir, exported, config, runs, outTokens }.
 */
export async function onnxCached(o) {
  const { config, runs } = o;
  const { enc, dec } = await ortSessions(o.dir, o.exported, 'encoder_with_cross', 'decoder_with_past');
  const pastNames = dec.inputNames.filter((n) => n.startsWith('past_'));
  const crossNames = enc.outputNames.filter((n) => n.startsWith('cross_'));
  const empty = new ort.Tensor('float32', new Float32Array(0), o.exported.pastShape);
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
    return greedyIds(config, o.outTokens, async (tokens) => {
      let out;
      [out, cache] = await step(tokens.at(-1), cache, cross);
      return out.logits;
    });
  };
  const warm = (srcIds) => greedy(ids(srcIds));
  const row = async (ref) => {
    const src = ids(ref.srcIds);
    const coldMs = await coldGreedy(o.name, ref, () => greedy(src));
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
      cached_step: await measure(async () => (await timed(steps)()) / ref.out, runs),
    };
    return { n: ref.n, out: ref.out, stages };
  };
  const calls = (ref) => {
    const src = ids(ref.srcIds);
    return { encode: () => enc.run({ src_ids: src }), greedy: () => greedy(src) };
  };
  return { row, warm, calls };
}

/** The first greedy translation of `ref`, checked against attnscope's tokens: its time in ms. */
async function coldGreedy(name, ref, greedy) {
  const cold = now();
  checkTokens(name, ref, await greedy());
  return now() - cold;
}

/** onnxruntime-web without a cache (the reference): decoder.onnx re-runs the prefix each step. */
export async function onnxUncached(o) {
  const { config, runs } = o;
  const { enc, dec } = await ortSessions(o.dir, o.exported, 'encoder', 'decoder');
  const encode = async (src) => (await enc.run({ src_ids: src })).memory;
  const greedy = async (src) => {
    const memory = await encode(src);
    return greedyIds(config, o.outTokens, async (tokens) => (await dec.run({ tgt_ids: ids(tokens), memory })).logits);
  };
  const warm = (srcIds) => greedy(ids(srcIds));
  const row = async (ref) => {
    const src = ids(ref.srcIds);
    const coldMs = await coldGreedy(o.name, ref, () => greedy(src));
    const memory = await encode(src);
    const prefix = ids(ref.tgtIds.slice(0, ref.out));
    const stages = {
      greedy_cold: single(coldMs),
      full_redecode: await measure(
        timed(() => dec.run({ tgt_ids: prefix, memory })),
        runs,
      ),
      greedy_uncached: await measure(
        timed(() => greedy(src)),
        runs,
      ),
    };
    return { n: ref.n, out: ref.out, stages };
  };
  const calls = (ref) => {
    const src = ids(ref.srcIds);
    return { encode: () => enc.run({ src_ids: src }) };
  };
  return { row, warm, calls };
}

// onnxruntime-web in the race, when its files are served with the site: the npm package's dist
// folder at vendor/ort/ (benches/node_modules/onnxruntime-web/dist) and a model's export at
// bench-out/MODEL/ (benches/out/MODEL, written by benches/export_onnx.py and checked there) — the
// places benches/browser.mjs serves them. Nothing is fetched from anywhere else: without them the
// engine is absent. Its greedy translation is benches/web/bench.js's, with the key/value cache:
// encoder_with_cross_kv.onnx once, then decoder_with_past.onnx a token a step, attention rows
// fetched too (as attnscope reads every attention row back), 1 thread, the wasm backend.
import { Problem } from './problem.js';

const SITE = new URL('../', import.meta.url);
const ORT_DIR = new URL('vendor/ort/', SITE);
const ORT_MODULE = 'ort.wasm.min.mjs';

const exists = async (url) => (await fetch(url, { method: 'HEAD', cache: 'no-cache' })).ok;

let runtime = null;

/** onnxruntime-web's module, or null when the site does not serve it. */
export function loadOrt() {
  runtime ??= (async () => {
    const url = new URL(ORT_MODULE, ORT_DIR);
    if (!(await exists(url))) return null;
    const ort = await import(url.href);
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.wasmPaths = ORT_DIR.href;
    return ort;
  })();
  return runtime;
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  return response;
}

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
 * The onnxruntime-web engine of `model` (its config.json as `config`), or a Problem: the export is
 * absent ('noModel') or was not checked against attnscope ('unchecked').
 */
export async function ortEngine(ort, model, config) {
  const dir = new URL(`bench-out/${model}/`, SITE);
  if (!(await exists(new URL('export.json', dir)))) throw new Problem('noModel');
  const exported = await (await fetchOk(new URL('export.json', dir))).json();
  if (!exported.check?.tokensIdentical) throw new Problem('unchecked');
  const load = async (key) =>
    ort.InferenceSession.create(new Uint8Array(await (await fetchOk(new URL(exported.files[key], dir))).arrayBuffer()), {
      executionProviders: ['wasm'],
    });
  const enc = await load('encoder_with_cross');
  const dec = await load('decoder_with_past');
  const ids = (a) => new ort.Tensor('int64', BigInt64Array.from(a.map(BigInt)), [1, a.length]);
  const pastNames = dec.inputNames.filter((n) => n.startsWith('past_'));
  const crossNames = enc.outputNames.filter((n) => n.startsWith('cross_'));
  const empty = new ort.Tensor('float32', new Float32Array(0), exported.pastShape);
  const sources = new Map(); // text → its source ids (attnscope's tokenizer's), set by prepare

  const encode = async (src) => {
    const out = await enc.run({ src_ids: src });
    return Object.fromEntries(crossNames.map((n) => [n, out[n]]));
  };
  // Greedy from <s> to </s> or max_len, a cached step each token.
  const greedy = async (src) => {
    const cross = await encode(src);
    let cache = Object.fromEntries(pastNames.map((n) => [n, empty]));
    const tokens = [config.bos_id];
    while (tokens.length < config.max_len) {
      const out = await dec.run({ tgt_ids: ids([tokens.at(-1)]), ...cache, ...cross });
      cache = Object.fromEntries(pastNames.map((n) => [n, out[n.replace('past_', 'present_')]]));
      tokens.push(nextToken(out.logits, config));
      if (tokens.at(-1) === config.eos_id) break;
    }
    return tokens;
  };
  return {
    name: 'ort',
    /** The source is attnscope CPU's tokens (`reference.srcIds`): onnxruntime-web has no tokenizer. */
    async prepare(text, reference) {
      sources.set(text, ids(reference.srcIds));
      return { srcIds: reference.srcIds, tgtIds: await greedy(sources.get(text)) };
    },
    encode: (text) => enc.run({ src_ids: sources.get(text) }),
    translate: (text) => greedy(sources.get(text)),
    free: () => Promise.all([enc.release(), dec.release()]),
  };
}

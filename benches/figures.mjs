// What benches/tables.mjs and benches/budgets.mjs share: the engines' and models' names in
// benches/out/results.json, lookups over its records (`figures`), and how figures are written.

export const CPU = 'attnscope-cpu-wasm';
export const GPU = 'attnscope-webgpu-wasm';
export const WEB = 'onnxruntime-web';
export const WEB_NOCACHE = 'onnxruntime-web-nocache';
export const ORT = 'onnxruntime-cpu';
export const ORT_NOCACHE = 'onnxruntime-cpu-nocache';
export const NATIVE = 'attnscope-native';
export const BROWSER_ENGINES = [CPU, GPU, WEB, WEB_NOCACHE];
export const NATIVE_ENGINES = [NATIVE, ORT, ORT_NOCACHE];
// The paper's base size, random weights (bench.sh's base-size stages; records/browser-base.json).
export const BASE = 'random-base';
export const BASE_RECORDS = 'browser-base';
export const SWEEP_LENGTHS = [8, 16, 32, 64, 128];
export const PLOT = 'cost-per-token.png';

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Lookups over the records of one results.json. */
export function figures(results) {
  const key = (engine, model, stage, n) => `${engine}|${model}|${stage}|${n}`;
  const byKey = new Map();
  for (const r of results.records) {
    const k = key(r.engine, r.model, r.stage, r.src_tokens);
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k).push(r);
  }
  const runs = (engine, model, stage, n) => byKey.get(key(engine, model, stage, n)) || [];
  return {
    runs,
    /** The median over runs of each run's median and p95, or null. */
    get(engine, model, stage, n) {
      const rs = runs(engine, model, stage, n);
      if (!rs.length) return null;
      return { median: median(rs.map((r) => r.median_ms)), p95: median(rs.map((r) => r.p95_ms)), runs: rs.length, out: rs[0].out_tokens };
    },
    /** a ÷ b per run (the runs both have), with its median and range, or null. */
    ratio([ea, sa], [eb, sb], model, n) {
      const b = new Map(runs(eb, model, sb, n).map((r) => [r.run, r.median_ms]));
      const per = runs(ea, model, sa, n)
        .filter((r) => b.has(r.run))
        .map((r) => r.median_ms / b.get(r.run));
      return per.length ? { median: median(per), min: Math.min(...per), max: Math.max(...per), per } : null;
    },
    lengths(model) {
      return [...new Set(results.records.filter((r) => r.model === model).map((r) => r.src_tokens))].sort((a, b) => a - b);
    },
    adapter() {
      return results.records.find((r) => r.engine === GPU)?.adapter;
    },
  };
}

export const ms = (x) => (x == null ? '–' : x >= 1000 ? Math.round(x).toLocaleString('en') : x.toFixed(x < 10 ? 2 : 1));
export const cell = (f) => (f ? `${ms(f.median)} / ${ms(f.p95)}` : '–');
/** A ratio: `0.93×`; a fraction of a whole (the step ÷ re-decode budget): `0.153`. */
export const times = (x, fraction = false) => (fraction ? x.toFixed(3) : `${x.toFixed(2)}×`);
export const spread = (r) =>
  r ? `${times(r.median)} (${times(r.min)}–${times(r.max)}, ${r.per.length} run${r.per.length > 1 ? 's' : ''})` : '–';

// The budgets this bench holds the page and its engine to (issues 26 and 58), as one table for
// benches/RESULTS.md and docs/benchmarks.md (benches/tables.mjs renders it):
//   - ratios against onnxruntime in the same page or the same run, from results.json's records,
//     with the median and the range over runs. The race against onnxruntime-web (issue 58, part
//     4) is a row per shipped model (models/index.json), length (benches/web/sentences.json's,
//     that fit the model) and stage: the encoder and the greedy translation;
//   - the page's own figures (results.json's `page`, gathered here from benches/out: the real
//     page's keystroke-to-redraw in browser.json, the first heatmap of each warm reload and of
//     each cold first visit in first-heatmap.json, the longest main-thread task of each phase of
//     each run in phases.json, a hover of the 129 × 128 heatmap in hover.json), and tc-big's
//     wasm memory (memory-big.jsonl, issue 58 part 6).
// Every row is met by issue 58's one rule (`metByRule`): the median of its runs within the budget
// and no run over 1.1× it (the keystroke row has one run: its median over 49 keys; the phases'
// rows one value per run: the longest main-thread task).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE, CPU, median, ms, NATIVE, ORT, ORT_NOCACHE, times, WEB, WEB_NOCACHE } from './figures.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const readJson = (path) => JSON.parse(readFileSync(join(root, path), 'utf8'));
// The race's budgets: attnscope CPU ÷ onnxruntime-web with its cache.
const ENCODER_RATIO = 1.0;
const GREEDY_RATIO = 0.9;
const KEYSTROKE_MS = 200;
const FIRST_HEATMAP_MS = 700;
const COLD_HEATMAP_MS = 1500;
const HOVER_PAGE_MS = 4;
const HOVER_FRAME_MS = 16;
const BIG_MEMORY_MB = 1200;
// The budget of each phase of benches/phases.mjs: a hover of the 129 × 128 heatmap is one frame.
const HOVER_PHASE = 'hover a row of the heatmap';
const PHASE_MS = { [HOVER_PHASE]: HOVER_FRAME_MS };
const OTHER_PHASE_MS = 50;
// Chromium's main-thread steps after a hover (benches/hover.mjs), as the table names them.
const STEP_NAMES = {
  Paint: 'paint',
  Layerize: 'layerize',
  Commit: 'commit',
  Layout: 'layout',
  PrePaint: 'pre-paint',
  UpdateLayoutTree: 'style',
  UpdateLayer: 'layer update',
};

/** The longest main-thread task `phase` of benches/phases.mjs may take, ms. */
export const phaseBudgetMs = (phase) => PHASE_MS[phase] ?? OTHER_PHASE_MS;

/** What the page benches wrote under `out` that the budgets need (absent files give nulls). */
export function collectPage(out) {
  const read = (name) => (existsSync(join(out, name)) ? JSON.parse(readFileSync(join(out, name), 'utf8')) : null);
  const browser = read('browser.json');
  const first = read('first-heatmap.json');
  const phases = read('phases.json');
  const hover = read('hover.json');
  const big = existsSync(join(out, 'memory-big.jsonl'))
    ? readFileSync(join(out, 'memory-big.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
    : null;
  return {
    bigMemory: big?.length ? big : null,
    keystroke: browser?.page?.keystrokeToRedraw ?? null,
    firstHeatmap: first
      ? { model: first.model, warm: first.warm.map((w) => w.firstHeatmap), cold: (first.colds ?? [first.cold]).map((c) => c.firstHeatmap) }
      : null,
    phases: phases?.runs ?? null,
    hover,
  };
}

/** The shipped models, as models/index.json lists them. */
export const shippedModels = () => readJson('models/index.json').models.map((m) => m.name);

/** The source lengths the bench page times for a shipped model (benches/web/sentences.js's rule). */
export function raceLengths(model) {
  const sentences = readJson('benches/web/sentences.json');
  const maxLen = readJson(`models/${model}/config.json`).max_len;
  return (sentences.models[model]?.lengths ?? sentences.lengths).filter((n) => n <= maxLen);
}

/** The race: the encoder and the greedy translation of every shipped model at every length. */
function raceBudgets() {
  const rows = [];
  for (const [stage, what, limit] of [
    ['encode', "CPU-wasm encoder ≤ 1.0× onnxruntime-web's", ENCODER_RATIO],
    ['greedy', 'CPU-wasm greedy translation ≤ 0.9× onnxruntime-web with its cache', GREEDY_RATIO],
  ]) {
    for (const model of shippedModels()) {
      for (const n of raceLengths(model)) rows.push([`${what}, ${model}, ${n} tokens`, [CPU, stage], [WEB, stage], model, n, limit]);
    }
  }
  return rows;
}

/** The ratio budgets: [what, a: [engine, measure], b: [engine, measure], model, source tokens, limit, reference only]. */
function ratioBudgets() {
  const model = 'en-zh';
  return [
    ...raceBudgets(),
    [
      "CPU-wasm cached step ≤ 0.8× onnxruntime-web's cached step, en-zh, 32 tokens",
      [CPU, 'cached_step'],
      [WEB, 'cached_step'],
      model,
      32,
      0.8,
    ],
    [
      "base size (d 512, 6+6, random weights): CPU-wasm encoder ≤ 1.2× onnxruntime-web's, 32 tokens",
      [CPU, 'encode'],
      [WEB, 'encode'],
      BASE,
      32,
      1.2,
    ],
    [
      'native forward ≤ 1.0× onnxruntime CPU, 1 thread, 32 tokens: attnscope encode + full re-decode (the sum of their medians; with tokenizing and every attention matrix read back) against encoder.onnx + decoder.onnx',
      [NATIVE, 'forward'],
      [ORT_NOCACHE, 'forward'],
      model,
      32,
      1.0,
    ],
    [
      'one cached step ≤ 0.10 of a full re-decode, 32 tokens: attnscope native (step at the end of the output)',
      [NATIVE, 'last_step'],
      [NATIVE, 'full_redecode'],
      model,
      32,
      0.1,
    ],
    ['… attnscope native, a forced 33-token output prefix', [NATIVE, 'forced_step'], [NATIVE, 'forced_redecode'], model, 16, 0.1],
    [
      '… attnscope CPU (wasm): mean cached step ÷ `recomputeDecoder` over the output',
      [CPU, 'cached_step'],
      [CPU, 'full_redecode'],
      model,
      32,
      0.1,
    ],
    [
      '… for reference: onnxruntime-web (mean cached step ÷ decoder.onnx over the output)',
      [WEB, 'cached_step'],
      [WEB_NOCACHE, 'full_redecode'],
      model,
      32,
      0.1,
      true,
    ],
    ['… for reference: onnxruntime CPU (the same)', [ORT, 'cached_step'], [ORT_NOCACHE, 'full_redecode'], model, 32, 0.1, true],
  ].map(([what, a, b, m, n, limit, reference = false]) => ({ what, a, b, model: m, n, limit, reference }));
}

/** Issue 58's rule: 'met' when the median of the per-run `values` is within `limit` and no run is over 1.1× it. */
export function metByRule(values, limit) {
  return median(values) <= limit && Math.max(...values) <= 1.1 * limit ? 'met' : 'missed';
}

function ratioRow(fig, b) {
  const a = fig.get(b.a[0], b.model, b.a[1], b.n);
  const against = fig.get(b.b[0], b.model, b.b[1], b.n);
  const r = fig.ratio(b.a, b.b, b.model, b.n);
  if (!a || !against || !r) return `| ${b.what} | not measured in this run | – | – |`;
  const fraction = b.limit < 0.5;
  const ratio = fraction ? times(r.median, true) : `**${times(r.median)}**`;
  const runs = `${r.per.length} run${r.per.length > 1 ? 's' : ''}`;
  return `| ${b.what} | ${ms(a.median)} ms against ${ms(against.median)} ms | ${ratio} (${times(r.min, fraction)}–${times(r.max, fraction)}, ${runs}) | ${b.reference ? 'reference' : metByRule(r.per, b.limit)} |`;
}

/** The page's budgets as rows (none for what this run did not measure). */
function pageRows(page) {
  const rows = [];
  const k = page?.keystroke;
  if (k) {
    const all = k.allMedian == null ? '' : `; every view, in sight or not: ${ms(k.allMedian)} ms`;
    rows.push(
      `| keystroke → the views in sight redrawn ≤ ${KEYSTROKE_MS} ms (median over ${k.runs} keys, en-zh, CPU module, the 150 ms debounce included) | ${ms(k.median)} ms (p95 ${ms(k.p95)}; translate ${ms(k.computeMedian)}, drawing ${ms(k.renderMedian)}${all}) | – | ${metByRule([k.median], KEYSTROKE_MS)} |`,
    );
  }
  rows.push(...firstHeatmapRows(page?.firstHeatmap));
  for (const [phase, longest] of Object.entries(page?.phases ?? {})) {
    if (phase === HOVER_PHASE) continue; // benches/hover.mjs times the hover, frame by frame (hoverRows)
    const limit = phaseBudgetMs(phase);
    rows.push(
      `| large model (opus-mt's shape at d 64, 128 tokens): ${phase}, longest main-thread task ≤ ${limit} ms | ${longest.map((x) => `${ms(x)} ms`).join(', ')} (longest per run) | – | ${metByRule(longest, limit)} |`,
    );
  }
  rows.push(...hoverRows(page?.hover));
  rows.push(...bigMemoryRows(page?.bigMemory));
  return rows;
}

/** tc-big's memory (benches/memory-big.mjs, one JSON line a run): the CPU module's high-water mark. */
function bigMemoryRows(runs) {
  if (!runs) return [];
  const stages = Object.keys(runs[0].stages);
  const highWater = runs.map((r) => Math.max(...stages.map((s) => r.stages[s].wasmMB)));
  const of = (stage) => wholeMs(median(runs.map((r) => r.stages[stage].ms)));
  const spread = `${Math.min(...highWater).toLocaleString('en')}–${Math.max(...highWater).toLocaleString('en')}`;
  return [
    `| opus-mt-tc-big's shape (random, 293 M parameters, F16 file of ${Math.round(runs[0].weightBytes / 1e6)} MB) on the CPU module: wasm memory's high-water mark ≤ ${BIG_MEMORY_MB.toLocaleString('en')} MB, through load, translations, the comparison view's twin and the twin with heads off (\`benches/memory-big.mjs\`, ${runs.length} runs, each a fresh process) | ${median(highWater).toLocaleString('en')} MB (${spread}); load ${of('load')} ms, a translation ${of('firstTranslation')} ms | – | ${metByRule(highWater, BIG_MEMORY_MB)} |`,
  ];
}

/** Whole milliseconds, with thousands separated: `1,265`. */
const wholeMs = (x) => Math.round(x).toLocaleString('en');
/** Tenths of a millisecond: `2.0`. */
const tenths = (x) => x.toFixed(1);
/** `median ms (min–max; n what: every run)`, in whole milliseconds. */
const spreadOf = (values, what) =>
  `${wholeMs(median(values))} ms (${wholeMs(Math.min(...values))}–${wholeMs(Math.max(...values))}; ${values.length} ${what}: ${values.map(wholeMs).join(', ')})`;

/** The first heatmap's rows (benches/first-heatmap.mjs): after a warm reload, and on a cold first visit. */
function firstHeatmapRows(f) {
  if (!f) return [];
  return [
    `| first heatmap after a warm reload ≤ ${FIRST_HEATMAP_MS} ms, in every reload (${f.model}, CPU module; the page's bundle, pkg/page/) | ${spreadOf(f.warm, 'reloads')} | – | ${metByRule(f.warm, FIRST_HEATMAP_MS)} |`,
    `| first heatmap on a cold first visit ≤ ${COLD_HEATMAP_MS / 1000} s (${f.model}, CPU module; a fresh browser context, empty cache) | ${spreadOf(f.cold, 'visits')} | – | ${metByRule(f.cold, COLD_HEATMAP_MS)} |`,
  ];
}

/** The hover's rows (benches/hover.mjs): the page's own work, and the whole frame with the browser's share by step. */
function hoverRows(h) {
  if (!h) return [];
  const { page, frame, rendering } = h.figures;
  const runs = `${tenths(page.min)}–${tenths(page.max)}`;
  const steps = Object.entries(h.steps)
    .filter(([, x]) => x >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, x]) => `${STEP_NAMES[name] ?? name} ${tenths(x)}`)
    .join(', ');
  const worst = `${tenths(Math.min(...page.worst))}–${tenths(Math.max(...page.worst))}`;
  return [
    `| large model (opus-mt's shape at d 64, 128 tokens): hover a cell of the 129 × 128 heatmap, the page's own work (every listener of the move: the overlay, the tooltip, the views that hear the hover) ≤ ${HOVER_PAGE_MS} ms (\`benches/hover.mjs\`, ${h.runs} runs × ${h.hovers} hovers, each run's median) | ${tenths(page.median)} ms (runs ${runs}; the worst single hover ${worst} ms) | – | ${metByRule(page.perRun, HOVER_PAGE_MS)} |`,
    `| … the whole frame on the main thread: the page's work and Chromium's style, layout, pre-paint, paint, layerize and commit after it (from its trace) ≤ ${HOVER_FRAME_MS} ms | ${tenths(frame.median)} ms (runs ${tenths(frame.min)}–${tenths(frame.max)}); the browser's share ${tenths(rendering.median)} ms (${tenths(rendering.min)}–${tenths(rendering.max)}): ${steps} | – | ${metByRule(frame.perRun, HOVER_FRAME_MS)} |`,
  ];
}

/** The budget table: every budget, its figure, its ratio's spread and whether it was met. */
export function budgetsBlock(fig, page) {
  const rows = ['| budget | figure (median over runs) | ratio: median (min–max over runs) | |', '|---|---|---|---|'];
  for (const b of ratioBudgets()) rows.push(ratioRow(fig, b));
  rows.push(...pageRows(page));
  return rows.join('\n');
}

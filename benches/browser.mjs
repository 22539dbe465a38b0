#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
// Browser benchmark driver (headless Debian Chromium through playwright-core). Prints markdown
// tables, writes benches/out/browser.json and one record per measurement to
// benches/out/records/browser.json (for benches/tables.mjs). Timings are reported, never asserted.
//
//   node benches/browser.mjs [MODEL...]    (after scripts/build-wasm.sh and benches/export_onnx.py)
//
// A MODEL is a folder name in models/ (its export in benches/out/MODEL), or a model folder under
// benches/out given by its path (its export in FOLDER/onnx; its records are named by its
// config's name), such as the random base-size model bench.sh writes.
//
// Environment: PAGE_LOADS (3) separate loads of the bench page per model, RUNS (20) samples per
// measurement, GPU_RUNS (10) for the WebGPU module (SwiftShader takes seconds a translation),
// GPU_WARMUP (3) its warm-up runs, GPU_LENGTHS (all) the source lengths it runs, LENGTHS (all
// that fit) the source lengths every engine runs, ENGINES
// (cpu,webgpu,ort,ort-nocache), OUT_TOKENS (none) to decode exactly that many tokens with every
// engine (a random model never chooses </s>; see benches/web/bench.js), RECORDS (browser) the
// name of the records file, REAL_PAGE=0 to skip parts 2 and 3, WARMUP_PASSES (10) untimed
// translations of every sentence by every racing engine before the race (benches/web/bench.js).
//
// 1. The bench page (benches/web/bench.js), per model (default: every shipped model): attnscope
//    CPU wasm, attnscope WebGPU wasm, onnxruntime-web with its key/value cache and without it, on
//    the same sentences (8/16/32/64 source tokens): encode, one cached step, greedy translation…
// 2. The real page: first heatmap after navigation (cold and warm cache), keystroke-to-redraw,
//    main-thread long tasks while typing, wasm memory after 50 and 1,000 inferences.
// 3. Sizes: each wasm module raw and gzipped, the model files.
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/harness.mjs';
import { firstHeatmap } from './page-timing.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = makeServer([
  ['/bench/', join(root, 'benches/web')],
  ['/bench-out/', join(root, 'benches/out')],
  ['/vendor/ort/', join(root, 'benches/node_modules/onnxruntime-web/dist')],
]);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
const results = { date: new Date().toISOString(), chromium: browser.version(), bench: [] };
const f = (x) => (x == null ? '–' : x.toFixed(x < 10 ? 2 : 1));
const env = (name, fallback) => process.env[name] || fallback;

/** The bench page's query for a model: a name in models/, or a folder under benches/out. */
function modelQuery(model) {
  if (!model.includes('/')) return { model };
  const folder = relative(join(root, 'benches/out'), resolve(root, model));
  if (folder.startsWith('..')) throw new Error(`${model}: a model folder must be under benches/out`);
  const config = JSON.parse(readFileSync(join(root, 'benches/out', folder, 'config.json'), 'utf8'));
  return { model: config.name, dir: `/bench-out/${folder}`, onnx: `/bench-out/${folder}/onnx` };
}

async function benchPage(model) {
  const page = await browser.newPage();
  const query = new URLSearchParams({
    ...modelQuery(model),
    engines: env('ENGINES', 'cpu,webgpu,ort,ort-nocache'),
    runs: env('RUNS', '20'),
    gpuRuns: env('GPU_RUNS', '10'),
  });
  for (const [name, param] of [
    ['GPU_WARMUP', 'gpuWarmup'],
    ['GPU_LENGTHS', 'gpuLengths'],
    ['OUT_TOKENS', 'outTokens'],
    ['WARMUP_PASSES', 'warmupPasses'],
    ['LENGTHS', 'lengths'],
  ]) {
    if (process.env[name]) query.set(param, process.env[name]);
  }
  await page.goto(`${origin}/bench/?${query}`);
  await page.waitForFunction(() => window.__bench, null, { timeout: 3_600_000 });
  const r = await page.evaluate(() => window.__bench);
  await page.close();
  if (r.error) throw new Error(r.error);
  return r;
}

const STAGES = ['encode', 'cached_step', 'greedy', 'greedy_uncached', 'full_redecode', 'greedy_cold', 'answer', 'analysis', 'page_step'];

function printBench(r, run) {
  const capped = r.outTokens ? `, every engine decodes ${r.outTokens} tokens` : '';
  console.log(`\n### ${r.model}, page load ${run}: median / p95 ms (${r.runs} runs after warm-up; WebGPU ${r.gpuRuns}${capped})\n`);
  console.log(`| src tokens | out tokens | engine | ${STAGES.join(' | ')} |`);
  console.log(`|---|---|---|${STAGES.map(() => '---').join('|')}|`);
  for (const [engine, rows] of Object.entries(r.engines)) {
    const label = engine.includes('webgpu') ? `${engine} (${r.adapter?.architecture || 'no adapter'})` : engine;
    for (const row of rows) {
      const cells = STAGES.map((s) => (row.stages[s] ? `${f(row.stages[s].median)} / ${f(row.stages[s].p95)}` : '–'));
      console.log(`| ${row.n} | ${row.out} | ${label} | ${cells.join(' | ')} |`);
    }
  }
}

/** One record per measurement of one page load (see benches/tables.mjs). */
function records(r, run) {
  const out = [];
  for (const [engine, rows] of Object.entries(r.engines)) {
    const adapter = engine.includes('webgpu') ? { adapter: r.adapter?.architecture || r.adapter?.vendor || 'unknown' } : {};
    for (const row of rows) {
      for (const [stage, s] of Object.entries(row.stages)) {
        out.push({
          engine,
          model: r.model,
          stage,
          src_tokens: row.n,
          out_tokens: row.out,
          median_ms: s.median,
          p95_ms: s.p95,
          runs: s.runs,
          run,
          ...adapter,
        });
      }
    }
  }
  return out;
}

async function realPage() {
  const out = {};
  // First heatmap: a fresh profile (cold), then a reload in the same profile (warm cache).
  const context = await browser.newContext();
  const page = await context.newPage();
  // The page as a person opens it (no test mode: its harness would load before the worker starts).
  await page.goto(`${origin}/?backend=cpu`);
  out.firstHeatmapColdMs = await firstHeatmap(page);
  const warm = [];
  for (let i = 0; i < 5; i++) {
    await page.reload();
    warm.push(await firstHeatmap(page));
  }
  warm.sort((a, b) => a - b);
  out.firstHeatmapWarmMs = warm[2];
  // The rest reads the page's state and asks its worker: test mode.
  await page.goto(`${origin}/?test&backend=cpu`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120_000 });
  // Keystroke to redraw, one key at a time (each waits out the 150 ms debounce), and long tasks.
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(e.duration);
    }).observe({ type: 'longtask' });
    window.__attnscope.redraws.length = 0;
  });
  out.keystrokeToRedraw = await typeKeys(page, ' My father likes drinking tea and we eat noodles.', 400);
  out.longTasksWhileTyping = await page.evaluate(() => ({ count: window.__longTasks.length, maxMs: Math.max(0, ...window.__longTasks) }));
  // Burst typing (no pauses): long tasks only.
  const input = page.locator('#source-input');
  await page.evaluate(() => {
    window.__longTasks.length = 0;
  });
  await input.pressSequentially(' and then some more words to type quickly without any pause at all', { delay: 0 });
  await page.waitForTimeout(1500);
  out.longTasksBurst = await page.evaluate(() => ({ count: window.__longTasks.length, maxMs: Math.max(0, ...window.__longTasks) }));
  // Memory: wasm linear memory after 50 and after 1,000 inferences of varying length.
  out.memory = await page.evaluate(async () => {
    const words = 'I love eating apples my father likes drinking tea the weather is nice today and we eat noodles'.split(' ');
    const sizes = {};
    for (let i = 1; i <= 1000; i++) {
      const n = 1 + ((i * 7) % 40);
      await window.__attnscope.call('translate', {
        gen: 1e9 + i,
        text: Array.from({ length: n }, (_, k) => words[(i + k) % words.length]).join(' '),
      });
      if (i === 50 || i === 1000) sizes[i] = (await window.__attnscope.call('stats')).wasmBytes;
    }
    return sizes;
  });
  await context.close();
  // Keystroke to redraw on the WebGPU backend (here SwiftShader: a CPU emulating the GPU).
  const gpuContext = await browser.newContext();
  const gpuPage = await gpuContext.newPage();
  await gpuPage.goto(`${origin}/?test&backend=webgpu`);
  await gpuPage.waitForFunction(() => document.body.dataset.ready === 'true' && window.__attnscope.state.backend === 'webgpu', null, {
    timeout: 300_000,
  });
  out.adapter = await gpuPage.evaluate(async () => {
    const adapter = await navigator.gpu?.requestAdapter();
    return adapter ? `${adapter.info?.vendor || ''} ${adapter.info?.architecture || ''}`.trim() || 'unknown' : null;
  });
  out.keystrokeToRedrawWebgpu = await typeKeys(gpuPage, ' My father likes tea.', 2500);
  await gpuContext.close();
  return out;
}

// Type `text` one key at a time, `pauseMs` apart (each waits out the 150 ms debounce); the page
// records every keystroke-to-redraw (`window.__attnscope.redraws`): until the views in sight show
// the answer, and until every view does.
async function typeKeys(page, text, pauseMs) {
  await page.evaluate(() => {
    window.__attnscope.redraws.length = 0;
  });
  const input = page.locator('#source-input');
  await input.click();
  await page.keyboard.press('End');
  for (const ch of text) {
    await page.keyboard.type(ch);
    await page.waitForTimeout(pauseMs);
  }
  const redraws = await page.evaluate(() => window.__attnscope.redraws.map((r) => [r.ms, r.computeMs, r.renderMs, r.allMs, r.allRenderMs]));
  const sorted = (i) =>
    redraws
      .map((r) => r[i])
      .filter((x) => x != null)
      .sort((a, b) => a - b);
  const med = (a) => a[Math.floor((a.length - 1) / 2)];
  const p95 = (a) => a[Math.round((a.length - 1) * 0.95)];
  return {
    runs: redraws.length,
    median: med(sorted(0)),
    p95: p95(sorted(0)),
    computeMedian: med(sorted(1)),
    renderMedian: med(sorted(2)),
    allMedian: med(sorted(3)),
    allRenderMedian: med(sorted(4)),
  };
}

function sizes() {
  const rows = [];
  for (const name of ['cpu', 'webgpu']) {
    const file = join(root, 'pkg', name, 'attnscope_bg.wasm');
    const bytes = readFileSync(file);
    rows.push({ what: `pkg/${name}/attnscope_bg.wasm`, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
  }
  // Every file the page loads for each model, as models/index.json lists them.
  const index = JSON.parse(readFileSync(join(root, 'models', 'index.json'), 'utf8'));
  for (const model of index.models) {
    for (const name of Object.keys(model.files)) {
      const bytes = readFileSync(join(root, 'models', model.name, name));
      rows.push({ what: `models/${model.name}/${name}`, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
    }
  }
  return rows;
}

async function reportRealPage() {
  results.page = await realPage();
  const p = results.page;
  console.log('\n### The real page (CPU backend)\n');
  console.log('| measure | value |\n|---|---|');
  console.log(`| first heatmap after navigation, cold (empty cache) | ${f(p.firstHeatmapColdMs)} ms |`);
  console.log(`| first heatmap after navigation, warm (median of 5 reloads) | ${f(p.firstHeatmapWarmMs)} ms |`);
  console.log(
    `| keystroke → redraw (150 ms debounce included), median / p95 over ${p.keystrokeToRedraw.runs} keys | ${f(p.keystrokeToRedraw.median)} / ${f(p.keystrokeToRedraw.p95)} ms |`,
  );
  console.log(`| of which translate in the worker, median | ${f(p.keystrokeToRedraw.computeMedian)} ms |`);
  console.log(`| of which rendering the views in sight, median | ${f(p.keystrokeToRedraw.renderMedian)} ms |`);
  console.log(
    `| keystroke → every view redrawn, in sight or not, median | ${f(p.keystrokeToRedraw.allMedian)} ms (rendering ${f(p.keystrokeToRedraw.allRenderMedian)} ms) |`,
  );
  const g = p.keystrokeToRedrawWebgpu;
  console.log(
    `| WebGPU backend (${p.adapter || 'no adapter'}): keystroke → redraw, median / p95 over ${g.runs} keys | ${f(g.median)} / ${f(g.p95)} ms (translate ${f(g.computeMedian)}, render ${f(g.renderMedian)}) |`,
  );
  console.log(
    `| long main-thread tasks (> 50 ms) typing one key at a time | ${p.longTasksWhileTyping.count} (max ${f(p.longTasksWhileTyping.maxMs)} ms) |`,
  );
  console.log(`| long main-thread tasks typing in a burst | ${p.longTasksBurst.count} (max ${f(p.longTasksBurst.maxMs)} ms) |`);
  console.log(`| wasm memory after 50 / 1,000 inferences | ${p.memory[50]} / ${p.memory[1000]} bytes |`);
  results.sizes = sizes();
  console.log('\n### Sizes\n\n| file | bytes | gzipped |\n|---|---|---|');
  for (const s of results.sizes) console.log(`| ${s.what} | ${s.raw.toLocaleString('en')} | ${s.gzip.toLocaleString('en')} |`);
}

try {
  const shipped = () => JSON.parse(readFileSync(join(root, 'models', 'index.json'), 'utf8')).models.map((m) => m.name);
  const models = process.argv.slice(2).length ? process.argv.slice(2) : shipped();
  const all = [];
  // Separate page loads, the models interleaved, so that each run sees the same drift.
  for (let run = 1; run <= Number(env('PAGE_LOADS', '3')); run++) {
    for (const model of models) {
      const r = await benchPage(model);
      printBench(r, run);
      results.bench.push({ run, ...r });
      all.push(...records(r, run));
    }
  }
  const first = results.bench[0];
  const meta = {
    chromium: results.chromium,
    userAgent: first?.userAgent,
    onnxruntimeWeb: first?.onnxruntimeWeb,
    adapter: first?.adapter,
    // How each model was run: its config, samples, warm-up runs and output cap.
    models: Object.fromEntries(
      results.bench.map((b) => [
        b.model,
        { config: b.config, runs: b.runs, gpuRuns: b.gpuRuns, warmup: b.warmup, gpuWarmup: b.gpuWarmup, outTokens: b.outTokens },
      ]),
    ),
  };
  mkdirSync(join(root, 'benches/out/records'), { recursive: true });
  writeFileSync(
    join(root, `benches/out/records/${env('RECORDS', 'browser')}.json`),
    `${JSON.stringify({ source: 'browser.mjs', meta, records: all }, null, 1)}\n`,
  );
  if (env('REAL_PAGE', '1') !== '0') await reportRealPage();
  mkdirSync(join(root, 'benches/out'), { recursive: true });
  writeFileSync(join(root, `benches/out/${env('RECORDS', 'browser')}.json`), JSON.stringify(results, null, 1));
} finally {
  await browser.close();
  server.close();
}

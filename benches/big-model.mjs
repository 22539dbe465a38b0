#!/usr/bin/env node
// Large random models in the real page, on the CPU wasm module: opus-mt-en-zh's shape (d_model
// 512, 6+6 layers, 8 heads, d_ff 2048, vocabulary 65,001, Marian's options) and the paper's base
// model (vocabulary 32,000). Each folder is made by `attnscope random PRESET --max-len 24` (F16
// weights; a random model never chooses </s>, so every translation decodes 23 tokens, about what
// a 12-word English sentence gives in Chinese), opened through the page's "Open model folder…",
// and timed:
//   - open: from choosing the folder to the page showing the example's translation (reading
//     the files in the worker, loading them, and translating the example);
//   - translate: a 12-word sentence through the page's worker call, 3 warm-up runs, then RUNS;
//   - memory: the CPU module's wasm memory afterwards, and the page's JS heap;
//   - responsiveness: every main-thread long task (> 50 ms) while opening and translating.
// Prints a markdown table and writes benches/out/big-model.json. Timings are reported, never
// asserted.
//
//   node benches/big-model.mjs            (after scripts/build-wasm.sh and cargo build --release)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/harness.mjs';
import { medianP95, timeTranslations } from './page-timing.mjs';

const TEXT = 'My father and I often eat apples and drink tea after dinner.';
const RUNS = Number(process.env.RUNS || 5);
const PRESETS = (process.env.PRESETS || 'opus-mt,base').split(',');

const root = fileURLToPath(new URL('..', import.meta.url));
const binary = join(root, 'target/release/attnscope');
const folders = {};
for (const preset of PRESETS) {
  const dir = join(root, `benches/out/random-${preset}`);
  if (!existsSync(join(dir, 'model.safetensors'))) {
    execFileSync(binary, ['random', preset, '--out', dir, '--max-len', '24'], { cwd: root, stdio: 'inherit' });
  }
  folders[preset] = dir;
}

const server = makeServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
const results = { date: new Date().toISOString(), chromium: browser.version(), runs: RUNS, text: TEXT, models: [] };
const mb = (bytes) => (bytes / 1e6).toFixed(0);
try {
  for (const [preset, dir] of Object.entries(folders)) {
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const weightBytes = statSync(join(dir, 'model.safetensors')).size;
    const page = await browser.newPage();
    await page.goto(`${origin}/?test&backend=cpu`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 300_000 });
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
      }).observe({ type: 'longtask' });
    });
    const started = Date.now();
    await page.setInputFiles('#model-folder', dir);
    await page.waitForFunction(
      (model) => {
        const s = window.__attnscope.state;
        const body = document.body.dataset;
        return body.model === model && body.ready === 'true' && body.output && s.shownGeneration === s.generation;
      },
      `local:${config.name}`,
      { timeout: 600_000 },
    );
    const openMs = Date.now() - started;
    const longTasksOpening = await page.evaluate(() => window.__longTasks.splice(0));
    const times = await timeTranslations(page, TEXT, RUNS);
    const answer = await page.evaluate(async (text) => (await window.__attnscope.call('translate', { gen: 3e9, text })).trace, TEXT);
    const longTasksTranslating = await page.evaluate(() => window.__longTasks.splice(0));
    const stats = await page.evaluate(() => window.__attnscope.call('stats'));
    const jsHeap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
    results.models.push({
      preset,
      name: config.name,
      sizes: {
        d_model: config.d_model,
        layers: [config.n_encoder_layers, config.n_decoder_layers],
        heads: config.n_heads,
        d_ff: config.d_ff,
        vocab: config.src_vocab_size,
      },
      weightBytes,
      sourceTokens: answer.srcIds.length,
      outputTokens: answer.tgtIds.length - 1,
      openMs,
      ...medianP95(times),
      runs: times.length,
      wasmBytes: stats.wasmBytes,
      jsHeapBytes: jsHeap,
      longTasksOpening,
      longTasksTranslating,
    });
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
console.log(
  '| model | weights (F16) | tokens in → out | open (read, load, first translation) | translate, median (p95) | wasm memory | long tasks opening | long tasks translating |\n|---|---|---|---|---|---|---|---|',
);
for (const r of results.models) {
  const tasks = (list) => (list.length ? `${list.length}, longest ${Math.max(...list)} ms` : 'none');
  console.log(
    `| ${r.preset} (${r.sizes.d_model}, ${r.sizes.layers.join('+')} layers, ${r.sizes.heads} heads, d_ff ${r.sizes.d_ff}, vocab ${r.sizes.vocab}) | ${mb(r.weightBytes)} MB | ${r.sourceTokens} → ${r.outputTokens} | ${(r.openMs / 1000).toFixed(1)} s | ${r.median.toFixed(0)} ms (${r.p95.toFixed(0)} ms) | ${mb(r.wasmBytes)} MB | ${tasks(r.longTasksOpening)} | ${tasks(r.longTasksTranslating)} |`,
  );
}
mkdirSync(join(root, 'benches/out'), { recursive: true });
writeFileSync(join(root, 'benches/out/big-model.json'), JSON.stringify(results, null, 1));

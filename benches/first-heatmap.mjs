#!/usr/bin/env node
// The first heatmap (issue 58's budgets: ≤ 700 ms after a warm reload, in every reload; ≤ 1.5 s
// on a cold first visit) and what it is made of. COLD (5) first visits, each in a fresh browser
// context (an empty cache: HTTP cache and Cache API); then one context loads the page once and
// reloads it RELOADS (5) times. For each reload the page's and the worker's user-timing measures
// (www/app/models.js `boot: …`, www/worker/handlers.js `init: …`, www/app/render.js `render: …`)
// are put on one clock, from navigation start. Prints the median and the spread of both figures,
// the median of each phase's start and duration, and writes benches/out/first-heatmap.json
// (`cold`: the median cold visit, `colds`: every one). Timings are reported, never asserted.
//
//   node benches/first-heatmap.mjs [MODEL]    (after scripts/build-wasm.sh; MODEL: en-zh)
//
// BROWSER=plain: Chromium without the flags that composite the page through SwiftShader on the
// CPU (page-timing.mjs BENCH_ARGS).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { BENCH_ARGS, firstHeatmap } from './page-timing.mjs';

const model = process.argv[2] || 'en-zh';
const RELOADS = Number(process.env.RELOADS || 5);
const COLD = Number(process.env.COLD || 5);
const root = fileURLToPath(new URL('..', import.meta.url));
const server = makeServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BENCH_ARGS });

/** The measures of the page and of its worker, in ms from the page's navigation start. */
async function phases(page) {
  const first = await firstHeatmap(page);
  const own = await page.evaluate(() => ({
    origin: performance.timeOrigin,
    measures: performance.getEntriesByType('measure').map((m) => [m.name, m.startTime, m.duration]),
  }));
  const rows = own.measures.filter(([name]) => name.startsWith('boot:') || name.startsWith('render:'));
  const navigation = await page.evaluate(() => {
    const [entry] = performance.getEntriesByType('navigation');
    return entry
      ? [
          ['page: HTML', entry.requestStart, entry.responseEnd - entry.requestStart],
          ['page: DOMContentLoaded', entry.domContentLoadedEventStart, 0],
        ]
      : [];
  });
  rows.push(...navigation);
  for (const worker of page.workers()) {
    const theirs = await worker.evaluate(() => ({
      origin: performance.timeOrigin,
      measures: performance.getEntriesByType('measure').map((m) => [m.name, m.startTime, m.duration]),
    }));
    const shift = theirs.origin - own.origin;
    for (const [name, start, duration] of theirs.measures) if (name.startsWith('init:')) rows.push([name, start + shift, duration]);
  }
  return { firstHeatmap: first, rows };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** The figures' median, spread and every run, in words: `942 ms (860–1,750; runs 1,750, …)`. */
const summary = (values) => {
  const r = (x) => Math.round(x).toLocaleString('en');
  return `${r(median(values))} ms (${r(Math.min(...values))}–${r(Math.max(...values))}; runs ${values.map(r).join(', ')})`;
};

try {
  const url = `${origin}/?model=${model}&backend=cpu`;
  const colds = [];
  for (let i = 0; i < COLD; i++) {
    const context = await browser.newContext(); // an empty cache
    const page = await context.newPage();
    await page.goto(url);
    colds.push(await phases(page));
    await context.close();
  }
  const page = await browser.newPage();
  await page.goto(url);
  await phases(page);
  const warm = [];
  for (let i = 0; i < RELOADS; i++) {
    await page.reload();
    warm.push(await phases(page));
  }
  const names = [...new Set(warm.flatMap((w) => w.rows.map(([name]) => name)))];
  const table = names.map((name) => {
    const hits = warm.map((w) => w.rows.filter(([n]) => n === name));
    const starts = hits.filter((h) => h.length).map((h) => h[0][1]);
    const durations = hits.filter((h) => h.length).map((h) => h.reduce((sum, [, , d]) => sum + d, 0));
    return { name, start: median(starts), duration: median(durations), count: median(hits.map((h) => h.length)) };
  });
  table.sort((a, b) => a.start - b.start);
  const f = (x) => x.toFixed(1);
  console.log(`\n### First heatmap after a warm reload, ${model}, CPU module (median of ${RELOADS} reloads)\n`);
  console.log('| phase | starts at ms | takes ms |\n|---|---|---|');
  for (const row of table)
    console.log(`| ${row.name}${row.count > 1 ? ` (${row.count} tasks)` : ''} | ${f(row.start)} | ${f(row.duration)} |`);
  const coldTimes = colds.map((c) => c.firstHeatmap);
  const cold = colds.find((c) => c.firstHeatmap === median(coldTimes));
  console.log(`| **first heatmap** | | **${f(median(warm.map((w) => w.firstHeatmap)))}** (cold load: ${f(cold.firstHeatmap)}) |`);
  console.log(`\nfirst heatmap after a warm reload: ${summary(warm.map((w) => w.firstHeatmap))}`);
  console.log(`first heatmap on a cold first visit: ${summary(coldTimes)}`);
  mkdirSync(join(root, 'benches/out'), { recursive: true });
  const out = { date: new Date().toISOString(), chromium: browser.version(), model, reloads: RELOADS, cold, colds, warm, table };
  writeFileSync(join(root, 'benches/out/first-heatmap.json'), `${JSON.stringify(out, null, 2)}\n`);
} finally {
  await browser.close();
  server.close();
}

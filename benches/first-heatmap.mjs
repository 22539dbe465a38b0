#!/usr/bin/env node
// What the first heatmap after a warm reload is made of (issue 26's budget: ≤ 700 ms): the page
// is loaded once (cold), then reloaded RELOADS (5) times; for each reload the page's and the
// worker's user-timing measures (www/app/models.js `boot: …`, www/worker/handlers.js `init: …`,
// www/app/render.js `render: …`) are put on one clock, from navigation start. Prints the median of
// each phase's start and duration and of the first heatmap, and writes
// benches/out/first-heatmap.json. Timings are reported, never asserted.
//
//   node benches/first-heatmap.mjs [MODEL]    (after scripts/build-wasm.sh; MODEL: en-zh)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/harness.mjs';
import { firstHeatmap } from './page-timing.mjs';

const model = process.argv[2] || 'en-zh';
const RELOADS = Number(process.env.RELOADS || 5);
const root = fileURLToPath(new URL('..', import.meta.url));
const server = makeServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

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

try {
  const page = await browser.newPage();
  await page.goto(`${origin}/?model=${model}&backend=cpu`);
  const cold = await phases(page);
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
  console.log(`| **first heatmap** | | **${f(median(warm.map((w) => w.firstHeatmap)))}** (cold load: ${f(cold.firstHeatmap)}) |`);
  mkdirSync(join(root, 'benches/out'), { recursive: true });
  const out = { date: new Date().toISOString(), chromium: browser.version(), model, reloads: RELOADS, cold, warm, table };
  writeFileSync(join(root, 'benches/out/first-heatmap.json'), `${JSON.stringify(out, null, 2)}\n`);
} finally {
  await browser.close();
  server.close();
}

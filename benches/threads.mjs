#!/usr/bin/env node
// Which of Chromium's threads are busy while the first heatmap is made: RUNS (3) warm reloads of
// the page, each traced from navigation to the first heatmap, and for each thread the time its
// tasks ran (`RunTask` spans, overlapping ones merged, so a nested task counts once). On a 2-core
// host the sum over threads, divided by the time to the first heatmap, says how many cores the
// load wanted. Figures are reported, never asserted.
//
//   node benches/threads.mjs [MODEL]     (MODEL: en-zh; BROWSER=plain: page-timing.mjs BENCH_ARGS)
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { BENCH_ARGS, firstHeatmap } from './page-timing.mjs';

const model = process.argv[2] || 'en-zh';
const RUNS = Number(process.env.RUNS || 3);
const CATEGORIES = ['toplevel', 'disabled-by-default-devtools.timeline', 'blink.user_timing', '__metadata'];

/** Busy ms per `process/thread` between `start` and `end` (µs, the trace's clock). */
function busyByThread(events, start, end) {
  const named = (name) =>
    new Map(
      events.filter((e) => e.ph === 'M' && e.name === name).map((e) => [name === 'thread_name' ? `${e.pid}:${e.tid}` : e.pid, e.args.name]),
    );
  const threads = named('thread_name');
  const processes = named('process_name');
  const spans = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || !e.name.includes('RunTask')) continue;
    const from = Math.max(e.ts, start);
    const to = Math.min(e.ts + (e.dur ?? 0), end);
    if (to <= from) continue;
    const key = `${processes.get(e.pid) ?? e.pid}/${threads.get(`${e.pid}:${e.tid}`) ?? e.tid}`;
    if (!spans.has(key)) spans.set(key, []);
    spans.get(key).push([from, to]);
  }
  const busy = new Map();
  for (const [key, list] of spans) {
    list.sort((a, b) => a[0] - b[0]);
    let total = 0;
    let [from, to] = list[0];
    for (const [s, f] of list.slice(1)) {
      if (s > to) {
        total += to - from;
        [from, to] = [s, f];
      } else to = Math.max(to, f);
    }
    busy.set(key, (total + to - from) / 1000);
  }
  return [...busy].sort((a, b) => b[1] - a[1]);
}

const server = makeServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BENCH_ARGS });
try {
  const page = await browser.newPage();
  await page.goto(`${origin}/?model=${model}&backend=cpu`);
  await firstHeatmap(page);
  for (let run = 1; run <= RUNS; run++) {
    await page.waitForTimeout(2000);
    await browser.startTracing(page, { categories: CATEGORIES });
    await page.reload();
    const first = await firstHeatmap(page);
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    const start = events.find((e) => e.name === 'navigationStart')?.ts;
    const rows = busyByThread(events, start, start + first * 1000).filter(([, ms]) => ms >= 5);
    const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
    console.log(
      `reload ${run}: first heatmap ${Math.round(first)} ms; threads busy ${Math.round(total)} ms in all, ${(total / first).toFixed(2)} cores`,
    );
    for (const [thread, ms] of rows) console.log(`  ${String(Math.round(ms)).padStart(5)} ms  ${thread}`);
  }
} finally {
  await browser.close();
  server.close();
}

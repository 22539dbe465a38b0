#!/usr/bin/env node
// A playground run left training for DURATION_S (600 s) keeps the page responsive (issue 56,
// "Bad input"; budget: no main-thread task over 50 ms while it trains). Headless Chromium (the
// tests' flags), the real page in test mode on the CPU backend, opened at `#pg=steps:100000` (the
// playground opens with the baseline reverse model and 100,000 steps, more than the run reaches),
// the playground panel scrolled into view; Train is pressed and the run left alone. Recorded:
//   - every main-thread long task (PerformanceObserver 'longtask'), each with the page's own
//     user-timing measures that overlap it (`render: <view>`, www/app/render.js; `model: …`), and
//     the training notices that reached the page just before it;
//   - every SAMPLE_S (5 s), a key press in `#source-input` (ArrowLeft / ArrowRight in turn: the
//     caret moves, the sentence does not, so the page has nothing to translate): the delay from
//     the event's timeStamp to its handler, and to the next animation frame;
//   - every SAMPLE_S, the run's step and the steps per second its last `reports` notice gave;
//   - the training module's wasm memory (the training worker's `memory` request) and the model
//     worker's (its test-mode `stats`) when Train is pressed and at the end.
// Prints a table a minute a row and a summary, and writes benches/out/playground-soak.json.
// Timings are reported, never asserted.
//
//   flock /tmp/cpu.lock node benches/playground-soak.mjs      (DURATION_S=60 for a short try)
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/harness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const DURATION_S = Number(process.env.DURATION_S || 600);
const SAMPLE_S = 5;
const BUDGET_MS = 50;

/** What the page records from its first script on (an init script: it runs before the page's). */
function recorder() {
  window.__soak = { longTasks: [], measures: [], inputs: [], notices: [], latest: null };
  const soak = window.__soak;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) soak.longTasks.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  // Only measures that could explain a long task are kept: the page clears its timeline itself.
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.duration >= 5) soak.measures.push({ name: e.name, start: e.startTime, ms: e.duration });
  }).observe({ type: 'measure' });
  addEventListener(
    'keydown',
    (event) => {
      const handler = performance.now() - event.timeStamp;
      requestAnimationFrame(() => soak.inputs.push({ at: event.timeStamp, handler, frame: performance.now() - event.timeStamp }));
    },
    true,
  );
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      if (!String(url).includes('/trainer/worker.js')) return;
      this.addEventListener('message', ({ data }) => {
        const at = performance.now();
        if (data?.type === 'reports') soak.latest = { at, step: data.reports.at(-1)?.step ?? 0, rate: data.stepsPerSecond };
        if (['snapshot', 'evaluation', 'state'].includes(data?.type)) soak.notices.push({ at, type: data.type, step: data.step });
        if (soak.notices.length > 20_000) soak.notices.splice(0, 10_000);
      });
    }
  };
}

/** Hook the training worker so that it answers the bench's own requests (`ask`) without the page seeing them. */
function hookTrainer() {
  self.__answers = new Map();
  self.__asked = 0;
  const post = self.postMessage.bind(self);
  self.postMessage = (message, transfer) => {
    const answer = self.__answers.get(message?.id);
    if (!answer) return post(message, transfer);
    self.__answers.delete(message.id);
    answer(message);
  };
}

async function ask(trainer, type) {
  const reply = await trainer.evaluate(
    (type) =>
      new Promise((resolve) => {
        const id = `bench:${++self.__asked}`;
        self.__answers.set(id, resolve);
        self.onmessage({ data: { id, type, args: {} } });
      }),
    type,
  );
  if (!reply.ok) throw new Error(`${type}: ${reply.error}`);
  return reply.result;
}

const memoryNow = async (page, trainer) => ({
  training: await ask(trainer, 'memory'),
  model: (await page.evaluate(() => window.__attnscope.call('stats'))).wasmBytes,
});

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
};
const fixed = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

/** Each long task with the measures overlapping it and the notices of the 200 ms before it. */
function explain(data) {
  return data.longTasks.map((task) => {
    const end = task.start + task.ms;
    const measures = data.measures.filter((m) => m.start < end && m.start + m.ms > task.start).map((m) => `${m.name} ${m.ms.toFixed(1)}`);
    const notices = data.notices.filter((n) => n.at <= end && n.at >= task.start - 200).map((n) => `${n.type}@${n.step ?? ''}`);
    return { ...task, measures, notices };
  });
}

/** One row a minute: steps, rates, long tasks, input delays. */
function minuteRows(data, samples, t0) {
  const rows = [];
  for (let m = 0; m * 60 < DURATION_S; m++) {
    const [from, to] = [t0 + m * 60_000, t0 + Math.min(DURATION_S, (m + 1) * 60) * 1000];
    const inside = (at) => at >= from && at < to;
    const ss = samples.filter((s) => inside(s.at));
    const tasks = data.longTasks.filter((task) => inside(task.start));
    const over = tasks.filter((task) => task.ms > BUDGET_MS);
    const inputs = data.inputs.filter((i) => inside(i.at));
    const first = ss[0];
    const last = ss.at(-1);
    rows.push({
      minute: m + 1,
      step: last?.step ?? 0,
      stepsPerSecond: first && last && last.at > first.at ? ((last.step - first.step) * 1000) / (last.at - first.at) : Number.NaN,
      workerRate: median(ss.map((s) => s.rate).filter(Number.isFinite)),
      longTasks: tasks.length,
      over: over.length,
      maxTask: Math.max(0, ...tasks.map((task) => task.ms)),
      frameMedian: median(inputs.map((i) => i.frame)),
      frameMax: Math.max(0, ...inputs.map((i) => i.frame)),
      handlerMax: Math.max(0, ...inputs.map((i) => i.handler)),
      load: Math.max(0, ...ss.map((s) => s.load)),
    });
  }
  return rows;
}

async function main() {
  const server = makeServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, locale: 'en-US' });
    await context.addInitScript(recorder);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    let trainer = null;
    let hooked = null;
    page.on('worker', (worker) => {
      if (!worker.url().includes('/trainer/worker.js')) return;
      trainer = worker;
      hooked = worker.evaluate(hookTrainer);
    });
    await page.goto(`${origin}/?test&backend=cpu#pg=steps:100000`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120_000 });
    await page.waitForFunction(() => document.getElementById('playground')?.dataset.ready === 'true', null, { timeout: 120_000 });
    await hooked;
    const steps = await page.locator('#playground [data-field=steps]:is(select, input)').inputValue();
    if (steps !== '100000') throw new Error(`the link did not set 100000 steps: ${steps}`);
    await page.locator('#playground-panel').scrollIntoViewIfNeeded();
    await page.waitForTimeout(2000); // the first run's model opens in the views
    const start = await memoryNow(page, trainer);
    const t0 = await page.evaluate(() => performance.now());
    await page.click('#playground .run-train');
    const samples = [];
    const input = page.locator('#source-input');
    for (let i = 1; i * SAMPLE_S <= DURATION_S; i++) {
      const wait = t0 + i * SAMPLE_S * 1000 - (await page.evaluate(() => performance.now()));
      if (wait > 0) await page.waitForTimeout(wait);
      await input.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
      samples.push({ ...(await page.evaluate(() => ({ at: performance.now(), ...window.__soak.latest }))), load: loadavg()[0] });
      if (i % 12 === 0) console.error(`# ${i * SAMPLE_S} s: step ${samples.at(-1).step}`);
    }
    const state = await page.locator('#playground').getAttribute('data-state');
    const end = await memoryNow(page, trainer);
    await page.click('#playground .run-pause');
    const data = await page.evaluate(() => window.__soak);
    const trainingTasks = data.longTasks.filter((task) => task.start >= t0);
    const rows = minuteRows({ ...data, longTasks: trainingTasks }, samples, t0);
    const over = explain({ ...data, longTasks: trainingTasks.filter((task) => task.ms > BUDGET_MS) });
    const inputs = data.inputs.filter((i) => i.at >= t0);
    const result = { durationS: DURATION_S, stateAtEnd: state, memory: { start, end }, rows, over, inputs, samples, errors };
    mkdirSync(`${root}benches/out`, { recursive: true });
    writeFileSync(`${root}benches/out/playground-soak.json`, JSON.stringify(result, null, 1));
    console.log(
      '| minute | step at end | steps/s (from the steps) | steps/s (notices, median) | long tasks | over 50 ms | longest task (ms) | key → frame median / max (ms) | key → handler max (ms) |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows)
      console.log(
        `| ${r.minute} | ${r.step} | ${fixed(r.stepsPerSecond)} | ${fixed(r.workerRate)} | ${r.longTasks} | ${r.over} | ${fixed(r.maxTask)} | ${fixed(r.frameMedian)} / ${fixed(r.frameMax)} | ${fixed(r.handlerMax)} | ${fixed(r.load, 2)} |`,
      );
    const all = trainingTasks.map((task) => task.ms);
    console.log(
      `\n${DURATION_S} s training (state at the end: ${state}); ${all.length} long tasks, ${over.length} over ${BUDGET_MS} ms, longest ${fixed(Math.max(0, ...all))} ms; ${inputs.length} key presses, key → frame median ${fixed(median(inputs.map((i) => i.frame)))} ms, max ${fixed(Math.max(0, ...inputs.map((i) => i.frame)))} ms`,
    );
    console.log(`wasm memory: training module ${start.training} → ${end.training} bytes; model worker ${start.model} → ${end.model} bytes`);
    for (const task of over)
      console.log(
        `over budget: ${task.ms.toFixed(1)} ms at ${((task.start - t0) / 1000).toFixed(1)} s: ${task.measures.join(', ') || 'no measure'}; notices ${task.notices.join(' ') || 'none'}`,
      );
    if (errors.length) console.log(`page errors: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    server.close();
  }
}

await main();

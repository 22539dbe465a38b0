#!/usr/bin/env node
// The page's responsiveness budgets, held here rather than in the tests (a busy machine must not
// fail a test; issue 23 moved them out of tests/browser/), over RUNS (3) runs:
//   1. the longest main-thread task of each phase while a large random model (opus-mt's shape at
//      d_model 64: 6+6 layers × 8 heads, a 128-token source, 129 output tokens) decodes, its model
//      view is opened and switched, its head view shows all 8 heads, and a row of the 129 × 128
//      heatmap is hovered (the phases of tests/browser/large-model.test.mjs). Every task is seen,
//      not only those over 50 ms: Chromium's own trace of the page's main thread (its RunTask
//      events; tracing costs a little itself, so the figures err long). Budgets
//      (benches/budgets.mjs): a hover is one frame, ≤ 16 ms; every other phase ≤ 50 ms;
//   2. WebGPU device lost → the CPU within 2 s (tests/browser/robust.test.mjs's scenario).
// Prints a markdown table and writes benches/out/phases.json ({ runs: { phase: [longest task ms
// of each run] }, switchMs }; benches/budgets.mjs reads it).
//
//   node benches/phases.mjs      (after scripts/build-wasm.sh and cargo build --release)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, startServer, typeSettled, waitReady } from '../tests/browser/harness.mjs';
import { makeLargeModel, openModel, openRecordingPage } from '../tests/browser/long-tasks.mjs';
import { metByRule, phaseBudgetMs } from './budgets.mjs';

const SWITCH_BUDGET_MS = 2000;
const RUNS = Number(process.env.RUNS || 3);
const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'attnscope-phases-'));
const folder = join(dir, 'views');
const sentence = makeLargeModel(folder);

/**
 * Run `body` with Chromium's tracing on; the longest task on a renderer's main thread meanwhile
 * (ms), until two frames and a moment after `body`.
 */
async function longestTask(browser, page, body) {
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  let events = [];
  try {
    await body();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 200)))));
  } finally {
    events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  }
  const main = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  let longest = 0;
  for (const e of events) {
    if (e.name === 'RunTask' && e.ph === 'X' && main.has(`${e.pid}:${e.tid}`)) longest = Math.max(longest, e.dur / 1000);
  }
  return Math.round(longest * 10) / 10;
}

/** The large model's phases, one run: { phase: the longest main-thread task, ms }. */
async function largeModelPhases(browser, origin) {
  const { page } = await openRecordingPage(browser, origin);
  await openModel(page, { folder }, 'random-views');
  const during = (body) => longestTask(browser, page, body);
  const phases = {};
  phases.decode = await during(async () => {
    await typeSettled(page, sentence);
    await page.waitForFunction(() => window.__attnscope.state.trace?.decoderSelfAttention.queries === 129, null, { timeout: 120_000 });
  });
  phases['open the model view'] = await during(() => page.locator('section[data-export="model-view"]').scrollIntoViewIfNeeded());
  phases['switch in the model view'] = await during(async () => {
    await page.click('#model-view button.thumb[data-kind=encoderSelf][data-layer="5"][data-head="7"]');
    await page.waitForFunction(() => window.__attnscope.state.selection.layer === 5 && document.body.dataset.ready === 'true');
  });
  phases['open the head view'] = await during(async () => {
    await page.locator('section[data-export="head-view"]').scrollIntoViewIfNeeded();
    await page.click('input[name=headview-mode][value=all]');
    await page.waitForFunction(() => document.body.dataset.ready === 'true' && document.getElementById('head-view').dataset.heads === '8');
  });
  const canvas = page.locator('#focus-heatmap canvas.matrix');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  phases['hover a row of the heatmap'] = await during(async () => {
    for (let c = 0; c < 128; c += 3) await page.mouse.move(box.x + (c + 0.5) * 8, box.y + 64.5 * 8);
  });
  await page.context().close();
  return phases;
}

/** Milliseconds from destroying the WebGPU device to the page running on the CPU. */
async function deviceLostSwitch(browser, origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/?test&backend=webgpu`);
  await waitReady(page);
  await page.waitForFunction(() => document.getElementById('backend-badge').dataset.backend === 'webgpu', null, { timeout: 120_000 });
  await typeSettled(page, 'My father likes drinking tea.');
  const { destroyedAt } = await page.evaluate(() => window.__attnscope.call('test:loseDevice'));
  await page.waitForFunction(() => document.getElementById('backend-badge').dataset.backend === 'cpu', null, { timeout: 30_000 });
  const ms = Date.now() - destroyedAt;
  await context.close();
  return ms;
}

const { server, origin } = await startServer();
const browser = await launchChromium();
try {
  const runs = {};
  for (let run = 0; run < RUNS; run++) {
    for (const [phase, ms] of Object.entries(await largeModelPhases(browser, origin))) {
      runs[phase] ??= [];
      runs[phase].push(ms);
    }
  }
  const switchMs = await deviceLostSwitch(browser, origin);
  const rows = Object.entries(runs).map(([phase, longest]) => {
    const budget = phaseBudgetMs(phase);
    return `| ${phase} | ${longest.map((ms) => `${ms} ms`).join(', ')} | ≤ ${budget} ms | ${metByRule(longest, budget)} |`;
  });
  rows.push(
    `| WebGPU device lost → CPU | ${switchMs} ms | ≤ ${SWITCH_BUDGET_MS} ms | ${switchMs <= SWITCH_BUDGET_MS ? 'met' : 'missed'} |`,
  );
  console.log([`| phase | longest main-thread task, each of ${RUNS} runs (or time) | budget | |`, '|---|---|---|---|', ...rows].join('\n'));
  mkdirSync(join(root, 'benches/out'), { recursive: true });
  writeFileSync(join(root, 'benches/out/phases.json'), `${JSON.stringify({ runs, switchMs, date: new Date().toISOString() }, null, 2)}\n`);
} finally {
  await browser.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

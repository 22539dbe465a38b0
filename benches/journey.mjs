#!/usr/bin/env node
// The journey view's scrub budget (issue 24): choosing another token or layer redraws "one
// token's journey" in under 100 ms on the CPU module for en-zh. In the real page, on the CPU
// backend, with "I love eating apples." decoded: every decoder position × every layer, then every
// encoder position × every layer, each chosen with the view's own selectors. Each time runs in the
// page from the change event to the first frame after the view says `ready` for that pick (the
// worker's inspect call, the read-back, and drawing every strip). Prints a markdown table and
// writes benches/out/journey.json.
//
//   node benches/journey.mjs      (after scripts/build-wasm.sh)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, startServer, typeSettled } from '../tests/browser/harness.mjs';

const BUDGET_MS = 100;
const root = fileURLToPath(new URL('..', import.meta.url));

/** In the page: pick (stack, layer, position) with the selectors; ms until it is drawn. */
function timePick([stack, layer, position]) {
  const view = document.getElementById('journey');
  const set = (id, value) => {
    const select = document.getElementById(id);
    if (select.value === String(value)) return false;
    select.value = String(value);
    select.dispatchEvent(new Event('change'));
    return true;
  };
  return new Promise((resolve) => {
    const start = performance.now();
    const d = view.dataset;
    const done = () => d.state === 'ready' && d.stack === stack && d.layer === String(layer) && d.position === String(position);
    set('journey-stack', stack);
    set('journey-layer', layer);
    set('journey-token', position);
    const check = () => (done() ? requestAnimationFrame(() => resolve(performance.now() - start)) : setTimeout(check, 1));
    check();
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const { server, origin } = await startServer();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${origin}/?backend=cpu`);
  await typeSettled(page, 'I love eating apples.');
  await page.locator('#journey').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById('journey').dataset.state === 'ready', null, { timeout: 60_000 });
  const { trace, config } = await page.evaluate(() => ({ trace: window.__attnscope.state.trace, config: window.__attnscope.state.config }));
  const picks = [];
  for (const [stack, rows, layers] of [
    ['decoder', trace.tgtTokens.length - 1, config.nDecoderLayers],
    ['encoder', trace.srcTokens.length, config.nEncoderLayers],
  ]) {
    for (let layer = 0; layer < layers; layer++) for (let position = 0; position < rows; position++) picks.push([stack, layer, position]);
  }
  const times = [];
  for (const pick of picks) times.push(await page.evaluate(timePick, pick));
  const sorted = [...times].sort((a, b) => a - b);
  const median = quantile(sorted, 0.5);
  const p95 = quantile(sorted, 0.95);
  const max = sorted.at(-1);
  console.log('| journey view, en-zh, CPU module | picks | median | p95 | max | budget | |\n|---|---|---|---|---|---|---|');
  console.log(
    `| another token or layer → redrawn | ${times.length} | ${median.toFixed(1)} ms | ${p95.toFixed(1)} ms | ${max.toFixed(1)} ms | < ${BUDGET_MS} ms | ${p95 < BUDGET_MS ? 'met (p95)' : 'missed (p95)'} |`,
  );
  mkdirSync(join(root, 'benches/out'), { recursive: true });
  writeFileSync(join(root, 'benches/out/journey.json'), `${JSON.stringify({ picks, times, date: new Date().toISOString() }, null, 2)}\n`);
} finally {
  await browser.close();
  server.close();
}

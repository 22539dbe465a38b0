#!/usr/bin/env node
// The journey view's scrub budget (issue 24): choosing another token or layer redraws "one
// token's journey" in under 100 ms on the CPU module for en-zh. In the real page, on the CPU
// backend, with "I love eating apples." decoded: every decoder position × every layer, then every
// encoder position × every layer, each chosen with the view's own selectors. Each time runs in the
// page from the change event to the first frame after the view says `ready` for that pick (the
// worker's inspect call, the read-back, drawing every strip, and the wait for the browser's next
// frame). "drawn" is the part up to `ready`, the view's own work; the rest is the browser's.
// Prints a markdown table (with the machine's load average: on a shared machine the frames wait
// for the CPU) and writes benches/out/journey.json.
//
//   node benches/journey.mjs [ROUNDS]      (after scripts/build-wasm.sh; ROUNDS sweeps, default 1)
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, startServer, typeSettled, waitReady } from '../tests/browser/harness.mjs';

const BUDGET_MS = 100;
const SENTENCE = 'I love eating apples.';
const ROUNDS = Math.max(1, Number(process.argv[2]) || 1);
const root = fileURLToPath(new URL('..', import.meta.url));

/** In the page: pick (stack, layer, position) with the selectors; [ms until ready, ms until the next frame]. */
function timePick([stack, layer, position]) {
  const view = document.getElementById('journey');
  const set = (id, value) => {
    const select = document.getElementById(id);
    if (select.value === String(value)) return;
    select.value = String(value);
    select.dispatchEvent(new Event('change'));
  };
  const d = view.dataset;
  const done = () => d.state === 'ready' && d.stack === stack && d.layer === String(layer) && d.position === String(position);
  return new Promise((resolve) => {
    let start = 0;
    const finish = () => {
      const drawn = performance.now() - start;
      requestAnimationFrame(() => resolve([drawn, performance.now() - start]));
    };
    const watch = new MutationObserver(() => {
      if (!done()) return;
      watch.disconnect();
      finish();
    });
    watch.observe(view, { attributes: true });
    start = performance.now();
    set('journey-stack', stack);
    set('journey-layer', layer);
    set('journey-token', position);
    if (done()) {
      watch.disconnect();
      finish();
    }
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), max: sorted.at(-1) };
};
const ms = (v) => `${v.toFixed(1)} ms`;

const { server, origin } = await startServer();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${origin}/?test&backend=cpu`);
  // Type once the page has shown its first result: typed earlier, the page's own example may land
  // in the middle of the typing (and the bench would time some other sentence).
  await waitReady(page);
  await typeSettled(page, SENTENCE);
  await page.locator('#journey').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById('journey').dataset.state === 'ready', null, { timeout: 60_000 });
  const { trace, config } = await page.evaluate(() => ({ trace: window.__attnscope.state.trace, config: window.__attnscope.state.config }));
  const source = trace.srcTokens.join('').replaceAll('▁', ' ').replace('</s>', '').trim();
  if (source !== SENTENCE) throw new Error(`the page translated “${source}”, not “${SENTENCE}”`);
  const picks = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [stack, rows, layers] of [
      ['decoder', trace.tgtTokens.length - 1, config.nDecoderLayers],
      ['encoder', trace.srcTokens.length, config.nEncoderLayers],
    ]) {
      for (let layer = 0; layer < layers; layer++) for (let position = 0; position < rows; position++) picks.push([stack, layer, position]);
    }
  }
  // Let the page finish drawing its other views before the first pick.
  await page.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 2000 })));
  const drawn = [];
  const times = [];
  for (const pick of picks) {
    const [ready, frame] = await page.evaluate(timePick, pick);
    drawn.push(ready);
    times.push(frame);
  }
  const frame = stats(times);
  const view = stats(drawn);
  const load = loadavg()[0].toFixed(1);
  console.log('| journey view, en-zh, CPU module | picks | median | p95 | max | budget | | load |\n|---|---|---|---|---|---|---|---|');
  console.log(
    `| another token or layer → redrawn (next frame) | ${times.length} | ${ms(frame.median)} | ${ms(frame.p95)} | ${ms(frame.max)} | < ${BUDGET_MS} ms | ${frame.p95 < BUDGET_MS ? 'met (p95)' : 'missed (p95)'} | ${load} |`,
  );
  console.log(
    `| … of which until the view is ready (drawn) | ${drawn.length} | ${ms(view.median)} | ${ms(view.p95)} | ${ms(view.max)} | | | |`,
  );
  mkdirSync(join(root, 'benches/out'), { recursive: true });
  const out = { picks, times, drawn, load: loadavg(), date: new Date().toISOString() };
  writeFileSync(join(root, 'benches/out/journey.json'), `${JSON.stringify(out, null, 2)}\n`);
} finally {
  await browser.close();
  server.close();
}

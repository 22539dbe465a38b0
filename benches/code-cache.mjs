#!/usr/bin/env node
// Whether V8 keeps the CPU module's compiled code between visits (its wasm code cache), and what
// that does to the next load. Without it, each load compiles the functions it runs as they are
// first called (Liftoff, on the worker's thread), then runs them on that baseline code: the
// model's session and the first translation take longest on the first visit of a worker.
//
// The page in a persistent profile (Playwright's other contexts are off the record: Chromium
// keeps no code cache for them, so benches/first-heatmap.mjs never sees one): a first visit, a
// reload (the browser's HTTP cache now holds the module, www/worker/cache.js fromHttpCache), then
// the page left open until the profile's `Code Cache/wasm` folder holds an entry (polled every
// 30 s, for at most STAY_MIN minutes), then RELOADS reloads. Prints each load's first heatmap and
// the worker's `init: session` (www/worker/handlers.js), and when the cache was written. Figures
// are reported, never asserted.
//
//   node benches/code-cache.mjs [MODEL]     (MODEL: en-zh; after scripts/build-wasm.sh)
//
// Environment: STAY_MIN (20), RELOADS (3), TIMEOUT0=1 (Chromium started with
// --js-flags=--wasm-caching-timeout-ms=0: V8 caches as soon as code is optimised, which shows the
// effect in seconds where the default takes minutes).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/harness.mjs';
import { firstHeatmap } from './page-timing.mjs';

const model = process.argv[2] || 'en-zh';
const STAY_MS = Number(process.env.STAY_MIN || 20) * 60_000;
const RELOADS = Number(process.env.RELOADS || 3);
const args = process.env.TIMEOUT0 === '1' ? [...CHROMIUM_ARGS, '--js-flags=--wasm-caching-timeout-ms=0'] : CHROMIUM_ARGS;

const server = makeServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const profile = mkdtempSync(join(tmpdir(), 'attnscope-code-cache-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', args });

/** Entries in the profile's wasm code cache (its index files aside). */
function cacheEntries() {
  try {
    return readdirSync(join(profile, 'Default', 'Code Cache', 'wasm')).filter((name) => /_\d+$/.test(name)).length;
  } catch {
    return 0;
  }
}

/** The load's first heatmap (ms from navigation) and the worker's `init: session` (ms). */
async function figures(page) {
  const first = await firstHeatmap(page);
  let session = null;
  for (const worker of page.workers()) {
    session ??= await worker.evaluate(() => performance.getEntriesByName('init: session')[0]?.duration ?? null);
  }
  return `first heatmap ${Math.round(first)} ms, init: session ${session == null ? '?' : Math.round(session)} ms`;
}

try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${origin}/?model=${model}&backend=cpu`);
  console.log(`first visit: ${await figures(page)}; cache entries ${cacheEntries()}`);
  await page.reload();
  console.log(`reload, before V8 cached its code: ${await figures(page)}; cache entries ${cacheEntries()}`);
  const start = Date.now();
  while (!cacheEntries() && Date.now() - start < STAY_MS) await page.waitForTimeout(30_000);
  const waited = Math.round((Date.now() - start) / 1000);
  console.log(
    cacheEntries() ? `V8 wrote its code cache ${waited} s after that reload (polled every 30 s)` : `no code cache after ${waited} s`,
  );
  for (let i = 0; i < RELOADS; i++) {
    await page.reload();
    console.log(`reload ${i + 1} after: ${await figures(page)}; cache entries ${cacheEntries()}`);
    await page.waitForTimeout(3000);
  }
} finally {
  await context.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}

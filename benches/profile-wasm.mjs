#!/usr/bin/env node
// Where the CPU wasm module's time goes, by function (self time), for one stage of the page's
// calls on a shipped model: the DevTools profiler (through CDP) around `n` repetitions in headless
// Chromium. It profiles a copy of the module that keeps its function names (wasm-bindgen without
// --remove-name-section, no wasm-opt), written to benches/out/prof-pkg from the release build that
// scripts/build-wasm.sh made; the shipped module is the same code, optimised by wasm-opt -O1.
//
//   node benches/profile-wasm.mjs [STAGE...]     STAGE: load, encode, step, translate, answer (all but load)
//
// Environment: MODEL (en-zh), or DIR (a model folder under benches/out, e.g.
// benches/out/random-base-160), TOKENS (32: the bench's sentence of that many source tokens),
// N (200) repetitions.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/harness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const raw = join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'wasm32-unknown-unknown/release/attnscope.wasm');
const pkg = join(root, 'benches/out/prof-pkg');
if (!existsSync(raw)) throw new Error(`${raw} is missing: run scripts/build-wasm.sh first`);
mkdirSync(pkg, { recursive: true });
execFileSync('wasm-bindgen', ['--target', 'web', '--out-name', 'attnscope', '--out-dir', pkg, raw], { stdio: 'inherit' });

const model = process.env.MODEL || 'en-zh';
const n = Number(process.env.N || 200);
const stages = process.argv.slice(2).length ? process.argv.slice(2) : ['encode', 'step', 'translate', 'answer'];

const server = makeServer([
  ['/bench/', join(root, 'benches/web')],
  ['/prof-pkg/', pkg],
  ['/bench-out/', join(root, 'benches/out')],
]);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
const page = await browser.newPage();
const dir = process.env.DIR ? `/bench-out/${relative(join(root, 'benches/out'), resolve(root, process.env.DIR))}` : '';
await page.goto(`http://127.0.0.1:${server.address().port}/bench/profile.html?${new URLSearchParams({ model, ...(dir && { dir }) })}`);
await page.waitForFunction(() => window.__profile?.session, null, { timeout: 60_000 });
// The bench's sentence of that many source tokens (benches/web/sentences.json).
const tokens = Number(process.env.TOKENS || 32);
const text = await page.evaluate((n) => window.__profile.sentence(n), tokens);
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 100 });

/** Self time per function name from a CDP profile, largest first. */
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map();
  const dt = new Map();
  profile.samples.forEach((id, i) => {
    dt.set(id, (dt.get(id) || 0) + (profile.timeDeltas[i] || 0));
  });
  let total = 0;
  for (const [id, us] of dt) {
    const frame = byId.get(id).callFrame;
    const name = frame.functionName || `(${frame.url ? 'anonymous' : 'program'})`;
    hits.set(name, (hits.get(name) || 0) + us);
    total += us;
  }
  return { total, rows: [...hits].sort((a, b) => b[1] - a[1]) };
}

console.log(`model ${process.env.DIR || model}, the bench's ${tokens}-token sentence; ${n} repetitions per stage; self time by function`);
for (const stage of stages) {
  await page.evaluate((t) => window.__profile.prepare(t), text);
  await page.evaluate(([s, t]) => window.__profile.run(s, t, 3), [stage, text]);
  await page.evaluate((t) => window.__profile.prepare(t), text);
  await cdp.send('Profiler.start');
  const mean = await page.evaluate(([s, t, k]) => window.__profile.run(s, t, k), [stage, text, n]);
  const { profile } = await cdp.send('Profiler.stop');
  const { total, rows } = selfTimes(profile);
  console.log(`\n## ${stage}: ${mean.toFixed(3)} ms a call (profiled)\n`);
  console.log('| self % | function |\n|---|---|');
  for (const [name, us] of rows.slice(0, 25)) console.log(`| ${((100 * us) / total).toFixed(1)} | \`${name.slice(0, 110)}\` |`);
}
await browser.close();
server.close();

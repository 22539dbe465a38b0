#!/usr/bin/env node
// Translate time on the page's CPU wasm module, per shipped model: a 12-word sentence (12 words
// of English for en-zh, its 12-word Chinese counterpart for zh-en, a long date for date-iso)
// translated 30 times after 3 warm-up runs, through the page's own worker call (tokenize,
// encode, greedy decode with the cache, read every attention matrix back, build the answer).
// Prints a markdown table and writes benches/out/translate.json. Timings are reported, never
// asserted.
//
//   node benches/translate.mjs            (after scripts/build-wasm.sh)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/harness.mjs';
import { medianP95, timeTranslations } from './page-timing.mjs';

const SENTENCES = {
  'en-zh': 'My father and I often eat apples and drink tea after dinner.',
  'zh-en': '我爸爸和我晚饭后常常吃苹果喝茶。',
  'date-iso': 'Tuesday, the 21st of September 1999',
};
const RUNS = Number(process.env.RUNS || 30);

const root = fileURLToPath(new URL('..', import.meta.url));
const server = makeServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
const results = { date: new Date().toISOString(), chromium: browser.version(), runs: RUNS, models: [] };
try {
  for (const [model, text] of Object.entries(SENTENCES)) {
    const page = await browser.newPage();
    await page.goto(`${origin}/?test&model=${model}&backend=cpu`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 300_000 });
    const times = await timeTranslations(page, text, RUNS);
    const output = await page.evaluate(async (text) => (await window.__attnscope.call('translate', { gen: 3e9, text })).trace.output, text);
    results.models.push({ model, text, output, ...medianP95(times), runs: times.length });
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
console.log('| model | sentence | output | median | p95 |\n|---|---|---|---|---|');
for (const r of results.models)
  console.log(`| ${r.model} | ${r.text} | ${r.output} | ${r.median.toFixed(1)} ms | ${r.p95.toFixed(1)} ms |`);
mkdirSync(join(root, 'benches/out'), { recursive: true });
writeFileSync(join(root, 'benches/out/translate.json'), JSON.stringify(results, null, 1));

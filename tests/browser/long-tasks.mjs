// Main-thread long tasks in the real page, for the large-model test (which reports them) and the
// phases bench (which holds them to their budget): a page that records every long task from its
// start, opening a model folder through the page, and the long tasks of one phase; and the large
// model they open.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitSettled } from './harness.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * The large model of these checks, `attnscope random views` (6 + 6 layers × 8 heads, up to 130
 * tokens), written to `folder`; returns a sentence of `words` words its source tokenizer knows
 * (word level, lower case: each one token).
 */
export function makeLargeModel(folder, words = 127) {
  execFileSync(join(ROOT, 'target/release/attnscope'), ['random', 'views', '--out', folder, '--max-len', '130'], { cwd: ROOT });
  const vocab = JSON.parse(readFileSync(join(folder, 'src_tokenizer.json'), 'utf8')).model.vocab;
  const known = Object.keys(vocab)
    .filter((word) => /^[a-z]{3,}$/.test(word))
    .sort();
  return Array.from({ length: words }, (_, i) => known[(i * 37) % known.length]).join(' ');
}

/** A page of the default model on the CPU in a fresh context, recording every long task from its start. */
export async function openRecordingPage(browser, origin) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await context.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, ms: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${origin}/?test&backend=cpu`);
  await waitSettled(page);
  return { page, errors };
}

/**
 * Open a model with "Open model folder…" (`folder`) or "Open model…" (`files`), and wait until the
 * model named `name` in its config shows its example in every view.
 */
export async function openModel(page, { folder, files }, name) {
  const choosing = page.waitForEvent('filechooser');
  await page.click(folder ? '#open-model-folder' : '#open-model');
  await (await choosing).setFiles(folder ?? files);
  await page.waitForFunction(
    (model) => {
      const s = window.__attnscope.state;
      return document.body.dataset.model === model && s.trace?.model === s.config.name && document.body.dataset.ready === 'true';
    },
    `local:${name}`,
    { timeout: 60_000 },
  );
  await waitSettled(page);
}

/**
 * Run `body` and return the long tasks that started meanwhile (their durations in ms). A long task
 * is reported once it has ended: the phase ends two frames and a moment after `body`.
 */
export async function longTasksDuring(page, body) {
  const start = await page.evaluate(() => performance.now());
  await body();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 200)))));
  return page.evaluate((from) => window.__longTasks.filter((task) => task.start >= from).map((task) => Math.round(task.ms)), start);
}

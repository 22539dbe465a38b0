// The visitor benchmark (www/bench.html, docs/bench.md) in its quick mode (`?quick`: date-iso,
// 8 source tokens, two runs after one warm-up, two runs of two training steps): the CPU and the
// WebGPU rows (SwiftShader here) fill with timings, onnxruntime-web's row says "not present" where
// the server does not serve its files, the Markdown copied holds every row and the machine, no
// request leaves the origin; without WebGPU, its rows say why and the CPU's still fill. The page
// opens in the visitor's language, and the main page never loads the benchmark's modules.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, servePage, withBrowser, withPage } from './harness.mjs';

const site = servePage();
const WWW = fileURLToPath(new URL('../../www/', import.meta.url));
const ROWS = {
  translate: ['translate/date-iso/8/cpu', 'translate/date-iso/8/webgpu', 'translate/date-iso/8/ort'],
  train: ['train/cpu', 'train/webgpu'],
};

/** Open bench.html?quick, run it to the end: the rows as the page shows them, and its status. */
async function runQuick(page) {
  await page.waitForFunction(() => document.body.dataset.bench === 'idle', null, { timeout: 30_000 });
  await page.click('#run');
  await page.waitForFunction(() => ['done', 'failed'].includes(document.body.dataset.bench), null, { timeout: 120_000 });
  return page.evaluate(() => ({
    bench: document.body.dataset.bench,
    status: document.getElementById('status').textContent,
    rows: [...document.querySelectorAll('table.bench tbody tr')].map((tr) => ({
      id: tr.dataset.id,
      state: tr.dataset.state,
      cells: [...tr.cells].map((td) => td.textContent),
      ms: [...tr.cells].filter((td) => td.dataset.ms != null).map((td) => Number(td.dataset.ms)),
    })),
  }));
}

const row = (shown, id) => shown.rows.find((r) => r.id === id);

/** Both timings of a translation row, and the one of a training row, are positive and finite. */
function assertTimed(shown, id, count) {
  const r = row(shown, id);
  assert.equal(r.state, 'done', `${id}: ${r.cells.join(' | ')}`);
  assert.equal(r.ms.length, count, id);
  for (const value of r.ms) assert.ok(Number.isFinite(value) && value > 0, `${id}: ${value}`);
}

/** What the test server serves of onnxruntime-web (www/bench/ort.js): its package, and date-iso's export. */
async function ortServed() {
  const served = async (path) => (await fetch(`${site.origin}${path}`, { method: 'HEAD' })).ok;
  return { runtime: await served('/vendor/ort/ort.wasm.min.mjs'), exported: await served('/bench-out/date-iso/export.json') };
}

test('bench.html?quick fills the CPU and WebGPU rows and copies them as Markdown', { timeout: 180_000 }, () =>
  withPage(
    site.origin,
    'bench.html?quick',
    async ({ context, page, offOrigin, consoleErrors, cspViolations }) => {
      const shown = await runQuick(page);
      assert.equal(shown.bench, 'done', shown.status);
      assert.deepEqual(
        shown.rows.map((r) => r.id),
        [...ROWS.translate, ...ROWS.train],
      );
      for (const id of ROWS.translate.slice(0, 2)) assertTimed(shown, id, 2);
      for (const id of ROWS.train) assertTimed(shown, id, 1);
      // The same sentence, the same greedy tokens on both engines: 8 source tokens.
      assert.equal(row(shown, ROWS.translate[0]).cells[1], '8');
      assert.equal(row(shown, ROWS.translate[0]).cells[3], row(shown, ROWS.translate[1]).cells[3]);
      assert.equal(row(shown, ROWS.translate[1]).cells.at(-1), '');
      const ort = row(shown, ROWS.translate[2]);
      const { runtime, exported } = await ortServed();
      if (runtime && exported) assertTimed(shown, ROWS.translate[2], 2);
      else {
        const note = runtime ? 'not present (no ONNX export of this model is served)' : 'not present';
        assert.deepEqual([ort.state, ort.cells.at(-1)], ['absent', note]);
      }

      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.origin });
      await page.click('#copy');
      await page.waitForFunction(() => document.getElementById('status').textContent === 'Copied.');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      const cpus = await page.evaluate(() => navigator.hardwareConcurrency);
      assert.ok(Number.isInteger(cpus) && cpus > 0, String(cpus));
      assert.ok(copied.includes(`\n- Logical CPUs (navigator.hardwareConcurrency): ${cpus}\n`), copied);
      assert.match(copied, /\n- WebGPU adapter: .*swiftshader/);
      assert.ok(copied.includes(`\n- Browser: ${await page.evaluate(() => navigator.userAgent)}\n`), copied);
      // Each row as the page shows it, cell by cell (a timing with its range), is a line of the table.
      const lines = copied.split('\n');
      for (const r of shown.rows) assert.ok(lines.includes(`| ${r.cells.join(' | ')} |`), `${r.id}: ${r.cells.join(' | ')} in\n${copied}`);
      assert.deepEqual(offOrigin, []);
      assert.deepEqual(cspViolations, []);
      assert.deepEqual(consoleErrors, []);
    },
    { test: false },
  ),
);

test('without WebGPU its rows say why, and the CPU rows still fill', { timeout: 120_000 }, () =>
  withBrowser(
    async (browser) => {
      const page = await browser.newPage();
      await page.goto(`${site.origin}/bench.html?quick&steps=1&trainReps=1`);
      const shown = await runQuick(page);
      assert.equal(shown.bench, 'done', shown.status);
      assertTimed(shown, ROWS.translate[0], 2);
      assertTimed(shown, ROWS.train[0], 1);
      // This Chromium keeps navigator.gpu with WebGPU off, and gives no adapter.
      const why = 'unavailable: the browser gave no WebGPU adapter';
      for (const id of [ROWS.translate[1], ROWS.train[1]])
        assert.deepEqual([row(shown, id).state, row(shown, id).cells.at(-1)], ['unavailable', why]);
      assert.equal(await page.textContent('#machine-adapter'), 'none (the browser gave no WebGPU adapter)');
    },
    CHROMIUM_ARGS.filter((arg) => arg !== '--enable-unsafe-webgpu').concat('--disable-features=WebGPU'),
  ),
);

test('bench.html opens in the visitor’s language, Chinese included', { timeout: 60_000 }, () =>
  withBrowser(async (browser) => {
    const context = await browser.newContext({ locale: 'zh-CN' });
    const page = await context.newPage();
    await page.goto(`${site.origin}/bench.html?quick`);
    await page.waitForFunction(() => document.body.dataset.bench === 'idle');
    const shown = await page.evaluate(() => ({
      lang: document.documentElement.lang,
      run: document.getElementById('run').textContent,
      copy: document.getElementById('copy').textContent,
      waiting: document.querySelector('#translate-table tbody tr td:last-child').textContent,
    }));
    assert.deepEqual(shown, { lang: 'zh-CN', run: '开始测试', copy: '复制为 Markdown', waiting: '等待中' });
    await page.goto(`${site.origin}/bench.html?quick&lang=en`);
    await page.waitForFunction(() => document.body.dataset.bench === 'idle');
    assert.equal(await page.textContent('#run'), 'Run the benchmark');
  }),
);

test('the main page never loads the benchmark', () => {
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
  // A module import, a dynamic import() or a <script src> of anything under www/bench/.
  const LOADS = /(?:\bimport\b[^;'"]*|\bimport\(\s*|<script[^>]*src=)['"][^'"]*\bbench\//;
  const loaders = files(WWW)
    .filter((file) => /\.(m?js|html)$/.test(file) && !file.startsWith(join(WWW, 'bench')))
    .filter((file) => LOADS.test(readFileSync(file, 'utf8')));
  assert.deepEqual(loaders, []);
  // bench.html does load it: the pattern finds what it is meant to.
  assert.ok(LOADS.test(readFileSync(join(WWW, 'bench.html'), 'utf8')));
});

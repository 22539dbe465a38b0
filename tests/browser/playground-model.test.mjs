// The playground's model in the page's views, and out of the page. Training reverse (seed 1)
// redraws the views as it goes: the snapshot shown moves through the run, the cross-attention of
// the example sentence changes, and at the end each output digit looks most at the source digit it
// copies (the reversal anti-diagonal). The model trained to ≥ 99 % held-out greedy exact match is
// downloaded as a zip, opened again in the page from its four files, and `attnscope translate`
// (the release binary, built by scripts/test.sh's cargo stage) writes what the page writes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { servePage, waitReady, withPage } from './harness.mjs';

const site = servePage();
const ATTNSCOPE = new URL('../../target/release/attnscope', import.meta.url).pathname;

/** What the page shows now: the snapshot's step, the output, and the example's cross-attention. */
const shown = (page) =>
  page.evaluate(() => {
    const { trace } = window.__attnscope.state;
    const cross = trace?.crossAttention;
    return {
      step: Number(document.body.dataset.snapshot),
      model: document.body.dataset.model,
      output: trace?.output ?? null,
      srcTokens: trace?.srcTokens ?? [],
      cross: cross ? { heads: cross.heads, queries: cross.queries, keys: cross.keys, data: Array.from(cross.data) } : null,
    };
  });

/** For each output row, the source position the heads' mean weight is largest on. */
function meanArgmax({ heads, queries, keys, data }) {
  const rows = [];
  for (let q = 0; q < queries; q++) {
    let best = 0;
    let bestWeight = -1;
    for (let k = 0; k < keys; k++) {
      let sum = 0;
      for (let h = 0; h < heads; h++) sum += data[(h * queries + q) * keys + k];
      if (sum > bestWeight) {
        bestWeight = sum;
        best = k;
      }
    }
    rows.push(best);
  }
  return rows;
}

test(
  'training reverse redraws every view from the model in training; the trained model downloads, reopens and translates as the CLI does',
  { timeout: 300_000 },
  () =>
    withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
      await waitReady(page);
      await page.click('#playground-details summary');
      await page.waitForSelector('#playground[data-ready="true"]', { timeout: 120_000 });
      await page.waitForFunction(
        () => document.body.dataset.model === 'local:playground-reverse' && document.body.dataset.snapshot === '0',
      );
      const example = await page.inputValue('#source-input');
      assert.match(example, /^\d( \d){3,7}$/, 'the run example is a row of 4 to 8 digits');
      const start = await shown(page);

      await page.click('#playground button.run-train');
      const steps = new Set();
      const outputs = new Set();
      while ((await page.getAttribute('#playground', 'data-state')) !== 'done') {
        const now = await shown(page);
        steps.add(now.step);
        outputs.add(now.output);
        await page.waitForTimeout(250);
      }
      await page.waitForFunction(() => document.body.dataset.snapshot === '1500', null, { timeout: 30_000 });
      const end = await shown(page);
      assert.ok(steps.size >= 6, `the views followed the run through ${[...steps].join(', ')}`);
      assert.ok(outputs.size >= 2, 'the output changed as the model learned');
      assert.notDeepEqual(end.cross.data, start.cross.data);

      // The reversal anti-diagonal: output digit i (row i) looks most at source digit n − 1 − i.
      const digits = example.split(' ').length;
      assert.equal(end.output, example.split(' ').reverse().join(' '));
      assert.deepEqual(
        meanArgmax(end.cross).slice(0, digits),
        [...Array(digits).keys()].map((i) => digits - 1 - i),
      );

      // The Heads panel speaks of the weights in training: the snapshot's heads.json, scored by the
      // training module over 32 held-out examples; the reversal's cross heads align.
      const study = await page.evaluate(() => window.__attnscope.state.headStudy);
      assert.equal(study.sentences, 32);
      const cross = study.heads.filter((h) => h.kind === 'cross');
      assert.equal(cross.length, 2);
      assert.ok(
        cross.some((h) => h.roles.includes('alignment')),
        JSON.stringify(cross.map((h) => h.roles)),
      );

      // The timeline keeps the run's power-of-two snapshots and its last step.
      const kept = await page.evaluate(() => window.__attnscope.state.timeline.snapshots.map((s) => s.step));
      assert.deepEqual(kept, [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1500]);

      const exact = await page.getAttribute('#playground [data-figure="exact"]', 'data-exact-match');
      assert.ok(Number(exact) >= 0.99, `held-out greedy exact match ${exact}`);

      // The native CLI's run of the same settings: other kernels, the same curve to a tolerance.
      const losses = await page.evaluate(() => Array.from(window.__attnscope.state.timeline.log.losses));
      assert.equal(losses.length, 1500);
      const args = ['playground', '--task', 'reverse', '--seed', '1', '--eval-every', '1500', '--json'];
      const native = JSON.parse(execFileSync(ATTNSCOPE, args, { encoding: 'utf8' })).steps.map((s) => s.loss);
      const gap = (n) => Math.max(...losses.slice(0, n).map((loss, i) => Math.abs(loss - native[i]) / Math.abs(native[i])));
      console.log(`page vs native, largest relative loss gap: first 10 steps ${gap(10)}, 100 ${gap(100)}, 1500 ${gap(1500)}`);
      assert.ok(gap(10) < 1e-6, `the first 10 steps agree: ${gap(10)}`);
      assert.ok(gap(100) < 1e-2, `the first 100 steps agree: ${gap(100)}`);

      // Download, unzip, translate with the CLI.
      const dir = mkdtempSync(join(tmpdir(), 'playground-'));
      try {
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#playground button.run-download')]);
        const zip = join(dir, download.suggestedFilename());
        await download.saveAs(zip);
        execFileSync('unzip', ['-q', zip, '-d', dir]);
        const folder = join(
          dir,
          readdirSync(dir).find((name) => !name.endsWith('.zip')),
        );
        const files = readdirSync(folder).sort();
        assert.deepEqual(files, ['config.json', 'model.safetensors', 'src_tokenizer.json', 'tgt_tokenizer.json']);
        const cli = execFileSync(ATTNSCOPE, ['translate', '--model', folder, example], { encoding: 'utf8' }).trim();
        assert.equal(cli, end.output);

        // The same settings again (Reset): the page repeats its curve bit for bit.
        await page.click('#playground button.run-reset');
        await page.waitForFunction(() => document.body.dataset.snapshot === '0');
        await page.click('#playground button.run-train');
        await page.waitForFunction(() => Number(document.body.dataset.snapshot) >= 300, null, { timeout: 60_000 });
        await page.click('#playground button.run-pause');
        const again = await page.evaluate(() => Array.from(window.__attnscope.state.timeline.log.losses));
        assert.ok(again.length >= 300);
        assert.deepEqual(again, losses.slice(0, again.length));

        // Reopen the four files in the page: the same output.
        await page.setInputFiles(
          '#model-files',
          files.map((name) => join(folder, name)),
        );
        await page.waitForFunction(
          () => document.body.dataset.model?.startsWith('local:') && document.body.dataset.model !== 'local:playground-reverse',
        );
        await page.fill('#source-input', example);
        await page.waitForFunction((want) => window.__attnscope.state.trace?.output === want, cli, { timeout: 30_000 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      assert.deepEqual(consoleErrors, []);
    }),
);

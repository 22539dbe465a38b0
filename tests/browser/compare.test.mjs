// Reading the heatmaps: two sentences compared cell by cell (B − A), the <s>/</s> attention sinks
// left out with every row renormalised, and the focused heatmap transposed (en-zh, CPU).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, servePage, waitOutput, waitReady, withPage } from './harness.mjs';

const site = servePage();

const A_TEXT = 'I love eating apples.';
const B_TEXT = 'I love eating oranges.';

/** Cross-attention, layer 0, head 0 (the page's default focus) of a worker answer, as rows. */
function crossHead(trace) {
  const s = trace.crossAttention;
  return Array.from({ length: s.queries }, (_, r) => Array.from(s.data.subarray(r * s.keys, (r + 1) * s.keys)));
}

/** Hover the centre of cell (r, c) of the heatmap under `root`; its exact value (data-value). */
async function valueAt(page, root, r, c) {
  const heatmap = page.locator(`${root} .heatmap`).first();
  const canvas = heatmap.locator('canvas.matrix');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const { rows, cols } = await heatmap.evaluate((el) => ({
    rows: el.querySelectorAll(':scope > .row-labels > span').length,
    cols: el.querySelectorAll(':scope > .col-labels > span').length,
  }));
  await page.mouse.move(box.x + ((c + 0.5) * box.width) / cols, box.y + ((r + 0.5) * box.height) / rows);
  await page.waitForFunction(([sel, cell]) => document.querySelector(`${sel} .heatmap`).dataset.cell === cell, [root, `${r},${c}`]);
  return Number(await heatmap.getAttribute('data-value'));
}

/** The focused heatmap's axis titles and labels. */
function focusAxes(page) {
  return page.evaluate(() => {
    const root = document.querySelector('#focus-heatmap .heatmap');
    const texts = (sel) => [...root.querySelectorAll(sel)].map((el) => el.textContent);
    return {
      rowTitle: root.querySelector(':scope > .row-title').textContent,
      colTitle: root.querySelector(':scope > .col-title').textContent,
      rowLabels: texts(':scope > .row-labels > span'),
      colLabels: texts(':scope > .col-labels > span'),
    };
  });
}

test('compare two sentences, leave out the attention sinks, transpose the focused heatmap', { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await waitReady(page);
    await waitOutput(page, () => document.body.dataset.output === '我爱吃苹果。');

    // --- Comparison: A is the sentence above, B is prefilled with one word changed.
    const compare = page.locator('#compare');
    await page.waitForFunction(() => document.getElementById('compare').dataset.ready === 'true', null, { timeout: 60_000 });
    assert.equal(await compare.locator('.compare-text').inputValue(), B_TEXT, 'B is prefilled with one word changed');
    assert.equal(await compare.locator('[data-side=a] .compare-output').textContent(), `“${A_TEXT}” → 我爱吃苹果。`);
    const bOutput = await compare.locator('[data-side=b] .compare-output').textContent();
    assert.ok(bOutput.startsWith(`“${B_TEXT}” → `) && bOutput.length > `“${B_TEXT}” → `.length, `B's output: ${bOutput}`);

    const answers = await page.evaluate(
      async (b) => ({
        a: (await window.__attnscope.call('answer')).trace,
        b: (await window.__attnscope.call('compare', { text: b })).trace,
      }),
      B_TEXT,
    );
    const a = crossHead(answers.a);
    const b = crossHead(answers.b);
    assert.ok(bOutput.endsWith(answers.b.output), 'the panel shows the worker’s answer for B');
    assert.equal(b.length, a.length, 'A and B have as many rows');
    assert.equal(b[0].length, a[0].length, 'A and B have as many columns');
    assert.equal(await compare.locator('[data-side=diff]').isVisible(), true, 'the difference heatmap is shown');
    assert.equal(await compare.locator('.compare-note').textContent(), '');
    for (const [r, c] of [
      [0, 0],
      [a.length - 1, 3],
      [3, 3],
    ]) {
      const shown = await valueAt(page, '#compare [data-side=diff]', r, c);
      const expected = b[r][c] - a[r][c];
      assert.ok(Math.abs(shown - expected) <= 1e-6, `B − A at (${r}, ${c}): shown ${shown}, expected ${expected}`);
    }
    await page.mouse.move(1, 1);
    await page.locator('section[aria-label=Comparison]').screenshot({ path: `${ARTIFACTS}screenshots/compare.png` });

    // A longer B: the shapes differ, and the panel says why there is no difference.
    await compare.locator('.compare-text').fill('I love eating apples and oranges.');
    await page.waitForFunction(() => /No difference shown/.test(document.querySelector('#compare .compare-note').textContent), null, {
      timeout: 30_000,
    });
    assert.equal(await compare.locator('[data-side=diff]').isVisible(), false);

    // --- Sinks: cross-attention keys end with </s>; leaving it out renormalises every row.
    const before = await focusAxes(page);
    assert.equal(before.colLabels.at(-1), '</s>');
    assert.equal(before.colLabels.length, a[0].length);
    const share = (100 * a.reduce((sum, row) => sum + row.at(-1), 0)) / a.length;
    const note = await page.locator('#focus-heatmap .sink-note').textContent();
    assert.ok(note.startsWith(`<s>/</s> took ${share.toFixed(1)} % of this head's attention`), `sink note: ${note}`);
    assert.match(note, /park their attention on a token that is always there/);
    const thumbWidth = () =>
      page.locator('#model-view button[data-kind=cross][data-layer="0"][data-head="0"] canvas').evaluate((c) => c.style.width);
    const thumbBefore = await thumbWidth();

    await page.check('#hide-sinks');
    await page.waitForFunction(
      (n) => document.querySelectorAll('#focus-heatmap .col-labels span').length === n - 1 && document.body.dataset.ready === 'true',
      before.colLabels.length,
    );
    const hidden = await focusAxes(page);
    assert.deepEqual(hidden.colLabels, before.colLabels.slice(0, -1), 'only the </s> column is gone');
    assert.deepEqual(hidden.rowLabels, before.rowLabels);
    const rows = hidden.rowLabels.length;
    const cols = hidden.colLabels.length;
    for (let r = 0; r < rows; r++) {
      let sum = 0;
      for (let c = 0; c < cols; c++) {
        const value = await valueAt(page, '#focus-heatmap', r, c);
        const expected = a[r][c] / a[r].slice(0, -1).reduce((x, y) => x + y, 0);
        assert.ok(Math.abs(value - expected) < 1e-5, `renormalised (${r}, ${c}): ${value} vs ${expected}`);
        sum += value;
      }
      assert.ok(Math.abs(sum - 1) <= 1e-5, `row ${r} sums to ${sum}`);
    }
    const thumbHidden = await thumbWidth();
    assert.equal(thumbHidden, `${Math.round((cols * 64) / Math.max(rows, cols))}px`, 'the model view leaves the column out too');
    assert.notEqual(thumbHidden, thumbBefore);
    await page.mouse.move(1, 1);
    await page.locator('section[aria-label="Focused heatmap"]').screenshot({ path: `${ARTIFACTS}screenshots/sinks.png` });

    await page.uncheck('#hide-sinks');
    await page.waitForFunction((n) => document.querySelectorAll('#focus-heatmap .col-labels span').length === n, before.colLabels.length);

    // --- Transpose: keys down the side, queries along the top.
    assert.match(before.rowTitle, /^query ↓ \(/);
    assert.match(before.colTitle, /^key → \(source token\)$/);
    await page.click('#focus-heatmap button.transpose');
    await page.waitForFunction(() => document.getElementById('focus-heatmap').dataset.transposed === 'true');
    const flipped = await focusAxes(page);
    assert.equal(flipped.rowTitle, before.colTitle.replace('→', '↓'));
    assert.equal(flipped.colTitle, before.rowTitle.replace('↓', '→'));
    assert.deepEqual(flipped.rowLabels, before.colLabels);
    assert.deepEqual(flipped.colLabels, before.rowLabels);
    // Cell (key 1, query 2) holds what cell (query 2, key 1) held.
    assert.equal(await valueAt(page, '#focus-heatmap', 1, 2), a[2][1]);
    await page.mouse.move(1, 1);
    await page.locator('section[aria-label="Focused heatmap"]').screenshot({ path: `${ARTIFACTS}screenshots/transposed.png` });
    await page.click('#focus-heatmap button.transpose');
    assert.deepEqual(await focusAxes(page), before, 'transposing twice gives the heatmap back');
    assert.deepEqual(consoleErrors, []);
  }),
);

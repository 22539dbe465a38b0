// Linked hover: hovering a cell or a label of the focused heatmap lights exactly the tokens
// labelled there, on the token lines and in every other heatmap that shows them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { servePage, waitOutput, waitReady, withPage } from './harness.mjs';

const site = servePage();

// Which token line each axis belongs to, and which token row i stands for: cross-attention row i
// is labelled with the token it produced, output token i + 1.
const AXES = {
  encoderSelf: { rowSide: 'src', colSide: 'src', rowToken: (i) => i },
  decoderSelf: { rowSide: 'tgt', colSide: 'tgt', rowToken: (i) => i },
  cross: { rowSide: 'tgt', colSide: 'src', rowToken: (i) => i + 1 },
};

/** The lit chips of both token lines, and the lit labels of every other heatmap. */
function litState(page) {
  return page.evaluate(() => {
    const lit = (elements) => [...elements].flatMap((el, index) => (el.classList.contains('lit') ? [{ index, text: el.textContent }] : []));
    return {
      src: lit(document.querySelectorAll('#source-tokens .token')),
      tgt: lit(document.querySelectorAll('#output-tokens .token')),
      others: [...document.querySelectorAll('.heatmap')]
        .filter((heatmap) => !heatmap.closest('#focus-heatmap'))
        .map((heatmap) => ({
          stage: heatmap.closest('figure')?.dataset.stage ?? null,
          rows: lit(heatmap.querySelectorAll(':scope > .row-labels > span')),
          cols: lit(heatmap.querySelectorAll(':scope > .col-labels > span')),
        })),
    };
  });
}

/** Move the pointer off every view and check that nothing stays lit. */
async function unhover(page) {
  await page.mouse.move(1, 1);
  const state = await litState(page);
  assert.deepEqual([...state.src, ...state.tgt], [], 'a token stays lit after the pointer left');
  for (const other of state.others) assert.deepEqual([...other.rows, ...other.cols], [], 'a label stays lit after the pointer left');
}

/**
 * Check what a hover lit. `expected`: { src: [[chip index, text]...], tgt: [...] } on the token
 * lines; `stageRows` / `stageCols`: the label indices lit in each stage heatmap (same kind and
 * labels as the focused one). Every label lit anywhere else must name one of the hovered tokens.
 */
function checkLit(state, expected, stageRows, stageCols, what) {
  for (const side of ['src', 'tgt']) {
    const want = (expected[side] || []).map(([index, text]) => ({ index, text }));
    assert.deepEqual(state[side], want, `${what}: lit ${side} tokens`);
  }
  const texts = new Set([...(expected.src || []), ...(expected.tgt || [])].map(([, text]) => text));
  const stages = state.others.filter((other) => other.stage);
  assert.equal(stages.length, 5, `${what}: the five stage heatmaps`);
  for (const other of stages) {
    assert.deepEqual(
      other.rows.map((l) => l.index),
      stageRows,
      `${what}: lit rows of the ${other.stage} stage`,
    );
    assert.deepEqual(
      other.cols.map((l) => l.index),
      stageCols,
      `${what}: lit columns of the ${other.stage} stage`,
    );
  }
  for (const other of state.others) {
    for (const label of [...other.rows, ...other.cols]) assert.ok(texts.has(label.text), `${what}: “${label.text}” lit in another heatmap`);
  }
}

const sorted = (xs) => [...new Set(xs)].sort((a, b) => a - b);

for (const kind of Object.keys(AXES)) {
  test(`hover on the ${kind} heatmap lights exactly the tokens labelled there`, { timeout: 120_000 }, () =>
    withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
      await waitReady(page);
      await waitOutput(page, () => document.body.dataset.output === '我爱吃苹果。');
      await page.selectOption('#kind-select', kind);
      await page.waitForFunction(
        (k) =>
          document.body.dataset.ready === 'true' &&
          document.getElementById('focus-heatmap').dataset.kind === k &&
          document.getElementById('stages').dataset.kind === k,
        kind,
      );
      const { rowSide, colSide, rowToken } = AXES[kind];
      const focus = page.locator('#focus-heatmap');
      const rowLabels = await focus.locator('.row-labels span').allTextContents();
      const colLabels = await focus.locator('.col-labels span').allTextContents();
      const sideTokens = {
        src: await page.locator('#source-tokens .token').allTextContents(),
        tgt: await page.locator('#output-tokens .token').allTextContents(),
      };
      assert.ok(rowLabels.length >= 3 && colLabels.length >= 3, `${kind}: ${rowLabels.length} × ${colLabels.length}`);
      if (kind === 'cross') assert.equal(rowLabels[0], '我', 'the first cross-attention row is the first produced token');
      // A self-attention label stands for a token that is both a row and a column of the stages.
      const self = rowSide === colSide;

      for (const r of sorted([0, rowLabels.length >> 1, rowLabels.length - 1])) {
        const what = `${kind}: row label ${r} “${rowLabels[r]}”`;
        await focus.locator('.row-labels span').nth(r).hover();
        assert.equal(sideTokens[rowSide][rowToken(r)], rowLabels[r], `${what}: the chip it maps to has its text`);
        checkLit(await litState(page), { [rowSide]: [[rowToken(r), rowLabels[r]]] }, [r], self ? [r] : [], what);
        await unhover(page);
      }

      for (const c of sorted([0, colLabels.length >> 1, colLabels.length - 1])) {
        const what = `${kind}: column label ${c} “${colLabels[c]}”`;
        await focus.locator('.col-labels span').nth(c).hover();
        checkLit(await litState(page), { [colSide]: [[c, colLabels[c]]] }, self ? [c] : [], [c], what);
        await unhover(page);
      }

      // Cells: off the diagonal, so a self-attention cell is about two different tokens.
      const canvas = focus.locator('canvas.matrix');
      const box = await canvas.boundingBox();
      const rows = rowLabels.length;
      const cols = colLabels.length;
      for (const [r, c] of [
        [rows - 1, 0],
        [rows >> 1, cols - 1],
        [0, 1],
      ]) {
        const what = `${kind}: cell (${r}, ${c}) “${rowLabels[r]} → ${colLabels[c]}”`;
        await page.mouse.move(box.x + ((c + 0.5) * box.width) / cols, box.y + ((r + 0.5) * box.height) / rows);
        const rowItem = [rowToken(r), rowLabels[r]];
        const colItem = [c, colLabels[c]];
        const expected = self
          ? { [rowSide]: [rowItem, colItem].sort((a, b) => a[0] - b[0]).filter((item, i, all) => i === 0 || item[0] !== all[i - 1][0]) }
          : { [rowSide]: [rowItem], [colSide]: [colItem] };
        const stageLines = self ? sorted([r, c]) : null;
        checkLit(await litState(page), expected, stageLines ?? [r], stageLines ?? [c], what);
        const hoverText = await page.locator('#hover-value').textContent();
        assert.ok(hoverText.startsWith(`${rowLabels[r]} → ${colLabels[c]}: `), `${what}: hover text ${hoverText}`);
        await unhover(page);
      }

      // Transposed: keys down the side, queries along the top. Cell (key c, query r) is about
      // the same two tokens as cell (r, c) was, and the hover text still reads query → key.
      await focus.locator('button.transpose').click();
      await page.waitForFunction(() => document.getElementById('focus-heatmap').dataset.transposed === 'true');
      assert.deepEqual(await focus.locator('.row-labels span').allTextContents(), colLabels, `${kind}: transposed row labels`);
      assert.deepEqual(await focus.locator('.col-labels span').allTextContents(), rowLabels, `${kind}: transposed column labels`);
      const flipped = await canvas.boundingBox();
      const [r, c] = [rows - 1, 0];
      const what = `${kind}: transposed cell (${c}, ${r}) “${colLabels[c]} ← ${rowLabels[r]}”`;
      await page.mouse.move(flipped.x + ((r + 0.5) * flipped.width) / rows, flipped.y + ((c + 0.5) * flipped.height) / cols);
      const rowItem = [rowToken(r), rowLabels[r]];
      const colItem = [c, colLabels[c]];
      const expected = self
        ? { [rowSide]: [rowItem, colItem].sort((x, y) => x[0] - y[0]) }
        : { [rowSide]: [rowItem], [colSide]: [colItem] };
      checkLit(await litState(page), expected, self ? sorted([r, c]) : [r], self ? sorted([r, c]) : [c], what);
      const lit = await page.evaluate(() => ({
        rows: [...document.querySelectorAll('#focus-heatmap .row-labels span.lit')].map((el) => el.textContent),
        cols: [...document.querySelectorAll('#focus-heatmap .col-labels span.lit')].map((el) => el.textContent),
      }));
      assert.deepEqual(lit, { rows: [colLabels[c]], cols: [rowLabels[r]] }, `${what}: its own lit labels`);
      const hoverText = await page.locator('#hover-value').textContent();
      assert.ok(hoverText.startsWith(`${rowLabels[r]} → ${colLabels[c]}: `), `${what}: hover text ${hoverText}`);
      await unhover(page);
      assert.deepEqual(consoleErrors, []);
    }),
  );
}

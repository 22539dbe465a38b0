// Linked hover: hovering a cell or a label of the focused heatmap lights exactly the tokens
// labelled there, on the token lines and in every other heatmap that shows them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { servePage, waitOutput, waitReady, waitSettled, withPage } from './harness.mjs';

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

/**
 * Count every drawing call on a heatmap's matrix canvas from now on (the page's hovers are on
 * `window.__attnscope.hovers`, www/testing/hooks.js).
 */
function watchDraws(page) {
  return page.evaluate(() => {
    window.__matrixDraws = [];
    const proto = CanvasRenderingContext2D.prototype;
    for (const name of ['putImageData', 'drawImage', 'fillRect', 'clearRect', 'strokeRect', 'fill', 'stroke', 'fillText']) {
      const original = proto[name];
      proto[name] = function (...args) {
        if (this.canvas?.classList?.contains('matrix')) window.__matrixDraws.push(`${this.canvas.closest('[id]')?.id} ${name}`);
        return original.apply(this, args);
      };
    }
  });
}

/**
 * The focused heatmap's overlay: what it says it outlines (data-rows, data-cols), and how many of
 * its pixels differ from exactly the 1 px accent outlines of row `r` and column `c` (all clear
 * when r is null), with the matrix's cell size and the colour of the outlines.
 */
function overlayCheck(page, r, c) {
  return page.evaluate(
    ([row, col]) => {
      const heatmap = document.querySelector('#focus-heatmap .heatmap');
      const overlay = heatmap.querySelector('canvas.marks');
      const matrix = heatmap.querySelector('canvas.matrix');
      const { width, height } = overlay;
      const rows = heatmap.querySelectorAll(':scope > .row-labels > span').length;
      const cols = heatmap.querySelectorAll(':scope > .col-labels > span').length;
      const [ch, cw] = [height / rows, width / cols];
      const data = overlay.getContext('2d').getImageData(0, 0, width, height).data;
      const onOutline = (x, y, left, top, w, h) =>
        x >= left && x < left + w && y >= top && y < top + h && (x === left || x === left + w - 1 || y === top || y === top + h - 1);
      let wrong = 0;
      const colours = new Set();
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const k = 4 * (y * width + x);
          const want = row !== null && (onOutline(x, y, 0, row * ch, width, ch) || onOutline(x, y, col * cw, 0, cw, height));
          if (want !== data[k + 3] > 0) wrong += 1;
          if (data[k + 3] > 0) colours.add(`${data[k]},${data[k + 1]},${data[k + 2]},${data[k + 3]}`);
        }
      }
      return {
        rows: overlay.dataset.rows,
        cols: overlay.dataset.cols,
        wrong,
        colours: [...colours],
        sameBox: JSON.stringify(overlay.getBoundingClientRect()) === JSON.stringify(matrix.getBoundingClientRect()),
      };
    },
    [r, c],
  );
}

test(
  'a hover outlines exactly its row and column on the overlay, never redraws the matrix, and tells the bus which heatmap and cell',
  { timeout: 120_000 },
  () =>
    withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
      await waitReady(page);
      await waitOutput(page, () => document.body.dataset.output === '我爱吃苹果。');
      // The comparison's B comes from the worker in its own time: drawn before the watch starts.
      await page.waitForFunction(() => document.getElementById('compare').dataset.ready === 'true', null, { timeout: 60_000 });
      await waitSettled(page);
      const focus = page.locator('#focus-heatmap');
      const rows = await focus.locator('.row-labels span').count();
      const cols = await focus.locator('.col-labels span').count();
      const canvas = focus.locator('canvas.matrix');
      await canvas.scrollIntoViewIfNeeded();
      const box = await canvas.boundingBox();
      const pixels = () => canvas.evaluate((c) => c.toDataURL());
      const before = await pixels();
      await watchDraws(page);
      const lastHover = () => page.evaluate(() => window.__attnscope.hovers.at(-1));

      for (const [r, c] of [
        [rows - 1, 0],
        [rows >> 1, cols - 1],
        [0, 1],
      ]) {
        const what = `cell (${r}, ${c})`;
        await page.mouse.move(box.x + ((c + 0.5) * box.width) / cols, box.y + ((r + 0.5) * box.height) / rows);
        assert.deepEqual(
          await overlayCheck(page, r, c),
          { rows: String(r), cols: String(c), wrong: 0, colours: ['255,176,0,255'], sameBox: true },
          what,
        );
        assert.equal(await focus.locator('.heatmap').getAttribute('data-cell'), `${r},${c}`, what);
        const detail = await lastHover();
        assert.ok(detail, `${what}: the bus heard no hover`);
        assert.deepEqual({ view: detail.view, cell: detail.cell }, { view: 'focus-heatmap', cell: { row: r, col: c } }, `${what}: the bus`);
        assert.equal(detail.items.length, 2, `${what}: a query and a key token on the bus`);
        // Every other heatmap outlines what its labels light.
        const others = await page.evaluate(() =>
          [...document.querySelectorAll('.heatmap')]
            .filter((heatmap) => !heatmap.closest('#focus-heatmap'))
            .map((heatmap) => {
              const lit = (axis) =>
                [...heatmap.querySelectorAll(`:scope > .${axis}-labels > span`)]
                  .flatMap((span, i) => (span.classList.contains('lit') ? [i] : []))
                  .join(' ');
              const overlay = heatmap.querySelector('canvas.marks');
              return { labels: [lit('row'), lit('col')], overlay: [overlay.dataset.rows ?? '', overlay.dataset.cols ?? ''] };
            }),
        );
        assert.ok(
          others.some((other) => other.overlay.join('') !== ''),
          `${what}: another heatmap outlines the hovered tokens`,
        );
        for (const other of others) assert.deepEqual(other.overlay, other.labels, `${what}: an overlay and its lit labels`);
      }

      // Leaving: nothing outlined, and the bus says the focused heatmap was left.
      await page.mouse.move(1, 1);
      assert.deepEqual(await overlayCheck(page, null, null), { rows: '', cols: '', wrong: 0, colours: [], sameBox: true }, 'left');
      assert.deepEqual(await lastHover(), { items: [], view: 'focus-heatmap', cell: null }, 'left: the bus');

      // The keyboard's cell cursor announces the same way: the first key shows cell (0, 0), → moves it.
      await canvas.focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      assert.deepEqual(
        await overlayCheck(page, 0, 1),
        { rows: '0', cols: '1', wrong: 0, colours: ['255,176,0,255'], sameBox: true },
        'keys',
      );
      const keyed = await page.evaluate(() => window.__attnscope.hovers.filter((d) => d?.cell).map((d) => d.cell));
      assert.deepEqual(keyed.slice(-2), [
        { row: 0, col: 0 },
        { row: 0, col: 1 },
      ]);

      assert.deepEqual(await page.evaluate(() => window.__matrixDraws), [], 'a matrix canvas was drawn on during the hovers');
      assert.equal(await pixels(), before, 'the matrix canvas changed');
      assert.deepEqual(consoleErrors, []);
    }),
);

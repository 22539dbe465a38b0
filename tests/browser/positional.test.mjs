// The positional-encoding panel: the learner picks a dimension pair (from the list or with the
// keyboard), exactly that pair's sine and cosine are drawn bold and the others faint; hovering a
// point shows its position, dimension and value, checked here against the paper's formula with
// d_model read from the model; the panel follows the language, exports what it shows, and draws a
// learned table and a model without positional encoding too.
// Screenshots: artifacts/screenshots/positional.png, positional-phone.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  dotCurves,
  functionOf,
  layoutOf,
  pairColumns,
  pairOfColumn,
  referencePairs,
  shortNumber,
  turnOf,
  valueText,
} from '../../www/views/positional-data.js';
import { ARTIFACTS, download, exportButton, servePage, waitReady, withBrowser, withPage } from './harness.mjs';

const CONFIG = JSON.parse(readFileSync(new URL('../../models/en-zh/config.json', import.meta.url), 'utf8'));

/** The paper's PE(pos, dim) for width `d`: sin(pos / 10000^(2i/d)) in dim 2i, cos in dim 2i+1. */
function paperPE(pos, dim, d) {
  const i = Math.floor(dim / 2);
  const angle = pos / 10000 ** ((2 * i) / d);
  return dim % 2 ? Math.cos(angle) : Math.sin(angle);
}

/** How far `v` is from a rounding boundary of `digits` decimals, in units of the last decimal. */
const roundingMargin = (v, digits) => Math.abs(((Math.abs(v) * 10 ** digits) % 1) - 0.5);

/** The sinusoidal table, row-major [rows, d], in either layout (as src/model/positional.rs makes it). */
function paperTable(rows, d, layout) {
  const table = new Float32Array(rows * d);
  for (let pos = 0; pos < rows; pos++) {
    for (let i = 0; i < d / 2; i++) {
      const { first, second } = pairColumns(layout, d, i);
      table[pos * d + first] = paperPE(pos, 2 * i, d);
      table[pos * d + second] = paperPE(pos, 2 * i + 1, d);
    }
  }
  return table;
}

test('positional-data: layouts, pairs, frequencies, reference pairs and dot products', () => {
  const d = 8;
  const rows = 12;
  for (const layout of ['interleaved', 'split']) {
    const pe = { rows, cols: d, table: paperTable(rows, d, layout) };
    assert.equal(layoutOf(pe), layout, 'the layout is read off position 0');
    for (let i = 0; i < d / 2; i++) {
      const columns = pairColumns(layout, d, i);
      assert.equal(pairOfColumn(layout, d, columns.first), i);
      assert.equal(pairOfColumn(layout, d, columns.second), i);
      assert.deepEqual([functionOf(layout, d, columns.first), functionOf(layout, d, columns.second)], ['sin', 'cos']);
      const omega = 1 / 10000 ** ((2 * i) / d);
      const { frequency, wavelength } = turnOf(pe, columns);
      assert.ok(Math.abs(frequency - omega) < 1e-6, `pair ${i}: ω ${frequency} vs ${omega}`);
      assert.ok(Math.abs(wavelength - (2 * Math.PI) / omega) < 1e-3 * wavelength);
    }
  }
  assert.deepEqual(pairColumns('split', d, 1), { i: 1, first: 1, second: 5 });
  assert.deepEqual(referencePairs(96, 10), [0, 4, 16, 64, 95]);
  assert.deepEqual(referencePairs(96, 4), [0, 16, 64, 95]);
  assert.deepEqual(referencePairs(1, 0), []);
  // PE(t)·PE(t+Δ) of the paper's table: d/2 at Δ = 0, and the same for every t.
  const { starts, curves } = dotCurves({ rows, cols: d, table: paperTable(rows, d, 'interleaved') });
  assert.deepEqual(starts, [0, 5, 10]);
  assert.deepEqual(
    curves.map((c) => c.length),
    [6, 6, 2],
  );
  for (const curve of curves) {
    assert.ok(Math.abs(curve[0] - d / 2) < 1e-5);
    curve.forEach((v, delta) => {
      assert.ok(Math.abs(v - curves[0][delta]) < 1e-5, `Δ ${delta}`);
    });
  }
  assert.deepEqual([valueText(-0.0004), valueText(0.12345), valueText(-0.5)], ['0.000', '0.123', '-0.500']);
  assert.deepEqual([shortNumber(6.2832), shortNumber(57119.9), shortNumber(0.000114)], ['6.28', '57100', '0.000114']);
});

const site = servePage();
const PAIR = 7; // dims 14 (sin) and 15 (cos); the page shows pair 10 first

/** The curves' geometry as the page draws it (its own module) and the canvas's size on screen. */
const curveGeometry = (page) =>
  page.evaluate(async () => {
    const { FRAME, PLOT } = await import('/views/positional-plot.js');
    const canvas = document.querySelector('#positional canvas.positional-curves');
    return { frame: FRAME, plot: PLOT, width: canvas.getBoundingClientRect().width, dpr: canvas.width / PLOT.width };
  });

/** What the panel says it highlights: the pair, the bold columns and their legend lines. */
const highlighted = (page) =>
  page.evaluate(() => {
    const root = document.querySelector('#positional .positional-view');
    return {
      pair: root.dataset.pair,
      select: root.querySelector('select.positional-pair').value,
      columns: root.querySelector('canvas.positional-curves').dataset.highlight,
      legend: [...root.querySelectorAll('.positional-legend .highlight')].map((item) => [item.dataset.dim, item.textContent]),
      caption: root.querySelector('canvas.positional-curves').closest('figure').querySelector('figcaption').textContent,
    };
  });

/**
 * The 5 × 5 device pixels of the curves canvas around CSS point (x, y), as [r, g, b, alpha] each
 * (the canvas is transparent: a curve's pixel has its colour, and its opacity in alpha).
 */
const pixelsAround = (page, { x, y }, dpr) =>
  page.evaluate(
    ([px, py]) => {
      const canvas = document.querySelector('#positional canvas.positional-curves');
      const data = canvas.getContext('2d').getImageData(px - 2, py - 2, 5, 5).data;
      return Array.from({ length: 25 }, (_, k) => Array.from(data.slice(4 * k, 4 * k + 4)));
    },
    [Math.round(x * dpr), Math.round(y * dpr)],
  );

const hex = (colour) => [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16));
const near = (pixel, colour, tolerance) => colour.every((v, k) => Math.abs(pixel[k] - v) <= tolerance);

test('pick a pair: exactly its curves are bold, the others faint; hover reads position, dim and value', { timeout: 180_000 }, async () => {
  await withPage(site.origin, '?backend=cpu', async ({ page }) => {
    await waitReady(page);
    assert.equal(await page.evaluate(() => document.body.dataset.model), CONFIG.name);
    const d = CONFIG.d_model;
    const rows = CONFIG.max_len;
    const panel = page.locator('section[data-export=positional]');
    await panel.scrollIntoViewIfNeeded();
    assert.match(
      await panel.locator('canvas.positional-table').locator('..').locator('figcaption').textContent(),
      new RegExp(`${rows} positions .* ${d} dimensions`),
    );

    // The list: one entry a pair, with its wavelength and frequency.
    const select = panel.locator('select.positional-pair');
    const options = await select.locator('option').allTextContents();
    assert.equal(options.length, d / 2);
    const omega = 1 / 10000 ** ((2 * PAIR) / d);
    const wavelength = (2 * Math.PI) / omega;
    assert.ok(roundingMargin(omega * 1e3, 0) > 0.01 && roundingMargin(wavelength * 10, 0) > 0.01, 'no rounding boundary near');
    assert.equal(
      options[PAIR],
      `i = ${PAIR}: dims 14 (sin), 15 (cos) · wavelength ${shortNumber(wavelength)} · frequency ${shortNumber(omega)} rad/position`,
    );
    assert.equal(options[PAIR], 'i = 7: dims 14 (sin), 15 (cos) · wavelength 12.3 · frequency 0.511 rad/position');

    // Picked from the list: exactly dims 14 and 15 are bold.
    await select.selectOption(String(PAIR));
    let shown = await highlighted(page);
    assert.deepEqual([shown.pair, shown.select, shown.columns], ['7', '7', '14,15']);
    assert.deepEqual(shown.legend, [
      ['14', '━ dim 14 (sin, wavelength 12.3)'],
      ['15', '━ dim 15 (cos, wavelength 12.3)'],
    ]);
    assert.match(shown.caption, /^Pair i = 7, bold/);

    // With the keyboard: the next pair, then back.
    await select.focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('#positional .positional-view').dataset.pair === '8');
    assert.equal((await highlighted(page)).columns, '16,17');
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(() => document.querySelector('#positional .positional-view').dataset.pair === '7');
    shown = await highlighted(page);
    assert.equal(shown.columns, '14,15');

    // A position where the sine and cosine lie apart and no value sits on a rounding boundary.
    const position = [...Array(rows).keys()].find(
      (p) =>
        p > 4 &&
        Math.abs(paperPE(p, 14, d) - paperPE(p, 15, d)) > 0.8 &&
        [14, 15].every((dim) => roundingMargin(paperPE(p, dim, d), 3) > 0.01),
    );
    const geometry = await curveGeometry(page);
    const scale = geometry.width / geometry.plot.width;
    const at = (pos, value) => ({
      x: geometry.frame.left + (pos / (rows - 1)) * geometry.frame.width,
      y: geometry.frame.top + ((1 - value) / 2) * geometry.frame.height,
    });

    // The pixels: the sine opaque in the first series colour, the cosine in the second.
    const colours = await page.evaluate(() => {
      const style = getComputedStyle(document.documentElement);
      return ['--series-1', '--series-2', '--muted'].map((name) => style.getPropertyValue(name).trim());
    });
    const [sinColour, cosColour, muted] = colours.map(hex);
    for (const [dim, colour] of [
      [14, sinColour],
      [15, cosColour],
    ]) {
      const pixels = await pixelsAround(page, at(position, paperPE(position, dim, d)), geometry.dpr);
      assert.ok(
        pixels.some((p) => near(p, colour, 24) && p[3] >= 230),
        `dim ${dim} at position ${position} is drawn bold in ${colour}: ${JSON.stringify(pixels)}`,
      );
    }
    // A faint curve, the sine of another pair, where no other curve passes near: drawn in the
    // muted colour at under half opacity.
    const others = referencePairs(d / 2, PAIR);
    const dims = [14, 15, ...others.map((i) => 2 * i)];
    const alone = (p, dim) =>
      [p - 1, p, p + 1].every((q) => dims.every((other) => other === dim || Math.abs(paperPE(q, other, d) - paperPE(p, dim, d)) > 0.25));
    const faint = others
      .flatMap((i) => [...Array(rows).keys()].map((p) => ({ i, p, v: paperPE(p, 2 * i, d) })))
      .find(({ i, p, v }) => p > 2 && p < rows - 3 && Math.abs(v) > 0.2 && Math.abs(v) < 0.9 && alone(p, 2 * i));
    assert.ok(faint, 'a faint curve stands alone somewhere');
    const faintPixels = (await pixelsAround(page, at(faint.p, faint.v), geometry.dpr)).filter((p) => p[3] > 0);
    assert.ok(faintPixels.length > 0, `pair ${faint.i}'s sine is drawn at position ${faint.p}`);
    assert.ok(
      faintPixels.every((p) => near(p, muted, 24) && p[3] <= 0.45 * 255),
      `pair ${faint.i}'s sine is faint at position ${faint.p}: ${JSON.stringify(faintPixels)}`,
    );

    // Hover a point of each bold curve: position, dimension and the value, to 3 places.
    const canvas = panel.locator('canvas.positional-curves');
    const tooltip = page.locator('#tooltip');
    for (const [dim, fn] of [
      [15, 'cos'],
      [14, 'sin'],
    ]) {
      const point = at(position, paperPE(position, dim, d));
      await canvas.hover({ position: { x: point.x * scale, y: point.y * scale } });
      await page.waitForFunction(
        (want) => document.querySelector('#positional canvas.positional-curves').dataset.point === want,
        `${position},${dim}`,
      );
      const expected = `position ${position}, dim ${dim} (${fn}): ${paperPE(position, dim, d).toFixed(3)}`;
      assert.equal(await tooltip.textContent(), expected);
      assert.equal(await tooltip.isVisible(), true);
      assert.equal(await panel.locator('.positional-readout').textContent(), expected);
    }
    console.log(`# d_model ${d}: ${await tooltip.textContent()}`);
    await panel.screenshot({ path: `${ARTIFACTS}screenshots/positional.png` });

    // The exported SVG names the pair in its legend.
    const svg = await download(page, exportButton('positional', 'svg'));
    const text = svg.bytes.toString('utf8');
    assert.ok(text.includes('━ dim 14 (sin, wavelength 12.3)') && text.includes('━ dim 15 (cos, wavelength 12.3)'));

    // The keyboard on the curves, from the hovered point: → moves one position along the sine, ↓
    // switches to the cosine.
    const sinPoint = at(position, paperPE(position, 14, d));
    await canvas.hover({ position: { x: sinPoint.x * scale, y: sinPoint.y * scale } });
    await page.waitForFunction(
      (want) => document.querySelector('#positional canvas.positional-curves').dataset.point === want,
      `${position},14`,
    );
    await canvas.focus();
    await page.keyboard.press('ArrowRight');
    const keyed = `position ${position + 1}, dim 14 (sin): ${paperPE(position + 1, 14, d).toFixed(3)}`;
    await page.waitForFunction((want) => document.querySelector('#positional .positional-readout').textContent === want, keyed);
    await page.keyboard.press('ArrowDown');
    assert.equal(await canvas.getAttribute('data-point'), `${position + 1},15`);
    assert.equal(await tooltip.textContent(), `position ${position + 1}, dim 15 (cos): ${paperPE(position + 1, 15, d).toFixed(3)}`);

    // The table: hover a cell for its value, click it to pick its column's pair.
    const table = panel.locator('canvas.positional-table');
    const box = await table.boundingBox();
    const [row, col] = [30, 41];
    await table.hover({ position: { x: ((col + 0.5) * box.width) / d, y: ((row + 0.5) * box.height) / rows } });
    await page.waitForFunction(
      (want) => document.querySelector('#positional canvas.positional-table').dataset.cell === want,
      `${row},${col}`,
    );
    assert.equal(await tooltip.textContent(), `position ${row}, dim ${col} (cos): ${paperPE(row, col, d).toFixed(3)}`);
    await table.click({ position: { x: ((col + 0.5) * box.width) / d, y: ((row + 0.5) * box.height) / rows } });
    assert.equal((await highlighted(page)).columns, '40,41');

    // In Chinese: the same pair, its words translated.
    await select.selectOption(String(PAIR));
    await page.selectOption('#language-select', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    shown = await highlighted(page);
    assert.deepEqual([shown.pair, shown.columns], ['7', '14,15']);
    assert.equal(
      await select.locator('option').nth(PAIR).textContent(),
      'i = 7：第 14 维（sin）、第 15 维（cos）· 波长 12.3 · 频率 0.511 弧度/位置',
    );
    const point = at(position, paperPE(position, 14, d));
    await canvas.hover({ position: { x: point.x * scale, y: point.y * scale } });
    await page.waitForFunction(() => /^位置/.test(document.getElementById('tooltip').textContent));
    assert.equal(await tooltip.textContent(), `位置 ${position}，第 14 维（sin）：${paperPE(position, 14, d).toFixed(3)}`);
  });
});

test('a learned table is drawn as a table with pairs of dimensions; no encoding gets a message', { timeout: 120_000 }, async () => {
  await withPage(site.origin, '?backend=cpu', async ({ page }) => {
    await waitReady(page);
    // Six positions × four dimensions; each value says where it is: position / 2 − dimension / 4.
    const rows = 6;
    const cols = 4;
    const value = (pos, dim) => pos / 2 - dim / 4;
    const shown = await page.evaluate(
      async ([r, c]) => {
        const { createPositional } = await import('/views/positional.js');
        const box = document.createElement('div');
        box.id = 'positional-probe';
        document.body.append(box);
        const view = createPositional(box);
        view.render({ kind: 'none' });
        const none = {
          kind: box.firstElementChild.dataset.kind,
          message: box.querySelector('.positional-message').textContent,
          drawingsHidden: box.querySelector('.positional-controls').closest('[hidden]') !== null,
          figureTexts: [...view.figure().svg.querySelectorAll('text')].map((t) => t.textContent).join(' '),
        };
        const table = Float32Array.from({ length: r * c }, (_, k) => Math.floor(k / c) / 2 - (k % c) / 4);
        view.render({ kind: 'learned', rows: r, cols: c, table });
        const figure = view.figure();
        return {
          none,
          kind: box.firstElementChild.dataset.kind,
          options: [...box.querySelectorAll('select.positional-pair option')].map((o) => o.textContent),
          highlight: box.querySelector('canvas.positional-curves').dataset.highlight,
          legend: [...box.querySelectorAll('.positional-legend span')].map((s) => s.textContent),
          captions: [...box.querySelectorAll('figcaption')].map((f) => f.textContent),
          cells: figure.svg.querySelectorAll('rect.cell').length,
        };
      },
      [rows, cols],
    );
    assert.equal(shown.none.kind, 'none');
    assert.match(shown.none.message, /^This model adds no positional encoding\./);
    assert.equal(shown.none.drawingsHidden, true);
    assert.match(shown.none.figureTexts, /no positional encoding/);
    assert.equal(shown.kind, 'learned');
    assert.deepEqual(shown.options, ['dims 0, 1', 'dims 2, 3']);
    assert.equal(shown.highlight, '0,1');
    assert.deepEqual(shown.legend, ['━ dim 0', '━ dim 1', '━ faint: dims 2']);
    assert.deepEqual(shown.captions, [
      'Dims 0 and 1 of the learned table, bold. Faint: other dimensions',
      'The learned table: 6 positions (rows) × 4 dimensions (columns), −2.5 blue … +2.5 red',
      'PE(t)·PE(t+Δ) for four starting positions t: a learned table need not make them coincide',
    ]);
    assert.equal(shown.cells, rows * cols, 'the exported table has one cell a value');

    const probe = page.locator('#positional-probe');
    await probe.scrollIntoViewIfNeeded();
    await probe.locator('select.positional-pair').selectOption('1');
    assert.equal(await probe.locator('canvas.positional-curves').getAttribute('data-highlight'), '2,3');
    const table = probe.locator('canvas.positional-table');
    const box = await table.boundingBox();
    await table.hover({ position: { x: (3.5 * box.width) / cols, y: (4.5 * box.height) / rows } });
    await page.waitForFunction(() => document.querySelector('#positional-probe canvas.positional-table').dataset.cell === '4,3');
    assert.equal(await page.locator('#tooltip').textContent(), `position 4, dim 3: ${value(4, 3).toFixed(3)}`);
  });
});

test('phone: the panel fits the screen, and a tap on the curves reads the point tapped', { timeout: 120_000 }, async () => {
  await withBrowser(async (browser) => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(`${site.origin}/?backend=cpu`);
    await waitReady(page);
    const d = CONFIG.d_model;
    const rows = CONFIG.max_len;
    const panel = page.locator('section[data-export=positional]');
    await panel.scrollIntoViewIfNeeded();
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'no sideways scrolling');
    for (const selector of ['select.positional-pair', 'canvas.positional-curves', 'canvas.positional-table', 'canvas.positional-dots']) {
      const box = await panel.locator(selector).boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `${selector} fits: ${JSON.stringify(box)}`);
    }
    const canvas = panel.locator('canvas.positional-curves');
    const geometry = await curveGeometry(page);
    const scale = geometry.width / geometry.plot.width;
    const shown = await highlighted(page);
    const [sin] = shown.columns.split(',').map(Number);
    const position = 21;
    const x = geometry.frame.left + (position / (rows - 1)) * geometry.frame.width;
    const y = geometry.frame.top + ((1 - paperPE(position, sin, d)) / 2) * geometry.frame.height;
    await canvas.tap({ position: { x: x * scale, y: y * scale } });
    await page.waitForFunction(
      (want) => document.querySelector('#positional canvas.positional-curves').dataset.point === want,
      `${position},${sin}`,
    );
    const expected = `position ${position}, dim ${sin} (sin): ${paperPE(position, sin, d).toFixed(3)}`;
    assert.equal(await panel.locator('.positional-readout').textContent(), expected);
    assert.equal(await page.locator('#tooltip').textContent(), expected);
    await panel.screenshot({ path: `${ARTIFACTS}screenshots/positional-phone.png` });
  });
});

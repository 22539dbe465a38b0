// Export: every view saves as PNG (2× its vector figure's size) and SVG (one <rect> a heatmap
// cell, text as <text>, no embedded bitmap); the trace saves as JSON in the CLI's schema and opens
// again, without the model, showing the same numbers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, currentTrace, download, exportButton, heatmapPixels, pngSize, servePage, waitReady, withBrowser } from './harness.mjs';

const site = servePage();
const FILE_STEM = 'en-zh_I-love-eating-apples';
const VIEWS = ['heatmap', 'model-view', 'head-view', 'stepper', 'stages', 'masks', 'positional', 'rollout', 'attribution', 'compare'];

/** What the page's DOMParser makes of an SVG file: its size, cells, shapes and any parse error. */
function parseSvg(page, text) {
  return page.evaluate((xml) => {
    const doc = new DOMParser().parseFromString(xml, 'image/svg+xml');
    const svg = doc.documentElement;
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      root: svg.localName,
      width: Number(svg.getAttribute('width')),
      height: Number(svg.getAttribute('height')),
      cells: doc.querySelectorAll('rect.cell').length,
      cellSizes: [...new Set([...doc.querySelectorAll('rect.cell')].map((r) => r.getAttribute('width')))],
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      shapes: doc.querySelectorAll('rect, path, text').length,
      images: doc.querySelectorAll('image, foreignObject').length,
    };
  }, text);
}

/** Hover cell (r, c) of the focused heatmap; returns the text the page shows for it. */
async function hoverCell(page, r, c) {
  const canvas = page.locator('#focus-heatmap canvas.matrix');
  const { rows, cols } = await page.evaluate(() => ({
    rows: document.querySelectorAll('#focus-heatmap .row-labels span').length,
    cols: document.querySelectorAll('#focus-heatmap .col-labels span').length,
  }));
  const box = await canvas.boundingBox();
  await canvas.hover({ position: { x: ((c + 0.5) * box.width) / cols, y: ((r + 0.5) * box.height) / rows } });
  await page.waitForFunction((cell) => document.querySelector('#focus-heatmap .heatmap').dataset.cell === cell, `${r},${c}`);
  return page.locator('#hover-value').textContent();
}

test('every view exports PNG at 2× and SVG with vector shapes; file names say model, sentence and view', { timeout: 300_000 }, async () => {
  await withBrowser(async (browser) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    const shape = await page.evaluate(() => {
      const canvas = document.querySelector('#focus-heatmap canvas.matrix');
      return {
        rows: document.querySelectorAll('#focus-heatmap .row-labels span').length,
        cols: document.querySelectorAll('#focus-heatmap .col-labels span').length,
        cssWidth: Number.parseFloat(canvas.style.width),
        cssHeight: Number.parseFloat(canvas.style.height),
      };
    });
    // "I love eating apples." → 我爱吃苹果。: cross-attention is 7 output rows × 6 source tokens.
    assert.deepEqual([shape.rows, shape.cols], [7, 6]);

    const png = await download(page, exportButton('heatmap', 'png'));
    const svgFile = await download(page, exportButton('heatmap', 'svg'));
    assert.equal(png.name, `${FILE_STEM}_heatmap-cross-L0-H0.png`);
    assert.equal(svgFile.name, `${FILE_STEM}_heatmap-cross-L0-H0.svg`);
    const svg = await parseSvg(page, svgFile.bytes.toString('utf8'));
    assert.equal(svg.error, null);
    assert.equal(svg.root, 'svg');
    assert.equal(svg.cells, shape.rows * shape.cols, 'one <rect class="cell"> per heatmap cell');
    assert.equal(svg.images, 0, 'no embedded bitmap');
    // The cells are the canvas's cells: the same size, so the matrix is the canvas's CSS size.
    assert.deepEqual(svg.cellSizes, [String(shape.cssWidth / shape.cols)]);
    assert.equal(shape.cssHeight / shape.rows, shape.cssWidth / shape.cols);
    for (const token of ['▁I', '▁love', '▁eating', '▁apples', '我', '苹']) assert.ok(svg.texts.includes(token), `label ${token} is text`);
    const size = pngSize(png.bytes);
    assert.deepEqual(size, { width: 2 * svg.width, height: 2 * svg.height }, 'the PNG is the figure at 2×');
    console.log(`# heatmap: SVG ${svg.width}×${svg.height} with ${svg.cells} cells, PNG ${size.width}×${size.height}`);

    // Every other view: both files, named after it, the PNG at 2× its SVG.
    for (const view of VIEWS.slice(1)) {
      if (view === 'attribution' || view === 'compare') {
        // Both are computed once on screen (occlusion) or after a pause (B): wait for them.
        await page.locator(`#${view}`).scrollIntoViewIfNeeded();
        await page.waitForFunction((id) => document.getElementById(id).dataset.ready === 'true', view, { timeout: 60_000 });
      }
      const p = await download(page, exportButton(view, 'png'));
      const s = await download(page, exportButton(view, 'svg'));
      assert.equal(p.name, `${FILE_STEM}_${view}.png`);
      assert.equal(s.name, `${FILE_STEM}_${view}.svg`);
      const parsed = await parseSvg(page, s.bytes.toString('utf8'));
      assert.equal(parsed.error, null, `${view}: the SVG parses`);
      assert.equal(parsed.images, 0, `${view}: no embedded bitmap`);
      assert.ok(parsed.shapes > 10, `${view}: vector shapes (${parsed.shapes})`);
      assert.deepEqual(pngSize(p.bytes), { width: 2 * parsed.width, height: 2 * parsed.height }, `${view}: PNG at 2×`);
      console.log(`# ${view}: SVG ${parsed.width}×${parsed.height}, ${parsed.shapes} shapes, ${parsed.cells} cells`);
      if (view === 'model-view') {
        // 3 layers × (4 heads + mean + max) per kind: encoder 6×6, decoder 7×7, cross 7×6 cells each.
        assert.equal(parsed.cells, 3 * 6 * (6 * 6 + 7 * 7 + 7 * 6));
      }
      if (view === 'stages') assert.equal(parsed.cells, 5 * 7 * 6, 'five stage heatmaps of 7 × 6 cells');
    }
  });
});

test('the trace saves as JSON (plain arrays, the CLI schema) and opens again without the model, showing the same numbers', {
  timeout: 300_000,
}, async () => {
  await withBrowser(async (browser) => {
    const live = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
    await live.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(live);
    const json = await download(live, '#save-trace');
    assert.equal(json.name, `${FILE_STEM}_trace.json`);
    const saved = JSON.parse(json.bytes.toString('utf8'));
    assert.deepEqual(Object.keys(saved), ['trace', 'stages', 'analysis']);
    const { trace } = saved;
    const worker = await currentTrace(live);
    assert.ok(Array.isArray(trace.crossAttention.data), 'matrices are plain arrays');
    assert.deepEqual(trace.crossAttention.data, worker.cross, 'every cross-attention number, exactly');
    assert.deepEqual(trace.encoderSelfAttention.data, worker.encoder);
    assert.deepEqual(trace.tgtIds, worker.tgtIds);
    assert.equal(trace.output, '我爱吃苹果。');
    assert.deepEqual(trace.paddingMask.hidden, [false, false, false, false, false, false], 'masks are booleans');
    assert.deepEqual(trace.srcUnknown, [false, false, false, false, false, false]);
    assert.equal(saved.stages.kind, 'cross');
    assert.equal(saved.stages.softmax.length, 7 * 6);
    const liveCell = await hoverCell(live, 2, 3);
    assert.match(liveCell, /^吃 → ▁apples: 0\.\d{4}$/);
    const livePixels = await heatmapPixels(live);

    // A second browser context that cannot load the model's weights: only the file can show anything.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await context.route('**/model.safetensors*', (route) => route.abort());
    const page = await context.newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await page.waitForFunction(() => /Could not load the model/.test(document.getElementById('message').textContent));
    assert.equal(await page.evaluate(() => document.querySelectorAll('#focus-heatmap .row-labels span').length), 0);
    await page.setInputFiles('#trace-file', json.path);
    await page.waitForFunction(() => document.body.dataset.saved === 'true' && document.body.dataset.ready === 'true');
    assert.equal(await page.locator('#saved-banner').isVisible(), true);
    assert.equal(await page.locator('#saved-banner strong').textContent(), 'Showing a saved trace — no model is running.');
    assert.equal(await page.locator('#saved-name').textContent(), `${FILE_STEM}_trace.json (model en-zh)`);
    assert.equal(await page.evaluate(() => document.body.dataset.output), '我爱吃苹果。');
    assert.equal(await hoverCell(page, 2, 3), liveCell, 'the same cell shows the same value');
    assert.equal(await heatmapPixels(page), livePixels, 'the same heatmap, pixel for pixel');
    assert.equal(await page.locator('#step-forward').isDisabled(), true, 'a saved trace cannot step');
    // The stages of the saved head are shown; the views export under the same names.
    assert.equal(await page.locator('#stages figure[data-stage=softmax] canvas.matrix').count(), 1);
    const png = await download(page, exportButton('heatmap', 'png'));
    assert.equal(png.name, `${FILE_STEM}_heatmap-cross-L0-H0.png`);
    // Another layer of the saved trace is drawn from the file too.
    await page.selectOption('#layer-select', '1');
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    assert.match(await page.locator('#stages').textContent(), /saved trace holds the stages of one head only/);
    await page.screenshot({ path: `${ARTIFACTS}screenshots/saved-trace.png` });
  });
});

test('a file that is not a trace is refused with a message, and the page keeps what it showed', { timeout: 120_000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    await page.setInputFiles('#trace-file', {
      name: 'broken.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"trace": {"srcTokens": ['),
    });
    await page.waitForFunction(() => /Cannot open “broken.json”/.test(document.getElementById('message').textContent));
    assert.match(await page.locator('#message').textContent(), /^Cannot open “broken.json” as a saved trace: not JSON/);
    assert.equal(await page.evaluate(() => document.body.dataset.saved ?? 'false'), 'false');
    assert.equal(await page.evaluate(() => document.body.dataset.output), '我爱吃苹果。');
  });
});

// Issue 12, "large models work". A random model of opus-mt's shape (6 encoder and 6 decoder layers
// of 8 heads; d_model 64, so it runs fast) with a 128-token source and 129 output tokens: the views
// show every layer and head at that size and stay readable; the main-thread long tasks while the
// sentence decodes, the model view is opened and switched, the head view is opened, and a row of
// the big heatmap is hovered are reported (their 50 ms budget is benches/phases.mjs's). Then a MarianMT checkpoint converted by the CLI runs in the
// page exactly as it ran in Hugging Face transformers. Both folders are made here by the CLI
// (target/release/attnscope, built before the browser tests run).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ARTIFACTS, launchChromium, servePage, shownOutput, traceStacks, typeSettled, worstDifference } from './harness.mjs';
import { longTasksDuring, makeLargeModel, openModel, openRecordingPage } from './long-tasks.mjs';

const site = servePage();
const ROOT = new URL('../../', import.meta.url).pathname;
const CLI = join(ROOT, 'target/release/attnscope');
const MARIAN = join(ROOT, 'tests/fixtures/marian/zh_en_gelu_untied');
const SKIP = existsSync(CLI) ? false : 'the CLI is not built: run `cargo build --release` first (CI builds it before the browser tests)';

// The random model: 6 + 6 layers of 8 heads; max_len 130 lets a 128-token source in and stops the
// decoder after 129 tokens (a random model never chooses </s>).
const LAYERS = 6;
const HEADS = 8;
const SUMMARIES = ['mean', 'max'];
const SOURCE_WORDS = 127; // + </s>: 128 source tokens
const OUTPUT_ROWS = 129;

let root = null;

/** Run the CLI from the repository root (`random` reads its words from models/en-zh). */
const cli = (...args) => execFileSync(CLI, args, { cwd: ROOT, encoding: 'utf8' });

before(() => {
  root = mkdtempSync(join(tmpdir(), 'attnscope-large-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

/** Wait until the page shows `selection` ({ kind, layer, head }) in every view. */
function waitSelection(page, selection) {
  return page.waitForFunction(
    ({ kind, layer, head }) => {
      const s = window.__attnscope.state;
      return (
        s.selection.kind === kind && s.selection.layer === layer && s.selection.head === head && document.body.dataset.ready === 'true'
      );
    },
    selection,
    { timeout: 30_000 },
  );
}

const heatmapAxes = (page) =>
  page.evaluate(() => ({
    rows: [...document.querySelectorAll('#focus-heatmap .row-labels span')].map((s) => s.textContent),
    cols: [...document.querySelectorAll('#focus-heatmap .col-labels span')].map((s) => s.textContent),
  }));

/**
 * The labels of `selector` that show (not transparent): how many, their smallest font (px), and
 * the smallest distance (px) between neighbours along `along` ('x' or 'y').
 */
function readableLabels(page, selector, along) {
  return page.evaluate(
    ([sel, xy]) => {
      const shown = [...document.querySelectorAll(sel)].filter((span) => getComputedStyle(span).color !== 'rgba(0, 0, 0, 0)');
      const centres = shown.map((span) => {
        const box = span.getBoundingClientRect();
        return xy === 'x' ? box.left + box.width / 2 : box.top + box.height / 2;
      });
      return {
        count: shown.length,
        smallestFont: Math.min(...shown.map((span) => Number.parseFloat(getComputedStyle(span).fontSize))),
        closest: Math.min(...centres.slice(1).map((c, i) => c - centres[i])),
      };
    },
    [selector, along],
  );
}

/** Boxes of `selector` that overlap another of them (more than a pixel each way), as "a / b". */
function overlaps(page, selector) {
  return page.evaluate((sel) => {
    const boxes = [...document.querySelectorAll(sel)].map((e) => ({ text: e.textContent, box: e.getBoundingClientRect() }));
    const out = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i].box, boxes[j].box];
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 1 && y > 1) out.push(`${boxes[i].text} / ${boxes[j].text}`);
      }
    }
    return out;
  }, selector);
}

test('6 + 6 layers × 8 heads at 128 source and 129 output tokens: exact shapes, readable, its long tasks reported', {
  skip: SKIP,
  timeout: 180_000,
}, async () => {
  const folder = join(root, 'views');
  const sentence = makeLargeModel(folder, SOURCE_WORDS);
  const words = sentence.split(' ');

  const browser = await launchChromium();
  try {
    const { page, errors } = await openRecordingPage(browser, site.origin);
    await openModel(page, { folder }, 'random-views');
    const phases = {};

    // Type the sentence; the model decodes to its maximum length.
    phases.decode = await longTasksDuring(page, async () => {
      await typeSettled(page, sentence);
      await page.waitForFunction((rows) => window.__attnscope.state.trace?.decoderSelfAttention.queries === rows, OUTPUT_ROWS);
    });
    assert.equal(await page.evaluate(() => window.__attnscope.state.trace.finished), true);
    assert.equal(await page.locator('#output-tokens .token').count(), OUTPUT_ROWS + 1, 'the start token and 129 output tokens');
    assert.equal(await page.locator('#step-status').textContent(), `${OUTPUT_ROWS} tokens decoded — finished`);
    assert.deepEqual(
      await page.locator('#source-tokens .token').allTextContents(),
      [...words, '</s>'],
      'each word is one source token, then </s>',
    );

    // The focused heatmap (cross-attention, layer 0, head 0): 129 output rows × 128 source columns,
    // every token on its axis.
    const axes = await heatmapAxes(page);
    assert.equal(axes.rows.length, OUTPUT_ROWS);
    assert.deepEqual(axes.cols, [...words, '</s>']);
    const output = await page.evaluate(() => window.__attnscope.state.trace.tgtTokens.slice(1));
    assert.deepEqual(axes.rows, output, 'each row is labelled with the token it produced');
    const matrix = await page.locator('#focus-heatmap canvas.matrix').boundingBox();
    assert.deepEqual([matrix.width, matrix.height], [128 * 8, OUTPUT_ROWS * 8], '8 px cells');
    // 8 px is too small a font: the axes show every second token at 10 px or more, 1.4 em apart at
    // least (the others keep their place, and show when lit).
    for (const axis of ['col', 'row']) {
      const shown = await readableLabels(page, `#focus-heatmap .${axis}-labels span`, axis === 'col' ? 'x' : 'y');
      assert.ok(shown.count >= 64, `${axis} labels: only ${shown.count} of 128 show`);
      assert.ok(shown.smallestFont >= 10, `${axis} labels: ${shown.smallestFont} px`);
      assert.ok(shown.closest >= 1.4 * shown.smallestFont, `${axis} labels ${shown.closest} px apart`);
    }

    // The model view: per kind, a header row (a corner and 8 heads + mean + max) and 6 rows of a
    // layer label and 10 thumbnails.
    const modelView = page.locator('section[data-export="model-view"]');
    phases['open the model view'] = await longTasksDuring(page, () => modelView.scrollIntoViewIfNeeded());
    const columns = HEADS + SUMMARIES.length;
    assert.equal(await page.locator('#model-view button.thumb').count(), 3 * LAYERS * columns);
    for (const kind of ['encoderSelf', 'decoderSelf', 'cross']) {
      const thumbs = page.locator(`#model-view button.thumb[data-kind=${kind}]`);
      assert.equal(await thumbs.count(), LAYERS * columns, `${kind}: 6 layers × 10 thumbnails`);
      const heads = await thumbs.evaluateAll((list) => list.slice(0, 10).map((b) => b.dataset.head));
      assert.deepEqual(heads, [...Array(HEADS).keys()].map(String).concat(SUMMARIES), `${kind}: the columns of layer 0`);
    }
    const labels = await page.locator('#model-view .thumbs .axis-label').allTextContents();
    assert.equal(labels.length, 3 * (columns + LAYERS));
    assert.deepEqual(labels.slice(0, columns + 1), [...[...Array(HEADS).keys()].map((h) => `head ${h}`), 'mean', 'max', 'layer 0']);
    assert.deepEqual(await overlaps(page, '#model-view .thumbs .axis-label'), [], 'model view labels overlap');
    // Every thumbnail is drawn, the last ones too (a random model's weights are near 1/128, near
    // one colour, but a drawn cell is opaque).
    const undrawn = await page.locator('#model-view button.thumb canvas').evaluateAll(
      (canvases) =>
        canvases.filter((canvas) => {
          const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
          return data.some((byte, i) => i % 4 === 3 && byte !== 255);
        }).length,
    );
    assert.equal(undrawn, 0, 'thumbnails left undrawn');
    await page.mouse.move(1, 1); // no thumbnail under the pointer, outlined as hovered
    await modelView.screenshot({ path: `${ARTIFACTS}screenshots/large-model-view.png` });

    // Switch kinds, layers and heads from the model view; the heatmap follows with its shape.
    const picks = [
      [{ kind: 'encoderSelf', layer: 5, head: 7 }, 128, 128],
      [{ kind: 'decoderSelf', layer: 3, head: 'mean' }, OUTPUT_ROWS, OUTPUT_ROWS],
      [{ kind: 'cross', layer: 2, head: 4 }, OUTPUT_ROWS, 128],
      [{ kind: 'cross', layer: 2, head: 'max' }, OUTPUT_ROWS, 128],
    ];
    phases['switch in the model view'] = [];
    for (const [selection, rows, cols] of picks) {
      const { kind, layer, head } = selection;
      phases['switch in the model view'].push(
        ...(await longTasksDuring(page, async () => {
          await page.click(`#model-view button.thumb[data-kind=${kind}][data-layer="${layer}"][data-head="${head}"]`);
          await waitSelection(page, selection);
        })),
      );
      const shown = await heatmapAxes(page);
      assert.deepEqual([shown.rows.length, shown.cols.length], [rows, cols], `${kind} heatmap shape`);
      assert.equal(await page.locator('#model-view button.thumb.selected').count(), 1);
      assert.equal(
        await page.locator(`#model-view button.thumb.selected[data-kind=${kind}][data-layer="${layer}"][data-head="${head}"]`).count(),
        1,
      );
    }

    // The head view: the focused head, then all 8 heads of its layer.
    const headView = page.locator('section[data-export="head-view"]');
    phases['open the head view'] = await longTasksDuring(page, async () => {
      await headView.scrollIntoViewIfNeeded();
      await page.click('input[name=headview-mode][value=all]');
      await page.waitForFunction(
        () => document.body.dataset.ready === 'true' && document.getElementById('head-view').dataset.heads === '8',
      );
    });
    assert.deepEqual(await page.locator('#head-view').evaluate((view) => ({ ...view.dataset })), { layer: '2', heads: '8' });
    const lines = await page.locator('#head-view canvas').boundingBox();
    assert.equal(lines.height, OUTPUT_ROWS * 22 + 10, 'a 22 px row for each of the 129 queries');
    await headView.screenshot({ path: `${ARTIFACTS}screenshots/large-head-view.png` });

    // Hover along one row of the big heatmap, then its row label, then leave.
    const canvas = page.locator('#focus-heatmap canvas.matrix');
    phases['hover a row of the heatmap'] = await longTasksDuring(page, async () => {
      await canvas.scrollIntoViewIfNeeded();
      const box = await canvas.boundingBox();
      const y = box.y + 64.5 * 8;
      for (let c = 0; c < 128; c += 3) await page.mouse.move(box.x + (c + 0.5) * 8, y);
      await page.waitForFunction(() => document.querySelector('#focus-heatmap .heatmap').dataset.cell === '64,126');
      // The hovered cell's tokens and value (the max over heads of layer 2 now).
      assert.match(await page.locator('#hover-value').textContent(), new RegExp(`^${output[64]} → ${words[126]}: 0\\.\\d{4}$`));
      // A label between the shown ones shows while it is lit.
      await page.locator('#focus-heatmap .row-labels span').nth(65).hover();
      assert.equal(
        await page
          .locator('#focus-heatmap .row-labels span')
          .nth(65)
          .evaluate((span) => getComputedStyle(span).color),
        'rgb(255, 176, 0)',
      );
      await page.mouse.move(1, 1);
    });
    await page.locator('section[data-export="heatmap"]').screenshot({ path: `${ARTIFACTS}screenshots/large-heatmap.png` });

    const report = Object.entries(phases)
      .map(([name, tasks]) => `${name}: ${tasks.length ? tasks.map((ms) => `${ms} ms`).join(', ') : 'none'}`)
      .join('; ');
    // Reported, not asserted: how long a task takes depends on the machine (the 50 ms budget is
    // held by benches/phases.mjs, in ./scripts/bench.sh).
    console.log(`# long main-thread tasks: ${report}`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a MarianMT checkpoint converted by the CLI runs in the page as in transformers: tokens, output and attention', {
  skip: SKIP,
  timeout: 120_000,
}, async () => {
  const folder = join(root, 'tiny-marian');
  cli('import', 'marian', join(MARIAN, 'hf'), '--out', folder, '--name', 'tiny-marian');
  const expected = JSON.parse(readFileSync(join(MARIAN, 'expected.json'), 'utf8')).cases.find((c) => c.text === '你答对了。');
  const browser = await launchChromium();
  try {
    const { page, errors } = await openRecordingPage(browser, site.origin);
    await openModel(page, { files: readdirSync(folder).map((file) => join(folder, file)) }, 'tiny-marian');
    await typeSettled(page, expected.text);
    assert.equal(await shownOutput(page), expected.generated_text);

    // The source axis: transformers' pieces (▁ starts a word), except that the page writes an
    // unknown piece as the text it stands for, outlined on the token line.
    const { cols } = await heatmapAxes(page);
    const unknown = await page.locator('#source-tokens .token').evaluateAll((chips) => chips.map((c) => c.classList.contains('unknown')));
    assert.equal(cols.length, expected.input_tokens.length);
    expected.input_tokens.forEach((token, i) => {
      if (token === '<unk>') assert.ok(unknown[i] && [...expected.text].includes(cols[i]), `token ${i}: ${cols[i]} stands for <unk>`);
      else assert.ok(!unknown[i] && cols[i] === token, `token ${i}: ${cols[i]}, transformers has ${token}`);
    });
    assert.deepEqual(cols, ['▁你', '答', '对', '了', '。', '</s>']);

    // The ids and every attention weight, as transformers computed them (to 1e-4).
    const trace = await traceStacks(page);
    assert.deepEqual(trace.srcIds, expected.input_ids);
    assert.deepEqual(trace.tgtIds, expected.generated_ids);
    const compare = (name, stack, reference) => {
      const worst = worstDifference(stack, reference);
      assert.ok(worst <= 1e-4, `${name}: differs from transformers by up to ${worst}`);
    };
    // transformers ran the decoder over every generated token; the trace has a row for each step.
    assert.deepEqual([trace.decoder.queries, trace.cross.keys], [expected.generated_ids.length - 1, expected.input_ids.length]);
    compare('encoder self-attention', trace.encoder, expected.encoder_attentions);
    compare('decoder self-attention', trace.decoder, expected.decoder_attentions);
    compare('cross-attention', trace.cross, expected.cross_attentions);
    await page.locator('section[data-export="heatmap"]').screenshot({ path: `${ARTIFACTS}screenshots/large-model-marian.png` });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

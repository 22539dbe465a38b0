// Analysis no other browser tool has: the beam search tree, the mean / max over heads, attention
// rollout and occlusion attribution, each checked against the worker's own numbers or an
// independent computation from the trace.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ARTIFACTS,
  canvasColours,
  heatmapPixels,
  servePage,
  shownOutput,
  translate,
  typeSettled,
  typeText,
  waitOutput,
  waitReady,
  withPage,
} from './harness.mjs';

const site = servePage();
const shot = (name) => `${ARTIFACTS}screenshots/${name}.png`;

const APPLES = 'I love eating apples.';
const GREEDY = '我爱吃苹果。';
const HELD_OUT = 'The box is heavy.';
const outputChips = (page) => page.locator('#output-tokens .token').allTextContents();
const showApples = (page) => translate(page, APPLES, GREEDY);

/** Set a number input the way a person would, and say so (`change`). */
async function setNumber(page, selector, value) {
  await page.fill(selector, String(value));
  await page.locator(selector).dispatchEvent('change');
}

/** Wait until the page shows the latest sentence's beam search of `width`, with its best hypothesis. */
async function waitBeam(page, width, timeout = 90_000) {
  await page.waitForFunction(
    (w) => {
      const s = window.__attnscope?.state;
      const best = s?.beam?.finals[0];
      return (
        s?.beam?.width === w &&
        best &&
        document.getElementById('beam-tree-view').dataset.selected === String(best.node) &&
        s.shownGeneration === s.generation &&
        document.body.dataset.ready === 'true'
      );
    },
    width,
    { timeout },
  );
  return page.evaluate(() => window.__attnscope.state.beam);
}

/** Bring the attribution view on screen and wait until it explains decoder row `row`. */
async function waitAttribution(page, row, timeout = 60_000) {
  await page.locator('#attribution').scrollIntoViewIfNeeded();
  await page.waitForFunction(
    (r) => {
      const el = document.getElementById('attribution');
      return document.body.dataset.ready === 'true' && el.dataset.ready === 'true' && el.dataset.row === String(r);
    },
    row,
    { timeout },
  );
}

test('beam search: width 1 is greedy; width 4 draws the tree and ranks; a click shows any hypothesis', { timeout: 240_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await showApples(page);

    // (a) Width 1 keeps only the best token at every step: greedy decoding.
    await page.selectOption('#sampling-select', 'beam');
    await waitBeam(page, 4);
    await setNumber(page, '#beam-width', 1);
    const narrow = await waitBeam(page, 1);
    assert.equal(await shownOutput(page), GREEDY);
    assert.deepEqual(narrow.finals[0].tokens, (await outputChips(page)).slice(1));

    // (b) Width 4: the tree, its pruned nodes, and the ranking whose best is the output line.
    await setNumber(page, '#beam-width', 4);
    const beam = await waitBeam(page, 4);
    assert.ok(beam.finals.length >= 2, `${beam.finals.length} finished hypotheses`);
    const nodes = page.locator('#beam-tree g.beam-node[data-node]');
    assert.equal(await nodes.count(), beam.nodes.length);
    assert.ok((await page.locator('#beam-tree g.beam-node.pruned').count()) >= 1, 'no pruned (faded) node');
    assert.ok((await page.locator('#beam-tree g.beam-node.finished').count()) >= 2, 'finished nodes are not marked');
    const opacity = await page
      .locator('#beam-tree g.beam-node.pruned')
      .first()
      .evaluate((g) => Number(getComputedStyle(g).opacity));
    assert.ok(opacity < 1, `a pruned node is drawn at opacity ${opacity}`);
    const ranking = page.locator('#beam-tree-view table.beam-finals tr[data-node]');
    assert.equal(await ranking.count(), beam.finals.length);
    const best = (await outputChips(page)).slice(1);
    assert.equal(await ranking.first().locator('td.hypothesis').textContent(), best.join(' '));
    assert.deepEqual(beam.finals[0].tokens, best);
    for (let k = 1; k < beam.finals.length; k++) assert.ok(beam.finals[k].score <= beam.finals[k - 1].score, 'ranked best first');
    await page.locator('#beam-panel').screenshot({ path: shot('beam-tree') });

    // Clicking another finished hypothesis shows it in every view.
    const other = beam.finals.find((f) => f.tokens.join(' ') !== best.join(' '));
    assert.ok(other, 'every finished hypothesis is the best one');
    const before = await heatmapPixels(page);
    await page.locator(`#beam-tree g.beam-node[data-node="${other.node}"]`).click();
    await page.waitForFunction(
      (tokens) => {
        const chips = [...document.querySelectorAll('#output-tokens .token')].map((el) => el.textContent);
        return document.body.dataset.ready === 'true' && JSON.stringify(chips.slice(1)) === JSON.stringify(tokens);
      },
      other.tokens,
      { timeout: 30_000 },
    );
    assert.equal(await page.locator('#beam-tree-view').getAttribute('data-selected'), String(other.node));
    assert.ok((await page.locator('#beam-tree g.beam-node.selected').count()) === 1, 'the clicked node is not highlighted');
    assert.notEqual(await heatmapPixels(page), before, 'the focused heatmap did not change');

    // A held-out sentence.
    await typeText(page, HELD_OUT);
    await waitBeam(page, 4);
    await page.locator('#beam-panel').screenshot({ path: shot('beam-tree-heldout') });
    assert.deepEqual(consoleErrors, []);
  }),
);

test('mean and max over heads: selector, focused heatmap, model view, stages note', { timeout: 120_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await showApples(page);
    const heads = await page.evaluate(() => window.__attnscope.state.config.nHeads);
    assert.deepEqual(await page.locator('#head-select option').evaluateAll((options) => options.map((o) => o.value)), [
      ...Array.from({ length: heads }, (_, h) => String(h)),
      'mean',
      'max',
    ]);
    for (const summary of ['mean', 'max']) {
      await page.selectOption('#head-select', summary);
      await page.waitForFunction(
        (s) =>
          document.body.dataset.ready === 'true' &&
          document.querySelector('#focus-heatmap .legend').textContent.includes(`${s} over heads`),
        summary,
      );
      assert.match(await page.locator('#stages').textContent(), /Pick a head number/);
      assert.equal(await page.locator(`#model-view button.thumb[data-head="${summary}"].selected`).count(), 1);
      // Hover a few cells: the value shown is the mean (max) of the heads' values there.
      const canvas = page.locator('#focus-heatmap canvas.matrix');
      await canvas.scrollIntoViewIfNeeded();
      const box = await canvas.boundingBox();
      const { rows, cols } = await page.evaluate(() => {
        const s = window.__attnscope.state;
        return { rows: s.trace.crossAttention.queries, cols: s.trace.crossAttention.keys };
      });
      for (const [r, c] of [
        [0, 0],
        [rows >> 1, cols >> 1],
        [rows - 1, cols - 1],
      ]) {
        await page.mouse.move(box.x + ((c + 0.5) * box.width) / cols, box.y + ((r + 0.5) * box.height) / rows);
        const shown = await page.locator('#focus-heatmap .heatmap').first().getAttribute('data-value');
        const expected = await page.evaluate(
          ({ r, c, summary }) => {
            const { crossAttention: s } = window.__attnscope.state.trace;
            const layer = window.__attnscope.state.selection.layer;
            const values = [];
            for (let h = 0; h < s.heads; h++) values.push(s.data[((layer * s.heads + h) * s.queries + r) * s.keys + c]);
            return summary === 'mean' ? values.reduce((a, b) => a + b, 0) / values.length : Math.max(...values);
          },
          { r, c, summary },
        );
        assert.ok(Math.abs(Number(shown) - expected) <= 1e-6, `${summary} at (${r}, ${c}): shown ${shown}, heads give ${expected}`);
      }
      await page.mouse.move(1, 1);
    }
    // Every layer of every kind has a mean and a max thumbnail.
    const layers = await page.evaluate(() => {
      const c = window.__attnscope.state.config;
      return c.nEncoderLayers + 2 * c.nDecoderLayers;
    });
    assert.equal(await page.locator('#model-view button.thumb[data-head="mean"]').count(), layers);
    assert.equal(await page.locator('#model-view button.thumb[data-head="max"]').count(), layers);
    // A real head again: the stages come back.
    await page.selectOption('#head-select', '1');
    await page.waitForFunction(() => document.body.dataset.ready === 'true' && document.getElementById('stages').dataset.kind === 'cross');
    assert.deepEqual(consoleErrors, []);
  }),
);

test('attribution: occlusion, attention and rollout per source token, as the worker computes them', { timeout: 120_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await showApples(page);
    const source = await page.evaluate(() => window.__attnscope.state.trace.srcTokens);

    /** The view's numbers for decoder row `row` equal a direct worker call's. */
    async function checkRow(row) {
      await waitAttribution(page, row);
      const shown = await page.evaluate(() => {
        const read = (measure) => [...document.querySelectorAll(`#attribution .attr-cell[data-measure=${measure}]`)];
        return {
          occlusion: read('occlusion').map((el) => ({
            value: Number(el.dataset.value),
            text: el.querySelector('.attr-value').textContent,
          })),
          attention: read('attention').length,
          rollout: read('rollout').length,
          rho: [...document.querySelectorAll('#attribution [data-coefficient]')].map((el) => Number(el.dataset.value)),
        };
      });
      assert.equal(shown.occlusion.length, source.length, 'one occlusion number per source token');
      assert.equal(shown.attention, source.length);
      assert.equal(shown.rollout, source.length);
      for (const { text } of shown.occlusion) assert.match(text, /^[−-]?\d/, `occlusion shown as “${text}”`);
      assert.equal(shown.rho.length, 2);
      for (const rho of shown.rho) assert.ok(rho >= -1 && rho <= 1, `Spearman ${rho}`);
      const direct = await page.evaluate(async (r) => {
        const a = await window.__attnscope.call('attribution', { row: r });
        return { row: a.row, occlusion: Array.from(a.occlusion), rho: [a.spearmanAttention, a.spearmanRollout] };
      }, row);
      assert.equal(direct.row, row);
      shown.occlusion.forEach(({ value }, j) => {
        assert.ok(
          Math.abs(value - direct.occlusion[j]) <= 1e-6,
          `occlusion of “${source[j]}”: shown ${value}, worker ${direct.occlusion[j]}`,
        );
      });
      shown.rho.forEach((rho, k) => {
        assert.ok(Math.abs(rho - direct.rho[k]) <= 1e-6);
      });
    }

    await checkRow(0); // the first produced token, by default
    assert.match(await page.locator('#attribution').textContent(), /Attention is not explanation/);
    await page.locator('#attribution').screenshot({ path: shot('attribution') });
    // Clicking an output chip explains the token it shows (chip 0 is <s>).
    await page.locator('#output-tokens .token').nth(4).click();
    await checkRow(3);
    // So does a stepper row's token.
    await page.locator('#stepper .step-row').nth(1).locator('.new-token').click();
    await checkRow(1);

    await typeSettled(page, HELD_OUT);
    await waitAttribution(page, 1);
    // Every view finished drawing, so the panel no longer moves while it is captured.
    await waitReady(page);
    await page.locator('#attribution').scrollIntoViewIfNeeded();
    await page.locator('#attribution').screenshot({ path: shot('attribution-heldout') });
    assert.deepEqual(consoleErrors, []);
  }),
);

/** The rollout recomputed from the trace (Abnar & Zuidema), against the page's analysis. */
function checkRollout(page) {
  return page.evaluate(() => {
    const { trace, analysis } = window.__attnscope.state;
    const matmul = (a, b, n, m, p) => {
      const out = new Float64Array(n * p);
      for (let i = 0; i < n; i++) for (let k = 0; k < m; k++) for (let j = 0; j < p; j++) out[i * p + j] += a[i * m + k] * b[k * p + j];
      return out;
    };
    const meanOverHeads = (s, layer) => {
      const out = new Float64Array(s.queries * s.keys);
      for (let h = 0; h < s.heads; h++) {
        const base = (layer * s.heads + h) * s.queries * s.keys;
        for (let i = 0; i < out.length; i++) out[i] += s.data[base + i] / s.heads;
      }
      return out;
    };
    const enc = trace.encoderSelfAttention;
    const n = enc.queries;
    let rolled = Float64Array.from({ length: n * n }, (_, i) => (Math.floor(i / n) === i % n ? 1 : 0));
    let worst = 0;
    for (let l = 0; l < enc.layers; l++) {
      const a = meanOverHeads(enc, l).map((v, i) => 0.5 * v + (Math.floor(i / n) === i % n ? 0.5 : 0));
      for (let r = 0; r < n; r++) {
        let sum = 0;
        for (let c = 0; c < n; c++) sum += a[r * n + c];
        for (let c = 0; c < n; c++) a[r * n + c] /= sum;
      }
      rolled = matmul(a, rolled, n, n, n);
      const got = analysis.encoderRollout.data.subarray(l * n * n, (l + 1) * n * n);
      rolled.forEach((v, i) => {
        worst = Math.max(worst, Math.abs(v - got[i]));
      });
    }
    const cross = trace.crossAttention;
    const attribution = matmul(meanOverHeads(cross, cross.layers - 1), rolled, cross.queries, n, n);
    attribution.forEach((v, i) => {
      worst = Math.max(worst, Math.abs(v - analysis.sourceAttribution.data[i]));
    });
    return { worst, layers: analysis.encoderRollout.layers, rows: analysis.sourceAttribution.queries };
  });
}

test('rollout: the encoder rollout and the source attribution, on en-zh and date-iso', { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await showApples(page);
    const encoder = '#rollout [data-plot=encoder-rollout] canvas.matrix';
    const source = '#rollout [data-plot=source-attribution] canvas.matrix';

    async function checkModel(label) {
      await page.locator('#rollout').scrollIntoViewIfNeeded();
      assert.ok((await canvasColours(page, encoder)) > 3, `${label}: the encoder rollout is blank`);
      assert.ok((await canvasColours(page, source)) > 3, `${label}: the source attribution is blank`);
      const { worst, layers, rows } = await checkRollout(page);
      assert.ok(worst <= 1e-5, `${label}: rollout differs from the trace's by ${worst}`);
      const trace = await page.evaluate(() => {
        const t = window.__attnscope.state.trace;
        return { src: t.srcTokens, produced: t.tgtTokens.slice(1, 1 + t.crossAttention.queries) };
      });
      const rowLabels = await page.locator('#rollout [data-plot=source-attribution] .row-labels span').allTextContents();
      assert.deepEqual(rowLabels, trace.produced, `${label}: source attribution rows are the produced tokens`);
      assert.equal(rows, trace.produced.length);
      assert.equal(await page.locator('#rollout select option').count(), layers);
      // Another layer, another picture.
      if (layers > 1) {
        const last = await page.evaluate((sel) => document.querySelector(sel).toDataURL(), encoder);
        await page.selectOption('#rollout select', '0');
        assert.notEqual(
          await page.evaluate((sel) => document.querySelector(sel).toDataURL(), encoder),
          last,
          `${label}: layer 0 looks like the last`,
        );
        await page.selectOption('#rollout select', String(layers - 1));
      }
    }

    await checkModel('en-zh');
    await page.locator('#rollout').screenshot({ path: shot('rollout') });
    await page.selectOption('#model-select', 'date-iso');
    await waitOutput(page, () => document.body.dataset.output === '1958-08-29');
    await waitReady(page);
    await checkModel('date-iso');
    assert.deepEqual(consoleErrors, []);
  }),
);

test('beam search follows the training timeline: a snapshot is searched with its own weights', { timeout: 240_000 }, () =>
  withPage(site.origin, '?model=date-iso&backend=cpu', async ({ page, consoleErrors }) => {
    const date = 'Friday, the 29th of August 1958';
    await translate(page, date, '1958-08-29');
    await page.selectOption('#sampling-select', 'beam');
    const shipped = await waitBeam(page, 4);
    // `attnscope trace --beam 4 --json` gives the same best hypothesis and log-probability.
    assert.equal(shipped.finals[0].tokens.join(''), '1958-08-29</s>');
    assert.ok(Math.abs(shipped.finals[0].logProb - -0.97066) < 1e-4, `${shipped.finals[0].logProb}`);
    // Snapshot 9 of 15 is step 256; its beam (`--checkpoint 256 --beam 4`) is another search.
    await page.evaluate(() => {
      const slider = document.getElementById('timeline-slider');
      slider.value = '9';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => {
      const best = window.__attnscope.state.beam?.finals[0];
      return document.body.dataset.snapshot === '256' && document.body.dataset.ready === 'true' && best && best.logProb < -2;
    });
    const early = await waitBeam(page, 4);
    assert.equal(early.finals[0].tokens.join(''), 'invalid</s>');
    assert.ok(Math.abs(early.finals[0].logProb - -2.75488) < 1e-4, `${early.finals[0].logProb}`);
    assert.equal(await shownOutput(page), 'invalid');
    assert.deepEqual(consoleErrors, []);
  }),
);

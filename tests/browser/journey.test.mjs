// One token's journey (www/views/journey.js): picked by a token chip or a stepper row, it shows
// the model's own vectors; its softmax weights are the trace's rows, exactly, for self-attention
// and cross-attention, and after the decoder's last layer it names the token the decoder chose.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, currentTrace, launchChromium, servePage, waitReady } from './harness.mjs';

const site = servePage();

const settled = (page) =>
  page.waitForFunction(
    () => document.body.dataset.ready === 'true' && window.__attnscope.state.shownGeneration === window.__attnscope.state.generation,
  );

/** Wait until the journey view shows (stack, layer, position, head). */
function waitJourney(page, { stack, layer, position, head = 0 }) {
  return page.waitForFunction(
    ({ stack, layer, position, head }) => {
      const view = document.getElementById('journey');
      const d = view?.dataset;
      return (
        d?.state === 'ready' && d.stack === stack && d.layer === String(layer) && d.position === String(position) && d.head === String(head)
      );
    },
    { stack, layer, position, head },
    { timeout: 60_000 },
  );
}

/** The α_j the view shows for sub-layer `part` (their exact values, from data-value). */
const shownWeights = (page, part) =>
  page.evaluate(
    (p) => [...document.querySelectorAll(`#journey .j-block[data-part=${p}] .j-alpha`)].map((s) => Number(s.dataset.value)),
    part,
  );

/**
 * `shown` equals `expected` within `tolerance`: layer 0 is exact; a deeper layer runs the layers
 * below again for the one sentence, and f32 sums in another order differ in the last bits (≤ 1e-7).
 */
function assertClose(shown, expected, tolerance, what) {
  assert.equal(shown.length, expected.length, what);
  const worst = shown.reduce((m, v, i) => Math.max(m, Math.abs(v - expected[i])), 0);
  console.log(`# ${what}: largest difference from the trace ${worst.toExponential(1)}`);
  assert.ok(worst <= tolerance, `${what}: ${worst}`);
}

/** Row `row` of layer `layer`, head `head` of a flattened trace stack [layers, heads, rows, cols]. */
function traceRow(flat, { heads, rows, cols }, layer, head, row) {
  const start = ((layer * heads + head) * rows + row) * cols;
  return flat.slice(start, start + cols);
}

test('the journey of 苹果 shows the trace’s rows (exactly at layer 0), its arithmetic and the chosen token', {
  timeout: 240_000,
}, async () => {
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const errors = [];
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    await settled(page);
    const trace = await currentTrace(page);
    const tgtTokens = await page.evaluate(() => window.__attnscope.state.trace.tgtTokens);
    const config = await page.evaluate(() => window.__attnscope.state.config);
    assert.equal(tgtTokens.slice(1, -1).join(''), '我爱吃苹果。');
    // 苹果 is one token or two (苹 果): follow its last one, the decoder position that read all of it.
    const apple = tgtTokens.includes('苹果') ? tgtTokens.indexOf('苹果') : tgtTokens.indexOf('果');
    assert.ok(apple > 0, tgtTokens.join(' '));
    const T = tgtTokens.length - 1; // decoder rows
    const S = trace.srcTokens.length;

    // Click the output chip of 苹果: that decoder position, layer 0, head 0.
    await page.locator('#output-tokens .token').nth(apple).click();
    await page.locator('#journey').scrollIntoViewIfNeeded();
    await waitJourney(page, { stack: 'decoder', layer: 0, position: apple });
    const dims = await page.locator('#journey .j-dims').textContent();
    const dK = config.dModel / config.nHeads;
    assert.ok(dims.includes(`d_model = ${config.dModel} = ${config.nHeads} heads × ${dK}`), dims);
    const self = await shownWeights(page, 'selfAttention');
    assert.deepEqual(self, traceRow(trace.decoder, { heads: config.nHeads, rows: T, cols: T }, 0, 0, apple));
    const cross = await shownWeights(page, 'crossAttention');
    assert.deepEqual(cross, traceRow(trace.cross, { heads: config.nHeads, rows: T, cols: S }, 0, 0, apple));
    console.log(
      `# ${tgtTokens[apple]} (of 苹果) → cross-attention L0 H0: ${cross.map((w, j) => `${trace.srcTokens[j]} ${w.toFixed(3)}`).join(', ')}`,
    );
    assert.match(
      await page.locator('#journey .j-block[data-part=crossAttention] .j-cross').textContent(),
      /query comes from the decoder token/,
    );

    // The feed-forward's zero count is the number of exact zeros the worker computed.
    const zeros = await page.evaluate(async (position) => {
      const j = await window.__attnscope.call('inspect', { stack: 'decoder', layer: 0, position });
      const bytes = j.feedForward.hidden;
      const hidden = bytes instanceof Uint8Array ? new Float32Array(bytes.slice().buffer) : Float32Array.from(bytes);
      return { reported: j.feedForward.zeros, counted: hidden.filter((v) => v === 0).length, dFf: hidden.length };
    }, apple);
    assert.equal(zeros.reported, zeros.counted);
    assert.equal(zeros.dFf, config.dFf);
    const note = await page.locator('#journey .j-block[data-part=feedForward] .j-vec[data-vector=hidden] .j-note').textContent();
    assert.equal(note, `${zeros.counted} of ${config.dFf} are exactly 0`);

    // Hovering q shows its values.
    const q = page.locator('#journey .j-block[data-part=selfAttention] .j-vec[data-vector=q] canvas');
    await q.hover({ position: { x: 2, y: 5 } });
    assert.match(await page.locator('#tooltip').textContent(), /^q \(head 0\) \[0\] = -?\d/);

    // Another head and the last layer: the weights follow, and the logits pick the next token (。).
    const last = config.nDecoderLayers - 1;
    await page.selectOption('#journey-layer', String(last));
    await page.selectOption('#journey-head', '2');
    await waitJourney(page, { stack: 'decoder', layer: last, position: apple, head: 2 });
    assertClose(
      await shownWeights(page, 'selfAttention'),
      traceRow(trace.decoder, { heads: config.nHeads, rows: T, cols: T }, last, 2, apple),
      1e-6,
      `decoder layer ${last} head 2`,
    );
    const picked = await page.evaluate(() =>
      [...document.querySelectorAll('#journey table.j-top tr')].filter((r) => r.cells[3].textContent).map((r) => r.cells[0].textContent),
    );
    assert.deepEqual(picked, [tgtTokens[apple + 1]]);
    await page.mouse.move(0, 0);
    await page.locator('#journey').screenshot({ path: `${ARTIFACTS}screenshots/journey-apple.png` });

    // A source chip: the encoder, whose self-attention weights are the trace's too.
    await page.locator('#source-tokens .token').nth(3).click();
    await waitJourney(page, { stack: 'encoder', layer: last, position: 3, head: 2 });
    const encoderLast = Math.min(last, config.nEncoderLayers - 1);
    assertClose(
      await shownWeights(page, 'selfAttention'),
      traceRow(trace.encoder, { heads: config.nHeads, rows: S, cols: S }, encoderLast, 2, 3),
      1e-6,
      `encoder layer ${encoderLast} head 2`,
    );
    // A stepper row: the decoder position that chose its token.
    await page
      .locator('#stepper .step-row')
      .nth(1)
      .click({ position: { x: 4, y: 4 } });
    await waitJourney(page, { stack: 'decoder', layer: last, position: 1, head: 2 });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

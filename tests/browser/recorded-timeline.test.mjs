// en-zh learns to align: its timeline is recorded (its 10 MB snapshots do not fit the repository).
// The slider shows each snapshot's recording of the 8 recorded sentences with the numbers the
// training run wrote, a sentence outside them is the final model's and the page says so, the tools
// that need weights are refused on a recording, and the last snapshot is the live model again.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { shownOutput as output, servePage, timelineScreenshot, translate, typeSettled, waitMessage, withPage } from './harness.mjs';

const site = servePage();
const FOLDER = new URL('../../models/en-zh/', import.meta.url);
const timeline = JSON.parse(readFileSync(new URL('timeline.json', FOLDER), 'utf8'));
const recording = (step) => {
  const entry = timeline.snapshots.find((s) => s.step === step);
  return JSON.parse(gunzipSync(readFileSync(new URL(entry.file, FOLDER))).toString('utf8'));
};

const SENTENCES = [
  'I love eating apples.',
  'Carol returned to her hotel.',
  'I love my dads.',
  'Mother made me a doll.',
  'Tom looked pretty good.',
  'Do you remember us?',
  'I need to take medications.',
  'He is going to run for mayor.',
];

/** Wait until every view shows snapshot `step` (a recording or weights). */
async function waitSnapshot(page, step) {
  await page.waitForFunction((s) => document.body.dataset.snapshot === String(s) && document.body.dataset.ready === 'true', step, {
    timeout: 60_000,
  });
}

/** What the page shows: the output, the cross-attention stack and the focused head's softmax, as plain numbers. */
const shown = (page) =>
  page.evaluate(() => {
    const { trace, stages } = window.__attnscope.state;
    return { output: trace.output, cross: Array.from(trace.crossAttention.data), softmax: stages ? Array.from(stages.softmax) : null };
  });

/** The recorded answer, as the page would hold it (f32). */
const recorded = (answer) => ({
  output: answer.trace.output,
  cross: Array.from(Float32Array.from(answer.trace.crossAttention.data)),
  softmax: Array.from(Float32Array.from(answer.stages.softmax)),
});

const screenshot = (page, name) => timelineScreenshot(page, `recorded-timeline-${name}`);

test('en-zh timeline: recordings of 8 sentences, the final model for others, tools refused on a recording', { timeout: 300_000 }, () =>
  withPage(site.origin, '?model=en-zh&backend=cpu', async ({ page, consoleErrors }) => {
    assert.equal(await translate(page, SENTENCES[0], '我爱吃苹果。'), '我爱吃苹果。');
    assert.deepEqual(timeline.sentences, SENTENCES);
    const steps = timeline.snapshots.map((s) => s.step);
    const last = steps.length - 1;
    assert.equal(await page.locator('#timeline-slider').getAttribute('max'), String(last));
    // The recorded sentences, listed as buttons under the plot.
    assert.deepEqual(await page.locator('#timeline-sentences .chip').allTextContents(), SENTENCES);
    assert.match(await page.locator('#timeline-sentences p').textContent(), /^This model's snapshots are 10 MB each.* these 8 sentences/);

    // Step 0: the random weights' recording, number for number.
    const slider = page.locator('#timeline-slider');
    await slider.focus();
    await page.keyboard.press('Home');
    await waitSnapshot(page, 0);
    const first = recording(0);
    assert.deepEqual(await shown(page), recorded(first.answers[0]));
    assert.notEqual(await output(page), '我爱吃苹果。');
    assert.match(
      await page.locator('.timeline-readout').textContent(),
      /^step 0 · loss \d+\.\d{3} · held-out 0 % \(random initial weights\) · recorded$/,
    );
    await screenshot(page, 'step-0');

    // Another recorded sentence, clicked: its own recording at the same step.
    await page.locator('#timeline-sentences .chip', { hasText: SENTENCES[1] }).click();
    await page.waitForFunction((t) => document.body.dataset.output === t, first.answers[1].trace.output);
    assert.deepEqual(await shown(page), recorded(first.answers[1]));
    assert.equal(await page.locator('#source-input').inputValue(), SENTENCES[1]);

    // A sentence outside the set: the final model answers, and the page says so.
    await typeSettled(page, 'Where is the station?');
    assert.equal(await output(page), '车站在哪里？');
    await waitMessage(
      page,
      /^Step 0 was recorded for the sentences listed under the training timeline only: this sentence is shown by the final model\.$/,
    );
    assert.equal(await page.locator('#message').getAttribute('class'), 'message info');

    // Back to a recorded one: the note goes.
    await page.locator('#timeline-sentences .chip', { hasText: SENTENCES[0] }).click();
    await page.waitForFunction((t) => document.body.dataset.output === t, first.answers[0].trace.output);
    assert.equal(await page.locator('#message').isHidden(), true);

    // Stepping needs weights: the buttons are off on a recording, and the worker refuses with the reason.
    for (const id of ['step-back', 'step-reset', 'step-forward', 'step-end', 'step-play']) {
      assert.equal(await page.locator(`#${id}`).isDisabled(), true, `#${id} is enabled on a recording`);
    }
    const refusals = await page.evaluate(async () =>
      Promise.all(
        ['step', 'back', 'beam', 'inspect', 'importance'].map((type) =>
          window.__attnscope.call(type, {}).then(
            () => null,
            (e) => e.problem,
          ),
        ),
      ),
    );
    assert.deepEqual(refusals, Array(5).fill({ key: 'timeline.recordedOnly', params: { step: 0 } }));
    assert.deepEqual(await shown(page), recorded(first.answers[0]), 'a refused step changed what is shown');

    // Another head: the recording has no stages for it, and the stages view says whose it has.
    await page.selectOption('#head-select', '2');
    await page.waitForFunction(() => window.__attnscope.state.selection.head === 2 && document.body.dataset.ready === 'true');
    assert.equal(
      await page.locator('#stages p.muted').first().textContent(),
      'Step 0 is a recording: it holds the stages of one head only, cross-attention, layer 0, head 0. Pick that head to see them.',
    );
    await page.selectOption('#head-select', '0');
    await page.waitForFunction(() => window.__attnscope.state.stages !== null && document.body.dataset.ready === 'true');
    assert.deepEqual(await shown(page), recorded(first.answers[0]));

    // Halfway: the alignment taking shape.
    const middle = steps.indexOf(2048);
    assert.ok(middle > 0, `no snapshot at step 2048 in ${steps}`);
    await page.evaluate((i) => {
      const s = document.getElementById('timeline-slider');
      s.value = String(i);
      s.dispatchEvent(new Event('input', { bubbles: true }));
    }, middle);
    await waitSnapshot(page, 2048);
    assert.deepEqual(await shown(page), recorded(recording(2048).answers[0]));
    await screenshot(page, 'step-2048');

    // The last snapshot is the model itself: the live answer, and stepping works again.
    await slider.focus();
    await page.keyboard.press('End');
    await waitSnapshot(page, steps[last]);
    assert.equal(await output(page), '我爱吃苹果。');
    assert.doesNotMatch(await page.locator('.timeline-readout').textContent(), /recorded/);
    const rows = await page.evaluate(() => window.__attnscope.state.trace.tgtIds.length);
    await page.locator('#step-back').click();
    await page.waitForFunction((n) => window.__attnscope.state.trace.tgtIds.length === n, rows - 1);
    assert.equal(await page.locator('#message').isHidden(), true);
    await screenshot(page, 'final');
    assert.deepEqual(consoleErrors, []);
  }),
);

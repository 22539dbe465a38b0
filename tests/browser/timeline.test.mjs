// Watch it learn: the training timeline strip swaps in each snapshot's weights, every view follows,
// a new sentence keeps them, Play walks through them all, and a broken snapshot leaves the page working.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  currentTrace,
  heatmapPixels,
  shownOutput as output,
  servePage,
  timelineScreenshot,
  translate,
  typeSettled,
  typeText,
  waitBackend,
  waitOutput,
  waitReady,
  withPage,
} from './harness.mjs';

const site = servePage();

const SENTENCE = 'Friday, the 29th of August 1958';
const ISO = '1958-08-29';
const snapshotShown = (page) => page.evaluate(() => document.body.dataset.snapshot);

/** The snapshots' steps, as timeline.json lists them. */
const timelineSteps = (page) =>
  page.evaluate(async () => {
    const response = await fetch('models/date-iso/timeline.json', { cache: 'no-cache' });
    return (await response.json()).snapshots.map((s) => s.step).sort((a, b) => a - b);
  });

/** Wait until every view shows the weights of the snapshot at `step`. */
async function waitSnapshot(page, step, timeout = 60_000) {
  await page.waitForFunction((s) => document.body.dataset.snapshot === String(s) && document.body.dataset.ready === 'true', step, {
    timeout,
  });
}

/** Move the slider to `index` the way a script would: set the value, then say so. */
async function setSlider(page, index) {
  await page.evaluate((i) => {
    const slider = document.getElementById('timeline-slider');
    slider.value = String(i);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
  }, index);
}

const screenshot = (page, step) => timelineScreenshot(page, `timeline-step-${String(step).padStart(4, '0')}`);

test('the timeline strip: slider, keyboard, click, Play; every view follows the snapshot', { timeout: 300_000 }, () =>
  withPage(site.origin, '?model=date-iso&backend=cpu', async ({ page, consoleErrors }) => {
    assert.equal(await translate(page, SENTENCE, ISO), ISO);
    assert.equal(await page.evaluate(() => document.getElementById('focus-heatmap').dataset.kind), 'cross');

    // The strip lists every snapshot, and the page starts on the last: the shipped weights.
    const steps = await timelineSteps(page);
    const last = steps.length - 1;
    assert.ok(steps.length >= 3, `timeline.json lists ${steps.length} snapshots`);
    assert.ok(await page.locator('#timeline-panel').isVisible(), 'the timeline strip is hidden');
    assert.equal(await page.locator('#timeline').getAttribute('data-snapshots'), String(steps.length));
    const slider = page.locator('#timeline-slider');
    assert.equal(await slider.getAttribute('max'), String(last));
    assert.equal(await slider.inputValue(), String(last));
    assert.equal(await snapshotShown(page), String(steps[last]));
    assert.equal(await page.getByLabel('Training snapshot').count(), 1, 'the slider has no accessible label');
    assert.match(await page.locator('.timeline-readout').textContent(), /^step \d+ · loss \d+\.\d{3} · held-out [\d.]+ %/);
    assert.ok((await page.locator('.timeline-plot').boundingBox()).width > 300);

    // Home on the keyboard: the random weights of step 0 write something else, and attend differently.
    const trainedHeatmap = await heatmapPixels(page);
    await slider.focus();
    await page.keyboard.press('Home');
    await waitSnapshot(page, steps[0]);
    assert.notEqual(await output(page), ISO);
    assert.notEqual(await heatmapPixels(page), trainedHeatmap, 'the focused heatmap did not change');
    assert.match(await page.locator('.timeline-readout').textContent(), new RegExp(`^step ${steps[0]} · `));
    await screenshot(page, steps[0]);

    // A new sentence keeps the snapshot's weights.
    await typeSettled(page, '1 May 2000');
    assert.equal(await snapshotShown(page), String(steps[0]));
    assert.notEqual(await output(page), '2000-05-01');
    await typeSettled(page, SENTENCE);

    // A snapshot halfway, set by script.
    const middle = Math.floor(steps.length / 2);
    await setSlider(page, middle);
    await waitSnapshot(page, steps[middle]);
    await screenshot(page, steps[middle]);

    // End: the shipped weights again, and the right answer.
    await slider.focus();
    await page.keyboard.press('End');
    await waitSnapshot(page, steps[last]);
    assert.equal(await output(page), ISO);
    assert.equal(await heatmapPixels(page), trainedHeatmap, 'the final snapshot draws the trained heatmap');
    await screenshot(page, steps[last]);

    // Play (from the last snapshot) walks through every snapshot from the first, each drawn before
    // the next.
    await page.evaluate(() => {
      window.__snapshotsShown = [];
      new MutationObserver(() => {
        const { ready, snapshot } = document.body.dataset;
        if (ready === 'true' && window.__snapshotsShown.at(-1) !== snapshot) window.__snapshotsShown.push(snapshot);
      }).observe(document.body, { attributes: true, attributeFilter: ['data-ready', 'data-snapshot'] });
    });
    const play = page.locator('#timeline button', { hasText: 'Play' });
    await play.click();
    await page.waitForFunction(() => /Play/.test(document.querySelector('#timeline button').textContent), null, { timeout: 120_000 });
    await waitSnapshot(page, steps[last]);
    assert.deepEqual(await page.evaluate(() => window.__snapshotsShown), steps.map(String));
    assert.equal(await output(page), ISO);

    // A click near the left of the plot picks an early snapshot.
    const plot = page.locator('.timeline-plot');
    const box = await plot.boundingBox();
    await plot.click({ position: { x: 50, y: box.height / 2 } });
    await page.waitForFunction(() => document.body.dataset.ready === 'true' && Number(document.body.dataset.snapshot) <= 2);
    assert.notEqual(await output(page), ISO);

    // Pause stops it.
    await play.click();
    await page.waitForFunction(() => /Pause/.test(document.querySelector('#timeline button').textContent));
    await page.locator('#timeline button', { hasText: 'Pause' }).click();
    await page.waitForTimeout(1500);
    await waitReady(page);
    assert.ok(Number(await snapshotShown(page)) < steps[last], 'Pause did not stop Play');

    // Another model has no timeline; coming back starts on the shipped weights.
    await page.selectOption('#model-select', 'zh-en');
    await waitOutput(page, () => document.body.dataset.model === 'zh-en' && document.body.dataset.output === 'I love eating apples.');
    assert.ok(await page.locator('#timeline-panel').isHidden(), 'the timeline strip shows for zh-en');
    assert.equal(await page.locator('body').getAttribute('data-snapshot'), null);
    await page.selectOption('#model-select', 'date-iso');
    await waitOutput(page, () => document.body.dataset.model === 'date-iso' && document.body.dataset.output === '1958-08-29');
    await waitSnapshot(page, steps[last]);
    assert.equal(await slider.inputValue(), String(last));

    assert.deepEqual(consoleErrors, []);
  }),
);

test('a snapshot that fails to load: a message, the weights in use stay, the page keeps working', { timeout: 120_000 }, () =>
  withPage(site.origin, '?model=date-iso&backend=cpu', async ({ context, page, consoleErrors }) => {
    await waitOutput(page, () => document.body.dataset.output === '1958-08-29');
    const steps = await timelineSteps(page);
    const last = steps.length - 1;
    const broken = 1;
    const file = `step-${String(steps[broken]).padStart(6, '0')}.safetensors`;
    // Registered after the harness's route (withPage), so it answers first.
    await context.route(
      (url) => url.pathname.endsWith(`/timeline/${file}`),
      (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: 'not a safetensors file' }),
    );
    await setSlider(page, broken);
    await page.waitForFunction(() => {
      const m = document.getElementById('message');
      return !m.hidden && !m.classList.contains('info') && m.textContent.length > 0;
    });
    assert.equal(await snapshotShown(page), String(steps[last]));
    assert.equal(await page.locator('#timeline-slider').inputValue(), String(last));
    assert.equal(await output(page), ISO);
    // Still usable: another snapshot loads, and a sentence translates.
    await setSlider(page, 0);
    await waitSnapshot(page, steps[0]);
    assert.ok(await page.locator('#message').isHidden(), 'the message stayed after a good snapshot');
    await setSlider(page, last);
    await waitSnapshot(page, steps[last]);
    await typeText(page, '1 May 2000');
    await waitOutput(page, () => document.body.dataset.output === '2000-05-01');
    assert.deepEqual(consoleErrors, []);
  }),
);

test('WebGPU lost under a snapshot: the CPU replays the snapshot, then the sentence', { timeout: 200_000 }, () =>
  withPage(site.origin, '?model=date-iso&backend=webgpu', async ({ page, consoleErrors }) => {
    await waitBackend(page, 'webgpu');
    await waitOutput(page, () => document.body.dataset.output === '1958-08-29');
    const steps = await timelineSteps(page);
    const early = Math.min(4, steps.length - 2);
    await setSlider(page, early);
    await waitSnapshot(page, steps[early]);
    const gpu = await currentTrace(page);
    assert.equal(gpu.backend, 'webgpu');
    await page.evaluate(() => window.__attnscope.call('test:loseDevice'));
    await waitBackend(page, 'cpu');
    await waitReady(page);
    const cpu = await currentTrace(page);
    assert.equal(cpu.backend, 'cpu');
    assert.deepEqual(cpu.tgtIds, gpu.tgtIds);
    const worst = cpu.cross.reduce((m, v, i) => Math.max(m, Math.abs(v - gpu.cross[i])), 0);
    assert.ok(worst <= 1e-4, `cross-attention: CPU and WebGPU differ by ${worst}`);
    assert.equal(await snapshotShown(page), String(steps[early]));
    assert.deepEqual(
      consoleErrors.filter((e) => !/GPU|WebGPU|wgpu/i.test(e)),
      [],
    );
  }),
);

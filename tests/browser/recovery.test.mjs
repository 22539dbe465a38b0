// A worker that dies (en-zh, CPU): the page starts another, loads the model again and comes back to
// what it showed (the sentence, the steps, the focused head, the heads switched off), and says
// what happened. The worker is killed on purpose through its test hooks (www/testing/): a real
// WebAssembly.RuntimeError ('unreachable', what a panic is under panic=abort), at once or on the
// next step the person asks for; an error no request catches (the worker's `error` event); a
// worker that closes itself or spins for ever, which says nothing at all and is noticed by its
// silence (www/app/liveness.js); and a model that kills every worker it is loaded in, which the
// page gives up on after two restarts.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SILENT_MS } from '../../www/app/liveness.js';
import {
  ARTIFACTS,
  decodingShown,
  servePage,
  typeSettled,
  waitMessage,
  waitReady,
  waitSettled,
  waitTokenCount,
  withPage,
} from './harness.mjs';

const site = servePage();
const TEXT = 'I love eating apples.';
const OUTPUT = '我爱吃苹果。';
const restored = (error, model = 'en-zh') =>
  `The model's worker stopped (${error}); attnscope restarted it and reloaded ${model}. Your sentence and steps are back.`;

/** How many workers the page runs, once Playwright has heard of every one that ended (it hears a moment later). */
async function liveWorkers(page, expected) {
  for (let waited = 0; page.workers().length !== expected && waited < 5000; waited += 100) await page.waitForTimeout(100);
  return page.workers().length;
}

/** What the person sees and would lose with the worker: compared before and after. */
async function shown(page) {
  const more = await page.evaluate(() => ({
    input: document.getElementById('source-input').value,
    stepper: [...document.querySelectorAll('#stepper .step-row .new-token')].map((t) => t.textContent),
    backend: document.getElementById('backend-select').value,
    off: window.__attnscope.state.ablation.spec,
  }));
  return { ...(await decodingShown(page)), ...more };
}

/** The message box: its text, and whether it is an error. */
const message = (page) =>
  page.evaluate(() => {
    const box = document.getElementById('message');
    return { text: box.hidden ? '' : box.textContent, error: !box.classList.contains('info') };
  });

/** Wait until the page is back from a restart: it says so, and shows an answer. */
async function waitRestored(page, error, model) {
  const text = restored(error, model);
  await page.waitForFunction((t) => document.getElementById('message').textContent === t, text, { timeout: 60_000 });
  await waitSettled(page);
}

/** Ask the worker `type`; resolves to its answer (as JSON) or, when it is rejected, its message. */
const ask = (page, type, args) =>
  page.evaluate(
    ([t, a]) =>
      window.__attnscope.call(t, a).then(
        (result) => JSON.stringify(result),
        (error) => error.message,
      ),
    [type, args],
  );

/** Make the worker trap now; resolves to what the request it died on was answered (its rejection's message). */
const trapNow = (page) => ask(page, 'test:trap');
const DIED = "the model's worker stopped (RuntimeError: unreachable)";

/** Type the running example, go back to <s> and step twice. */
async function twoSteps(page) {
  await waitReady(page);
  await typeSettled(page, TEXT);
  await page.waitForFunction((o) => document.body.dataset.output === o, OUTPUT);
  await page.click('#step-reset');
  await waitTokenCount(page, 1);
  await waitSettled(page);
  for (const count of [2, 3]) {
    await page.click('#step-forward');
    await waitTokenCount(page, count);
    await waitSettled(page);
  }
}

/** Look at decoder self-attention, layer 1, head 2. */
async function focusHead(page) {
  for (const [select, value] of [
    ['#kind-select', 'decoderSelf'],
    ['#layer-select', '1'],
    ['#head-select', '2'],
  ]) {
    await page.selectOption(select, value);
    await waitSettled(page);
  }
}

test('a trapped wasm instance: a new worker, the same sentence, steps and head, and a message', { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await twoSteps(page);
    await focusHead(page);
    const before = await shown(page);
    assert.deepEqual(before.tokens, ['<s>', '我', '爱']);
    assert.equal(before.status, '2 tokens decoded');
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 1);

    // The request the worker died on is settled, not left hanging.
    assert.equal(await trapNow(page), DIED);
    await waitRestored(page, 'RuntimeError: unreachable');

    assert.deepEqual(await message(page), { text: restored('RuntimeError: unreachable'), error: false });
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 2);
    assert.equal(await liveWorkers(page, 1), 1, 'the dead worker was not ended');
    assert.deepEqual(await shown(page), before);
    assert.equal(await page.evaluate(() => document.body.dataset.model), 'en-zh');
    await page.screenshot({ path: `${ARTIFACTS}screenshots/recovery.png` });
    // The new worker carries on from there.
    await page.click('#step-forward');
    await waitTokenCount(page, 4);
    await waitSettled(page);
    assert.deepEqual((await shown(page)).tokens, ['<s>', '我', '爱', '吃']);
    assert.deepEqual(consoleErrors, []);
  }),
);

test('a step the worker dies on: the steps before it come back, with the heads switched off', { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu#off=cross:0:0,cross:1:2,cross:2:1', async ({ page }) => {
    await twoSteps(page);
    await page.waitForFunction(() => document.getElementById('heads').dataset.busy === 'false');
    const before = await shown(page);
    assert.equal(before.off, 'cross:0:0,cross:1:2,cross:2:1');
    const ablated = () => page.locator('#heads .heads-ablated .token').allTextContents();
    const report = await ablated();
    // With the three heads off the model decodes the sentence another way (tests/browser/heads.test.mjs).
    assert.deepEqual(report, ['我', '很', '喜', '欢', '吃', '苹', '果', '。', '</s>']);

    await page.evaluate(() => window.__attnscope.call('test:trap', { on: 'step' }));
    await page.click('#step-forward');
    await waitRestored(page, 'RuntimeError: unreachable');
    await page.waitForFunction(() => document.getElementById('heads').dataset.busy === 'false');
    assert.deepEqual(await shown(page), before, 'the step the worker died on is not tried again');
    assert.deepEqual(await ablated(), report);
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 2);
  }),
);

test("an error no request catches (the worker's error event): the same restart", { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page }) => {
    await twoSteps(page);
    await focusHead(page);
    const before = await shown(page);
    await page.evaluate(() => window.__attnscope.call('test:throwUncaught'));
    await waitRestored(page, 'Uncaught Error: thrown on purpose (test)');
    assert.deepEqual(await shown(page), before);
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 2);
    assert.equal(await liveWorkers(page, 1), 1);
  }),
);

const SILENT = `no answer for ${SILENT_MS / 1000} s`;

test('a worker that closes itself: no error event, no answer, noticed by its silence and restarted', { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await twoSteps(page);
    await focusHead(page);
    const before = await shown(page);
    const started = Date.now();
    assert.equal(await ask(page, 'test:close'), `the model's worker stopped (${SILENT})`);
    const waited = Date.now() - started;
    assert.ok(waited >= SILENT_MS && waited < SILENT_MS + 5000, `declared lost after ${waited} ms`);
    await waitRestored(page, SILENT);
    assert.deepEqual(await message(page), { text: restored(SILENT), error: false });
    assert.deepEqual(await shown(page), before);
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 2);
    assert.equal(await liveWorkers(page, 1), 1);
    assert.deepEqual(consoleErrors, []);
  }),
);

test('a worker stuck in a loop: busy for less than the limit is no hang, for ever is', { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page }) => {
    await twoSteps(page);
    const before = await shown(page);
    // A synchronous chunk well under the limit: the same worker answers, nothing is said.
    assert.equal(await ask(page, 'test:spin', { ms: SILENT_MS / 3 }), JSON.stringify({ spun: SILENT_MS / 3 }));
    assert.deepEqual(await message(page), { text: '', error: true });
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 1);
    // A loop that never ends: the worker is ended and replaced.
    assert.equal(await ask(page, 'test:spin'), `the model's worker stopped (${SILENT})`);
    await waitRestored(page, SILENT);
    assert.deepEqual(await shown(page), before);
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 2);
    assert.equal(await liveWorkers(page, 1), 1, 'the spinning worker was not ended');
  }),
);

test('a model that kills every new worker: two restarts, then the page says so and stops', { timeout: 240_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page }) => {
    await waitReady(page);
    // Each of the next two workers loads the model, then traps on its first sentence.
    await page.evaluate(() => window.__attnscope.trapNewWorkers('translate', 2));
    assert.equal(await trapNow(page), DIED);
    const gaveUp =
      "The model's worker stopped (RuntimeError: unreachable), and 2 restarts with en-zh in a row failed; " +
      'attnscope has stopped trying. Choose another model, or reload the page.';
    await waitMessage(page, /stopped trying/, 90_000);
    await page.waitForTimeout(1000); // nothing restarts after it
    assert.deepEqual(await message(page), { text: gaveUp, error: true });
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 3);
    assert.equal(await liveWorkers(page, 0), 0, 'a worker is still running');
    // The page is alive: another model loads and translates.
    await page.selectOption('#model-select', 'date-iso');
    await page.waitForFunction(() => document.body.dataset.model === 'date-iso' && document.body.dataset.ready === 'true', null, {
      timeout: 60_000,
    });
    assert.equal(await page.evaluate(() => window.__attnscope.workers()), 4);
  }),
);

test('a model opened from a folder, on an earlier training snapshot: the same files and the same weights come back', {
  timeout: 180_000,
}, async () => {
  // A copy of date-iso, opened as a folder from the computer: the restart reads the same File objects.
  const folder = mkdtempSync(join(tmpdir(), 'attnscope-recovery-'));
  const DATE_ISO = new URL('../../models/date-iso/', import.meta.url).pathname;
  for (const file of ['model.safetensors', 'src_tokenizer.json', 'tgt_tokenizer.json'])
    copyFileSync(join(DATE_ISO, file), join(folder, file));
  const config = JSON.parse(readFileSync(join(DATE_ISO, 'config.json'), 'utf8'));
  writeFileSync(join(folder, 'config.json'), JSON.stringify({ ...config, name: 'my-dates' }));
  try {
    await withPage(site.origin, '?backend=cpu', async ({ page }) => {
      await waitReady(page);
      await page.setInputFiles('#model-folder', folder);
      await page.waitForFunction(() => document.body.dataset.model === 'local:my-dates' && document.body.dataset.ready === 'true');
      await typeSettled(page, '1 May 2000');
      await page.waitForFunction(() => document.body.dataset.output === '2000-05-01');
      await focusHead(page);
      const before = await shown(page);
      assert.equal(await trapNow(page), DIED);
      await waitRestored(page, 'RuntimeError: unreachable', 'my-dates (local)');
      assert.deepEqual(await shown(page), before);
      assert.equal(await page.locator('#model-select').inputValue(), 'local:my-dates');
      assert.equal(await page.evaluate(() => window.__attnscope.workers()), 3);
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  // The shipped date-iso on its second training snapshot: the restart loads those weights again.
  await withPage(site.origin, '?model=date-iso&backend=cpu', async ({ page }) => {
    await waitReady(page);
    await typeSettled(page, 'Friday, the 29th of August 1958');
    await page.evaluate(() => {
      const slider = document.getElementById('timeline-slider');
      slider.value = '1';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => window.__attnscope.state.snapshot === 1 && document.body.dataset.ready === 'true');
    const before = { ...(await shown(page)), snapshot: await page.evaluate(() => document.body.dataset.snapshot) };
    assert.notEqual(before.tokens.join(''), '<s>1958-08-29</s>', 'the early weights write the date another way');
    assert.equal(await trapNow(page), DIED);
    await waitRestored(page, 'RuntimeError: unreachable', 'date-iso');
    await page.waitForFunction(() => window.__attnscope.state.snapshot === 1 && document.body.dataset.ready === 'true');
    assert.deepEqual({ ...(await shown(page)), snapshot: await page.evaluate(() => document.body.dataset.snapshot) }, before);
  });
});

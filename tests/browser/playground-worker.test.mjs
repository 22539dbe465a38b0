// The playground's training worker (www/trainer/worker.js) over a run's life: ten train → reset
// cycles driven through the panel's buttons leave the training module's wasm memory where it was
// after the second (wasm memory only grows: a Playground, an optimizer or a model left behind by
// a reset shows as growth). That a full run never leaves the page 2 s without a message from the
// worker is checked on the panel's full reverse run (playground-panel.test.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { launchChromium, servePage, testMode } from './harness.mjs';

const site = servePage();

/**
 * A page at `hash` (CPU backend) in a fresh context of `browser`. The training worker, once hooked
 * (`page.trainerHooked`), answers the test's own requests (`ask(page, type)`) without the page
 * seeing them.
 */
async function openPage(browser, hash = '') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, locale: 'en-US' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('worker', (worker) => {
    if (!worker.url().includes('/trainer/worker.js')) return;
    page.trainer = worker;
    page.trainerHooked = worker.evaluate(() => {
      self.__answers = new Map();
      self.__asked = 0;
      const post = self.postMessage.bind(self);
      self.postMessage = (message, transfer) => {
        const answer = self.__answers.get(message?.id);
        if (!answer) return post(message, transfer);
        self.__answers.delete(message.id);
        answer(message);
      };
    });
  });
  await page.goto(`${site.origin}/${testMode(`?backend=cpu${hash}`)}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120_000 });
  return { page, errors };
}

/** Ask the training worker for `type` as the page would, the answer kept from the page: its result. */
async function ask(page, type) {
  await page.trainerHooked;
  const reply = await page.trainer.evaluate(
    (type) =>
      new Promise((resolve) => {
        const id = `test:${++self.__asked}`;
        self.__answers.set(id, resolve);
        self.onmessage({ data: { id, type, args: {} } });
      }),
    type,
  );
  if (!reply.ok) throw new Error(`${type}: ${reply.error}`);
  return reply.result;
}

/** Open the playground and wait for its first run. */
async function openPlayground(page) {
  await page.click('#playground-details summary');
  await page.waitForFunction(() => document.getElementById('playground').dataset.ready === 'true', null, { timeout: 120_000 });
}

/** Wait until the panel says `state` with at least `atLeast` steps (exactly `exactly`, when given). */
function waitPanel(page, state, atLeast = 0, exactly = null) {
  return page.waitForFunction(
    ({ state, atLeast, exactly }) => {
      const root = document.getElementById('playground');
      const steps = Number(root.dataset.steps);
      return root.dataset.state === state && steps >= atLeast && (exactly == null || steps === exactly);
    },
    { state, atLeast, exactly },
    { timeout: 120_000 },
  );
}

/** Wait until Train can be pressed. */
const trainable = (page) =>
  page.waitForFunction(() => !document.querySelector('#playground .run-train').disabled, null, { timeout: 60_000 });

/**
 * One cycle: Train until at least 150 steps (the evaluation and snapshot at step 100 done), Pause,
 * one Step (a step, an evaluation, a snapshot), then Reset and wait for the fresh run.
 */
async function trainAndReset(page) {
  await trainable(page);
  await page.click('#playground .run-train');
  await waitPanel(page, 'training', 150);
  await page.click('#playground .run-pause');
  await waitPanel(page, 'paused');
  await trainable(page);
  const paused = Number(await page.locator('#playground').getAttribute('data-steps'));
  await page.click('#playground .run-step');
  await waitPanel(page, 'paused', paused + 1);
  const steps = Number(await page.locator('#playground').getAttribute('data-steps'));
  await page.click('#playground .run-reset');
  await waitPanel(page, 'idle', 0, 0);
  await trainable(page);
  return steps;
}

test('10 train → reset cycles leave the training module’s wasm memory flat', { timeout: 400_000 }, async () => {
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser);
    await openPlayground(page);
    const opened = await ask(page, 'memory');
    const memory = [];
    const steps = [];
    for (let cycle = 1; cycle <= 10; cycle++) {
      steps.push(await trainAndReset(page));
      memory.push(await ask(page, 'memory'));
    }
    console.log(`# wasm memory: opened ${opened}; after each cycle ${memory.join(', ')} bytes; steps per cycle ${steps.join(', ')}`);
    assert.ok(steps.every((n) => n > 150));
    assert.equal(memory[9], memory[1], `grew ${memory[9] - memory[1]} bytes from cycle 2 to cycle 10`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

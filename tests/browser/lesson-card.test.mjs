// The lesson card and the control it asks for: at every step, on a phone (390 × 844) and on a
// 1280 × 900 screen, the control the task names is on screen and not under the card (a point of
// it is hit-tested to the control itself); a number check and a choice check are answered with the
// keyboard alone; axe finds nothing serious in the card while a check is open; and where the
// browser keeps no local storage, the lesson still runs and says that progress will not be kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { launchChromium, servePage, waitLessonStep, waitReady, waitSettled } from './harness.mjs';

const site = servePage();

async function open(browser, options, init = null) {
  const context = await browser.newContext(options);
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${site.origin}/?test&backend=cpu`);
  await waitReady(page);
  await waitSettled(page);
  await page.click('#lesson-button');
  return { context, page, errors };
}

/** Whether a point of the step's control is on screen and hits the control (not the card). */
const controlInSight = (page) =>
  page.evaluate(() => {
    const card = document.getElementById('lesson');
    const control = document.querySelector(card.dataset.control);
    if (!control) return { ok: false, why: `no ${card.dataset.control}` };
    const box = control.getBoundingClientRect();
    for (let i = 1; i < 8; i++) {
      for (let j = 1; j < 8; j++) {
        const x = box.left + (box.width * i) / 8;
        const y = box.top + (box.height * j) / 8;
        if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
        const hit = document.elementFromPoint(x, y);
        if (hit && (control === hit || control.contains(hit) || hit.contains(control))) return { ok: true };
      }
    }
    return {
      ok: false,
      why: `${card.dataset.control} at ${Math.round(box.top)}–${Math.round(box.bottom)}, card from ${Math.round(card.getBoundingClientRect().top)}`,
    };
  });

for (const [name, options] of [
  ['1280 × 900', { viewport: { width: 1280, height: 900 } }],
  ['a phone, 390 × 844', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }],
]) {
  test(`every step's control is in sight beside the card: ${name}`, { timeout: 240_000 }, async () => {
    const browser = await launchChromium();
    try {
      const { page, errors } = await open(browser, options);
      const total = 19;
      const hidden = [];
      for (let n = 1; n <= total; n++) {
        await waitLessonStep(page, n);
        const seen = await controlInSight(page);
        if (!seen.ok) hidden.push(`step ${n}: ${seen.why}`);
        // Next asks once before skipping an undone task.
        await page.click('#lesson .lesson-next');
        if (n < total && (await page.evaluate((s) => document.getElementById('lesson').dataset.step === String(s), n))) {
          assert.match(await page.textContent('#lesson .lesson-note'), /not done this step|还没做/);
          await page.click('#lesson .lesson-next');
        }
      }
      assert.deepEqual(hidden, []);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
}

/** Press Tab until `selector` has the focus (at most 40 times). */
async function tabTo(page, selector) {
  for (let i = 0; i < 40; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

test('the keyboard alone answers a number check and a choice check; axe finds nothing serious in the card', {
  timeout: 180_000,
}, async () => {
  const browser = await launchChromium();
  try {
    const { page, errors } = await open(browser, { viewport: { width: 1280, height: 900 } });
    // Step 2 (d_k, a number): d_k is hidden in the text while the check is open. → asks once
    // before it skips step 1's task.
    await waitLessonStep(page, 1);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#lesson .lesson-note').textContent !== '');
    await page.keyboard.press('ArrowRight');
    await waitLessonStep(page, 2);
    assert.match(await page.textContent('#lesson .lesson-text'), /\?/);
    const axe = await new AxeBuilder({ page }).include('#lesson').analyze();
    const severe = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      severe.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
    );
    await page.focus('#lesson-title');
    await tabTo(page, '#lesson .lesson-number');
    await page.keyboard.type('48');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#lesson .lesson-check').dataset.outcome === 'right');
    assert.match(await page.textContent('#lesson .lesson-text'), /48 numbers/, 'the value is shown once answered');
    // Step 3 (the largest score, a choice among the keys).
    await page.focus('#lesson-title');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#lesson .lesson-note').textContent !== '');
    await page.keyboard.press('ArrowRight');
    await waitLessonStep(page, 3);
    await page.focus('#lesson-title');
    await tabTo(page, '#lesson .lesson-option');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => ['right', 'wrong'].includes(document.querySelector('#lesson .lesson-check').dataset.outcome));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('without local storage the lesson runs and says progress will not be kept', { timeout: 120_000 }, async () => {
  const browser = await launchChromium();
  try {
    const block = () => {
      Object.defineProperty(window, 'localStorage', {
        get() {
          throw new DOMException('blocked', 'SecurityError');
        },
      });
    };
    const { page, errors } = await open(browser, { viewport: { width: 1280, height: 900 } }, block);
    await waitLessonStep(page, 1);
    assert.match(await page.textContent('#lesson .lesson-note'), /will not be kept/);
    await page.fill('#source-input', 'I love apples.');
    await page.waitForFunction(() => document.getElementById('lesson').dataset.task === 'done', null, { timeout: 60_000 });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

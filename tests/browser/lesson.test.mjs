// The lesson (www/lesson/): all nineteen steps in English and in Chinese without a console error;
// every number in a step's text is the model's (read again here from the worker, the page's
// config, positional table and padded batch, and compared); every decoding setting it names is the
// one the controls hold; no digit in a text stands outside a marked number, token, formula,
// illustration, setting or control name; axe finds no violation in the lesson; a link opens its
// step; a phone shows one step a screen without sideways scrolling.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { ARTIFACTS, launchChromium, servePage, typeSettled, waitLessonStep, waitReady, waitSettled } from './harness.mjs';

const site = servePage();
const STEPS = 19;
/** Steps by id (www/lesson/steps.js): where the walk switches the model, and where the cross-attention step is. */
const PLACEMENT = 13;
const CROSS = 18;

async function openPage(browser, { locale = 'en-US', hash = '', phone = false } = {}) {
  const options = phone
    ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true, locale }
    : { viewport: { width: 1280, height: 900 }, locale };
  const page = await (await browser.newContext(options)).newPage();
  const errors = [];
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${site.origin}/?test&backend=cpu${hash}`);
  await waitReady(page);
  await waitSettled(page);
  return { page, errors };
}

/** Press → (or `press`) until the lesson shows step `n`: Next asks once before it skips an unfinished task. */
async function advance(page, n, press = () => page.keyboard.press('ArrowRight')) {
  for (let tries = 0; ; tries++) {
    await press();
    try {
      await page.waitForFunction((step) => document.getElementById('lesson').dataset.step === String(step), n, { timeout: 1_500 });
      break;
    } catch (error) {
      if (tries === 2) throw error;
    }
  }
  await waitLessonStep(page, n);
}

/**
 * Every model number of the step shown, checked against the model: its source is read again (the
 * worker's answer and `inspect`, the page's config, positional table and padded batch) and
 * compared with the span's value and its text; every decoding setting against the controls.
 * Returns { checked, problems, strayDigits }.
 */
function checkNumbers(page) {
  return page.evaluate(async () => {
    const { call, state } = window.__attnscope;
    const answer = await call('answer');
    const roots = { trace: answer.trace, stages: answer.stages, config: state.config, positional: state.positional, batch: state.batch };
    // Float vectors cross as f32 bytes; a mask's `hidden` is 0/1 bytes and stays as it is.
    const asFloats = (v, key) => (v instanceof Uint8Array && key !== 'hidden' ? new Float32Array(v.slice().buffer) : v);
    /** `@sum`, `@sum:FROM:TO` and `@zeros` of numbers.js. */
    function aggregate(values, key) {
      const [name, from = 0, to = values.length] = key.slice(1).split(':');
      const part = Array.from(values).slice(Number(from), Number(to));
      return name === 'zeros' ? part.filter((v) => v === 0).length : part.reduce((a, v) => a + Number(v), 0);
    }
    const journeys = new Map();
    async function root(name) {
      if (!name.startsWith('journey/')) return roots[name];
      if (!journeys.has(name)) {
        const [, stack, layer, position] = name.split('/');
        journeys.set(name, await call('inspect', { stack, layer: Number(layer), position: Number(position) }));
      }
      return journeys.get(name);
    }
    const text = document.querySelector('#lesson .lesson-text');
    const problems = [];
    let checked = 0;
    for (const span of text.querySelectorAll('.model-number')) {
      const [rootName, path] = span.dataset.source.split(':');
      let value = await root(rootName);
      let previous = null;
      for (const key of path.split('.')) {
        value = key.startsWith('@') ? aggregate(value, key) : asFloats(value, previous)?.[key];
        previous = key;
      }
      const digits = Number(span.dataset.digits);
      const shown = Number(span.textContent);
      if (typeof value !== 'number' || Math.abs(value - Number(span.dataset.value)) > 1e-6 * Math.max(1, Math.abs(value))) {
        problems.push(`${span.dataset.source}: page ${span.dataset.value}, model ${value}`);
      } else if (!(Math.abs(shown - value) <= 0.5 * 10 ** -digits + 1e-9)) {
        problems.push(`${span.dataset.source}: shown ${span.textContent}, model ${value}`);
      }
      checked += 1;
    }
    // The decoding settings: the beam's are its controls' values; sampling's are in its menu label.
    const menu = document.getElementById('sampling-select');
    const chosenLabel = menu.selectedOptions[0]?.textContent ?? '';
    const expected = {
      width: (v) => Number(v) === Number(document.getElementById('beam-width').value),
      alpha: (v) => Number(v) === Number(document.getElementById('beam-alpha').value),
      temperature: (v) => chosenLabel.includes(`T=${v}`),
      topK: (v) => chosenLabel.includes(`top-${v}`),
    };
    for (const span of text.querySelectorAll('.lesson-setting')) {
      if (!expected[span.dataset.setting]?.(span.textContent)) problems.push(`setting ${span.dataset.setting}: ${span.textContent}`);
    }
    const bare = text.cloneNode(true);
    const marked = '.model-number, .model-token, .formula, .illustration, .lesson-index, .lesson-setting, .control-name';
    for (const span of bare.querySelectorAll(marked)) span.remove();
    const unfilled = text.textContent.match(/\{\w+\}/g) ?? [];
    if (unfilled.length) problems.push(`placeholders left unfilled: ${unfilled.join(' ')}`);
    return { checked, problems, strayDigits: bare.textContent.match(/\d+/g) ?? [] };
  });
}

/** Walk every step with the → key (the placement step also switches the model), checking each one's numbers. */
async function walk(page, lang, { switchAt = null } = {}) {
  await page.click('#lesson-button');
  await waitLessonStep(page, 1);
  let total = 0;
  for (let n = 1; n <= STEPS; n++) {
    if (n > 1) await advance(page, n);
    if (n === switchAt) {
      const button = page.locator('#lesson .lesson-action button');
      const model = await button.getAttribute('data-model');
      await button.click();
      await page.waitForFunction((m) => document.body.dataset.model === m, model, { timeout: 90_000 });
      await waitSettled(page);
      await page.waitForFunction(
        (m) =>
          document.getElementById('lesson').dataset.state === 'ready' &&
          document.querySelector('#lesson .lesson-text').textContent.includes(m),
        model,
        { timeout: 60_000 },
      );
    }
    const { checked, problems, strayDigits } = await checkNumbers(page);
    assert.deepEqual(problems, [], `${lang} step ${n}`);
    assert.deepEqual(strayDigits, [], `${lang} step ${n}: digits outside the model's numbers`);
    // A step whose numbers are all what its open check asks shows them as “?” (www/lesson/grading.js).
    const asked =
      (await page.locator('#lesson .lesson-check').count()) > 0 && (await page.locator('#lesson .lesson-text').textContent()).includes('?');
    assert.ok(checked > 0 || asked, `${lang} step ${n} shows no number of the model`);
    assert.ok(await page.locator('.lesson-target').count(), `${lang} step ${n} lights no view`);
    total += checked;
  }
  return total;
}

test('every step in English and Chinese: the model’s numbers, no stray digit, no console error', { timeout: 600_000 }, async () => {
  const browser = await launchChromium();
  try {
    const en = await openPage(browser);
    const english = await walk(en.page, 'en', { switchAt: PLACEMENT });
    assert.equal(await en.page.locator('#lesson .lesson-counter').textContent(), `Step ${STEPS} of ${STEPS}`);
    assert.match(en.page.url(), new RegExp(`lesson=${STEPS}`));
    assert.deepEqual(en.errors, []);

    const zh = await openPage(browser, { locale: 'zh-CN' });
    const chinese = await walk(zh.page, 'zh-CN');
    assert.equal(await zh.page.locator('#lesson .lesson-counter').textContent(), `第 ${STEPS} 步，共 ${STEPS} 步`);
    console.log(`# lesson: ${english} model numbers checked in English, ${chinese} in Chinese`);
    // Back to the cross-attention step, in Chinese, for the screenshot.
    for (let n = STEPS; n > CROSS; n--) await zh.page.keyboard.press('ArrowLeft');
    await waitLessonStep(zh.page, CROSS);
    // The row that writes 果 puts most of its weight on “.” and </s> in 11 of the 12 heads; of the
    // words, the sharpest look is layer 0, head 1's at ▁apples (0.38, beside “.” 0.23 and </s>
    // 0.29), and the step names that head, not the full stop's. The word itself, and the row, stay
    // hidden while the step's prediction check is open (www/lesson/checks.js).
    const cross = await zh.page.locator('#lesson .lesson-text').textContent();
    assert.ok(cross.includes('（第 0 层第 1 头：'), cross);
    assert.deepEqual(await zh.page.locator('#lesson .lesson-text .model-token').allTextContents(), ['苹']);
    await zh.page.screenshot({ path: `${ARTIFACTS}screenshots/lesson-zh.png` });
    // The lesson follows the sentence: retyped, the step speaks of the new tokens.
    await zh.page.locator('#lesson .lesson-leave').click();
    assert.equal(await zh.page.locator('#lesson').isHidden(), true);
    assert.equal(await zh.page.locator('.lesson-target').count(), 0);
    await typeSettled(zh.page, 'My father likes drinking tea.');
    await zh.page.click('#lesson-button');
    await waitLessonStep(zh.page, CROSS);
    // The decoder input before the last word of the new output: 喝 (drink), which wrote 茶 (tea).
    assert.deepEqual(await zh.page.locator('#lesson .lesson-text .model-token').allTextContents(), ['喝']);
    assert.deepEqual((await checkNumbers(zh.page)).problems, []);
    assert.deepEqual(zh.errors, []);
  } finally {
    await browser.close();
  }
});

test('a link opens its step; axe finds no violation in the lesson', { timeout: 240_000 }, async () => {
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser, { hash: '#lesson=5' });
    await waitLessonStep(page, 5);
    assert.equal(await page.locator('#lesson .lesson-counter').textContent(), `Step 5 of ${STEPS}`);
    await page.screenshot({ path: `${ARTIFACTS}screenshots/lesson-en-step5.png` });
    const results = await new AxeBuilder({ page }).analyze();
    const inLesson = results.violations.filter((v) => v.nodes.some((n) => n.target.join(' ').includes('#lesson')));
    const severe = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    console.log(`# axe on lesson step 5: ${results.passes.length} rules pass, ${results.violations.length} violations`);
    for (const v of results.violations) console.log(`#   ${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    assert.deepEqual(
      inLesson.map((v) => v.id),
      [],
    );
    assert.deepEqual(
      severe.map((v) => v.id),
      [],
    );
    // Another language while the lesson is open: the step is told again in it, with the same numbers.
    await page.selectOption('#language-select', 'zh-CN');
    await page.waitForFunction(() => document.querySelector('#lesson .lesson-counter').textContent === '第 5 步，共 19 步');
    await waitLessonStep(page, 5);
    assert.deepEqual((await checkNumbers(page)).problems, []);
    assert.match(await page.locator('#lesson-button').textContent(), /导览/);
    await page.selectOption('#language-select', 'en');
    await waitLessonStep(page, 5);
    // Leave and come back: the same step; Escape leaves too.
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#lesson').isHidden(), true);
    assert.doesNotMatch(page.url(), /lesson=/);
    await page.click('#lesson-button');
    await waitLessonStep(page, 5);
    await page.click('#lesson .lesson-back');
    await waitLessonStep(page, 4);
    assert.match(page.url(), /lesson=4/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('phone: one step a screen, no sideways scroll', { timeout: 240_000 }, async () => {
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser, { phone: true, locale: 'zh-CN', hash: '#lesson=3' });
    await waitLessonStep(page, 3);
    for (const n of [3, 4, CROSS, STEPS]) {
      for (let at = Number(await page.locator('#lesson').getAttribute('data-step')); at < n; at++) {
        await advance(page, at + 1, () => page.locator('#lesson .lesson-next').tap());
      }
      const box = await page.evaluate(() => {
        const card = document.getElementById('lesson').getBoundingClientRect();
        return {
          scroll: document.documentElement.scrollWidth,
          left: card.left,
          right: card.right,
          height: card.height,
          screen: innerHeight,
        };
      });
      assert.ok(box.scroll <= 390, `step ${n}: the page is ${box.scroll} px wide`);
      assert.ok(box.left >= 0 && box.right <= 390, `step ${n}: the card runs off the screen`);
      assert.ok(box.height <= box.screen * 0.6, `step ${n}: the card takes ${box.height} of ${box.screen} px`);
      const small = await page
        .locator('#lesson button')
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).filter((r) => r.width < 44 || r.height < 44).length);
      assert.equal(small, 0, 'lesson buttons under 44 × 44 px');
      if (n === 3) await page.screenshot({ path: `${ARTIFACTS}screenshots/lesson-phone.png` });
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

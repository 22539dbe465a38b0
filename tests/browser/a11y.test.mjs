// Keyboard and screen readers: a sensible Tab order, the stepper and the focused heatmap used
// with the keyboard alone (each cell said through the live region, the same numbers in a table),
// and axe-core finding no serious or critical violation in either language.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { currentTrace, launchChromium, servePage, waitReady, waitTokenCount, withBrowser } from './harness.mjs';

const site = servePage();

/** What has focus: its id, or its tag and class. */
const focused = (page) =>
  page.evaluate(() => document.activeElement.id || `${document.activeElement.localName}.${document.activeElement.className}`);

/** Press Tab until `target` (as `focused` names it) has focus; returns how many presses it took. */
async function tabTo(page, target, limit = 80) {
  for (let n = 1; n <= limit; n++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)) === target) return n;
  }
  throw new Error(`${target} is not reachable with Tab`);
}

const settled = (page) =>
  page.waitForFunction(
    () => document.body.dataset.ready === 'true' && window.__attnscope.state.shownGeneration === window.__attnscope.state.generation,
  );

async function openPage(browser, locale = 'en-US', hash = '') {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale })).newPage();
  await page.goto(`${site.origin}/?test&backend=cpu${hash}`);
  await waitReady(page);
  await settled(page);
  return page;
}

test('Tab reaches the controls in reading order, each with a visible focus ring', { timeout: 120_000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    const order = [];
    for (let n = 0; n < 29; n++) {
      await page.keyboard.press('Tab');
      order.push(await focused(page));
    }
    // The training timeline (en-zh's recordings) comes before the stepper: its export buttons,
    // Play, the slider and the 8 recorded sentences. Decoding has finished: Step, Play and To the
    // end are disabled and skipped.
    assert.deepEqual(order, [
      'language-select',
      'copy-link',
      'save-trace',
      'open-trace',
      'lesson-button',
      'model-select',
      'open-model',
      'open-model-folder',
      'backend-select',
      'sampling-select',
      'source-input',
      'prefix-input',
      'prefix-button',
      'button.export-button',
      'button.export-button',
      'timeline-play',
      'timeline-slider',
      ...Array(8).fill('button.chip'),
      'button.export-button',
      'button.export-button',
      'step-reset',
      'step-back',
    ]);
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.equal(outline, 'solid', 'the focused control shows an outline');
  });
});

test('keyboard only: the heatmap says each cell (tokens and value), the table holds the same numbers, and the stepper steps', {
  timeout: 180_000,
}, async () => {
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    const trace = await currentTrace(page);
    // Cross-attention, layer 0, head 0: 7 rows (output tokens) × 6 source tokens.
    const value = (r, c) => trace.cross[r * 6 + c].toFixed(3);
    await tabTo(page, 'canvas.matrix');
    await page.keyboard.press('ArrowRight'); // the first key puts the cursor on the first cell
    const announcer = page.locator('#announcer');
    assert.equal(await announcer.textContent(), `query “我”, key “▁I”: ${value(0, 0)}`);
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
    assert.equal(await announcer.textContent(), `query “吃”, key “▁apples”: ${value(2, 3)}`);
    assert.equal(await page.locator('#focus-heatmap .heatmap').getAttribute('data-cell'), '2,3');
    assert.equal(await page.locator('#tooltip').isVisible(), true);
    await page.keyboard.press('End');
    assert.equal(await announcer.textContent(), `query “吃”, key “</s>”: ${value(2, 5)}`);
    for (let n = 0; n < 10; n++) await page.keyboard.press('ArrowDown'); // stops at the last row
    assert.equal(await announcer.textContent(), `query “</s>”, key “</s>”: ${value(6, 5)}`);
    // The same numbers as a table, with the tokens as headers.
    const table = await page.evaluate(() => {
      const t = document.querySelector('#focus-heatmap table.cell-table');
      return {
        cols: [...t.tHead.rows[0].cells].map((c) => c.textContent),
        row2: [...t.tBodies[0].rows[2].cells].map((c) => c.textContent),
      };
    });
    assert.deepEqual(table.cols.slice(1), ['▁I', '▁love', '▁eating', '▁apples', '.', '</s>']);
    assert.deepEqual(table.row2, ['吃', ...[0, 1, 2, 3, 4, 5].map((c) => value(2, c))]);
    await page.keyboard.press('Shift+Tab'); // from the heatmap back to its "Show as table"
    assert.equal(await focused(page), 'button.table-toggle');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('#focus-heatmap table.cell-table').isVisible(), true);
    assert.equal(await page.locator('#focus-heatmap button.table-toggle').getAttribute('aria-pressed'), 'true');

    // The stepper, with Enter and Tab only, from the text box (where a person starts).
    await page.locator('#source-input').focus();
    await tabTo(page, 'step-reset');
    await page.keyboard.press('Enter');
    await waitTokenCount(page, 1);
    await settled(page);
    assert.equal(await page.locator('#step-status').textContent(), '0 tokens decoded');
    assert.equal(await focused(page), 'step-forward', 'focus moves on to Step when Reset is disabled');
    await page.keyboard.press('Enter');
    await waitTokenCount(page, 2);
    await settled(page);
    await page.keyboard.press('Enter');
    await waitTokenCount(page, 3);
    await settled(page);
    assert.equal(await page.locator('#step-status').textContent(), '2 tokens decoded');
    await page.keyboard.press('Shift+Tab'); // Back
    assert.equal(await focused(page), 'step-back');
    await page.keyboard.press('Enter');
    await waitTokenCount(page, 2);
    await settled(page);
    assert.equal(await page.locator('#step-status').textContent(), '1 token decoded');
    assert.deepEqual(await page.locator('#output-tokens .token').allTextContents(), ['<s>', '我']);
    // A candidate of the stepper is a button: force the second candidate of step 1 by keyboard.
    const candidate = page.locator('#stepper .step-row').first().locator('.candidate').nth(1);
    const token = (await candidate.textContent()).replace(/ [\d.]+%$/, '');
    await candidate.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((t) => document.querySelector('#output-tokens .token.forced')?.textContent === t, token);
  });
});

for (const [lang, locale] of [
  ['en', 'en-US'],
  ['zh-CN', 'zh-CN'],
]) {
  test(`axe-core: no serious or critical violations (${lang})`, { timeout: 180_000 }, async () => {
    const browser = await launchChromium();
    try {
      const page = await openPage(browser, locale);
      assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
      // Every panel drawn: the attribution and the comparison compute once on screen.
      for (const id of ['attribution', 'compare']) {
        await page.locator(`#${id}`).scrollIntoViewIfNeeded();
        await page.waitForFunction((i) => document.getElementById(i).dataset.ready === 'true', id, { timeout: 60_000 });
      }
      const results = await new AxeBuilder({ page }).analyze();
      const counts = {};
      for (const v of results.violations) counts[v.impact] = (counts[v.impact] ?? 0) + 1;
      console.log(`# axe (${lang}): ${results.passes.length} rules pass; violations by impact ${JSON.stringify(counts)}`);
      for (const v of results.violations) console.log(`#   ${v.impact} ${v.id}: ${v.nodes.length} nodes`);
      const severe = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(
        severe.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
        [],
      );
    } finally {
      await browser.close();
    }
  });
}

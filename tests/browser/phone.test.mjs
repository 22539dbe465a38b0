// A phone, 390 × 844 CSS px with touch: no sideways page scrolling, main controls at least 44 px
// square, a tap on a heatmap cell shows its value, and the model runs live on the CPU module.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, currentTrace, launchChromium, servePage, typeSettled, waitReady } from './harness.mjs';

const site = servePage();

const MAIN_CONTROLS = [
  '#language-select',
  '#copy-link',
  '#save-trace',
  '#open-trace',
  '#lesson-button',
  '#model-select',
  '#backend-select',
  '#sampling-select',
  '#prefix-button',
  '#step-reset',
  '#step-back',
  '#step-forward',
  '#step-play',
  '#step-end',
  '#kind-select',
  '#layer-select',
  '#head-select',
  '#focus-heatmap button.transpose',
  '#focus-heatmap button.table-toggle',
  'section[data-export=heatmap] .export-button',
  '#model-view button.thumb',
];

test('phone: no horizontal scroll, 44 px tap targets, a tapped cell shows its value, the CPU module runs live', {
  timeout: 180_000,
}, async () => {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    assert.equal(await page.evaluate(() => document.body.dataset.output), '我爱吃苹果。');
    assert.equal(await page.locator('#backend-badge').getAttribute('data-backend'), 'cpu');
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    assert.ok(widths.scroll <= 390, `the page is ${widths.scroll} px wide`);
    console.log(`# phone: scrollWidth ${widths.scroll}, clientWidth ${widths.client}`);

    const small = [];
    for (const selector of MAIN_CONTROLS) {
      for (const box of await page.locator(selector).evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()))) {
        if (box.width < 44 || box.height < 44) small.push(`${selector}: ${box.width.toFixed(0)} × ${box.height.toFixed(0)}`);
      }
    }
    assert.deepEqual(small, [], 'tap targets under 44 × 44 px');

    // Tap cell (row 吃, column apples) of the focused heatmap: the tooltip shows its exact value.
    const trace = await currentTrace(page);
    const canvas = page.locator('#focus-heatmap canvas.matrix');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    await canvas.tap({ position: { x: (3.5 * box.width) / 6, y: (2.5 * box.height) / 7 } });
    await page.waitForFunction(() => document.querySelector('#focus-heatmap .heatmap').dataset.cell === '2,3');
    const tooltip = page.locator('#tooltip');
    assert.equal(await tooltip.isVisible(), true);
    assert.equal(await tooltip.textContent(), `吃 → ▁apples: ${trace.cross[2 * 6 + 3].toFixed(4)}`);
    const tip = await tooltip.boundingBox();
    assert.ok(tip.x >= 0 && tip.x + tip.width <= 390, 'the tooltip stays on screen');
    await page.screenshot({ path: `${ARTIFACTS}screenshots/phone-heatmap.png` });

    // Live: a new sentence is translated on the phone, by the CPU module.
    await typeSettled(page, 'My father likes drinking tea.');
    assert.match(await page.evaluate(() => document.body.dataset.output), /^我父亲/);
    assert.equal((await currentTrace(page)).backend, 'cpu');
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${ARTIFACTS}screenshots/phone.png`, fullPage: true });
  } finally {
    await browser.close();
  }
});

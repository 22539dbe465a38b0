// A playground model with a switch off: the page names it when the model loads, and the lesson's
// step about that part says what the model has instead of describing what is not there, with a
// button to the experiment that tests the claim.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { servePage, withPage } from './harness.mjs';

const site = servePage();

test('without positional encoding: the model description names it, and the lesson step says the model has none', { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu#pg=positional:none', async ({ page, consoleErrors }) => {
    await page.waitForFunction(
      () => document.body.dataset.model === 'local:playground-reverse' && document.body.dataset.ready === 'true',
      null,
      { timeout: 120_000 },
    );
    // The lesson, opened on the playground's model, at its step on positional encoding (11 of 19):
    // each step's task is left undone, so Next asks once before it skips.
    await page.click('#lesson-button');
    for (let step = 1; step < 11; step++) {
      await page.waitForFunction((n) => document.querySelector('.lesson-counter')?.textContent === `Step ${n} of 19`, step);
      await page.click('.lesson-next');
      await page.waitForFunction(() => document.querySelector('.lesson-note')?.textContent !== '');
      await page.click('.lesson-next');
    }
    await page.waitForFunction(() => document.querySelector('.lesson-text')?.textContent.includes('built without positional encoding'));
    const text = await page.textContent('.lesson-text');
    assert.match(
      text,
      /^Attention by itself ignores order: shuffle the words and every dot product stays the same\. This model was built without positional encoding/,
    );
    assert.doesNotMatch(text, /sin\(pos/);
    assert.equal(await page.getAttribute('.lesson-action button', 'data-experiment'), 'A');
    assert.equal(await page.textContent('.lesson-action button'), 'Test it yourself: playground experiment A');
    assert.match(
      await page.textContent('#model-description'),
      /part of the paper's design switched off: no positional encoding — nothing tells the encoder where a token is$/,
    );

    await page.selectOption('#language-select', 'zh-CN');
    await page.waitForFunction(() => document.querySelector('.lesson-text')?.textContent.includes('这个模型没有位置编码'));
    assert.equal(await page.textContent('.lesson-action button'), '自己动手验证：训练场实验 A');
    assert.deepEqual(consoleErrors, []);
  }),
);

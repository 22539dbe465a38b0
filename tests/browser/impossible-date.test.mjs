// A date the model writes that does not exist is shown as written and marked, in both languages
// (the rule is src/text/calendar.rs, the same one the CLI uses); a real date clears the mark.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { servePage, translate, waitReady, withPage } from './harness.mjs';

const site = servePage();

const note = (page) => page.locator('#impossible-date');

test(
  'date-iso: 32/01/2020 comes back as 2020-01-32, shown unchanged and marked; a real date clears the mark',
  {
    timeout: 180_000,
  },
  () =>
    withPage(site.origin, '?model=date-iso&backend=cpu', async ({ page, consoleErrors }) => {
      await waitReady(page);
      assert.equal(await translate(page, '32/01/2020', '2020-01-32'), '2020-01-32');
      assert.equal(
        await note(page).textContent(),
        "2020-01-32 is not a real date: January 2020 has 31 days, not 32. This is the model's own output, shown as it wrote it, not corrected.",
      );
      assert.ok(await note(page).isVisible());
      assert.equal(await note(page).getAttribute('role'), 'note');

      await page.selectOption('#language-select', 'zh-CN');
      await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
      await page.waitForFunction(() => document.getElementById('impossible-date').textContent.includes('不是'));
      assert.equal(
        await note(page).textContent(),
        '2020-01-32 不是真实存在的日期：2020年1月只有 31 天，没有 32 日。这是模型自己写出的结果，按原样显示，没有改正。',
      );

      assert.equal(await translate(page, '31/12/1999', '1999-12-31'), '1999-12-31');
      assert.equal(await note(page).textContent(), '');
      assert.equal(await note(page).isVisible(), false);
      assert.deepEqual(consoleErrors, []);
    }),
);

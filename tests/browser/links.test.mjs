// Links: the URL fragment restores the state in another browser context; back and forward move
// through committed sentences and steps (not through every head looked at); a corrupt fragment
// falls back to the defaults with a message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodingShown, servePage, typeSettled, waitReady, waitTokenCount, withBrowser } from './harness.mjs';

const site = servePage();

/** Everything the test compares between two pages. */
async function snapshot(page) {
  const view = await page.evaluate(() => {
    const heatmap = document.querySelector('#focus-heatmap .heatmap');
    return {
      forced: [...document.querySelectorAll('#output-tokens .token.forced')].map((t) => t.textContent),
      hideSinks: document.getElementById('hide-sinks').checked,
      transposed: document.querySelector('#focus-heatmap').dataset.transposed,
      rows: [...heatmap.querySelectorAll('.row-labels span')].map((s) => s.textContent),
      cols: [...heatmap.querySelectorAll('.col-labels span')].map((s) => s.textContent),
      pixels: heatmap.querySelector('canvas.matrix').toDataURL(),
    };
  });
  return { ...(await decodingShown(page)), ...view };
}

const settled = (page) =>
  page.waitForFunction(
    () => document.body.dataset.ready === 'true' && window.__attnscope.state.shownGeneration === window.__attnscope.state.generation,
  );

test('a copied link restores the exact state in another browser context', { timeout: 240_000 }, async () => {
  await withBrowser(async (browser) => {
    const a = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await a.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.origin });
    const page = await a.newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    // Force the second token to the first candidate the model did not choose, then go back a step.
    const candidate = page.locator('#stepper .step-row').nth(1).locator('.candidate:not(.chosen)').first();
    const forcedToken = (await candidate.textContent()).replace(/ [\d.]+%$/, '');
    await candidate.click();
    await page.waitForFunction((t) => document.querySelectorAll('#output-tokens .token.forced')[0]?.textContent === t, forcedToken);
    await settled(page);
    const full = await page.locator('#output-tokens .token').count();
    await page.click('#step-back');
    await waitTokenCount(page, full - 1);
    await settled(page);
    await page.selectOption('#kind-select', 'decoderSelf');
    await settled(page);
    await page.selectOption('#layer-select', '1');
    await settled(page);
    await page.selectOption('#head-select', '2');
    await settled(page);
    await page.check('#hide-sinks');
    await page.click('#focus-heatmap button.transpose');
    await settled(page);
    await page.click('#copy-link');
    await page.waitForFunction(() => document.getElementById('copy-link').textContent === 'Link copied ✓');
    const link = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(link, page.url());
    const hash = new URL(link).hash;
    assert.match(hash, /(^#|&)k=decoderSelf(&|$)/);
    assert.match(hash, /&l=1&h=2&sinks=1&tr=1&/);
    assert.match(hash, /&f=1%3A\d+&s=\d+&/);
    const before = await snapshot(page);
    assert.deepEqual(before.forced, [forcedToken]);
    assert.equal(before.status, `${full - 2} tokens decoded`);

    // Another context (another machine, as far as the page can tell) opens the link.
    const b = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const other = await b.newPage();
    await other.goto(link);
    await waitReady(other);
    await other.waitForFunction((n) => document.querySelectorAll('#output-tokens .token').length === n, full - 1);
    await settled(other);
    assert.deepEqual(await snapshot(other), before);
    assert.equal(new URL(other.url()).hash, hash, 'the link it shows is the one it was given');
  });
});

test('back and forward move through committed sentences and steps, not through heads looked at', { timeout: 240_000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    const start = await page.evaluate(() => history.length);
    await typeSettled(page, 'My father likes drinking tea.');
    const tea = await page.evaluate(() => document.body.dataset.output);
    assert.match(tea, /^我父亲/);
    await page.waitForTimeout(1600); // the sentence is committed
    await page.selectOption('#layer-select', '2'); // looking elsewhere: no entry of its own
    await settled(page);
    await page.click('#step-reset');
    await waitTokenCount(page, 1);
    await settled(page);
    await page.click('#step-forward');
    await waitTokenCount(page, 2);
    await settled(page);
    assert.equal(await page.evaluate(() => history.length), start + 3, 'three entries: the sentence, reset, one step');

    await page.goBack();
    await waitTokenCount(page, 1);
    await settled(page);
    assert.equal(await page.locator('#step-status').textContent(), '0 tokens decoded');
    await page.goBack();
    await page.waitForFunction((o) => document.body.dataset.output === o, tea);
    await settled(page);
    assert.equal(await page.locator('#layer-select').inputValue(), '2', 'the layer looked at stays in the entry');
    await page.goBack();
    await page.waitForFunction(() => document.body.dataset.output === '我爱吃苹果。');
    assert.equal(await page.locator('#source-input').inputValue(), 'I love eating apples.');
    await page.goForward();
    await page.waitForFunction((o) => document.body.dataset.output === o, tea);
    assert.equal(await page.locator('#source-input').inputValue(), 'My father likes drinking tea.');
  });
});

test('an unknown or corrupt fragment falls back to the defaults and says what it could not use', { timeout: 120_000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${site.origin}/?test&backend=cpu#m=nope&k=zzz&l=-1&f=1:2,0:3&s=x&%ZZ=1&zz=3`);
    await waitReady(page);
    await page.waitForFunction(() => /Parts of the link/.test(document.getElementById('message').textContent));
    assert.equal(await page.evaluate(() => document.body.dataset.output), '我爱吃苹果。');
    assert.equal(await page.locator('#kind-select').inputValue(), 'cross');
    assert.equal(await page.locator('#layer-select').inputValue(), '0');
    assert.equal(
      await page.locator('#message').textContent(),
      'Parts of the link could not be used, so their defaults are shown: unknown field “%ZZ”; unknown field “zz”; “nope” is not a valid value for “m”; “1:2,0:3” is not a valid value for “f”; “x” is not a valid value for “s”; “zzz” is not a valid value for “k”; “-1” is not a valid value for “l”.',
    );
    // The page rewrites the link to what it shows.
    assert.equal(new URL(page.url()).hash, '#m=en-zh&t=I+love+eating+apples.&b=cpu&lang=en');
    const fresh = await page.context().newPage();
    fresh.on('pageerror', (error) => errors.push(String(error)));
    await fresh.goto(`${site.origin}/?test&backend=cpu#%E0%A4%A%%%&&==`);
    await waitReady(fresh);
    assert.equal(await fresh.evaluate(() => document.body.dataset.output), '我爱吃苹果。');
    assert.deepEqual(errors, []);
  });
});

// The key flow of the page, as a person would use it, on the CPU and on WebGPU.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ARTIFACTS,
  canvasColours,
  currentTrace,
  download,
  exportButton,
  servePage,
  shownOutput,
  typeSettled,
  waitBackend,
  waitMessage,
  waitOutput,
  waitReady,
  waitSettled,
  waitTokenCount,
  withPage,
} from './harness.mjs';

const site = servePage();

const showsApples = () => document.body.dataset.output.replace(/。$/, '') === '我爱吃苹果';

async function keyFlow(page, label) {
  await waitReady(page);
  assert.equal((await shownOutput(page)).replace(/。$/, ''), '我爱吃苹果');
  // Type the sentence like a person.
  await typeSettled(page, 'I love eating apples.', 20);
  await waitOutput(page, showsApples);
  assert.ok((await canvasColours(page, '#focus-heatmap canvas.matrix')) > 3, 'focused heatmap is blank');
  assert.ok((await page.locator('#model-view canvas').count()) >= 3 * 4, 'model view thumbnails missing');
  assert.ok((await canvasColours(page, '#model-view canvas')) > 3, 'thumbnail is blank');
  assert.ok((await canvasColours(page, '#head-view canvas')) > 3, 'head view is blank');
  // Step through decoding: reset, two steps forward, one back.
  await page.click('#step-reset');
  await waitTokenCount(page, 1);
  await page.click('#step-forward');
  await waitTokenCount(page, 2);
  await page.click('#step-forward');
  await waitTokenCount(page, 3);
  await waitReady(page); // the views after the focused heatmap are drawn in later tasks
  assert.equal(await page.locator('#stepper .step-row').count(), 2);
  assert.ok((await page.locator('#stepper .step-row').first().locator('.candidate').count()) >= 2);
  await page.click('#step-back');
  await waitTokenCount(page, 2);
  await page.click('#step-end');
  await waitOutput(page, showsApples);
  // Hover a heatmap cell: the exact value and both tokens appear.
  const heatmap = page.locator('#focus-heatmap canvas.matrix');
  const box = await heatmap.boundingBox();
  await heatmap.hover({ position: { x: box.width * 0.3, y: 5 } });
  const hover = await page.locator('#hover-value').textContent();
  assert.match(hover, /→ .+: \d\.\d+/, `hover text: ${hover}`);
  await page.screenshot({ path: `${ARTIFACTS}screenshots/${label}-page.png`, fullPage: true });
  await page.locator('#focus-heatmap').screenshot({ path: `${ARTIFACTS}screenshots/${label}-heatmap.png` });
}

test('key flow on the CPU, model switching, then WebGPU agrees with the CPU', { timeout: 300_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, offOrigin, cspViolations, consoleErrors }) => {
    await keyFlow(page, 'cpu');
    const cpuTrace = await currentTrace(page);
    assert.equal(cpuTrace.backend, 'cpu');
    // Switch to date-iso and back.
    await page.selectOption('#model-select', 'date-iso');
    await waitOutput(page, () => document.body.dataset.output === '1958-08-29');
    await page.locator('#stages').screenshot({ path: `${ARTIFACTS}screenshots/date-iso-stages.png` });
    await page.selectOption('#model-select', 'en-zh');
    await waitOutput(page, showsApples);
    // Switch the backend to WebGPU (SwiftShader here) and compare every attention number.
    await page.selectOption('#backend-select', 'webgpu');
    await waitBackend(page, 'webgpu');
    await waitOutput(page, showsApples);
    const gpuTrace = await currentTrace(page);
    assert.equal(gpuTrace.backend, 'webgpu');
    assert.deepEqual(gpuTrace.srcTokens, cpuTrace.srcTokens);
    assert.deepEqual(gpuTrace.tgtIds, cpuTrace.tgtIds);
    for (const key of ['encoder', 'decoder', 'cross']) {
      assert.equal(gpuTrace[key].length, cpuTrace[key].length);
      const worst = gpuTrace[key].reduce((m, v, i) => Math.max(m, Math.abs(v - cpuTrace[key][i])), 0);
      assert.ok(worst <= 1e-4, `${key}: WebGPU and CPU differ by ${worst}`);
      console.log(`# ${key}: max |WebGPU − CPU| = ${worst.toExponential(2)}`);
    }
    await keyFlow(page, 'webgpu');
    for (const section of ['#masks', '#positional', '#model-view', '#stepper', '#head-view']) {
      await page.locator(section).screenshot({ path: `${ARTIFACTS}screenshots/${section.slice(1)}.png` });
    }
    assert.deepEqual(offOrigin, [], 'requests left the origin');
    assert.deepEqual(cspViolations, [], 'CSP violations');
    assert.deepEqual(await page.evaluate(() => window.__csp), []);
    assert.deepEqual(
      consoleErrors.filter((e) => !/GPU|WebGPU|wgpu/i.test(e)),
      [],
    );
  }),
);

/** The paths the page and its workers asked for, from the URLs the context heard. */
const paths = (requests) => [...new Set(requests.map((url) => new URL(url).pathname))];

test('the page as a person opens it loads no test code, in the page or its worker; ?test loads both harnesses', {
  timeout: 120_000,
}, async () => {
  await withPage(
    site.origin,
    '?backend=cpu',
    async ({ page, requests }) => {
      await waitReady(page);
      await waitOutput(page, showsApples);
      const asked = paths(requests);
      // The record holds the worker's own modules: what a worker fetches is heard too.
      for (const path of ['/pkg/page/main.js', '/pkg/page/worker.js', '/pkg/cpu/attnscope.js'])
        assert.ok(asked.includes(path), `${path} is not among the requests: ${asked.join(' ')}`);
      assert.deepEqual(
        asked.filter((path) => path.includes('testing')),
        [],
      );
      assert.equal(await page.evaluate(() => '__attnscope' in window), false);
    },
    { test: false },
  );
  await withPage(site.origin, '?backend=cpu', async ({ page, requests }) => {
    await waitReady(page);
    assert.deepEqual(
      paths(requests).filter((path) => path.includes('testing')),
      ['/pkg/page/testing-hooks.js', '/pkg/page/testing-worker-hooks.js'],
    );
  });
});

test("a first visit fetches the CPU module and each of the first model's files once, the files read while the module loads; a reload fetches neither, the module taken from the browser's HTTP cache", {
  timeout: 120_000,
}, async () => {
  // What the server answered (the browser's requests also count a look into its own HTTP cache).
  const answered = [];
  const hear = (request) => answered.push(new URL(request.url, site.origin).pathname);
  site.server.on('request', hear);
  const served = (path) => answered.filter((p) => p === path).length;
  const MODULE = '/pkg/cpu/attnscope_bg.wasm';
  try {
    await withPage(site.origin, '?backend=cpu', async ({ page, requests }) => {
      await waitReady(page);
      await waitOutput(page, showsApples);
      const index = await page.evaluate(async () => (await fetch('/models/index.json')).json());
      const model = index.models.find((m) => m.name === index.default);
      const fetched = (path) => requests.filter((url) => new URL(url).pathname === path).length;
      // www/boot.js runs on its own, before the bundle (pkg/page/boot.js).
      assert.equal(fetched('/pkg/page/boot.js'), 1);
      assert.equal(served(MODULE), 1);
      // The page's hint (prefetch) and init read the same files: one request each, no second read.
      const top = Object.keys(model.files).filter((name) => !name.includes('/'));
      assert.deepEqual(top.toSorted(), [
        'config.json',
        'heads.json',
        'model.safetensors',
        'src_tokenizer.json',
        'tgt_tokenizer.json',
        'timeline.json',
        'train_log.tsv',
      ]);
      for (const name of top)
        assert.equal(fetched(`/models/${model.name}/${name}`), 1, `${name} fetched ${fetched(`/models/${model.name}/${name}`)} times`);
      // Read before init began (the page's `prefetch`, www/worker/model.js), not by init.
      const [worker] = page.workers();
      const [requested, init] = await worker.evaluate(() => [
        performance.getEntriesByType('resource').find((entry) => entry.name.includes('/model.safetensors')).startTime,
        performance.getEntriesByName('init: model files')[0].startTime,
      ]);
      assert.ok(requested < init, `the weights were requested at ${requested} ms, init began at ${init} ms`);
      // The timeline's snapshots are read when one is picked, not at load.
      assert.equal(requests.filter((url) => new URL(url).pathname.startsWith(`/models/${model.name}/timeline/`)).length, 0);
      // Reloaded, the files come from the Cache API and the module from the browser's HTTP cache
      // (asked once: www/worker/cache.js fromHttpCache), where V8 may keep its compiled code:
      // nothing is fetched again, and the page shows the same answer.
      const asked = fetched(MODULE);
      await page.reload();
      await waitReady(page);
      await waitOutput(page, showsApples);
      assert.equal(served(MODULE), 1, 'the module was fetched again');
      assert.equal(fetched(MODULE), asked + 1);
      for (const name of top) assert.equal(fetched(`/models/${model.name}/${name}`), 1, `${name} fetched again`);
    });
  } finally {
    site.server.off('request', hear);
  }
});

test('auto: a software-only WebGPU adapter (SwiftShader) keeps the faster CPU backend and says why', { timeout: 120_000 }, () =>
  withPage(site.origin, '?backend=auto', async ({ page }) => {
    await waitReady(page);
    await waitOutput(page, showsApples);
    await waitMessage(page, /software fallback/);
    assert.equal(await page.locator('#backend-badge').getAttribute('data-backend'), 'cpu');
    await typeSettled(page, 'My father likes drinking tea.');
    await waitOutput(page, () => document.body.dataset.output.startsWith('我父亲'));
  }),
);

test('clicking a candidate forces it, and decoding continues from it', { timeout: 120_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await waitReady(page);
    await waitOutput(page, showsApples);
    const candidate = page.locator('#stepper .step-row').first().locator('.candidate:not(.chosen)').first();
    const token = (await candidate.textContent()).replace(/ [\d.]+%$/, '');
    await candidate.click();
    await page.waitForFunction(
      (t) => document.body.dataset.ready === 'true' && document.querySelectorAll('#output-tokens .token')[1]?.textContent === t,
      token,
      { timeout: 30_000 },
    );
    const forced = page.locator('#output-tokens .token.forced');
    assert.equal(await forced.count(), 1);
    assert.equal(await forced.textContent(), token);
    assert.match(await page.locator('#step-status').textContent(), /finished/);
    assert.deepEqual(consoleErrors, []);
  }),
);

/**
 * The order in which the views were first drawn for the redraw that `act` causes: the names of the
 * page's `render: …` measures from then on.
 */
async function drawOrder(page, act) {
  const from = await page.evaluate(() => performance.now());
  await act();
  await waitSettled(page);
  const names = await page.evaluate(
    (t) =>
      performance
        .getEntriesByType('measure')
        .filter((m) => m.name.startsWith('render: ') && m.startTime >= t)
        .map((m) => m.name.slice('render: '.length)),
    from,
  );
  return [...new Set(names)];
}

/** Whether the panels of the elements `ids` show in the window, by id. */
const inSight = (page, ids) =>
  page.evaluate(
    (list) =>
      Object.fromEntries(
        list.map((id) => {
          const box = document.getElementById(id).closest('section').getBoundingClientRect();
          return [id, box.top < innerHeight && box.bottom > 0];
        }),
      ),
    ids,
  );

test(
  'a redraw draws the views in sight first: the stepper while typing, the model view when a head is picked there',
  { timeout: 120_000 },
  () =>
    withPage(site.origin, '?backend=cpu', async ({ page }) => {
      await waitReady(page);
      await waitOutput(page, showsApples);
      // The first answer's views are drawn a task each: a measure of its last views taken after the
      // key press would read as the typing's own order (it did, once, on a loaded machine).
      await waitSettled(page);
      // Typing (1280 × 900): the stepper is in sight below the sentence, the masks at the bottom are not.
      await page.locator('#source-input').click();
      await page.keyboard.press('End');
      const typing = await drawOrder(page, () => page.keyboard.press('Space'));
      assert.deepEqual(await inSight(page, ['stepper', 'masks']), { stepper: true, masks: false });
      assert.deepEqual(typing.slice(0, 2), ['focus, buttons', 'tokens']);
      assert.ok(typing.indexOf('stepper') < typing.indexOf('masks'), `order while typing: ${typing.join(', ')}`);
      assert.ok(typing.indexOf('stepper') < typing.indexOf('model view: encoderSelf'), `order while typing: ${typing.join(', ')}`);
      // Scrolled down to the model view, a click on a thumbnail: the model view comes before the stepper.
      const thumb = page.locator('#model-view button.thumb[data-kind=encoderSelf][data-layer="1"][data-head="2"]');
      await thumb.scrollIntoViewIfNeeded();
      const picking = await drawOrder(page, () => thumb.click());
      assert.deepEqual(await inSight(page, ['stepper', 'model-view']), { stepper: false, 'model-view': true });
      assert.ok(picking.indexOf('model view: encoderSelf') < picking.indexOf('stepper'), `order when picking: ${picking.join(', ')}`);
      assert.deepEqual(await page.evaluate(() => window.__attnscope.state.selection), { kind: 'encoderSelf', layer: 1, head: 2 });
      // Every view was drawn, in sight or not.
      for (const order of [typing, picking])
        for (const view of ['stepper', 'masks', 'journey', 'comparison']) assert.ok(order.includes(view), view);
      assert.equal(await page.locator('#source-input').inputValue(), 'I love eating apples. ');
    }),
);

/**
 * The stepper's rows as laid out: each token's text, its box's and its text's width, whether it sits on one line, how far
 * its right edge is from its bars' left edge, and where the bars start.
 */
const stepperColumns = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('#stepper .step-row')].map((row) => {
      const token = row.querySelector('.new-token');
      const range = document.createRange();
      range.selectNodeContents(token);
      const box = token.getBoundingClientRect();
      const text = range.getBoundingClientRect();
      const bars = row.querySelector('.bars-scroll').getBoundingClientRect();
      return {
        text: token.textContent,
        width: box.width,
        textWidth: text.width,
        lines: range.getClientRects().length,
        // From the token's box or its text, whichever reaches further right, to its bars.
        gap: bars.left - Math.max(box.right, text.right),
        barsLeft: bars.left,
      };
    }),
  );

/**
 * The stepper's exported SVG, drawn in the page: where it starts, where its ▁weather starts and
 * ends, and where the leftmost source word (今) starts.
 */
async function exportedStepper(page) {
  const xml = (await download(page, exportButton('stepper', 'svg'))).bytes.toString('utf8');
  return page.evaluate((text) => {
    const svg = document.importNode(new DOMParser().parseFromString(text, 'image/svg+xml').documentElement, true);
    document.body.append(svg);
    const texts = [...svg.querySelectorAll('text')];
    const token = texts.find((t) => t.textContent === '▁weather').getBoundingClientRect();
    const words = texts.filter((t) => t.textContent === '今').map((t) => t.getBoundingClientRect().left);
    const box = { left: svg.getBoundingClientRect().left, tokenLeft: token.left, tokenRight: token.right, wordsLeft: Math.min(...words) };
    svg.remove();
    return box;
  }, xml);
}

/** Every row's token on one line, left of its bars, the bars of every row starting at one x; returns the rows. */
async function assertTokensFit(page, minimum) {
  const rows = await stepperColumns(page);
  assert.ok(rows.length >= 5, `${rows.length} rows`);
  for (const row of rows) {
    assert.equal(row.lines, 1, `${row.text} wraps`);
    assert.ok(row.gap >= 0, `${row.text} runs ${-row.gap} px into its bars`);
    assert.ok(row.width >= minimum - 0.5, `${row.text}'s column is ${row.width} px`);
    assert.equal(row.barsLeft, rows[0].barsLeft, `${row.text}'s bars start elsewhere`);
  }
  return rows;
}

test("the stepper's token column holds its longest token, on a desktop and on a phone", { timeout: 120_000 }, () =>
  withPage(site.origin, '?model=zh-en&backend=cpu', async ({ page, consoleErrors }) => {
    await waitReady(page);
    await typeSettled(page, '今天天气很好。');
    assert.equal(await shownOutput(page), 'The weather is very nice today.');
    const desktop = await assertTokensFit(page, 70);
    const widest = desktop.reduce((a, b) => (b.textWidth > a.textWidth ? b : a));
    // ▁weather and its padding are wider than the 70 px the column had: it ran over its bars.
    assert.equal(widest.text, '▁weather');
    assert.ok(widest.width > 70, `${widest.text} is ${widest.width} px`);
    assert.ok(widest.width >= widest.textWidth + 14, `${widest.text}: ${widest.textWidth} px in ${widest.width}`);
    await page.locator('#stepper').screenshot({ path: `${ARTIFACTS}screenshots/stepper-long-token.png` });
    // The exported figure (SVG) measures its column too: ▁weather ends left of the first source word.
    const figure = await exportedStepper(page);
    assert.ok(figure.tokenLeft >= figure.left, `▁weather starts ${figure.left - figure.tokenLeft} px outside the figure`);
    assert.ok(figure.tokenRight < figure.wordsLeft, `▁weather ends at ${figure.tokenRight}, the words start at ${figure.wordsLeft}`);
    // On a phone (the phone layout's 56 px minimum), the same.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('#stepper .step-list')).gridTemplateColumns.split(' ').length === 2,
    );
    await assertTokensFit(page, 56);
    await page.locator('#stepper').screenshot({ path: `${ARTIFACTS}screenshots/stepper-long-token-phone.png` });
    assert.deepEqual(consoleErrors, []);
  }),
);

// The playground panel (www/playground/): it opens with the training module's defaults on its
// switches, refuses an out-of-range link setting by name, trains reverse (seed 1) to ≥ 99 %
// held-out greedy exact match and shows the worker's own figure, never leaving the page 2 s
// without a message from the training worker on the way (its heartbeats, www/trainer/run.js; the
// page's liveness watch, app/liveness.js, ends a worker silent for 30 s), and stops a diverging
// run with a message naming the step, in English and Chinese, keeping the chart. Screenshots of
// the panel at 1280 × 900 and 390 × 844 go to artifacts/screenshots/ (and /tmp/).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ARTIFACTS, launchChromium, servePage, testMode } from './harness.mjs';

const site = servePage();
/** The largest gap allowed between two messages from the training worker while it trains. */
const MAX_GAP_MS = 2000;
const WWW = new URL('../../www/', import.meta.url).pathname;
const words = {
  en: JSON.parse(readFileSync(`${WWW}ui/i18n/playground.en.json`, 'utf8')),
  'zh-CN': JSON.parse(readFileSync(`${WWW}ui/i18n/playground.zh-CN.json`, 'utf8')),
};
/** The text of `key` in `lang` with its {placeholders} filled, as the page's t() fills them. */
const say = (lang, key, params) => words[lang][key].replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));

/** The training module's facts, read in node from the built module (pkg/train), as the worker reads them. */
async function trainingFacts() {
  const glue = await import('../../pkg/train/attnscope.js');
  glue.initSync({ module: readFileSync(new URL('../../pkg/train/attnscope_bg.wasm', import.meta.url)) });
  return glue.playgroundFacts();
}

/**
 * A page at `hash` (CPU backend) in a fresh context of `browser`, recording what the training
 * worker posts besides heartbeats, reports and snapshots (`seen(page)` reads it), when each of its
 * messages reached the page (`window.__trainerMessages`: { at, type }) and long tasks.
 */
async function openPage(browser, hash = '', viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, locale: 'en-US' });
  await context.addInitScript(() => {
    window.__trainerMessages = [];
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(url, options) {
        super(url, options);
        if (!String(url).includes('/trainer/worker.js')) return;
        this.addEventListener('message', ({ data }) => {
          window.__trainerMessages.push({ at: performance.now(), type: data?.type ?? 'reply' });
        });
      }
    };
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, ms: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('worker', (worker) => {
    if (!worker.url().includes('/trainer/worker.js')) return;
    page.trainer = worker;
    worker
      .evaluate(() => {
        self.__seen = [];
        const post = self.postMessage.bind(self);
        self.postMessage = (message, transfer) => {
          if (message && ['evaluation', 'state'].includes(message.type)) self.__seen.push(message);
          return post(message, transfer);
        };
      })
      .catch(() => {});
  });
  await page.goto(`${site.origin}/${testMode(`?backend=cpu${hash}`)}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120_000 });
  return { page, errors };
}

/** What the training worker has posted (evaluations and states), oldest first. */
const seen = (page) => page.trainer.evaluate(() => self.__seen);

/** Open the playground (app/main.js loads the panel) and wait for its first run. */
async function openPlayground(page) {
  // A link with playground settings opens it by itself (app/main.js).
  if (!(await page.evaluate(() => document.getElementById('playground-details').open))) await page.click('#playground-details summary');
  await page.waitForFunction(() => document.getElementById('playground').dataset.ready === 'true', null, { timeout: 120_000 });
}

const panelText = (page, selector) => page.locator(`#playground ${selector}`).textContent();

test('the switches show the module defaults; a link with heads=3 is refused by name', { timeout: 240_000 }, async () => {
  const facts = await trainingFacts();
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser, '#pg=heads:3');
    await openPlayground(page);
    const shown = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('#playground [data-field]:is(select, input)')].map((c) => [c.dataset.field, c.value]),
      ),
    );
    assert.deepEqual(shown, Object.fromEntries(Object.entries(facts.defaults).map(([field, value]) => [field, String(value)])));
    const message = await panelText(page, '.playground-message');
    const refusal = say('en', 'playground.link.range', { field: 'heads', value: '3', expected: '1, 2 or 4' });
    assert.equal(message, say('en', 'playground.link.refused', { list: refusal }));
    // The link now carries the run that started (the defaults, so an empty field) and the page
    // shows its model, which loads after the page's own (app/playground-model.js openRun).
    const runLink = /(^#|&)m=local%3Aplayground-reverse&.*(^#|&)pg=($|&)/;
    await page.waitForFunction((source) => new RegExp(source).test(location.hash), runLink.source, { timeout: 60_000 }).catch(() => {});
    assert.match(await page.evaluate(() => location.hash), runLink);
    assert.equal(await page.inputValue('#model-select'), 'local:playground-reverse');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

/**
 * The training worker's messages from `from` to `to` (page ms): how many, and the largest gap
 * between two of them (the three largest are logged).
 */
async function messageGaps(page, from, to) {
  const messages = await page.evaluate(({ from, to }) => window.__trainerMessages.filter((m) => m.at >= from && m.at <= to), {
    from,
    to,
  });
  const times = messages.map((m) => m.at);
  const gaps = [{ ms: times[0] - from, after: 'Train', before: messages[0].type, at: 0 }].concat(
    messages.slice(1).map((m, i) => ({ ms: m.at - times[i], after: messages[i].type, before: m.type, at: times[i] - from })),
  );
  gaps.sort((a, b) => b.ms - a.ms);
  const said = gaps
    .slice(0, 3)
    .map((g) => `${g.ms.toFixed(1)} ms (${g.after} → ${g.before}, ${(g.at / 1000).toFixed(2)} s after Train)`)
    .join(', ');
  console.log(`# ${times.length} messages in ${((to - from) / 1000).toFixed(1)} s of training; largest gaps ${said}`);
  return { count: messages.length, largest: gaps[0] };
}

test('reverse, seed 1, trains to ≥ 99 % greedy exact match, shown as the worker measured it, with a message at least every 2 s', {
  timeout: 300_000,
}, async () => {
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser);
    await openPlayground(page);
    const shown = await page.evaluate(() =>
      Object.fromEntries(
        ['task', 'seed', 'steps'].map((f) => [f, document.querySelector(`#playground [data-field=${f}]:is(select, input)`).value]),
      ),
    );
    assert.deepEqual(shown, { task: 'reverse', seed: '1', steps: '1500' });
    await page.waitForFunction(() => !document.querySelector('#playground .run-train').disabled, null, { timeout: 60_000 });
    const before = await page.evaluate(() => window.__longTasks.length);
    const started = Date.now();
    const from = await page.evaluate(() => performance.now());
    await page.click('#playground .run-train');
    await page.waitForFunction(() => document.getElementById('playground').dataset.state === 'done', null, { timeout: 240_000 });
    const to = await page.evaluate(() => performance.now());
    const seconds = (Date.now() - started) / 1000;
    const { count, largest } = await messageGaps(page, from, to);
    assert.ok(count > 100, `${count} messages`);
    assert.ok(largest.ms < MAX_GAP_MS, `largest gap ${largest.ms.toFixed(1)} ms`);
    const evaluations = (await seen(page)).filter((m) => m.type === 'evaluation').map((m) => m.evaluation);
    const last = evaluations.at(-1);
    assert.equal(last.step, 1500);
    assert.ok(last.exactMatch >= 0.99, `exact match ${last.exactMatch}`);
    const exact = page.locator('#playground dd[data-figure=exact]');
    assert.equal(await exact.getAttribute('data-exact-match'), String(last.exactMatch));
    const share = `${Number((last.exactMatch * 100).toFixed(1))} %`;
    assert.equal(
      await exact.textContent(),
      say('en', 'playground.exactValue', { share, correct: last.correct, total: last.total, step: 1500 }),
    );
    assert.equal(await panelText(page, 'dd[data-figure=step]'), '1500 / 1500');
    const longTasks = (await page.evaluate(() => window.__longTasks)).slice(before);
    console.log(
      `# trained 1500 steps in ${seconds.toFixed(1)} s; ${evaluations.length} evaluations; long tasks: ${JSON.stringify(longTasks)}`,
    );
    assert.equal(await page.locator('#playground .playground-samples li.correct').count(), last.samples.filter((s) => s.correct).length);
    await page.locator('#playground-panel').screenshot({ path: `${ARTIFACTS}screenshots/playground-1280.png` });
    await page.locator('#playground-panel').screenshot({ path: '/tmp/playground-1280.png' });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a learning rate of 1000 without LayerNorm diverges: the step is named in English and Chinese, the chart stays', {
  timeout: 240_000,
}, async () => {
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser, '#pg=learningRate:1000,normalisation:none,steps:300');
    await openPlayground(page);
    await page.click('#playground .run-train');
    await page.waitForFunction(() => document.getElementById('playground').dataset.state === 'diverged', null, { timeout: 120_000 });
    const { problem } = (await seen(page)).findLast((m) => m.type === 'state');
    assert.equal(problem.key, 'error.diverged');
    const { step, kept } = problem.params;
    assert.ok(Number(step) >= 1 && Number(step) < 300, `step ${step}`);
    assert.ok(Number(kept) < Number(step), `kept ${kept}`);
    const loss = { inf: '∞', '-inf': '−∞' }[problem.params.loss] ?? problem.params.loss;
    console.log(`# diverged: ${JSON.stringify(problem.params)}`);
    await page.waitForFunction(() => !document.querySelector('#playground .playground-message').hidden);
    assert.equal(await panelText(page, '.playground-message'), say('en', 'error.diverged', { step, loss, kept }));
    const chart = await page.evaluate(() => {
      const canvas = document.querySelector('#playground canvas.playground-chart');
      return { width: canvas?.width ?? 0, connected: Boolean(canvas?.isConnected) };
    });
    assert.ok(chart.connected && chart.width > 0);
    assert.equal(await page.locator('#playground .run-download').isDisabled(), false);
    await page.selectOption('#language-select', 'zh-CN');
    assert.equal(await panelText(page, '.playground-message'), say('zh-CN', 'error.diverged', { step, loss, kept }));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('phone: the panel fits 390 px, its buttons are at least 44 px tall', { timeout: 180_000 }, async () => {
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser, '', { width: 390, height: 844 });
    await openPlayground(page);
    const layout = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      panel: document.getElementById('playground-panel').scrollWidth,
      short: [...document.querySelectorAll('#playground button, #playground select, #playground input')]
        .map((b) => ({ name: b.className || b.id, height: b.getBoundingClientRect().height }))
        .filter((b) => b.height < 44),
    }));
    assert.ok(layout.scroll <= 390 && layout.panel <= 390, JSON.stringify(layout));
    assert.deepEqual(layout.short, []);
    await page.locator('#playground-panel').screenshot({ path: `${ARTIFACTS}screenshots/playground-390.png` });
    await page.locator('#playground-panel').screenshot({ path: '/tmp/playground-390.png' });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

// The playground's figures in docs/playground.md, made by the page itself in headless Chromium
// (run it after scripts/build-wasm.sh; about a minute and a half on 2 cores):
//   docs/playground-a.png         experiment A's two curves (reverse, seed 1: positions on, then off)
//   docs/playground-reversal.png  the cross-attention heatmap of the run's example at steps 64, 256 and 1500
//   node scripts/playground-figures.mjs
import { join } from 'node:path';
import { launchChromium, startServer, testMode } from '../tests/browser/harness.mjs';

const DOCS = new URL('../docs/', import.meta.url).pathname;
const STEPS = [64, 256, 1500];

const { server, origin } = await startServer();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(`${origin}/${testMode('?backend=cpu')}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120_000 });
  await page.click('#playground-details summary');
  await page.waitForSelector('#playground[data-ready="true"]', { timeout: 120_000 });
  await page.waitForFunction(() => document.body.dataset.snapshot === '0');
  await page.selectOption('#kind-select', 'cross');

  // The reversal anti-diagonal forming: train the baseline, then pick three snapshots.
  await page.click('#playground button.run-train');
  await page.waitForFunction(() => document.body.dataset.snapshot === '1500', null, { timeout: 120_000 });
  const shots = [];
  for (const step of STEPS) {
    const index = await page.evaluate((want) => window.__attnscope.state.timeline.snapshots.findIndex((s) => s.step === want), step);
    await page.$eval(
      '#timeline input[type=range]',
      (slider, value) => {
        slider.value = String(value);
        slider.dispatchEvent(new Event('input'));
      },
      index,
    );
    await page.waitForFunction((want) => document.body.dataset.snapshot === String(want) && document.body.dataset.ready === 'true', step);
    shots.push({ step, png: (await page.locator('#focus-heatmap canvas').first().screenshot()).toString('base64') });
  }
  // Side by side, each with its step, laid out by the browser.
  const strip = await browser.newPage({ viewport: { width: 1800, height: 900 }, deviceScaleFactor: 1 });
  const figures = shots
    .map(({ step, png }) => `<figure><img src="data:image/png;base64,${png}"><figcaption>step ${step}</figcaption></figure>`)
    .join('');
  await strip.setContent(
    `<body style="margin:0;background:#111;color:#ddd;font:16px sans-serif"><div id="strip" style="display:inline-flex;gap:12px;padding:8px">${figures}</div></body>`,
  );
  await strip.locator('#strip').screenshot({ path: join(DOCS, 'playground-reversal.png') });

  // Experiment A: both runs on one chart, and the outcome the panel states.
  await page.click('#playground .playground-presets button >> nth=0');
  // The run on screen has steps: the panel asks before throwing it away.
  const discard = page.locator('#playground .confirm-discard');
  if (await discard.isVisible()) await discard.click();
  await page.waitForSelector('#playground .playground-outcome:not([hidden])', { timeout: 180_000 });
  await page.locator('#playground .playground-chart-box').screenshot({ path: join(DOCS, 'playground-a.png') });
  console.log(await page.textContent('#playground .playground-outcome'));
} finally {
  await browser.close();
  server.close();
}

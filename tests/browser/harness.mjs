// Shared set-up for the browser tests: serve the page on 127.0.0.1, launch Debian's Chromium
// (headless, WebGPU through SwiftShader), record CSP violations and any request off the origin.
// The tests open the page in its test mode (`?test`, www/boot.js): the harness of www/testing/
// gives them `window.__attnscope` (the page's state, a way to ask its worker, its test hooks).

import { mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { refreshPage } from '../../scripts/build-page.mjs';
import { makeServer } from '../../scripts/serve.mjs';

export const ARTIFACTS = new URL('../../artifacts/', import.meta.url).pathname;
mkdirSync(`${ARTIFACTS}screenshots`, { recursive: true });

/** WebGPU on SwiftShader: with them Chromium also composites the page through SwiftShader, on the CPU. */
export const SWIFTSHADER_GPU_ARGS = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader'];

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  ...SWIFTSHADER_GPU_ARGS,
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

export async function startServer() {
  await refreshPage(); // the page's bundle (pkg/page/) of www/ as it is now
  const server = makeServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { server, origin: `http://127.0.0.1:${port}` };
}

/** The page served for one test file: `site.origin` is set before its first test, the server closed after the last. */
export function servePage() {
  const site = { server: null, origin: null };
  before(async () => Object.assign(site, await startServer()));
  after(() => site.server.close());
  return site;
}

/** Debian's Chromium with `args` (the harness's by default). */
export function launchChromium(args = CHROMIUM_ARGS) {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args });
}

/** `body(browser)` with Chromium launched with `args`; the browser is closed after, whatever happens. */
export async function withBrowser(body, args = CHROMIUM_ARGS) {
  const browser = await launchChromium(args);
  try {
    return await body(browser);
  } finally {
    await browser.close();
  }
}

/** `query` ('?a=b#c', '#c' or '') with the page's test mode on: '?test&a=b#c'. */
export function testMode(query = '') {
  const cut = query.indexOf('#');
  const search = (cut < 0 ? query : query.slice(0, cut)).replace(/^\?/, '');
  return `?test${search ? `&${search}` : ''}${cut < 0 ? '' : query.slice(cut)}`;
}

/**
 * `body(opened)` with a page of a fresh browser opened at `origin/query` in test mode (`test:
 * false`: as a person opens it), where `opened` is { browser, context, page, offOrigin,
 * consoleErrors, cspViolations, requests }; the browser is closed after.
 */
export function withPage(origin, query, body, { test = true } = {}) {
  return withBrowser(async (browser) => body(await openPage(browser, origin, test ? testMode(query) : query)));
}

/**
 * A page in `browser` at `origin/query` that records requests off the origin, console errors and
 * CSP violations, and every URL the page and its workers request (`requests`).
 */
async function openPage(browser, origin, query) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const requests = [];
  // The context hears the page's requests and its workers' (their scripts and modules too).
  context.on('request', (request) => requests.push(request.url()));
  const offOrigin = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) {
      offOrigin.push(url);
      return route.abort();
    }
    return route.continue();
  });
  const page = await context.newPage();
  const consoleErrors = [];
  const cspViolations = [];
  page.on('console', (msg) => {
    const text = msg.text();
    if (/Content Security Policy|Refused to/i.test(text)) cspViolations.push(text);
    if (msg.type() === 'error') consoleErrors.push(text);
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    window.__dialogs = 0;
    window.alert = () => {
      window.__dialogs += 1;
    };
  });
  page.on('dialog', (dialog) => dialog.dismiss());
  await page.goto(`${origin}/${query}`);
  return { browser, context, page, offOrigin, consoleErrors, cspViolations, requests };
}

/**
 * The wasm module's facts (www/worker/modules.js `facts`: the attention kinds, the decodings, …),
 * read from the built CPU module (pkg/cpu) in node, as the page's worker reads them.
 */
export async function moduleFacts() {
  const glue = await import('../../pkg/cpu/attnscope.js');
  glue.initSync({ module: readFileSync(new URL('../../pkg/cpu/attnscope_bg.wasm', import.meta.url)) });
  return { kinds: glue.attentionKinds(), decodings: glue.decodings(), maxBeamWidth: glue.maxBeamWidth(), backends: glue.backends() };
}

/** What the page shows of the decoding and of the head looked at: the tests compare it before and after. */
export const decodingShown = (page) =>
  page.evaluate(() => ({
    output: document.body.dataset.output,
    tokens: [...document.querySelectorAll('#output-tokens .token')].map((t) => t.textContent),
    status: document.getElementById('step-status').textContent,
    kind: document.getElementById('kind-select').value,
    layer: document.getElementById('layer-select').value,
    head: document.getElementById('head-select').value,
  }));

/** The output the page shows (body's data-output). */
export const shownOutput = (page) => page.evaluate(() => document.body.dataset.output);

/** The timeline strip and the cross-attention heatmap, in one picture: artifacts/screenshots/NAME.png. */
export async function timelineScreenshot(page, name) {
  const clip = await page.evaluate(() => {
    const boxes = ['#timeline-panel', '#focus-heatmap'].map((sel) =>
      document.querySelector(sel).closest('section').getBoundingClientRect(),
    );
    const top = Math.min(...boxes.map((b) => b.top)) + window.scrollY;
    const bottom = Math.max(...boxes.map((b) => b.bottom)) + window.scrollY;
    return { x: 0, y: top, width: document.documentElement.clientWidth, height: bottom - top };
  });
  await page.screenshot({ path: `${ARTIFACTS}screenshots/${name}.png`, fullPage: true, clip });
}

/** The focused heatmap's pixels, as a data URL. */
export const heatmapPixels = (page) => page.evaluate(() => document.querySelector('#focus-heatmap canvas.matrix').toDataURL());

/** Wait until the page shows a result for the current input. */
export async function waitReady(page, timeout = 60_000) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout });
}

/** Wait until the page shows the result of the latest input (no keystroke still pending). */
export async function waitSettled(page, timeout = 60_000) {
  await page.waitForFunction(
    () => {
      const s = window.__attnscope?.state;
      return s && s.shownGeneration === s.generation && document.body.dataset.ready === 'true';
    },
    null,
    { timeout },
  );
}

export async function waitOutput(page, predicate, timeout = 60_000) {
  await page.waitForFunction(predicate, null, { timeout });
  return shownOutput(page);
}

/** Type `text` (a key each `delay` ms) and wait until the page shows its result. */
export async function typeSettled(page, text, delay = 0) {
  await typeText(page, text, delay);
  await waitSettled(page);
}

/** Once the page is ready, type `text` and wait until the page shows `expected` as its output; returns the output. */
export async function translate(page, text, expected, timeout = 60_000) {
  await waitReady(page);
  await typeSettled(page, text);
  await page.waitForFunction((e) => document.body.dataset.output === e, expected, { timeout });
  return shownOutput(page);
}

/** Wait until the page's message matches `pattern` (a RegExp). */
export async function waitMessage(page, pattern, timeout = 30_000) {
  await page.waitForFunction((p) => new RegExp(p).test(document.getElementById('message').textContent), pattern.source, { timeout });
}

/** Wait until the output token line holds `count` chips. */
export async function waitTokenCount(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll('#output-tokens .token').length === n, count);
}

/** Replace the input text the way a person would (select all, type). */
export async function typeText(page, text, delay = 0) {
  const input = page.locator('#source-input');
  await input.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  if (text) await input.pressSequentially(text, { delay });
}

/** Put `text` in the sentence box at once (a paste), and wait until the page shows its result. */
export async function fillSettled(page, text) {
  await page.locator('#source-input').fill(text);
  await waitSettled(page);
}

/** Distinct colours in a canvas (a blank canvas has one). */
export async function canvasColours(page, selector) {
  return page.evaluate((sel) => {
    const canvas = document.querySelector(sel);
    if (!canvas?.width) return 0;
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 16) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return seen.size;
  }, selector);
}

export async function waitBackend(page, backend, timeout = 90_000) {
  await page.waitForFunction((b) => document.getElementById('backend-badge').dataset.backend === b, backend, { timeout });
}

/** The worker's current trace: its ids and every attention stack ({ layers, heads, queries, keys, data }). */
export function traceStacks(page) {
  return page.evaluate(async () => {
    const { trace: t } = await window.__attnscope.call('answer');
    const stack = (s) => ({ layers: s.layers, heads: s.heads, queries: s.queries, keys: s.keys, data: Array.from(s.data) });
    return {
      srcIds: Array.from(t.srcIds),
      tgtIds: Array.from(t.tgtIds),
      encoder: stack(t.encoderSelfAttention),
      decoder: stack(t.decoderSelfAttention),
      cross: stack(t.crossAttention),
    };
  });
}

/** The largest difference between a trace stack and a reference's [layer][head][query][key] (its first `queries` rows). */
export function worstDifference(stack, reference) {
  let most = 0;
  for (let l = 0; l < stack.layers; l++)
    for (let h = 0; h < stack.heads; h++)
      for (let q = 0; q < stack.queries; q++)
        for (let k = 0; k < stack.keys; k++) {
          const value = stack.data[((l * stack.heads + h) * stack.queries + q) * stack.keys + k];
          most = Math.max(most, Math.abs(value - reference[l][h][q][k]));
        }
  return most;
}

/** The worker's current trace, flattened for comparison. */
export async function currentTrace(page) {
  return page.evaluate(async () => {
    const result = await window.__attnscope.call('answer');
    const t = result.trace;
    const flat = (s) => Array.from(s.data);
    return {
      backend: result.backend,
      srcTokens: t.srcTokens,
      tgtIds: Array.from(t.tgtIds),
      encoder: flat(t.encoderSelfAttention),
      decoder: flat(t.decoderSelfAttention),
      cross: flat(t.crossAttention),
    };
  });
}

mkdirSync(`${ARTIFACTS}downloads`, { recursive: true });

/** The selector of `view`'s export button for `format` (png, svg). */
export const exportButton = (view, format) => `section[data-export="${view}"] button.export-button[data-format="${format}"]`;

/** Click `selector` and return { name, bytes, path } of the file it saves (kept in artifacts/downloads/). */
export async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), page.click(selector)]);
  const path = `${ARTIFACTS}downloads/${file.suggestedFilename()}`;
  await file.saveAs(path);
  return { name: file.suggestedFilename(), bytes: await readFile(path), path };
}

/** The width and height a PNG file says it has (its IHDR chunk), after checking its signature. */
export function pngSize(bytes) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((b, i) => bytes[i] === b) || bytes.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG file');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Wait until the lesson card shows step `n`, filled; resolves to the card's dataset. */
export async function waitLessonStep(page, n, timeout = 60_000) {
  await page.waitForFunction(
    (step) => {
      const card = document.getElementById('lesson');
      return card && !card.hidden && card.dataset.step === String(step) && card.dataset.state === 'ready';
    },
    n,
    { timeout },
  );
  return page.evaluate(() => ({ ...document.getElementById('lesson').dataset }));
}

/** Move the pointer over cell (`row`, `col`) of the canvas `selector`, drawn as `rows` × `cols` cells. */
export async function pointAtCell(page, selector, rows, cols, row, col) {
  const canvas = page.locator(selector).first();
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + ((col + 0.5) * box.width) / cols, box.y + ((row + 0.5) * box.height) / rows);
}

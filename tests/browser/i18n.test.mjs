// The page in English and Simplified Chinese: the two language files have the same keys (and the
// same {placeholders}), every key the page uses exists, the page follows navigator.language, the
// switch changes every label, and the choice travels in the link.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { labelOrientation } from '../../www/draw/labels.js';
import { ARTIFACTS, moduleFacts, servePage, waitReady, withBrowser } from './harness.mjs';

const WWW = new URL('../../www/', import.meta.url).pathname;
const read = (path) => readFileSync(`${WWW}${path}`, 'utf8');
const en = { ...JSON.parse(read('ui/i18n/en.json')), ...JSON.parse(read('ui/i18n/playground.en.json')) };
const zh = { ...JSON.parse(read('ui/i18n/zh-CN.json')), ...JSON.parse(read('ui/i18n/playground.zh-CN.json')) };
const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('both language files have exactly the same keys, each a non-empty text with the same placeholders', () => {
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const [key, text] of Object.entries(en)) {
    assert.equal(typeof text, 'string', key);
    assert.ok(text.trim() && zh[key].trim(), `${key} is empty`);
    assert.deepEqual(placeholders(zh[key]), placeholders(text), `${key}: placeholders`);
  }
});

test('every key the page names (in its scripts and in index.html) is in the language files', async () => {
  const scripts = readdirSync(WWW, { recursive: true }).filter((f) => f.endsWith('.js') && !f.includes('vendor'));
  const namespaces = new Set(Object.keys(en).map((key) => key.split('.')[0]));
  const used = new Set();
  for (const file of scripts) {
    // A key is a quoted 'namespace.name' whose namespace is one of the files' own.
    for (const [, key] of read(file).matchAll(/'([a-zA-Z]+\.[a-zA-Z.]+)'/g)) {
      if (namespaces.has(key.split('.')[0]) && !/\.(js|json|html)$/.test(key)) used.add(key);
    }
  }
  for (const [, key] of read('index.html').matchAll(/data-i18n(?:-rich|-title|-label|-placeholder)?="([^"]+)"/g)) used.add(key);
  // Keys put together at run time: one per kind and per decoding (the wasm module's), and the head summaries.
  const { kinds, decodings } = await moduleFacts();
  for (const kind of kinds)
    for (const key of [`kind.${kind}`, `kindExplain.${kind}`, `axis.${kind}.rows`, `axis.${kind}.cols`]) used.add(key);
  for (const decoding of decodings) used.add(`input.${decoding}`);
  for (const key of ['head.mean', 'head.max']) used.add(key);
  const missing = [...used].filter((key) => !(key in en));
  assert.deepEqual(missing, []);
  assert.ok(used.size > 200, `${used.size} keys in use`);
  console.log(`# ${used.size} keys used, ${Object.keys(en).length} in each file`);
});

test('labelOrientation: CJK never lies on its side; short tokens lie flat where they fit', () => {
  assert.equal(labelOrientation('我', 40, 13), 'flat');
  assert.equal(labelOrientation('我们', 40, 13), 'flat');
  assert.equal(labelOrientation('我们', 20, 13), 'upright'); // 26 px of characters in a 20 px column
  assert.equal(labelOrientation('苹果汁', 40, 13), 'upright');
  assert.equal(labelOrientation('I', 40, 13), 'flat');
  assert.equal(labelOrientation('to', 12, 10), 'sideways'); // 12.4 px in a 12 px column
  assert.equal(labelOrientation('apples', 40, 13), 'sideways');
  assert.equal(labelOrientation('ＡＢＣ', 8, 7), 'upright'); // full-width letters are CJK forms
});

const site = servePage();

/** Labels the test reads in each language. */
const labels = (page) =>
  page.evaluate(() => ({
    lang: document.documentElement.lang,
    title: document.querySelector('section[data-export=heatmap] h2').textContent,
    kind: document.querySelector('#kind-select option[value=cross]').textContent,
    status: document.getElementById('step-status').textContent,
    copy: document.getElementById('copy-link').textContent,
    stages: document.querySelector('#stages figure[data-stage=softmax] figcaption').textContent,
    colTitle: document.querySelector('#focus-heatmap .col-title').textContent,
    exportLabel: document.querySelector('section[data-export=heatmap] .export-button').getAttribute('aria-label'),
    document: document.title,
  }));

test('the language switch changes every label, goes into the link, and a zh-CN browser starts in Chinese', {
  timeout: 180_000,
}, async () => {
  await withBrowser(async (browser) => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })).newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    assert.deepEqual(await labels(page), {
      lang: 'en',
      title: 'Attention heatmap',
      kind: 'cross-attention',
      status: '7 tokens decoded — finished',
      copy: 'Copy link',
      stages: 'softmax: the weights the model used',
      colTitle: 'key → (source token)',
      exportLabel: 'Save Attention heatmap as PNG (2×)',
      document: 'attnscope — watch a Transformer think',
    });
    await page.selectOption('#language-select', 'zh-CN');
    await page.waitForFunction(() => document.body.dataset.ready === 'true' && document.documentElement.lang === 'zh-CN');
    const chinese = {
      lang: 'zh-CN',
      title: '注意力热力图',
      kind: '交叉注意力',
      status: '已解码 7 个词元——已完成',
      copy: '复制链接',
      stages: 'softmax：模型实际使用的权重',
      colTitle: '键 → (源词元)',
      exportLabel: '将注意力热力图保存为 PNG（2 倍）',
      document: 'attnscope — 看 Transformer 如何思考',
    };
    assert.deepEqual(await labels(page), chinese);
    assert.match(new URL(page.url()).hash, /&lang=zh-CN$/);
    await page.screenshot({ path: `${ARTIFACTS}screenshots/zh-CN-page.png`, fullPage: true });
    // The link opens in Chinese in an English browser.
    const other = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })).newPage();
    await other.goto(page.url());
    await waitReady(other);
    assert.deepEqual(await labels(other), chinese);
    // A Chinese browser without a choice in its link starts in Chinese; a link that says en wins.
    const zhBrowser = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN' });
    const zhPage = await zhBrowser.newPage();
    await zhPage.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(zhPage);
    assert.equal((await labels(zhPage)).title, '注意力热力图');
    const enLink = await zhBrowser.newPage();
    await enLink.goto(`${site.origin}/?test&backend=cpu#lang=en`);
    await waitReady(enLink);
    assert.equal((await labels(enLink)).title, 'Attention heatmap');
    // Switching back restores the English labels.
    await page.selectOption('#language-select', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en' && document.body.dataset.ready === 'true');
    assert.equal((await labels(page)).status, '7 tokens decoded — finished');
  });
});

test('axes: CJK column labels stand upright, a short token lies flat, longer Latin tokens are turned', { timeout: 120_000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN' })).newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    const columns = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('#focus-heatmap .col-labels span')].map((span) => {
          const style = getComputedStyle(span);
          return [span.textContent, span.className.replace(' lit', ''), style.writingMode, style.textOrientation];
        }),
      );
    // Cross-attention: the English source along the top.
    assert.deepEqual(await columns(), [
      ['▁I', 'flat', 'horizontal-tb', 'mixed'],
      ['▁love', 'sideways', 'sideways-lr', 'mixed'],
      ['▁eating', 'sideways', 'sideways-lr', 'mixed'],
      ['▁apples', 'sideways', 'sideways-lr', 'mixed'],
      ['.', 'flat', 'horizontal-tb', 'mixed'],
      ['</s>', 'sideways', 'sideways-lr', 'mixed'],
    ]);
    // Decoder self-attention: the Chinese output along the top, upright.
    await page.selectOption('#kind-select', 'decoderSelf');
    await page.waitForFunction(
      () => document.body.dataset.ready === 'true' && document.querySelector('#focus-heatmap').dataset.kind === 'decoderSelf',
    );
    const cjk = (await columns()).filter(([token]) => /\p{Script=Han}/u.test(token));
    assert.deepEqual(
      cjk.map(([token]) => token),
      ['我', '爱', '吃', '苹', '果'],
    );
    // One character fits its 40 px column: it lies flat, which for a Han character is upright too.
    for (const [token, orientation, mode] of cjk) assert.deepEqual([orientation, mode], ['flat', 'horizontal-tb'], token);
    await page.locator('#focus-heatmap').screenshot({ path: `${ARTIFACTS}screenshots/zh-CN-heatmap-decoder.png` });
  });
});

test('each model describes itself and credits its own data from its folder (about.json), in the page language', {
  timeout: 120_000,
}, async () => {
  const about = (model) => JSON.parse(readFileSync(new URL(`../../models/${model}/about.json`, import.meta.url), 'utf8'));
  await withBrowser(async (browser) => {
    const page = await browser.newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    const shown = async () => ({
      description: await page.locator('#model-description').textContent(),
      credits: await page.locator('#model-credits').textContent(),
      links: await page.locator('#model-credits a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
    });
    const enZh = about('en-zh');
    assert.deepEqual(await shown(), {
      description: enZh.description.en,
      credits: `en-zh is trained on: ${enZh.credits.map((c) => c.en).join('; ')} · `,
      links: ['https://tatoeba.org', 'https://github.com/no7z/hsk-sentences-audio'],
    });
    assert.match(enZh.credits[0].en, /^Tatoeba .*CC-BY 2\.0 FR/);
    await page.selectOption('#language-select', 'zh-CN');
    assert.deepEqual((await shown()).description, enZh.description['zh-CN']);
    assert.equal((await shown()).credits, `en-zh 的训练数据：${enZh.credits.map((c) => c['zh-CN']).join('；')} · `);
    await page.selectOption('#model-select', 'date-iso');
    await page.waitForFunction(() => document.body.dataset.model === 'date-iso' && document.body.dataset.ready === 'true', null, {
      timeout: 60_000,
    });
    assert.deepEqual(await shown(), {
      description: about('date-iso').description['zh-CN'],
      credits: 'date-iso 的训练数据由 attnscope 自己生成 · ',
      links: [],
    });
  });
});

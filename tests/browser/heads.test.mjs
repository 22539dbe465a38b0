// Which heads matter (en-zh, CPU): three heads switched off change the output, each original token's
// log-probability fall is printed, the thumbnails carry an off mark, the link keeps the heads,
// the comparison view decodes with them off; each head's importance for the sentence is ranked;
// heads.json's roles are in the tooltip, in both languages; a bad or out-of-range head in a link
// is said and nothing else breaks. And heads.json (a shipped or a local folder's) is kept to its known shape.
//
// The expected numbers come from the native CLI (the same tokens and numbers as the CPU page):
//   attnscope translate --ablate cross:0:0,cross:1:2,cross:2:1 "I love eating apples."
//   → 我很喜欢吃苹果。 (no single head changes this sentence's greedy output; these three, the three
//   it needs most alone, do)
//   attnscope trace [--ablate …] --prefix 我爱吃苹果。 --json "I love eating apples."
//   gives each original token's p with and without the heads: 爱 0.494221 → 0.291524.
//   attnscope heads --sentences FILE --json (FILE: the sentence alone) ranks cross:2:1 first, 0.13634.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseHeads } from '../../www/worker/model-folder.js';
import { ARTIFACTS, moduleFacts, servePage, waitMessage, waitOutput, waitReady, withPage } from './harness.mjs';

const SHOTS = `${ARTIFACTS}screenshots/`;

const site = servePage();
const TEXT = 'I love eating apples.';
const OUTPUT = '我爱吃苹果。';
const OFF = 'cross:0:0,cross:1:2,cross:2:1';
const ORIGINAL = ['我', '爱', '吃', '苹', '果', '。', '</s>'];
const ABLATED = ['我', '很', '喜', '欢', '吃', '苹', '果', '。', '</s>'];
const THREE = [
  ['cross', 0, 0],
  ['cross', 1, 2],
  ['cross', 2, 1],
];
// log p(爱) intact − with the three heads off, and the whole output's: from the native trace.
const LOVE_FALL = 0.52786163;
const TOTAL_FALL = 0.55694031;
// Importance for this sentence (attnscope heads on it alone): the top head and its fall.
const TOP_HEAD = 'cross:2:1';
const TOP_DROP = 0.13634;

const HEADS_JSON = JSON.parse(readFileSync(new URL('../../models/en-zh/heads.json', import.meta.url), 'utf8'));

const thumb = (kind, layer, head) => `#model-view button.thumb[data-kind=${kind}][data-layer="${layer}"][data-head="${head}"]`;

/** Wait until the Heads panel shows a finished report. */
async function waitReport(page) {
  await page.waitForFunction(
    () => document.querySelector('#heads .heads-ablated') && document.getElementById('heads').dataset.busy === 'false',
    null,
    {
      timeout: 60_000,
    },
  );
}

/** The report as printed: both outputs, the changed positions, each row's fall, the total. */
function printedReport(page) {
  return page.evaluate(() => {
    const root = document.getElementById('heads');
    const tokens = (sel) => [...root.querySelectorAll(`${sel} .token`)].map((s) => s.textContent);
    return {
      original: tokens('.heads-original'),
      ablated: tokens('.heads-ablated'),
      changed: [...root.querySelectorAll('.heads-ablated .token.changed')].map((s) => Number(s.dataset.position)),
      falls: [...root.querySelectorAll('tbody tr[data-position] .heads-fall')].map((td) => td.textContent),
      total: root.querySelector('.heads-total .heads-fall').textContent,
    };
  });
}

const pct = (x) => Math.round(x * 100);

/** Each role's name, score phrase and explanation, as the page words them (www/ui/i18n/*.json). */
const ROLE_WORDS = {
  en: {
    previous: ['previous token', (p) => `${p} % of its weight`, 'looks at the token just before it'],
    same: ['same token', (p) => `${p} % of its weight`, 'looks at its own token'],
    next: ['next token', (p) => `${p} % of its weight`, 'looks at the token just after it'],
    sink: ['sink', (p) => `${p} % of its weight`, 'parks its weight on <s>/</s> when it has nothing to do'],
    broad: ['broad', (p) => `${p} % of an even spread's entropy`, 'spreads its weight over the whole sentence'],
    alignment: [
      'alignment',
      (p) => `agrees with occlusion on ${p} % of the output tokens`,
      'looks at the source word this output word depends on (agrees with occlusion)',
    ],
  },
  zh: {
    previous: ['前一个词元', (p) => `${p}% 的权重`, '看紧挨在它前面的那个词元'],
    same: ['自身词元', (p) => `${p}% 的权重`, '看它自己这个词元'],
    next: ['后一个词元', (p) => `${p}% 的权重`, '看紧跟在它后面的那个词元'],
    sink: ['汇点', (p) => `${p}% 的权重`, '没事可做时，把权重停放在 <s>/</s> 上'],
    broad: ['广泛关注', (p) => `熵达到均匀分布的 ${p}%`, '把权重摊开到整个句子上'],
    alignment: ['对齐', (p) => `在 ${p}% 的输出词元上与遮挡归因一致`, '看这个输出词所依赖的那个源词（与遮挡归因一致）'],
  },
};

/** The tooltip's line for one role score of heads.json, in `lang` ('en' or 'zh'). */
function roleLine(lang, { role, score, threshold }) {
  const [name, phrase, explain] = ROLE_WORDS[lang][role];
  return lang === 'en'
    ? `${name}, ${phrase(pct(score))} (threshold ${pct(threshold)} %): ${explain}`
    : `${name}，${phrase(pct(score))}（门槛 ${pct(threshold)}%）：${explain}`;
}

/** Hover `head`'s thumbnail (from elsewhere, so its tooltip is written anew) until the tooltip shows. */
async function hoverHead(page, { kind, layer, head }) {
  await page.mouse.move(1, 1);
  await page.waitForFunction(() => document.getElementById('tooltip').hidden);
  await page.locator(thumb(kind, layer, head)).hover();
  await page.waitForFunction(() => !document.getElementById('tooltip').hidden);
}

const tooltip = (page) => page.locator('#tooltip').textContent();

/** A printed number (a true minus sign allowed) as a number. */
const number = (text) => Number(text.replace('−', '-'));

async function assertOffMarks(page, heads) {
  for (const [kind, layer, head] of heads) {
    const button = page.locator(thumb(kind, layer, head));
    assert.equal(await button.getAttribute('aria-pressed'), 'true', `${kind}:${layer}:${head} is pressed`);
    assert.equal(await button.evaluate((b) => b.classList.contains('off')), true, `${kind}:${layer}:${head} is marked off`);
    assert.match(await button.getAttribute('aria-label'), /switched off$/);
  }
  assert.equal(await page.locator('#model-view button.thumb.off').count(), heads.length, 'no other head is marked off');
}

async function assertReport(page) {
  const report = await printedReport(page);
  assert.deepEqual(report.original, ORIGINAL);
  assert.deepEqual(report.ablated, ABLATED);
  assert.deepEqual(report.changed, [1, 2, 3, 4, 5, 6, 7, 8], 'from 很 on, every position differs');
  assert.equal(report.falls.length, ORIGINAL.length, 'a fall per original token');
  assert.equal(report.falls[1], LOVE_FALL.toFixed(3), 'the printed fall of 爱');
  assert.ok(Math.abs(number(report.falls[1]) - LOVE_FALL) <= 1e-3);
  assert.ok(Math.abs(number(report.total) - TOTAL_FALL) <= 1e-3, `total ${report.total}`);
}

test('heads.json is kept to its known shape: unknown roles, bad heads and non-numbers are left out; not JSON is null', async () => {
  const { kinds } = await moduleFacts();
  const parse = (text) => parseHeads(text, kinds);
  const head = { kind: 'cross', layer: 1, head: 2, importance: 0.5 };
  const scores = [
    { role: 'alignment', score: 0.6, threshold: 0.5, rows: 9 },
    { role: 'magic', score: 1, threshold: 0 },
    { role: 'sink', score: 'high', threshold: 0.5 },
  ];
  const odd = [
    { ...head, hurtShare: 'a lot', roles: ['alignment', 'magic'], scores },
    { kind: 'elsewhere', layer: 0, head: 0 },
    { kind: 'encoderSelf', layer: -1, head: 0 },
  ];
  assert.deepEqual(parse(JSON.stringify({ model: 'x', sentences: 3, heads: odd })), {
    sentences: 3,
    heads: [{ ...head, hurtShare: null, roles: ['alignment'], scores: [scores[0]] }],
  });
  assert.equal(parse('{ not json'), null);
  assert.equal(parse('{"heads": 3}'), null);
  assert.equal(parse(JSON.stringify(HEADS_JSON)).heads.length, 36, 'en-zh: every head kept');
});

test(
  'three heads off: the new output beside the old, the changed tokens, each token’s fall, the marks, the link, the comparison',
  {
    timeout: 240_000,
  },
  () =>
    withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
      await waitReady(page);
      await waitOutput(page, () => document.body.dataset.output === '我爱吃苹果。');
      assert.equal(await page.locator('#heads .heads-status').textContent(), 'Every head is on. Switch some off in the model view above.');

      // Two heads by the mode and a click, the last by the keyboard (X on a focused thumbnail).
      await page.locator('#model-view .heads-mode').click();
      assert.equal(await page.locator('#model-view .heads-mode').getAttribute('aria-pressed'), 'true');
      for (const [layer, head] of [
        [0, 0],
        [1, 2],
      ]) {
        await page.locator(thumb('cross', layer, head)).click();
      }
      await page.locator('#model-view .heads-mode').click();
      await page.locator(thumb('cross', 2, 1)).focus();
      await page.keyboard.press('x');
      // The focused thumbnail's tooltip says so at once.
      await page.waitForFunction(() => document.getElementById('tooltip').textContent.split('\n')[1] === 'Switched off.');
      await waitReport(page);
      await assertReport(page);
      await assertOffMarks(page, THREE);
      assert.equal(await page.locator('#heads .heads-status').textContent(), 'Switched off: cross 0·0, cross 1·2, cross 2·1.');
      assert.equal(await page.evaluate(() => document.body.dataset.output), OUTPUT, 'the page itself still shows the intact output');
      assert.equal(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('off')), OFF, 'the link keeps the heads');

      // The comparison view's third mode: B is A's sentence with the heads off.
      await page.locator('#compare .compare-mode').selectOption('off');
      await page.waitForFunction(() => document.getElementById('compare').dataset.ready === 'true', null, { timeout: 60_000 });
      assert.equal(
        await page.locator('#compare [data-side=b] .compare-output').textContent(),
        `“${TEXT}” (heads off: ${OFF}) → 我很喜欢吃苹果。`,
      );
      // Back to another sentence: the comparison session decodes with every head on again.
      await page.locator('#compare .compare-mode').selectOption('prefix');
      await page.locator('#compare .compare-prefix').fill('我爱');
      await page.waitForFunction(() => document.getElementById('compare').dataset.ready === 'true', null, { timeout: 60_000 });
      assert.equal(
        await page.locator('#compare [data-side=b] .compare-output').textContent(),
        `“${TEXT}” (output forced to start with “我爱”) → ${OUTPUT}`,
      );

      // Every head back on: no report, no mark, no `off` in the link.
      await page.locator('#heads .heads-all-on').click();
      await page.waitForFunction(() => !document.querySelector('#heads .heads-ablated'));
      assert.equal(await page.locator('#model-view button.thumb.off').count(), 0);
      assert.equal(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).has('off')), false);
      assert.deepEqual(consoleErrors, []);
    }),
);

test('a link keeps the heads off: opening it restores the marks and the report; a bad or missing head is said', {
  timeout: 240_000,
}, async () => {
  await withPage(site.origin, `?backend=cpu#off=${encodeURIComponent(OFF)}`, async ({ page, consoleErrors }) => {
    await waitReady(page);
    await waitReport(page);
    await assertReport(page);
    await assertOffMarks(page, THREE);
    await page.locator('#heads-panel').screenshot({ path: `${SHOTS}heads-three-off.png` });
    await page.locator('section[data-export=model-view]').screenshot({ path: `${SHOTS}heads-model-view-off.png` });
    assert.deepEqual(consoleErrors, []);
  });
  // A head that is not one, and one the smaller date model lacks (it has layers 0 and 1).
  await withPage(site.origin, '?backend=cpu#off=cross:nine', async ({ page }) => {
    await waitMessage(page, /“cross:nine” is not a head: write KIND:LAYER:HEAD/);
    // The sentence is translated all the same (its output may be drawn just after the message).
    assert.equal(await waitOutput(page, () => document.body.dataset.output === '我爱吃苹果。'), OUTPUT);
    assert.equal(await page.locator('#model-view button.thumb.off').count(), 0);
    assert.equal(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).has('off')), false, 'the bad heads leave the link');
  });
  await withPage(site.origin, '?backend=cpu#m=date-iso&off=cross:2:0', async ({ page }) => {
    await waitMessage(page, /layer 2 is out of range \(0\.\.2\)/);
    await waitReady(page);
    assert.equal(await page.locator('#model-view button.thumb.off').count(), 0);
    assert.equal(await page.locator('#heads .heads-ablated').count(), 0);
  });
});

test(
  'importance for the sentence: ranked in the panel and on the thumbnails; roles in the tooltip, in both languages',
  {
    timeout: 240_000,
  },
  () =>
    withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
      await waitReady(page);
      await waitOutput(page, () => document.body.dataset.output === '我爱吃苹果。');
      assert.equal(await page.locator('#heads .heads-measure').textContent(), 'Measure importance');
      await page.locator('#heads .heads-measure').click();
      await page.waitForFunction(() => document.querySelectorAll('#heads .heads-ranking li').length === 36, null, { timeout: 120_000 });
      const time = await page.locator('#heads .heads-time').textContent();
      console.log(`# ${time}`);
      assert.match(time, /^36 heads measured in \d+ ms \(cpu\), one pass each\.$/);

      // The worker's own answer: the top of the ranking is its argmax, and the native one.
      const measured = await page.evaluate(async () => (await window.__attnscope.call('importance')).heads);
      const best = measured.reduce((a, b) => (b.drop > a.drop ? b : a));
      assert.equal(`${best.kind}:${best.layer}:${best.head}`, TOP_HEAD);
      assert.ok(Math.abs(best.drop - TOP_DROP) <= 1e-3, `top drop ${best.drop}`);
      const top = page.locator('#heads .heads-ranking li').first();
      assert.equal(await top.getAttribute('data-head'), TOP_HEAD);
      assert.equal(await top.locator('.heads-rank-label').textContent(), '1. cross 2·1');
      assert.ok(Math.abs(number(await top.locator('.heads-rank-value').textContent()) - TOP_DROP) <= 1e-3);
      assert.equal(await page.locator(`${thumb('cross', 2, 1)} .thumb-rank`).textContent(), '1');
      assert.equal(await page.locator('#model-view .thumb-rank:not([hidden])').count(), 36, 'every head has its rank');
      // A head of the ranking, clicked, is the focused head.
      await top.locator('.heads-rank-label').click();
      await page.waitForSelector(`${thumb('cross', 2, 1)}.selected`);
      assert.equal(await page.locator('#model-view button.thumb.selected').count(), 1);

      // The roles of a head that has one (an aligning head when there is one), and of a head that
      // has none, as heads.json says.
      const withRole = HEADS_JSON.heads.find((h) => h.roles.includes('alignment')) ?? HEADS_JSON.heads.find((h) => h.roles.length);
      const score = withRole.scores.find((s) => s.role === withRole.roles[0]);
      await hoverHead(page, withRole);
      const english = await tooltip(page);
      assert.ok(english.includes(`• ${roleLine('en', score)}`), english);
      assert.ok(english.includes(`Roles over ${HEADS_JSON.sentences} held-out sentences:`), english);
      assert.ok(english.includes(`Mean importance on the held-out sentences: ${withRole.importance.toFixed(3)}`), english);
      assert.match(english, /Importance for this sentence: −?\d\.\d{3} \(rank \d+ of 36\)\./);
      const none = HEADS_JSON.heads.find((h) => !h.roles.length);
      if (none) {
        const highest = none.scores.reduce((a, b) => (b.score > a.score ? b : a));
        await hoverHead(page, none);
        const [name, phrase] = ROLE_WORDS.en[highest.role];
        const expected = `No role reaches its threshold. Highest score: ${name}, ${phrase(pct(highest.score))} (threshold ${pct(highest.threshold)} %).`;
        assert.ok((await tooltip(page)).includes(expected), await tooltip(page));
      }
      await page.locator('section[data-export=model-view]').screenshot({ path: `${SHOTS}heads-model-view.png` });

      // In Chinese.
      await page.locator('#language-select').selectOption('zh-CN');
      await page.waitForFunction(() => document.querySelector('#heads .heads-measure').textContent === '测量重要性');
      assert.equal(await page.locator('#model-view .heads-mode').textContent(), '关掉注意力头');
      assert.equal(await page.locator('#heads .heads-ranking li .heads-rank-label').first().textContent(), '1. 交叉 2·1');
      await hoverHead(page, withRole);
      assert.ok((await tooltip(page)).includes(`• ${roleLine('zh', score)}`), await tooltip(page));
      assert.deepEqual(consoleErrors, []);
    }),
);

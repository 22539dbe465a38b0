// The lesson's words against the page's: every control a lesson text names (`<<key>>`, in
// www/lesson/texts/ and the tasks and checks of www/lesson/quiz-texts.js) is a key of both
// languages' i18n tables whose label a control of the page shows, in English and in Chinese; no
// step text quotes a control's label literally instead; and every term of docs/glossary.md is used
// as listed there, the English in the English text of its step and the Chinese in the Chinese.
// All but the third test read the modules in node; the third opens the page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { STEPS } from '../../www/lesson/steps.js';
import { LESSON_TEXTS } from '../../www/lesson/texts.js';
import en from '../../www/ui/i18n/en.json' with { type: 'json' };
import playEn from '../../www/ui/i18n/playground.en.json' with { type: 'json' };
import playZh from '../../www/ui/i18n/playground.zh-CN.json' with { type: 'json' };
import zh from '../../www/ui/i18n/zh-CN.json' with { type: 'json' };
import { launchChromium, servePage, waitReady } from './harness.mjs';

const site = servePage();
const LABELS = { en: { ...en, ...playEn }, 'zh-CN': { ...zh, ...playZh } };
const read = (path) => readFileSync(new URL(path, import.meta.url), 'utf8');
/** The files whose texts may name controls: the lesson's steps and the tasks and checks. */
const SOURCES = ['../../www/lesson/texts/en.js', '../../www/lesson/texts/zh.js', '../../www/lesson/quiz-texts.js'];

/** Every `<<key>>` of the lesson's texts. */
function controlKeys() {
  const keys = new Set();
  for (const source of SOURCES) {
    const code = read(source).replace(/^\s*\/\/.*$/gm, ''); // not the comments' `<<key>>`
    for (const match of code.matchAll(/<<([\w.]+)>>/g)) keys.add(match[1]);
  }
  return [...keys].sort();
}

/** Every template of step `id` in `lang`: its title, each variant of its body, each part. */
function stepTemplates(lang, id) {
  const { title, body, parts = {} } = LESSON_TEXTS[lang].steps[id];
  return [title, ...(typeof body === 'string' ? [body] : Object.values(body)), ...Object.values(parts)];
}

/** Labels compared loosely: without the buttons' arrows and symbols, spaces and case. */
const loose = (text) =>
  text
    .replace(/[▶◀↺⇥‖→←⇄×…]/g, '')
    .replace(/\s+/g, '')
    .toLowerCase();

test('every control a lesson text names is a key of both languages', () => {
  const keys = controlKeys();
  assert.ok(keys.includes('stepper.step'), keys.join(' '));
  for (const [lang, table] of Object.entries(LABELS)) {
    assert.deepEqual(
      keys.filter((key) => !Object.hasOwn(table, key)),
      [],
      `${lang}: keys the page has no label for`,
    );
  }
});

test('no lesson text quotes a control label instead of naming it with <<key>>', () => {
  // The page's labels, and the lesson's own buttons, in both languages; and the labels the page
  // had once (the zh-CN 单步 that became 前进一步 ▶).
  const labels = new Set(['单步', 'step', 'next', 'reset', '重置']);
  for (const table of [...Object.values(LABELS), LESSON_TEXTS.en.ui, LESSON_TEXTS['zh-CN'].ui]) {
    for (const text of Object.values(table)) if (text.length <= 40) labels.add(loose(text));
  }
  labels.delete('');
  const glyphed = Object.values(LABELS).flatMap((table) => Object.values(table).filter((text) => /[▶◀↺⇥]/.test(text) && text.length <= 40));
  const quoted = [];
  for (const [lang, { ui, steps }] of Object.entries(LESSON_TEXTS)) {
    const templates = [...Object.values(ui), ...Object.keys(steps).flatMap((id) => stepTemplates(lang, id))];
    for (const template of templates) {
      const text = template.replace(/<<[\w.]+>>/g, '');
      for (const match of text.matchAll(/[“"「]([^”"」]+)[”"」]/g)) if (labels.has(loose(match[1]))) quoted.push(`${lang}: ${match[0]}`);
      for (const label of glyphed) if (text.includes(label)) quoted.push(`${lang}: ${label}`);
    }
  }
  assert.deepEqual(quoted, []);
});

test('every control a lesson text names is on the page, labelled as the text says, in both languages', { timeout: 180_000 }, async () => {
  const keys = controlKeys();
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })).newPage();
    await page.goto(`${site.origin}/?test&backend=cpu`);
    await waitReady(page);
    // What the page's controls say: buttons, menu options, disclosure summaries, the words of a
    // label (not its menu's options), and the headings of panels and groups.
    const controlTexts = () =>
      page.evaluate(() => {
        const texts = new Set();
        const add = (text) => text?.trim() && texts.add(text.trim().replace(/\s+/g, ' '));
        for (const node of document.querySelectorAll('button, option, summary, legend, h2, h3, label > span')) add(node.textContent);
        for (const label of document.querySelectorAll('label')) {
          add(
            [...label.childNodes]
              .filter((n) => n.nodeType === Node.TEXT_NODE)
              .map((n) => n.textContent)
              .join(' '),
          );
        }
        return [...texts];
      });
    for (const lang of ['en', 'zh-CN']) {
      if (lang !== 'en') {
        await page.selectOption('#language-select', lang);
        await page.waitForFunction((l) => document.documentElement.lang === l, lang);
      }
      const shown = new Set(await controlTexts());
      const missing = keys.filter((key) => !shown.has(LABELS[lang][key].trim()));
      assert.deepEqual(
        missing.map((key) => `${key}: ${LABELS[lang][key]}`),
        [],
        `${lang}: labels no control of the page shows`,
      );
    }
  } finally {
    await browser.close();
  }
});

test('every term of the glossary is used in the step it is listed for, in both languages', () => {
  const ids = STEPS.map((step) => step.id);
  const rows = read('../../docs/glossary.md')
    .split('\n')
    .filter((line) => /^\| [^-|]/.test(line) && !line.startsWith('| English'))
    .map((line) => line.split('|').map((cell) => cell.trim()));
  assert.ok(rows.length >= 20, `${rows.length} terms`);
  const problems = [];
  for (const [, english, chinese, where] of rows) {
    const [, id, number] = where.match(/^`(\w+)` \((\d+)\)$/) ?? [];
    if (ids.indexOf(id) + 1 !== Number(number)) problems.push(`${english}: step ${where} is not step ${ids.indexOf(id) + 1}`);
    const term = english.replace(/\s*\(.*\)$/, '').toLowerCase();
    if (!stepTemplates('en', id).some((text) => text.toLowerCase().includes(term))) problems.push(`${term} not in the English of ${id}`);
    if (!stepTemplates('zh-CN', id).some((text) => text.includes(chinese))) problems.push(`${chinese} not in the Chinese of ${id}`);
  }
  assert.deepEqual(problems, []);
});

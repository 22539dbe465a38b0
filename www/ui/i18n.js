// The page's words in each language: JSON files under www/ui/i18n/ (the page's, and the
// playground's, playground.*.json, merged into one table a language), keys shared. `t`
// looks a key up in the language in use (English where a key is missing), filling {name}
// placeholders; elements carrying data-i18n* attributes are translated in place by `translatePage`.
// Translations may hold <code>, <em>, <sup>, <sub> and <strong>: `richText` builds those as
// elements (the text itself is always set as text, never parsed as HTML).
import en from './i18n/en.json' with { type: 'json' };
import playEn from './i18n/playground.en.json' with { type: 'json' };
import playZhCN from './i18n/playground.zh-CN.json' with { type: 'json' };
import zhCN from './i18n/zh-CN.json' with { type: 'json' };

const EN = { ...en, ...playEn };
export const LANGUAGES = { en: { name: 'English', table: EN }, 'zh-CN': { name: '简体中文', table: { ...zhCN, ...playZhCN } } };
export const DEFAULT_LANGUAGE = 'en';

const using = { language: DEFAULT_LANGUAGE }; // the language in use
const listeners = new Set();

/** A language the page has for `wanted` (a BCP 47 tag such as navigator.language), or null. */
export function supportedLanguage(wanted) {
  if (!wanted) return null;
  if (Object.hasOwn(LANGUAGES, wanted)) return wanted;
  const tag = String(wanted).toLowerCase();
  if (tag.startsWith('zh')) return 'zh-CN';
  if (tag.startsWith('en')) return 'en';
  return null;
}

export const language = () => using.language;

/** The text of `key` in the language in use, `{name}` replaced by `params.name`. */
export function t(key, params = {}) {
  const text = LANGUAGES[using.language].table[key] ?? EN[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** Switch to `lang` (a key of LANGUAGES), translate the page, and tell every listener. */
export function setLanguage(lang) {
  using.language = supportedLanguage(lang) ?? DEFAULT_LANGUAGE;
  if (typeof document !== 'undefined') {
    document.documentElement.lang = using.language;
    translatePage(document);
  }
  for (const listener of listeners) listener(using.language);
}

export function onLanguageChange(listener) {
  listeners.add(listener);
}

const TAGS = new Set(['code', 'em', 'sup', 'sub', 'strong']);

/** `text` with its <code>/<em>/<sup>/<sub>/<strong> spans as elements: an array of nodes. */
export function richText(text) {
  const nodes = [];
  const pattern = /<(code|em|sup|sub|strong)>(.*?)<\/\1>/gs;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) nodes.push(document.createTextNode(text.slice(last, match.index)));
    if (TAGS.has(match[1])) {
      const node = document.createElement(match[1]);
      node.textContent = match[2];
      nodes.push(node);
    }
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

/**
 * Translate every element under `root` that names a key: data-i18n (its text), data-i18n-rich
 * (its text with inline markup), data-i18n-title, data-i18n-label (aria-label),
 * data-i18n-placeholder.
 */
export function translatePage(root) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-rich]')) node.replaceChildren(...richText(t(node.dataset.i18nRich)));
  for (const node of root.querySelectorAll('[data-i18n-title]')) node.title = t(node.dataset.i18nTitle);
  for (const node of root.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll('[data-i18n-placeholder]')) node.placeholder = t(node.dataset.i18nPlaceholder);
}

/**
 * A message the worker or the wasm module sent as { key, params } (a key of www/ui/i18n/*.json and
 * its {placeholders}), in words of the language in use; a list parameter as a list.
 */
export function messageText({ key, params = {} }) {
  const list = new Intl.ListFormat(using.language, { type: 'conjunction' });
  return t(
    key,
    Object.fromEntries(Object.entries(params).map(([name, value]) => [name, Array.isArray(value) ? list.format(value) : value])),
  );
}

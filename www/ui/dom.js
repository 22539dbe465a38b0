// Building DOM elements: the one place the page's views create an element and give it its class,
// text, title, attributes and data-* values.
import { t } from './i18n.js';

/**
 * `el(tag, { className, text, title, attrs, data, i18n, i18nTitle, i18nLabel }, ...children)`: a
 * new `tag` element with each option that is given set (`attrs` as attributes, `data` as data-*
 * values), then `children` (elements or strings) appended after its text. `i18n`, `i18nTitle`
 * and `i18nLabel` name translation keys (www/ui/i18n.js) for its text, title and aria-label: they
 * follow the language when it is switched.
 */
export function el(tag, { className, text, title, attrs, data, i18n, i18nTitle, i18nLabel } = {}, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = text;
  if (title != null) node.title = title;
  if (i18n) {
    node.dataset.i18n = i18n;
    node.textContent = t(i18n);
  }
  if (i18nTitle) {
    node.dataset.i18nTitle = i18nTitle;
    node.title = t(i18nTitle);
  }
  if (i18nLabel) {
    node.dataset.i18nLabel = i18nLabel;
    node.setAttribute('aria-label', t(i18nLabel));
  }
  for (const [name, value] of Object.entries(attrs ?? {})) node.setAttribute(name, String(value));
  for (const [name, value] of Object.entries(data ?? {})) node.dataset[name] = String(value);
  node.append(...children);
  return node;
}

/** An `<option>` of a select: `value`, shown as `text` (the value itself unless given). */
export const option = (value, text = value) => el('option', { text, attrs: { value } });

/** An `<option>` whose text is the translation of `key`. */
export const optionT = (value, key) => el('option', { i18n: key, attrs: { value } });

/** The page's element with id `id`. */
export const $ = (id) => document.getElementById(id);

/** Set `target[name]` to `value` unless it has it already (a write, even of the same value, may cost a relayout). */
export function setIfChanged(target, name, value) {
  if (target[name] !== value) target[name] = value;
}

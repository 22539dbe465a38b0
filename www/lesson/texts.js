// The lesson's words, written for attnscope in English (texts/en.js) and Simplified Chinese
// (texts/zh.js); the seed articles are where the facts come from, not the text. A step's entry is
// { title, body, parts? }: `body` is one template, or one per variant ({ pre, post }, { greedy,
// sample, beam, forced }…) that the step's params pick; `parts` are templates a param may insert
// (numbers.js `part`). In a template, `{name}` is filled by the step (www/lesson/steps/) with the
// model's own numbers and tokens, `[[…]]` marks a formula, `((…))` an illustration and `<<key>>`
// a control, named by its label on the page (www/ui/i18n/*.json).
import { language, t } from '../ui/i18n.js';
import { EN } from './texts/en.js';
import { ZH } from './texts/zh.js';

export const LESSON_TEXTS = { en: EN, 'zh-CN': ZH };

const table = () => LESSON_TEXTS[language()] ?? EN;

/** `<<key>>` in a plain-text string: the control's label as the page shows it. */
const controlsNamed = (text) => text.replace(/<<([\w.]+)>>/g, (_, key) => t(key));

/** A lesson UI string in the page's language, `{name}` filled from `params` (plain text). */
export function lessonUi(key, params = {}) {
  const text = table().ui[key] ?? EN.ui[key] ?? key;
  return controlsNamed(text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole)));
}

/** Step `id`'s title and body template in the page's language; `variant` picks a body per variant. */
export function stepText(id, variant) {
  const { title, body } = table().steps[id] ?? EN.steps[id];
  return { title, body: typeof body === 'string' ? body : (body[variant] ?? Object.values(body)[0]) };
}

/** Template `name` of step `id`'s parts, in the page's language. */
export function stepPart(id, name) {
  return table().steps[id]?.parts?.[name] ?? EN.steps[id]?.parts?.[name] ?? `{${name}}`;
}

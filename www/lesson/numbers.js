// The pieces a lesson text is filled with, and how they become DOM nodes. A text is a template
// (www/lesson/texts/): `{name}` is a placeholder filled from the step's parameters, `[[…]]` a
// formula, `((…))` an illustration (a number from the articles, not from this model) and
// `<<key>>` a control of the page, named by its label in the page's language (the key's entry in
// www/ui/i18n/*.json), so that a text cannot name a button the page does not have. Every number
// of the model is a span
//   <span class="model-number" data-source="ROOT:PATH" data-value="…" data-digits="N">
// whose ROOT names what it was read from (`trace`, `stages`, `config`, `positional`, `batch` (the
// masks panel's padded batch), or `journey/STACK/LAYER/POSITION`, one Session.inspect answer) and
// PATH the field (dot-separated keys and indices, e.g. `crossAttention.data.37`; a last key
// `@sum` or `@sum:FROM:TO` adds up the array, or its part FROM ≤ i < TO, and `@zeros` counts its
// zeros): a test reads the same
// field and compares. Nothing here computes a number; it only reads them. A decoding setting the
// learner chose (beam width, temperature) is a `lesson-setting` span, checked against the controls.
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { matrixOffset } from '../views/attention.js';
import { lessonUi, stepPart } from './texts.js';

/** A number of the model: `value` read from `root` at `path`, shown with `digits` decimals. */
export const num = (value, root, path, digits = 3) => ({ kind: 'number', value: Number(value), source: `${root}:${path}`, digits });

/**
 * A small number of the model (LayerNorm's ε) in e-notation with one significant digit, "1e-5";
 * `digits` is then the decimal place that digit stands in, as for `num`.
 */
export function tiny(value, root, path) {
  const place = Math.floor(Math.log10(Math.abs(Number(value)) || 1));
  return { ...num(value, root, path, Math.max(0, -place)), exponent: true };
}

/** The sum of `values` (0/1 flags, counts) read from `root` at `path`, over [from, to) if given. */
export function total(values, root, path, from = 0, to = values.length) {
  let sum = 0;
  for (let i = from; i < to; i++) sum += Number(values[i]);
  const part = from === 0 && to === values.length ? '@sum' : `@sum:${from}:${to}`;
  return num(sum, root, `${path}.${part}`, 0);
}

/** How many of `values` (0/1 flags) read from `root` at `path` are 0: the keys a mask leaves open. */
export function zeros(values, root, path) {
  let count = 0;
  for (const value of values) if (Number(value) === 0) count += 1;
  return num(count, root, `${path}.@zeros`, 0);
}

/** A decoding setting the learner chose (`name`: width, alpha, temperature, topK), as shown. */
export const setting = (value, name) => ({ kind: 'setting', text: String(value), name });

/** Another template of step `step` (its `parts` in the texts), filled with the same parameters. */
export const part = (step, name) => ({ kind: 'part', step, name });

/** A token of the model's vocabulary (may hold digits, as date-iso's do). */
export const tok = (text) => ({ kind: 'token', text: String(text) });

/** A layer, head or position index the page is showing (the lesson's choice, not a result). */
export const idx = (value) => ({ kind: 'index', text: String(value) });

/** Plain words (already in the page's language). */
export const words = (text) => ({ kind: 'text', text });

/** A number part in brackets when it is negative ("0.14 × (-0.586)"), as it is otherwise. */
export const signed = (part) => (part.value < 0 ? [words('('), part, words(')')] : part);

/** The list separator of the page's language (", " or "，"). */
export const comma = () => lessonUi('comma');

/** "head 2: " / "第 2 个头：" before a head's number. */
export const lessonHead = (h) => [words(lessonUi('headBefore')), idx(h), words(lessonUi('headAfter'))];

/** "…" after a list cut short. */
export const more = () => words(`${comma()}…`);

/** Parts joined by `separator` (the language's comma unless given). */
export function join(items, separator = comma()) {
  const out = [];
  items.forEach((item, i) => {
    if (i) out.push(words(separator));
    out.push(...(Array.isArray(item) ? item : [item]));
  });
  return out;
}

/** Offset of cell (row, col) of `layer`, `head` in a trace stack's flat data. */
export function stackIndex(stack, layer, head, row, col) {
  return matrixOffset(stack, layer, head) + row * stack.keys + col;
}

/** The trace's weight of `kind` (encoderSelfAttention, decoderSelfAttention, crossAttention). */
export function weight(trace, kind, layer, head, row, col, digits = 2) {
  const stack = trace[kind];
  const i = stackIndex(stack, layer, head, row, col);
  return num(stack.data[i], 'trace', `${kind}.data.${i}`, digits);
}

/** The root name of a journey (what the test asks `inspect` for). */
export const journeyRoot = (j) => `journey/${j.stack}/${j.layer}/${j.position}`;

/** Field `path` (dot-separated) of journey `j`, as a model number. */
export function fromJourney(j, path, digits = 3) {
  let value = j;
  for (const key of path.split('.')) value = value?.[key];
  return num(value, journeyRoot(j), path, digits);
}

function numberText(part) {
  if (part.exponent) return part.value.toExponential(0).replace('e+', 'e');
  const text = part.value.toFixed(part.digits);
  return text === `-${(0).toFixed(part.digits)}` ? (0).toFixed(part.digits) : text;
}

function numberSpan(part) {
  return el('span', {
    className: 'model-number',
    text: numberText(part),
    title: lessonUi('modelNumber', { source: part.source }),
    data: { source: part.source, value: String(part.value), digits: String(part.digits) },
  });
}

/** A control's label (`key` in www/ui/i18n/*.json), as the page shows it now. */
export const controlName = (key) => el('span', { className: 'control-name', text: t(key), data: { control: key } });

/** One part as nodes (`params`: the step's, for a part that is another template). */
function nodesOf(part, params) {
  if (Array.isArray(part)) return part.flatMap((p) => nodesOf(p, params));
  if (part == null) return [];
  if (typeof part === 'string' || typeof part === 'number') return [document.createTextNode(String(part))];
  if (part.kind === 'number') return [numberSpan(part)];
  if (part.kind === 'token') return [el('span', { className: 'model-token', text: part.text })];
  if (part.kind === 'index') return [el('span', { className: 'lesson-index', text: part.text })];
  if (part.kind === 'setting') return [el('span', { className: 'lesson-setting', text: part.text, data: { setting: part.name } })];
  if (part.kind === 'part') return fill(stepPart(part.step, part.name), params);
  return [document.createTextNode(part.text)];
}

/**
 * `template` with its placeholders filled from `params` (parts, lists of parts or strings), its
 * formulas and illustrations marked and its controls named: an array of nodes. Text is only ever
 * set as text.
 */
export function fill(template, params) {
  const nodes = [];
  const pattern = /\{(\w+)\}|\[\[(.+?)\]\]|\(\((.+?)\)\)|<<([\w.]+)>>/g;
  let last = 0;
  for (const match of template.matchAll(pattern)) {
    if (match.index > last) nodes.push(document.createTextNode(template.slice(last, match.index)));
    if (match[1]) nodes.push(...nodesOf(params[match[1]] ?? `{${match[1]}}`, params));
    else if (match[2]) nodes.push(el('span', { className: 'formula', text: match[2] }));
    else if (match[3]) nodes.push(el('span', { className: 'illustration', text: match[3], title: lessonUi('illustration') }));
    else nodes.push(controlName(match[4]));
    last = match.index + match[0].length;
  }
  if (last < template.length) nodes.push(document.createTextNode(template.slice(last)));
  return nodes;
}

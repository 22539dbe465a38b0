// The pieces a lesson text is filled with, and how they become DOM nodes. A text is a template
// (www/lesson/texts.js): `{name}` is a placeholder filled from the step's parameters, `[[…]]` a
// formula and `((…))` an illustration (a number from the articles, not from this model). Every
// number of the model is a span
//   <span class="model-number" data-source="ROOT:PATH" data-value="…" data-digits="N">
// whose ROOT names what it was read from (`trace`, `stages`, `config`, `positional`, or
// `journey/STACK/LAYER/POSITION`, one Session.inspect answer) and PATH the field (dot-separated
// keys and indices, e.g. `crossAttention.data.37`): a test reads the same field and compares.
// Nothing here computes a number; it only reads them.
import { el } from '../ui/dom.js';
import { matrixOffset } from '../views/attention.js';
import { lessonUi } from './texts.js';

/** A number of the model: `value` read from `root` at `path`, shown with `digits` decimals. */
export const num = (value, root, path, digits = 3) => ({ kind: 'number', value: Number(value), source: `${root}:${path}`, digits });

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

function numberSpan(part) {
  const text = part.value.toFixed(part.digits);
  return el('span', {
    className: 'model-number',
    text: text === `-${(0).toFixed(part.digits)}` ? (0).toFixed(part.digits) : text,
    title: lessonUi('modelNumber', { source: part.source }),
    data: { source: part.source, value: String(part.value), digits: String(part.digits) },
  });
}

/** One part as nodes. */
function nodesOf(part) {
  if (Array.isArray(part)) return part.flatMap(nodesOf);
  if (part == null) return [];
  if (typeof part === 'string' || typeof part === 'number') return [document.createTextNode(String(part))];
  if (part.kind === 'number') return [numberSpan(part)];
  if (part.kind === 'token') return [el('span', { className: 'model-token', text: part.text })];
  if (part.kind === 'index') return [el('span', { className: 'lesson-index', text: part.text })];
  return [document.createTextNode(part.text)];
}

/**
 * `template` with its placeholders filled from `params` (parts, lists of parts or strings), its
 * formulas and illustrations marked: an array of nodes. Text is only ever set as text.
 */
export function fill(template, params) {
  const nodes = [];
  const pattern = /\{(\w+)\}|\[\[(.+?)\]\]|\(\((.+?)\)\)/g;
  let last = 0;
  for (const match of template.matchAll(pattern)) {
    if (match.index > last) nodes.push(document.createTextNode(template.slice(last, match.index)));
    if (match[1]) nodes.push(...nodesOf(params[match[1]] ?? `{${match[1]}}`));
    else if (match[2]) nodes.push(el('span', { className: 'formula', text: match[2] }));
    else nodes.push(el('span', { className: 'illustration', text: match[3], title: lessonUi('illustration') }));
    last = match.index + match[0].length;
  }
  if (last < template.length) nodes.push(document.createTextNode(template.slice(last)));
  return nodes;
}

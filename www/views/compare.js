// Two decodings side by side, with the focused kind, layer and head for both. A is the sentence
// above as the page shows it; B is another sentence (prefilled with A's where one word differs,
// and following it until the person edits it) or A's sentence with its output forced to start with
// a prefix the person types, or A's sentence decoded with the heads switched off in the model view
// (B − A then shows what switching them off changed). B runs in the worker's comparison session,
// with those heads off in the third mode only. Where both matrices have the same shape, a third
// heatmap shows B − A on a diverging map; otherwise the view says why not.

import { cellSize } from '../draw/canvas.js';
import { symmetricRange } from '../draw/colormap.js';
import { captioned, row } from '../draw/svg.js';
import { el, optionT } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { runSlices, whileCurrent } from '../ui/slices.js';
import { axes, headStack, maskFor, matrixOffset } from './attention.js';
import { createHeatmap } from './heatmap.js';

const DEBOUNCE_MS = 300;

// Word swaps for the prefilled sentence B, tried in this order: the first whose word occurs wins.
const SWAPS = [
  ['apples', 'oranges'],
  ['apple', 'orange'],
  ['tea', 'coffee'],
  ['father', 'mother'],
  ['Friday', 'Monday'],
  ['Monday', 'Friday'],
  ['love', 'like'],
];

/** `text` with one word changed: a known swap, else its last digit moved by one, else `text`. */
export function oneWordChanged(text) {
  for (const [word, other] of SWAPS) {
    const pattern = new RegExp(`\\b${word}\\b`);
    if (pattern.test(text)) return text.replace(pattern, other);
  }
  return text.replace(/\d(?=\D*$)/, (digit) => String((Number(digit) + 1) % 10));
}

/** `createCompare(container, { call })`: `call` asks the worker. */
export function createCompare(container, { call }) {
  const { mode, textInput, prefixInput, status, sides, note } = elements(container);

  let context = null; // { trace, selection, text, model, snapshot, off }: what the page shows now
  let edited = false; // B's sentence was typed by the person: it no longer follows A's
  let b = null; // { key, request, answer }: B's latest answer and what it answers
  let pending = null; // the key of the request the worker is answering
  let timer = null;

  const wanted = () => wantedB(context, { mode, textInput, prefixInput });

  function schedule() {
    clearTimeout(timer);
    const { key } = wanted();
    if (!key) return;
    if (b?.key === key || pending === key) return;
    timer = setTimeout(decodeB, DEBOUNCE_MS);
  }

  async function decodeB() {
    const { request, key } = wanted();
    if (!key) return;
    if (!request.text.trim()) {
      status.textContent = t('compare.typeB');
      return;
    }
    pending = key;
    status.textContent = t('compare.decoding');
    redraw();
    try {
      const answer = await call('compare', request);
      if (wanted().key === key) b = { key, request, answer };
      status.textContent = request.off === '' ? t('compare.noneOff') : '';
    } catch (error) {
      // A worker that died is restarted by the page, and B is decoded again after it.
      if (error.workerLost) return;
      if (wanted().key === key) status.textContent = t('compare.failed', { error: error.message });
    } finally {
      if (pending === key) pending = null;
    }
    redraw();
    schedule();
  }

  let drawing = null; // the slices of the latest drawing

  /**
   * Start drawing A, B and B − A (a heatmap a slice, www/ui/slices.js); returns the slices, or null.
   * They stop once a newer drawing has begun (B's answer can come while the page draws A).
   */
  function draw() {
    const slices = context ? whileCurrent(drawSides(), () => drawing === slices) : null;
    drawing = slices;
    return slices;
  }

  /** Draw now, the slices in later tasks. */
  function redraw() {
    const slices = draw();
    if (slices) runSlices(slices);
  }

  function* drawSides() {
    const { trace, selection } = context;
    const a = headMatrix(trace, selection);
    const bTrace = b?.answer.trace;
    const other = bTrace ? headMatrix(bTrace, selection) : null;
    sides.a.output.textContent = `“${context.text}” → ${trace.output}`;
    sides.b.output.textContent = b ? describeB(b.request, bTrace) : '…';
    const cell = cellSize(Math.max(a?.rows || 1, a?.cols || 1, other?.rows || 1, other?.cols || 1), { span: 260, min: 6, max: 22 });
    container.dataset.ready = 'false';
    yield* sides.a.heatmap.renderSliced(a ? { ...a, cell } : nothing());
    yield;
    // B's tokens are not on the page's token lines: its axes light nothing there.
    yield* sides.b.heatmap.renderSliced(other ? { ...other, rowSide: null, colSide: null, cell } : nothing());
    const why = differenceMissing(a, other);
    note.textContent = why;
    sides.diff.figure.hidden = Boolean(why);
    if (!why) {
      yield;
      yield* sides.diff.heatmap.renderSliced({ ...difference(a, other), cell });
    }
    container.dataset.ready = String(Boolean(b) && b.key === wanted().key);
  }

  /**
   * Draw A and B with the page's `trace` and `selection`; `page`: { text, model, snapshot, off (the
   * heads switched off, `KIND:LAYER:HEAD,…`) }. Returns the drawing's slices (www/ui/slices.js), or null.
   */
  function render(trace, selection, page) {
    if (!trace) {
      context = null;
      drawing = null;
      clearTimeout(timer);
      container.dataset.ready = 'false';
      return null;
    }
    if (context?.model !== page.model) {
      edited = false;
      b = null;
    }
    context = { trace, selection, ...page };
    if (!edited) textInput.value = oneWordChanged(page.text);
    schedule();
    return draw();
  }

  const changed = () => {
    redraw();
    schedule();
  };
  listen({ mode, textInput, prefixInput }, { onEdit: () => (edited = true), onChange: changed });

  /** The heads switched off changed (`spec`, '' for none): B follows them in its third mode. */
  function setOff(spec) {
    if (!context || context.off === spec) return;
    context = { ...context, off: spec };
    if (mode.value === 'off') changed();
  }

  // figure: A, B and B − A side by side, as a vector figure; null before A is drawn.
  return { render, setOff, figure: () => (context ? sidesFigure(sides) : null) };
}

/** B's controls: typing B (`onEdit`, then `onChange`), its prefix or its mode (`onChange`; the mode shows its input). */
function listen({ mode, textInput, prefixInput }, { onEdit, onChange }) {
  textInput.addEventListener('input', () => {
    onEdit();
    onChange();
  });
  prefixInput.addEventListener('input', onChange);
  mode.addEventListener('change', () => {
    textInput.hidden = mode.value !== 'other';
    prefixInput.hidden = mode.value !== 'prefix';
    onChange();
  });
}

/** The view's elements, in `container`: B's controls, the three figures, the note and the hover line. */
function elements(container) {
  const mode = el(
    'select',
    { className: 'compare-mode' },
    optionT('other', 'compare.other'),
    optionT('prefix', 'compare.prefix'),
    optionT('off', 'compare.off'),
  );
  const textInput = inputBox('compare-text', 'compare.textPlaceholder');
  const prefixInput = inputBox('compare-prefix', 'compare.prefixPlaceholder');
  prefixInput.hidden = true;
  const status = el('span', { className: 'muted compare-status' });
  const controls = el(
    'div',
    { className: 'row' },
    el('label', {}, el('span', { i18n: 'compare.bIs' }), ' ', mode),
    textInput,
    prefixInput,
    status,
  );
  const hoverValue = el('p', { className: 'hover-value' });
  const onHoverValue = (text) => {
    hoverValue.textContent = text;
  };
  const sides = Object.fromEntries(['a', 'b', 'diff'].map((side) => [side, figure(side, onHoverValue)]));
  const grid = el('div', { className: 'compare-grid' }, ...Object.values(sides).map((s) => s.figure));
  const note = el('p', { className: 'explain compare-note' });
  container.replaceChildren(controls, grid, note, hoverValue);
  return { mode, textInput, prefixInput, status, sides, note };
}

/**
 * What B is for the page's `context` and the controls: the worker request, and a key that also
 * names the weights it needs (both null without a context).
 */
function wantedB(context, { mode, textInput, prefixInput }) {
  if (!context) return { request: null, key: null };
  const requests = {
    other: { text: textInput.value },
    prefix: { text: context.text, prefix: prefixInput.value },
    off: { text: context.text, off: context.off ?? '' },
  };
  const request = requests[mode.value];
  return { request, key: JSON.stringify([request, context.model, context.snapshot]) };
}

/** The sides shown, side by side, each under its caption, as a vector figure. */
function sidesFigure(sides) {
  const parts = ['a', 'b', 'diff']
    .filter((side) => !sides[side].figure.hidden)
    .map((side) => captioned(sides[side].figure.querySelector('figcaption').textContent, sides[side].heatmap.figure()));
  return row(parts, { gap: 24 });
}

/** A text box whose placeholder and accessible name are the translation of `key`. */
function inputBox(className, key) {
  const input = el('input', { className, i18nLabel: key, attrs: { type: 'text', spellcheck: 'false', autocomplete: 'off' } });
  input.dataset.i18nPlaceholder = key;
  input.placeholder = t(key);
  return input;
}

/** One side: a figure with its caption (the side's name and output) and a heatmap. */
function figure(side, onHoverValue) {
  const output = el('span', { className: 'compare-output' });
  const slot = el('div');
  const caption = el('figcaption', {}, el('strong', { text: { a: 'A: ', b: 'B: ', diff: 'B − A' }[side] }), output);
  return { figure: el('figure', { data: { side } }, caption, slot), output, heatmap: createHeatmap(slot, { onHoverValue }) };
}

function describeB(request, trace) {
  const forced = request.prefix != null ? t('compare.forced', { prefix: request.prefix }) : '';
  const off = request.off ? t('compare.headsOff', { spec: request.off }) : '';
  return `“${request.text}”${forced}${off} → ${trace.output}`;
}

const nothing = () => ({ rows: 0, cols: 0, values: new Float32Array(0) });

/** The selected head's matrix of `trace` as a heatmap spec (values [rows, cols]), or null. */
function headMatrix(trace, selection) {
  const { kind } = selection;
  const { stack, head, label } = headStack(trace, kind, null, selection.head);
  if (!stack?.queries) return null;
  const layer = Math.min(selection.layer, stack.layers - 1);
  const { queries: rows, keys: cols } = stack;
  const offset = matrixOffset(stack, layer, head);
  return {
    ...axes(trace, kind),
    rows,
    cols,
    values: stack.data.subarray(offset, offset + rows * cols),
    mask: maskFor(trace, kind),
    min: 0,
    max: 1,
    legendLabel: t('focus.legend', { layer, head: label }),
  };
}

/** Why no B − A can be drawn, or '' when it can. */
function differenceMissing(a, b) {
  if (!a || !b) return a ? t('compare.noDiffYet') : t('compare.nothingYet');
  if (a.rows === b.rows && a.cols === b.cols) return '';
  return t('compare.shapes', { aRows: a.rows, aCols: a.cols, bRows: b.rows, bCols: b.cols });
}

/** B − A cell by cell (same shape), on a diverging map symmetric around 0. */
function difference(a, b) {
  const values = new Float64Array(a.rows * a.cols);
  const mask = a.mask || b.mask ? new Uint8Array(values.length) : null;
  for (let i = 0; i < values.length; i++) {
    values[i] = b.values[i] - a.values[i];
    if (mask) mask[i] = a.mask?.[i] || b.mask?.[i] ? 1 : 0;
  }
  const [min, max] = symmetricRange(values, mask);
  const label = (x, y) => (x === y ? x : `${x} / ${y}`);
  return {
    ...a,
    values,
    mask,
    rowLabels: a.rowLabels.map((x, i) => label(x, b.rowLabels[i])),
    colLabels: a.colLabels.map((x, j) => label(x, b.colLabels[j])),
    rowSide: null,
    colSide: null,
    map: 'rdbu',
    min,
    max,
    legendLabel: t('compare.diffLegend'),
  };
}

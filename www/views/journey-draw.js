// The journey view's pictures: a vector as a strip of coloured cells (blue negative, red
// positive, on one symmetric range per group so that strips side by side compare), and one head's
// weighted sum as stacked contributions α_j v_j per dimension. Hovering either shows the numbers,
// and announces on the bus what the person reads (`journey-look`, www/ui/bus.js).
//
// Each picture is built once for its shape (how many numbers) and painted again for every pick of
// the same shape: scrubbing through tokens and layers repaints canvases, it does not make new ones
// (a new 2D context, its sizing and its layout cost more than the pixels).
import { cpuCanvas, drawingContext, drawMatrix, formatValue, sizeCanvas } from '../draw/canvas.js';
import { symmetricRange } from '../draw/colormap.js';
import { seriesColour, theme } from '../draw/theme.js';
import { announce } from '../ui/bus.js';
import { el } from '../ui/dom.js';
import { hideTooltip, showTooltip } from '../ui/tooltip.js';
import { jt } from './journey-texts.js';

const STRIP_HEIGHT = 14;
const MAX_STRIP_WIDTH = 384;

/** Cell width for a vector of `count` numbers: 1–8 px, the strip at most MAX_STRIP_WIDTH wide. */
export const cellWidth = (count) => Math.max(1, Math.min(8, Math.floor(MAX_STRIP_WIDTH / Math.max(1, count))));

/** One symmetric range around 0 covering every vector in `vectors`. */
export function rangeOf(...vectors) {
  let max = 0;
  for (const v of vectors) if (v) max = Math.max(max, symmetricRange(v)[1]);
  return [-(max || 1), max || 1];
}

/** `node`'s text, set only when it changes (a write, even of the same text, costs a relayout). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** `node`'s attribute `name`, set only when it changes (null: removed). */
export function setAttr(node, name, value) {
  if (node.getAttribute(name) === value) return;
  if (value == null) node.removeAttribute(name);
  else node.setAttribute(name, value);
}

// What each strip and contributions canvas shows now, for its tooltip.
const shown = new WeakMap();

let looked = null; // the `journey-look` last announced, as JSON: a pointer within one cell says it once

/**
 * Announce that the person reads number `dim` (`value`) of the picture `canvas`, unless that is
 * what was announced last. Where it is comes from the page around it: the block's data-part, the
 * vector's data-vector (on the canvas or its row), the key's row (data-key) and the head's box.
 */
function look(canvas, dim, value, key = null) {
  const row = canvas.closest('tr[data-key]');
  const head = canvas.closest('.j-head, .j-head-out')?.dataset.head;
  const detail = {
    block: canvas.closest('.j-block')?.dataset.part ?? null,
    vector: canvas.dataset.vector ?? canvas.closest('[data-vector]')?.dataset.vector ?? null,
    key: key ?? (row ? Number(row.dataset.key) : null),
    head: head == null ? null : Number(head),
    dim,
    value,
  };
  const text = JSON.stringify(detail);
  if (text === looked) return;
  looked = text;
  announce('journey-look', detail);
}

/** The pointer left a picture: the next number read is announced even if it is the same one. */
function leave() {
  looked = null;
  hideTooltip();
}

/**
 * A strip canvas for `count` numbers (cells of 1–`maxCell` px): `paintStrip` draws it. `vector`
 * names it in `journey-look` where its row does not (a key's k_j and v_j).
 */
export function strip(count, { height = STRIP_HEIGHT, maxCell = 8, vector } = {}) {
  const cell = Math.min(maxCell, cellWidth(count));
  const canvas = cpuCanvas({ className: 'j-strip', attrs: { role: 'img' }, data: vector ? { vector } : {} });
  const size = [cell * count, height];
  sizeCanvas(canvas, ...size);
  shown.set(canvas, { count, size });
  canvas.addEventListener('mousemove', (event) => {
    const { name, values, offset } = shown.get(canvas);
    if (!values) return;
    // The strip may be drawn narrower than its cells (max-width on a phone): scale back.
    const index = Math.min(count - 1, Math.max(0, Math.floor((event.offsetX / canvas.clientWidth) * count)));
    const value = values[offset + index];
    showTooltip(event, jt('tooltip', { name, index, value: formatValue(value) }));
    look(canvas, index, value);
  });
  canvas.addEventListener('mouseleave', leave);
  return canvas;
}

/**
 * Paint strip `canvas` (made by `strip` for `count` numbers) with the `count` numbers of `values`
 * from `offset`, `range` [min, max] for its colours. Hovering a cell shows "name [index] = value".
 */
export function paintStrip(canvas, values, { name, range = rangeOf(values), offset = 0 }) {
  const was = shown.get(canvas);
  const { count, size } = was;
  shown.set(canvas, { name, values, offset, count, size, range });
  setAttr(canvas, 'aria-label', jt('stripLabel', { name, count }));
  const sized = canvas.dataset.size;
  sizeCanvas(canvas, ...size); // again: the pixel ratio may have changed (zoom)
  // The same numbers on the same scale (another head's pick leaves most strips as they are):
  // drawing them again would cost the canvas a repaint and its tile a raster for nothing.
  const same = was.values === values && was.offset === offset && was.range?.[0] === range[0] && was.range?.[1] === range[1];
  if (same && canvas.dataset.size === sized) return;
  drawMatrix(canvas, { rows: 1, cols: count, values, offset, map: 'rdbu', min: range[0], max: range[1] });
}

// One colour a key (the page's series palette, repeating): the stacked contributions and their legend.
export const keyColour = seriesColour;

const CONTRIBUTION_HEIGHT = 140;

/** The canvas of one head's weighted sum over `dK` dimensions: `paintContributions` draws it. */
export function contributions(dK) {
  const canvas = cpuCanvas({
    className: 'j-contributions',
    attrs: { role: 'img', 'aria-label': jt('weightedTitle') },
    data: { vector: 'contributions' },
  });
  sizeCanvas(canvas, Math.max(3, cellWidth(dK)) * dK, CONTRIBUTION_HEIGHT);
  canvas.addEventListener('mousemove', (event) => {
    const sum = shown.get(canvas);
    if (!sum) return;
    const at = contributionAt(sum, event, canvas.clientWidth);
    showTooltip(event, at.text);
    look(canvas, at.dim, at.value, at.key);
  });
  canvas.addEventListener('mouseleave', leave);
  return canvas;
}

/**
 * The stacked contributions at `event`: key j's α_j v_j[d], or (j null) their sum, with the text
 * of its tooltip: { key, dim, value, text }.
 */
function contributionAt({ weights, values, output, dK, keyTokens, boxes }, event, clientWidth) {
  const d = Math.min(dK - 1, Math.max(0, Math.floor((event.offsetX / clientWidth) * dK)));
  const j = boxes[d].findIndex((box) => box && event.offsetY >= box[0] - 1 && event.offsetY <= box[1] + 1);
  if (j < 0)
    return { key: null, dim: d, value: output[d], text: jt('tooltip', { name: 'Σ α_j v_j', index: d, value: formatValue(output[d]) }) };
  const value = values[j * dK + d];
  const text = jt('contribution', {
    token: keyTokens[j],
    index: d,
    alpha: formatValue(weights[j]),
    value: formatValue(value),
    product: formatValue(weights[j] * value),
  });
  return { key: j, dim: d, value: weights[j] * value, text };
}

/**
 * Paint the weighted sum of one head: for each of the dK dimensions, every key's α_j v_j[d]
 * stacked (positive ones up from the axis, negative ones down), and a white tick at their sum,
 * the head's output. `keyTokens` name the keys in the tooltip; masked keys have α = 0 and add
 * nothing.
 *
 * # Shapes
 * `weights` [kLen]; `values` row-major [kLen, dK]; `output` [dK].
 */
export function paintContributions(canvas, { weights, values, output, kLen, dK, keyTokens }) {
  const was = shown.get(canvas);
  const cell = Math.max(3, cellWidth(dK));
  const width = cell * dK;
  const sized = canvas.dataset.size;
  sizeCanvas(canvas, width, CONTRIBUTION_HEIGHT);
  if (was && was.weights === weights && was.values === values && was.keyTokens === keyTokens && canvas.dataset.size === sized) return;
  const ctx = drawingContext(canvas, width, CONTRIBUTION_HEIGHT);
  const { line, text } = theme();
  // The scale: the tallest stack, up or down.
  let reach = 0;
  for (let d = 0; d < dK; d++) {
    let up = 0;
    let down = 0;
    for (let j = 0; j < kLen; j++) {
      const c = weights[j] * values[j * dK + d];
      if (c > 0) up += c;
      else down -= c;
    }
    reach = Math.max(reach, up, down, Math.abs(output[d]));
  }
  const half = CONTRIBUTION_HEIGHT / 2;
  const scale = (half - 2) / (reach || 1);
  ctx.fillStyle = line;
  ctx.fillRect(0, half, width, 1);
  const boxes = []; // per dimension, per key: [top, bottom] in CSS px, for the tooltip
  for (let d = 0; d < dK; d++) {
    let up = half;
    let down = half + 1;
    boxes[d] = [];
    for (let j = 0; j < kLen; j++) {
      const h = weights[j] * values[j * dK + d] * scale;
      ctx.fillStyle = keyColour(j);
      if (h > 0) {
        ctx.fillRect(d * cell, up - h, cell - (cell > 3 ? 1 : 0), h);
        boxes[d][j] = [up - h, up];
        up -= h;
      } else {
        ctx.fillRect(d * cell, down, cell - (cell > 3 ? 1 : 0), -h);
        boxes[d][j] = [down, down - h];
        down -= h;
      }
    }
    ctx.fillStyle = text;
    ctx.fillRect(d * cell, half - output[d] * scale - 1, cell, 2);
  }
  shown.set(canvas, { weights, values, output, dK, keyTokens, boxes });
}

/** The legend of the stacked contributions for `kLen` keys: `paintLegend` names them. */
export function keyLegend(kLen) {
  return el(
    'div',
    { className: 'j-legend' },
    ...Array.from({ length: kLen }, (_, j) => {
      const swatch = el('i');
      swatch.style.background = keyColour(j);
      return el('span', { className: 'j-key' }, swatch, el('span', { className: 'j-token' }));
    }),
  );
}

/** Legend `legend` naming each key token in its colour, struck through where `mask` hides it. */
export function paintLegend(legend, keyTokens, mask) {
  [...legend.children].forEach((key, j) => {
    setAttr(key, 'class', mask?.[j] ? 'j-key masked' : 'j-key');
    setText(key.lastChild, keyTokens[j]);
  });
}

/** A horizontal bar for a weight or probability in [0, 1] (`setBar` sets it). */
export function bar(value) {
  const fill = el('span', { className: 'j-bar' }, el('i'));
  if (value != null) setBar(fill, value);
  return fill;
}

/** Bar `node` (made by `bar`) filled to `value`. */
export function setBar(node, value) {
  const width = `${Math.max(0, Math.min(1, value)) * 100}%`;
  const fill = node.firstChild;
  if (fill.style.width !== width) fill.style.width = width;
}

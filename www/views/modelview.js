// Every layer × head of every kind as thumbnails; click one to focus it. The <s>/</s> key columns
// can be left out, as in the focused heatmap.

import { cellColour, cpuCanvas, drawMatrix, rasterizeNow, sizeCanvas } from '../draw/canvas.js';
import { figure as emptyFigure, row, svgElement, textEl } from '../draw/svg.js';
import { theme } from '../draw/theme.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import {
  HEAD_SUMMARIES,
  headStack,
  KINDS,
  keepColumns,
  kindTitle,
  maskFor,
  matrixOffset,
  sinkColumns,
  stackFor,
  withoutSinks,
} from './attention.js';

export function createModelView(container, onSelect) {
  const slots = new Map(KINDS.map((kind) => [kind, el('div')]));
  container.replaceChildren(el('div', { className: 'grid-kinds' }, ...slots.values()));
  const grids = new Map(); // kind → its grid (makeGrid), kept while its layers and heads stay
  const shown = new Map(); // kind → the arguments it was last drawn with

  /**
   * A kind's grid: its title, a header row of head names, and a row per layer of its name and a
   * thumbnail button for each head. Made once per shape: a redraw changes only texts and pixels.
   */
  function makeGrid(kind, layers, heads) {
    const title = el('h3', { className: 'thumbs-title' });
    const group = el('div', { className: 'thumbs' });
    group.style.gridTemplateColumns = `auto repeat(${heads.length}, auto)`;
    const headLabels = heads.map(() => el('span', { className: 'axis-label' }));
    const layerLabels = [];
    const buttons = []; // [layer][k]: the button of head heads[k]
    group.append(el('span'), ...headLabels);
    for (let l = 0; l < layers; l++) {
      layerLabels.push(el('span', { className: 'axis-label' }));
      buttons.push(
        heads.map((h) => {
          const button = el('button', { className: 'thumb', attrs: { type: 'button' }, data: { kind, layer: l, head: h } }, cpuCanvas());
          button.addEventListener('click', () => onSelect({ kind, layer: l, head: h }));
          return button;
        }),
      );
      group.append(layerLabels[l], ...buttons[l]);
    }
    return { key: `${layers}/${heads.join()}`, wrap: el('div', {}, title, group), title, headLabels, layerLabels, buttons };
  }

  /**
   * One kind's thumbnails (the page draws the three kinds in separate tasks), a layer a slice
   * (www/ui/slices.js). `special`: the config's { bosId, eosId } to leave those key columns out, or
   * null; `analysis`: the trace's (www/shared/wire.js analysis), for a mean and a max column, or null.
   */
  function* renderKind(trace, selection, kind, special = null, analysis = null) {
    shown.set(kind, [trace, selection, kind, special, analysis]);
    const slot = slots.get(kind);
    const stack = stackFor(trace, kind);
    if (!stack?.queries) {
      grids.delete(kind);
      const group = el('div', { className: 'thumbs' }, el('span', { className: 'muted', text: t('modelView.nothingYet') }));
      slot.replaceChildren(el('div', {}, el('h3', { className: 'thumbs-title', text: kindTitle(kind) }), group));
      return;
    }
    // The real heads, then the mean and max over them (from the trace's analysis, when there is one).
    const heads = [...Array(stack.heads).keys(), ...(analysis ? Object.keys(HEAD_SUMMARIES) : [])];
    let grid = grids.get(kind);
    if (grid?.key !== `${stack.layers}/${heads.join()}`) {
      grid = makeGrid(kind, stack.layers, heads);
      grids.set(kind, grid);
      slot.replaceChildren(grid.wrap);
    }
    grid.title.textContent = kindTitle(kind);
    heads.forEach((h, k) => {
      grid.headLabels[k].textContent = headName(h);
    });
    const mask = maskFor(trace, kind); // the same for every head
    const sinks = special ? sinkColumns(trace, kind, special) : [];
    for (let l = 0; l < stack.layers; l++) {
      grid.layerLabels[l].textContent = t('modelView.layer', { layer: l });
      heads.forEach((h, k) => {
        const drawn = headStack(trace, kind, analysis, h);
        const button = grid.buttons[l][k];
        button.title = t('focus.caption', { kind: kindTitle(kind), layer: l, head: drawn.label });
        button.classList.toggle('selected', selection.kind === kind && selection.layer === l && selection.head === h);
        drawThumbnail(button.firstChild, thumbnailMatrix(drawn.stack, l, drawn.head, mask, sinks));
      });
      yield;
    }
  }

  /** Every kind's thumbnails as drawn, side by side, as a vector figure (one <rect> a cell). */
  function figure() {
    const parts = KINDS.filter((kind) => shown.has(kind)).map((kind) => kindFigure(...shown.get(kind)));
    return parts.length ? row(parts, { gap: 28 }) : null;
  }
  return { renderKind, figure };
}

/** `matrix` (thumbnailMatrix) on `canvas`, its longer side THUMB px; resized only when its size changes. */
function drawThumbnail(canvas, matrix) {
  const scale = THUMB / Math.max(matrix.rows, matrix.cols);
  const cssWidth = Math.max(4, Math.round(matrix.cols * scale));
  const cssHeight = Math.max(4, Math.round(matrix.rows * scale));
  sizeCanvas(canvas, cssWidth, cssHeight);
  drawMatrix(canvas, matrix);
  rasterizeNow(canvas.getContext('2d')); // here, in its slice, not all 180 at once when the view is scrolled to
}

/** One head's matrix for drawMatrix, without the `sinks` key columns (rows renormalised) if any. */
function thumbnailMatrix(stack, layer, head, mask, sinks) {
  const { queries: rows, keys: cols } = stack;
  const offset = matrixOffset(stack, layer, head);
  if (!sinks.length) return { rows, cols, values: stack.data, offset, mask };
  const pruned = withoutSinks(stack.data.subarray(offset, offset + rows * cols), rows, cols, sinks);
  return { rows, cols: pruned.keep.length, values: pruned.values, mask: mask && keepColumns(mask, rows, cols, pruned.keep) };
}

/** A column's title: "head 2", or the summary's name. */
const headName = (h) => (Number.isInteger(h) ? t('head.one', { head: h }) : t(`head.${h}`));

const THUMB = 64; // px: a thumbnail's longer side
const GAP = 6;

/** One kind's layer × head grid of thumbnails, the focused one outlined. */
function kindFigure(trace, selection, kind, special, analysis) {
  const stack = stackFor(trace, kind);
  if (!stack?.queries) return null;
  const heads = [...Array(stack.heads).keys(), ...(analysis ? Object.keys(HEAD_SUMMARIES) : [])];
  const left = 52;
  const top = 36;
  const colours = theme();
  const out = emptyFigure(left + heads.length * (THUMB + GAP), top + stack.layers * (THUMB + GAP));
  const { svg } = out;
  svg.append(textEl(kindTitle(kind), { x: 0, y: 13, fill: colours.text, 'font-size': 13 }));
  heads.forEach((h, k) => {
    const label = headName(h);
    svg.append(
      textEl(label, { x: left + k * (THUMB + GAP) + THUMB / 2, y: top - 6, fill: colours.muted, 'font-size': 11, 'text-anchor': 'middle' }),
    );
  });
  const mask = maskFor(trace, kind);
  const sinks = special ? sinkColumns(trace, kind, special) : [];
  for (let l = 0; l < stack.layers; l++) {
    const y0 = top + l * (THUMB + GAP);
    svg.append(
      textEl(t('modelView.layer', { layer: l }), {
        x: 0,
        y: y0 + THUMB / 2,
        fill: colours.muted,
        'font-size': 11,
        'dominant-baseline': 'central',
      }),
    );
    heads.forEach((h, k) => {
      const drawn = headStack(trace, kind, analysis, h);
      const matrix = thumbnailMatrix(drawn.stack, l, drawn.head, mask, sinks);
      const cell = THUMB / Math.max(matrix.rows, matrix.cols);
      const x0 = left + k * (THUMB + GAP);
      const g = svgElement('g', { class: 'thumbnail', 'data-layer': l, 'data-head': h });
      for (let r = 0; r < matrix.rows; r++) {
        for (let c = 0; c < matrix.cols; c++) {
          const i = r * matrix.cols + c;
          const v = matrix.values[(matrix.offset || 0) + i];
          g.append(
            svgElement('rect', {
              class: 'cell',
              x: x0 + c * cell,
              y: y0 + r * cell,
              width: cell,
              height: cell,
              fill: cellColour(v, matrix.mask?.[i]),
            }),
          );
        }
      }
      if (selection.kind === kind && selection.layer === l && selection.head === h) {
        g.append(
          svgElement('rect', {
            x: x0 - 1.5,
            y: y0 - 1.5,
            width: matrix.cols * cell + 3,
            height: matrix.rows * cell + 3,
            fill: 'none',
            stroke: colours.accent,
            'stroke-width': 2,
          }),
        );
      }
      svg.append(g);
    });
  }
  return out;
}

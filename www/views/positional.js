// Positional encoding: what each position adds to its token's embedding.
//   - Sinusoidal (the paper's): the learner picks a dimension pair (2i, 2i+1) from a list that
//     gives each pair's wavelength and frequency. Its sine and cosine are drawn bold, the sines of
//     a few other pairs faint behind them (fast to slow), and its columns are outlined in the whole
//     table. Beside them, PE(t)·PE(t+Δ) for several t: the curves coincide, the product depends on
//     Δ alone.
//   - Learned: the same drawings of a trained [positions, d_model] table, pairs of dimensions
//     without frequencies, and dot products that need not coincide.
//   - None: a message saying what that means.
// Hover, a tap or the arrow keys on the curves (hover or a tap on the table) read one value:
// position, dimension and value, in the page's tooltip and in the line under the curves. A click
// on a column of the table picks its pair.
// What the person reads is announced on the bus (www/ui/bus.js): `positional-look` for each new
// point read (curves or table), `positional-pair` for a pair they pick (the list, a column).
//
// createPositional(container) → { render(pe), figure() }: `pe` is described in
// positional-data.js (www/shared/wire.js positional, optionally with `kind` and `layout`);
// `figure()` is the panel as a vector figure, for the PNG and SVG exports.
import { announce } from '../ui/bus.js';
import { el, option } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { hideTooltip, say, showTooltip } from '../ui/tooltip.js';
import * as data from './positional-data.js';
import * as figures from './positional-figures.js';
import { drawPlot, indexAt, PLOT, plotPoint } from './positional-plot.js';

/** The panel's elements, made once. */
function makeElements(container) {
  const message = el('p', { className: 'positional-message' });
  const select = el('select', { className: 'positional-pair' });
  const controls = el(
    'div',
    { className: 'positional-controls' },
    el('label', {}, el('span', { i18n: 'positional.pairLabel' }), ' ', select),
    el('span', { className: 'muted', i18n: 'positional.hint' }),
  );
  const plot = (canvas, ...below) => {
    const caption = el('figcaption');
    return { caption, canvas, node: el('figure', { className: `${canvas.className}-figure` }, caption, canvas, ...below) };
  };
  const legend = el('div', { className: 'legend positional-legend' });
  const readout = el('p', { className: 'positional-readout' });
  const curves = plot(el('canvas', { className: 'positional-curves', attrs: { tabindex: 0, role: 'application' } }), legend, readout);
  const table = plot(el('canvas', { className: 'positional-table' }));
  const dotLegend = el('div', { className: 'legend' });
  const dots = plot(el('canvas', { className: 'positional-dots' }), dotLegend);
  const body = el('div', {}, controls, el('div', { className: 'plots' }, curves.node, table.node, dots.node));
  const root = el('div', { className: 'positional-view' }, message, body);
  container.replaceChildren(root);
  return { root, message, body, select, curves, legend, readout, table, dots, dotLegend };
}

/** A legend line on the page: `━ text` in its colour; `dim` marks a bold curve's column. */
function legendItem({ text, colour, dim }) {
  const item = el('span', { text: `━ ${text}`, className: dim == null ? '' : 'highlight', data: dim == null ? {} : { dim } });
  item.style.color = colour;
  return item;
}

/** How many CSS px of the page one px of the plot is (less than 1 where a phone shrinks it). */
function plotScale(canvas) {
  const rect = canvas.getBoundingClientRect();
  return { rect, scale: rect.width / PLOT.width || 1 };
}

/** Where on the screen point `cursor` of the curves is, as a pointer position. */
function screenPoint(canvas, view, { position, which }) {
  const { rect, scale } = plotScale(canvas);
  const col = which ? view.columns.second : view.columns.first;
  const { x, y } = plotPoint(figures.curveFrame(view), position, figures.valueAt(view, col, position));
  return { clientX: rect.left + x * scale, clientY: rect.top + y * scale };
}

/** The point of the bold curves under the pointer: the nearest position, and the nearer of the two. */
function curvePointAt(canvas, view, event) {
  const { rect, scale } = plotScale(canvas);
  const frame = figures.curveFrame(view);
  const position = indexAt(frame, (event.clientX - rect.left) / scale);
  const y = (event.clientY - rect.top) / scale;
  const [a, b] = [view.columns.first, view.columns.second].map((col) =>
    Math.abs(plotPoint(frame, position, figures.valueAt(view, col, position)).y - y),
  );
  return { position, which: a <= b ? 0 : 1 };
}

/** Highlight pair `i` of `view`: the list, the bold curves, their legend and caption, the table's outline. */
function showPair(parts, view, i) {
  view.pair = i;
  view.columns = figures.columnsOf(view, i);
  const { first, second } = view.columns;
  const { curves } = parts;
  parts.select.value = String(i);
  parts.root.dataset.pair = String(i);
  curves.canvas.dataset.highlight = `${first},${second}`;
  curves.canvas.setAttribute('aria-label', t('positional.curvesLabel', { first, second }));
  curves.caption.textContent = figures.captions(view).curves;
  parts.legend.replaceChildren(...figures.curveLegend(view).map(legendItem));
  figures.drawTable(parts.table.canvas, view);
  if (view.cursor) readCurve(parts, view, view.cursor, null, false);
  else drawPlot(curves.canvas, figures.curveSpec(view));
}

/**
 * Read point `cursor` of the curves: marked on the plot, written under it, shown in the tooltip
 * at `point` (a pointer position) when given, and said to screen readers when `aloud`.
 */
function readCurve(parts, view, cursor, point, aloud) {
  view.cursor = cursor;
  const col = cursor.which ? view.columns.second : view.columns.first;
  const text = figures.describe(view, col, cursor.position);
  parts.curves.canvas.dataset.point = `${cursor.position},${col}`;
  parts.readout.textContent = text;
  drawPlot(parts.curves.canvas, figures.curveSpec(view));
  if (point) showTooltip(point, text);
  if (aloud) say(text);
}

/** Nothing read on the curves any more. */
function forgetCurvePoint(parts, view) {
  hideTooltip();
  if (!view?.cursor) return;
  view.cursor = null;
  delete parts.curves.canvas.dataset.point;
  drawPlot(parts.curves.canvas, figures.curveSpec(view));
}

export function createPositional(container) {
  const parts = makeElements(container);
  let view = null; // positional-figures.js's view of what is drawn, or null before the first table
  const drawn = () => view !== null && view.kind !== 'none';
  let looked = null; // the point last announced, "figure position dimension": a pointer within it says it once

  /** The person reads `position`, `dimension` on `figure` ('curves' or 'table'): announced once per point. */
  function look(figure, position, dimension) {
    const key = `${figure} ${position} ${dimension}`;
    if (key === looked) return;
    looked = key;
    announce('positional-look', { figure, position, dimension, value: figures.valueAt(view, dimension, position) });
  }

  /** The person picks pair `i`: shown, and announced. */
  function pickPair(i) {
    showPair(parts, view, i);
    const { first, second } = view.columns;
    announce('positional-pair', { pair: i, dimensions: [first, second] });
  }

  wireCurves(parts.curves.canvas, {
    active: drawn,
    at: (event) => curvePointAt(parts.curves.canvas, view, event),
    read: (cursor, point, aloud) => {
      readCurve(parts, view, cursor, point ?? screenPoint(parts.curves.canvas, view, cursor), aloud);
      look('curves', cursor.position, cursor.which ? view.columns.second : view.columns.first);
    },
    cursor: () => view.cursor,
    rows: () => view.pe.rows,
    forget: () => {
      looked = null;
      forgetCurvePoint(parts, view);
    },
  });
  wireTable(parts.table.canvas, {
    active: drawn,
    shape: () => view.pe,
    describe: (col, position) => {
      look('table', position, col);
      return figures.describe(view, col, position);
    },
    leave: () => {
      looked = null;
    },
    pick: (col) => {
      const i = data.pairOfColumn(view.layout, view.pe.cols, col);
      if (i != null) pickPair(i);
    },
  });
  parts.select.addEventListener('change', () => pickPair(Number(parts.select.value)));

  /** Draw `pe`; the picked pair stays while the table keeps its width (a relabel draws the same `pe` again). */
  function render(pe) {
    if (!pe) return;
    view = figures.makeView(pe, view);
    parts.root.dataset.kind = view.kind;
    parts.message.hidden = view.kind !== 'none';
    parts.body.hidden = view.kind === 'none';
    if (view.kind === 'none') {
      parts.message.textContent = t('positional.none');
      hideTooltip();
      return;
    }
    parts.select.replaceChildren(...Array.from({ length: view.n }, (_, i) => option(String(i), figures.pairName(view, i))));
    const caption = figures.captions(view);
    parts.table.caption.textContent = caption.table;
    parts.dots.caption.textContent = caption.dots;
    const dots = figures.dotSpec(view);
    drawPlot(parts.dots.canvas, dots);
    parts.dotLegend.replaceChildren(...dots.legend.map(legendItem));
    showPair(parts, view, view.pair);
  }

  return { render, figure: () => (view ? figures.vectorFigure(view) : null) };
}

const MOVES = { ArrowLeft: -1, ArrowRight: 1, PageDown: -10, PageUp: 10 };

/** The cursor after key `key`, from `now` on curves of `rows` positions; null for a key that does nothing here. */
function moved(key, now, rows) {
  const last = rows - 1;
  if (key in MOVES) return { ...now, position: Math.max(0, Math.min(last, now.position + MOVES[key])) };
  if (key === 'ArrowUp' || key === 'ArrowDown') return { ...now, which: 1 - now.which };
  if (key === 'Home' || key === 'End') return { ...now, position: key === 'Home' ? 0 : last };
  return null;
}

/**
 * The curves' pointer and keys: hover or a tap reads the point under it; with the focus, ←/→
 * (PageUp/PageDown: ten) move along the curve, ↑/↓ switch between the two curves, Home/End jump to
 * the ends. `hooks`: { active, at(event), read(cursor, point, aloud), cursor, rows, forget }.
 */
function wireCurves(canvas, hooks) {
  canvas.addEventListener('pointermove', (event) => {
    if (hooks.active()) hooks.read(hooks.at(event), event, false);
  });
  canvas.addEventListener('pointerdown', (event) => {
    if (hooks.active()) hooks.read(hooks.at(event), event, true);
  });
  // A lifted finger leaves too: the point it tapped stays read until the next tap or the blur.
  canvas.addEventListener('pointerleave', (event) => {
    if (event.pointerType !== 'touch' && document.activeElement !== canvas) hooks.forget();
  });
  canvas.addEventListener('keydown', (event) => {
    if (!hooks.active()) return;
    const next = moved(event.key, hooks.cursor() ?? { position: 0, which: 0 }, hooks.rows());
    if (!next) return;
    event.preventDefault();
    hooks.read(next, null, true);
  });
  canvas.addEventListener('focus', () => {
    if (hooks.active()) hooks.read(hooks.cursor() ?? { position: 0, which: 0 }, null, true);
  });
  canvas.addEventListener('blur', () => {
    if (hooks.active()) hooks.forget();
  });
}

/**
 * The table's pointer: hover reads a cell, a click (or a tap) also picks its column's pair.
 * `hooks`: { active, shape → { rows, cols }, describe(col, position), pick(col), leave }.
 */
function wireTable(canvas, hooks) {
  const cellAt = (event) => {
    const { rows, cols } = hooks.shape();
    const rect = canvas.getBoundingClientRect();
    const c = Math.floor(((event.clientX - rect.left) / rect.width) * cols);
    const r = Math.floor(((event.clientY - rect.top) / rect.height) * rows);
    return r >= 0 && c >= 0 && r < rows && c < cols ? { r, c } : null;
  };
  const read = (event) => {
    const at = hooks.active() && cellAt(event);
    if (!at) return null;
    canvas.dataset.cell = `${at.r},${at.c}`;
    showTooltip(event, hooks.describe(at.c, at.r));
    return at;
  };
  canvas.addEventListener('pointermove', read);
  canvas.addEventListener('click', (event) => {
    const at = read(event);
    if (at) hooks.pick(at.c);
  });
  canvas.addEventListener('pointerleave', () => {
    delete canvas.dataset.cell;
    hideTooltip();
    hooks.leave();
  });
}

// What the positional view draws, from its state (a "view"): the curves of the picked pair over
// faint ones, the whole table with the pair outlined, the dot products, their captions and
// legends, the words for one value, and all of it as one vector figure for the exports.
//
// A view: { pe (positional-data.js's input), kind, layout, n (pairs), pair, columns ({ first,
// second }), range ({ min, max }), dots ({ starts, curves }), cursor ({ position, which }: the point
// being read, `which` 0 for the first column, 1 for the second; or null) }, or { kind: 'none' }.
import { drawMatrix, sizeCanvas } from '../draw/canvas.js';
import { captioned, figure as emptyFigure, row, textEl, wrap } from '../draw/svg.js';
import { seriesColour, theme, withAlpha } from '../draw/theme.js';
import { t } from '../ui/i18n.js';
import { heatmapFigure } from './heatmap-figure.js';
import * as data from './positional-data.js';
import { plotFigure } from './positional-plot.js';

/** The table's size on the page, at most, in CSS px. */
const TABLE = { width: 384, height: 256 };
/** Line widths of the dot-product curves, widest first: curves that coincide all stay visible. */
const DOT_WIDTHS = [6, 4, 2.5, 1.25];

/** The view of `pe`; what `previous` (the view drawn before) had picked stays when the shape is the same. */
export function makeView(pe, previous) {
  const kind = data.kindOf(pe);
  if (kind === 'none') return { kind };
  const layout = kind === 'sinusoidal' ? data.layoutOf(pe) : 'interleaved';
  const n = data.pairCount(pe.cols);
  // The same shape again (a relabel, or a model of the same width): keep the pair and the point.
  const kept = previous?.pe?.cols === pe.cols && previous.kind === kind ? previous : null;
  const pair = kept ? Math.min(kept.pair, n - 1) : data.defaultPair(pe, kind, layout);
  const cursor = kept?.cursor && kept.cursor.position < pe.rows ? kept.cursor : null;
  const view = { pe, kind, layout, n, pair, cursor, range: data.rangeOf(pe, kind), dots: data.dotCurves(pe) };
  view.columns = columnsOf(view, pair);
  return view;
}

/** Pair `i`'s two columns in `view`'s table. */
export const columnsOf = (view, i) => data.pairColumns(view.layout, view.pe.cols, i);

/** The table's value at `position` in column `col`. */
export const valueAt = (view, col, position) => view.pe.table[position * view.pe.cols + col];

const sinusoidal = (view) => view.kind === 'sinusoidal';

/** Pair `i`'s name in the pair list: its columns, and for sinusoids how fast it turns. */
export function pairName(view, i) {
  const { first, second } = columnsOf(view, i);
  if (!sinusoidal(view)) return t('positional.pairLearned', { first, second });
  const { wavelength, frequency } = data.turnOf(view.pe, { first, second });
  return t('positional.pair', {
    i,
    sin: first,
    cos: second,
    wavelength: data.shortNumber(wavelength),
    frequency: data.shortNumber(frequency),
  });
}

/** The words for one value: its position, its column (sin or cos for sinusoids) and the value. */
export function describe(view, col, position) {
  const params = { position, dim: col, value: data.valueText(valueAt(view, col, position)) };
  if (!sinusoidal(view)) return t('positional.valueLearned', params);
  return t('positional.value', { ...params, fn: data.functionOf(view.layout, view.pe.cols, col) });
}

/** The geometry of the curves: points along the positions, values in the view's range. */
export const curveFrame = (view) => ({ length: view.pe.rows, yMin: view.range.min, yMax: view.range.max });

/** The picked pair's two curves, bold, over faint curves of other pairs, and the point being read. */
export function curveSpec(view) {
  const { pe, n, pair, columns, cursor } = view;
  const faint = data.referencePairs(n, pair).map((i) => ({
    values: data.columnOf(pe, columnsOf(view, i).first),
    colour: theme().muted,
    width: 1,
    alpha: 0.3,
  }));
  const bold = [columns.first, columns.second].map((col, k) => ({ values: data.columnOf(pe, col), colour: seriesColour(k), width: 2.25 }));
  const read = cursor && bold[cursor.which];
  return {
    ...curveFrame(view),
    xLabel: t('positional.position'),
    yLabel: 'PE',
    series: [...faint, ...bold],
    marker: read ? { index: cursor.position, value: read.values[cursor.position], colour: read.colour } : null,
  };
}

/** The curves' legend, [{ text, colour, dim }]: the two bold columns (with `dim`), then the faint curves. */
export function curveLegend(view) {
  const { first, second } = view.columns;
  const faint = data.referencePairs(view.n, view.pair);
  const muted = theme().muted;
  if (!sinusoidal(view)) {
    return [
      { text: t('positional.learnedDim', { dim: first }), colour: seriesColour(0), dim: first },
      { text: t('positional.learnedDim', { dim: second }), colour: seriesColour(1), dim: second },
      { text: t('positional.faintLearned', { dims: faint.map((i) => columnsOf(view, i).first).join(', ') }), colour: muted },
    ];
  }
  const wavelength = data.shortNumber(data.turnOf(view.pe, view.columns).wavelength);
  return [
    { text: t('positional.dim', { dim: first, fn: 'sin', wavelength }), colour: seriesColour(0), dim: first },
    { text: t('positional.dim', { dim: second, fn: 'cos', wavelength }), colour: seriesColour(1), dim: second },
    { text: t('positional.faint', { pairs: faint.join(', ') }), colour: muted },
  ];
}

/** The three figures' captions, in the language in use. */
export function captions(view) {
  const { rows, cols } = view.pe;
  if (sinusoidal(view)) {
    return {
      curves: t('positional.curves', { i: view.pair }),
      table: t('positional.table', { rows, cols }),
      dots: t('positional.dots'),
    };
  }
  return {
    curves: t('positional.learnedCurves', view.columns),
    table: t('positional.learnedTable', { rows, cols, max: data.shortNumber(view.range.max) }),
    dots: t('positional.learnedDots'),
  };
}

/** PE(t)·PE(t+Δ) for each start t, widest first, with its legend. */
export function dotSpec(view) {
  const { starts, curves } = view.dots;
  const all = curves.flat();
  return {
    length: Math.max(1, ...curves.map((v) => v.length)),
    yMin: Math.min(0, ...all),
    yMax: Math.max(0, ...all),
    xLabel: t('positional.offset'),
    yLabel: 'PE(t)·PE(t+Δ)',
    series: curves.map((values, k) => ({ values, colour: seriesColour(k), width: DOT_WIDTHS[k % DOT_WIDTHS.length] })),
    marker: null,
    legend: starts.map((s, k) => ({ text: `t = ${s}`, colour: seriesColour(k) })),
  };
}

/** The picked columns as runs [first column, count]: one run for neighbours, two apart. */
function runsOf({ first, second }) {
  if (second === first + 1) return [[first, 2]];
  return [
    [first, 1],
    [second, 1],
  ];
}

/**
 * The whole table on `canvas`, every column but the picked pair's dimmed (the others faint, as in
 * the curves) and the pair's columns outlined.
 */
export function drawTable(canvas, view) {
  const { pe, range } = view;
  const cssWidth = Math.min(TABLE.width, pe.cols * 3);
  sizeCanvas(canvas, cssWidth, Math.min(TABLE.height, pe.rows * 4));
  drawMatrix(canvas, { rows: pe.rows, cols: pe.cols, values: pe.table, map: 'rdbu', min: range.min, max: range.max });
  const ctx = canvas.getContext('2d');
  const dpr = canvas.width / cssWidth;
  const step = canvas.width / pe.cols;
  const runs = runsOf(view.columns);
  ctx.fillStyle = withAlpha(theme().background, 0.6);
  let from = 0; // the first column not yet dimmed or kept
  for (const [col, count] of [...runs, [pe.cols, 0]]) {
    ctx.fillRect(from * step, 0, (col - from) * step, canvas.height);
    from = col + count;
  }
  ctx.strokeStyle = theme().text;
  ctx.lineWidth = dpr;
  for (const [col, count] of runs) ctx.strokeRect(col * step - dpr / 2, dpr / 2, count * step + dpr, canvas.height - dpr);
}

/** A message as a vector figure (what the panel exports when it draws nothing). */
function messageFigure(text) {
  const lines = wrap(text, 420, 13);
  const out = emptyFigure(430, lines.length * 18 + 10);
  lines.forEach((line, k) => {
    out.svg.append(textEl(line, { x: 4, y: 18 + 18 * k, fill: theme().text, 'font-size': 13 }));
  });
  return out;
}

/** The curves (bold pair and legend), the table and the dot products side by side, as a vector figure. */
export function vectorFigure(view) {
  if (view.kind === 'none') return messageFigure(t('positional.none'));
  const { pe, range } = view;
  const table = { rows: pe.rows, cols: pe.cols, values: pe.table, map: 'rdbu', min: range.min, max: range.max, cell: 3, legendLabel: 'PE' };
  const dots = dotSpec(view);
  const caption = captions(view);
  return row(
    [
      captioned(caption.curves, plotFigure({ ...curveSpec(view), marker: null }, curveLegend(view))),
      captioned(caption.table, heatmapFigure(table)),
      captioned(caption.dots, plotFigure(dots, dots.legend)),
    ],
    { gap: 24 },
  );
}

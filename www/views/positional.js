// Positional encoding: sin/cos curves of a few dimensions, the whole table as a heatmap, and
// PE(t)·PE(t+Δ) for several t — the curves coincide because the product depends on Δ alone.
import { drawingContext, drawMatrix, sizeCanvas } from '../draw/canvas.js';
import { captioned, fontOf, row, svgContext } from '../draw/svg.js';
import { seriesColour, theme } from '../draw/theme.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { heatmapFigure } from './heatmap-figure.js';

const PLOT = { width: 360, height: 200 };

function plot(canvas, series, options) {
  paintPlot(drawingContext(canvas, PLOT.width, PLOT.height), series, options);
}

/** The plot and, below it, its legend (one line a series), as a vector figure. */
function plotFigure(series, options) {
  const ctx = svgContext(PLOT.width, PLOT.height + 16 * series.length + 4);
  paintPlot(ctx, series, options);
  ctx.font = fontOf(11);
  ctx.textBaseline = 'middle';
  series.forEach((s, k) => {
    ctx.fillStyle = seriesColour(k);
    ctx.fillText(`━ ${s.label}`, 4, PLOT.height + 10 + 16 * k);
  });
  return ctx.figure;
}

function paintPlot(ctx, series, { yMin, yMax, xLabel, yLabel }) {
  const { width, height } = PLOT;
  const pad = { l: 36, r: 8, t: 8, b: 26 };
  const n = Math.max(...series.map((s) => s.values.length));
  const x = (i) => pad.l + (i / Math.max(1, n - 1)) * (width - pad.l - pad.r);
  const y = (v) => pad.t + (1 - (v - yMin) / (yMax - yMin || 1)) * (height - pad.t - pad.b);
  ctx.strokeStyle = theme().line;
  ctx.strokeRect(pad.l, pad.t, width - pad.l - pad.r, height - pad.t - pad.b);
  ctx.fillStyle = theme().muted;
  ctx.font = fontOf(11);
  ctx.fillText(yMax.toFixed(0 + (Math.abs(yMax) < 10)), 2, pad.t + 8);
  ctx.fillText(yMin.toFixed(0 + (Math.abs(yMin) < 10)), 2, height - pad.b);
  ctx.fillText(xLabel, width / 2 - 20, height - 6);
  ctx.fillText(`${n - 1}`, width - pad.r - 16, height - 14);
  ctx.save();
  ctx.translate(10, height / 2 + 20);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(yLabel, 0, 0);
  ctx.restore();
  series.forEach((s, k) => {
    ctx.strokeStyle = seriesColour(k);
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    s.values.forEach((v, i) => {
      if (i) ctx.lineTo(x(i), y(v));
      else ctx.moveTo(x(i), y(v));
    });
    ctx.stroke();
  });
}

function legendOf(series) {
  return el(
    'div',
    { className: 'legend' },
    ...series.map((s, k) => {
      const item = el('span', { text: `━ ${s.label}` });
      item.style.color = seriesColour(k);
      return item;
    }),
  );
}

export function createPositional(container) {
  let parts = null; // what the figure is made of, as last drawn

  function render(pe) {
    if (!pe) return;
    const { rows, cols, table } = pe;
    const dims = [0, 1, 4, 5, Math.floor(cols / 4) * 2, cols - 2].filter((d, i, a) => d < cols && a.indexOf(d) === i);
    // Each sin/cos pair turns by a fixed angle per position: read it off position 1 of the table.
    const wavelength = (d) => {
      const even = d - (d % 2);
      return (2 * Math.PI) / Math.atan2(table[cols + even], table[cols + even + 1]);
    };
    const curves = dims.map((d) => ({
      label: t('positional.dim', { dim: d, fn: d % 2 ? 'cos' : 'sin', wavelength: wavelength(d).toFixed(1) }),
      values: Array.from({ length: rows }, (_, p) => table[p * cols + d]),
    }));
    const curveOptions = { yMin: -1, yMax: 1, xLabel: t('positional.position'), yLabel: 'PE' };
    const curveCanvas = el('canvas');
    plot(curveCanvas, curves, curveOptions);
    const heat = el('canvas');
    sizeCanvas(heat, Math.min(384, cols * 3), Math.min(256, rows * 4));
    drawMatrix(heat, { rows, cols, values: table, map: 'rdbu', min: -1, max: 1 });
    const dots = pe.dotProducts.map((values, k) => ({ label: `t = ${pe.starts[k]}`, values }));
    const products = dots.flatMap((d) => d.values);
    const dotOptions = {
      yMin: Math.min(...products),
      yMax: Math.max(...products),
      xLabel: t('positional.offset'),
      yLabel: 'PE(t)·PE(t+Δ)',
    };
    const dotCanvas = el('canvas');
    plot(dotCanvas, dots, dotOptions);
    const tableTitle = t('positional.table', { rows, cols });
    parts = { curves, curveOptions, dots, dotOptions, pe, tableTitle };
    const figure = (title, ...nodes) => el('figure', {}, el('figcaption', { text: title }), ...nodes);
    const wrap = el(
      'div',
      { className: 'plots' },
      figure(t('positional.curves'), curveCanvas, legendOf(curves)),
      figure(tableTitle, heat),
      figure(t('positional.dots'), dotCanvas, legendOf(dots)),
    );
    container.replaceChildren(wrap);
  }

  /** The curves, the table (one <rect> a cell) and the dot products side by side, as a vector figure. */
  function figure() {
    if (!parts) return null;
    const { curves, curveOptions, dots, dotOptions, pe, tableTitle } = parts;
    const table = { rows: pe.rows, cols: pe.cols, values: pe.table, map: 'rdbu', min: -1, max: 1, cell: 3, legendLabel: 'PE' };
    return row(
      [
        captioned(t('positional.curves'), plotFigure(curves, curveOptions)),
        captioned(tableTitle, heatmapFigure(table)),
        captioned(t('positional.dots'), plotFigure(dots, dotOptions)),
      ],
      { gap: 24 },
    );
  }
  return { render, figure };
}

// The positional view's line plots, painted by one routine on a canvas and into an exported figure:
// faint curves behind, highlighted ones on top, and a marker on the point being read.
//
// A plot spec: { length (points along x), yMin, yMax, xLabel, yLabel,
//   series: [{ values, colour, width, alpha }] (drawn in order: faint first),
//   marker: { index, value, colour } or null }.
import { drawingContext } from '../draw/canvas.js';
import { fontOf, svgContext } from '../draw/svg.js';
import { theme, withAlpha } from '../draw/theme.js';
import { shortNumber } from './positional-data.js';

/** A plot's size in CSS px (on the page it may be drawn narrower: the pointer maths scales). */
export const PLOT = { width: 340, height: 200 };

/** The frame the curves are drawn in, inside the plot, in CSS px. */
export const FRAME = { left: 36, top: 8, width: PLOT.width - 36 - 8, height: PLOT.height - 8 - 26 };

/** Where value `v` at point `i` of `spec` is drawn, in the plot's CSS px. */
export function plotPoint(spec, i, v) {
  return {
    x: FRAME.left + (i / Math.max(1, spec.length - 1)) * FRAME.width,
    y: FRAME.top + (1 - (v - spec.yMin) / (spec.yMax - spec.yMin || 1)) * FRAME.height,
  };
}

/** The point of `spec` whose x is nearest `x` (the plot's CSS px). */
export function indexAt(spec, x) {
  const i = Math.round(((x - FRAME.left) / FRAME.width) * Math.max(1, spec.length - 1));
  return Math.max(0, Math.min(spec.length - 1, i));
}

function paintFrame(ctx, spec) {
  const { left, top, width, height } = FRAME;
  const colours = theme();
  ctx.strokeStyle = colours.line;
  ctx.lineWidth = 1;
  ctx.strokeRect(left, top, width, height);
  if (spec.yMin < 0 && spec.yMax > 0) {
    const { y } = plotPoint(spec, 0, 0);
    ctx.beginPath();
    ctx.moveTo(left, y);
    ctx.lineTo(left + width, y);
    ctx.stroke();
  }
  ctx.fillStyle = colours.muted;
  ctx.font = fontOf(11);
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'right';
  ctx.fillText(shortNumber(spec.yMax), left - 4, top + 9);
  ctx.fillText(shortNumber(spec.yMin), left - 4, top + height);
  ctx.fillText(String(spec.length - 1), left + width, PLOT.height - 14);
  ctx.textAlign = 'left';
  ctx.fillText('0', left, PLOT.height - 14);
  ctx.textAlign = 'center';
  ctx.fillText(spec.xLabel, left + width / 2, PLOT.height - 4);
  ctx.save();
  ctx.translate(10, top + height / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(spec.yLabel, 0, 0);
  ctx.restore();
  ctx.textAlign = 'left';
}

function paintSeries(ctx, spec, { values, colour, width, alpha = 1 }) {
  ctx.strokeStyle = alpha < 1 ? withAlpha(colour, alpha) : colour;
  ctx.lineWidth = width;
  ctx.beginPath();
  values.forEach((v, i) => {
    const { x, y } = plotPoint(spec, i, v);
    if (i) ctx.lineTo(x, y);
    else ctx.moveTo(x, y);
  });
  ctx.stroke();
}

/** The point being read: a guide down to the x axis and a ring on the curve. */
function paintMarker(ctx, spec, { index, value, colour }) {
  const { x, y } = plotPoint(spec, index, value);
  ctx.strokeStyle = withAlpha(theme().muted, 0.6);
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(x, FRAME.top);
  ctx.lineTo(x, FRAME.top + FRAME.height);
  ctx.stroke();
  ctx.strokeStyle = theme().text;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.arc(x, y, 4.5, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.fillStyle = colour;
  ctx.beginPath();
  ctx.arc(x, y, 3, 0, 2 * Math.PI);
  ctx.fill();
}

/** Paint `spec` on `ctx` (a canvas's 2D context or www/draw/svg.js svgContext). */
export function paintPlot(ctx, spec) {
  paintFrame(ctx, spec);
  for (const series of spec.series) paintSeries(ctx, spec, series);
  if (spec.marker) paintMarker(ctx, spec, spec.marker);
}

/** Draw `spec` on `canvas`, sized PLOT at the device's pixel ratio. */
export function drawPlot(canvas, spec) {
  paintPlot(drawingContext(canvas, PLOT.width, PLOT.height), spec);
}

/** The plot and, below it, its legend ([{ text, colour }], one line each), as a vector figure. */
export function plotFigure(spec, legend) {
  const ctx = svgContext(PLOT.width, PLOT.height + 16 * legend.length + 4);
  paintPlot(ctx, spec);
  ctx.font = fontOf(11);
  ctx.textBaseline = 'middle';
  legend.forEach(({ text, colour }, k) => {
    ctx.fillStyle = colour;
    ctx.fillText(`━ ${text}`, 4, PLOT.height + 10 + 16 * k);
  });
  return ctx.figure;
}

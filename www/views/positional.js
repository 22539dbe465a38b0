// Positional encoding: sin/cos curves of a few dimensions, the whole table as a heatmap, and
// PE(t)·PE(t+Δ) for several t — the curves coincide because the product depends on Δ alone.
import { drawMatrix, sizeCanvas } from '../canvas.js';
import { el } from '../dom.js';

const COLOURS = ['#ffb000', '#7fc3ff', '#ff6b6b', '#78dc8c', '#c88cff', '#ff96d2', '#5adcdc'];

function plot(canvas, series, { width = 360, height = 200, yMin, yMax, xLabel, yLabel }) {
  const dpr = sizeCanvas(canvas, width, height);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const pad = { l: 36, r: 8, t: 8, b: 26 };
  const n = Math.max(...series.map((s) => s.values.length));
  const x = (i) => pad.l + (i / Math.max(1, n - 1)) * (width - pad.l - pad.r);
  const y = (v) => pad.t + (1 - (v - yMin) / (yMax - yMin || 1)) * (height - pad.t - pad.b);
  ctx.strokeStyle = '#2a2f3a';
  ctx.strokeRect(pad.l, pad.t, width - pad.l - pad.r, height - pad.t - pad.b);
  ctx.fillStyle = '#9aa3b2';
  ctx.font = '11px system-ui, sans-serif';
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
    ctx.strokeStyle = COLOURS[k % COLOURS.length];
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
      item.style.color = COLOURS[k % COLOURS.length];
      return item;
    }),
  );
}

export function createPositional(container) {
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
      label: `dim ${d} (${d % 2 ? 'cos' : 'sin'}, wavelength ${wavelength(d).toFixed(1)})`,
      values: Array.from({ length: rows }, (_, p) => table[p * cols + d]),
    }));
    const curveCanvas = el('canvas');
    plot(curveCanvas, curves, { yMin: -1, yMax: 1, xLabel: 'position', yLabel: 'PE' });
    const heat = el('canvas');
    sizeCanvas(heat, Math.min(384, cols * 3), Math.min(256, rows * 4));
    drawMatrix(heat, { rows, cols, values: table, map: 'rdbu', min: -1, max: 1 });
    const dots = pe.dotProducts.map((values, k) => ({ label: `t = ${pe.starts[k]}`, values }));
    const dotCanvas = el('canvas');
    const products = dots.flatMap((d) => d.values);
    plot(dotCanvas, dots, {
      yMin: Math.min(...products),
      yMax: Math.max(...products),
      xLabel: 'offset Δ',
      yLabel: 'PE(t)·PE(t+Δ)',
    });
    const figure = (title, ...nodes) => el('figure', {}, el('figcaption', { text: title }), ...nodes);
    const wrap = el(
      'div',
      { className: 'plots' },
      figure('PE(pos, dim) for a few dimensions', curveCanvas, legendOf(curves)),
      figure(`The whole table: ${rows} positions (rows) × ${cols} dimensions (columns), −1 blue … +1 red`, heat),
      figure('PE(t)·PE(t+Δ) for four starting positions t: the curves lie on top of each other', dotCanvas, legendOf(dots)),
    );
    container.replaceChildren(wrap);
  }
  return { render };
}

// Drawing matrices through ImageData at device-pixel resolution: crisp at any devicePixelRatio.
import { MAPS } from './colormap.js';
import { el } from './dom.js';

/** Size a canvas for `cssWidth × cssHeight` CSS pixels; returns the device-pixel ratio used. */
export function sizeCanvas(canvas, cssWidth, cssHeight) {
  const dpr = Math.max(1, window.devicePixelRatio || 1);
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  canvas.width = Math.max(1, Math.round(cssWidth * dpr));
  canvas.height = Math.max(1, Math.round(cssHeight * dpr));
  return dpr;
}

/**
 * Draw a row-major `rows × cols` matrix filling the canvas. `mask[i]` true cells are drawn
 * hatched grey (hidden by the mask). `highlight` = { rows, cols } outlines those rows and columns.
 *
 * The matrix is written once at cell resolution through ImageData, then scaled to the canvas's
 * device pixels with nearest-neighbour sampling: O(cells) work, crisp at any devicePixelRatio.
 */
export function drawMatrix(canvas, { rows, cols, values, offset = 0, map = 'viridis', min = 0, max = 1, mask = null, highlight = null }) {
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  ctx.clearRect(0, 0, width, height);
  if (!rows || !cols) return;
  const cells = cellCanvas(cols, rows);
  const cellCtx = cells.getContext('2d');
  const image = cellCtx.createImageData(cols, rows);
  const data = image.data;
  const table = MAPS[map] || MAPS.viridis;
  const span = max - min || 1;
  for (let i = 0; i < rows * cols; i++) {
    const p = i * 4;
    const k = mapOffset(values[offset + i], mask?.[i], min, span);
    if (k < 0) {
      data[p] = data[p + 1] = data[p + 2] = -k;
    } else {
      data[p] = table[k];
      data[p + 1] = table[k + 1];
      data[p + 2] = table[k + 2];
    }
    data[p + 3] = 255;
  }
  cellCtx.putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cells, 0, 0, cols, rows, 0, 0, width, height);
  const cw = width / cols;
  const rh = height / rows;
  // Hatch masked cells where a cell is big enough to show it (thumbnails have 1–2 px cells:
  // there the flat grey says it, and thousands of hatch strokes would slow every redraw).
  if (mask && cw >= 4 && rh >= 4) {
    ctx.save();
    ctx.strokeStyle = 'rgba(110, 110, 120, 0.9)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let i = 0; i < rows * cols; i++) {
      if (!mask[i]) continue;
      const x = (i % cols) * cw;
      const y = Math.floor(i / cols) * rh;
      ctx.moveTo(x, y + rh);
      ctx.lineTo(x + cw, y);
    }
    ctx.stroke();
    ctx.restore();
  }
  if (highlight) {
    ctx.strokeStyle = '#ffb000';
    ctx.lineWidth = Math.max(1, Math.round(window.devicePixelRatio || 1));
    for (const row of highlight.rows || []) {
      if (row >= 0 && row < rows) ctx.strokeRect(0.5, row * rh + 0.5, width - 1, rh - 1);
    }
    for (const col of highlight.cols || []) {
      if (col >= 0 && col < cols) ctx.strokeRect(col * cw + 0.5, 0.5, cw - 1, height - 1);
    }
  }
}

/**
 * The colour of one cell: the offset of its RGB triple in a 256-entry map, or minus the grey level
 * of a cell without one (40: hidden by the mask, 90: not a finite number).
 */
export function mapOffset(v, masked, min, span) {
  if (masked) return -40;
  if (!Number.isFinite(v)) return -90;
  const t = Math.min(1, Math.max(0, (v - min) / span));
  return Math.round(t * 255) * 3;
}

/** The CSS colour drawMatrix gives value `v` on `map` from `min` to `max`. */
export function cellColour(v, masked, { map = 'viridis', min = 0, max = 1 } = {}) {
  const table = MAPS[map] || MAPS.viridis;
  const k = mapOffset(v, masked, min, max - min || 1);
  return k < 0 ? `rgb(${-k},${-k},${-k})` : `rgb(${table[k]},${table[k + 1]},${table[k + 2]})`;
}

// One scratch canvas per size, reused across draws.
const scratch = new Map();
function cellCanvas(cols, rows) {
  const key = `${cols}x${rows}`;
  let c = scratch.get(key);
  if (!c) {
    if (scratch.size > 64) scratch.clear();
    c = el('canvas');
    c.width = cols;
    c.height = rows;
    scratch.set(key, c);
  }
  return c;
}

/** A horizontal colour bar with its end labels. */
export function legend(map, min, max, label) {
  const canvas = el('canvas');
  sizeCanvas(canvas, 120, 10);
  const steps = 120;
  const values = new Float32Array(steps).map((_, i) => min + ((max - min) * i) / (steps - 1));
  drawMatrix(canvas, { rows: 1, cols: steps, values, map, min, max });
  return el(
    'div',
    { className: 'legend' },
    el('span', { text: formatValue(min) }),
    canvas,
    el('span', { text: formatValue(max) }),
    el('span', { text: label || '' }),
  );
}

export function formatValue(v) {
  if (!Number.isFinite(v)) return v > 0 ? '+∞' : v < 0 ? '−∞' : 'NaN';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e4)) return v.toExponential(2);
  return v.toFixed(a < 1 ? 4 : 3);
}

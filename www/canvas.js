// Drawing matrices through ImageData at device-pixel resolution: crisp at any devicePixelRatio.
import { colour } from './colormap.js';

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
 * hatched grey (hidden by the mask). `highlight` = { row, col } outlines a row and/or column.
 */
export function drawMatrix(canvas, { rows, cols, values, offset = 0, map = 'viridis', min = 0, max = 1, mask = null, highlight = null }) {
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  if (!rows || !cols) {
    ctx.clearRect(0, 0, width, height);
    return;
  }
  const image = ctx.createImageData(width, height);
  const data = image.data;
  const colOf = new Int32Array(width);
  for (let x = 0; x < width; x++) colOf[x] = Math.min(cols - 1, Math.floor((x * cols) / width));
  for (let y = 0; y < height; y++) {
    const r = Math.min(rows - 1, Math.floor((y * rows) / height));
    for (let x = 0; x < width; x++) {
      const c = colOf[x];
      const i = r * cols + c;
      let rgb;
      if (mask && mask[i]) {
        rgb = (x + y) % 6 < 2 ? [70, 70, 76] : [40, 40, 46];
      } else {
        rgb = colour(values[offset + i], map, min, max);
      }
      const p = (y * width + x) * 4;
      data[p] = rgb[0];
      data[p + 1] = rgb[1];
      data[p + 2] = rgb[2];
      data[p + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  if (highlight) {
    ctx.strokeStyle = '#ffb000';
    ctx.lineWidth = Math.max(1, Math.round(window.devicePixelRatio || 1));
    const cw = width / cols;
    const rh = height / rows;
    if (highlight.row != null && highlight.row >= 0 && highlight.row < rows) {
      ctx.strokeRect(0.5, highlight.row * rh + 0.5, width - 1, rh - 1);
    }
    if (highlight.col != null && highlight.col >= 0 && highlight.col < cols) {
      ctx.strokeRect(highlight.col * cw + 0.5, 0.5, cw - 1, height - 1);
    }
  }
}

/** A horizontal colour bar with its end labels. */
export function legend(map, min, max, label) {
  const wrap = document.createElement('div');
  wrap.className = 'legend';
  const lo = document.createElement('span');
  lo.textContent = formatValue(min);
  const canvas = document.createElement('canvas');
  sizeCanvas(canvas, 120, 10);
  const steps = 120;
  const values = new Float32Array(steps).map((_, i) => min + ((max - min) * i) / (steps - 1));
  drawMatrix(canvas, { rows: 1, cols: steps, values, map, min, max });
  const hi = document.createElement('span');
  hi.textContent = formatValue(max);
  const text = document.createElement('span');
  text.textContent = label || '';
  wrap.append(lo, canvas, hi, text);
  return wrap;
}

export function formatValue(v) {
  if (!Number.isFinite(v)) return v > 0 ? '+∞' : v < 0 ? '−∞' : 'NaN';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e4)) return v.toExponential(2);
  return v.toFixed(a < 1 ? 4 : 3);
}

// Drawing matrices through ImageData at device-pixel resolution: crisp at any devicePixelRatio.
import { el } from '../ui/dom.js';
import { MAPS } from './colormap.js';
import { theme } from './theme.js';

/**
 * A canvas drawn by the CPU rather than the GPU. A GPU canvas is a compositor layer of its own (the
 * page's many small ones, a thumbnail per head and a row of bars per step, would cost every frame
 * more than their pixels do), and drawing on one can leave the page waiting on a busy GPU process.
 * Also the kind for a canvas that is only drawn from (drawMatrix's cells).
 */
export function cpuCanvas(options = {}) {
  const canvas = el('canvas', options);
  canvas.getContext('2d', { willReadFrequently: true });
  return canvas;
}

/**
 * Make a canvas draw what it has been told to, now. A canvas records drawing and rasterizes it
 * only when it must (for a frame, or when it is read): drawing thousands of lines in slices
 * across tasks would otherwise all be rasterized at once, in the task that first uses them.
 */
export function rasterizeNow(ctx) {
  ctx.getImageData(0, 0, 1, 1);
}

/** The device pixels per CSS pixel the canvases are drawn at (at least 1). */
export const pixelRatio = () => Math.max(1, window.devicePixelRatio || 1);

/**
 * Size `canvas` for `cssWidth × cssHeight` CSS pixels at the device's pixel ratio, unless it has
 * that size already (a resize clears the canvas and costs a layout; its data-size says the size
 * it has). Returns the pixel ratio.
 */
export function sizeCanvas(canvas, cssWidth, cssHeight) {
  const dpr = pixelRatio();
  const size = `${cssWidth}x${cssHeight}@${dpr}`;
  if (canvas.dataset.size === size) return dpr;
  canvas.dataset.size = size;
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  canvas.width = Math.max(1, Math.round(cssWidth * dpr));
  canvas.height = Math.max(1, Math.round(cssHeight * dpr));
  return dpr;
}

/** `canvas` sized (sizeCanvas) and cleared: its 2D context, drawing in CSS pixels. */
export function drawingContext(canvas, cssWidth, cssHeight) {
  const dpr = sizeCanvas(canvas, cssWidth, cssHeight);
  const ctx = canvas.getContext('2d');
  ctx.resetTransform();
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

/**
 * The side (px) of a heatmap's cells for `cells` rows or columns along its longer side: `span` px
 * in all, each cell between `min` and `max`.
 */
export function cellSize(cells, { span = 480, min = 8, max = 40 } = {}) {
  return Math.max(min, Math.min(max, Math.floor(span / Math.max(cells, 1))));
}

/**
 * Draw a row-major `rows × cols` matrix filling the canvas. `mask[i]` true cells are drawn
 * hatched grey (hidden by the mask).
 *
 * The matrix is written once at cell resolution through ImageData, then scaled to the canvas's
 * device pixels with nearest-neighbour sampling: O(cells) work, crisp at any devicePixelRatio.
 */
export function drawMatrix(canvas, { rows, cols, values, offset = 0, map = 'viridis', min = 0, max = 1, mask = null }) {
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  ctx.clearRect(0, 0, width, height);
  if (!rows || !cols) return;
  const cells = cellCanvas(cols, rows);
  const cellCtx = cells.getContext('2d');
  const image = imageData(cellCtx, cols, rows);
  // One 32-bit store a cell, from the map's colours packed as pixels.
  const pixels = new Uint32Array(image.data.buffer);
  const colours = packedColours(map);
  const span = max - min || 1;
  for (let i = 0; i < rows * cols; i++) pixels[i] = colours[colourIndex(values[offset + i], mask?.[i], min, span)];
  cellCtx.putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cells, 0, 0, cols, rows, 0, 0, width, height);
  const cw = width / cols;
  const rh = height / rows;
  // Hatch masked cells where a cell is big enough to show it (thumbnails have 1–2 px cells:
  // there the flat grey says it, and thousands of hatch strokes would slow every redraw).
  if (mask && cw >= 4 && rh >= 4) {
    ctx.save();
    ctx.strokeStyle = theme().hatch;
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
}

// Past the map's 256 colours: the greys of a cell hidden by the mask and of one that is not a
// finite number.
const MASKED = 256;
const NOT_A_NUMBER = 257;
const GREYS = { [MASKED]: 40, [NOT_A_NUMBER]: 90 };

/** Which colour a cell gets: its place (0–255) along a map from `min` to `min + span`, or a grey. */
function colourIndex(v, masked, min, span) {
  if (masked) return MASKED;
  if (!Number.isFinite(v)) return NOT_A_NUMBER;
  const t = Math.min(1, Math.max(0, (v - min) / span));
  return Math.round(t * 255);
}

const packed = new Map(); // map name → packedColours

/** Every colourIndex of `map` as an opaque RGBA pixel, in the platform's byte order (for ImageData). */
function packedColours(map) {
  const name = MAPS[map] ? map : 'viridis';
  let colours = packed.get(name);
  if (!colours) {
    colours = new Uint32Array(NOT_A_NUMBER + 1);
    const bytes = new Uint8Array(colours.buffer);
    const table = MAPS[name];
    for (let k = 0; k < colours.length; k++) {
      const rgb = k in GREYS ? Array(3).fill(GREYS[k]) : table.slice(3 * k, 3 * k + 3);
      bytes.set([...rgb, 255], 4 * k);
    }
    packed.set(name, colours);
  }
  return colours;
}

/** The CSS colour drawMatrix gives value `v` on `map` from `min` to `max`. */
export function cellColour(v, masked, { map = 'viridis', min = 0, max = 1 } = {}) {
  const k = colourIndex(v, masked, min, max - min || 1);
  const [r, g, b] = new Uint8Array(packedColours(map).buffer, 4 * k, 3);
  return `rgb(${r},${g},${b})`;
}

// One ImageData per size, reused across draws (putImageData copies it): a redraw of a large
// model's thumbnails would otherwise leave megabytes behind for the garbage collector.
const images = new Map();
function imageData(ctx, cols, rows) {
  const key = `${cols}x${rows}`;
  let image = images.get(key);
  if (!image) {
    if (images.size > 64) images.clear();
    image = ctx.createImageData(cols, rows);
    images.set(key, image);
  }
  return image;
}

// One scratch canvas per size, reused across draws.
const scratch = new Map();
function cellCanvas(cols, rows) {
  const key = `${cols}x${rows}`;
  let c = scratch.get(key);
  if (!c) {
    if (scratch.size > 64) scratch.clear();
    c = cpuCanvas();
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

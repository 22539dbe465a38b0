// The lit rows and columns of a heatmap (www/views/heatmap.js), outlined on a canvas of their own
// laid over the matrix. A hover draws two thin boxes here and leaves the matrix's canvas alone: it
// is drawn only when the data changes. Each box is a 1 px outline in the accent colour, inside its
// row or column, as wide as the matrix (a row) or as tall (a column).
//
// The canvas says what it shows: data-rows and data-cols list the outlined rows and columns
// ("3 7", '' for none).

import { pixelRatio, sizeCanvas } from '../draw/canvas.js';
import { theme } from '../draw/theme.js';
import { el } from '../ui/dom.js';

/**
 * An overlay: `canvas` (class "marks": laid over the matrix, blind to the pointer), `size(rows,
 * cols, cell)` when the matrix is drawn anew, and `show(lit)` with lit = { rows, cols } (indices).
 */
export function createOverlay() {
  const canvas = el('canvas', { className: 'marks', attrs: { 'aria-hidden': 'true' } });
  const o = { canvas, ctx: canvas.getContext('2d'), rows: 0, cols: 0, cell: 0, dpr: 1, drawn: [], key: '' };
  return { canvas, size: (rows, cols, cell) => size(o, rows, cols, cell), show: (lit) => show(o, lit) };
}

/** Fit the overlay to a matrix of `rows` × `cols` cells of `cell` px; what it showed is drawn again. */
function size(o, rows, cols, cell) {
  const resized = o.rows !== rows || o.cols !== cols || o.cell !== cell || o.dpr !== pixelRatio();
  if (!resized) return;
  Object.assign(o, { rows, cols, cell, dpr: sizeCanvas(o.canvas, cols * cell, rows * cell) });
  // A resize cleared the canvas (or its size stayed and the old outlines are in the wrong place).
  o.ctx.clearRect(0, 0, o.canvas.width, o.canvas.height);
  o.drawn = [];
  o.key = '';
}

/** Outline the rows and columns of `lit` ({ rows, cols }) that are on the matrix, and nothing else. */
function show(o, { rows, cols }) {
  const rowsOn = rows.filter((r) => r >= 0 && r < o.rows);
  const colsOn = cols.filter((c) => c >= 0 && c < o.cols);
  const key = `${rowsOn.join(' ')}|${colsOn.join(' ')}`;
  if (key === o.key) return;
  o.key = key;
  const { ctx } = o;
  // Clear only where the last outlines were: a row or a column, not the whole matrix.
  for (const [x, y, w, h] of o.drawn) ctx.clearRect(x, y, w, h);
  o.drawn = [...rowsOn.map((r) => box(o, 'row', r)), ...colsOn.map((c) => box(o, 'col', c))];
  ctx.fillStyle = theme().accent;
  const line = Math.max(1, Math.round(o.dpr)); // 1 CSS px, whole device pixels
  for (const [x, y, w, h] of o.drawn) {
    ctx.fillRect(x, y, w, line);
    ctx.fillRect(x, y + h - line, w, line);
    ctx.fillRect(x, y, line, h);
    ctx.fillRect(x + w - line, y, line, h);
  }
  o.canvas.dataset.rows = rowsOn.join(' ');
  o.canvas.dataset.cols = colsOn.join(' ');
}

/** Row or column `i`'s box in the canvas's pixels: [x, y, width, height], on whole pixels. */
function box({ canvas, rows, cols }, axis, i) {
  const edge = (at, count, pixels) => Math.round((at * pixels) / count);
  if (axis === 'row') {
    const top = edge(i, rows, canvas.height);
    return [0, top, canvas.width, edge(i + 1, rows, canvas.height) - top];
  }
  const left = edge(i, cols, canvas.width);
  return [left, 0, edge(i + 1, cols, canvas.width) - left, canvas.height];
}

// A labelled heatmap: tokens on both axes, a colour legend, hover → exact value and tokens,
// linked highlighting of the hovered token's row and column.
import { drawMatrix, legend, sizeCanvas, formatValue } from '../canvas.js';
import { hover, onHover } from '../bus.js';
import { showTooltip, hideTooltip } from '../tooltip.js';

/**
 * options: { rowSide, colSide ('src' | 'tgt' | null), rowIndex(i) → token index on its side,
 *            colIndex(j), onHoverValue(text) }
 */
export function createHeatmap(container, options = {}) {
  const root = document.createElement('div');
  root.className = 'heatmap';
  const corner = document.createElement('div');
  corner.className = 'corner';
  const colLabels = document.createElement('div');
  colLabels.className = 'col-labels';
  const rowLabels = document.createElement('div');
  rowLabels.className = 'row-labels';
  const canvasWrap = document.createElement('div');
  const canvas = document.createElement('canvas');
  canvas.className = 'matrix';
  canvasWrap.append(canvas);
  root.append(corner, colLabels, rowLabels, canvasWrap);
  const legendSlot = document.createElement('div');
  container.replaceChildren(root, legendSlot);

  let spec = null;
  let lit = { row: null, col: null };
  const rowIndex = options.rowIndex || ((i) => i);
  const colIndex = options.colIndex || ((j) => j);

  function labels(target, tokens, size, vertical) {
    target.replaceChildren(
      ...tokens.map((token) => {
        const span = document.createElement('span');
        span.textContent = token;
        span.title = token;
        if (vertical) span.style.width = `${size}px`;
        else span.style.height = `${size}px`;
        span.style.fontSize = `${Math.max(7, Math.min(13, size - 2))}px`;
        return span;
      }),
    );
  }

  function redraw() {
    if (!spec) return;
    drawMatrix(canvas, { ...spec, highlight: lit });
    [...rowLabels.children].forEach((el, i) => el.classList.toggle('lit', i === lit.row));
    [...colLabels.children].forEach((el, j) => el.classList.toggle('lit', j === lit.col));
  }

  function render(next) {
    spec = next;
    const { rows, cols } = spec;
    const cell = spec.cell || Math.max(8, Math.min(40, Math.floor(480 / Math.max(rows, cols, 1))));
    sizeCanvas(canvas, cols * cell, rows * cell);
    labels(rowLabels, spec.rowLabels || [], cell, false);
    labels(colLabels, spec.colLabels || [], cell, true);
    corner.textContent = spec.corner || '';
    legendSlot.replaceChildren(legend(spec.map || 'viridis', spec.min ?? 0, spec.max ?? 1, spec.legendLabel));
    redraw();
  }

  function cellAt(event) {
    if (!spec) return null;
    const rect = canvas.getBoundingClientRect();
    const c = Math.floor(((event.clientX - rect.left) / rect.width) * spec.cols);
    const r = Math.floor(((event.clientY - rect.top) / rect.height) * spec.rows);
    if (r < 0 || c < 0 || r >= spec.rows || c >= spec.cols) return null;
    return { r, c };
  }

  canvas.addEventListener('mousemove', (event) => {
    const at = cellAt(event);
    if (!at) return;
    const i = at.r * spec.cols + at.c;
    const masked = spec.mask && spec.mask[i];
    const value = spec.values[(spec.offset || 0) + i];
    const text = `${spec.rowLabels?.[at.r] ?? at.r} → ${spec.colLabels?.[at.c] ?? at.c}: ${masked ? 'masked (−∞ before softmax)' : formatValue(value)}`;
    showTooltip(event, text);
    options.onHoverValue?.(text);
    canvas.dataset.hoverValue = masked ? '' : String(value);
    lit = { row: at.r, col: at.c };
    redraw();
    if (options.rowSide) hover({ side: options.rowSide, index: rowIndex(at.r), from: 'heatmap' });
  });
  canvas.addEventListener('mouseleave', () => {
    hideTooltip();
    lit = { row: null, col: null };
    redraw();
    hover(null);
  });

  onHover((detail) => {
    if (!spec || (detail && detail.from === 'heatmap')) return;
    if (!detail) {
      lit = { row: null, col: null };
    } else {
      const findRow = options.rowSide === detail.side ? [...Array(spec.rows).keys()].find((i) => rowIndex(i) === detail.index) : null;
      const findCol = options.colSide === detail.side ? [...Array(spec.cols).keys()].find((j) => colIndex(j) === detail.index) : null;
      lit = { row: findRow ?? null, col: findCol ?? null };
    }
    redraw();
  });

  return { render, canvas };
}

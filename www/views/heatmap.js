// A labelled heatmap: tokens on both axes under titles that name their role (query or key), a
// colour legend, hover → exact value and tokens, linked highlighting of the hovered tokens' rows
// and columns. `transposed(spec)` swaps the axes of a spec, hover mapping included.
import { hover, hoveredOn, onHover } from '../bus.js';
import { drawMatrix, formatValue, legend, sizeCanvas } from '../canvas.js';
import { el } from '../dom.js';
import { t } from '../i18n.js';
import { axisTitle, labelOrientation } from '../labels.js';
import { hideTooltip, say, showTooltip } from '../tooltip.js';
import { heatmapFigure } from './heatmap-figure.js';

const same = (i) => i;
const NOTHING_LIT = { rows: [], cols: [] };

/**
 * `createHeatmap(container, { onHoverValue(text) })`, then `render(spec)` with
 *   spec = { rows, cols, values, offset, mask, map, min, max, cell, legendLabel,
 *            rowLabels, colLabels,
 *            rowTitle, colTitle: { role: 'query' | 'key', tokens: what the axis runs over },
 *            transposed: true when the rows are the keys (the hover text still reads query → key),
 *            rowSide, colSide: 'src' | 'tgt', or absent when that axis is not tokens,
 *            rowIndex(i), colIndex(j): matrix index → token index on that side (identity if absent) }.
 * The index mapping travels with every spec because it changes with the kind and the trace.
 * While the pointer is over a cell, the root's data-value holds its exact value (data-cell "r,c").
 */
export function createHeatmap(container, { onHoverValue } = {}) {
  const rowTitle = el('div', { className: 'row-title' });
  const colTitle = el('div', { className: 'col-title' });
  const colLabels = el('div', { className: 'col-labels' });
  const rowLabels = el('div', { className: 'row-labels' });
  const canvas = el('canvas', {
    className: 'matrix',
    i18nLabel: 'heatmap.keyboardLabel',
    attrs: { tabindex: 0, role: 'application', 'aria-roledescription': 'heatmap' },
  });
  const root = el(
    'div',
    { className: 'heatmap' },
    colTitle,
    colLabels,
    rowTitle,
    rowLabels,
    el('div', { className: 'matrix-wrap' }, canvas),
  );
  const legendSlot = el('div');
  container.replaceChildren(root, legendSlot);

  const self = Symbol('heatmap'); // this heatmap on the hover bus
  let spec = null;
  let lit = NOTHING_LIT;
  let hoveredCell = null;

  /** The token that row or column `i` stands for, or null when that axis is not tokens. */
  function tokenAt(axis, i) {
    const side = axis === 'row' ? spec.rowSide : spec.colSide;
    const index = (axis === 'row' ? spec.rowIndex : spec.colIndex) || same;
    return side ? { side, index: index(i) } : null;
  }

  /** Every row and column that stands for a token the hover is about. */
  function litFor(detail) {
    if (!detail || !spec) return NOTHING_LIT;
    const matching = (count, side, index = same) => {
      if (!side) return [];
      const wanted = hoveredOn(detail, side);
      return [...Array(count).keys()].filter((i) => wanted.has(index(i)));
    };
    return { rows: matching(spec.rows, spec.rowSide, spec.rowIndex), cols: matching(spec.cols, spec.colSide, spec.colIndex) };
  }

  function labels(target, tokens, size, vertical) {
    const fontSize = Math.max(7, Math.min(13, size - 2));
    target.replaceChildren(
      ...tokens.map((token) => {
        const span = el('span', { text: token, title: token });
        if (vertical) {
          span.style.width = `${size}px`;
          // CJK upright, a short token flat, anything else turned (www/labels.js).
          span.className = labelOrientation(token, size, fontSize);
        } else {
          span.style.height = `${size}px`;
        }
        span.style.fontSize = `${fontSize}px`;
        return span;
      }),
    );
  }

  function redraw() {
    if (!spec) return;
    drawMatrix(canvas, { ...spec, highlight: lit });
    [...rowLabels.children].forEach((span, i) => {
      span.classList.toggle('lit', lit.rows.includes(i));
    });
    [...colLabels.children].forEach((span, j) => {
      span.classList.toggle('lit', lit.cols.includes(j));
    });
  }

  function render(next) {
    spec = next;
    if (focusCell && (focusCell.r >= spec.rows || focusCell.c >= spec.cols)) focusCell = null;
    hoveredCell = null;
    delete root.dataset.cell;
    delete root.dataset.value;
    const { rows, cols } = spec;
    const cell = spec.cell || Math.max(8, Math.min(40, Math.floor(480 / Math.max(rows, cols, 1))));
    sizeCanvas(canvas, cols * cell, rows * cell);
    labels(rowLabels, spec.rowLabels || [], cell, false);
    labels(colLabels, spec.colLabels || [], cell, true);
    colTitle.textContent = axisTitle(spec.colTitle, '→');
    rowTitle.textContent = axisTitle(spec.rowTitle, '↓');
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

  function clear() {
    hoveredCell = null;
    delete root.dataset.cell;
    delete root.dataset.value;
    lit = NOTHING_LIT;
    redraw();
    hover(null, self);
  }

  /**
   * Show cell `at` = { r, c }: its tokens and exact value in the tooltip (at `point`, a pointer
   * position) and the hover line, lit everywhere; `announce` also says it to screen readers.
   */
  function showCell(at, point, announce = false) {
    const i = at.r * spec.cols + at.c;
    const { query, key, masked, value } = describeCell(spec, at);
    const text = `${query} → ${key}: ${masked ? t('heatmap.masked') : formatValue(value)}`;
    root.dataset.cell = `${at.r},${at.c}`;
    root.dataset.value = masked ? 'masked' : String(value);
    showTooltip(point, text);
    onHoverValue?.(text);
    if (announce)
      say(masked ? t('heatmap.announceMasked', { query, key }) : t('heatmap.announce', { query, key, value: value.toFixed(3) }));
    if (hoveredCell === i) return;
    hoveredCell = i;
    lit = { rows: [at.r], cols: [at.c] };
    redraw();
    hover([tokenAt('row', at.r), tokenAt('col', at.c)].filter(Boolean), self);
  }

  // A cell is about two tokens: its query (row) and its key (column).
  canvas.addEventListener('mousemove', (event) => {
    const at = cellAt(event);
    if (at) showCell(at, event);
  });
  canvas.addEventListener('mouseleave', () => {
    if (document.activeElement === canvas) return; // the keyboard's cell stays shown
    hideTooltip();
    clear();
  });
  // A tap shows the cell (touch screens have no hover).
  canvas.addEventListener('click', (event) => {
    const at = cellAt(event);
    if (!at) return;
    focusCell = at;
    showCell(at, event, true);
  });

  // The keyboard: the canvas takes focus, the arrow keys move a cell cursor (Home/End: first and
  // last column), and each cell is said through the live region.
  let focusCell = null;
  const pointOf = ({ r, c }) => {
    const rect = canvas.getBoundingClientRect();
    return { clientX: rect.left + ((c + 1) * rect.width) / spec.cols, clientY: rect.top + ((r + 1) * rect.height) / spec.rows };
  };
  const MOVES = {
    ArrowUp: ({ r, c }) => ({ r: r - 1, c }),
    ArrowDown: ({ r, c }) => ({ r: r + 1, c }),
    ArrowLeft: ({ r, c }) => ({ r, c: c - 1 }),
    ArrowRight: ({ r, c }) => ({ r, c: c + 1 }),
    Home: ({ r }) => ({ r, c: 0 }),
    End: ({ r }) => ({ r, c: spec.cols - 1 }),
  };
  canvas.addEventListener('keydown', (event) => {
    const move = MOVES[event.key];
    if (!move || !spec?.rows || !spec.cols) return;
    event.preventDefault();
    const next = move(focusCell ?? { r: 0, c: 0 });
    focusCell = focusCell
      ? { r: Math.max(0, Math.min(spec.rows - 1, next.r)), c: Math.max(0, Math.min(spec.cols - 1, next.c)) }
      : { r: 0, c: 0 };
    showCell(focusCell, pointOf(focusCell), true);
  });
  canvas.addEventListener('focus', () => {
    if (spec?.rows && spec.cols && focusCell) showCell(focusCell, pointOf(focusCell), true);
  });
  canvas.addEventListener('blur', () => {
    hideTooltip();
    clear();
  });

  // A label is about its token, which this heatmap lights wherever it appears, as the others do.
  for (const [axis, target] of [
    ['row', rowLabels],
    ['col', colLabels],
  ]) {
    target.addEventListener('mouseover', (event) => {
      const span = event.target.closest?.('span');
      if (!spec || !span || span.parentElement !== target) return;
      const i = [...target.children].indexOf(span);
      const token = tokenAt(axis, i);
      const items = token ? [token] : [];
      lit = token ? litFor({ items }) : { rows: axis === 'row' ? [i] : [], cols: axis === 'col' ? [i] : [] };
      redraw();
      hover(items, self);
    });
    target.addEventListener('mouseleave', clear);
  }

  onHover((detail) => {
    if (!spec || detail?.from === self) return;
    lit = litFor(detail);
    redraw();
  });

  /** The heatmap as it is drawn, as a vector figure (null before anything is drawn). */
  function figure(caption = '') {
    return spec?.rows && spec.cols ? heatmapFigure(spec, caption) : null;
  }

  return { render, canvas, figure, spec: () => spec };
}

/** Cell `at` of `spec`: its query and key tokens (whichever way round the axes are), value and mask. */
export function describeCell(spec, { r, c }) {
  const i = r * spec.cols + c;
  const rowLabel = spec.rowLabels?.[r] ?? String(r);
  const colLabel = spec.colLabels?.[c] ?? String(c);
  const [query, key] = spec.transposed ? [colLabel, rowLabel] : [rowLabel, colLabel];
  return { query, key, masked: Boolean(spec.mask?.[i]), value: spec.values[(spec.offset || 0) + i] };
}

/**
 * `spec` with rows and columns swapped: sizes, labels, sides, index mappings, titles, and the
 * values and mask transposed into new arrays.
 */
export function transposed(spec) {
  const { rows, cols, offset = 0 } = spec;
  const flip = (matrix, from) => {
    const out = new matrix.constructor(rows * cols);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) out[c * rows + r] = matrix[from + r * cols + c];
    }
    return out;
  };
  return {
    ...spec,
    rows: cols,
    cols: rows,
    values: flip(spec.values, offset),
    offset: 0,
    mask: spec.mask ? flip(spec.mask, 0) : null,
    rowLabels: spec.colLabels,
    colLabels: spec.rowLabels,
    rowSide: spec.colSide,
    colSide: spec.rowSide,
    rowIndex: spec.colIndex,
    colIndex: spec.rowIndex,
    rowTitle: spec.colTitle,
    colTitle: spec.rowTitle,
    transposed: !spec.transposed,
  };
}

// A labelled heatmap: tokens on both axes under titles that name their role (query or key), a
// colour legend, hover → exact value and tokens, linked highlighting of the hovered tokens' rows
// and columns. `transposed(spec)` swaps the axes of a spec, hover mapping included.
// The matrix's canvas is drawn when the data changes, never on a hover: the lit rows and columns
// are outlined on an overlay (www/views/heatmap-overlay.js), and a cell's text is made once.

import { cpuCanvas, drawMatrix, formatValue, legend, rasterizeNow, sizeCanvas } from '../draw/canvas.js';
import { axisTitle, labelOrientation, labelSpacing } from '../draw/labels.js';
import { hover, hoveredOn, onHover } from '../ui/bus.js';
import { el, setIfChanged } from '../ui/dom.js';
import { onLanguageChange, t } from '../ui/i18n.js';
import { hideTooltip, say, showTooltip } from '../ui/tooltip.js';
import { heatmapFigure, specCell } from './heatmap-figure.js';
import { createOverlay } from './heatmap-overlay.js';
import { describeCell } from './heatmap-spec.js';

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
 * On the bus (www/ui/bus.js) its hovers name the heatmap by the id of the element it sits in
 * (`view`: 'focus-heatmap', 'stages', …) and the cell ({ row, col }, as drawn; null off a cell).
 */
export function createHeatmap(container, { onHoverValue } = {}) {
  const h = {
    ...elements(container),
    self: Symbol('heatmap'), // this heatmap on the hover bus
    onHoverValue,
    spec: null,
    lit: NOTHING_LIT, // the rows and columns lit now
    litLabels: NOTHING_LIT, // the labels marked lit
    hoveredCell: null, // the index of the cell under the pointer
    focusCell: null, // the keyboard's cell { r, c }, or null
    cell: 0, // px: a cell's side as drawn
    legendKey: null, // what the legend shows
    texts: new Map(), // cell index → its text and value, made on its first hover after a render
    view: null, // the id of the element the heatmap sits in (found on its first hover)
  };
  wirePointer(h);
  wireKeyboard(h);
  wireLabels(h);
  onLanguageChange(() => h.texts.clear()); // a masked cell's text is in the page's language
  onHover((detail) => {
    if (!h.spec || detail?.from === h.self) return;
    h.lit = litFor(h, detail);
    showLit(h);
  });

  /** The heatmap as it is drawn, as a vector figure (null before anything is drawn). */
  function figure(caption = '') {
    return h.spec?.rows && h.spec.cols ? heatmapFigure(h.spec, caption) : null;
  }

  return {
    render: (spec) => render(h, spec),
    // The matrix now, the labels when the function it returns is called (in a later task): the
    // labels of a 129 × 128 heatmap are ~1,200 layout objects, the page's dearest layout.
    renderLabelsLater: (spec) => render(h, spec, false),
    renderSliced: (spec) => renderSliced(h, spec),
    canvas: h.canvas,
    figure,
    spec: () => h.spec,
  };
}

/** The heatmap's elements, in `container`: titles, labels, the matrix and its marks, the legend. */
function elements(container) {
  const rowTitle = el('div', { className: 'row-title' });
  const colTitle = el('div', { className: 'col-title' });
  const colLabels = el('div', { className: 'col-labels' });
  const rowLabels = el('div', { className: 'row-labels' });
  // The lit rows and columns are outlined on a canvas laid over the matrix, not drawn into it: a
  // hover draws two thin boxes instead of repainting a canvas of up to 1,024 × 1,032 pixels.
  const overlay = createOverlay();
  const canvas = cpuCanvas({
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
    el('div', { className: 'matrix-wrap' }, canvas, overlay.canvas),
  );
  const legendSlot = el('div');
  container.replaceChildren(root, legendSlot);
  return { root, canvas, overlay, rowTitle, colTitle, rowLabels, colLabels, legendSlot };
}

/**
 * Draw `spec` on heatmap `h`, its labels too when `withLabels`; otherwise returns the function that
 * draws them (the old labels stay until then; a newer render makes it do nothing).
 */
function render(h, spec, withLabels = true) {
  h.spec = spec;
  if (h.focusCell && (h.focusCell.r >= spec.rows || h.focusCell.c >= spec.cols)) h.focusCell = null;
  h.hoveredCell = null;
  h.texts.clear();
  delete h.root.dataset.cell;
  delete h.root.dataset.value;
  const { rows, cols } = spec;
  h.cell = specCell(spec);
  sizeCanvas(h.canvas, cols * h.cell, rows * h.cell);
  h.overlay.size(rows, cols, h.cell);
  drawMatrix(h.canvas, spec);
  // Rasterized now rather than with every other heatmap in the frame that scrolls to them.
  rasterizeNow(h.canvas.getContext('2d'));
  h.colTitle.textContent = axisTitle(spec.colTitle, '→');
  h.rowTitle.textContent = axisTitle(spec.rowTitle, '↓');
  const shownLegend = [spec.map || 'viridis', spec.min ?? 0, spec.max ?? 1, spec.legendLabel];
  const key = JSON.stringify(shownLegend);
  if (key !== h.legendKey) {
    h.legendKey = key;
    h.legendSlot.replaceChildren(legend(...shownLegend));
  }
  h.overlay.show(h.lit);
  const drawLabels = (axes = AXES) => {
    if (h.spec !== spec) return;
    for (const axis of axes) drawAxis(h, spec, axis);
    showLit(h);
  };
  if (!withLabels) return drawLabels;
  drawLabels();
  return null;
}

const AXES = ['rows', 'cols'];

/** Axis `axis` ('rows' or 'cols') of `spec`'s labels on `h`, drawn unlit (the old labels' marks go with them). */
function drawAxis(h, spec, axis) {
  const target = axis === 'rows' ? h.rowLabels : h.colLabels;
  const before = target.dataset.key;
  labels(target, (axis === 'rows' ? spec.rowLabels : spec.colLabels) || [], h.cell, axis === 'cols');
  if (target.dataset.key !== before) h.litLabels = { ...h.litLabels, [axis]: [] };
}

/**
 * `render(h, spec)` as slices (www/ui/slices.js): the matrix, then each axis's labels. A 128-token
 * axis is ~330 layout objects, 12–30 ms of layout on the 2-core machine: a large heatmap's axes
 * end up in tasks of their own (a small one's all in one), where both with the matrix made one
 * task of 50–100 ms in the large model's decode.
 */
function* renderSliced(h, spec) {
  const drawLabels = render(h, spec, false);
  for (const axis of AXES) {
    yield;
    if (h.spec !== spec) return;
    drawLabels([axis]);
  }
}

/** The token that row or column `i` stands for, or null when that axis is not tokens. */
function tokenAt({ spec }, axis, i) {
  const side = axis === 'row' ? spec.rowSide : spec.colSide;
  const index = (axis === 'row' ? spec.rowIndex : spec.colIndex) || same;
  return side ? { side, index: index(i) } : null;
}

/** Every row and column that stands for a token the hover is about. */
function litFor({ spec }, detail) {
  if (!detail || !spec) return NOTHING_LIT;
  const matching = (count, side, index = same) => {
    if (!side) return [];
    const wanted = hoveredOn(detail, side);
    return [...Array(count).keys()].filter((i) => wanted.has(index(i)));
  };
  return { rows: matching(spec.rows, spec.rowSide, spec.rowIndex), cols: matching(spec.cols, spec.colSide, spec.colIndex) };
}

/**
 * One span per token along `target`, each `size` px deep. Where the cells are too small for a
 * readable font, every token keeps its span (hover lights it) but only every few show (www/draw/labels.js).
 * Kept as they are when the tokens and size are those already shown; otherwise the spans already
 * there are reused and only what differs is set, so a new sentence that shares words with the
 * last one lays out only the labels that changed.
 */
function labels(target, tokens, size, vertical) {
  const key = `${size} ${tokens.join('\u0000')}`;
  if (target.dataset.key === key) return;
  target.dataset.key = key;
  const { fontSize, every } = labelSpacing(size);
  target.classList.toggle('thinned', every > 1);
  while (target.children.length > tokens.length) target.lastElementChild.remove();
  while (target.children.length < tokens.length) target.append(el('span'));
  tokens.forEach((token, i) => {
    const span = target.children[i];
    if (span.textContent !== token) {
      span.textContent = token;
      span.title = token;
    }
    // CJK upright, a short token flat, anything else turned (www/draw/labels.js). Unlit.
    const orientation = vertical ? labelOrientation(token, size, fontSize) : '';
    setIfChanged(span, 'className', [orientation, i % every ? 'between' : ''].filter(Boolean).join(' '));
    setIfChanged(span.style, vertical ? 'width' : 'height', `${size}px`);
    setIfChanged(span.style, 'fontSize', `${fontSize}px`);
    // A font larger than the cell may reach past it, but its line must not: the pointer over a
    // cell's label is over that label, not its neighbour's.
    setIfChanged(span.style, 'lineHeight', every > 1 && orientation !== 'upright' ? `${size}px` : '');
  });
}

/** Show `h.lit` on the labels and over the matrix. */
function showLit(h) {
  const { spec, lit } = h;
  if (!spec) return;
  h.overlay.show(lit);
  markLit(h.rowLabels, h.litLabels.rows, lit.rows);
  markLit(h.colLabels, h.litLabels.cols, lit.cols);
  h.litLabels = lit;
}

/** Move the lit mark of `target`'s labels from the indices `before` to `now`; a label lit in both is left alone. */
function markLit(target, before, now) {
  if (before === now) return;
  for (const i of before) if (!now.includes(i)) target.children[i]?.classList.remove('lit');
  for (const i of now) if (!before.includes(i)) target.children[i]?.classList.add('lit');
}

/** The cell under a pointer `event`, or null. */
function cellAt({ spec, canvas }, event) {
  if (!spec) return null;
  const rect = canvas.getBoundingClientRect();
  const c = Math.floor(((event.clientX - rect.left) / rect.width) * spec.cols);
  const r = Math.floor(((event.clientY - rect.top) / rect.height) * spec.rows);
  if (r < 0 || c < 0 || r >= spec.rows || c >= spec.cols) return null;
  return { r, c };
}

/** Nothing hovered: no value, nothing lit here or elsewhere. */
function clear(h) {
  h.hoveredCell = null;
  delete h.root.dataset.cell;
  delete h.root.dataset.value;
  h.lit = NOTHING_LIT;
  showLit(h);
  hover([], h.self, where(h, null));
}

/** Where a hover of `h` is, for the bus: its view (the id of the element it sits in) and `cell`. */
function where(h, cell) {
  h.view ??= h.root.parentElement?.closest('[id]')?.id ?? null;
  return { view: h.view, cell };
}

/** Cell `i` (= `at` { r, c }) as the hover shows it: its text, its data-value, and its tokens; made once a render. */
function cellText(h, i, at) {
  let made = h.texts.get(i);
  if (!made) {
    const { query, key, masked, value } = describeCell(h.spec, at);
    made = {
      query,
      key,
      masked,
      value,
      text: `${query} → ${key}: ${masked ? t('heatmap.masked') : formatValue(value)}`,
      dataValue: masked ? 'masked' : String(value),
    };
    h.texts.set(i, made);
  }
  return made;
}

/**
 * Show cell `at` = { r, c }: its tokens and exact value in the tooltip (at `point`, a pointer
 * position) and the hover line, lit everywhere; `announce` also says it to screen readers.
 * Within the cell already shown, the tooltip only follows the pointer.
 */
function showCell(h, at, point, announce = false) {
  const { spec, root } = h;
  const i = at.r * spec.cols + at.c;
  const cell = cellText(h, i, at);
  showTooltip(point, cell.text);
  if (announce) {
    const { query, key, masked, value } = cell;
    say(masked ? t('heatmap.announceMasked', { query, key }) : t('heatmap.announce', { query, key, value: value.toFixed(3) }));
  }
  if (h.hoveredCell === i) return;
  h.hoveredCell = i;
  root.dataset.cell = `${at.r},${at.c}`;
  root.dataset.value = cell.dataValue;
  h.onHoverValue?.(cell.text);
  h.lit = { rows: [at.r], cols: [at.c] };
  showLit(h);
  hover([tokenAt(h, 'row', at.r), tokenAt(h, 'col', at.c)].filter(Boolean), h.self, where(h, { row: at.r, col: at.c }));
}

/** The pointer over the matrix: a cell is about two tokens, its query (row) and its key (column). */
function wirePointer(h) {
  const { canvas } = h;
  canvas.addEventListener('mousemove', (event) => {
    const at = cellAt(h, event);
    if (at) showCell(h, at, event);
  });
  canvas.addEventListener('mouseleave', () => {
    if (document.activeElement === canvas) return; // the keyboard's cell stays shown
    hideTooltip();
    clear(h);
  });
  // A tap shows the cell (touch screens have no hover).
  canvas.addEventListener('click', (event) => {
    const at = cellAt(h, event);
    if (!at) return;
    h.focusCell = at;
    showCell(h, at, event, true);
  });
}

const MOVES = {
  ArrowUp: ({ r, c }) => ({ r: r - 1, c }),
  ArrowDown: ({ r, c }) => ({ r: r + 1, c }),
  ArrowLeft: ({ r, c }) => ({ r, c: c - 1 }),
  ArrowRight: ({ r, c }) => ({ r, c: c + 1 }),
  Home: ({ r }) => ({ r, c: 0 }),
  End: ({ r }, spec) => ({ r, c: spec.cols - 1 }),
};

/**
 * The keyboard: the canvas takes focus, the arrow keys move a cell cursor (Home/End: first and
 * last column), and each cell is said through the live region.
 */
function wireKeyboard(h) {
  const { canvas } = h;
  const pointOf = ({ r, c }) => {
    const rect = canvas.getBoundingClientRect();
    return { clientX: rect.left + ((c + 1) * rect.width) / h.spec.cols, clientY: rect.top + ((r + 1) * rect.height) / h.spec.rows };
  };
  canvas.addEventListener('keydown', (event) => {
    const move = MOVES[event.key];
    const { spec } = h;
    if (!move || !spec?.rows || !spec.cols) return;
    event.preventDefault();
    const next = move(h.focusCell ?? { r: 0, c: 0 }, spec);
    h.focusCell = h.focusCell
      ? { r: Math.max(0, Math.min(spec.rows - 1, next.r)), c: Math.max(0, Math.min(spec.cols - 1, next.c)) }
      : { r: 0, c: 0 };
    showCell(h, h.focusCell, pointOf(h.focusCell), true);
  });
  canvas.addEventListener('focus', () => {
    if (h.spec?.rows && h.spec.cols && h.focusCell) showCell(h, h.focusCell, pointOf(h.focusCell), true);
  });
  canvas.addEventListener('blur', () => {
    hideTooltip();
    clear(h);
  });
}

/** A label is about its token, which this heatmap lights wherever it appears, as the others do. */
function wireLabels(h) {
  for (const [axis, target] of [
    ['row', h.rowLabels],
    ['col', h.colLabels],
  ]) {
    target.addEventListener('mouseover', (event) => {
      const span = event.target.closest?.('span');
      if (!h.spec || !span || span.parentElement !== target) return;
      const i = [...target.children].indexOf(span);
      const token = tokenAt(h, axis, i);
      const items = token ? [token] : [];
      h.lit = token ? litFor(h, { items }) : { rows: axis === 'row' ? [i] : [], cols: axis === 'col' ? [i] : [] };
      showLit(h);
      hover(items, h.self, where(h, null));
    });
    target.addEventListener('mouseleave', () => clear(h));
  }
}

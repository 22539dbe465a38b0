// The focused heatmap: one kind, layer and head, with tokens on both axes. It can be transposed
// (keys as rows) and can leave out the <s>/</s> key columns, each row renormalised over the keys
// left; either way it says what share of the head's attention those sink columns took.

import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { runSlices, TASK_END, whileCurrent } from '../ui/slices.js';
import { axes, headStack, keepColumns, kindExplain, kindTitle, maskFor, matrixOffset, sinkColumns, withoutSinks } from './attention.js';
import { createHeatmap } from './heatmap.js';
import { transposed } from './heatmap-spec.js';

/** `onTranspose()`: called when the person transposes the heatmap. */
export function createFocus(container, hoverValueEl, explainEl, { onTranspose } = {}) {
  const transpose = el('button', {
    className: 'transpose',
    i18n: 'focus.transpose',
    i18nTitle: 'focus.transposeTitle',
    attrs: { type: 'button', 'aria-pressed': 'false' },
  });
  const tableToggle = el('button', {
    className: 'table-toggle',
    i18n: 'focus.showTable',
    attrs: { type: 'button', 'aria-pressed': 'false' },
  });
  const tools = el('div', { className: 'row focus-tools' }, transpose, tableToggle);
  const sinkNote = el('p', { className: 'explain sink-note' });
  const slot = el('div', { className: 'heatmap-scroll' });
  // The same numbers as a table: always there for screen readers, shown on the page on request.
  const table = el('table', { className: 'cell-table' });
  // A box around it, as a table ignores a 1 px width.
  const tableBox = el(
    'div',
    { className: 'cell-table-box visually-hidden', i18nLabel: 'focus.showTable', attrs: { role: 'region' } },
    table,
  );
  container.replaceChildren(tools, sinkNote, slot, tableBox);
  tableToggle.addEventListener('click', () => {
    const shown = tableBox.classList.toggle('visually-hidden') === false;
    // Shown, the table may scroll sideways: its box then takes focus so the keyboard can scroll it.
    if (shown) tableBox.setAttribute('tabindex', '0');
    else tableBox.removeAttribute('tabindex');
    tableToggle.setAttribute('aria-pressed', String(shown));
  });
  const heatmap = createHeatmap(slot, {
    onHoverValue: (text) => {
      hoverValueEl.textContent = text;
    },
  });

  let shown = null; // the arguments of the last render, drawn again when transposed
  let flipped = false;
  let caption = ''; // what the exported figure is of
  let filling = null; // the table's slices being run by the latest render
  function setTransposed(on) {
    if (on === flipped) return;
    flipped = on;
    transpose.setAttribute('aria-pressed', String(flipped));
    if (!shown) return;
    const slices = render(...shown);
    if (slices) runSlices(slices);
  }
  transpose.addEventListener('click', () => {
    setTransposed(!flipped);
    onTranspose?.();
  });

  /**
   * Draw the heatmap; returns the slices (www/ui/slices.js) that fill its table. `options`:
   * { special: the config's { bosId, eosId }, hideSinks: leave the <s>/</s> key columns out,
   * analysis: what headStack reads for the mean/max over heads }.
   */
  function render(trace, selection, options = {}) {
    filling = null;
    shown = [trace, selection, options];
    const { kind } = selection;
    const { stack, head, label } = headStack(trace, kind, options.analysis, selection.head);
    container.dataset.kind = kind;
    container.dataset.transposed = String(flipped);
    explainEl.textContent = kindExplain(kind);
    if (!stack?.queries) {
      heatmap.render({ rows: 0, cols: 0, values: new Float32Array(0) });
      table.replaceChildren();
      sinkNote.textContent = '';
      explainEl.textContent += t('focus.nothingYet');
      return null;
    }
    const layer = Math.min(selection.layer, stack.layers - 1);
    caption = t('focus.caption', { kind: kindTitle(kind), layer, head: label });
    const { queries: rows, keys: cols } = stack;
    const offset = matrixOffset(stack, layer, head);
    const weights = stack.data.subarray(offset, offset + rows * cols); // [rows, cols]
    const sinks = options.special ? sinkColumns(trace, kind, options.special) : [];
    const pruned = withoutSinks(weights, rows, cols, sinks);
    sinkNote.textContent = sinks.length ? t('focus.sinkNote', { share: (100 * pruned.share).toFixed(1), rows }) : '';
    const ax = axes(trace, kind);
    let spec = {
      ...ax,
      rows,
      cols,
      values: weights,
      mask: maskFor(trace, kind),
      map: 'viridis',
      min: 0,
      max: 1,
      legendLabel: t('focus.legend', { layer, head: label }),
    };
    if (options.hideSinks && sinks.length) spec = withoutColumns(spec, pruned, ax);
    // The labels in the first slice: the matrix shows in this task, its labels are laid out in the next.
    const drawLabels = heatmap.renderLabelsLater(flipped ? transposed(spec) : spec);
    // The page runs these slices; a transposition runs its own, and the older ones then stop.
    const slices = whileCurrent(labelsThenTable(drawLabels, table, heatmap.spec(), caption), () => filling === slices);
    filling = slices;
    return slices;
  }

  /** The heatmap as shown (transposed or not), as a vector figure; null while it is empty. */
  const figure = () => heatmap.figure(caption);

  /** Where the file name says what the figure is: "heatmap-cross-L0-H1" ("heatmap" before anything is shown). */
  const viewName = () => {
    if (!shown) return 'heatmap';
    const [, selection] = shown;
    return `heatmap-${selection.kind}-L${selection.layer}-H${selection.head}`;
  };

  return { render, figure, viewName, setTransposed, transposed: () => flipped };
}

/** `spec` with only the `pruned.keep` columns, showing the renormalised `pruned.values`. */
function withoutColumns(spec, pruned, ax) {
  const { keep } = pruned;
  const colIndex = ax.colIndex || ((j) => j);
  return {
    ...spec,
    cols: keep.length,
    values: pruned.values,
    mask: spec.mask && keepColumns(spec.mask, spec.rows, spec.cols, keep),
    colLabels: keep.map((j) => ax.colLabels[j]),
    colIndex: (k) => colIndex(keep[k]),
    legendLabel: t('focus.legendPruned', { legend: spec.legendLabel }),
  };
}

/** The heatmap's labels (`drawLabels`), a task, then the table's slices. */
function* labelsThenTable(drawLabels, table, spec, caption) {
  drawLabels();
  yield TASK_END;
  yield* fillTable(table, spec, caption);
}

/** About this many cells of the table are changed in one task: the browser lays them out after it. */
const TABLE_CELLS_PER_TASK = 1024;

/**
 * `table` holding the heatmap's numbers (3 decimals): a header row of column tokens, a row per
 * row token. Filled a block of rows a task (www/ui/slices.js): a 129 × 128 table is 16,641 cells,
 * too many to lay out at once. The rows already there are kept and only their changed texts set.
 */
function* fillTable(table, spec, caption) {
  const { rows, cols } = spec;
  const captionEl = table.caption ?? table.createCaption();
  setText(captionEl, caption);
  const head = el('tr', {}, el('th', { text: `${spec.rowTitle?.role ?? ''} \\ ${spec.colTitle?.role ?? ''}`, attrs: { scope: 'col' } }));
  for (let c = 0; c < cols; c++) head.append(el('th', { text: spec.colLabels[c], attrs: { scope: 'col' } }));
  (table.tHead ?? table.createTHead()).replaceChildren(head);
  const body = table.tBodies[0] ?? table.createTBody();
  const block = Math.max(1, Math.floor(TABLE_CELLS_PER_TASK / (cols + 1)));
  for (let r = 0; r < rows; r++) {
    let tr = body.rows[r];
    if (tr?.cells.length !== cols + 1) {
      const fresh = el('tr', {}, el('th', { attrs: { scope: 'row' } }), ...Array.from({ length: cols }, () => el('td')));
      if (tr) tr.replaceWith(fresh);
      else body.append(fresh);
      tr = fresh;
    }
    setText(tr.cells[0], spec.rowLabels[r]);
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      setText(tr.cells[c + 1], spec.mask?.[i] ? '—' : spec.values[(spec.offset || 0) + i].toFixed(3));
    }
    if ((r + 1) % block === 0) yield TASK_END;
  }
  while (body.rows.length > rows) {
    body.lastElementChild.remove();
    if (body.rows.length % block === 0) yield TASK_END;
  }
}

/** Set `node`'s text unless it has it already (an unchanged cell is not laid out again). */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

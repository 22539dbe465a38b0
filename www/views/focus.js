// The focused heatmap: one kind, layer and head, with tokens on both axes. It can be transposed
// (keys as rows) and can leave out the <s>/</s> key columns, each row renormalised over the keys
// left; either way it says what share of the head's attention those sink columns took.
import { axes, headStack, KIND_EXPLAIN, KIND_TITLES, keepColumns, maskFor, matrixOffset, sinkColumns, withoutSinks } from '../attention.js';
import { el } from '../dom.js';
import { createHeatmap, transposed } from './heatmap.js';

const SINKS_WHY =
  'Heads with nothing useful to do park their attention on a token that is always there (often </s> or <s>); the value vectors of those tokens are small, so this is close to doing nothing.';

export function createFocus(container, hoverValueEl, explainEl) {
  const transpose = el('button', {
    className: 'transpose',
    text: '⇄ transpose',
    title: 'Swap rows and columns: keys down the side, queries along the top',
    attrs: { type: 'button', 'aria-pressed': 'false' },
  });
  const tools = el('div', { className: 'row focus-tools' }, transpose);
  const sinkNote = el('p', { className: 'explain sink-note' });
  const slot = el('div');
  container.replaceChildren(tools, sinkNote, slot);
  const heatmap = createHeatmap(slot, {
    onHoverValue: (text) => {
      hoverValueEl.textContent = text;
    },
  });

  let shown = null; // the arguments of the last render, drawn again when transposed
  let flipped = false;
  let caption = ''; // what the exported figure is of
  transpose.addEventListener('click', () => {
    flipped = !flipped;
    transpose.setAttribute('aria-pressed', String(flipped));
    if (shown) render(...shown);
  });

  /**
   * `options`: { special: the config's { bosId, eosId }, hideSinks: leave the <s>/</s> key
   * columns out, analysis: what headStack reads for the mean/max over heads }.
   */
  function render(trace, selection, options = {}) {
    shown = [trace, selection, options];
    const { kind } = selection;
    const { stack, head, label } = headStack(trace, kind, options.analysis, selection.head);
    container.dataset.kind = kind;
    container.dataset.transposed = String(flipped);
    explainEl.textContent = KIND_EXPLAIN[kind];
    if (!stack?.queries) {
      heatmap.render({ rows: 0, cols: 0, values: new Float32Array(0) });
      sinkNote.textContent = '';
      explainEl.textContent += ' (Nothing decoded yet: press Step.)';
      return;
    }
    const layer = Math.min(selection.layer, stack.layers - 1);
    caption = `${KIND_TITLES[kind]}, layer ${layer}, ${label}`;
    const { queries: rows, keys: cols } = stack;
    const offset = matrixOffset(stack, layer, head);
    const weights = stack.data.subarray(offset, offset + rows * cols); // [rows, cols]
    const sinks = options.special ? sinkColumns(trace, kind, options.special) : [];
    const pruned = withoutSinks(weights, rows, cols, sinks);
    sinkNote.textContent = sinks.length
      ? `<s>/</s> took ${(100 * pruned.share).toFixed(1)} % of this head's attention (mean over its ${rows} rows). ${SINKS_WHY}`
      : '';
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
      legendLabel: `attention weight (layer ${layer}, ${label})`,
    };
    if (options.hideSinks && sinks.length) spec = withoutColumns(spec, pruned, ax);
    heatmap.render(flipped ? transposed(spec) : spec);
  }

  /** The heatmap as shown (transposed or not), as a vector figure; null while it is empty. */
  const figure = () => heatmap.figure(caption);

  /** Where the file name says what the figure is: "heatmap-cross-L0-H1". */
  const viewName = () => {
    const [, selection] = shown ?? [null, { kind: 'cross', layer: 0, head: 0 }];
    return `heatmap-${selection.kind}-L${selection.layer}-H${selection.head}`;
  };

  return { render, figure, viewName };
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
    legendLabel: `${spec.legendLabel}; <s>/</s> columns left out, rows renormalised`,
  };
}

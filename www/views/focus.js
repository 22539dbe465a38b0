// The focused heatmap: one kind, layer and head, with tokens on both axes.
import { createHeatmap } from './heatmap.js';
import { axes, maskFor, matrixOffset, stackFor, KIND_EXPLAIN } from '../attention.js';

export function createFocus(container, hoverValueEl, explainEl) {
  const options = { onHoverValue: (text) => { hoverValueEl.textContent = text; } };
  const heatmap = createHeatmap(container, options);

  function render(trace, selection) {
    const stack = stackFor(trace, selection.kind);
    explainEl.textContent = KIND_EXPLAIN[selection.kind];
    if (!stack || !stack.queries) {
      heatmap.render({ rows: 0, cols: 0, values: new Float32Array(0) });
      explainEl.textContent += ' (Nothing decoded yet: press Step.)';
      return;
    }
    const layer = Math.min(selection.layer, stack.layers - 1);
    const head = Math.min(selection.head, stack.heads - 1);
    const ax = axes(trace, selection.kind);
    Object.assign(options, ax);
    heatmap.render({
      rows: stack.queries,
      cols: stack.keys,
      values: stack.data,
      offset: matrixOffset(stack, layer, head),
      mask: maskFor(selection.kind, stack.queries, stack.keys),
      rowLabels: ax.rowLabels,
      colLabels: ax.colLabels,
      corner: ax.corner,
      map: 'viridis',
      min: 0,
      max: 1,
      legendLabel: `attention weight (layer ${layer}, head ${head})`,
    });
  }

  return { render, canvas: heatmap.canvas };
}

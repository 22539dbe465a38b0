// The focused heatmap: one kind, layer and head, with tokens on both axes.
import { axes, KIND_EXPLAIN, maskFor, matrixOffset, stackFor } from '../attention.js';
import { createHeatmap } from './heatmap.js';

export function createFocus(container, hoverValueEl, explainEl) {
  const heatmap = createHeatmap(container, {
    onHoverValue: (text) => {
      hoverValueEl.textContent = text;
    },
  });

  function render(trace, selection) {
    const stack = stackFor(trace, selection.kind);
    container.dataset.kind = selection.kind;
    explainEl.textContent = KIND_EXPLAIN[selection.kind];
    if (!stack?.queries) {
      heatmap.render({ rows: 0, cols: 0, values: new Float32Array(0) });
      explainEl.textContent += ' (Nothing decoded yet: press Step.)';
      return;
    }
    const layer = Math.min(selection.layer, stack.layers - 1);
    const head = Math.min(selection.head, stack.heads - 1);
    heatmap.render({
      ...axes(trace, selection.kind),
      rows: stack.queries,
      cols: stack.keys,
      values: stack.data,
      offset: matrixOffset(stack, layer, head),
      mask: maskFor(trace, selection.kind),
      map: 'viridis',
      min: 0,
      max: 1,
      legendLabel: `attention weight (layer ${layer}, head ${head})`,
    });
  }

  return { render };
}

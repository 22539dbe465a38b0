// One head, stage by stage: raw QKᵀ → ÷√d_k → masked → softmax, next to softmax without the
// scaling, with each head's mean row entropy both ways.
import { createHeatmap } from './heatmap.js';
import { symmetricRange } from '../colormap.js';
import { axes } from '../attention.js';

const STAGES = [
  ['raw', 'QKᵀ (raw dot products)'],
  ['scaled', 'QKᵀ / √d_k'],
  ['masked', 'masked (hatched = −∞)'],
  ['softmax', 'softmax: the weights the model used'],
  ['unscaledSoftmax', 'softmax without ÷√d_k (for comparison)'],
];

export function createPipeline(container) {
  const grid = document.createElement('div');
  grid.className = 'pipeline-grid';
  const figures = {};
  for (const [key, title] of STAGES) {
    const figure = document.createElement('figure');
    const caption = document.createElement('figcaption');
    caption.textContent = title;
    const slot = document.createElement('div');
    figure.append(caption, slot);
    grid.append(figure);
    const options = {};
    figures[key] = { options, heatmap: createHeatmap(slot, options), caption };
  }
  const summary = document.createElement('div');
  const status = document.createElement('p');
  status.className = 'muted';
  container.replaceChildren(status, grid, summary);

  function render(pipeline, trace) {
    if (!pipeline) {
      status.textContent = 'Decode at least one token to see decoder attention stages.';
      grid.hidden = true;
      summary.replaceChildren();
      return;
    }
    grid.hidden = false;
    status.textContent = `${pipeline.kind}, layer ${pipeline.layer}, head ${pipeline.head}; d_k = ${pipeline.dK}, √d_k = ${Math.sqrt(pipeline.dK).toFixed(3)}`;
    const ax = axes(trace, pipeline.kind);
    const rows = pipeline.queries;
    const cols = pipeline.keys;
    const mask = pipeline.mask.some((m) => m) ? Uint8Array.from(pipeline.mask) : null;
    const rawRange = symmetricRange(pipeline.raw, mask);
    const scaledRange = symmetricRange(pipeline.scaled, mask);
    const cell = Math.max(6, Math.min(24, Math.floor(230 / Math.max(rows, cols, 1))));
    const common = { rows, cols, rowLabels: ax.rowLabels.slice(0, rows), colLabels: ax.colLabels.slice(0, cols), cell };
    const specs = {
      raw: { ...common, values: pipeline.raw, map: 'rdbu', min: rawRange[0], max: rawRange[1], legendLabel: 'score' },
      scaled: { ...common, values: pipeline.scaled, map: 'rdbu', min: scaledRange[0], max: scaledRange[1], legendLabel: 'score' },
      masked: { ...common, values: pipeline.scaled, mask, map: 'rdbu', min: scaledRange[0], max: scaledRange[1], legendLabel: 'score' },
      softmax: { ...common, values: pipeline.softmax, mask, min: 0, max: 1, legendLabel: 'weight' },
      unscaledSoftmax: { ...common, values: pipeline.unscaledSoftmax, mask, min: 0, max: 1, legendLabel: 'weight' },
    };
    for (const [key] of STAGES) {
      Object.assign(figures[key].options, ax);
      figures[key].heatmap.render(specs[key]);
    }
    const table = document.createElement('table');
    table.className = 'entropy';
    const head = table.insertRow();
    for (const text of ['head', 'entropy with ÷√d_k (nats)', 'without (nats)']) {
      const th = document.createElement('th');
      th.textContent = text;
      head.append(th);
    }
    pipeline.entropy.forEach((e, h) => {
      const row = table.insertRow();
      for (const text of [String(h), e.toFixed(3), pipeline.unscaledEntropy[h].toFixed(3)]) {
        row.insertCell().textContent = text;
      }
    });
    const note = document.createElement('p');
    note.className = 'explain';
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    note.textContent = `Without the scaling the weights are sharper: mean entropy ${mean(pipeline.unscaledEntropy).toFixed(3)} vs ${mean(pipeline.entropy).toFixed(3)} nats. Low entropy = attention piled on few keys.`;
    summary.replaceChildren(table, note);
  }
  return { render };
}

// One head, stage by stage: raw QKᵀ → ÷√d_k → masked → softmax, next to softmax without the
// scaling, with each head's mean row entropy both ways.
import { anyHidden, axes } from '../attention.js';
import { symmetricRange } from '../colormap.js';
import { createHeatmap } from './heatmap.js';

const STAGES = [
  ['raw', 'QKᵀ (raw dot products)'],
  ['scaled', 'QKᵀ / √d_k'],
  ['masked', 'masked (hatched = −∞)'],
  ['softmax', 'softmax: the weights the model used'],
  ['unscaledSoftmax', 'softmax without ÷√d_k (for comparison)'],
];

export function createStages(container) {
  const grid = document.createElement('div');
  grid.className = 'stages-grid';
  const heatmaps = {};
  for (const [key, title] of STAGES) {
    const figure = document.createElement('figure');
    figure.dataset.stage = key;
    const caption = document.createElement('figcaption');
    caption.textContent = title;
    const slot = document.createElement('div');
    figure.append(caption, slot);
    grid.append(figure);
    heatmaps[key] = createHeatmap(slot);
  }
  const summary = document.createElement('div');
  const status = document.createElement('p');
  status.className = 'muted';
  container.replaceChildren(status, grid, summary);

  /**
   * `stages`: the focused head's stages from the same answer as `trace`, or null; `note`: shown
   * instead of them when the page focuses no single head (the mean or max over heads).
   */
  function render(stages, trace, note = '') {
    if (!stages || note) {
      delete container.dataset.kind;
      status.textContent = note || 'Decode at least one token to see decoder attention stages.';
      grid.hidden = true;
      summary.replaceChildren();
      return;
    }
    container.dataset.kind = stages.kind;
    grid.hidden = false;
    status.textContent = `${stages.kind}, layer ${stages.layer}, head ${stages.head}; d_k = ${stages.dK}, √d_k = ${Math.sqrt(stages.dK).toFixed(3)}`;
    const ax = axes(trace, stages.kind);
    const rows = stages.queries;
    const cols = stages.keys;
    const mask = anyHidden(stages.mask.hidden);
    const rawRange = symmetricRange(stages.raw, mask);
    const scaledRange = symmetricRange(stages.scaled, mask);
    const cell = Math.max(6, Math.min(24, Math.floor(230 / Math.max(rows, cols, 1))));
    const common = { ...ax, rows, cols, rowLabels: ax.rowLabels.slice(0, rows), colLabels: ax.colLabels.slice(0, cols), cell };
    const scores = (values, range) => ({ ...common, values, map: 'rdbu', min: range[0], max: range[1], legendLabel: 'score' });
    const weights = (values) => ({ ...common, values, mask, min: 0, max: 1, legendLabel: 'weight' });
    const specs = {
      raw: scores(stages.raw, rawRange),
      scaled: scores(stages.scaled, scaledRange),
      masked: { ...scores(stages.scaled, scaledRange), mask },
      softmax: weights(stages.softmax),
      unscaledSoftmax: weights(stages.unscaledSoftmax),
    };
    for (const [key] of STAGES) heatmaps[key].render(specs[key]);
    summary.replaceChildren(entropyTable(stages), entropyNote(stages));
  }
  return { render };
}

function entropyTable(stages) {
  const table = document.createElement('table');
  table.className = 'entropy';
  const head = table.insertRow();
  for (const text of ['head', 'entropy with ÷√d_k (nats)', 'without (nats)']) {
    const th = document.createElement('th');
    th.textContent = text;
    head.append(th);
  }
  stages.entropy.forEach((e, h) => {
    const row = table.insertRow();
    for (const text of [String(h), e.toFixed(3), stages.unscaledEntropy[h].toFixed(3)]) {
      row.insertCell().textContent = text;
    }
  });
  return table;
}

function entropyNote(stages) {
  const note = document.createElement('p');
  note.className = 'explain';
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  note.textContent = `Without the scaling the weights are sharper: mean entropy ${mean(stages.unscaledEntropy).toFixed(3)} vs ${mean(stages.entropy).toFixed(3)} nats. Low entropy = attention piled on few keys.`;
  return note;
}

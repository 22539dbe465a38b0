// One head, stage by stage: raw QKᵀ → ÷√d_k → masked → softmax, next to softmax without the
// scaling, with each head's mean row entropy both ways.

import { cellSize } from '../draw/canvas.js';
import { symmetricRange } from '../draw/colormap.js';
import { captioned, row } from '../draw/svg.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { anyHidden, axes, kindTitle } from './attention.js';
import { createHeatmap } from './heatmap.js';

// Each stage and the key of its caption.
const STAGES = [
  ['raw', 'stages.raw'],
  ['scaled', 'stages.scaled'],
  ['masked', 'stages.masked'],
  ['softmax', 'stages.softmax'],
  ['unscaledSoftmax', 'stages.unscaledSoftmax'],
];

export function createStages(container) {
  const grid = el('div', { className: 'stages-grid' });
  const heatmaps = {};
  for (const [key, caption] of STAGES) {
    const slot = el('div');
    grid.append(el('figure', { data: { stage: key } }, el('figcaption', { i18n: caption }), slot));
    heatmaps[key] = createHeatmap(slot);
  }
  const summary = el('div');
  const status = el('p', { className: 'muted' });
  container.replaceChildren(status, grid, summary);

  /**
   * `stages`: the focused head's stages from the same answer as `trace`, or null; `note`: shown
   * instead of them when the page focuses no single head (the mean or max over heads). A stage a
   * slice (www/ui/slices.js).
   */
  function* render(stages, trace, note = '') {
    if (!stages || note) {
      delete container.dataset.kind;
      status.textContent = note || t('stages.decodeFirst');
      grid.hidden = true;
      summary.replaceChildren();
      return;
    }
    container.dataset.kind = stages.kind;
    grid.hidden = false;
    status.textContent = t('stages.status', {
      kind: kindTitle(stages.kind),
      layer: stages.layer,
      head: stages.head,
      dK: stages.dK,
      sqrt: Math.sqrt(stages.dK).toFixed(3),
    });
    const ax = axes(trace, stages.kind);
    const rows = stages.queries;
    const cols = stages.keys;
    const mask = anyHidden(stages.mask.hidden);
    const rawRange = symmetricRange(stages.raw, mask);
    const scaledRange = symmetricRange(stages.scaled, mask);
    const cell = cellSize(Math.max(rows, cols), { span: 230, min: 6, max: 24 });
    const common = { ...ax, rows, cols, rowLabels: ax.rowLabels.slice(0, rows), colLabels: ax.colLabels.slice(0, cols), cell };
    const scores = (values, range) => ({ ...common, values, map: 'rdbu', min: range[0], max: range[1], legendLabel: t('stages.score') });
    const weights = (values) => ({ ...common, values, mask, min: 0, max: 1, legendLabel: t('stages.weight') });
    const specs = {
      raw: scores(stages.raw, rawRange),
      scaled: scores(stages.scaled, scaledRange),
      masked: { ...scores(stages.scaled, scaledRange), mask },
      softmax: weights(stages.softmax),
      unscaledSoftmax: weights(stages.unscaledSoftmax),
    };
    for (const [key] of STAGES) {
      heatmaps[key].render(specs[key]);
      yield;
    }
    summary.replaceChildren(entropyTable(stages), entropyNote(stages));
  }

  /** The five stages side by side, as a vector figure; null while there are none. */
  function figure() {
    if (grid.hidden) return null;
    return row(
      STAGES.map(([key, caption]) => captioned(t(caption), heatmaps[key].figure())),
      { title: status.textContent },
    );
  }
  return { render, figure };
}

function entropyTable(stages) {
  const table = el('table', { className: 'entropy' });
  table
    .insertRow()
    .append(...['stages.entropyHead', 'stages.entropyWith', 'stages.entropyWithout'].map((key) => el('th', { text: t(key) })));
  stages.entropy.forEach((e, h) => {
    const row = table.insertRow();
    for (const text of [String(h), e.toFixed(3), stages.unscaledEntropy[h].toFixed(3)]) {
      row.insertCell().textContent = text;
    }
  });
  return table;
}

function entropyNote(stages) {
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return el('p', {
    className: 'explain',
    text: t('stages.entropyNote', { without: mean(stages.unscaledEntropy).toFixed(3), with: mean(stages.entropy).toFixed(3) }),
  });
}

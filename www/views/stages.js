// One head, stage by stage: raw QKᵀ → ÷√d_k → masked → softmax, next to the softmax the other
// way, with each head's mean row entropy both ways. A switch ("divide by √d_k", on by default)
// shows the head without the division instead: the ÷√d_k stage then holds the raw scores, the
// softmax the unscaled one, and the figure beside it the model's own weights for comparison. The
// switch is announced on the bus (`stages-scale`, www/ui/bus.js), for the lesson to hear.
//
// Each heatmap's slot has an id (`stage-raw`, `stage-scaled`, `stage-masked`, `stage-softmax`,
// `stage-compare`), so a hover on the bus names the figure it came from.

import { cellSize } from '../draw/canvas.js';
import { symmetricRange } from '../draw/colormap.js';
import { captioned, row } from '../draw/svg.js';
import { announce } from '../ui/bus.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { runAll } from '../ui/slices.js';
import { anyHidden, axes, kindTitle } from './attention.js';
import { createHeatmap } from './heatmap.js';

// Each figure, in order: what it shows and its caption's key, with ÷√d_k on and off.
const STAGES = [
  { key: 'raw', on: ['raw', 'stages.raw'], off: ['raw', 'stages.raw'] },
  { key: 'scaled', on: ['scaled', 'stages.scaled'], off: ['raw', 'stages.notScaled'] },
  { key: 'masked', on: ['scaled', 'stages.masked'], off: ['raw', 'stages.masked'] },
  { key: 'softmax', on: ['softmax', 'stages.softmax'], off: ['unscaledSoftmax', 'stages.softmaxUnscaled'] },
  { key: 'compare', on: ['unscaledSoftmax', 'stages.unscaledSoftmax'], off: ['softmax', 'stages.compareScaled'] },
];

/** The "divide by √d_k" switch: a labelled checkbox, on. */
function scaleSwitch() {
  const box = el('input', { attrs: { type: 'checkbox', id: 'stages-scale' } });
  box.checked = true;
  const label = el(
    'label',
    { className: 'stages-scale', i18nTitle: 'stages.scaleSwitchTitle' },
    box,
    ' ',
    el('span', { i18n: 'stages.scaleSwitch' }),
  );
  return { box, label };
}

export function createStages(container) {
  const grid = el('div', { className: 'stages-grid' });
  const figures = {};
  for (const { key } of STAGES) {
    const slot = el('div', { attrs: { id: `stage-${key}` } });
    const caption = el('figcaption');
    grid.append(el('figure', { data: { stage: key } }, caption, slot));
    figures[key] = { caption, heatmap: createHeatmap(slot), figure: slot.parentNode };
  }
  const scale = scaleSwitch();
  const summary = el('div');
  const status = el('p', { className: 'muted' });
  container.replaceChildren(scale.label, status, grid, summary);
  let last = null; // the arguments of the last render, drawn again when the switch flips

  scale.box.addEventListener('change', () => {
    const scaled = scale.box.checked;
    container.dataset.scaled = String(scaled);
    if (last) runAll(render(...last));
    announce('stages-scale', { scaled });
  });

  /**
   * `stages`: the focused head's stages from the same answer as `trace`, or null; `note`: shown
   * instead of them when the page focuses no single head (the mean or max over heads). A stage a
   * slice (www/ui/slices.js).
   */
  function* render(stages, trace, note = '') {
    last = [stages, trace, note];
    // Read at each figure: a switch flipped while a redraw is under way draws every figure again.
    const scaled = () => scale.box.checked;
    container.dataset.scaled = String(scaled());
    if (!stages || note) {
      delete container.dataset.kind;
      status.textContent = note || t('stages.decodeFirst');
      grid.hidden = true;
      scale.label.hidden = true;
      summary.replaceChildren();
      return;
    }
    container.dataset.kind = stages.kind;
    grid.hidden = false;
    scale.label.hidden = false;
    status.textContent = t('stages.status', {
      kind: kindTitle(stages.kind),
      layer: stages.layer,
      head: stages.head,
      dK: stages.dK,
      sqrt: Math.sqrt(stages.dK).toFixed(3),
    });
    const specs = specsOf(stages, trace);
    for (const stage of STAGES) {
      const [shows, caption] = scaled() ? stage.on : stage.off;
      const { figure, heatmap } = figures[stage.key];
      figure.dataset.shows = shows;
      figures[stage.key].caption.dataset.i18n = caption;
      figures[stage.key].caption.textContent = t(caption);
      yield* heatmap.renderSliced(stage.key === 'masked' ? specs.masked(shows) : specs[shows]);
      yield;
    }
    summary.replaceChildren(entropyTable(stages), entropyNote(stages), shownNote(scaled()));
  }

  /** The five stages side by side, as a vector figure; null while there are none. */
  function figure() {
    if (grid.hidden) return null;
    return row(
      STAGES.map(({ key }) => captioned(figures[key].caption.textContent, figures[key].heatmap.figure())),
      { title: status.textContent },
    );
  }
  return { render, figure };
}

/** The heatmap spec of each array of `stages` (raw, scaled, softmax, unscaledSoftmax) and of a masked score array. */
function specsOf(stages, trace) {
  const ax = axes(trace, stages.kind);
  const rows = stages.queries;
  const cols = stages.keys;
  const mask = anyHidden(stages.mask.hidden);
  const cell = cellSize(Math.max(rows, cols), { span: 230, min: 6, max: 24 });
  const common = { ...ax, rows, cols, rowLabels: ax.rowLabels.slice(0, rows), colLabels: ax.colLabels.slice(0, cols), cell };
  const scores = (values) => {
    const [min, max] = symmetricRange(values, mask);
    return { ...common, values, map: 'rdbu', min, max, legendLabel: t('stages.score') };
  };
  const weights = (values) => ({ ...common, values, mask, min: 0, max: 1, legendLabel: t('stages.weight') });
  const specs = {
    raw: scores(stages.raw),
    scaled: scores(stages.scaled),
    softmax: weights(stages.softmax),
    unscaledSoftmax: weights(stages.unscaledSoftmax),
  };
  return { ...specs, masked: (shows) => ({ ...specs[shows], mask }) };
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

/** Which of the two the figures show: with ÷√d_k (the model's) or without. */
function shownNote(scaled) {
  const key = scaled ? 'stages.shownScaled' : 'stages.shownUnscaled';
  return el('p', { className: 'explain stages-shown', data: { scaled: String(scaled) }, text: t(key) });
}

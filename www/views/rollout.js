// Attention rollout (Abnar & Zuidema, 2020): how much each source token flows into each encoder
// position through the stacked layers, and what that makes of the last layer's cross-attention.

import { captioned, row } from '../draw/svg.js';
import { el, option } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { axes, matrixOffset } from './attention.js';
import { createHeatmap } from './heatmap.js';

/** The largest finite value of a matrix (the colour scale's top; rollouts are rarely near 1). */
function maxOf(values, offset, count) {
  let m = 0;
  for (let i = offset; i < offset + count; i++) if (Number.isFinite(values[i]) && values[i] > m) m = values[i];
  return m || 1;
}

export function createRollout(container) {
  const explain = el('p', { className: 'explain', i18n: 'rollout.explain' });
  const layerSelect = el('select');
  const controls = el('div', { className: 'row' }, el('label', {}, el('span', { i18n: 'rollout.throughLayers' }), ' ', layerSelect));
  const figures = el('div', { className: 'plots' });
  const figure = (title, plot) => {
    const caption = el('figcaption', { text: title });
    const slot = el('div');
    const figureEl = el('figure', { data: { plot } }, caption, slot);
    figures.append(figureEl);
    return { el: figureEl, caption, heatmap: createHeatmap(slot) };
  };
  const encoder = figure(t('rollout.encoderCaption', { layer: '' }), 'encoder-rollout');
  const source = figure(t('rollout.sourceCaption'), 'source-attribution');
  const status = el('p', { className: 'muted' });
  const body = el('div', {}, controls, figures); // hidden while there is nothing to show
  container.replaceChildren(explain, status, body);

  let shown = null; // { trace, analysis }
  let layer = null; // the rollout layer picked, null = the last

  layerSelect.addEventListener('change', () => {
    layer = Number(layerSelect.value);
    if (shown) encoder.heatmap.render(encoderSpec(shown.trace, shown.analysis.encoderRollout));
  });

  /** The encoder rollout's heatmap at the chosen layer (its caption set). */
  function encoderSpec(trace, rollout) {
    const l = Math.min(layer ?? rollout.layers - 1, rollout.layers - 1);
    const offset = matrixOffset(rollout, l, 0);
    const max = maxOf(rollout.data, offset, rollout.queries * rollout.keys);
    encoder.caption.textContent = t('rollout.encoderCaption', { layer: l });
    return {
      ...axes(trace, 'encoderSelf'),
      rowTitle: { role: t('rollout.encoderPosition'), tokens: t('rollout.afterLayer', { layer: l }) },
      colTitle: { role: t('rollout.sourceToken'), tokens: t('rollout.flowedIn') },
      rows: rollout.queries,
      cols: rollout.keys,
      values: rollout.data,
      offset,
      map: 'viridis',
      min: 0,
      max,
      legendLabel: t('rollout.legend', { max: max.toFixed(3) }),
    };
  }

  /** The source attribution's heatmap (its caption set). */
  function sourceSpec(trace, attribution) {
    const max = maxOf(attribution.data, 0, attribution.queries * attribution.keys);
    source.caption.textContent = t('rollout.sourceCaption');
    return {
      ...axes(trace, 'cross'),
      rowTitle: { role: t('rollout.outputToken'), tokens: t('rollout.produced') },
      colTitle: { role: t('rollout.sourceToken'), tokens: t('rollout.throughEncoder') },
      rows: attribution.queries,
      cols: attribution.keys,
      values: attribution.data,
      map: 'viridis',
      min: 0,
      max,
      legendLabel: t('rollout.sourceLegend', { max: max.toFixed(3) }),
    };
  }

  /**
   * `analysis`: wire.analysis of `trace`, or null when the worker could not give it. A heatmap a
   * slice (www/ui/slices.js).
   */
  function* render(trace, analysis) {
    shown = trace && analysis ? { trace, analysis } : null;
    body.hidden = !shown;
    if (!shown) {
      status.textContent = trace ? t('rollout.unavailable') : '';
      return;
    }
    const rollout = analysis.encoderRollout;
    const wanted = String(Math.min(layer ?? rollout.layers - 1, rollout.layers - 1));
    if (layerSelect.options.length !== rollout.layers) {
      layerSelect.replaceChildren(...Array.from({ length: rollout.layers }, (_, l) => option(String(l))));
    }
    layerSelect.value = wanted;
    yield* encoder.heatmap.renderSliced(encoderSpec(trace, rollout));
    yield;
    const attribution = analysis.sourceAttribution;
    status.textContent = attribution.queries ? '' : t('rollout.decodeFirst');
    source.el.hidden = !attribution.queries;
    if (attribution.queries) yield* source.heatmap.renderSliced(sourceSpec(trace, attribution));
  }

  /** The encoder rollout and the source attribution side by side, as a vector figure. */
  function vectorFigure() {
    if (!shown) return null;
    const parts = [encoder, source].filter((f) => !f.el.hidden).map((f) => captioned(f.caption.textContent, f.heatmap.figure()));
    return row(parts, { gap: 24 });
  }

  return { render, figure: vectorFigure };
}

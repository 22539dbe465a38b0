// Attention rollout (Abnar & Zuidema, 2020): how much each source token flows into each encoder
// position through the stacked layers, and what that makes of the last layer's cross-attention.
import { axes, matrixOffset } from '../attention.js';
import { el, option } from '../dom.js';
import { captioned, row } from '../svg.js';
import { createHeatmap } from './heatmap.js';

/** The largest finite value of a matrix (the colour scale's top; rollouts are rarely near 1). */
function maxOf(values, offset, count) {
  let m = 0;
  for (let i = offset; i < offset + count; i++) if (Number.isFinite(values[i]) && values[i] > m) m = values[i];
  return m || 1;
}

export function createRollout(container) {
  const explain = el('p', {
    className: 'explain',
    text: 'Rollout through layer l = Â_l · … · Â_0, where Â = ½(A + I) with A the head-averaged attention of a layer, rows renormalised: the identity stands for the residual connection. Source attribution = the last decoder layer’s cross-attention (mean over heads) × the full encoder rollout, so each output token’s row is spread back onto the source words it reached through the encoder.',
  });
  const layerSelect = el('select');
  const controls = el('div', { className: 'row' }, el('label', { text: 'Encoder rollout through layers 0…' }, ' ', layerSelect));
  const figures = el('div', { className: 'plots' });
  const figure = (title, plot) => {
    const caption = el('figcaption', { text: title });
    const slot = el('div');
    const figureEl = el('figure', { data: { plot } }, caption, slot);
    figures.append(figureEl);
    return { el: figureEl, caption, heatmap: createHeatmap(slot) };
  };
  const encoder = figure('encoder rollout', 'encoder-rollout');
  const source = figure('source attribution', 'source-attribution');
  const status = el('p', { className: 'muted' });
  const body = el('div', {}, controls, figures); // hidden while there is nothing to show
  container.replaceChildren(explain, status, body);

  let shown = null; // { trace, analysis }
  let layer = null; // the rollout layer picked, null = the last

  layerSelect.addEventListener('change', () => {
    layer = Number(layerSelect.value);
    if (shown) drawEncoder(shown.trace, shown.analysis.encoderRollout);
  });

  function drawEncoder(trace, rollout) {
    const l = Math.min(layer ?? rollout.layers - 1, rollout.layers - 1);
    const offset = matrixOffset(rollout, l, 0);
    const max = maxOf(rollout.data, offset, rollout.queries * rollout.keys);
    encoder.caption.textContent = `encoder rollout through layers 0…${l}`;
    encoder.heatmap.render({
      ...axes(trace, 'encoderSelf'),
      rowTitle: { role: 'encoder position', tokens: `after layer ${l}` },
      colTitle: { role: 'source token', tokens: 'what flowed into it' },
      rows: rollout.queries,
      cols: rollout.keys,
      values: rollout.data,
      offset,
      map: 'viridis',
      min: 0,
      max,
      legendLabel: `rollout weight (colour scale 0…${max.toFixed(3)})`,
    });
  }

  function drawSource(trace, attribution) {
    const max = maxOf(attribution.data, 0, attribution.queries * attribution.keys);
    source.caption.textContent = 'source attribution';
    source.heatmap.render({
      ...axes(trace, 'cross'),
      rowTitle: { role: 'output token', tokens: 'the token produced' },
      colTitle: { role: 'source token', tokens: 'through the encoder' },
      rows: attribution.queries,
      cols: attribution.keys,
      values: attribution.data,
      map: 'viridis',
      min: 0,
      max,
      legendLabel: `cross-attention × rollout (colour scale 0…${max.toFixed(3)})`,
    });
  }

  /** `analysis`: wire.analysis of `trace`, or null when the worker could not give it. */
  function render(trace, analysis) {
    shown = trace && analysis ? { trace, analysis } : null;
    body.hidden = !shown;
    if (!shown) {
      status.textContent = trace ? 'The rollout is not available for this trace.' : '';
      return;
    }
    const rollout = analysis.encoderRollout;
    const wanted = String(Math.min(layer ?? rollout.layers - 1, rollout.layers - 1));
    if (layerSelect.options.length !== rollout.layers) {
      layerSelect.replaceChildren(...Array.from({ length: rollout.layers }, (_, l) => option(String(l))));
    }
    layerSelect.value = wanted;
    drawEncoder(trace, rollout);
    const attribution = analysis.sourceAttribution;
    status.textContent = attribution.queries ? '' : 'Decode at least one token to see the source attribution.';
    source.el.hidden = !attribution.queries;
    if (attribution.queries) drawSource(trace, attribution);
  }

  /** The encoder rollout and the source attribution side by side, as a vector figure. */
  function vectorFigure() {
    if (!shown) return null;
    const parts = [encoder, source].filter((f) => !f.el.hidden).map((f) => captioned(f.caption.textContent, f.heatmap.figure()));
    return row(parts, { gap: 24 });
  }

  return { render, figure: vectorFigure };
}

// The two masks: the causal mask of the current output, and a padded batch of two sentences
// whose <pad> columns receive exactly zero attention. Both come from the model's own masks.
// Each heatmap's slot has an id (`mask-causal`, `mask-padding`): a hover on the bus (its `view`)
// says which of the two the person points at.
import { cellSize } from '../draw/canvas.js';
import { captioned, column } from '../draw/svg.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { axes, axisTitles } from './attention.js';
import { createHeatmap } from './heatmap.js';

export function createMasks(container) {
  const causalTitle = el('h3', { className: 'muted', i18n: 'masks.causal' });
  const causalSlot = el('div', { attrs: { id: 'mask-causal' } });
  const batchTitle = el('h3', { className: 'muted' });
  const batchTokens = el('div');
  const batchSlot = el('div', { attrs: { id: 'mask-padding' } });
  container.replaceChildren(causalTitle, causalSlot, batchTitle, batchTokens, batchSlot);
  const causal = createHeatmap(causalSlot);
  const batchMap = createHeatmap(batchSlot);

  /** The trace's causal mask over the decoder's input tokens, in slices (www/ui/slices.js). */
  function* renderCausal(trace) {
    const mask = trace?.causalMask ?? { rows: 0, cols: 0, hidden: new Uint8Array(0) };
    const { rowLabels, colLabels, rowSide, colSide, rowTitle, colTitle } = trace ? axes(trace, 'decoderSelf') : {};
    yield* causal.renderSliced({
      rows: mask.rows,
      cols: mask.cols,
      values: Float32Array.from(mask.hidden, (hidden) => 1 - hidden),
      mask: mask.hidden,
      rowLabels,
      colLabels,
      rowSide,
      colSide,
      rowTitle,
      colTitle,
      min: 0,
      max: 1,
      // 22 px cells, smaller for a long output (a 129-token one would be 2,838 px a side).
      cell: cellSize(mask.rows, { max: 22 }),
      legendLabel: t('masks.allowed'),
    });
  }

  /** A padded batch (wire.paddedBatch): its tokens and the shorter sentence's encoder attention. */
  function renderBatch(batch) {
    batchTitle.textContent = t('masks.padding');
    const lines = batch.tokens.map((tokens, b) =>
      el(
        'div',
        { className: 'tokens' },
        ...tokens.map((token, i) => el('span', { className: batch.paddingMask[b].hidden[i] ? 'token special' : 'token', text: token })),
      ),
    );
    batchTokens.replaceChildren(...lines);
    // The sentence with the most padding: layer 0, head 0 of its encoder attention, whose pad
    // columns are exactly 0.
    const padding = batch.paddingMask.map((m) => m.hidden.reduce((a, b) => a + b, 0));
    const shortest = padding.indexOf(Math.max(...padding));
    const stack = batch.encoderSelfAttention[shortest];
    const tokens = batch.tokens[shortest];
    const n = stack.queries;
    const words = tokens.filter((_, i) => !batch.paddingMask[shortest].hidden[i]).join(' ');
    batchMap.render({
      rows: n,
      cols: n,
      values: stack.data,
      offset: 0,
      rowLabels: tokens,
      colLabels: tokens,
      ...axisTitles('encoderSelf'),
      min: 0,
      max: 1,
      cell: cellSize(n, { span: 360, min: 10, max: 22 }),
      legendLabel: t('masks.paddingLegend', { words }),
    });
  }
  /** Both masks, one under the other, as a vector figure. */
  function figure() {
    const parts = [captioned(causalTitle.textContent, causal.figure()), captioned(batchTitle.textContent, batchMap.figure())];
    return parts.some(Boolean) ? column(parts, { gap: 20 }) : null;
  }
  return { renderCausal, renderBatch, figure };
}

// The two masks: the causal mask of the current output, and a padded batch of two sentences
// whose <pad> columns receive exactly zero attention.
import { createHeatmap } from './heatmap.js';

export function createMasks(container) {
  const causalTitle = document.createElement('h3');
  causalTitle.className = 'muted';
  causalTitle.textContent = 'Causal mask of the decoder (1 = may look, hatched = hidden)';
  const causalSlot = document.createElement('div');
  const batchTitle = document.createElement('h3');
  batchTitle.className = 'muted';
  const batchTokens = document.createElement('div');
  const batchSlot = document.createElement('div');
  container.replaceChildren(causalTitle, causalSlot, batchTitle, batchTokens, batchSlot);
  const causal = createHeatmap(causalSlot, { rowSide: 'tgt', colSide: 'tgt' });
  const batchMap = createHeatmap(batchSlot, {});

  function render(trace, batch) {
    const rows = trace ? trace.decoderSelfAttention.queries : 0;
    const labels = trace ? trace.tgtTokens.slice(0, rows) : [];
    const values = new Float32Array(rows * rows);
    const mask = new Uint8Array(rows * rows);
    for (let i = 0; i < rows; i++) for (let j = 0; j < rows; j++) {
      values[i * rows + j] = j <= i ? 1 : 0;
      mask[i * rows + j] = j > i ? 1 : 0;
    }
    causal.render({ rows, cols: rows, values, mask, rowLabels: labels, colLabels: labels, min: 0, max: 1, cell: 22, legendLabel: 'allowed' });
    if (!batch) return;
    batchTitle.textContent = 'Padding mask: two sentences in one batch, the shorter padded with <pad>';
    const lines = batch.tokens.map((tokens, b) => {
      const line = document.createElement('div');
      line.className = 'tokens';
      tokens.forEach((t, i) => {
        const chip = document.createElement('span');
        chip.className = 'token' + (batch.paddingMask[b][i] ? ' special' : '');
        chip.textContent = t;
        line.append(chip);
      });
      return line;
    });
    batchTokens.replaceChildren(...lines);
    // The shorter sentence's layer-0, head-0 encoder attention: pad columns are exactly 0.
    const shortest = batch.paddingMask.reduce((best, m, b) => (m.filter(Boolean).length > batch.paddingMask[best].filter(Boolean).length ? b : best), 0);
    const stack = batch.encoderSelfAttention[shortest];
    const n = stack.queries;
    batchMap.render({
      rows: n,
      cols: n,
      values: stack.data,
      offset: 0,
      rowLabels: batch.tokens[shortest],
      colLabels: batch.tokens[shortest],
      min: 0,
      max: 1,
      cell: Math.max(10, Math.min(22, Math.floor(360 / n))),
      legendLabel: `encoder self-attention, layer 0, head 0 of “${batch.tokens[shortest].filter((_, i) => !batch.paddingMask[shortest][i]).join(' ')}”; <pad> columns get 0`,
    });
  }
  return { render };
}

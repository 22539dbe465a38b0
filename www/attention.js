// What each kind of attention means on the axes: which tokens label rows and columns,
// which side (source/target) they belong to, and which cells the mask hides.

export const KINDS = ['encoderSelf', 'decoderSelf', 'cross'];

export const KIND_TITLES = {
  encoderSelf: 'encoder self-attention',
  decoderSelf: 'decoder masked self-attention',
  cross: 'cross-attention',
};

export const KIND_EXPLAIN = {
  encoderSelf: 'Each source token (row) builds its new representation as a weighted mix of all source tokens (columns). Each row sums to 1.',
  decoderSelf: 'Each target position (row) looks at itself and earlier target positions only; the hatched cells are hidden by the causal mask.',
  cross: 'Each target token being produced (row) looks at the encoder\'s source tokens (columns): queries come from the decoder, keys and values from the encoder.',
};

export function stackFor(trace, kind) {
  return trace?.[`${kind}Attention`] || null;
}

/** Row/column labels and the mapping from matrix index to token index on each side. */
export function axes(trace, kind) {
  const rows = trace.decoderSelfAttention.queries;
  if (kind === 'encoderSelf') {
    return { rowLabels: trace.srcTokens, colLabels: trace.srcTokens, rowSide: 'src', colSide: 'src', rowIndex: (i) => i, colIndex: (j) => j, corner: 'query ↓ key →' };
  }
  if (kind === 'decoderSelf') {
    const labels = trace.tgtTokens.slice(0, rows);
    return { rowLabels: labels, colLabels: labels, rowSide: 'tgt', colSide: 'tgt', rowIndex: (i) => i, colIndex: (j) => j, corner: 'query ↓ key →' };
  }
  // Cross-attention: row i is the query at target position i, which produced token i + 1.
  return {
    rowLabels: trace.tgtTokens.slice(1, rows + 1),
    colLabels: trace.srcTokens,
    rowSide: 'tgt',
    colSide: 'src',
    rowIndex: (i) => i + 1,
    colIndex: (j) => j,
    corner: 'produced ↓ source →',
  };
}

/** Offset of one head's matrix inside a stack's flat data. */
export function matrixOffset(stack, layer, head) {
  return (layer * stack.heads + head) * stack.queries * stack.keys;
}

/** Cells hidden by the mask: future positions in decoder self-attention. */
export function maskFor(kind, rows, cols) {
  if (kind !== 'decoderSelf') return null;
  const mask = new Uint8Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = i + 1; j < cols; j++) mask[i * cols + j] = 1;
  return mask;
}

// What each kind of attention means on the axes: which tokens label rows and columns, which side
// (source/target) they belong to, and which cells the trace's masks hide.

export const KINDS = ['encoderSelf', 'decoderSelf', 'cross'];

export const KIND_TITLES = {
  encoderSelf: 'encoder self-attention',
  decoderSelf: 'decoder masked self-attention',
  cross: 'cross-attention',
};

export const KIND_EXPLAIN = {
  encoderSelf:
    'Each source token (row) builds its new representation as a weighted mix of all source tokens (columns). Each row sums to 1.',
  decoderSelf:
    'Each target position (row) looks at itself and earlier target positions only; the hatched cells are hidden by the causal mask.',
  cross:
    "Each target token being produced (row) looks at the encoder's source tokens (columns): queries come from the decoder, keys and values from the encoder.",
};

/** The output token (index into tgtTokens) that decoder row `i`, or decoding step `i`, produced. */
export const producedBy = (i) => i + 1;

export function stackFor(trace, kind) {
  return trace?.[`${kind}Attention`] || null;
}

/**
 * Row/column labels and the mapping from matrix index to token index on each side. Row i of the
 * decoder matrices is decoder input position i (token tgtTokens[i]), which produced tgtTokens[i + 1].
 */
export function axes(trace, kind) {
  const rows = trace.decoderSelfAttention.queries;
  const same = (i) => i;
  if (kind === 'encoderSelf') {
    const labels = trace.srcTokens;
    return {
      rowLabels: labels,
      colLabels: labels,
      rowSide: 'src',
      colSide: 'src',
      rowIndex: same,
      colIndex: same,
      corner: 'query ↓ key →',
    };
  }
  if (kind === 'decoderSelf') {
    const labels = trace.tgtTokens.slice(0, rows);
    return {
      rowLabels: labels,
      colLabels: labels,
      rowSide: 'tgt',
      colSide: 'tgt',
      rowIndex: same,
      colIndex: same,
      corner: 'query ↓ key →',
    };
  }
  // Cross-attention rows are labelled with the token each one produced.
  return {
    rowLabels: trace.tgtTokens.slice(producedBy(0), producedBy(rows)),
    colLabels: trace.srcTokens,
    rowSide: 'tgt',
    colSide: 'src',
    rowIndex: producedBy,
    colIndex: same,
    corner: 'produced ↓ source →',
  };
}

/** Offset of one head's matrix inside a stack's flat data. */
export function matrixOffset(stack, layer, head) {
  return (layer * stack.heads + head) * stack.queries * stack.keys;
}

/**
 * The cells of `kind`'s [queries, keys] matrices hidden by the trace's own mask, row-major (1 =
 * hidden), or null when nothing is hidden: the causal mask for decoder self-attention, the padding
 * mask (one row over the source) repeated on every row for the other two kinds.
 */
export function maskFor(trace, kind) {
  const stack = stackFor(trace, kind);
  if (kind === 'decoderSelf') return anyHidden(trace.causalMask.hidden);
  const padding = trace.paddingMask.hidden;
  if (!anyHidden(padding)) return null;
  const cells = new Uint8Array(stack.queries * stack.keys);
  for (let q = 0; q < stack.queries; q++) cells.set(padding, q * stack.keys);
  return cells;
}

/** `hidden` itself, or null when it hides nothing. */
export function anyHidden(hidden) {
  return hidden.some((h) => h) ? hidden : null;
}

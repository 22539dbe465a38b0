// What each kind of attention means on the axes: which tokens label rows and columns, which side
// (source/target) they belong to, and which cells the trace's masks hide. The kinds themselves
// (encoderSelf, decoderSelf, cross) are the wasm module's (`facts.kinds`, www/worker/modules.js).

import { t } from '../ui/i18n.js';

/** A kind's name ("cross-attention"), in the language in use. */
export const kindTitle = (kind) => t(`kind.${kind}`);

/** What a kind's rows and columns mean, in the language in use. */
export const kindExplain = (kind) => t(`kindExplain.${kind}`);

/** The output token (index into tgtTokens) that decoder row `i`, or decoding step `i`, produced. */
export const producedBy = (i) => i + 1;

export function stackFor(trace, kind) {
  return trace?.[`${kind}Attention`] || null;
}

/** A kind's axis titles: the role of the rows and of the columns, and the tokens they run over. */
export function axisTitles(kind) {
  return {
    rowTitle: { role: t('axis.query'), tokens: t(`axis.${kind}.rows`) },
    colTitle: { role: t('axis.key'), tokens: t(`axis.${kind}.cols`) },
  };
}

/**
 * Row/column labels, the mapping from matrix index to token index on each side, and each axis's
 * title: its role (query or key) and the tokens it runs over. Row i of the decoder matrices is
 * decoder input position i (token tgtTokens[i]), which produced tgtTokens[i + 1].
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
      ...axisTitles('encoderSelf'),
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
      ...axisTitles('decoderSelf'),
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
    ...axisTitles('cross'),
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

/**
 * The key columns of `kind` that are `<s>` or `</s>` (by id; `special` holds the config's bosId
 * and eosId): the tokens that are always there, where idle heads park their attention.
 */
export function sinkColumns(trace, kind, { bosId, eosId }) {
  const ids = kind === 'decoderSelf' ? [...trace.tgtIds].slice(0, stackFor(trace, kind).keys) : [...trace.srcIds];
  return ids.flatMap((id, j) => (id === bosId || id === eosId ? [j] : []));
}

/** The columns `keep` of a row-major [rows, cols] matrix, as a new [rows, keep.length] one. */
export function keepColumns(matrix, rows, cols, keep) {
  const out = new matrix.constructor(rows * keep.length);
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < keep.length; k++) out[r * keep.length + k] = matrix[r * cols + keep[k]];
  }
  return out;
}

/**
 * One head's weights without the sink columns, each row renormalised over the keys left (a row
 * with no weight left stays 0), and `share`: the weight the sinks took, summed per row and
 * averaged over the rows (0 without rows).
 *
 * # Shapes
 * `values` [rows, cols] → `values` [rows, keep.length]; `keep`: the columns kept, in order.
 */
export function withoutSinks(values, rows, cols, sinkCols) {
  const sinks = new Set(sinkCols);
  const keep = [...Array(cols).keys()].filter((c) => !sinks.has(c));
  const kept = keepColumns(values, rows, cols, keep);
  const n = keep.length;
  let sunk = 0;
  for (let r = 0; r < rows; r++) {
    for (const c of sinks) if (c < cols) sunk += values[r * cols + c];
    let mass = 0;
    for (let k = 0; k < n; k++) mass += kept[r * n + k];
    if (mass > 0) for (let k = 0; k < n; k++) kept[r * n + k] /= mass;
  }
  return { values: kept, keep, share: rows ? sunk / rows : 0 };
}

/** Summaries over the heads the page offers beside the real ones: head value → analysis() field. */
export const HEAD_SUMMARIES = { mean: 'headMean', max: 'headMax' };

export const isSummaryHead = (head) => Object.hasOwn(HEAD_SUMMARIES, head);

/** A head selector's value ('0', '1', …, 'mean', 'max') → a selection's head. */
export const parseHead = (value) => (isSummaryHead(value) ? value : Number(value));

/**
 * What to draw for `head` of `kind`: { stack, head (index inside stack), label }. A real head is
 * one of the trace's own stack; 'mean' / 'max' is the one head of the analysis's summary stack
 * (www/shared/wire.js analysis). Without that analysis a summary falls back to head 0 and says so.
 */
export function headStack(trace, kind, analysis, head) {
  const own = stackFor(trace, kind);
  if (!isSummaryHead(head)) {
    const index = own ? Math.min(head, own.heads - 1) : 0;
    return { stack: own, head: index, label: t('head.one', { head: index }) };
  }
  const summary = analysis?.[HEAD_SUMMARIES[head]]?.[kind];
  if (!summary) return { stack: own, head: 0, label: t('head.unavailable', { summary: t(`head.${head}`) }) };
  return { stack: summary, head: 0, label: t('head.summary', { summary: t(`head.${head}`) }) };
}

// The journey view's blocks, one per step of the layer: the input, each attention sub-layer (one
// head's arithmetic in full, then every head side by side → concat → × W_O → + x → LayerNorm), the
// feed-forward network, the output and, after the decoder's last layer, the next-token choice.
// Every number shown is read from the journey (www/views/journey-data.js); none is computed here.
import { formatValue } from '../draw/canvas.js';
import { el } from '../ui/dom.js';
import { keyMaskOf } from './journey-data.js';
import { bar, contributions, keyLegend, rangeOf, strip } from './journey-draw.js';
import { jt } from './journey-texts.js';

/** A number as text, with its exact value kept in data-value (the tests compare it). */
export function number(value, className = 'j-num') {
  return el('span', { className, text: formatValue(value), data: { value: String(value) } });
}

/** A labelled vector: its name, its strip, how many numbers it has, and an optional note. */
export function vectorRow(name, values, { range, note, part } = {}) {
  return el(
    'div',
    { className: 'j-vec', data: part ? { vector: part } : {} },
    el('span', { className: 'j-label', text: name }),
    strip(values, { name, range }),
    el('span', { className: 'j-dim', text: `(${values.length})` }),
    ...(note ? [el('span', { className: 'j-note', text: note })] : []),
  );
}

/** A sub-layer's section: a heading and its rows. */
function block(part, title, ...children) {
  return el('section', { className: 'j-block', data: { part } }, el('h3', { text: title }), ...children);
}

/** The layer's input: at layer 0 the scaled embedding plus the positional encoding, else x. */
export function inputBlock(j) {
  const rows = [];
  if (j.embedding && j.positional) {
    const range = rangeOf(j.embedding, j.positional, j.input);
    const scale = j.embedScale === 1 ? '1' : `√${j.dModel}`;
    rows.push(
      vectorRow(jt('embedding', { scale }), j.embedding, { range, part: 'embedding' }),
      el('div', { className: 'j-op', text: '+' }),
      vectorRow(jt('positional', { position: j.position }), j.positional, { range, part: 'positional' }),
      el('div', { className: 'j-op', text: '=' }),
      vectorRow(jt('input'), j.input, { range, part: 'input' }),
    );
  } else {
    rows.push(vectorRow(jt('inputLater', { previous: j.layer - 1 }), j.input, { part: 'input' }));
  }
  return block('input', jt('inputTitle'), ...rows);
}

/** "LayerNorm(…): mean, std" with the numbers as spans. */
function normNote(key, sub) {
  return jt(key, { mean: formatValue(sub.mean), std: formatValue(sub.std) });
}

/** One head's arithmetic: q, then per key k_j, q·k_j, ÷√d_k, α_j and v_j; then Σ α_j v_j. */
function headDetail(j, part, h) {
  const sub = j[part];
  const head = sub.heads[h];
  const { dK } = j;
  const kLen = sub.kLen ?? head.weights.length;
  const mask = keyMaskOf(j, part);
  const qkRange = rangeOf(head.q, head.keys);
  const vRange = rangeOf(head.values);
  const table = el('table', { className: 'j-keys' });
  table
    .createTHead()
    .insertRow()
    .append(
      ...['keyToken', 'key', 'score', 'scaled', 'weight', 'value'].map((key) =>
        el('th', {
          className: key === 'key' || key === 'value' ? 'j-strip-cell' : '',
          text: key === 'scaled' ? jt('scaled', { dK }) : jt(key),
          attrs: { scope: 'col' },
        }),
      ),
    );
  const body = table.createTBody();
  for (let k = 0; k < kLen; k++) {
    const row = body.insertRow();
    row.dataset.key = String(k);
    if (mask?.[k]) row.className = 'masked';
    const token = sub.keyTokens[k];
    row.append(
      el('th', { className: 'j-token', text: token, attrs: { scope: 'row' } }),
      el(
        'td',
        { className: 'j-strip-cell' },
        strip(head.keys, { name: `k_${k} “${token}”`, range: qkRange, offset: k * dK, count: dK, maxCell: 4 }),
      ),
      el('td', {}, number(head.scores[k])),
      el('td', {}, number(head.scaled[k])),
      el(
        'td',
        { className: 'j-weight' },
        bar(head.weights[k]),
        number(head.weights[k], 'j-num j-alpha'),
        ...(mask?.[k] ? [el('span', { className: 'j-note', text: jt('masked') })] : []),
      ),
      el(
        'td',
        { className: 'j-strip-cell' },
        strip(head.values, { name: `v_${k} “${token}”`, range: vRange, offset: k * dK, count: dK, maxCell: 4 }),
      ),
    );
  }
  const weighted = contributions({ weights: head.weights, values: head.values, output: head.output, kLen, dK, keyTokens: sub.keyTokens });
  return el(
    'div',
    { className: 'j-head', data: { head: h } },
    vectorRow(jt('query', { head: h }), head.q, { range: qkRange, part: 'q' }),
    el('div', { className: 'j-scroll' }, table),
    el('p', { className: 'j-caption', text: jt('weightedTitle') }),
    el('div', { className: 'j-scroll' }, weighted),
    keyLegend(sub.keyTokens.slice(0, kLen), mask),
    vectorRow(jt('headOutput', { head: h }), head.output, { range: rangeOf(head.output), part: 'head-output' }),
  );
}

/** Every head's output side by side → concat → × W_O → + x (→ LayerNorm in post-norm). */
function headsSummary(j, part) {
  const sub = j[part];
  const range = rangeOf(sub.concat);
  const heads = el(
    'div',
    { className: 'j-heads' },
    ...sub.heads.map((head, h) =>
      el(
        'div',
        { className: 'j-head-out' },
        el('span', { className: 'j-label', text: jt('headOutput', { head: h }) }),
        strip(head.output, { name: jt('headOutput', { head: h }), range }),
      ),
    ),
  );
  const rows = [
    el('p', { className: 'j-caption', text: jt('headsTitle') }),
    heads,
    vectorRow(jt('concat'), sub.concat, { range, part: 'concat' }),
    vectorRow(jt('projected'), sub.projected, { part: 'projected' }),
    el('div', { className: 'j-op', text: '+ x' }),
    vectorRow(jt('residual'), sub.residual, { part: 'residual' }),
  ];
  if (sub.normed) rows.push(vectorRow(normNote('normed', sub), sub.normed, { part: 'normed' }));
  return el('div', { className: 'j-summary' }, ...rows);
}

/** An attention sub-layer: its pre-norm input, head `h` in full, and all heads combined. */
export function attentionBlock(j, part, h) {
  const title = part === 'crossAttention' ? jt('crossAttention') : j.stack === 'decoder' ? jt('maskedSelfAttention') : jt('selfAttention');
  const sub = j[part];
  const rows = [];
  if (part === 'crossAttention') rows.push(el('p', { className: 'j-caption j-cross', text: jt('crossExplain') }));
  if (sub.normedInput) rows.push(vectorRow(normNote('normedInput', sub), sub.normedInput, { part: 'normed-input' }));
  rows.push(headDetail(j, part, Math.min(h, sub.heads.length - 1)), headsSummary(j, part));
  return block(part, title, ...rows);
}

/** The feed-forward sub-layer: hidden units (and how many are exactly zero), output, residual. */
export function feedForwardBlock(j) {
  const sub = j.feedForward;
  const rows = [];
  if (sub.normedInput) rows.push(vectorRow(normNote('normedInput', sub), sub.normedInput, { part: 'normed-input' }));
  rows.push(
    vectorRow(jt('hidden', { activation: j.activation }), sub.hidden, {
      part: 'hidden',
      note: jt('zeros', { zeros: sub.zeros, dFf: sub.hidden.length }),
    }),
    vectorRow(jt('ffProjected'), sub.projected, { part: 'projected' }),
    el('div', { className: 'j-op', text: '+ x' }),
    vectorRow(jt('residual'), sub.residual, { part: 'residual' }),
  );
  if (sub.normed) rows.push(vectorRow(normNote('normed', sub), sub.normed, { part: 'normed' }));
  return block('feedForward', jt('feedForward', { dModel: j.dModel, dFf: j.dFf }), ...rows);
}

/** The layer's output, the stack's final norm, and (decoder, last layer) the next token's choice. */
export function outputBlock(j, nextId = null) {
  const rows = [vectorRow(jt('output'), j.output, { part: 'output' })];
  if (j.finalNorm) rows.push(vectorRow(jt('finalNorm'), j.finalNorm, { part: 'final-norm' }));
  if (j.top?.length) {
    const list = el('table', { className: 'j-top' });
    j.top.forEach((candidate) => {
      const row = list.insertRow();
      row.dataset.id = String(candidate.id);
      row.append(
        el('th', { className: 'j-token', text: candidate.token, attrs: { scope: 'row' } }),
        el('td', {}, bar(candidate.probability)),
        el('td', {}, number(candidate.probability)),
        el('td', { className: 'j-note', text: candidate.id === (nextId ?? j.top[0].id) ? jt('picked') : '' }),
      );
    });
    rows.push(el('p', { className: 'j-caption', text: jt('logitsTitle', { vocab: j.logits?.length ?? '' }) }));
    if (j.logits) rows.push(vectorRow('logits', j.logits, { part: 'logits' }));
    rows.push(list);
  }
  return block('output', jt('outputTitle'), ...rows);
}

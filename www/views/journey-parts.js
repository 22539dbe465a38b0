// The journey view's blocks, one per step of the layer: the input, each attention sub-layer (one
// head's arithmetic in full, then every head side by side → concat → × W_O → + x → LayerNorm), the
// feed-forward network, the output and, after the decoder's last layer, the next-token choice.
// Every number shown is read from the journey (www/views/journey-data.js); none is computed here.
//
// A block is built for the shape of a journey (blocksOf: which rows it has, how many keys, heads
// and numbers) and filled for each journey of that shape: each builder pushes onto `fills` the
// functions that write a pick `s` = { j (the journey), head, nextId } into what it built, so that
// scrubbing through tokens and layers rewrites texts and repaints canvases in place.
import { formatValue } from '../draw/canvas.js';
import { el } from '../ui/dom.js';
import { keyMaskOf } from './journey-data.js';
import {
  bar,
  contributions,
  keyLegend,
  paintContributions,
  paintLegend,
  paintStrip,
  rangeOf,
  setAttr,
  setBar,
  setText,
  strip,
} from './journey-draw.js';
import { jt } from './journey-texts.js';

/** `f(s)` where `f` is a function of the pick, else `f` itself. */
const of = (f, s) => (typeof f === 'function' ? f(s) : f);

/** A number as text, with its exact value kept in data-value (the tests compare it): `setNumber` sets it. */
const number = (className = 'j-num') => el('span', { className });

function setNumber(node, value) {
  setText(node, formatValue(value));
  if (node.dataset.value !== String(value)) node.dataset.value = String(value);
}

const op = (text) => el('div', { className: 'j-op', text });

/**
 * A labelled vector: its name, its strip, how many numbers it has, and an optional note. `values`,
 * `range` and `note` are functions of the pick, `name` one or a string.
 */
function vectorRow(fills, s, { part, name, values, range, note }) {
  const count = values(s).length;
  const label = el('span', { className: 'j-label' });
  const canvas = strip(count);
  const notes = note ? [el('span', { className: 'j-note' })] : [];
  fills.push((x) => {
    const text = of(name, x);
    const v = values(x);
    setText(label, text);
    paintStrip(canvas, v, { name: text, range: range ? range(x) : rangeOf(v) });
    if (note) setText(notes[0], note(x));
  });
  const dim = el('span', { className: 'j-dim', text: `(${count})` });
  return el('div', { className: 'j-vec', data: part ? { vector: part } : {} }, label, canvas, dim, ...notes);
}

/** A sub-layer's section: a heading (a string or a function of the pick) and its rows. */
function block(fills, part, title, ...children) {
  const heading = el('h3');
  fills.push((x) => setText(heading, of(title, x)));
  return el('section', { className: 'j-block', data: { part } }, heading, ...children);
}

/** The layer's input: at layer 0 the scaled embedding plus the positional encoding, else x. */
function inputBlock(fills, s) {
  const rows = [];
  if (s.j.embedding && s.j.positional) {
    const range = ({ j }) => rangeOf(j.embedding, j.positional, j.input);
    const scale = ({ j }) => (j.embedScale === 1 ? '1' : `√${j.dModel}`);
    rows.push(
      vectorRow(fills, s, { name: (x) => jt('embedding', { scale: scale(x) }), values: ({ j }) => j.embedding, range, part: 'embedding' }),
      op('+'),
      vectorRow(fills, s, {
        name: ({ j }) => jt('positional', { position: j.position }),
        values: ({ j }) => j.positional,
        range,
        part: 'positional',
      }),
      op('='),
      vectorRow(fills, s, { name: jt('input'), values: ({ j }) => j.input, range, part: 'input' }),
    );
  } else {
    rows.push(
      vectorRow(fills, s, { name: ({ j }) => jt('inputLater', { previous: j.layer - 1 }), values: ({ j }) => j.input, part: 'input' }),
    );
  }
  return block(fills, 'input', jt('inputTitle'), ...rows);
}

/** "LayerNorm(…): mean, std" of sub-layer `part` of the pick. */
const normNote =
  (key, part) =>
  ({ j }) =>
    jt(key, { mean: formatValue(j[part].mean), std: formatValue(j[part].std) });

/** How many keys attention sub-layer `sub` attends over. */
const kLenOf = (sub) => sub.kLen ?? sub.heads[0].weights.length;

/** The head of attention sub-layer `part` the pick shows (the last one if it has fewer). */
const headIndex = ({ j, head }, part) => Math.min(head, j[part].heads.length - 1);

/** The table of one head's keys: per key token j, k_j, q·k_j, ÷√d_k, α_j (a bar) and v_j. */
function keyTable(fills, s, part) {
  const kLen = kLenOf(s.j[part]);
  const { dK } = s.j;
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
  const rows = Array.from({ length: kLen }, (_, k) => {
    const row = body.insertRow();
    row.dataset.key = String(k);
    const cells = {
      token: el('th', { className: 'j-token', attrs: { scope: 'row' } }),
      key: strip(dK, { maxCell: 4, vector: 'key' }),
      score: number(),
      scaled: number(),
      bar: bar(),
      alpha: number('j-num j-alpha'),
      masked: el('span', { className: 'j-note', text: jt('masked') }),
      value: strip(dK, { maxCell: 4, vector: 'value' }),
    };
    cells.weight = el('td', { className: 'j-weight' }, cells.bar, cells.alpha);
    row.append(
      cells.token,
      el('td', { className: 'j-strip-cell' }, cells.key),
      el('td', {}, cells.score),
      el('td', {}, cells.scaled),
      cells.weight,
      el('td', { className: 'j-strip-cell' }, cells.value),
    );
    return { row, ...cells };
  });
  fills.push((x) => {
    const sub = x.j[part];
    const head = sub.heads[headIndex(x, part)];
    const mask = keyMaskOf(x.j, part);
    const qkRange = rangeOf(head.q, head.keys);
    const vRange = rangeOf(head.values);
    rows.forEach((r, k) => {
      const token = sub.keyTokens[k];
      setAttr(r.row, 'class', mask?.[k] ? 'masked' : null);
      setText(r.token, token);
      paintStrip(r.key, head.keys, { name: `k_${k} “${token}”`, range: qkRange, offset: k * dK });
      setNumber(r.score, head.scores[k]);
      setNumber(r.scaled, head.scaled[k]);
      setBar(r.bar, head.weights[k]);
      setNumber(r.alpha, head.weights[k]);
      if (mask?.[k] && !r.masked.parentNode) r.weight.append(r.masked);
      if (!mask?.[k] && r.masked.parentNode) r.masked.remove();
      paintStrip(r.value, head.values, { name: `v_${k} “${token}”`, range: vRange, offset: k * dK });
    });
  });
  return table;
}

/** One head's arithmetic: q, then per key k_j, q·k_j, ÷√d_k, α_j and v_j; then Σ α_j v_j. */
function headDetail(fills, s, part) {
  const kLen = kLenOf(s.j[part]);
  const headOf = (x) => x.j[part].heads[headIndex(x, part)];
  const weighted = contributions(s.j.dK);
  const legend = keyLegend(kLen);
  const detail = el(
    'div',
    { className: 'j-head' },
    vectorRow(fills, s, {
      name: (x) => jt('query', { head: headIndex(x, part) }),
      values: (x) => headOf(x).q,
      range: (x) => rangeOf(headOf(x).q, headOf(x).keys),
      part: 'q',
    }),
    el('div', { className: 'j-scroll' }, keyTable(fills, s, part)),
    el('p', { className: 'j-caption', text: jt('weightedTitle') }),
    el('div', { className: 'j-scroll' }, weighted),
    legend,
    vectorRow(fills, s, {
      name: (x) => jt('headOutput', { head: headIndex(x, part) }),
      values: (x) => headOf(x).output,
      part: 'head-output',
    }),
  );
  fills.push((x) => {
    const sub = x.j[part];
    const head = headOf(x);
    if (detail.dataset.head !== String(headIndex(x, part))) detail.dataset.head = String(headIndex(x, part));
    paintContributions(weighted, {
      weights: head.weights,
      values: head.values,
      output: head.output,
      kLen,
      dK: x.j.dK,
      keyTokens: sub.keyTokens,
    });
    paintLegend(legend, sub.keyTokens, keyMaskOf(x.j, part));
  });
  return detail;
}

/** Every head's output side by side → concat → × W_O → + x (→ LayerNorm in post-norm). */
function headsSummary(fills, s, part) {
  const sub = s.j[part];
  const range = ({ j }) => rangeOf(j[part].concat);
  const heads = el(
    'div',
    { className: 'j-heads' },
    ...sub.heads.map((head, h) => {
      const name = jt('headOutput', { head: h });
      const canvas = strip(head.output.length);
      fills.push((x) => paintStrip(canvas, x.j[part].heads[h].output, { name, range: range(x) }));
      return el(
        'div',
        { className: 'j-head-out', data: { head: h, vector: 'head-output' } },
        el('span', { className: 'j-label', text: name }),
        canvas,
      );
    }),
  );
  const rows = [
    el('p', { className: 'j-caption', text: jt('headsTitle') }),
    heads,
    vectorRow(fills, s, { name: jt('concat'), values: ({ j }) => j[part].concat, range, part: 'concat' }),
    vectorRow(fills, s, { name: jt('projected'), values: ({ j }) => j[part].projected, part: 'projected' }),
    op('+ x'),
    vectorRow(fills, s, { name: jt('residual'), values: ({ j }) => j[part].residual, part: 'residual' }),
  ];
  if (sub.normed) rows.push(vectorRow(fills, s, { name: normNote('normed', part), values: ({ j }) => j[part].normed, part: 'normed' }));
  return el('div', { className: 'j-summary' }, ...rows);
}

/** An attention sub-layer: its pre-norm input, the pick's head in full, and all heads combined. */
function attentionBlock(fills, s, part) {
  const title =
    part === 'crossAttention' ? jt('crossAttention') : s.j.stack === 'decoder' ? jt('maskedSelfAttention') : jt('selfAttention');
  const rows = [];
  if (part === 'crossAttention') rows.push(el('p', { className: 'j-caption j-cross', text: jt('crossExplain') }));
  if (s.j[part].normedInput) {
    rows.push(vectorRow(fills, s, { name: normNote('normedInput', part), values: ({ j }) => j[part].normedInput, part: 'normed-input' }));
  }
  rows.push(headDetail(fills, s, part), headsSummary(fills, s, part));
  return block(fills, part, title, ...rows);
}

/** The feed-forward sub-layer: hidden units (and how many are exactly zero), output, residual. */
function feedForwardBlock(fills, s) {
  const ff = ({ j }) => j.feedForward;
  const rows = [];
  if (s.j.feedForward.normedInput) {
    rows.push(
      vectorRow(fills, s, { name: normNote('normedInput', 'feedForward'), values: (x) => ff(x).normedInput, part: 'normed-input' }),
    );
  }
  rows.push(
    vectorRow(fills, s, {
      name: ({ j }) => jt('hidden', { activation: j.activation }),
      values: (x) => ff(x).hidden,
      part: 'hidden',
      note: (x) => jt('zeros', { zeros: ff(x).zeros, dFf: ff(x).hidden.length }),
    }),
    vectorRow(fills, s, { name: jt('ffProjected'), values: (x) => ff(x).projected, part: 'projected' }),
    op('+ x'),
    vectorRow(fills, s, { name: jt('residual'), values: (x) => ff(x).residual, part: 'residual' }),
  );
  if (s.j.feedForward.normed)
    rows.push(vectorRow(fills, s, { name: normNote('normed', 'feedForward'), values: (x) => ff(x).normed, part: 'normed' }));
  return block(fills, 'feedForward', ({ j }) => jt('feedForward', { dModel: j.dModel, dFf: j.dFf }), ...rows);
}

/** The top-k table of the next token's choice, the one picked noted. */
function topTable(fills, s) {
  const list = el('table', { className: 'j-top' });
  const rows = s.j.top.map(() => {
    const cells = {
      token: el('th', { className: 'j-token', attrs: { scope: 'row' } }),
      bar: bar(),
      p: number(),
      note: el('td', { className: 'j-note' }),
    };
    list.insertRow().append(cells.token, el('td', {}, cells.bar), el('td', {}, cells.p), cells.note);
    return cells;
  });
  fills.push(({ j, nextId }) => {
    j.top.forEach((candidate, k) => {
      const cells = rows[k];
      const row = cells.token.parentNode;
      if (row.dataset.id !== String(candidate.id)) row.dataset.id = String(candidate.id);
      setText(cells.token, candidate.token);
      setBar(cells.bar, candidate.probability);
      setNumber(cells.p, candidate.probability);
      setText(cells.note, candidate.id === (nextId ?? j.top[0].id) ? jt('picked') : '');
    });
  });
  return list;
}

/** The layer's output, the stack's final norm, and (decoder, last layer) the next token's choice. */
function outputBlock(fills, s) {
  const { j } = s;
  const rows = [vectorRow(fills, s, { name: jt('output'), values: (x) => x.j.output, part: 'output' })];
  if (j.finalNorm) rows.push(vectorRow(fills, s, { name: jt('finalNorm'), values: (x) => x.j.finalNorm, part: 'final-norm' }));
  if (j.top?.length) {
    rows.push(el('p', { className: 'j-caption', text: jt('logitsTitle', { vocab: j.logits?.length ?? '' }) }));
    if (j.logits) rows.push(vectorRow(fills, s, { name: 'logits', values: (x) => x.j.logits, part: 'logits' }));
    rows.push(topTable(fills, s));
  }
  return block(fills, 'output', jt('outputTitle'), ...rows);
}

/**
 * The blocks journey `j` is drawn in, in order: { name, shape, build }. Two journeys whose block
 * has the same `shape` (a string) can be drawn in the same DOM: `build(fills, s)` makes it and
 * pushes onto `fills` what writes a pick `s` into it.
 */
export function blocksOf(j) {
  const dims = `${j.dModel}/${j.heads}/${j.dK}/${j.dFf}`;
  const has = (...values) => values.map((v) => (v == null ? '-' : '+')).join('');
  const blocks = [{ name: 'input', shape: `${dims}/${has(j.embedding, j.positional)}`, build: inputBlock }];
  for (const part of ['selfAttention', 'crossAttention']) {
    const sub = j[part];
    if (!sub) continue;
    blocks.push({
      name: part,
      shape: `${dims}/${j.stack}/${kLenOf(sub)}/${sub.heads.length}/${has(sub.normedInput, sub.normed)}`,
      build: (fills, s) => attentionBlock(fills, s, part),
    });
  }
  const ff = j.feedForward;
  blocks.push(
    { name: 'feedForward', shape: `${dims}/${ff.hidden.length}/${has(ff.normedInput, ff.normed)}`, build: feedForwardBlock },
    { name: 'output', shape: `${dims}/${has(j.finalNorm, j.logits)}/${j.logits?.length}/${j.top?.length ?? 0}`, build: outputBlock },
  );
  return blocks;
}

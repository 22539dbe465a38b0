// Attribution of one output token over the source, three ways side by side: occlusion (how much
// log p of the token drops when a source token becomes <unk>), the last decoder layer's
// cross-attention (mean over heads), and the attention rollout. Where they disagree, attention
// was not the explanation.
//
// Occlusion costs a decoder pass per source token, so the worker is asked only while this view
// is on screen, once per trace and output token; `data-ready` says it shows the current one.

import { formatValue } from '../draw/canvas.js';
import { fontOf, svgContext } from '../draw/svg.js';
import { theme } from '../draw/theme.js';
import { hover, hoveredOn, onHover } from '../ui/bus.js';
import { el, option } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { producedBy } from './attention.js';

// Each measure, the key of its label, and whether it has a sign.
const MEASURES = [
  ['occlusion', 'attribution.occlusion', true],
  ['attention', 'attribution.attention', false],
  ['rollout', 'attribution.rollout', false],
];

/** Each measure's colour in the exported figure (www/draw/theme.js). */
const measureColour = (key) => theme()[{ occlusion: 'accent', attention: 'link', rollout: 'good' }[key]];

/** `fetch(row)`: resolves to the worker's attribution of decoder row `row`, or null when stale. */
export function createAttribution(container, { fetch }) {
  const { rowSelect, status, grid, scroll, spearman } = elements(container);

  let trace = null;
  let row = 0;
  let shownFor = null; // { trace, row } of the attribution on screen
  let shownResult = null; // the attribution on screen
  let askedFor = null; // { trace, row } of the request in flight
  let ticket = 0;
  let visible = false;
  let headerCells = [];

  const rows = () => trace?.decoderSelfAttention.queries ?? 0;

  function setReady(ready) {
    container.dataset.ready = String(ready);
    container.dataset.row = String(row);
  }

  function fillRowSelect() {
    rowSelect.replaceChildren(
      ...Array.from({ length: rows() }, (_, i) => option(String(i), `${i + 1}: ${trace.tgtTokens[producedBy(i)]}`)),
    );
    rowSelect.value = String(row);
  }

  /** Ask the worker for the current row unless it is on screen already (or asked for). */
  async function load() {
    if (!trace || !visible || !rows()) return;
    const same = (what) => what?.trace === trace && what.row === row;
    if (same(shownFor) || same(askedFor)) return;
    const asked = { trace, row };
    askedFor = asked;
    const mine = ++ticket;
    setReady(false);
    status.textContent = t('attribution.occluding', { token: trace.tgtTokens[producedBy(row)] });
    let result;
    try {
      result = await fetch(row);
    } catch (error) {
      if (mine === ticket) status.textContent = t('attribution.failed', { error: error.message });
      return;
    } finally {
      if (mine === ticket) askedFor = null;
    }
    // Null: a newer sentence is on its way, and its render asks again.
    if (mine !== ticket || !result) return;
    shownFor = asked;
    shownResult = result;
    draw(asked.trace, result);
    setReady(true);
  }

  function draw(shownTrace, attribution) {
    headerCells = drawGrid({ status, grid, spearman }, shownTrace.srcTokens, attribution);
  }

  /** Show `next` (a trace): keeps the picked output token while the new trace has it. */
  function render(next) {
    trace = next;
    row = Math.max(0, Math.min(row, rows() - 1));
    fillRowSelect();
    const empty = !rows();
    scroll.hidden = empty;
    spearman.hidden = empty;
    if (empty) {
      status.textContent = trace ? t('attribution.decodeFirst') : '';
      shownFor = null;
      setReady(Boolean(trace));
      return;
    }
    refresh();
  }

  /** Mark the view out of date unless it shows the current trace and row, and ask for them. */
  function refresh() {
    if (shownFor?.trace !== trace || shownFor.row !== row) {
      setReady(false);
      if (!visible) status.textContent = t('attribution.scroll');
    }
    load();
  }

  /** Explain decoder row `next` (the output token it produced). */
  function pick(next) {
    if (!trace || next < 0 || next >= rows()) return;
    row = next;
    rowSelect.value = String(row);
    refresh();
  }

  rowSelect.addEventListener('change', () => pick(Number(rowSelect.value)));

  new IntersectionObserver(
    (entries) => {
      visible = entries.some((entry) => entry.isIntersecting);
      load();
    },
    { rootMargin: '200px 0px' },
  ).observe(container);

  wireHover(grid, () => headerCells);

  /** The three rows of bars as drawn, as a vector figure; null while none is shown. */
  function figure() {
    if (!shownFor || !shownResult || scroll.hidden) return null;
    return attributionFigure(shownFor.trace.srcTokens, shownResult, status.textContent.split(':')[0]);
  }

  /** Draw the attribution on screen again (in another language). */
  function relabel() {
    if (shownFor && shownResult && shownFor.trace === trace) draw(shownFor.trace, shownResult);
  }

  return { render, pick, figure, relabel };
}

/** The view's elements, in `container`: the output token's selector, the status, the grid, the correlations. */
function elements(container) {
  const rowSelect = el('select');
  const controls = el(
    'div',
    { className: 'row' },
    el('label', {}, el('span', { i18n: 'attribution.outputToken' }), ' ', rowSelect),
    el('span', { className: 'muted', i18n: 'attribution.orClick' }),
  );
  const status = el('p', { className: 'muted' });
  const grid = el('div', { className: 'attr-grid' });
  const scroll = el('div', { className: 'attr-scroll' }, grid);
  const spearman = el('p', { className: 'attr-spearman' });
  const note = el('p', { className: 'explain', i18n: 'attribution.disagreement' });
  container.replaceChildren(controls, status, scroll, spearman, note);
  return { rowSelect, status, grid, scroll, spearman };
}

/** A source token here is the same token everywhere else on the page; `headerCells()` lights here. */
function wireHover(grid, headerCells) {
  grid.addEventListener('mouseover', (event) => {
    const cell = event.target.closest?.('[data-index]');
    if (cell) hover([{ side: 'src', index: Number(cell.dataset.index) }], 'attribution');
  });
  grid.addEventListener('mouseleave', () => hover(null, 'attribution'));
  onHover((detail) => {
    const lit = hoveredOn(detail, 'src');
    headerCells().forEach((cell, j) => {
      cell.classList.toggle('lit', lit.has(j));
    });
  });
}

/**
 * The attribution of one output token in `grid` (a row of bars per measure over `tokens`), its
 * heading in `status`, the rank correlations in `spearman`. Returns the header cells (the tokens).
 */
function drawGrid({ status, grid, spearman }, tokens, attribution) {
  status.textContent = t('attribution.why', { token: attribution.token, index: attribution.row + 1 });
  grid.style.gridTemplateColumns = `minmax(9em, max-content) repeat(${tokens.length}, minmax(46px, max-content))`;
  const headerCells = tokens.map((token, j) => el('div', { className: 'attr-token token', text: token, data: { index: j } }));
  const children = [el('div', { className: 'attr-label', text: t('rollout.sourceToken') }), ...headerCells];
  for (const [key, label, signed] of MEASURES) {
    const values = attribution[key];
    const scale = largest(values);
    children.push(el('div', { className: 'attr-label', text: t(label) }));
    values.forEach((v, j) => {
      const fill = el('i', { className: v < 0 ? 'negative' : '' });
      const share = scale ? Math.min(1, Math.abs(v) / scale) : 0;
      fill.style.height = `${(signed ? 50 : 100) * share}%`;
      children.push(
        el(
          'div',
          {
            className: 'attr-cell',
            title: t('attribution.cellTitle', { measure: t(`attribution.${key}`), token: tokens[j], value: v }),
            data: { measure: key, index: j, value: v },
          },
          el('div', { className: signed ? 'attr-bar signed' : 'attr-bar' }, fill),
          el('span', { className: 'attr-value', text: formatValue(v) }),
        ),
      );
    });
  }
  grid.replaceChildren(...children);
  spearman.replaceChildren(
    rho('spearman-attention', t('attribution.rhoAttention'), attribution.spearmanAttention),
    document.createTextNode(' · '),
    rho('spearman-rollout', t('attribution.rhoRollout'), attribution.spearmanRollout),
    document.createTextNode(t('attribution.spearman')),
  );
  return headerCells;
}

/** The largest finite |value|: a measure's bars are drawn to it. */
function largest(values) {
  let scale = 0;
  for (const v of values) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
  return scale;
}

function rho(id, label, value) {
  return el('span', { text: `${label} = ${value.toFixed(3)}`, data: { coefficient: id, value } });
}

/** The three rows of bars of `result` over `tokens` under `title`, as a vector figure. */
function attributionFigure(tokens, result, title) {
  const labelWidth = 300;
  const column = 56;
  const rowHeight = 76;
  const colours = theme();
  const ctx = svgContext(labelWidth + tokens.length * column, 48 + MEASURES.length * rowHeight);
  ctx.font = fontOf(12);
  ctx.fillStyle = colours.text;
  ctx.fillText(title, 0, 14);
  ctx.textAlign = 'center';
  tokens.forEach((token, j) => {
    ctx.fillText(token, labelWidth + (j + 0.5) * column, 36);
  });
  MEASURES.forEach(([key, label, signed], m) => {
    const values = result[key];
    const top = 48 + m * rowHeight;
    const barHeight = signed ? 48 : 40;
    const scale = largest(values);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = colours.muted;
    ctx.fillText(t(label), 0, top + barHeight / 2);
    values.forEach((v, j) => {
      const share = scale ? Math.min(1, Math.abs(v) / scale) : 0;
      const x = labelWidth + (j + 0.5) * column - 8;
      const base = signed ? top + barHeight / 2 : top + barHeight;
      const h = (signed ? barHeight / 2 : barHeight) * share;
      ctx.fillStyle = v < 0 ? colours.error : measureColour(key);
      ctx.fillRect(x, v < 0 ? base : base - h, 16, h);
      ctx.fillStyle = colours.muted;
      ctx.textAlign = 'center';
      ctx.fillText(formatValue(v), x + 8, top + barHeight + 10);
    });
  });
  return ctx.figure;
}

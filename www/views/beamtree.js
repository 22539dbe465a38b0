// The beam search tree: one column per decoding step, left to right, from <s>. Every candidate the
// search scored is a node (its token and the path's cumulative log-prob); the ones pruned at their
// step are faded, finished ones (</s>) outlined. Below, the finished hypotheses ranked by their
// length-normalised score. Clicking a node or a ranked hypothesis shows that path in every view.

import { figure as emptyFigure, svgElement } from '../draw/svg.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { hideTooltip, showTooltip } from '../ui/tooltip.js';

const COLUMN = 104; // px between step columns
const NODE_W = 92;
const NODE_H = 18;
const ROW = 22; // px between rows of one column
const PAD = 4;
const MAX_CHARS = 7; // of a token inside its node (the tooltip has it whole)

/** The target ids from <s> to `node` (inclusive): what Session.forceIds takes. */
export function pathIds(beam, node) {
  const ids = [];
  for (let n = node; n != null; n = beam.nodes[n].parent) ids.push(beam.nodes[n].id);
  return ids.reverse();
}

/**
 * Rows of every node inside its step's column: children sit in their parent's order, best score
 * first, so a path reads as a line across the columns. Returns { rows, columns, height }.
 */
function layout(nodes) {
  const steps = new Map(); // step → its node indices
  for (let i = 0; i < nodes.length; i++) {
    const list = steps.get(nodes[i].step) ?? [];
    list.push(i);
    steps.set(nodes[i].step, list);
  }
  const rows = new Int32Array(nodes.length);
  const parentRow = (i) => (nodes[i].parent == null ? -1 : rows[nodes[i].parent]);
  let height = 1;
  for (const step of [...steps.keys()].sort((a, b) => a - b)) {
    const list = steps.get(step);
    list.sort((a, b) => parentRow(a) - parentRow(b) || nodes[b].score - nodes[a].score);
    list.forEach((i, row) => {
      rows[i] = row;
    });
    height = Math.max(height, list.length);
  }
  return { rows, columns: steps.size, height };
}

const short = (token) => ([...token].length > MAX_CHARS ? `${[...token].slice(0, MAX_CHARS - 1).join('')}…` : token);
const logProb = (value) => value.toFixed(2).replace('-', '−');

const columnX = (step) => PAD + (step + 1) * COLUMN; // column 0 is <s>
const rowY = (row) => PAD + row * ROW;

/** The edge into node `i` from its parent (or <s>), as path data. */
function edgePath(beam, geometry, i) {
  const anchorOut = (n) =>
    n == null ? [PAD + NODE_W, rowY(0) + NODE_H / 2] : [columnX(beam.nodes[n].step) + NODE_W, rowY(geometry.rows[n]) + NODE_H / 2];
  const [x0, y0] = anchorOut(beam.nodes[i].parent);
  const x1 = columnX(beam.nodes[i].step);
  const y1 = rowY(geometry.rows[i]) + NODE_H / 2;
  const mid = (x0 + x1) / 2;
  return `M${x0},${y0}C${mid},${y0} ${mid},${y1} ${x1},${y1}`;
}

/** Node `i`'s <g>: a box with its token and the path's log-prob, classed kept, pruned or finished. */
function nodeGroup(beam, geometry, i) {
  const node = beam.nodes[i];
  const classes = ['beam-node', node.kept ? 'kept' : 'pruned'];
  if (node.finished) classes.push('finished');
  const g = svgElement('g', {
    class: classes.join(' '),
    transform: `translate(${columnX(node.step)},${rowY(geometry.rows[i])})`,
    'data-node': i,
  });
  const token = svgElement('text', { x: 4, y: NODE_H - 5, class: 'token-text' });
  token.textContent = short(node.token);
  const score = svgElement('text', { x: NODE_W - 4, y: NODE_H - 5, 'text-anchor': 'end', class: 'score-text' });
  score.textContent = logProb(node.score);
  g.append(svgElement('rect', { width: NODE_W, height: NODE_H, rx: 3 }), token, score);
  return g;
}

/** The finished hypotheses as table rows, best first; a click on one picks its node. */
function finalsRows(finals, onPick) {
  return finals.map((final, rank) => {
    const tr = el('tr', { title: t('beam.rowTitle'), data: { node: final.node, rank } });
    for (const text of [String(rank + 1), final.tokens.join(' '), logProb(final.logProb), logProb(final.score)]) {
      tr.insertCell().textContent = text;
    }
    tr.cells[1].className = 'hypothesis';
    tr.addEventListener('click', () => onPick(final.node));
    return tr;
  });
}

/** The tooltip of the node `g` (a node's <g>, or null) under the pointer `event`. */
function showNodeTooltip(event, beam, g) {
  if (!g) {
    hideTooltip();
    return;
  }
  const node = beam.nodes[Number(g.dataset.node)];
  const state = t(node.finished ? 'beam.finished' : node.kept ? 'beam.kept' : 'beam.pruned');
  showTooltip(
    event,
    t('beam.tooltip', {
      step: node.step + 1,
      token: node.token,
      state,
      token_logp: logProb(node.logProb),
      path_logp: logProb(node.score),
    }),
  );
}

export function createBeamTree(container, { onPick }) {
  const summary = el('p', { className: 'muted' });
  const scroll = el('div', { className: 'beam-scroll' });
  const finalsTable = el('table', { className: 'beam-finals' });
  container.replaceChildren(summary, scroll, finalsTable);

  let beam = null;
  let nodeEls = []; // node index → its <g>
  let finalRows = []; // finals' <tr>, in rank order
  let pathLine = null; // the highlighted path's edges
  let geometry = null; // { rows }: where each node is drawn

  const edge = (i) => edgePath(beam, geometry, i);

  function render(next) {
    beam = next;
    hideTooltip();
    const { nodes, finals } = beam;
    geometry = layout(nodes);
    const kept = nodes.filter((n) => n.kept).length;
    summary.textContent = t('beam.summary', {
      width: beam.width,
      alpha: beam.lengthPenalty,
      nodes: nodes.length,
      steps: geometry.columns,
      kept,
      pruned: nodes.length - kept,
    });
    const width = columnX(geometry.columns) + PAD;
    const height = rowY(geometry.height) + PAD;
    const svg = svgElement('svg', { width, height, viewBox: `0 0 ${width} ${height}`, id: 'beam-tree', role: 'img' });
    // Edges first, in two paths (kept, pruned): thousands of <path> elements would slow the redraw.
    const keptEdges = [];
    const prunedEdges = [];
    nodes.forEach((node, i) => {
      (node.kept ? keptEdges : prunedEdges).push(edge(i));
    });
    pathLine = svgElement('path', { class: 'beam-edge on-path', d: '' });
    svg.append(
      svgElement('path', { class: 'beam-edge pruned', d: prunedEdges.join('') }),
      svgElement('path', { class: 'beam-edge kept', d: keptEdges.join('') }),
      pathLine,
    );
    const root = svgElement('g', { class: 'beam-node root', transform: `translate(${PAD},${rowY(0)})` });
    const rootText = svgElement('text', { x: 4, y: NODE_H - 5, class: 'token-text' });
    rootText.textContent = '<s>';
    root.append(svgElement('rect', { width: NODE_W, height: NODE_H, rx: 3 }), rootText);
    svg.append(root);
    nodeEls = nodes.map((_, i) => nodeGroup(beam, geometry, i));
    svg.append(...nodeEls);
    scroll.replaceChildren(svg);
    renderFinals(finals);
  }

  function renderFinals(finals) {
    finalRows = finalsRows(finals, onPick);
    const head = el('tr', {}, ...['beam.rank', 'beam.hypothesis', 'beam.logp', 'beam.score'].map((key) => el('th', { text: t(key) })));
    finalsTable.replaceChildren(head, ...finalRows);
  }

  /** Mark `node` (or nothing, for null) and the path from <s> to it. */
  function highlight(node) {
    if (!beam) return;
    const onPath = new Set();
    for (let n = node; n != null; n = beam.nodes[n].parent) onPath.add(n);
    nodeEls.forEach((g, i) => {
      g.classList.toggle('selected', i === node);
      g.classList.toggle('on-path', onPath.has(i));
    });
    finalRows.forEach((tr) => {
      tr.classList.toggle('selected', Number(tr.dataset.node) === node);
    });
    pathLine.setAttribute('d', [...onPath].map(edge).join(''));
    container.dataset.selected = node == null ? '' : String(node);
  }

  function clear() {
    beam = null;
    nodeEls = [];
    finalRows = [];
    summary.textContent = '';
    scroll.replaceChildren();
    finalsTable.replaceChildren();
    delete container.dataset.selected;
  }

  // One set of listeners for every node.
  const nodeAt = (event) => event.target.closest?.('g.beam-node[data-node]');
  scroll.addEventListener('click', (event) => {
    const g = nodeAt(event);
    if (g) onPick(Number(g.dataset.node));
  });
  scroll.addEventListener('mousemove', (event) => showNodeTooltip(event, beam, nodeAt(event)));
  scroll.addEventListener('mouseleave', hideTooltip);

  /** The tree as drawn (the selected path marked), as a vector figure with its colours written in. */
  const figure = () => treeFigure(scroll.querySelector('svg'));

  return { render, highlight, clear, figure };
}

/** The tree as drawn (the selected path marked), as a vector figure with its colours written in. */
function treeFigure(svg) {
  if (!svg) return null;
  const width = Number(svg.getAttribute('width'));
  const height = Number(svg.getAttribute('height'));
  const out = emptyFigure(width, height);
  const copy = svg.cloneNode(true);
  copy.removeAttribute('id');
  // The page styles the tree by class; a file has no stylesheet, so each shape takes its colours along.
  const originals = svg.querySelectorAll('*');
  copy.querySelectorAll('*').forEach((node, i) => {
    const style = getComputedStyle(originals[i]);
    for (const property of ['fill', 'stroke', 'stroke-width', 'stroke-opacity', 'opacity', 'font-size', 'font-family']) {
      node.setAttribute(property, style.getPropertyValue(property));
    }
  });
  out.svg.append(...copy.childNodes);
  return out;
}

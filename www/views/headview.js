// BertViz-style head view: query tokens on the left, key tokens on the right, a line for every
// pair with opacity = attention weight. One head, or every head of the layer in its own colour.

import { axes, headStack, matrixOffset, stackFor } from '../attention.js';
import { hover, onHover } from '../bus.js';
import { sizeCanvas } from '../canvas.js';
import { el } from '../dom.js';
import { t } from '../i18n.js';
import { svgContext } from '../svg.js';

const HEAD_COLOURS = [
  [255, 176, 0],
  [127, 195, 255],
  [255, 107, 107],
  [120, 220, 140],
  [200, 140, 255],
  [255, 150, 210],
  [90, 220, 220],
  [230, 230, 120],
];

export function createHeadView(container, getMode) {
  const canvas = el('canvas');
  container.replaceChildren(canvas);
  let state = null;
  let focusRow = null;

  /** What `paint` needs for the current state, or null when there is nothing to draw. */
  function scene() {
    if (!state) return null;
    const { trace, selection, analysis } = state;
    const all = getMode() === 'all';
    // One head: a real one, or the mean or max over them; all: the layer's real heads.
    const one = headStack(trace, selection.kind, analysis, selection.head);
    const stack = all ? stackFor(trace, selection.kind) : one.stack;
    if (!stack?.queries) return null;
    const height = Math.max(stack.queries, stack.keys) * ROW_H + 10;
    return { all, one, stack, ax: axes(trace, selection.kind), layer: Math.min(selection.layer, stack.layers - 1), width: WIDTH, height };
  }

  function draw() {
    if (!state) return;
    const ctx = canvas.getContext('2d');
    const drawn = scene();
    if (!drawn) {
      sizeCanvas(canvas, 300, 30);
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      return;
    }
    const dpr = sizeCanvas(canvas, drawn.width, drawn.height);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, drawn.width, drawn.height);
    paint(ctx, drawn, focusRow);
  }

  /** The view as drawn, as a vector figure: a <path> per line, a <text> per token. */
  function figure() {
    const drawn = scene();
    if (!drawn) return null;
    const ctx = svgContext(drawn.width, drawn.height);
    paint(ctx, drawn, focusRow);
    return ctx.figure;
  }

  canvas.addEventListener('mousemove', (event) => {
    if (!state) return;
    const rect = canvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const i = Math.floor((event.clientY - rect.top - 10) / ROW_H);
    const stack = stackFor(state.trace, state.selection.kind);
    const row = x < rect.width / 2 && stack && i >= 0 && i < stack.queries ? i : null;
    if (row !== focusRow) {
      focusRow = row;
      draw();
      const ax = axes(state.trace, state.selection.kind);
      hover(row == null ? null : [{ side: ax.rowSide, index: ax.rowIndex(row) }], 'headview');
    }
  });
  canvas.addEventListener('mouseleave', () => {
    focusRow = null;
    draw();
    hover(null, 'headview');
  });
  // The query row of the first hovered token that has one (a heatmap cell names its query first).
  onHover((detail) => {
    if (!state || detail?.from === 'headview') return;
    const ax = axes(state.trace, state.selection.kind);
    const queries = stackFor(state.trace, state.selection.kind)?.queries ?? 0;
    const rows = [...Array(queries).keys()];
    let row = null;
    for (const item of detail?.items ?? []) {
      if (row == null && item.side === ax.rowSide) row = rows.find((i) => ax.rowIndex(i) === item.index) ?? null;
    }
    if (row !== focusRow) {
      focusRow = row;
      draw();
    }
  });

  /** `analysis`: the trace's (www/wire.js analysis), for the mean or max over heads, or null. */
  function render(trace, selection, analysis = null) {
    state = { trace, selection, analysis };
    draw();
  }
  return { render, figure };
}

const ROW_H = 22;
const WIDTH = 560;

/** Lines from query tokens (left) to key tokens (right), opacity = weight; `focusRow`: only that query's. */
function paint(ctx, { all, one, stack, ax, layer, width }, focusRow) {
  ctx.font = '14px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const leftX = 150;
  const rightX = width - 150;
  const y = (i) => 10 + i * ROW_H + ROW_H / 2;
  const heads = all ? [...Array(stack.heads).keys()] : [one.head];
  ctx.lineWidth = 2;
  for (const h of heads) {
    const [r, g, b] = HEAD_COLOURS[h % HEAD_COLOURS.length];
    const base = matrixOffset(stack, layer, h);
    for (let i = 0; i < stack.queries; i++) {
      if (focusRow != null && focusRow !== i) continue;
      for (let j = 0; j < stack.keys; j++) {
        const w = stack.data[base + i * stack.keys + j];
        if (w < 0.01) continue;
        ctx.strokeStyle = `rgba(${r},${g},${b},${Math.min(1, w * (heads.length > 1 ? 0.9 : 1))})`;
        ctx.beginPath();
        ctx.moveTo(leftX + 6, y(i));
        ctx.lineTo(rightX - 6, y(j));
        ctx.stroke();
      }
    }
  }
  ctx.textAlign = 'right';
  ax.rowLabels.forEach((token, i) => {
    ctx.fillStyle = focusRow === i ? '#ffb000' : '#e6e8ee';
    ctx.fillText(token, leftX, y(i));
  });
  ctx.textAlign = 'left';
  ctx.fillStyle = '#e6e8ee';
  ax.colLabels.forEach((t, j) => {
    ctx.fillText(t, rightX, y(j));
  });
  ctx.fillStyle = '#9aa3b2';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.fillText(
    all ? t('headView.allCaption', { layer, count: heads.length }) : t('headView.oneCaption', { layer, head: one.label }),
    width / 2,
    6,
  );
}

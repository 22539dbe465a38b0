// BertViz-style head view: query tokens on the left, key tokens on the right, a line for every
// pair with opacity = attention weight. One head, or every head of the layer in its own colour.

import { cpuCanvas, drawingContext, rasterizeNow } from '../draw/canvas.js';
import { fontOf, svgContext } from '../draw/svg.js';
import { seriesColour, theme, withAlpha } from '../draw/theme.js';
import { hover, onHover } from '../ui/bus.js';
import { t } from '../ui/i18n.js';
import { runAll } from '../ui/slices.js';
import { axes, headStack, matrixOffset, stackFor } from './attention.js';

export function createHeadView(container, getMode) {
  const canvas = cpuCanvas();
  container.replaceChildren(canvas);
  let state = null;
  let focusRow = null;
  // Off the screen, a hover elsewhere is drawn once the view is back in sight.
  let onScreen = false;
  let behind = false;
  new IntersectionObserver((entries) => {
    onScreen = entries.at(-1).isIntersecting;
    if (onScreen && behind) draw();
  }).observe(canvas);
  // Every line of the current scene, drawn once at the canvas's device size (slices of lines a
  // task): a redraw without a hovered row copies it instead of stroking thousands of lines again.
  const lines = cpuCanvas();
  let linesDrawn = false;

  /** What the painters need for the current state, or null when there is nothing to draw. */
  const scene = () => (state ? sceneOf(state, getMode() === 'all') : null);

  /** The canvas sized for `drawn` (or its empty size) and cleared: its 2D context, in CSS pixels. */
  const resize = (drawn) => (drawn ? drawingContext(canvas, drawn.width, drawn.height) : drawingContext(canvas, 300, 30));

  /** The hovered row's lines, or every line (once all are drawn), then the tokens. */
  function draw() {
    if (!state) return;
    behind = false;
    const drawn = scene();
    // Which layer and how many of its heads are drawn, for whoever reads the page (the tests).
    if (drawn) {
      container.dataset.layer = String(drawn.layer);
      container.dataset.heads = String(drawn.all ? drawn.stack.heads : 1);
    } else {
      delete container.dataset.layer;
      delete container.dataset.heads;
    }
    const ctx = resize(drawn);
    if (!drawn) return;
    if (focusRow != null) runAll(paintLines(ctx, drawn, focusRow));
    else if (linesDrawn) {
      const transform = ctx.getTransform();
      ctx.resetTransform();
      ctx.drawImage(lines, 0, 0);
      ctx.setTransform(transform);
    }
    paintTokens(ctx, drawn, focusRow);
  }

  /** The view as drawn, as a vector figure: a <path> per line, a <text> per token. */
  function figure() {
    const drawn = scene();
    if (!drawn) return null;
    const ctx = svgContext(drawn.width, drawn.height);
    runAll(paintLines(ctx, drawn, focusRow));
    paintTokens(ctx, drawn, focusRow);
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
    const row = hoveredRow(state, detail);
    if (row !== focusRow) {
      focusRow = row;
      if (onScreen) draw();
      else behind = true;
    }
  });
  /**
   * Draw `trace`'s `selection`; returns the slices (www/ui/slices.js) that draw every line.
   * `analysis`: the trace's (www/shared/wire.js analysis), for the mean or max over heads, or null.
   */
  function* render(trace, selection, analysis = null) {
    state = { trace, selection, analysis };
    linesDrawn = false;
    draw();
    const drawn = scene();
    if (!drawn) return;
    if (lines.width !== canvas.width || lines.height !== canvas.height) {
      lines.width = canvas.width;
      lines.height = canvas.height;
    }
    const ctx = lines.getContext('2d');
    ctx.resetTransform();
    ctx.clearRect(0, 0, lines.width, lines.height);
    ctx.setTransform(canvas.getContext('2d').getTransform());
    const slices = paintLines(ctx, drawn, null);
    while (!slices.next().done) {
      rasterizeNow(ctx);
      yield;
    }
    linesDrawn = true;
    draw();
  }
  return { render, figure };
}

/** The query row of the first hovered token (bus `detail`) that has one in `trace`'s `selection`, or null. */
function hoveredRow({ trace, selection }, detail) {
  const ax = axes(trace, selection.kind);
  const queries = stackFor(trace, selection.kind)?.queries ?? 0;
  const rows = [...Array(queries).keys()];
  let row = null;
  for (const item of detail?.items ?? []) {
    if (row == null && item.side === ax.rowSide) row = rows.find((i) => ax.rowIndex(i) === item.index) ?? null;
  }
  return row;
}

/**
 * What the painters need to draw `selection` of `trace` (`analysis`: for the mean or max over
 * heads), one head or all of the layer's; null when there is nothing to draw.
 */
function sceneOf({ trace, selection, analysis }, all) {
  // One head: a real one, or the mean or max over them; all: the layer's real heads.
  const one = headStack(trace, selection.kind, analysis, selection.head);
  const stack = all ? stackFor(trace, selection.kind) : one.stack;
  if (!stack?.queries) return null;
  const height = Math.max(stack.queries, stack.keys) * ROW_H + 10;
  return { all, one, stack, ax: axes(trace, selection.kind), layer: Math.min(selection.layer, stack.layers - 1), width: WIDTH, height };
}

const ROW_H = 22;
const WIDTH = 560;

const LEFT_X = 150;
const rowY = (i) => 10 + i * ROW_H + ROW_H / 2;

/**
 * Lines from query tokens (left) to key tokens (right), opacity = weight; `focusRow`: only that
 * query's. A generator: a slice (www/ui/slices.js) per block of query rows of a head.
 */
function* paintLines(ctx, { all, one, stack, layer, width }, focusRow) {
  const rightX = width - LEFT_X;
  const heads = all ? [...Array(stack.heads).keys()] : [one.head];
  ctx.lineWidth = 2;
  for (const h of heads) {
    const colour = seriesColour(h);
    const base = matrixOffset(stack, layer, h);
    for (let i = 0; i < stack.queries; i++) {
      if (focusRow != null && focusRow !== i) continue;
      for (let j = 0; j < stack.keys; j++) {
        const w = stack.data[base + i * stack.keys + j];
        if (w < 0.01) continue;
        ctx.strokeStyle = withAlpha(colour, Math.min(1, w * (heads.length > 1 ? 0.9 : 1)));
        ctx.beginPath();
        ctx.moveTo(LEFT_X + 6, rowY(i));
        ctx.lineTo(rightX - 6, rowY(j));
        ctx.stroke();
      }
      if (i % LINE_ROWS === LINE_ROWS - 1) yield;
    }
    yield;
  }
}

/** Query rows whose lines are drawn in one slice. */
const LINE_ROWS = 2;

/** The query tokens (the focused one lit), the key tokens and the caption, over the lines. */
function paintTokens(ctx, { all, one, stack, ax, layer, width }, focusRow) {
  ctx.font = fontOf(14);
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  const { accent, text, muted } = theme();
  ax.rowLabels.forEach((token, i) => {
    ctx.fillStyle = focusRow === i ? accent : text;
    ctx.fillText(token, LEFT_X, rowY(i));
  });
  ctx.textAlign = 'left';
  ctx.fillStyle = text;
  ax.colLabels.forEach((t, j) => {
    ctx.fillText(t, width - LEFT_X, rowY(j));
  });
  ctx.fillStyle = muted;
  ctx.font = fontOf(11);
  ctx.textAlign = 'center';
  const count = all ? stack.heads : 1;
  ctx.fillText(all ? t('headView.allCaption', { layer, count }) : t('headView.oneCaption', { layer, head: one.label }), width / 2, 6);
}

// The decoding stepper: each produced token with the cross-attention row that produced it
// (which source words it looked at) and the top-k candidates; clicking a candidate forces it.

import { cpuCanvas, drawingContext, rasterizeNow } from '../draw/canvas.js';
import { fontOf, measure, svgContext } from '../draw/svg.js';
import { theme } from '../draw/theme.js';
import { hover } from '../ui/bus.js';
import { el, setIfChanged } from '../ui/dom.js';
import { language, t } from '../ui/i18n.js';
import { runSlices, TASK_END } from '../ui/slices.js';
import { hideTooltip, showTooltip } from '../ui/tooltip.js';
import { headStack, matrixOffset, producedBy } from './attention.js';

const BAR_HEIGHT = 32;
const WORD_HEIGHT = 14;
const WORD_FONT = fontOf(11);

// One slot per source token: as wide as its word (22–60 px), the same in every row.
function barLayout(words) {
  const ctx = el('canvas').getContext('2d');
  ctx.font = WORD_FONT;
  let x = 0;
  const slots = words.map((word) => {
    const width = Math.min(60, Math.max(22, Math.ceil(ctx.measureText(word).width) + 4));
    const slot = { x, width };
    x += width + 2;
    return slot;
  });
  const { accent, muted } = theme();
  return { slots, width: Math.max(1, x - 2), accent, muted };
}

// A row's bars and words on one canvas: a long sentence is thousands of bars, too many DOM
// elements to build and lay out on every redraw. The canvas is kept, and resized when it must.
function drawBars(slot, { trace, cross, rowOffset, layout }, i) {
  let canvas = slot.firstChild;
  if (canvas?.localName !== 'canvas') {
    canvas = cpuCanvas({ className: 'bars', data: { step: i } });
    slot.replaceChildren(canvas);
  }
  const ctx = drawingContext(canvas, layout.width, BAR_HEIGHT + WORD_HEIGHT);
  paintBars(ctx, trace.srcTokens, cross.data, rowOffset(i), layout);
  rasterizeNow(ctx);
}

/** One row's bars over the source words, on a canvas or an SVG context. */
function paintBars(ctx, words, values, base, layout) {
  const height = BAR_HEIGHT + WORD_HEIGHT;
  const { accent, muted } = layout;
  ctx.font = WORD_FONT;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  layout.slots.forEach(({ x, width }, j) => {
    const weight = values[base + j];
    const h = Math.max(1, Math.round(weight * BAR_HEIGHT));
    ctx.fillStyle = accent;
    ctx.fillRect(x + (width - 14) / 2, BAR_HEIGHT - h, 14, h);
    ctx.save();
    ctx.beginPath();
    ctx.rect(x, BAR_HEIGHT, width, WORD_HEIGHT);
    ctx.clip();
    ctx.fillStyle = muted;
    ctx.fillText(words[j], x + width / 2, height);
    ctx.restore();
  });
}

function slotAt(layout, offsetX) {
  return layout.slots.findIndex(({ x, width }) => offsetX >= x && offsetX < x + width + 2);
}

export function createStepper(container, onForce) {
  let shown = null; // { trace, cross, head, layer, label, layout, rowOffset } as last drawn
  const caption = el('p', { className: 'muted' });
  const list = el('div', { className: 'step-list' });
  let measured = false; // whether the list knows a scrollbar's height (--bars-scrollbar)
  // One row per step, kept from one redraw to the next: a redraw repaints their bars and sets
  // only what changed in their token and candidates, so a new sentence adds little to lay out.
  // Each: { key, step, row, token, bars: the bars' slot, candidates, drawn: whether its bars are
  // the current ones } (www/views/stepper.js stepRow).
  let rows = [];
  let shownWords = null; // the source words the rows' bars stand over
  const onScreen = new Set(); // the steps whose bars are within reach of the list's view
  const waiting = new Set(); // steps on screen whose bars are not drawn yet
  let painting = null; // the slices drawing them

  // Bars are drawn only for rows in view (a long decode has up to max_len rows), a few a task.
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const i = Number(entry.target.dataset.step);
        if (entry.isIntersecting) onScreen.add(i);
        else onScreen.delete(i);
        if (entry.isIntersecting && !rows[i]?.drawn) waiting.add(i);
      }
      paintWaiting();
    },
    { root: list, rootMargin: '200px 0px' },
  );

  /** Draw the bars of the rows waiting for them, one row a slice (www/ui/slices.js). */
  function paintWaiting() {
    if (painting || !waiting.size) return;
    const slices = (function* paint() {
      for (const i of waiting) {
        waiting.delete(i);
        const entry = rows[i];
        if (!entry || entry.drawn || !shown) continue;
        drawBars(entry.bars, shown, i);
        entry.drawn = true;
        yield;
      }
    })();
    painting = slices;
    runSlices(slices).finally(() => {
      painting = null;
      paintWaiting();
    });
  }

  wireBarHover(list, () => shown);

  /**
   * Show every step of `trace`, a block of changed rows a slice (www/ui/slices.js); a row whose step
   * is unchanged is kept as it is, and only its bars drawn again. `analysis`: the trace's
   * (www/shared/wire.js analysis), for the mean or max over heads, or null.
   */
  function* render(trace, selection, analysis = null) {
    if (!trace?.steps.length) {
      shown = null;
      for (const entry of rows) observer.unobserve(entry.bars);
      rows = [];
      shownWords = null;
      list.replaceChildren();
      container.replaceChildren(el('p', { className: 'muted', text: t('stepper.onlyStart') }));
      return;
    }
    const { stack: cross, head, label } = headStack(trace, 'cross', analysis, selection.head);
    const layer = Math.min(selection.layer, cross.layers - 1);
    caption.textContent = t('stepper.caption', { layer, head: label });
    const layout = barLayout(trace.srcTokens);
    const rowOffset = (i) => matrixOffset(cross, layer, head) + i * cross.keys; // step i's row
    shown = { trace, cross, layer, label, layout, rowOffset };
    if (list.parentNode !== container) container.replaceChildren(caption, list);
    if (!measured) measured = measureScrollbar(list);
    const words = trace.srcTokens.join('\u0000');
    const newWords = words !== shownWords;
    shownWords = words;
    let added = 0;
    for (let i = 0; i < trace.steps.length; i++) {
      const step = trace.steps[i];
      const key = stepKey(step);
      let entry = rows[i];
      if (entry) {
        // Kept: its bars are of another head or sentence now, and its token and candidates are
        // set again only where they changed (nothing new to lay out for a step that is the same).
        entry.drawn = false;
        if (onScreen.has(i)) waiting.add(i);
        else if (newWords) entry.bars.replaceChildren(barsPlaceholder(layout));
        if (entry.key === key) continue;
      } else {
        entry = stepRow(i, onForce);
        entry.bars.append(barsPlaceholder(layout));
        list.append(entry.row);
        rows[i] = entry;
        observer.observe(entry.bars);
      }
      entry.key = key;
      fillRow(entry, step);
      if (++added % STEP_ROWS === 0) yield TASK_END;
    }
    while (rows.length > trace.steps.length) {
      const entry = rows.pop();
      observer.unobserve(entry.bars);
      onScreen.delete(rows.length);
      entry.row.remove();
    }
    list.scrollTop = list.scrollHeight;
    paintWaiting();
  }

  /** Every step as drawn: its token, its bars and its candidates, as a vector figure. */
  const figure = () => (shown ? stepperFigure(shown) : null);

  return { render, figure };
}

/** Rows of the stepper added in one task (then the browser lays them out). */
const STEP_ROWS = 16;

/** What a row shows: its step's token, whether it was forced, its candidates, and the language of its titles. */
function stepKey(step) {
  const candidates = step.candidates.map((c) => `${c.id}:${c.probability}`).join();
  return `${language()}|${step.id}|${step.forced}|${step.token}|${candidates}`;
}

/**
 * Give `list` the height a horizontal scrollbar takes under a row's bars (--bars-scrollbar: 0 where
 * scrollbars overlay the content), measured on a hidden row's slot. False while `list` is not
 * rendered (nothing to measure with).
 */
function measureScrollbar(list) {
  if (!list.isConnected) return false;
  const probe = el('div', { className: 'bars-scroll' }, el('div'));
  probe.style.cssText = 'position: absolute; visibility: hidden; overflow-x: scroll; content-visibility: visible; width: 40px';
  probe.firstChild.style.cssText = 'width: 80px; height: 1px';
  list.append(probe);
  const { offsetHeight, clientHeight } = probe;
  probe.remove();
  if (!offsetHeight) return false; // not rendered (a hidden panel): measured at a later render
  list.style.setProperty('--bars-scrollbar', `${offsetHeight - clientHeight}px`);
  return true;
}

/** An empty slot of the bars' size, until they are drawn. */
function barsPlaceholder(layout) {
  const placeholder = el('div');
  placeholder.style.width = `${layout.width}px`;
  placeholder.style.height = `${BAR_HEIGHT + WORD_HEIGHT}px`;
  return placeholder;
}

/**
 * Step `i`'s row, empty until fillRow: the token it produced, a slot for its bars over the source,
 * and its candidates, each forcing itself through `onForce`. Returns its entry (see createStepper).
 */
function stepRow(i, onForce) {
  const token = el('div', { className: 'new-token token' });
  token.addEventListener('mouseenter', () => hover([{ side: 'tgt', index: producedBy(i) }], 'stepper'));
  token.addEventListener('mouseleave', () => hover(null, 'stepper'));
  const bars = el('div', { className: 'bars-scroll', data: { step: i } });
  const candidates = el('div', { className: 'candidates' });
  const entry = { key: null, step: null, token, bars, candidates, drawn: false };
  // The candidate buttons are reused from one step shown here to the next: each click asks for
  // the candidate the button shows now.
  candidates.addEventListener('click', (event) => {
    const button = event.target.closest('button.candidate');
    if (!button) return;
    const candidate = entry.step?.candidates[[...candidates.children].indexOf(button)];
    if (candidate) onForce(i, candidate.id);
  });
  entry.row = el('div', { className: 'step-row', data: { step: i } }, token, bars, candidates);
  return entry;
}

/** Show `step` in the row of `entry`, setting only the text, classes and titles that changed. */
function fillRow(entry, step) {
  entry.step = step;
  const { token, candidates } = entry;
  setIfChanged(token, 'textContent', step.token);
  setIfChanged(token, 'className', step.forced ? 'new-token token forced' : 'new-token token');
  if (step.forced) setIfChanged(token, 'title', t('tokens.forced'));
  else token.removeAttribute('title');
  while (candidates.children.length > step.candidates.length) candidates.lastElementChild.remove();
  while (candidates.children.length < step.candidates.length) candidates.append(el('button', { attrs: { type: 'button' } }));
  step.candidates.forEach((candidate, k) => {
    const button = candidates.children[k];
    setIfChanged(button, 'className', candidate.id === step.id ? 'candidate chosen' : 'candidate');
    setIfChanged(button, 'textContent', `${candidate.token} ${(candidate.probability * 100).toFixed(1)}%`);
    setIfChanged(button, 'title', t('stepper.forceTitle', { token: candidate.token }));
  });
}

/**
 * One set of listeners for every row's bars in `list`: which source word is under the pointer. A
 * bar is a cross-attention cell: the token step i produced looking at word j. `shown()`: what is drawn.
 */
function wireBarHover(list, shown) {
  list.addEventListener('mousemove', (event) => {
    const canvas = event.target.closest?.('canvas.bars');
    if (!canvas || !shown()) return;
    const { trace, cross, rowOffset, layout } = shown();
    const i = Number(canvas.dataset.step);
    const j = slotAt(layout, event.offsetX);
    if (j < 0) {
      hideTooltip();
      return;
    }
    const weight = cross.data[rowOffset(i) + j];
    showTooltip(event, t('stepper.tooltip', { token: trace.steps[i].token, source: trace.srcTokens[j], weight: weight.toFixed(4) }));
    if (list.dataset.hoverCell !== `${i}/${j}`) {
      list.dataset.hoverCell = `${i}/${j}`;
      hover(
        [
          { side: 'tgt', index: producedBy(i) },
          { side: 'src', index: j },
        ],
        'stepper',
      );
    }
  });
  list.addEventListener('mouseout', (event) => {
    if (!event.target.closest?.('canvas.bars')) return;
    delete list.dataset.hoverCell;
    hideTooltip();
    hover(null, 'stepper');
  });
}

const FIGURE_TOKEN_SIZE = 18;

/** The figure's tokens' column: as wide as its longest token and a margin, at least 70 px (as on the page). */
function figureTokenColumn(steps) {
  return steps.reduce((width, step) => Math.max(width, Math.ceil(measure(step.token, FIGURE_TOKEN_SIZE)) + 16), 70);
}

/** Every step as drawn (`shown`, as createStepper keeps it): its token, its bars and its candidates, as a vector figure. */
function stepperFigure({ trace, cross, layer, label, layout, rowOffset }) {
  const rowHeight = BAR_HEIGHT + WORD_HEIGHT + 10;
  const barsX = figureTokenColumn(trace.steps);
  const candidatesX = barsX + layout.width + 16;
  const width = candidatesX + 420;
  const top = 22;
  const ctx = svgContext(width, top + trace.steps.length * rowHeight);
  ctx.font = fontOf(12);
  ctx.fillStyle = layout.muted;
  ctx.fillText(t('stepper.figureCaption', { layer, head: label }), 0, 14);
  trace.steps.forEach((step, i) => {
    const y = top + i * rowHeight;
    ctx.setTransform(1, 0, 0, 1, 0, y);
    ctx.font = fontOf(FIGURE_TOKEN_SIZE);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = step.forced ? theme().link : theme().text;
    ctx.fillText(step.token, barsX / 2, (BAR_HEIGHT + WORD_HEIGHT) / 2);
    ctx.setTransform(1, 0, 0, 1, barsX, y);
    paintBars(ctx, trace.srcTokens, cross.data, rowOffset(i), layout);
    ctx.setTransform(1, 0, 0, 1, candidatesX, y);
    ctx.font = fontOf(12);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    let x = 0;
    for (const candidate of step.candidates) {
      const text = `${candidate.token} ${(candidate.probability * 100).toFixed(1)}%`;
      ctx.fillStyle = candidate.id === step.id ? layout.accent : theme().text;
      ctx.fillText(text, x, (BAR_HEIGHT + WORD_HEIGHT) / 2);
      x += ctx.measureText(text).width + 12;
    }
  });
  return ctx.figure;
}

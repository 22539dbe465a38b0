// The decoding stepper: each produced token with the cross-attention row that produced it
// (which source words it looked at) and the top-k candidates; clicking a candidate forces it.
import { headStack, matrixOffset, producedBy } from '../attention.js';
import { hover } from '../bus.js';
import { sizeCanvas } from '../canvas.js';
import { el } from '../dom.js';
import { t } from '../i18n.js';
import { svgContext } from '../svg.js';
import { hideTooltip, showTooltip } from '../tooltip.js';

const BAR_HEIGHT = 32;
const WORD_HEIGHT = 14;
const WORD_FONT = '11px system-ui, sans-serif';

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
  const style = getComputedStyle(document.documentElement);
  return {
    slots,
    width: Math.max(1, x - 2),
    accent: style.getPropertyValue('--accent').trim() || '#ffb000',
    muted: style.getPropertyValue('--muted').trim() || '#9aa3b2',
  };
}

// A row's bars and words on one canvas: a long sentence is thousands of bars, too many DOM
// elements to build and lay out on every redraw.
function drawBars(words, values, base, layout) {
  const canvas = el('canvas', { className: 'bars' });
  const dpr = sizeCanvas(canvas, layout.width, BAR_HEIGHT + WORD_HEIGHT);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  paintBars(ctx, words, values, base, layout);
  return canvas;
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
  let observer = null;
  let shown = null; // { trace, cross, head, layer, label, layout } as last drawn
  /** `analysis`: the trace's (www/wire.js analysis), for the mean or max over heads, or null. */
  function render(trace, selection, analysis = null) {
    const list = el('div', { className: 'step-list' });
    if (!trace?.steps.length) {
      observer?.disconnect();
      shown = null;
      container.replaceChildren(el('p', { className: 'muted', text: t('stepper.onlyStart') }));
      return;
    }
    const { stack: cross, head, label } = headStack(trace, 'cross', analysis, selection.head);
    const layer = Math.min(selection.layer, cross.layers - 1);
    const caption = el('p', {
      className: 'muted',
      text: t('stepper.caption', { layer, head: label }),
    });
    const layout = barLayout(trace.srcTokens);
    const rowOffset = (i) => matrixOffset(cross, layer, head) + i * cross.keys; // step i's row
    shown = { trace, cross, layer, label, layout, rowOffset };
    observer?.disconnect();
    observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          const placeholder = entry.target;
          observer.unobserve(placeholder);
          const i = Number(placeholder.dataset.step);
          const bars = drawBars(trace.srcTokens, cross.data, rowOffset(i), layout);
          bars.dataset.step = i;
          placeholder.replaceWith(bars);
        }
      },
      { root: list, rootMargin: '200px 0px' },
    );
    // One set of listeners for every row's bars: which source word is under the pointer. A bar is
    // a cross-attention cell: the token step i produced looking at word j.
    list.addEventListener('mousemove', (event) => {
      const canvas = event.target.closest?.('canvas.bars');
      if (!canvas) return;
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
    trace.steps.forEach((step, i) => {
      const token = el('div', {
        className: step.forced ? 'new-token token forced' : 'new-token token',
        text: step.token,
        title: step.forced ? t('tokens.forced') : null,
      });
      token.addEventListener('mouseenter', () => hover([{ side: 'tgt', index: producedBy(i) }], 'stepper'));
      token.addEventListener('mouseleave', () => hover(null, 'stepper'));
      // The bars are drawn when the row scrolls into view (a long decode has up to max_len rows).
      const placeholder = el('div', { data: { step: i } });
      placeholder.style.width = `${layout.width}px`;
      placeholder.style.height = `${BAR_HEIGHT + WORD_HEIGHT}px`;
      observer.observe(placeholder);
      const candidates = step.candidates.map((candidate) => {
        const button = el('button', {
          className: candidate.id === step.id ? 'candidate chosen' : 'candidate',
          text: `${candidate.token} ${(candidate.probability * 100).toFixed(1)}%`,
          title: t('stepper.forceTitle', { token: candidate.token }),
          attrs: { type: 'button' },
        });
        button.addEventListener('click', () => onForce(i, candidate.id));
        return button;
      });
      list.append(
        el(
          'div',
          { className: 'step-row', data: { step: i } },
          token,
          el('div', { className: 'bars-scroll' }, placeholder),
          el('div', { className: 'candidates' }, ...candidates),
        ),
      );
    });
    container.replaceChildren(caption, list);
    list.scrollTop = list.scrollHeight;
  }
  /** Every step as drawn: its token, its bars and its candidates, as a vector figure. */
  function figure() {
    if (!shown) return null;
    const { trace, cross, layer, label, layout, rowOffset } = shown;
    const rowHeight = BAR_HEIGHT + WORD_HEIGHT + 10;
    const barsX = 70;
    const candidatesX = barsX + layout.width + 16;
    const width = candidatesX + 420;
    const top = 22;
    const ctx = svgContext(width, top + trace.steps.length * rowHeight);
    ctx.font = '12px system-ui, sans-serif';
    ctx.fillStyle = layout.muted;
    ctx.fillText(t('stepper.figureCaption', { layer, head: label }), 0, 14);
    trace.steps.forEach((step, i) => {
      const y = top + i * rowHeight;
      ctx.setTransform(1, 0, 0, 1, 0, y);
      ctx.font = '18px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillStyle = step.forced ? '#7fc3ff' : '#e6e8ee';
      ctx.fillText(step.token, barsX / 2, (BAR_HEIGHT + WORD_HEIGHT) / 2);
      ctx.setTransform(1, 0, 0, 1, barsX, y);
      paintBars(ctx, trace.srcTokens, cross.data, rowOffset(i), layout);
      ctx.setTransform(1, 0, 0, 1, candidatesX, y);
      ctx.font = '12px system-ui, sans-serif';
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      let x = 0;
      for (const candidate of step.candidates) {
        const text = `${candidate.token} ${(candidate.probability * 100).toFixed(1)}%`;
        ctx.fillStyle = candidate.id === step.id ? layout.accent : '#e6e8ee';
        ctx.fillText(text, x, (BAR_HEIGHT + WORD_HEIGHT) / 2);
        x += ctx.measureText(text).width + 12;
      }
    });
    return ctx.figure;
  }

  return { render, figure };
}

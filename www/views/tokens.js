// The source tokens and the output so far, as chips linked to every other view by hover.
import { producedBy } from '../attention.js';
import { hover, hoveredOn, onHover } from '../bus.js';
import { el } from '../dom.js';
import { t } from '../i18n.js';

export function createTokens(sourceEl, outputEl) {
  let sourceChips = [];
  let outputChips = [];

  function chip(text, side, index, classes = []) {
    const span = el('span', { className: ['token', ...classes].join(' '), text });
    span.addEventListener('mouseenter', () => hover([{ side, index }], 'tokens'));
    span.addEventListener('mouseleave', () => hover(null, 'tokens'));
    return span;
  }

  function render(trace) {
    if (!trace) {
      sourceEl.replaceChildren();
      outputEl.replaceChildren();
      sourceChips = outputChips = [];
      return;
    }
    sourceChips = trace.srcTokens.map((token, i) => {
      const classes = [];
      if (trace.srcUnknown[i]) classes.push('unknown');
      if (i === trace.srcTokens.length - 1) classes.push('special');
      const span = chip(token, 'src', i, classes);
      if (trace.srcUnknown[i]) span.title = t('tokens.unknown');
      return span;
    });
    sourceEl.replaceChildren(...sourceChips);
    const forced = new Set(trace.steps.flatMap((step, k) => (step.forced ? [producedBy(k)] : [])));
    outputChips = trace.tgtTokens.map((token, i) => {
      const classes = [];
      if (i === 0 || token === '</s>') classes.push('special');
      if (forced.has(i)) classes.push('forced');
      const span = chip(token, 'tgt', i, classes);
      if (forced.has(i)) span.title = t('tokens.forced');
      return span;
    });
    outputEl.replaceChildren(...outputChips);
  }

  onHover((detail) => {
    const src = hoveredOn(detail, 'src');
    const tgt = hoveredOn(detail, 'tgt');
    sourceChips.forEach((span, i) => {
      span.classList.toggle('lit', src.has(i));
    });
    outputChips.forEach((span, i) => {
      span.classList.toggle('lit', tgt.has(i));
    });
  });

  return { render };
}

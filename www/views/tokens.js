// The source tokens and the output so far, as chips linked to every other view by hover.

import { hover, hoveredOn, onHover } from '../ui/bus.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { producedBy } from './attention.js';

export function createTokens(sourceEl, outputEl) {
  let sourceChips = [];
  let outputChips = [];

  /**
   * `target`'s chips for `tokens` on `side`: the chips already there are kept (each stands for its
   * position, which its hover listeners name) and only their text, classes and titles that differ
   * are set, so a sentence one word longer adds one chip to lay out rather than all of them.
   */
  function chips(target, tokens, side, classesOf, titleOf) {
    const spans = [...target.children];
    for (const span of spans.splice(tokens.length)) span.remove();
    for (let i = spans.length; i < tokens.length; i++) {
      const span = el('span');
      span.addEventListener('mouseenter', () => hover([{ side, index: i }], 'tokens'));
      span.addEventListener('mouseleave', () => hover(null, 'tokens'));
      target.append(span);
      spans.push(span);
    }
    tokens.forEach((token, i) => {
      const span = spans[i];
      if (span.textContent !== token) span.textContent = token;
      const className = ['token', ...classesOf(i)].join(' ');
      if (span.className !== className) span.className = className;
      const title = titleOf(i);
      if (title == null) span.removeAttribute('title');
      else if (span.title !== title) span.title = title;
    });
    return spans;
  }

  function render(trace) {
    if (!trace) {
      sourceEl.replaceChildren();
      outputEl.replaceChildren();
      sourceChips = outputChips = [];
      return;
    }
    const last = trace.srcTokens.length - 1;
    sourceChips = chips(
      sourceEl,
      trace.srcTokens,
      'src',
      (i) => [...(trace.srcUnknown[i] ? ['unknown'] : []), ...(i === last ? ['special'] : [])],
      (i) => (trace.srcUnknown[i] ? t('tokens.unknown') : null),
    );
    const forced = new Set(trace.steps.flatMap((step, k) => (step.forced ? [producedBy(k)] : [])));
    outputChips = chips(
      outputEl,
      trace.tgtTokens,
      'tgt',
      (i) => [...(i === 0 || trace.tgtTokens[i] === '</s>' ? ['special'] : []), ...(forced.has(i) ? ['forced'] : [])],
      (i) => (forced.has(i) ? t('tokens.forced') : null),
    );
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

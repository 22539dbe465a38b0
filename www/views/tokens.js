// The source tokens and the output so far, as chips linked to every other view by hover.
import { producedBy } from '../attention.js';
import { hover, hoveredOn, onHover } from '../bus.js';

export function createTokens(sourceEl, outputEl) {
  let sourceChips = [];
  let outputChips = [];

  function chip(text, side, index, classes = []) {
    const el = document.createElement('span');
    el.className = ['token', ...classes].join(' ');
    el.textContent = text;
    el.addEventListener('mouseenter', () => hover([{ side, index }], 'tokens'));
    el.addEventListener('mouseleave', () => hover(null, 'tokens'));
    return el;
  }

  function render(trace) {
    if (!trace) {
      sourceEl.replaceChildren();
      outputEl.replaceChildren();
      sourceChips = outputChips = [];
      return;
    }
    sourceChips = trace.srcTokens.map((t, i) => {
      const classes = [];
      if (trace.srcUnknown[i]) classes.push('unknown');
      if (i === trace.srcTokens.length - 1) classes.push('special');
      const el = chip(t, 'src', i, classes);
      if (trace.srcUnknown[i]) el.title = 'not in the vocabulary: the model sees <unk>';
      return el;
    });
    sourceEl.replaceChildren(...sourceChips);
    const forced = new Set(trace.steps.flatMap((step, k) => (step.forced ? [producedBy(k)] : [])));
    outputChips = trace.tgtTokens.map((t, i) => {
      const classes = [];
      if (i === 0 || t === '</s>') classes.push('special');
      if (forced.has(i)) classes.push('forced');
      const el = chip(t, 'tgt', i, classes);
      if (forced.has(i)) el.title = 'forced by you';
      return el;
    });
    outputEl.replaceChildren(...outputChips);
  }

  onHover((detail) => {
    const src = hoveredOn(detail, 'src');
    const tgt = hoveredOn(detail, 'tgt');
    sourceChips.forEach((el, i) => {
      el.classList.toggle('lit', src.has(i));
    });
    outputChips.forEach((el, i) => {
      el.classList.toggle('lit', tgt.has(i));
    });
  });

  return { render };
}

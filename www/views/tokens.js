// The source tokens and the output so far, as chips linked to every other view by hover.
import { hover, onHover } from '../bus.js';

export function createTokens(sourceEl, outputEl) {
  let sourceChips = [];
  let outputChips = [];

  function chip(text, side, index, classes = []) {
    const el = document.createElement('span');
    el.className = ['token', ...classes].join(' ');
    el.textContent = text;
    el.addEventListener('mouseenter', () => hover({ side, index, from: 'tokens' }));
    el.addEventListener('mouseleave', () => hover(null));
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
    outputChips = trace.tgtTokens.map((t, i) => {
      const classes = [];
      if (i === 0 || t === '</s>') classes.push('special');
      if (i > 0 && trace.steps[i - 1]?.forced) classes.push('forced');
      const el = chip(t, 'tgt', i, classes);
      if (i > 0 && trace.steps[i - 1]?.forced) el.title = 'forced by you';
      return el;
    });
    outputEl.replaceChildren(...outputChips);
  }

  onHover((detail) => {
    sourceChips.forEach((el, i) => el.classList.toggle('lit', !!detail && detail.side === 'src' && detail.index === i));
    outputChips.forEach((el, i) => el.classList.toggle('lit', !!detail && detail.side === 'tgt' && detail.index === i));
  });

  return { render };
}

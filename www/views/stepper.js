// The decoding stepper: each produced token with the cross-attention row that produced it
// (which source words it looked at) and the top-k candidates; clicking a candidate forces it.
import { matrixOffset } from '../attention.js';
import { hover } from '../bus.js';

export function createStepper(container, onForce) {
  function render(trace, selection) {
    const list = document.createElement('div');
    list.className = 'step-list';
    if (!trace || !trace.steps.length) {
      const none = document.createElement('p');
      none.className = 'muted';
      none.textContent = 'Only the start token <s> so far. Press “Step ▶”.';
      container.replaceChildren(none);
      return;
    }
    const cross = trace.crossAttention;
    const layer = Math.min(selection.layer, cross.layers - 1);
    const head = Math.min(selection.head, cross.heads - 1);
    const caption = document.createElement('p');
    caption.className = 'muted';
    caption.textContent = `Bars: cross-attention of layer ${layer}, head ${head} (choose another layer or head above).`;
    trace.steps.forEach((step, i) => {
      const row = document.createElement('div');
      row.className = 'step-row';
      row.dataset.step = i;
      const token = document.createElement('div');
      token.className = 'new-token token';
      token.textContent = step.token;
      if (step.forced) {
        token.classList.add('forced');
        token.title = 'forced by you';
      }
      token.addEventListener('mouseenter', () => hover({ side: 'tgt', index: i + 1, from: 'stepper' }));
      token.addEventListener('mouseleave', () => hover(null));
      const bars = document.createElement('div');
      bars.className = 'bars';
      const base = matrixOffset(cross, layer, head) + i * cross.keys;
      trace.srcTokens.forEach((word, j) => {
        const weight = cross.data[base + j];
        const bar = document.createElement('div');
        bar.className = 'bar';
        bar.title = `${step.token} looked at “${word}”: ${weight.toFixed(4)}`;
        const fill = document.createElement('div');
        fill.className = 'fill';
        fill.style.height = `${Math.round(weight * 32)}px`;
        const label = document.createElement('span');
        label.className = 'word';
        label.textContent = word;
        bar.append(fill, label);
        bar.addEventListener('mouseenter', () => hover({ side: 'src', index: j, from: 'stepper' }));
        bar.addEventListener('mouseleave', () => hover(null));
        bars.append(bar);
      });
      const candidates = document.createElement('div');
      candidates.className = 'candidates';
      step.candidates.forEach((candidate) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'candidate';
        if (candidate.id === step.id) button.classList.add('chosen');
        button.textContent = `${candidate.token} ${(candidate.probability * 100).toFixed(1)}%`;
        button.title = `force “${candidate.token}” at this step and continue`;
        button.addEventListener('click', () => onForce(i, candidate.id));
        candidates.append(button);
      });
      row.append(token, bars, candidates);
      list.append(row);
    });
    container.replaceChildren(caption, list);
    list.scrollTop = list.scrollHeight;
  }
  return { render };
}

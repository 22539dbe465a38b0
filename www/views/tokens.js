// The source tokens and the output so far, as chips linked to every other view by hover; under the
// output, a note when the model wrote a date that does not exist.

import { hover, hoveredOn, onHover } from '../ui/bus.js';
import { el } from '../ui/dom.js';
import { language, t } from '../ui/i18n.js';
import { producedBy } from './attention.js';

export function createTokens(sourceEl, outputEl) {
  let sourceChips = [];
  let outputChips = [];
  // The output is never corrected: a date that does not exist (trace.impossibleDate, set by the
  // calendar's rule in src/text/calendar.rs) is shown as written, with this note under it.
  const dateNote = el('p', { className: 'warning', attrs: { id: 'impossible-date', role: 'note' } });
  dateNote.hidden = true;
  outputEl.parentElement.after(dateNote);

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
    const date = trace?.impossibleDate;
    dateNote.hidden = !date;
    dateNote.textContent = date ? impossibleDateText(trace.output, date) : '';
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

/** Why `output` names no day (`date`: the trace's impossibleDate), in the page's language. */
function impossibleDateText(output, { year, month, day, daysInMonth }) {
  let reason;
  if (!daysInMonth) reason = t('tokens.impossibleDateNoMonth', { month: String(month).padStart(2, '0') });
  else if (!day) reason = t('tokens.impossibleDateNoDay');
  else reason = t('tokens.impossibleDatePastEnd', { month: monthOfYear(year, month), days: daysInMonth, day });
  return t('tokens.impossibleDate', { date: output, reason });
}

/** "February 2019" / "2019年2月". */
function monthOfYear(year, month) {
  const first = new Date(Date.UTC(2000, month - 1, 1));
  first.setUTCFullYear(year);
  return new Intl.DateTimeFormat(language(), { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(first);
}

// The lesson card's parts, and how it lights the page: the step's panel is lit and the rest
// dimmed, the part the text is about outlined, and the control the task asks for marked and
// kept in sight, above the card (a phone's card covers the bottom of the screen).
import { el } from '../ui/dom.js';
import { quizUi } from './quiz-texts.js';
import { lessonUi } from './texts.js';

export function buildCard() {
  const counter = el('p', { className: 'lesson-counter', attrs: { 'aria-live': 'polite' } });
  const title = el('h2', { attrs: { id: 'lesson-title', tabindex: '-1' } });
  const text = el('p', { className: 'lesson-text' });
  const task = el('div', { className: 'lesson-task', attrs: { 'aria-live': 'polite' } });
  const check = el('div', { className: 'lesson-check-slot' });
  const legend = el('p', { className: 'lesson-legend' });
  const action = el('div', { className: 'lesson-action' });
  const note = el('p', { className: 'lesson-note', attrs: { role: 'status' } });
  const back = el('button', { className: 'lesson-back', attrs: { type: 'button' } });
  const next = el('button', { className: 'lesson-next', attrs: { type: 'button' } });
  const leave = el('button', { className: 'lesson-leave', text: '×', attrs: { type: 'button' } });
  const startOver = el('button', { className: 'lesson-start-over', attrs: { type: 'button' } });
  const download = el('button', { className: 'lesson-download', attrs: { type: 'button' } });
  const summary = el('div', { className: 'lesson-summary' });
  summary.hidden = true;
  const nav = el('div', { className: 'lesson-nav' }, back, next);
  const tools = el('div', { className: 'lesson-tools' }, startOver, download);
  const card = el(
    'aside',
    { className: 'lesson-card', attrs: { id: 'lesson', 'aria-labelledby': 'lesson-title' } },
    el('div', { className: 'lesson-head' }, counter, leave),
    title,
    text,
    task,
    action,
    check,
    summary,
    legend,
    note,
    nav,
    tools,
  );
  card.hidden = true;
  return { card, counter, title, text, task, check, legend, action, note, back, next, leave, startOver, download, summary };
}

/** The card's words that do not depend on the step. */
export function labelStatic({ ui, button }) {
  button.textContent = lessonUi('button');
  ui.back.textContent = lessonUi('back');
  ui.leave.setAttribute('aria-label', lessonUi('leave'));
  ui.leave.title = lessonUi('leave');
  ui.legend.textContent = lessonUi('legend');
  ui.startOver.textContent = quizUi('startOver');
  ui.download.textContent = quizUi('download');
}

export function unlight() {
  for (const node of document.querySelectorAll('.lesson-target, .lesson-focus, .lesson-control, .lesson-also')) {
    node.classList.remove('lesson-target', 'lesson-focus', 'lesson-control', 'lesson-also');
  }
}

/**
 * Light the step's panel (and the part of it the step is about), dim the rest, and scroll it in;
 * mark the task's control. Returns the control (or null).
 */
export function highlight(definition, controlSelector) {
  unlight();
  const anchor = document.querySelector(definition.panel);
  const panel = anchor?.closest('section') ?? anchor;
  if (panel) panel.classList.add('lesson-target');
  const focus = definition.focus && panel ? panel.querySelector(definition.focus) : null;
  focus?.classList.add('lesson-focus');
  const control = controlSelector ? document.querySelector(controlSelector) : null;
  if (control) {
    control.classList.add('lesson-control');
    // A control outside the step's panel is lit too: the dimming would cover it otherwise.
    const section = control.closest('section');
    if (section && section !== panel) section.classList.add('lesson-also');
  }
  (focus ?? panel)?.scrollIntoView({ block: 'start', behavior: 'instant' });
  return control;
}

/**
 * Scroll so that `control` is not under the card: above it where the card spans the screen (a
 * phone), or anywhere in view beside it (a wide screen's card sits in a corner).
 */
export function keepInSight(control, card) {
  if (!control || card.hidden) return;
  const box = control.getBoundingClientRect();
  const cardBox = card.getBoundingClientRect();
  const overlaps = (b) => b.left < cardBox.right && b.right > cardBox.left && b.top < cardBox.bottom && b.bottom > cardBox.top;
  if (!overlaps(box) && box.top >= 0 && box.bottom <= window.innerHeight) return;
  // Room above the card: put the control's top (or its bottom, if tall) a little below the page's top.
  const room = cardBox.top - 8;
  const shift = box.height <= room ? box.bottom - room : box.top - 8;
  if (overlaps(box) || box.top < 0 || box.bottom > window.innerHeight) window.scrollBy({ top: shift, behavior: 'instant' });
}

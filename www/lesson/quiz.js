// A step's graded check in the lesson card (www/lesson/checks.js computes the answers): the
// question, its options or a number box, and what the learner is told: a hint after a wrong try,
// the reason after a right one. Everything is a button or a form field: the keyboard alone
// answers it. The lesson's progress hears each answer and each hint (onAnswer, onHint).
import { el } from '../ui/dom.js';
import { fill } from './numbers.js';
import { checkText, quizUi } from './quiz-texts.js';

/** `text` as a number: a comma or a full-width digit as people type them; NaN if it is none. */
export function parseAnswer(text) {
  const plain = String(text)
    .trim()
    .replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0))
    .replace(/[．。]/g, '.')
    .replace(/^[−–]/, '-')
    .replace(',', '.');
  return /^[-+]?(\d+\.?\d*|\.\d+)$/.test(plain) ? Number(plain) : Number.NaN;
}

/** Whether `given` is `value` to `digits` places (what rounding it there may give, either way). */
export function numberRight(given, value, digits) {
  return Number.isFinite(given) && Math.abs(given - value) <= 0.5 * 10 ** -digits * 1.02 + 1e-9;
}

function feedbackNodes(id, outcome, params) {
  const text = checkText(id);
  if (outcome === 'right') return [el('strong', { text: `${quizUi('right')} ` }), `${quizUi('reason')} `, ...fill(text.reason, params)];
  if (outcome === 'wrong') return [el('strong', { text: `${quizUi('wrong')} ` }), `${quizUi('hint')} `, ...fill(text.hint, params)];
  return [];
}

function optionButtons(answer, onPick, state) {
  const group = el('div', { className: 'lesson-options', attrs: { role: 'group' } });
  for (const option of answer.options) {
    const button = el('button', {
      className: 'lesson-option',
      text: option.head ? quizUi('headOption', { h: option.label }) : option.label,
      attrs: { type: 'button', 'aria-pressed': String(state.last === option.value) },
      data: { value: String(option.value) },
    });
    button.disabled = state.solved;
    button.addEventListener('click', () => onPick(option.value, option.label));
    group.append(button);
  }
  return group;
}

function numberForm(onNumber, state, id) {
  const input = el('input', {
    className: 'lesson-number',
    attrs: { type: 'text', inputmode: 'decimal', autocomplete: 'off', id: `lesson-answer-${id}`, 'aria-label': quizUi('answerLabel') },
  });
  if (state.lastText != null) input.value = state.lastText;
  input.disabled = state.solved;
  const submit = el('button', { className: 'lesson-submit', text: quizUi('check'), attrs: { type: 'submit' } });
  submit.disabled = state.solved;
  const form = el('form', { className: 'lesson-number-form' }, input, submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onNumber(input.value);
  });
  return form;
}

/**
 * The check of step `id` into `box`. `answer`: checks.js's answer for the ctx shown (null: none
 * here, or `ungraded` true: shown but not graded); `state`: this check's { tries, solved, last,
 * lastText, outcome, prediction } (kept by the lesson across redraws); `grade(value)` returns
 * true/false, or null for a prediction waiting for the task.
 */
export function renderCheck(box, { id, kind, answer, state, params, grade, ungraded }) {
  if (!answer && !ungraded) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const legend = el('legend', {}, ...fill(checkText(id).question, params));
  const feedback = el('p', { className: 'lesson-feedback', attrs: { 'aria-live': 'polite' } });
  const redraw = () => renderCheck(box, { id, kind, answer, state, params, grade, ungraded });
  const settle = (outcome) => {
    state.outcome = outcome;
    redraw();
    box.querySelector('.lesson-feedback')?.focus?.({ preventScroll: true });
  };
  const body = [];
  if (ungraded) body.push(el('p', { className: 'muted', text: quizUi('notGraded') }));
  else if (kind === 'number') {
    body.push(
      numberForm(
        (text) => {
          state.lastText = text;
          settle(grade(parseAnswer(text)) ? 'right' : 'wrong');
        },
        state,
        id,
      ),
    );
  } else {
    body.push(
      optionButtons(
        answer,
        (value, label) => {
          state.last = value;
          state.lastLabel = label;
          const result = grade(value);
          settle(result == null ? 'waiting' : result ? 'right' : 'wrong');
        },
        state,
      ),
    );
    if (kind === 'predict') body.push(el('p', { className: 'muted', text: quizUi('predictGreedy') }));
  }
  if (state.outcome === 'waiting') feedback.textContent = quizUi('predictWait', { answer: state.lastLabel ?? '' });
  else feedback.replaceChildren(...feedbackNodes(id, state.outcome, { ...params, ...answer?.params }));
  feedback.tabIndex = -1;
  const fieldset = el(
    'fieldset',
    { className: 'lesson-check', data: { check: id, kind, outcome: state.outcome ?? 'open' } },
    legend,
    ...body,
    feedback,
  );
  box.replaceChildren(fieldset);
}

// The lesson's graded checks at work: which check the step shows and which of the text's values
// it hides while it is open, how an answer is graded against the live model's (www/lesson/checks.js),
// and how a prediction is graded once the learner has done the step's task. Each answer and each
// hint goes into the progress (www/lesson/progress.js).
import { CHECKS } from './checks.js';
import { words } from './numbers.js';
import { numberRight } from './quiz.js';

/** This check's state for the step shown, kept across redraws: { tries, solved, last, outcome, … }. */
function checkState(lesson, id) {
  if (!lesson.quiz[id]) {
    // A check answered right on an earlier visit (the progress kept for this model) stays solved.
    const kept = lesson.progress.checkState(id);
    lesson.quiz[id] = { tries: kept?.tries ?? 0, solved: kept?.right === true, outcome: kept?.right ? 'right' : null };
  }
  return lesson.quiz[id];
}

/** The step's check, and the parameters the text shows (the checked value hidden while it is open). */
export async function prepareCheck(lesson, id, ctx, params) {
  const check = CHECKS[id];
  const state = checkState(lesson, id);
  if (!check || !ctx || ctx.missing || !params) return { params, check: null };
  const ungraded = check.kind === 'predict' && ctx.decoding?.mode === 'sample';
  const answer = ungraded ? null : await check.answer(ctx);
  lesson.answer = answer ? { id, answer, kind: check.kind } : null;
  if (!answer && !ungraded) return { params, check: null };
  const shown = { ...params };
  if (!state.solved && !ungraded) for (const name of check.hides) if (name in shown) shown[name] = words('?');
  return { params: shown, check: { id, kind: check.kind, answer, state, ungraded } };
}

/** Grade `value` for the check shown; a prediction waits for the task (null). */
export function gradeFor(lesson, id, value) {
  const state = checkState(lesson, id);
  const check = CHECKS[id];
  const { answer } = lesson.answer ?? {};
  if (check.kind === 'predict') {
    state.before = answer.before;
    state.predicted = value;
    return null;
  }
  const right = check.kind === 'number' ? numberRight(value, answer.value, answer.digits) : value === answer.value;
  record(lesson, id, value, right);
  return right;
}

/** An answer, right or wrong, into the progress; a wrong one shows the hint. */
function record(lesson, id, value, right) {
  const state = checkState(lesson, id);
  state.tries += 1;
  if (right) state.solved = true;
  lesson.progress.answer(id, { answer: value, right });
  if (!right) lesson.progress.hint(id);
  // The solved check's hidden values are shown now.
  if (right) lesson.redraw();
}

/**
 * The step's task was done: a prediction waiting for it is graded now, against what the model did
 * (`trace`, the answer on screen after the task). Returns whether one was graded.
 */
export function resolvePrediction(lesson, id, trace) {
  const check = CHECKS[id];
  const state = checkState(lesson, id);
  if (check?.kind !== 'predict' || state.predicted == null || state.solved) return false;
  const actual = check.grade({ trace }, state.before);
  if (actual == null) return false;
  const right = actual === state.predicted;
  state.actual = actual;
  state.outcome = right ? 'right' : 'wrong';
  state.predicted = null;
  record(lesson, id, state.lastLabel ?? '', right);
  if (!right) lesson.redraw();
  return true;
}

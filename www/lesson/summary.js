// The lesson's summary, after its last step: the checks answered right the first time, the hints
// used and the time spent on each step, from the progress kept for this model
// (www/lesson/progress.js); with the buttons to download the events and to start over.
import { el } from '../ui/dom.js';
import { quizUi } from './quiz-texts.js';

/** Fill `box` with `summary` (progress.summary()) for the steps `ids` (their order is the lesson's). */
export function renderSummary(box, summary, ids) {
  const n = (id) => ids.indexOf(id) + 1;
  const minutes = (summary.totalMs / 60000).toFixed(1);
  const steps = summary.perStep
    .filter((s) => ids.includes(s.step))
    .sort((a, b) => n(a.step) - n(b.step))
    .map((s) =>
      el('li', {
        text: quizUi(s.task ? 'summaryStep' : s.done ? 'summaryStepSkipped' : 'summaryStepUnseen', {
          n: n(s.step),
          seconds: Math.round(s.ms / 1000),
        }),
        data: { step: s.step, how: s.task ? 'task' : s.done ? 'skipped' : 'unseen' },
      }),
    );
  box.replaceChildren(
    el('p', {
      className: 'lesson-summary-checks',
      text: quizUi('summaryChecks', { right: summary.rightFirstTime, total: summary.checks }),
      data: { right: String(summary.rightFirstTime), total: String(summary.checks) },
    }),
    el('p', {
      className: 'lesson-summary-hints',
      text: quizUi('summaryHints', { hints: summary.hintsUsed }),
      data: { hints: String(summary.hintsUsed) },
    }),
    el('p', { text: quizUi('summaryTime', { minutes }) }),
    el('ul', { className: 'lesson-summary-steps' }, ...steps),
  );
}

// What the playground panel shows, apart from its switches and chart: the buttons, the live
// figures, the task's pairs, the held-out samples, the message line, the inline confirm and an
// experiment's outcome. Built once into the panel's root; each `show…` draws from what it is given.
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { percent } from './presets.js';

/** The run's buttons, by name: their text and title keys are `playground.button.NAME(.title)`. */
export const BUTTONS = ['train', 'pause', 'step', 'reset', 'download'];

/** The live figures, by name: each a label key `playground.figure.NAME`. */
const FIGURES = ['step', 'loss', 'heldout', 'exact', 'speed'];

/** A section of the panel: a heading (key) and its body. */
const part = (className, key, ...children) =>
  el('div', { className: `playground-part ${className}` }, key ? el('h3', { i18n: key }) : '', ...children);

/** Build the panel's parts into `root`; returns the elements the panel fills. */
export function buildView(root) {
  const message = el('div', { className: 'playground-message', attrs: { role: 'status', 'aria-live': 'polite' } });
  message.hidden = true;
  const confirm = el('div', { className: 'playground-confirm', attrs: { role: 'alertdialog' } });
  confirm.hidden = true;
  const buttons = Object.fromEntries(
    BUTTONS.map((name) => [
      name,
      el('button', {
        className: `run-${name}`,
        attrs: { type: 'button' },
        data: { action: name },
        i18n: `playground.button.${name}`,
        i18nTitle: `playground.button.${name}.title`,
      }),
    ]),
  );
  const figures = Object.fromEntries(FIGURES.map((name) => [name, el('dd', { data: { figure: name } })]));
  const figureList = el(
    'dl',
    { className: 'playground-figures' },
    ...FIGURES.map((name) => el('div', {}, el('dt', { i18n: `playground.figure.${name}` }), figures[name])),
  );
  const view = {
    root,
    message,
    confirm,
    buttons,
    figures,
    examples: el('p', { className: 'playground-examples' }),
    switches: el('div', { className: 'playground-switches' }),
    presets: el('div', { className: 'playground-presets row' }),
    chart: el('div', { className: 'playground-chart-box' }),
    samples: el('ol', { className: 'playground-samples' }),
    outcome: el('div', { className: 'playground-outcome', attrs: { 'aria-live': 'polite' } }),
  };
  view.outcome.hidden = true;
  root.replaceChildren(
    el('p', { className: 'explain', i18n: 'playground.intro' }),
    part('playground-setup', 'playground.settings', view.examples, view.switches),
    part(
      'playground-experiments',
      'playground.experiments',
      el('p', { className: 'explain', i18n: 'playground.experimentsExplain' }),
      view.presets,
    ),
    message,
    confirm,
    el('div', { className: 'playground-buttons row' }, ...Object.values(buttons)),
    figureList,
    part('playground-curves', 'playground.curves', view.chart),
    view.outcome,
    part('playground-heldout', 'playground.samples', view.samples),
  );
  return view;
}

/** A loss as the figures show it: 3 decimals, or powers of ten when far from 1. */
export function lossText(loss) {
  if (loss == null) return '—';
  if (!Number.isFinite(loss)) return Number.isNaN(loss) ? 'NaN' : loss > 0 ? '∞' : '−∞';
  return loss !== 0 && (Math.abs(loss) >= 1e4 || Math.abs(loss) < 1e-3) ? loss.toExponential(2) : loss.toFixed(3);
}

/** The live figures of the run: { steps, total, loss, evaluation, stepsPerSecond }. */
export function showFigures(view, { steps, total, loss, evaluation, stepsPerSecond }) {
  const { figures } = view;
  figures.step.textContent = `${steps} / ${total}`;
  figures.loss.textContent = lossText(loss);
  figures.heldout.textContent = evaluation ? lossText(evaluation.heldoutLoss) : '—';
  figures.exact.textContent = evaluation
    ? t('playground.exactValue', {
        share: percent(evaluation.exactMatch),
        correct: evaluation.correct,
        total: evaluation.total,
        step: evaluation.step,
      })
    : '—';
  figures.exact.dataset.exactMatch = evaluation ? String(evaluation.exactMatch) : '';
  figures.exact.dataset.step = evaluation ? String(evaluation.step) : '';
  figures.speed.textContent = Number.isFinite(stepsPerSecond) ? stepsPerSecond.toFixed(1) : '—';
}

/** The task's pairs (info.examples: [[source, target], …]) and the model's size. */
export function showExamples(view, info) {
  const pairs = (info?.examples ?? []).map(([source, target]) => `${source} → ${target}`).join('  ·  ');
  view.examples.textContent = info ? t('playground.examples', { pairs, parameters: info.parameters, heldout: info.heldout }) : '';
}

/** The held-out samples of the last evaluation: source → output ✓/✗ (and what was expected). */
export function showSamples(view, evaluation) {
  const items = (evaluation?.samples ?? []).map((sample) => {
    const mark = sample.correct ? '✓' : '✗';
    const text = sample.correct
      ? `${sample.source} → ${sample.output} ${mark}`
      : `${sample.source} → ${sample.output || '∅'} ${mark} ${t('playground.expected', { expected: sample.expected })}`;
    return el('li', { className: sample.correct ? 'correct' : 'wrong', text });
  });
  view.samples.replaceChildren(...items);
  if (!items.length) view.samples.append(el('li', { className: 'muted', i18n: 'playground.noSamples' }));
}

/** The message line: `text` (a function giving it in the language in use), or none; `kind`: 'error' or 'info'. */
export function showMessageLine(view, message) {
  view.message.hidden = !message;
  view.message.className = `playground-message ${message?.kind ?? ''}`.trim();
  view.message.textContent = message ? message.text() : '';
}

/** An experiment's outcome: a title and its paragraphs (none: hidden). */
export function showOutcome(view, outcome) {
  view.outcome.hidden = !outcome;
  if (!outcome) return;
  view.outcome.replaceChildren(el('h3', { text: outcome.title() }), ...outcome.paragraphs().map((text) => el('p', { text })));
}

/**
 * Ask, inside the panel, whether to throw away the run's `steps` steps: resolves true (start
 * the new run) or false (keep this one). A second question answers the first with false.
 */
export function askToDiscard(view, steps) {
  view.pendingAnswer?.(false);
  return new Promise((resolve) => {
    const answer = (yes) => {
      view.pendingAnswer = null;
      view.confirm.hidden = true;
      view.confirm.replaceChildren();
      resolve(yes);
    };
    view.pendingAnswer = answer;
    const discard = el('button', { className: 'confirm-discard', attrs: { type: 'button' }, i18n: 'playground.confirm.discard' });
    const keep = el('button', { className: 'confirm-keep', attrs: { type: 'button' }, i18n: 'playground.confirm.keep' });
    discard.addEventListener('click', () => answer(true));
    keep.addEventListener('click', () => answer(false));
    view.confirm.replaceChildren(
      el('p', { text: t('playground.confirm.text', { steps }) }),
      el('div', { className: 'row' }, discard, keep),
    );
    view.confirm.hidden = false;
    discard.focus();
  });
}

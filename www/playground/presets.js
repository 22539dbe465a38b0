// The four experiments (the training module's facts: A positional encoding, B the causal mask,
// C ÷√d_k, D one head against four): a button each, and the outcome written from the learner's
// own two runs. Every number in an outcome is measured by those runs' evaluations and steps; the
// explanation ("why") is said only where the runs show what it explains.
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';

/** A share (0..1) as a percentage, '—' where it was not measured. */
export const percent = (share) => (Number.isFinite(share) ? `${Number((share * 100).toFixed(1))} %` : '—');

/** A loss or an entropy with `digits` decimals, '—' where it was not measured. */
const figure = (value, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

/** The mean training loss of `run` over steps `from`..`to` (1-based, inclusive), or NaN. */
export function meanLoss(run, from, to) {
  const losses = run.losses.slice(from - 1, to).filter(Number.isFinite);
  return losses.length ? losses.reduce((sum, v) => sum + v, 0) / losses.length : Number.NaN;
}

/** The evaluation of `run` at `step`, or the last one when `step` is null. */
const at = (run, step = null) => (step == null ? run.evaluations.at(-1) : run.evaluations.find((e) => e.step === step));

/** The first step whose evaluation reached `share` exact match, or '—'. */
const firstReaching = (run, share) => run.evaluations.find((e) => e.step > 0 && e.exactMatch >= share)?.step ?? '—';

/** The outcome of experiment A: exact match with and without positions, and the bag of tokens. */
function outcomeA([on, off]) {
  const [a, b] = [at(on), at(off)];
  const params = {
    on: percent(a?.exactMatch),
    off: percent(b?.exactMatch),
    onSame: percent(a?.sameTokens),
    offSame: percent(b?.sameTokens),
    step: b?.step ?? '—',
  };
  const shows = b && a && b.exactMatch < a.exactMatch / 2 && b.sameTokens >= 0.5;
  return [t('playground.outcome.A', params), t(shows ? 'playground.why.A' : 'playground.why.other')];
}

/** B: the teacher-forced loss falls faster without the mask, greedy decoding fails. */
function outcomeB([on, off]) {
  const [a, b] = [at(on), at(off)];
  const params = {
    onLoss: figure(meanLoss(on, 101, 200)),
    offLoss: figure(meanLoss(off, 101, 200)),
    onHeld: figure(a?.heldoutLoss),
    offHeld: figure(b?.heldoutLoss),
    on: percent(a?.exactMatch),
    off: percent(b?.exactMatch),
    offSame: percent(b?.sameTokens),
  };
  const shows = meanLoss(off, 101, 200) < meanLoss(on, 101, 200) && b && a && b.exactMatch < a.exactMatch;
  return [t('playground.outcome.B', params), t(shows ? 'playground.why.B' : 'playground.why.other')];
}

/** C: the attention entropy before the first step, and the loss and exact match after. */
function outcomeC([on, off]) {
  const [a0, b0, a, b] = [at(on, 0), at(off, 0), at(on), at(off)];
  const params = {
    onEncoder: figure(a0?.entropy.encoderSelf, 2),
    onCross: figure(a0?.entropy.cross, 2),
    offEncoder: figure(b0?.entropy.encoderSelf, 2),
    offCross: figure(b0?.entropy.cross, 2),
    onLoss: figure(meanLoss(on, 201, 300)),
    offLoss: figure(meanLoss(off, 201, 300)),
    on: percent(a?.exactMatch),
    off: percent(b?.exactMatch),
  };
  const shows = a0 && b0 && b0.entropy.encoderSelf < a0.entropy.encoderSelf && meanLoss(off, 201, 300) > meanLoss(on, 201, 300);
  return [t('playground.outcome.C', params), t(shows ? 'playground.why.C' : 'playground.why.other')];
}

/** D: four heads against one, on the made-up language. */
function outcomeD([four, one]) {
  const params = {
    four200: percent(at(four, 200)?.exactMatch),
    one200: percent(at(one, 200)?.exactMatch),
    fourFirst: firstReaching(four, 0.99),
    oneFirst: firstReaching(one, 0.99),
    four: percent(at(four)?.exactMatch),
    one: percent(at(one)?.exactMatch),
    fourCross: figure(at(four)?.entropy.cross, 2),
    oneCross: figure(at(one)?.entropy.cross, 2),
  };
  const [f, o] = [Number(params.fourFirst), Number(params.oneFirst)];
  const close = Number.isFinite(f) && Number.isFinite(o) && Math.abs(f - o) <= 300;
  return [t('playground.outcome.D', params), t(close ? 'playground.why.D' : 'playground.why.other')];
}

const OUTCOMES = { A: outcomeA, B: outcomeB, C: outcomeC, D: outcomeD };

/** Whether experiment `id` evaluates each arm before its first step (C: the entropy at the start). */
export const evaluatesFirst = (id) => id === 'C';

/** The outcome of experiment `id` from its two runs (the chart's), as paragraphs of text. */
export function outcome(id, runs) {
  return OUTCOMES[id]?.(runs) ?? [];
}

/** An arm's label on the chart: the switch's name and its value in that run. */
export const armLabel = (experiment, arm) => `${experiment.id}: ${t(`playground.switch.${experiment.switch}`)} = ${arm.label}`;

/**
 * A button per experiment in `container`, each calling `onPick(experiment)`; their title says what
 * they do. Returns the buttons.
 */
export function createPresets(container, experiments, { onPick }) {
  return experiments.map((experiment) => {
    const button = el('button', {
      className: 'preset',
      attrs: { type: 'button' },
      data: { experiment: experiment.id },
      i18n: `playground.preset.${experiment.id}`,
      i18nTitle: `playground.preset.${experiment.id}.title`,
    });
    button.addEventListener('click', () => onPick(experiment));
    container.append(button);
    return button;
  });
}

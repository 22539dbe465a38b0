// One playground session's run, on the page's side: what the worker's notices say (the figures,
// the chart, the state), a fresh run started for new settings, an experiment's two runs, and
// the download. Each function takes the panel's `pg`: { view, run, client, chart, switches,
// presets, hooks: { onRunStart, onSnapshot }, renderSoon() } (www/playground/panel.js).
import { save } from '../ui/export.js';
import { messageText, t } from '../ui/i18n.js';
import { writeLink } from './link.js';
import { armLabel, evaluatesFirst, outcome } from './presets.js';
import { askToDiscard, showExamples, showFigures, showMessageLine, showOutcome, showSamples } from './view.js';
import { zipBlob } from './zip.js';

/** The message of a failed request: the page's words where the worker sent a problem. */
export const errorText = (error) => (error?.problem ? messageText(error.problem) : (error?.message ?? String(error)));

/** Why the settings were refused: the field, its value and its range where the module names them. */
function settingText(error) {
  const problem = error?.problem;
  return problem?.key === 'error.configRange' ? t('playground.link.range', problem.params) : errorText(error);
}

/** A divergence's loss as the learner reads it (the module writes NaN, inf or -inf). */
const lossWord = (loss) => ({ inf: '∞', '-inf': '−∞' })[loss] ?? loss;

/** `playground-<task>-seed<N>`: the downloaded folder's and the exported curves' name. */
export const baseName = (config) => (config ? `playground-${config.task}-seed${config.seed}` : 'playground');

/** The state of a fresh session. */
export function freshRun() {
  return {
    facts: null,
    config: null, // the current run's settings (checked)
    info: null, // the worker's start answer
    state: 'idle', // the worker's: idle | training | paused | done | diverged; 'lost' when it died
    steps: 0,
    loss: null, // the last finite training loss
    evaluation: null, // the last evaluation
    stepsPerSecond: null,
    pending: null, // { label, config } of a run asked for, until the worker says it started
    preset: 0, // the token of the experiment under way (0: none); a new run cancels it
    message: null, // { kind, text() }
    outcome: null, // { title(), paragraphs() }
  };
}

/** Say `text()` (a function: it is said again in another language) in the panel; null: nothing. */
export function say(pg, kind, text) {
  pg.run.message = text ? { kind, text } : null;
  showMessageLine(pg.view, pg.run.message);
}

/** A notice from the training worker (www/trainer/run.js). */
export function handleNotice(pg, notice) {
  const { run, chart } = pg;
  if (notice.type === 'state') {
    if (run.pending && notice.state === 'idle' && notice.steps === 0) beginRun(pg);
    run.state = notice.state;
    run.steps = notice.steps;
    if (notice.state === 'diverged' && notice.problem) diverged(pg, notice.problem);
  } else if (run.pending) {
    return; // what the run before said as it stopped
  } else if (notice.type === 'reports') {
    for (const report of notice.reports) if (Number.isFinite(report.loss)) run.loss = report.loss;
    run.steps = notice.reports.at(-1)?.step ?? run.steps;
    run.stepsPerSecond = notice.stepsPerSecond ?? run.stepsPerSecond;
    chart.addReports(notice.reports);
  } else if (notice.type === 'evaluation') {
    run.evaluation = notice.evaluation;
    chart.addEvaluation(notice.evaluation);
  } else if (notice.type === 'snapshot') {
    pg.hooks.onSnapshot(notice, { loss: run.loss, exactMatch: run.evaluation?.exactMatch ?? null });
  }
  pg.renderSoon();
}

/** The run asked for has started in the worker: the chart and the figures are its now. */
function beginRun(pg) {
  const { label, config } = pg.run.pending;
  pg.run.pending = null;
  Object.assign(pg.run, { config, steps: 0, loss: null, evaluation: null, stepsPerSecond: null });
  pg.chart.beginRun(label, config);
}

function diverged(pg, problem) {
  const params = { ...problem.params, loss: lossWord(problem.params.loss) };
  pg.chart.markDiverged(params);
  say(pg, 'error', () => t(problem.key, params));
}

/** Draw the buttons' states, the figures and the samples from the run. */
export function render(pg) {
  const { run, view } = pg;
  const lost = run.state === 'lost';
  const total = run.config?.steps ?? 0;
  const canTrain = !lost && !run.pending && !run.preset && ['idle', 'paused'].includes(run.state) && run.steps < total;
  view.buttons.train.disabled = !canTrain;
  view.buttons.step.disabled = !canTrain;
  view.buttons.pause.disabled = run.state !== 'training';
  view.buttons.reset.disabled = lost || !run.config;
  view.buttons.download.disabled = lost || !run.info;
  for (const button of pg.presets) button.disabled = lost || Boolean(run.preset);
  view.root.dataset.state = run.state;
  view.root.dataset.steps = String(run.steps);
  showFigures(view, { steps: run.steps, total, loss: run.loss, evaluation: run.evaluation, stepsPerSecond: run.stepsPerSecond });
  showSamples(view, run.evaluation);
}

/** Start a fresh run of `config` (checked); the chart keeps the runs before it when `keep`. */
export async function startRun(pg, config, { label = '', keep = false } = {}) {
  const { run, view } = pg;
  if (!keep) {
    pg.chart.clear();
    run.outcome = null;
    showOutcome(view, null);
    say(pg, null, null);
  }
  run.pending = { label, config };
  pg.switches.show(config);
  pg.renderSoon();
  try {
    run.info = await pg.client.start(config);
  } catch (error) {
    run.pending = null;
    say(pg, 'error', () => errorText(error));
    pg.renderSoon();
    return false;
  }
  if (run.pending) beginRun(pg); // the worker's notices come before its answer; in case they did not
  showExamples(view, run.info);
  writeLink(config, run.facts.defaults);
  pg.hooks.onRunStart(run.info);
  pg.renderSoon();
  return true;
}

/** Whether the learner agrees to throw the run away (asked only when it has steps). */
const mayDiscard = (pg) => (pg.run.steps > 0 ? askToDiscard(pg.view, pg.run.steps) : Promise.resolve(true));

/** A switch changed: check the settings, ask before the run's steps are lost, start a new run. */
export async function switchChanged(pg, field) {
  const { run, switches } = pg;
  const values = switches.values();
  if (field === 'task') {
    values.steps = run.facts.tasks.find((task) => task.name === values.task)?.steps ?? values.steps;
    switches.show({ steps: values.steps });
  }
  const unreadable = Object.entries(values).find(([name, value]) => typeof value !== typeof run.facts.defaults[name]);
  let config;
  try {
    if (unreadable) throw new Error(t('playground.link.badValue', { field: unreadable[0], value: unreadable[1] }));
    config = await pg.client.check(values);
  } catch (error) {
    say(pg, 'error', () => settingText(error));
    switches.show(run.config);
    return;
  }
  if (!(await mayDiscard(pg))) {
    switches.show(run.config);
    return;
  }
  run.preset = 0;
  await startRun(pg, config);
}

/** Train one arm of an experiment: its state when training stopped ('done', …), or the error. */
async function trainArm(pg, experiment, arm, seed) {
  const config = { ...arm.config, seed: Number.isInteger(seed) ? seed : arm.config.seed };
  if (!(await startRun(pg, config, { label: () => armLabel(experiment, arm), keep: true }))) return 'failed';
  // The entropy at the start is what C is about: evaluate before the first step.
  if (evaluatesFirst(experiment.id)) await pg.client.evaluate().catch(() => {});
  return pg.client.train().catch((error) => error);
}

/** Train arm 1 then arm 2 of `experiment` with the seed shown, and say what they measured. */
export async function runExperiment(pg, experiment) {
  const { run, view, chart } = pg;
  if (!(await mayDiscard(pg))) return;
  const token = performance.now() + 1;
  run.preset = token;
  chart.clear();
  run.outcome = null;
  showOutcome(view, null);
  const seed = pg.switches.values().seed;
  say(pg, 'info', () => t('playground.experimentRunning', { id: experiment.id }));
  for (const arm of experiment.arms) {
    const ended = await trainArm(pg, experiment, arm, seed);
    if (run.preset !== token) return; // another run took over
    if (ended !== 'done') {
      run.preset = 0;
      if (ended instanceof Error) say(pg, 'error', () => errorText(ended));
      else if (ended !== 'diverged' && ended !== 'failed') say(pg, 'info', () => t('playground.experimentStopped', { id: experiment.id }));
      pg.renderSoon();
      return;
    }
  }
  run.preset = 0;
  say(pg, null, null);
  const runs = chart.runs.slice(-2);
  run.outcome = { title: () => t('playground.outcomeTitle', { id: experiment.id }), paragraphs: () => outcome(experiment.id, runs) };
  showOutcome(view, run.outcome);
  pg.renderSoon();
}

/** Save the current weights as `playground-<task>-seed<N>.zip`: a folder of the model's four files. */
export async function download(pg) {
  const { run } = pg;
  const names = run.facts.fileNames;
  try {
    if (!names) throw new Error(t('playground.noFileNames'));
    const folder = await pg.client.folder();
    const base = baseName(run.config);
    const files = Object.entries(names).map(([key, name]) => ({ name: `${base}/${name}`, bytes: folder[key] }));
    save(zipBlob(files), `${base}.zip`);
  } catch (error) {
    say(pg, 'error', () => errorText(error));
  }
}

// The playground panel: a tiny Transformer trained in the page, in its own worker
// (www/trainer/, through www/playground/client.js). The learner sets the switches, trains, pauses
// or steps, and watches the loss, the held-out greedy exact match and the samples; an
// experiment (A–D) trains its two runs with the same seed and says what they measured. The run's
// settings travel in the link (link.js); the trained model downloads as a model folder (zip.js).
// This file builds the panel and wires it; session.js does what the buttons and notices ask.
//
// Loaded when the playground opens (www/app/main.js imports it then). The page's main views
// follow the run through the hooks: onRunStart(info) for each new run, onSnapshot(notice, latest)
// for each snapshot the worker posts (latest: { loss, exactMatch }), onNotice(notice) for every
// notice.
import { language, onLanguageChange, t } from '../ui/i18n.js';
import { createChart } from './chart.js';
import { createTrainingClient } from './client.js';
import { linkSpec, settleLink, writeLink } from './link.js';
import { createPresets } from './presets.js';
import { baseName, download, errorText, freshRun, handleNotice, render, runExperiment, say, startRun, switchChanged } from './session.js';
import { createSwitches } from './switches.js';
import { buildView, showExamples, showMessageLine, showOutcome } from './view.js';

/** `items` as one list in the language in use ('a, b and c'). */
const listOf = (items) => new Intl.ListFormat(language(), { type: 'conjunction' }).format(items);

/** One refused link setting, in words. */
function refusedText({ field, value, problem }) {
  if (problem?.key === 'error.configRange') return t('playground.link.range', problem.params);
  if (field == null) return t('playground.link.unreadable', { message: problem?.params?.message ?? value });
  if (problem?.key === 'error.configParse') return t('link.unknownField', { field });
  return t('playground.link.badValue', { field, value });
}

/** The settings the page's link asks for: { config, refused } (link.js settleLink). */
function linkedConfig(pg) {
  const { defaults } = pg.run.facts;
  const spec = linkSpec(location.hash);
  if (spec == null) return { config: defaults, refused: [] };
  return settleLink(spec, defaults, pg.client.check);
}

/** The run's buttons and the language switch, wired. */
function wire(pg) {
  const { view, client } = pg;
  const act = (promise) => promise.catch((error) => say(pg, 'error', () => errorText(error)));
  view.buttons.train.addEventListener('click', () => act(client.train()));
  view.buttons.pause.addEventListener('click', () => act(client.pause()));
  view.buttons.step.addEventListener('click', () => act(client.step(1)));
  view.buttons.reset.addEventListener('click', () => {
    pg.run.preset = 0;
    startRun(pg, pg.run.config);
  });
  view.buttons.download.addEventListener('click', () => download(pg));
  onLanguageChange(() => {
    showMessageLine(view, pg.run.message);
    showOutcome(view, pg.run.outcome);
    showExamples(view, pg.run.info);
    pg.chart.redraw();
    pg.renderSoon();
  });
}

/**
 * Build the playground into `root` and start its training worker; resolves once the first run
 * (the link's settings, or the defaults) is ready. Returns { runExperiment(id), close() }.
 */
export async function createPlayground(root, { onRunStart = () => {}, onSnapshot = () => {}, onNotice = () => {} } = {}) {
  const view = buildView(root);
  const scheduled = { frame: 0 };
  const pg = {
    view,
    run: freshRun(),
    presets: [],
    switches: null,
    hooks: { onRunStart, onSnapshot },
    /** Draw the figures at the next animation frame (once, however many notices came). */
    renderSoon() {
      scheduled.frame ||= requestAnimationFrame(() => {
        scheduled.frame = 0;
        render(pg);
      });
    },
  };
  pg.client = createTrainingClient({
    onNotice(notice) {
      handleNotice(pg, notice);
      onNotice(notice);
    },
    onLost(reason) {
      say(pg, 'error', () => t('playground.lost', { error: reason }));
      pg.run.state = 'lost';
      pg.renderSoon();
    },
  });
  pg.chart = createChart(view.chart, { names: () => baseName(pg.run.config) });
  wire(pg);

  pg.run.facts = await pg.client.facts();
  pg.switches = createSwitches(view.switches, pg.run.facts, { onChange: (field) => switchChanged(pg, field) });
  pg.presets = createPresets(view.presets, pg.run.facts.experiments, { onPick: (experiment) => runExperiment(pg, experiment) });
  const linked = await linkedConfig(pg);
  await startRun(pg, linked.config);
  if (linked.refused.length) say(pg, 'error', () => t('playground.link.refused', { list: listOf(linked.refused.map(refusedText)) }));
  root.dataset.ready = 'true';

  return {
    /** Run experiment `id` ('A'…'D'), as its button does (the lesson links to them). */
    runExperiment(id) {
      const experiment = pg.run.facts.experiments.find((e) => e.id === id);
      return experiment ? runExperiment(pg, experiment) : Promise.resolve();
    },
    close() {
      cancelAnimationFrame(scheduled.frame);
      pg.client.close();
      writeLink(null, pg.run.facts.defaults);
    },
  };
}

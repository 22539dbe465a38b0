// The page: makes the worker client and the views, wires the controls to the actions, and starts.
// The model lives in a Web Worker (www/worker/); this thread only renders. The page's modules
// depend one way (STYLE.md §16; scripts/check-imports.mjs keeps it so):
//   store.js (state) ← actions (actions.js, heads.js, models.js, saved.js, links.js, …: change the
//   state, ask the worker) → render.js (draws from the state) → views.js (the registry) → www/views/
// What happened travels on the bus (www/ui/bus.js): the link, the Heads panel, the
// target-language menu and the tests listen there. This file alone knows every module.

import { modelList } from '../boot.js';
import { createLesson } from '../lesson/controller.js';
import { linkOpensPlayground } from '../playground/link.js';
import { announce } from '../ui/bus.js';
import { $, option } from '../ui/dom.js';
import { onLanguageChange, setLanguage, t } from '../ui/i18n.js';
import { parseHead } from '../views/attention.js';
import { decoderStep, force, onInput, play, select, showAnswer, showBeamControls, showBeamNode, step, translate } from './actions.js';
import { createClient } from './client.js';
import { BEAM, beamOptions, decoding, fillFactMenus, samplingArgs } from './controls.js';
import { measureImportance, switchAllOn, toggleHead } from './heads.js';
import { applyLink, copyLink } from './links.js';
import { handleError, showBackend, showMessage, showProgress } from './messages.js';
import { loadFailed, modelOption, modelTitle, openLocalModel, pickSnapshot, showModelDescription, switchModel, timed } from './models.js';
import { createOpenModel } from './open-model.js';
import { followTraining } from './playground-model.js';
import { recover } from './recovery.js';
import { refreshAll, renderAll, renderStepButtons } from './render.js';
import { addExportButtons, labelExportButtons, leaveSavedTrace, openSavedTrace, saveTrace, showSavedMode } from './saved.js';
import { call, parts, state } from './store.js';
import { takeSummaries } from './summaries.js';
import { wireLanguages } from './target-language.js';
import { createViews } from './views.js';

/** A view's own setting changed: the link says so (app/links.js listens). */
const viewChanged = () => announce('view-changed');

/** What the views do when the person acts in them (app/views.js hands each view its part). */
const ACT = {
  call,
  select,
  force,
  toggleHead,
  measureImportance,
  switchAllOn,
  pickSnapshot,
  showBeamNode,
  viewChanged,
  shownGeneration: () => state.shownGeneration,
  /** A recorded sentence of the timeline, clicked: it goes in the sentence box and is translated. */
  translateSentence(text) {
    $('source-input').value = text;
    translate();
  },
};

/** The model, sampling and beam controls. */
function wireDecoding() {
  // A key typed while a saved trace is shown goes back to the live model first.
  $('source-input').addEventListener('input', () => (state.saved ? leaveSavedTrace() : onInput()));
  wireLanguages();
  $('model-select').addEventListener('change', (e) => switchModel(e.target.value));
  $('backend-select').addEventListener('change', async (e) => {
    const result = await call('setBackend', { backend: e.target.value, text: $('source-input').value }).catch(handleError);
    if (result) showAnswer(result, null);
  });
  const decodingChanged = async () => {
    showBeamControls(decoding() === BEAM);
    state.sentenceOpen = false;
    await call('sampling', samplingArgs()).catch(handleError);
    await translate();
  };
  // The lesson hears the decoding chosen once its answer is shown (www/ui/bus.js: decoding-mode).
  $('sampling-select').addEventListener('change', async () => {
    await decodingChanged();
    announce('decoding-mode', { mode: decoding() });
  });
  $('sample-seed').addEventListener('change', decodingChanged);
  for (const id of ['beam-width', 'beam-alpha']) {
    $(id).addEventListener('change', () => {
      state.sentenceOpen = false;
      translate();
    });
  }
  $('step-forward').addEventListener('click', () => step());
  $('step-back').addEventListener('click', () => decoderStep('back'));
  $('step-reset').addEventListener('click', () => decoderStep('reset'));
  $('step-end').addEventListener('click', () => decoderStep('runToEnd'));
  $('step-play').addEventListener('click', play);
  $('prefix-button').addEventListener('click', () => decoderStep('prefix', { text: $('prefix-input').value }));
}

/** What the person looks at: a token to explain, the kind, layer and head, the view toggles. */
function wireLooking() {
  const { attribution } = parts.views;
  // A produced token is explained in the attribution view: output token i came from decoder row i − 1.
  $('output-tokens').addEventListener('click', (e) => {
    const index = [...$('output-tokens').children].indexOf(e.target.closest('.token'));
    if (index > 0) attribution.pick(index - 1);
  });
  $('stepper').addEventListener('click', (e) => {
    const token = e.target.closest('.new-token');
    if (token) attribution.pick(Number(token.closest('.step-row').dataset.step));
  });
  $('kind-select').addEventListener('change', (e) => select({ kind: e.target.value }));
  $('layer-select').addEventListener('change', (e) => select({ layer: Number(e.target.value) }));
  $('head-select').addEventListener('change', (e) => select({ head: parseHead(e.target.value) }));
  for (const radio of document.querySelectorAll('input[name=headview-mode]')) {
    radio.addEventListener('change', () => {
      renderAll();
      viewChanged();
    });
  }
  $('hide-sinks').addEventListener('change', (e) => {
    state.hideSinks = e.target.checked;
    renderAll();
    viewChanged();
  });
}

/** Files in and out: exports, saved traces, models opened from the computer; the link and the language. */
function wireFiles() {
  addExportButtons();
  $('save-trace').addEventListener('click', saveTrace);
  $('open-trace').addEventListener('click', () => $('trace-file').click());
  $('trace-file').addEventListener('change', (e) => {
    const [file] = e.target.files;
    e.target.value = '';
    if (file) openSavedTrace(file);
  });
  $('leave-saved').addEventListener('click', leaveSavedTrace);
  createOpenModel({
    filesButton: $('open-model'),
    folderButton: $('open-model-folder'),
    filesInput: $('model-files'),
    folderInput: $('model-folder'),
    dropTarget: document,
    overlay: $('drop-overlay'),
    onOpen: openLocalModel,
    onError: (error) => showMessage(t('openModel.dropFailed', { error: error.message })),
  });
  $('copy-link').addEventListener('click', copyLink);
  $('language-select').addEventListener('change', (e) => setLanguage(e.target.value));
  onLanguageChange(relabel);
}

/**
 * The playground: its panel, its training worker and the training module load the first time it
 * opens, or at once when the link carries its settings. Every view of the page follows the model
 * it trains (app/playground-model.js).
 */
function wirePlayground() {
  const details = $('playground-details');
  details.addEventListener('toggle', () => details.open && openPlayground());
  if (linkOpensPlayground(location.hash)) details.open = true;
}

let playground = null; // the panel's promise, once opened

/** The playground, opened (and loaded, the first time): resolves to its panel, or null when it failed. */
function openPlayground() {
  $('playground-details').open = true;
  playground ??= import('../playground/panel.js')
    .then(({ createPlayground }) => createPlayground($('playground'), { onNotice: followTraining }))
    .catch((error) => {
      playground = null;
      showMessage(t('playground.loadFailed', { error: error.message }));
      return null;
    });
  return playground;
}

/** The decoding chosen, for the lesson's text on it: { mode, temperature, topK, seed, width, alpha }. */
function decodingNow() {
  const { temperature, topK, seed } = samplingArgs();
  const { width, lengthPenalty } = beamOptions();
  return { mode: decoding(), temperature, topK, seed, width, alpha: lengthPenalty };
}

/** The lesson's link to an experiment: the playground opens, in view, and trains its two runs. */
async function runExperiment(id) {
  const panel = await openPlayground();
  $('playground-panel').scrollIntoView({ block: 'start' });
  await panel?.runExperiment(id);
}

/** Everything with words, in the language just chosen (elements with data-i18n* are done already). */
function relabel(lang) {
  $('language-select').value = lang;
  labelExportButtons();
  renderStepButtons();
  showSavedMode();
  if (state.backendNews) showBackend(state.backendNews);
  for (const model of state.models) if (model.local) modelOption(model).textContent = modelTitle(model);
  showModelDescription();
  refreshAll();
  renderAll();
  viewChanged();
}

/** models/index.json, or null (and a message) when it cannot be read. */
async function modelIndex() {
  try {
    return await modelList(); // fetched by www/boot.js
  } catch (error) {
    showMessage(t('message.noModelList', { error: error.message }));
    return null;
  }
}

/**
 * The first worker loads the wasm module and tells the facts both threads share; it then loads
 * the first model. Resolves to it, or to the error that kept the module from loading.
 */
async function learnFacts(worker) {
  try {
    state.facts = await parts.client.call('facts', {}, worker);
  } catch (error) {
    parts.client.retire(worker);
    return { error };
  }
  state.selection = { ...state.facts.defaultFocus };
  fillFactMenus(state.facts);
  return { worker };
}

async function main() {
  parts.client = createClient({
    onProgress: showProgress,
    onBackend: showBackend,
    onRefresh: (result) => showAnswer(result, null),
    onAnalysis: takeSummaries,
    onDeath: recover,
  });
  parts.views = createViews(ACT);
  parts.lesson = createLesson({
    button: $('lesson-button'),
    page: { state, journey: parts.views.journey, select, switchModel, runExperiment, decoding: decodingNow, onChange: viewChanged },
  });
  // The worker and its wasm module start while the model list is fetched: neither needs the other.
  const first = parts.client.spawn();
  const facts = timed('boot: worker and CPU module', () => learnFacts(first));
  const index = await timed('boot: model list', modelIndex);
  if (!index) {
    facts.then(({ worker }) => worker && parts.client.retire(worker));
    return;
  }
  state.models = index.models;
  $('model-select').replaceChildren(...index.models.map((m) => option(m.name)));
  // ?model= and ?backend= (the tests' and the benchmark's) choose where a link does not.
  const params = new URLSearchParams(location.search);
  const wanted = params.get('model') || index.default;
  const model = index.models.find((m) => m.name === wanted) || index.models[0];
  // Its files are read while the worker's module still loads (the link may name another model:
  // then they are dropped).
  parts.client.tell('prefetch', { model }, first);
  wireDecoding();
  wireLooking();
  wireFiles();
  // The link's model loads first: a playground the same link opens shows its run's model after it.
  let linked = () => {};
  state.firstLink = new Promise((resolve) => {
    linked = resolve;
  });
  wirePlayground();
  const { worker, error } = await facts;
  if (!worker) {
    linked();
    $('loading').hidden = true;
    showMessage(loadFailed(model, error.message));
    return;
  }
  window.addEventListener('popstate', () => applyLink(location.hash));
  await applyLink(location.hash, { first: { model, backend: params.get('backend'), worker } }).finally(linked);
}

main();

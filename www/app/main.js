// The page: makes the worker client and the views, wires the controls to the app/ modules, and
// starts. The model lives in a Web Worker (www/worker/); this thread only renders. What the page
// holds is declared in app/store.js; what each control does lives in the module it names here.

import { modelList } from '../boot.js';
import { createLesson } from '../lesson/controller.js';
import { installHooks } from '../testing/hooks.js';
import { $, option } from '../ui/dom.js';
import { onLanguageChange, setLanguage, t } from '../ui/i18n.js';
import { parseHead } from '../views/attention.js';
import { onInput, play, run, samplingArgs, select, showAnswer, showBeamControls, step, translate } from './actions.js';
import { createClient } from './client.js';
import { applyLink, copyLink, updateLink } from './links.js';
import { handleError, showBackend, showMessage, showProgress } from './messages.js';
import { loadFailed, modelOption, modelTitle, openLocalModel, showModelDescription, switchModel, timed } from './models.js';
import { createOpenModel } from './open-model.js';
import { createPanels } from './panels.js';
import { recover } from './recovery.js';
import { renderAll, renderStepButtons } from './render.js';
import { addExportButtons, labelExportButtons, leaveSavedTrace, openSavedTrace, saveTrace, showSavedMode } from './saved.js';
import { call, parts, state } from './store.js';
import { wireLanguages } from './target-language.js';

/** The model, sampling and beam controls. */
function wireDecoding() {
  $('source-input').addEventListener('input', onInput);
  wireLanguages();
  $('model-select').addEventListener('change', (e) => switchModel(e.target.value));
  $('backend-select').addEventListener('change', async (e) => {
    const result = await call('setBackend', { backend: e.target.value, text: $('source-input').value }).catch(handleError);
    if (result) showAnswer(result, null);
  });
  const decodingChanged = async () => {
    showBeamControls($('sampling-select').value === 'beam');
    state.sentenceOpen = false;
    await call('sampling', samplingArgs()).catch(handleError);
    translate();
  };
  $('sampling-select').addEventListener('change', decodingChanged);
  $('sample-seed').addEventListener('change', decodingChanged);
  for (const id of ['beam-width', 'beam-alpha']) {
    $(id).addEventListener('change', () => {
      state.sentenceOpen = false;
      translate();
    });
  }
  $('step-forward').addEventListener('click', step);
  $('step-back').addEventListener('click', () => run('back'));
  $('step-reset').addEventListener('click', () => run('reset'));
  $('step-end').addEventListener('click', () => run('runToEnd'));
  $('step-play').addEventListener('click', play);
  $('prefix-button').addEventListener('click', () => run('prefix', { text: $('prefix-input').value }));
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
      updateLink('replace');
    });
  }
  $('hide-sinks').addEventListener('change', (e) => {
    state.hideSinks = e.target.checked;
    renderAll();
    updateLink('replace');
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

/** Everything with words, in the language just chosen (elements with data-i18n* are done already). */
function relabel(lang) {
  const { views } = parts;
  $('language-select').value = lang;
  labelExportButtons();
  renderStepButtons();
  showSavedMode();
  if (state.backendNews) showBackend(state.backendNews);
  for (const model of state.models) if (model.local) modelOption(model).textContent = modelTitle(model);
  showModelDescription();
  if (state.positional) views.positional.render(state.positional);
  if (state.batch) views.masks.renderBatch(state.batch);
  if (state.timeline) views.timeline.render(state.timeline, state.snapshot);
  if (state.beam) {
    views.beamTree.render(state.beam);
    views.beamTree.highlight(state.beamNode);
  }
  views.attribution.relabel();
  renderAll();
  updateLink('replace');
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
async function learnFacts() {
  const worker = parts.client.spawn();
  try {
    state.facts = await parts.client.call('facts', {}, worker);
  } catch (error) {
    parts.client.retire(worker);
    return { error };
  }
  state.selection = { ...state.facts.defaultFocus };
  $('beam-width').max = String(state.facts.maxBeamWidth);
  return { worker };
}

async function main() {
  parts.client = createClient({
    onProgress: showProgress,
    onBackend: showBackend,
    onRefresh: (result) => showAnswer(result, null),
    onDeath: recover,
  });
  parts.views = createPanels();
  parts.lesson = createLesson({
    button: $('lesson-button'),
    page: { state, journey: parts.views.journey, select, switchModel, onChange: () => updateLink('replace') },
  });
  installHooks({ state, call });
  // The worker and its wasm module start while the model list is fetched: neither needs the other.
  const facts = timed('boot: worker and CPU module', learnFacts);
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
  wireDecoding();
  wireLooking();
  wireFiles();
  const { worker, error } = await facts;
  if (!worker) {
    $('loading').hidden = true;
    showMessage(loadFailed(model, error.message));
    return;
  }
  window.addEventListener('popstate', () => applyLink(location.hash));
  await applyLink(location.hash, { first: { model, backend: params.get('backend'), worker } });
}

main();

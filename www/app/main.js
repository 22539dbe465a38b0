// The page: wires the input, the worker and the views. The model lives in the worker; this
// thread only renders. Typing is debounced and answers to outdated requests are dropped.
//
// Every answer from the worker is { trace, stages, backend }: the whole trace so far and the
// stages of the focused head (the selection, sent with every translation and on every change).
// A model with a training timeline also offers its snapshots: picking one swaps the worker's
// weights, and the answer redraws every view as any other does. A model opened from the person's
// computer (www/open-model.js) joins the model selector once it has loaded.
import { isSummaryHead, KINDS, parseHead } from '../views/attention.js';
import { createClient } from './client.js';
import { el, option } from '../ui/dom.js';
import { fileName, readTrace, saveJson, savePng, saveSvg } from '../ui/export.js';
import { installHooks, keystroke, modelLoaded, redrawn } from '../testing/hooks.js';
import { language, onLanguageChange, setLanguage, supportedLanguage, t } from '../ui/i18n.js';
import { createOpenModel } from './open-model.js';
import { nextTask, runSome } from '../ui/slices.js';
import { decodeState, encodeState, LOCAL_MODEL_PREFIX } from './links.js';
import { createAttribution } from '../views/attribution.js';
import { createBeamTree, pathIds } from '../views/beamtree.js';
import { createCompare } from '../views/compare.js';
import { createFocus } from '../views/focus.js';
import { createHeadView } from '../views/headview.js';
import { createMasks } from '../views/masks.js';
import { createModelView } from '../views/modelview.js';
import { createPositional } from '../views/positional.js';
import { createRollout } from '../views/rollout.js';
import { createStages } from '../views/stages.js';
import { createStepper } from '../views/stepper.js';
import { createTimeline } from '../views/timeline.js';
import { createTokens } from '../views/tokens.js';

const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 150;
const DEFAULT_SELECTION = { kind: 'cross', layer: 0, head: 0 };

const state = {
  models: [], // models/index.json's entries, then each model opened from the computer (www/open-model.js)
  model: null,
  config: null,
  trace: null,
  stages: null, // the focused head's stages, from the same answer as `trace`
  selection: { ...DEFAULT_SELECTION },
  generation: 0,
  shownGeneration: 0,
  playing: false,
  backend: 'cpu',
  timeline: null, // the model's training timeline (www/training.js), or null
  snapshot: 0, // the index of the timeline snapshot whose weights the worker uses
  hideSinks: false, // leave the <s>/</s> key columns out of the focused heatmap and the model view
  analysis: null, // the shown trace's head summaries and rollouts (www/wire.js analysis), or null
  beam: null, // the current sentence's beam search (www/wire.js beam) in beam mode, or null
  beamNode: null, // the beam node whose path the page shows
  saved: null, // { name, model, text } while the page shows a trace read from a file, else null
  liveConfig: null, // the loaded model's config, kept while a saved trace's stands in for it
};

const client = createClient({
  onProgress: showProgress,
  onBackend: showBackend,
  onRefresh: (result) => showAnswer(result, null),
  onFailure: showMessage,
});
const call = (type, args) => client.call(type, args);

// ---------------------------------------------------------------------------------------------
// Messages, progress, backend

function showMessage(text, kind = 'error') {
  const box = $('message');
  box.textContent = text;
  box.className = `message ${kind === 'info' ? 'info' : ''}`;
  box.hidden = !text;
}

function clearMessage() {
  showMessage('');
}

function clearMessageUnlessInfo() {
  if (!$('message').classList.contains('info')) clearMessage();
}

function showProgress({ label, loaded, total }) {
  if (state.config && /WebGPU/.test(label)) {
    // The page already works on the CPU: report the WebGPU module's download in the badge.
    $('backend-badge').textContent = t('backend.loadingWebgpu', { percent: total ? Math.round((100 * loaded) / total) : '…' });
    return;
  }
  $('loading').hidden = false;
  const fraction = total ? Math.min(1, loaded / total) : 0.5;
  $('progress-bar').style.width = `${Math.round(fraction * 100)}%`;
  const size = total ? t('loading.size', { loaded: (loaded / 1e6).toFixed(1), total: (total / 1e6).toFixed(1) }) : '';
  $('progress-text').textContent = t('loading.progress', { label, size });
}

let backendNews = null; // the latest, shown again in another language
function showBackend({ backend, note, warming }) {
  backendNews = { backend, warming };
  state.backend = backend;
  const badge = $('backend-badge');
  badge.textContent = t(backend === 'webgpu' ? 'backend.webgpu' : warming ? 'backend.warming' : 'backend.cpu');
  badge.className = `badge ${backend}`;
  badge.dataset.backend = backend;
  if (note) showMessage(note, 'info');
}

// ---------------------------------------------------------------------------------------------
// Views

const tokens = createTokens($('source-tokens'), $('output-tokens'));
const focus = createFocus($('focus-heatmap'), $('hover-value'), $('kind-explain'), { onTranspose: () => updateLink('replace') });
const modelView = createModelView($('model-view'), (selection) => select(selection));
const headView = createHeadView($('head-view'), () => document.querySelector('input[name=headview-mode]:checked')?.value || 'one');
const stepper = createStepper($('stepper'), (index, id) => force(index, id));
const stagesView = createStages($('stages'));
const masks = createMasks($('masks'));
const positional = createPositional($('positional'));
const timeline = createTimeline($('timeline'), { onPick: (index) => pickSnapshot(index) });
const compare = createCompare($('compare'), { call, onError: (error) => handleError(error) });

/** The config's ids of <s> and </s>: the key columns attention sinks are made of. */
const specialIds = () => ({ bosId: state.config.bosId, eosId: state.config.eosId });

const beamTree = createBeamTree($('beam-tree-view'), { onPick: (node) => showBeamNode(node) });
const rollout = createRollout($('rollout'));
// Occlusion reruns the model: skipped (null) when a newer sentence is already on its way.
const attribution = createAttribution($('attribution'), {
  fetch: (row) => call('attribution', { row, gen: state.shownGeneration }).then((result) => (result.stale ? null : result)),
});

/** Give `select` the options 0…count-1 and `extra` (unless it has them already), and pick `value`. */
function fillSelect(select, count, value, extra = []) {
  const values = [...Array.from({ length: count }, (_, i) => String(i)), ...extra];
  if ([...select.options].map((o) => o.value).join() !== values.join()) select.replaceChildren(...values.map((text) => option(text)));
  select.value = String(value);
}

/** `selection` with its layer and head within the loaded model. */
function clampSelection(selection) {
  const { config } = state;
  if (!config) return selection;
  const layers = selection.kind === 'encoderSelf' ? config.nEncoderLayers : config.nDecoderLayers;
  const head = isSummaryHead(selection.head) ? selection.head : Math.min(selection.head, config.nHeads - 1);
  return { ...selection, layer: Math.min(selection.layer, layers - 1), head };
}

function syncSelectors() {
  const { config, selection } = state;
  if (!config) return;
  $('kind-select').value = selection.kind;
  fillSelect($('layer-select'), selection.kind === 'encoderSelf' ? config.nEncoderLayers : config.nDecoderLayers, selection.layer);
  fillSelect($('head-select'), config.nHeads, selection.head, ['mean', 'max']);
}

// Each view's draw time shows in the browser's performance timeline (and the benchmarks). The
// timeline keeps user-timing entries until they are cleared, so a long session clears them.
// The page is laid out at the end of each drawing task, and that time counts as the view's: left
// to the next frame, the style and layout of every view drawn since the last one (or of a key
// event that forces them) would add up to one long task.
// Returns the milliseconds spent.
let measured = 0;
function timed(name, draw) {
  const t0 = performance.now();
  draw();
  layOutNow();
  const t1 = performance.now();
  performance.measure(`render: ${name}`, { start: t0, end: t1 });
  if (++measured % 1000 === 0) performance.clearMeasures();
  return t1 - t0;
}

/** Bring the page's style and layout up to date now, in this task (reading a size does it). */
function layOutNow() {
  void document.documentElement.offsetHeight;
}

let renderTicket = 0;

/**
 * Redraw every view. The focused heatmap, tokens and buttons are drawn at once; the other views
 * each in their own task, and a view whose drawing grows with the model or the sentence a few
 * slices a task (www/slices.js), so no single main-thread task grows with them. A newer call
 * abandons an unfinished one. `body[data-ready]` is "true" only once everything shows the current
 * answer. Resolves to the main-thread time spent drawing, or null when a newer redraw took over.
 */
async function renderAll() {
  try {
    return await drawAll();
  } catch (error) {
    // A drawing bug must not leave the page half-drawn and silent.
    showMessage(t('message.drawFailed', { error: error.message }));
    return null;
  }
}

async function drawAll() {
  const ticket = ++renderTicket;
  const { trace, stages, selection } = state;
  document.body.dataset.ready = 'false';
  // The mean and max over heads and the rollouts came in the same answer as the trace.
  const { analysis } = state;
  let table = null; // the focused heatmap's numbers as a table, filled in slices
  let busy = timed('tokens, focus, buttons', () => {
    tokens.render(trace);
    syncSelectors();
    if (trace) table = focus.render(trace, selection, { special: specialIds(), hideSinks: state.hideSinks, analysis });
    renderTruncation(trace);
    renderStepButtons();
  });
  if (trace) {
    const stagesNote = stagesMissing(selection);
    const views = [
      ['focus table', () => table],
      ...KINDS.map((kind) => [
        `model view: ${kind}`,
        () => modelView.renderKind(trace, selection, kind, state.hideSinks ? specialIds() : null, analysis),
      ]),
      ['head view', () => headView.render(trace, selection, analysis)],
      ['stepper', () => stepper.render(trace, selection, analysis)],
      ['stages', () => stagesView.render(stages, trace, stagesNote)],
      ['masks', () => masks.renderCausal(trace)],
      ['rollout', () => rollout.render(trace, analysis)],
    ];
    // Attribution and comparison ask the model again: a saved trace has none to ask.
    if (!state.saved) {
      views.push(
        ['attribution', () => attribution.render(trace)],
        [
          'comparison',
          () => compare.render(trace, selection, { text: $('source-input').value, model: state.model?.name, snapshot: state.snapshot }),
        ],
      );
    }
    for (const [name, draw] of views) {
      await nextTask();
      if (ticket !== renderTicket) return null;
      const spent = await drawView(ticket, name, draw);
      if (spent == null) return null;
      busy += spent;
    }
  }
  markSnapshot();
  document.body.dataset.ready = trace ? 'true' : 'false';
  document.body.dataset.output = trace ? trace.output : '';
  return busy;
}

/**
 * Draw one view: `draw()`, and when it returns slices (www/slices.js) a few of them a task until
 * they end. Resolves to the main-thread time spent, or null when a newer redraw took over.
 */
async function drawView(ticket, name, draw) {
  let slices = null;
  let done = false;
  let busy = timed(name, () => {
    slices = draw();
    done = !slices?.next || runSome(slices);
  });
  while (!done) {
    await nextTask();
    if (ticket !== renderTicket) return null;
    busy += timed(name, () => {
      done = runSome(slices);
    });
  }
  return busy;
}

/** Why the stages view shows no stages for `selection`, or '' when it shows them. */
function stagesMissing(selection) {
  if (isSummaryHead(selection.head)) return t('stages.summaryHasNone');
  const saved = state.saved?.stages;
  if (state.saved && !state.stages && saved)
    return t('saved.otherStages', { kind: t(`kind.${saved.kind}`), layer: saved.layer, head: saved.head });
  return '';
}

/** Resolves once every view shows the latest answer (at once when there is none to show). */
function whenDrawn() {
  return new Promise((resolve) => {
    const done = () => !state.trace || document.body.dataset.ready === 'true';
    if (done()) {
      resolve();
      return;
    }
    const observer = new MutationObserver(() => {
      if (!done()) return;
      observer.disconnect();
      resolve();
    });
    observer.observe(document.body, { attributes: true, attributeFilter: ['data-ready'] });
  });
}

/** `body[data-snapshot]`: the step of the snapshot whose weights made what the page shows. */
function markSnapshot() {
  if (state.timeline) document.body.dataset.snapshot = String(state.timeline.snapshots[state.snapshot].step);
  else delete document.body.dataset.snapshot;
}

function renderTruncation(trace) {
  const target = $('truncation');
  const cut = trace?.truncation;
  if (!cut) {
    target.hidden = true;
    target.replaceChildren();
    return;
  }
  const text = $('source-input').value;
  const chars = [...text];
  const kept = chars.slice(Math.max(0, cut.cutAtChar - 40), cut.cutAtChar).join('');
  const dropped = chars.slice(cut.cutAtChar, cut.cutAtChar + 40).join('');
  target.replaceChildren(
    el('span', {
      text: t('input.truncated', { total: cut.totalTokens, kept: cut.keptTokens, at: cut.cutAtChar, text: kept }),
    }),
    el('span', { className: 'mark', text: ' ✂ ' }),
    el('span', { className: 'cut', text: `${dropped}…` }),
  );
  target.hidden = false;
}

function renderStepButtons() {
  const trace = state.saved ? null : state.trace; // a saved trace cannot step
  const steps = trace ? trace.steps.length : 0;
  const finished = trace ? trace.finished : true;
  const focused = document.activeElement;
  $('step-back').disabled = !trace || steps === 0;
  $('step-reset').disabled = !trace || steps === 0;
  $('step-forward').disabled = !trace || finished;
  $('step-end').disabled = !trace || finished;
  $('step-play').disabled = !trace || finished;
  // A keyboard user whose button just went disabled stays among the stepper's buttons.
  if (focused?.disabled && focused.closest('.stepper-buttons')) {
    focused.closest('.stepper-buttons').querySelector('button:not(:disabled)')?.focus();
  }
  $('step-play').textContent = state.playing ? t('stepper.pause') : t('stepper.play');
  const shown = state.trace;
  const count = shown ? shown.steps.length : 0;
  const status = count === 1 ? t('stepper.statusOne') : t('stepper.statusMany', { count });
  $('step-status').textContent = shown ? `${status}${shown.finished ? t('stepper.finished') : ''}` : '';
}

/** Look at another kind, layer or head: the worker answers with that head's stages. */
async function select(change) {
  state.selection = clampSelection({ ...state.selection, ...change });
  updateLink('replace');
  if (!state.trace) {
    renderAll();
    return;
  }
  if (state.saved) {
    // No model to ask: the saved stages are of one head only.
    const { stages } = state.saved;
    const { kind, layer, head } = state.selection;
    state.stages = stages && stages.kind === kind && stages.layer === layer && stages.head === head ? stages : null;
    renderAll();
    return;
  }
  document.body.dataset.ready = 'false';
  try {
    showAnswer(await call('focus', state.selection), null);
  } catch (error) {
    handleError(error);
    renderAll();
  }
}

// ---------------------------------------------------------------------------------------------
// Actions

/** Show a worker answer, unless it is stale or older than the one shown. */
function showAnswer(result, generation) {
  if (!result || result.stale) return false;
  if (generation != null && generation < state.shownGeneration) return false;
  if (generation != null) state.shownGeneration = generation;
  state.trace = result.trace;
  state.stages = result.stages;
  state.analysis = result.analysis;
  renderAll().then((renderMs) => {
    if (renderMs != null) redrawn(generation, result.ms ?? null, renderMs);
  });
  return true;
}

async function run(type, args = {}) {
  try {
    const result = await call(type, args);
    clearMessageUnlessInfo();
    if (showAnswer(result, args.gen)) noteHistory(historyKind(type, args));
    return result;
  } catch (error) {
    handleError(error);
    return null;
  }
}

function handleError(error) {
  if (error.trap) {
    // The wasm instance hit a trap: start a fresh worker on the CPU and carry on.
    showMessage(t('message.crashed', { error: error.message }), 'info');
    $('backend-select').value = 'cpu';
    client.retire(client.inUse());
    boot('cpu', state.model);
    return;
  }
  showMessage(error.message);
}

let typingTimer = null;
let lastKeystroke = Number.NEGATIVE_INFINITY;
function onInput() {
  if (state.saved) {
    leaveSavedTrace();
    return;
  }
  // A pause of SENTENCE_PAUSE_MS ends a sentence: the next keystroke starts a new history entry.
  const now = performance.now();
  if (now - lastKeystroke > SENTENCE_PAUSE_MS) sentenceOpen = false;
  lastKeystroke = now;
  clearTimeout(typingTimer);
  const generation = ++state.generation;
  keystroke(generation);
  typingTimer = setTimeout(() => translate(generation), DEBOUNCE_MS);
}

async function translate(generation = ++state.generation) {
  const text = $('source-input').value;
  if (!text.trim()) {
    state.shownGeneration = generation;
    showMessage(t('message.empty'), 'info');
    return;
  }
  state.playing = false;
  if ($('sampling-select').value === 'beam') await beamTranslate(generation, text);
  else await run('translate', { gen: generation, text, focus: state.selection });
}

/** The beam controls' width (1–8) and length penalty α (≥ 0); their defaults for bad input. */
function beamOptions() {
  const width = Math.round(Number($('beam-width').value));
  const alpha = Number($('beam-alpha').value);
  return {
    width: Number.isFinite(width) ? Math.min(8, Math.max(1, width)) : 4,
    lengthPenalty: Number.isFinite(alpha) && alpha >= 0 ? alpha : 1,
  };
}

/**
 * Beam decoding: the sentence is translated (not shown), searched, its tree drawn, and its best
 * hypothesis shown in every view. Each request carries `gen`, so a newer keystroke makes the
 * worker skip the rest.
 */
async function beamTranslate(generation, text) {
  try {
    const greedy = await call('translate', { gen: generation, text, focus: state.selection });
    if (greedy.stale) return;
    const beam = await call('beam', { gen: generation, ...beamOptions() });
    if (beam.stale) return;
    state.beam = beam;
    beamTree.render(beam);
    clearMessageUnlessInfo();
    if (beam.finals.length) await showBeamNode(beam.finals[0].node, generation);
  } catch (error) {
    handleError(error);
  }
}

/** Replace the output with the path from <s> to beam node `node`; every view shows it. */
async function showBeamNode(node, generation = null) {
  if (!state.beam) return;
  state.beamNode = node;
  beamTree.highlight(node);
  state.playing = false;
  await run('forceIds', { gen: generation ?? undefined, ids: pathIds(state.beam, node), continue: false });
}

function showBeamControls(on) {
  $('beam-options').hidden = !on;
  $('beam-panel').hidden = !on;
  if (on) return;
  state.beam = null;
  state.beamNode = null;
  beamTree.clear();
}

async function step() {
  if (!state.trace || state.trace.finished) return;
  await run('step');
}

async function force(index, id) {
  state.playing = false;
  await run('force', { index, id, continue: true });
}

async function play() {
  state.playing = !state.playing;
  renderStepButtons();
  while (state.playing && state.trace && !state.trace.finished) {
    await step();
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  state.playing = false;
  renderStepButtons();
}

// Snapshot picks are coalesced: while one loads, only the latest wish waits (a dragged slider
// asks for many).
let wantedSnapshot = null;
let snapshotsLoading = null;

/** Use the weights of snapshot `index`; resolves once the page shows them (true) or not (false). */
function pickSnapshot(index) {
  wantedSnapshot = index;
  snapshotsLoading ??= loadWantedSnapshots().finally(() => {
    snapshotsLoading = null;
  });
  return snapshotsLoading.then(() => state.snapshot === index);
}

async function loadWantedSnapshots() {
  while (wantedSnapshot != null) {
    const next = wantedSnapshot;
    wantedSnapshot = null;
    if (state.timeline && next !== state.snapshot) await loadSnapshot(next);
  }
}

async function loadSnapshot(index) {
  const worker = client.inUse();
  const { step } = state.timeline.snapshots[index];
  try {
    const result = await call('snapshot', { step });
    if (client.inUse() !== worker) return; // another model was loaded meanwhile
    clearMessageUnlessInfo();
    state.snapshot = index;
    timeline.show(index);
    // In beam mode the search itself depends on the weights: search again with the new ones.
    if (result && $('sampling-select').value === 'beam') await translate();
    else if (result) showAnswer(result, null);
    else markSnapshot();
    await whenDrawn();
  } catch (error) {
    if (client.inUse() !== worker) return;
    // The worker keeps the weights it had: the slider goes back to them.
    timeline.show(state.snapshot);
    handleError(error);
  }
}

async function loadPaddingDemo() {
  const example = state.config?.example || 'Hello.';
  const short = state.model?.name === 'date-iso' ? '1 May 2000' : 'Hello!';
  try {
    state.batch = await call('batch', { texts: [example, short] });
    masks.renderBatch(state.batch);
  } catch (error) {
    showMessage(error.message);
  }
}

/**
 * Load `model` in a fresh worker. The worker in use keeps running until the new one has loaded,
 * so a model that fails to load costs nothing already on screen.
 */
let bootTicket = 0;
async function boot(backend = $('backend-select').value, model = state.model) {
  const ticket = ++bootTicket;
  const next = client.spawn();
  if (!client.inUse()) $('loading').hidden = false;
  try {
    const text = $('source-input').value;
    const info = await client.call('init', { model, backend, text }, next);
    if (ticket !== bootTicket) {
      // A newer model choice superseded this one while it loaded.
      client.retire(next);
      return false;
    }
    client.adopt(next);
    if (model.local && !state.models.includes(model)) {
      addLocalModel(model, info.config);
      if (model.example) $('source-input').value = model.example;
    }
    if (state.model && model !== state.model) state.selection = { ...DEFAULT_SELECTION };
    state.model = model;
    state.config = info.config;
    state.selection = clampSelection(state.selection);
    state.trace = null;
    state.stages = null;
    state.analysis = null;
    // A fresh worker holds the shipped weights: the final snapshot.
    state.timeline = info.timeline;
    state.snapshot = info.timeline ? info.timeline.snapshots.length - 1 : 0;
    wantedSnapshot = null;
    $('timeline-panel').hidden = !info.timeline;
    if (info.timeline) timeline.render(info.timeline, state.snapshot);
    else timeline.clear();
    delete document.body.dataset.snapshot; // until the first answer is drawn
    modelLoaded();
    $('model-select').value = model.name;
    document.body.dataset.model = model.name;
    showModelDescription();
    state.positional = info.positional;
    positional.render(info.positional);
    $('loading').hidden = true;
    clearMessage();
    if (info.timelineNote) showMessage(info.timelineNote, 'info');
    await call('sampling', samplingArgs());
    await translate();
    await loadPaddingDemo();
    return true;
  } catch (error) {
    client.retire(next);
    if (ticket !== bootTicket) return false;
    $('loading').hidden = true;
    if (state.model) $('model-select').value = state.model.name;
    showMessage(loadFailed(model, error.problem ? problemText(error.problem) : error.message));
    return false;
  }
}

/** What the page says when `model` did not load because of `error` (a text). */
function loadFailed(model, error) {
  if (!model?.local || model.name) return t('message.loadFailed', { model: model ? modelTitle(model) : '', error });
  return model.folder ? t('openModel.failedFolder', { folder: model.folder, error }) : t('openModel.failedFiles', { error });
}

/** A problem the worker reported as { key, params } in words of the page's language; a list as a list. */
function problemText({ key, params }) {
  const list = new Intl.ListFormat(language(), { type: 'conjunction' });
  return t(
    key,
    Object.fromEntries(Object.entries(params).map(([name, value]) => [name, Array.isArray(value) ? list.format(value) : value])),
  );
}

function showModelDescription() {
  const description = state.config?.description || '';
  $('model-description').textContent = state.model?.local
    ? [t('openModel.fromComputer'), description].filter(Boolean).join(' ')
    : description;
}

// ---------------------------------------------------------------------------------------------
// Models opened from the computer: each joins the selector once it has loaded, for as long as the
// page is open. The page keeps its File objects, not its bytes: switching back to it reads them
// again, in the new model's worker.

/** How the selector and the messages name `model`. */
function modelTitle(model) {
  return model.local ? t('openModel.option', { name: model.label }) : model.name;
}

/** Open a picked or dropped model; the model on screen stays, and works, until the new one has loaded. */
async function openLocalModel({ folder, entries }) {
  if (state.saved) leaveSavedTrace();
  sentenceOpen = false; // another model: a new entry in the history
  await boot(undefined, { local: true, name: null, label: null, folder, sources: entries });
}

const localNames = new Set(); // every name a local model had: none is given twice

/**
 * `model` has loaded: name it after its config (or its folder), and add it to the selector. Each
 * load gets a name of its own, since the comparison view and the links tell models apart by name;
 * a model opened again replaces its older copy there.
 */
function addLocalModel(model, config) {
  model.label = config.name || model.folder || t('openModel.unnamed');
  model.example = config.example;
  let name = `${LOCAL_MODEL_PREFIX}${model.label}`;
  for (let n = 2; localNames.has(name); n++) name = `${LOCAL_MODEL_PREFIX}${model.label}-${n}`;
  localNames.add(name);
  model.name = name;
  const older = state.models.findIndex((m) => m.local && m.label === model.label);
  if (older >= 0) {
    modelOption(state.models[older]).remove();
    state.models.splice(older, 1);
  }
  state.models.push(model);
  $('model-select').append(option(model.name, modelTitle(model)));
}

const modelOption = (model) => [...$('model-select').options].find((o) => o.value === model.name);

async function switchModel(name) {
  const model = state.models.find((m) => m.name === name);
  if (!model) return;
  const previousText = $('source-input').value;
  $('source-input').value = model.example || '';
  const ticket = bootTicket + 1;
  sentenceOpen = false; // another model: a new entry in the history
  if (!(await boot(undefined, model)) && ticket === bootTicket) $('source-input').value = previousText;
}

// ---------------------------------------------------------------------------------------------
// Links: the URL fragment holds the state (www/state.js). A committed sentence and each step
// are entries in the browser's history; looking at another head or flipping a toggle only
// rewrites the current entry.

const SENTENCE_PAUSE_MS = 1500;
let sentenceOpen = true; // the current sentence has its history entry (the first one: the page's own)
let restoring = false; // a link is being applied: the history is written once, at its end

/** The worker's sampling settings for the decoding controls. */
function samplingArgs() {
  const mode = $('sampling-select').value;
  $('seed-option').hidden = mode !== 'sample';
  const seed = Math.max(0, Math.round(Number($('sample-seed').value)) || 0);
  // A beam search is its own request; stepping on from one of its hypotheses is greedy.
  return { mode: mode === 'beam' ? 'greedy' : mode, temperature: 1, topK: 5, seed };
}

/** What the page shows, as www/state.js describes a link. */
function linkState() {
  const { trace, selection } = state;
  const decoding = $('sampling-select').value;
  const beam = decoding === 'beam';
  const { width, lengthPenalty } = beamOptions();
  const best = state.beam?.finals[0]?.node ?? null;
  return {
    model: state.model?.name ?? null,
    text: $('source-input').value,
    backend: $('backend-select').value,
    decoding,
    seed: samplingArgs().seed,
    beamWidth: width,
    beamAlpha: lengthPenalty,
    beamNode: beam && state.beamNode != null && state.beamNode !== best ? state.beamNode : null,
    // A beam hypothesis is forced token by token: the node says it all.
    forced: trace && !beam ? trace.steps.flatMap((step, i) => (step.forced ? [[i, step.id]] : [])) : [],
    steps: trace && !beam && !trace.finished ? trace.steps.length : null,
    kind: selection.kind,
    layer: selection.layer,
    head: selection.head,
    hideSinks: state.hideSinks,
    transposed: focus.transposed(),
    headView: document.querySelector('input[name=headview-mode]:checked')?.value ?? 'one',
    lang: language(),
  };
}

/** Write the state into the URL: a new history entry ('push') or the current one ('replace'). */
function updateLink(mode) {
  if (restoring || state.saved || !state.model) return;
  const hash = encodeState(linkState());
  if (hash === location.hash) return;
  const url = `${location.pathname}${location.search}${hash}`;
  if (mode === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

const STEP_OPERATIONS = new Set(['step', 'back', 'reset', 'runToEnd', 'force', 'prefix', 'forceIds']);

/** How an answer to `type` enters the history: part of a sentence, a step of its own, or neither. */
function historyKind(type, args) {
  if (type === 'translate' || (type === 'forceIds' && args.gen != null)) return 'sentence';
  return STEP_OPERATIONS.has(type) ? 'push' : 'replace';
}

function noteHistory(kind) {
  if (kind === 'sentence') {
    updateLink(sentenceOpen ? 'replace' : 'push');
    sentenceOpen = true;
    return;
  }
  updateLink(kind);
}

/**
 * Make the page show what `hash` describes: language, model, backend, decoding, sentence, forced
 * tokens, step, focused head and toggles. `first`: { model, backend } to use where the link names
 * none (the page's first load). Problems with the link are shown once it is applied.
 */
async function applyLink(hash, { first = null } = {}) {
  const { state: link, problems } = decodeState(
    hash,
    state.models.map((m) => m.name),
  );
  restoring = true;
  try {
    setLanguage(link.lang ?? (first ? (supportedLanguage(navigator.language) ?? 'en') : language()));
    const model = state.models.find((m) => m.name === link.model) ?? first?.model ?? state.model;
    const backend =
      link.backend ?? (['auto', 'cpu', 'webgpu'].includes(first?.backend) ? first.backend : first ? 'auto' : $('backend-select').value);
    $('model-select').value = model.name;
    $('source-input').value = link.text ?? model.example ?? '';
    $('sampling-select').value = link.decoding;
    $('sample-seed').value = String(link.seed);
    $('beam-width').value = String(link.beamWidth);
    $('beam-alpha').value = String(link.beamAlpha);
    showBeamControls(link.decoding === 'beam');
    state.hideSinks = link.hideSinks;
    $('hide-sinks').checked = link.hideSinks;
    focus.setTransposed(link.transposed);
    for (const radio of document.querySelectorAll('input[name=headview-mode]')) radio.checked = radio.value === link.headView;
    if (state.saved) leaveSavedTrace();
    if (first || model !== state.model) {
      $('backend-select').value = backend;
      if (!(await boot(backend, model))) return;
    } else {
      if (backend !== $('backend-select').value) {
        $('backend-select').value = backend;
        await call('setBackend', { backend, text: $('source-input').value }).catch(handleError);
      }
      await call('sampling', samplingArgs()).catch(handleError);
      await translate();
    }
    if (link.decoding === 'beam' && link.beamNode != null && state.beam?.nodes[link.beamNode]) await showBeamNode(link.beamNode);
    for (const [index, id] of link.forced) await run('force', { index, id, continue: true });
    while (link.steps != null && state.trace && state.trace.steps.length > link.steps) {
      if (!(await run('back'))) break;
    }
    await select({ kind: link.kind, layer: link.layer, head: link.head });
    await whenDrawn();
  } finally {
    restoring = false;
  }
  sentenceOpen = true;
  updateLink('replace');
  if (problems.length) showMessage(t('link.problems', { list: problems.map(describeProblem).join('; ') }), 'info');
}

function describeProblem({ field, value, unknown, local }) {
  if (field == null) return t('link.unreadable');
  if (local) return t('link.localModel', { name: value });
  return t(unknown ? 'link.unknownField' : 'link.badField', { field, value });
}

async function copyLink() {
  updateLink('replace');
  const button = $('copy-link');
  try {
    await navigator.clipboard.writeText(location.href);
    button.textContent = t('toolbar.copied');
    $('announcer').textContent = t('toolbar.copied');
    // The link holds the sentence and the settings, but a local model's files stay here.
    if (state.model?.local) showMessage(t('toolbar.copiedLocal', { name: modelTitle(state.model) }), 'info');
  } catch {
    // No clipboard here (an insecure origin, a refused permission): the address bar has the link.
    showMessage(t('toolbar.copyFailed', { link: location.href }), 'info');
  }
  setTimeout(() => {
    button.textContent = t('toolbar.copyLink');
  }, 2000);
}

/** Everything with words, in the language just chosen (elements with data-i18n* are done already). */
function relabel(lang) {
  $('language-select').value = lang;
  labelExportButtons();
  renderStepButtons();
  showSavedMode();
  if (backendNews) showBackend(backendNews);
  for (const model of state.models) if (model.local) modelOption(model).textContent = modelTitle(model);
  showModelDescription();
  if (state.positional) positional.render(state.positional);
  if (state.batch) masks.renderBatch(state.batch);
  if (state.timeline) timeline.render(state.timeline, state.snapshot);
  if (state.beam) {
    beamTree.render(state.beam);
    beamTree.highlight(state.beamNode);
  }
  attribution.relabel();
  renderAll();
  updateLink('replace');
}

// ---------------------------------------------------------------------------------------------
// Export and saved traces

/** Each exportable view (a section's data-export) → its vector figure as drawn, or null. */
const FIGURES = {
  heatmap: () => focus.figure(),
  'model-view': () => modelView.figure(),
  'head-view': () => headView.figure(),
  stepper: () => stepper.figure(),
  stages: () => stagesView.figure(),
  masks: () => masks.figure(),
  positional: () => positional.figure(),
  rollout: () => rollout.figure(),
  attribution: () => attribution.figure(),
  compare: () => compare.figure(),
  'beam-tree': () => beamTree.figure(),
  timeline: () => timeline.figure(),
};

/** What the page shows: its model's name and sentence (a saved trace's while one is shown). */
function shownSource() {
  if (state.saved) return { model: state.saved.model, text: state.saved.text };
  return { model: state.model?.label ?? state.model?.name, text: $('source-input').value };
}

async function exportView(view, format) {
  const figure = FIGURES[view]();
  if (!figure) {
    showMessage(t('export.nothing'), 'info');
    return;
  }
  const name = fileName({ ...shownSource(), view: view === 'heatmap' ? focus.viewName() : view }, format);
  try {
    if (format === 'svg') saveSvg(figure, name);
    else await savePng(figure, name);
  } catch (error) {
    showMessage(t('export.failed', { error: error.message }));
  }
}

/** PNG and SVG buttons beside the title of every section that names a view in data-export. */
function addExportButtons() {
  for (const section of document.querySelectorAll('section[data-export]')) {
    const view = section.dataset.export;
    const title = section.querySelector('h2');
    const buttons = ['png', 'svg'].map((format) => {
      const button = el('button', {
        className: 'export-button',
        text: format.toUpperCase(),
        attrs: { type: 'button' },
        data: { format, view },
      });
      button.addEventListener('click', () => exportView(view, format));
      return button;
    });
    const group = el('div', { className: 'export', attrs: { role: 'group' } }, ...buttons);
    const head = el('div', { className: 'panel-head' });
    title.before(head);
    head.append(title, group);
  }
  labelExportButtons();
}

/** The export buttons' names say which view they save, in the language in use. */
function labelExportButtons() {
  for (const section of document.querySelectorAll('section[data-export]')) {
    const view = section.querySelector('h2').textContent;
    for (const button of section.querySelectorAll('.export-button')) {
      const label = t(button.dataset.format === 'png' ? 'export.png' : 'export.svg', { view });
      button.setAttribute('aria-label', label);
      button.title = label;
    }
    section.querySelector('.export').setAttribute('aria-label', t('export.group', { view }));
  }
}

function saveTrace() {
  if (!state.trace) {
    showMessage(t('export.nothing'), 'info');
    return;
  }
  saveJson({ trace: state.trace, stages: state.stages, analysis: state.analysis }, fileName({ ...shownSource(), view: 'trace' }, 'json'));
}

/** The sentence a trace was made from, as near as its tokens tell (without the closing </s>). */
function sentenceOf(trace) {
  const words = trace.srcTokens.slice(0, -1);
  return words.every((w) => [...w].length === 1) ? words.join('') : words.join(' ');
}

/** Show a trace read from `file` in every view, without the model: the page says so. */
async function openSavedTrace(file) {
  let read;
  try {
    read = await readTrace(file);
  } catch (error) {
    showMessage(t('saved.unreadable', { name: file.name, error: error.message }));
    return;
  }
  clearTimeout(typingTimer);
  state.generation += 1;
  state.shownGeneration = state.generation;
  state.playing = false;
  if (!state.saved) state.liveConfig = state.config;
  const { answer, config } = read;
  state.saved = { name: file.name, model: answer.trace.model, text: sentenceOf(answer.trace), stages: answer.stages };
  state.config = config;
  state.trace = answer.trace;
  state.stages = answer.stages;
  state.analysis = answer.analysis;
  const { stages } = answer;
  state.selection = clampSelection(stages ? { kind: stages.kind, layer: stages.layer, head: stages.head } : state.selection);
  showBeamControls(false);
  showSavedMode();
  clearMessage();
  await renderAll();
}

/** Back to the model: the sentence in the input box is translated again. */
function leaveSavedTrace() {
  if (!state.saved) return;
  state.saved = null;
  state.config = state.liveConfig;
  state.selection = clampSelection(state.selection);
  showSavedMode();
  showBeamControls($('sampling-select').value === 'beam');
  translate();
}

function showSavedMode() {
  const saved = Boolean(state.saved);
  $('saved-banner').hidden = !saved;
  $('saved-name').textContent = saved ? t('saved.file', { name: state.saved.name, model: state.saved.model }) : '';
  document.body.dataset.saved = String(saved);
  for (const section of document.querySelectorAll('[data-live-only]')) {
    if (saved) {
      section.dataset.hiddenForSaved ??= String(section.hidden);
      section.hidden = true;
    } else if (section.dataset.hiddenForSaved) {
      section.hidden = section.dataset.hiddenForSaved === 'true';
      delete section.dataset.hiddenForSaved;
    }
  }
  const live = ['prefix-input', 'prefix-button', 'model-select', 'open-model', 'open-model-folder', 'backend-select', 'sampling-select'];
  for (const id of live) $(id).disabled = saved;
  renderStepButtons();
}

async function main() {
  installHooks({ state, call });
  let index;
  try {
    const response = await fetch('models/index.json', { cache: 'no-cache' });
    index = await response.json();
  } catch (error) {
    showMessage(t('message.noModelList', { error: error.message }));
    return;
  }
  state.models = index.models;
  $('model-select').replaceChildren(...index.models.map((m) => option(m.name)));
  // ?model= and ?backend= (the tests' and the benchmark's) choose where a link does not.
  const params = new URLSearchParams(location.search);
  const wanted = params.get('model') || index.default;
  const first = { model: index.models.find((m) => m.name === wanted) || index.models[0], backend: params.get('backend') };

  $('source-input').addEventListener('input', onInput);
  $('model-select').addEventListener('change', (e) => switchModel(e.target.value));
  $('backend-select').addEventListener('change', async (e) => {
    const result = await call('setBackend', { backend: e.target.value, text: $('source-input').value }).catch(handleError);
    if (result) showAnswer(result, null);
  });
  const decodingChanged = async () => {
    showBeamControls($('sampling-select').value === 'beam');
    sentenceOpen = false;
    await call('sampling', samplingArgs()).catch(handleError);
    translate();
  };
  $('sampling-select').addEventListener('change', decodingChanged);
  $('sample-seed').addEventListener('change', decodingChanged);
  for (const id of ['beam-width', 'beam-alpha']) {
    $(id).addEventListener('change', () => {
      sentenceOpen = false;
      translate();
    });
  }
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
  $('step-forward').addEventListener('click', step);
  $('step-back').addEventListener('click', () => run('back'));
  $('step-reset').addEventListener('click', () => run('reset'));
  $('step-end').addEventListener('click', () => run('runToEnd'));
  $('step-play').addEventListener('click', play);
  $('prefix-button').addEventListener('click', () => run('prefix', { text: $('prefix-input').value }));
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
  window.addEventListener('popstate', () => applyLink(location.hash));
  await applyLink(location.hash, { first });
}

main();

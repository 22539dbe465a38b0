// The page: wires the input, the worker and the views. The model lives in the worker; this
// thread only renders. Typing is debounced and answers to outdated requests are dropped.
//
// Every answer from the worker is { trace, stages, backend }: the whole trace so far and the
// stages of the focused head (the selection, sent with every translation and on every change).
// A model with a training timeline also offers its snapshots: picking one swaps the worker's
// weights, and the answer redraws every view as any other does.
import { isSummaryHead, KINDS, parseHead } from './attention.js';
import { createClient } from './client.js';
import { el, option } from './dom.js';
import { installHooks, keystroke, modelLoaded, redrawn } from './hooks.js';
import { createAttribution } from './views/attribution.js';
import { createBeamTree, pathIds } from './views/beamtree.js';
import { createCompare } from './views/compare.js';
import { createFocus } from './views/focus.js';
import { createHeadView } from './views/headview.js';
import { createMasks } from './views/masks.js';
import { createModelView } from './views/modelview.js';
import { createPositional } from './views/positional.js';
import { createRollout } from './views/rollout.js';
import { createStages } from './views/stages.js';
import { createStepper } from './views/stepper.js';
import { createTimeline } from './views/timeline.js';
import { createTokens } from './views/tokens.js';

const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 150;
const DEFAULT_SELECTION = { kind: 'cross', layer: 0, head: 0 };

const state = {
  models: [],
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
    $('backend-badge').textContent = `running on CPU (loading the WebGPU module: ${total ? Math.round((100 * loaded) / total) : '…'}%)`;
    return;
  }
  $('loading').hidden = false;
  const fraction = total ? Math.min(1, loaded / total) : 0.5;
  $('progress-bar').style.width = `${Math.round(fraction * 100)}%`;
  $('progress-text').textContent = `Loading ${label}… ${total ? `${(loaded / 1e6).toFixed(1)} / ${(total / 1e6).toFixed(1)} MB` : ''}`;
}

function showBackend({ backend, note, warming }) {
  state.backend = backend;
  const badge = $('backend-badge');
  badge.textContent = backend === 'webgpu' ? 'running on WebGPU' : warming ? 'running on CPU (WebGPU warming up…)' : 'running on CPU';
  badge.className = `badge ${backend}`;
  badge.dataset.backend = backend;
  if (note) showMessage(note, 'info');
}

// ---------------------------------------------------------------------------------------------
// Views

const tokens = createTokens($('source-tokens'), $('output-tokens'));
const focus = createFocus($('focus-heatmap'), $('hover-value'), $('kind-explain'));
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

function fillSelect(select, count, value, extra = []) {
  select.replaceChildren(...[...Array.from({ length: count }, (_, i) => String(i)), ...extra].map((text) => option(text)));
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
// Returns the milliseconds spent.
let measured = 0;
function timed(name, draw) {
  const t0 = performance.now();
  draw();
  const t1 = performance.now();
  performance.measure(`render: ${name}`, { start: t0, end: t1 });
  if (++measured % 1000 === 0) performance.clearMeasures();
  return t1 - t0;
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
let renderTicket = 0;

/**
 * Redraw every view. The focused heatmap, tokens and buttons are drawn at once; the other views
 * each in their own task, so no single main-thread task grows with the sentence. A newer call
 * abandons an unfinished one. `body[data-ready]` is "true" only once everything shows the current
 * answer. Resolves to the main-thread time spent drawing, or null when a newer redraw took over.
 */
async function renderAll() {
  try {
    return await drawAll();
  } catch (error) {
    // A drawing bug must not leave the page half-drawn and silent.
    showMessage(`Could not draw the views: ${error.message}`);
    return null;
  }
}

async function drawAll() {
  const ticket = ++renderTicket;
  const { trace, stages, selection } = state;
  document.body.dataset.ready = 'false';
  // The mean and max over heads and the rollouts came in the same answer as the trace.
  const { analysis } = state;
  let busy = timed('tokens, focus, buttons', () => {
    tokens.render(trace);
    syncSelectors();
    if (trace) focus.render(trace, selection, { special: specialIds(), hideSinks: state.hideSinks, analysis });
    renderTruncation(trace);
    renderStepButtons();
  });
  if (trace) {
    const stagesNote = isSummaryHead(selection.head) ? SUMMARY_HAS_NO_STAGES : '';
    const views = [
      ...KINDS.map((kind) => [
        `model view: ${kind}`,
        () => modelView.renderKind(trace, selection, kind, state.hideSinks ? specialIds() : null, analysis),
      ]),
      ['head view', () => headView.render(trace, selection, analysis)],
      ['stepper', () => stepper.render(trace, selection, analysis)],
      ['stages', () => stagesView.render(stages, trace, stagesNote)],
      ['masks', () => masks.renderCausal(trace)],
      ['rollout', () => rollout.render(trace, analysis)],
      ['attribution', () => attribution.render(trace)],
      [
        'comparison',
        () => compare.render(trace, selection, { text: $('source-input').value, model: state.model?.name, snapshot: state.snapshot }),
      ],
    ];
    for (const [name, draw] of views) {
      await nextTask();
      if (ticket !== renderTicket) return null;
      busy += timed(name, draw);
    }
  }
  markSnapshot();
  document.body.dataset.ready = trace ? 'true' : 'false';
  document.body.dataset.output = trace ? trace.output : '';
  return busy;
}

const SUMMARY_HAS_NO_STAGES =
  'The mean and the max over heads summarise the heads; they have no QKᵀ of their own. Pick a head number to see its stages.';

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
      text: `The input is ${cut.totalTokens} tokens; this model reads at most ${cut.keptTokens} (+ </s>), so it was cut at character ${cut.cutAtChar}: …${kept}`,
    }),
    el('span', { className: 'mark', text: ' ✂ ' }),
    el('span', { className: 'cut', text: `${dropped}…` }),
  );
  target.hidden = false;
}

function renderStepButtons() {
  const trace = state.trace;
  const steps = trace ? trace.steps.length : 0;
  const finished = trace ? trace.finished : true;
  $('step-back').disabled = !trace || steps === 0;
  $('step-reset').disabled = !trace || steps === 0;
  $('step-forward').disabled = !trace || finished;
  $('step-end').disabled = !trace || finished;
  $('step-play').disabled = !trace || finished;
  $('step-play').textContent = state.playing ? '‖ Pause' : '▶▶ Play';
  $('step-status').textContent = trace ? `${steps} token${steps === 1 ? '' : 's'} decoded${finished ? ' — finished' : ''}` : '';
}

/** Look at another kind, layer or head: the worker answers with that head's stages. */
async function select(change) {
  state.selection = clampSelection({ ...state.selection, ...change });
  if (!state.trace) {
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
    showAnswer(result, args.gen);
    return result;
  } catch (error) {
    handleError(error);
    return null;
  }
}

function handleError(error) {
  if (error.trap) {
    // The wasm instance hit a trap: start a fresh worker on the CPU and carry on.
    showMessage(`The model crashed (${error.message}); restarting on the CPU backend.`, 'info');
    $('backend-select').value = 'cpu';
    client.retire(client.inUse());
    boot('cpu', state.model);
    return;
  }
  showMessage(error.message);
}

let typingTimer = null;
function onInput() {
  clearTimeout(typingTimer);
  const generation = ++state.generation;
  keystroke(generation);
  typingTimer = setTimeout(() => translate(generation), DEBOUNCE_MS);
}

async function translate(generation = ++state.generation) {
  const text = $('source-input').value;
  if (!text.trim()) {
    state.shownGeneration = generation;
    showMessage('Type a sentence to translate: the input is empty.', 'info');
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
  beamTree.highlight(node);
  state.playing = false;
  await run('forceIds', { gen: generation ?? undefined, ids: pathIds(state.beam, node), continue: false });
}

function showBeamControls(on) {
  $('beam-options').hidden = !on;
  $('beam-panel').hidden = !on;
  if (on) return;
  state.beam = null;
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
    masks.renderBatch(await call('batch', { texts: [example, short] }));
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
    if (model !== state.model) state.selection = { ...DEFAULT_SELECTION };
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
    $('model-description').textContent = info.config.description || '';
    positional.render(info.positional);
    $('loading').hidden = true;
    clearMessage();
    if (info.timelineNote) showMessage(info.timelineNote, 'info');
    await translate();
    await loadPaddingDemo();
    return true;
  } catch (error) {
    client.retire(next);
    if (ticket !== bootTicket) return false;
    $('loading').hidden = true;
    if (state.model) $('model-select').value = state.model.name;
    showMessage(`Could not load the model “${model?.name}”: ${error.message}`);
    return false;
  }
}

async function switchModel(name) {
  const model = state.models.find((m) => m.name === name);
  if (!model) return;
  const previousText = $('source-input').value;
  $('source-input').value = model.example || '';
  const ticket = bootTicket + 1;
  if (!(await boot(undefined, model)) && ticket === bootTicket) $('source-input').value = previousText;
}

async function main() {
  installHooks({ state, call });
  let index;
  try {
    const response = await fetch('models/index.json', { cache: 'no-cache' });
    index = await response.json();
  } catch (error) {
    showMessage(`Cannot read the model list: ${error.message}`);
    return;
  }
  state.models = index.models;
  $('model-select').replaceChildren(...index.models.map((m) => option(m.name)));
  const params = new URLSearchParams(location.search);
  const wanted = params.get('model') || index.default;
  const first = index.models.find((m) => m.name === wanted) || index.models[0];
  $('model-select').value = first.name;
  const backend = params.get('backend');
  if (['auto', 'cpu', 'webgpu'].includes(backend)) $('backend-select').value = backend;
  $('source-input').value = first.example || '';

  $('source-input').addEventListener('input', onInput);
  $('model-select').addEventListener('change', (e) => switchModel(e.target.value));
  $('backend-select').addEventListener('change', async (e) => {
    const result = await call('setBackend', { backend: e.target.value, text: $('source-input').value }).catch(handleError);
    if (result) showAnswer(result, null);
  });
  $('sampling-select').addEventListener('change', async (e) => {
    const beam = e.target.value === 'beam';
    showBeamControls(beam);
    // A beam search is its own request; stepping on from one of its hypotheses is greedy.
    await call('sampling', { mode: beam ? 'greedy' : e.target.value, temperature: 1, topK: 5, seed: 1 }).catch(handleError);
    translate();
  });
  for (const id of ['beam-width', 'beam-alpha']) $(id).addEventListener('change', () => translate());
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
  for (const radio of document.querySelectorAll('input[name=headview-mode]')) radio.addEventListener('change', () => renderAll());
  $('hide-sinks').addEventListener('change', (e) => {
    state.hideSinks = e.target.checked;
    renderAll();
  });
  $('step-forward').addEventListener('click', step);
  $('step-back').addEventListener('click', () => run('back'));
  $('step-reset').addEventListener('click', () => run('reset'));
  $('step-end').addEventListener('click', () => run('runToEnd'));
  $('step-play').addEventListener('click', play);
  $('prefix-button').addEventListener('click', () => run('prefix', { text: $('prefix-input').value }));
  await boot(undefined, first);
}

main();

// The page: wires the input, the worker and the views. The model lives in the worker; this
// thread only renders. Typing is debounced and answers to outdated requests are dropped.
import { createTokens } from './views/tokens.js';
import { createFocus } from './views/focus.js';
import { createModelView } from './views/modelview.js';
import { createHeadView } from './views/headview.js';
import { createStepper } from './views/stepper.js';
import { createPipeline } from './views/pipeline.js';
import { createMasks } from './views/masks.js';
import { createPositional } from './views/positional.js';
import { KINDS, stackFor } from './attention.js';

const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 150;

const state = {
  models: [],
  model: null,
  config: null,
  trace: null,
  selection: { kind: 'cross', layer: 0, head: 0 },
  generation: 0,
  shownGeneration: 0,
  playing: false,
  firstHeatmapMs: null,
  redraws: [],
  backend: 'cpu',
};

// ---------------------------------------------------------------------------------------------
// Worker

let worker = null;
let nextId = 1;
const pending = new Map();

function newWorker() {
  const w = new Worker('./worker.js', { type: 'module' });
  w.onmessage = (event) => onWorkerMessage(w, event.data);
  w.onerror = (event) => showMessage(`The model worker failed: ${event.message || 'unknown error'}`);
  return w;
}

function retire(w) {
  if (!w) return;
  w.terminate();
  for (const [id, entry] of pending) {
    if (entry.worker === w) {
      pending.delete(id);
      entry.reject(new Error('the worker was replaced'));
    }
  }
}

function call(type, args = {}, target = worker) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, type, worker: target });
    target.postMessage({ id, type, ...args });
  });
}

function onWorkerMessage(from, msg) {
  // Backend news and refreshes only count from the worker in use.
  if (msg.type === 'progress') return showProgress(msg);
  if (msg.type === 'backend') return from === worker ? showBackend(msg) : (pendingBackend = msg);
  if (msg.type === 'refresh') return from === worker && refresh();
  const entry = pending.get(msg.id);
  if (!entry) return;
  pending.delete(msg.id);
  if (msg.ok) entry.resolve(msg.result);
  else {
    const error = new Error(msg.error);
    error.trap = msg.trap;
    entry.reject(error);
  }
}

// The loading worker's latest backend news, shown once it becomes the worker in use.
let pendingBackend = null;

// ---------------------------------------------------------------------------------------------
// Messages, progress, backend

function showMessage(text, kind = 'error') {
  const el = $('message');
  el.textContent = text;
  el.className = `message ${kind === 'info' ? 'info' : ''}`;
  el.hidden = !text;
}

function clearMessage() {
  showMessage('');
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
const pipeline = createPipeline($('pipeline'));
const masks = createMasks($('masks'));
const positional = createPositional($('positional'));

function fillSelect(select, count, value) {
  select.replaceChildren(
    ...Array.from({ length: count }, (_, i) => {
      const option = document.createElement('option');
      option.value = String(i);
      option.textContent = String(i);
      return option;
    }),
  );
  select.value = String(Math.min(value, count - 1));
}

function syncSelectors() {
  const { config, selection } = state;
  if (!config) return;
  const layers = selection.kind === 'encoderSelf' ? config.nEncoderLayers : config.nDecoderLayers;
  selection.layer = Math.min(selection.layer, layers - 1);
  selection.head = Math.min(selection.head, config.nHeads - 1);
  $('kind-select').value = selection.kind;
  fillSelect($('layer-select'), layers, selection.layer);
  fillSelect($('head-select'), config.nHeads, selection.head);
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
 * each in their own task, so no single main-thread task grows with the sentence (a 64-token
 * sentence drew ~100 ms in one go). A newer call abandons an unfinished one. `body[data-ready]`
 * is "true" only once everything shows the current trace. Resolves to the main-thread time spent
 * drawing, or null when a newer redraw took over.
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
  const { trace, selection } = state;
  document.body.dataset.ready = 'false';
  let busy = timed('tokens, focus, buttons', () => {
    tokens.render(trace);
    syncSelectors();
    if (trace) focus.render(trace, selection);
    renderTruncation(trace);
    renderStepButtons();
  });
  if (trace) {
    const views = [
      ...KINDS.map((kind) => [`model view: ${kind}`, () => modelView.renderKind(trace, selection, kind)]),
      ['head view', () => headView.render(trace, selection)],
      ['stepper', () => stepper.render(trace, selection)],
      ['masks', () => masks.render(trace, null)],
    ];
    for (const [name, draw] of views) {
      await nextTask();
      if (ticket !== renderTicket) return null;
      busy += timed(name, draw);
    }
  }
  document.body.dataset.ready = trace ? 'true' : 'false';
  document.body.dataset.output = trace ? trace.output : '';
  document.body.dataset.generation = String(state.shownGeneration);
  refreshPipeline();
  return busy;
}

function renderTruncation(trace) {
  const el = $('truncation');
  const cut = trace?.truncation;
  if (!cut) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  const text = $('source-input').value;
  const chars = [...text];
  const kept = chars.slice(Math.max(0, cut.cutAtChar - 40), cut.cutAtChar).join('');
  const dropped = chars.slice(cut.cutAtChar, cut.cutAtChar + 40).join('');
  const head = document.createElement('span');
  head.textContent = `The input is ${cut.totalTokens} tokens; this model reads at most ${cut.keptTokens} (+ </s>), so it was cut at character ${cut.cutAtChar}: …${kept}`;
  const mark = document.createElement('span');
  mark.className = 'mark';
  mark.textContent = ' ✂ ';
  const rest = document.createElement('span');
  rest.className = 'cut';
  rest.textContent = `${dropped}…`;
  el.replaceChildren(head, mark, rest);
  el.hidden = false;
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

let pipelineRequest = 0;
async function refreshPipeline() {
  const { trace, selection } = state;
  if (!trace) return;
  const stack = stackFor(trace, selection.kind);
  if (!stack || !stack.queries) {
    pipeline.render(null, trace);
    return;
  }
  const ticket = ++pipelineRequest;
  try {
    const result = await call('pipeline', selection);
    if (ticket === pipelineRequest && result && trace === state.trace) pipeline.render(result, trace);
  } catch (error) {
    if (ticket === pipelineRequest) showMessage(error.message);
  }
}

function select(selection) {
  state.selection = { ...state.selection, ...selection };
  renderAll();
}

// ---------------------------------------------------------------------------------------------
// Actions

function showTrace(result, generation) {
  if (!result || result.stale) return false;
  if (generation != null && generation < state.shownGeneration) return false;
  if (generation != null) state.shownGeneration = generation;
  state.trace = result.trace;
  renderAll().then((renderMs) => {
    if (renderMs == null) return;
    if (state.firstHeatmapMs == null) {
      state.firstHeatmapMs = performance.now();
      document.body.dataset.firstHeatmapMs = String(Math.round(state.firstHeatmapMs));
    }
    if (generation != null && keystrokeAt.has(generation)) {
      // From the keystroke (debounce included) to the end of the redraw.
      state.redraws.push({ ms: performance.now() - keystrokeAt.get(generation), computeMs: result.ms ?? null, renderMs });
      if (state.redraws.length > 1000) state.redraws.shift();
    }
  });
  return true;
}

async function run(type, args = {}) {
  try {
    const result = await call(type, args);
    clearMessageUnlessInfo();
    showTrace(result, args.gen);
    return result;
  } catch (error) {
    handleError(error);
    return null;
  }
}

function clearMessageUnlessInfo() {
  if (!$('message').classList.contains('info')) clearMessage();
}

function handleError(error) {
  if (error.trap) {
    // The wasm instance hit a trap: start a fresh worker on the CPU and carry on.
    showMessage(`The model crashed (${error.message}); restarting on the CPU backend.`, 'info');
    $('backend-select').value = 'cpu';
    retire(worker);
    worker = null;
    boot('cpu', state.model);
    return;
  }
  showMessage(error.message);
}

let typingTimer = null;
const keystrokeAt = new Map(); // generation → time of its keystroke (for keystroke-to-redraw)
function onInput() {
  clearTimeout(typingTimer);
  const generation = ++state.generation;
  keystrokeAt.set(generation, performance.now());
  if (keystrokeAt.size > 2000) keystrokeAt.delete(keystrokeAt.keys().next().value);
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
  await run('translate', { gen: generation, text });
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

async function refresh() {
  const result = await call('trace').catch(() => null);
  if (result) showTrace(result, null);
}

async function loadPaddingDemo() {
  const example = state.config?.example || 'Hello.';
  const short = state.model?.name === 'date-iso' ? '1 May 2000' : 'Hello!';
  try {
    const batch = await call('batch', { texts: [example, short] });
    masks.render(state.trace, batch);
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
  const next = newWorker();
  pendingBackend = null;
  if (!worker) $('loading').hidden = false;
  try {
    const text = $('source-input').value;
    const info = await call('init', { model, backend, text }, next);
    if (ticket !== bootTicket) {
      // A newer model choice superseded this one while it loaded.
      retire(next);
      return false;
    }
    retire(worker);
    worker = next;
    state.model = model;
    state.config = info.config;
    state.trace = null;
    state.firstHeatmapMs = null;
    $('model-select').value = model.name;
    document.body.dataset.model = model.name;
    $('model-description').textContent = info.config.description || '';
    positional.render(info.positional);
    $('loading').hidden = true;
    clearMessage();
    if (pendingBackend) showBackend(pendingBackend);
    await translate();
    await loadPaddingDemo();
    return true;
  } catch (error) {
    retire(next);
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
  if (await boot(undefined, model)) {
    state.selection = { kind: 'cross', layer: 0, head: 0 };
    renderAll();
  } else if (ticket === bootTicket) {
    $('source-input').value = previousText;
  }
}

async function main() {
  // Test hooks for the browser tests (no effect on normal use).
  window.__attnscope = { state, call, translate, boot };
  let index;
  try {
    const response = await fetch('models/index.json', { cache: 'no-cache' });
    index = await response.json();
  } catch (error) {
    showMessage(`Cannot read the model list: ${error.message}`);
    return;
  }
  state.models = index.models;
  $('model-select').replaceChildren(
    ...index.models.map((m) => {
      const option = document.createElement('option');
      option.value = m.name;
      option.textContent = m.name;
      return option;
    }),
  );
  const wanted = new URLSearchParams(location.search).get('model') || index.default;
  const first = index.models.find((m) => m.name === wanted) || index.models[0];
  $('model-select').value = first.name;
  const backend = new URLSearchParams(location.search).get('backend');
  if (['auto', 'cpu', 'webgpu'].includes(backend)) $('backend-select').value = backend;
  $('source-input').value = first.example || '';

  $('source-input').addEventListener('input', onInput);
  $('model-select').addEventListener('change', (e) => switchModel(e.target.value));
  $('backend-select').addEventListener('change', async (e) => {
    const result = await call('setBackend', { backend: e.target.value, text: $('source-input').value }).catch(handleError);
    if (result) showTrace(result, null);
  });
  $('sampling-select').addEventListener('change', async (e) => {
    const mode = e.target.value;
    await call('sampling', { mode, temperature: 1, topK: 5, seed: 1 }).catch(handleError);
    translate();
  });
  $('kind-select').addEventListener('change', (e) => select({ kind: e.target.value }));
  $('layer-select').addEventListener('change', (e) => select({ layer: Number(e.target.value) }));
  $('head-select').addEventListener('change', (e) => select({ head: Number(e.target.value) }));
  document.querySelectorAll('input[name=headview-mode]').forEach((el) => el.addEventListener('change', () => renderAll()));
  $('step-forward').addEventListener('click', step);
  $('step-back').addEventListener('click', () => run('back'));
  $('step-reset').addEventListener('click', () => run('reset'));
  $('step-end').addEventListener('click', () => run('runToEnd'));
  $('step-play').addEventListener('click', play);
  $('prefix-button').addEventListener('click', () => run('prefix', { text: $('prefix-input').value }));
  await boot(undefined, first);
}

main();

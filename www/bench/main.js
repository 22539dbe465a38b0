// The benchmark page (www/bench.html): reads the plan from the query (www/bench/plan.js), runs
// the race in its own worker (www/bench/worker.js) when the visitor asks, draws each row as it
// comes, and copies the whole as Markdown. The main page never loads any of it.
//
// body[data-bench]: 'loading' | 'idle' | 'running' | 'done' | 'failed' (the browser test waits on it).
import { webgpuAdapter } from './adapter.js';
import { adapterText } from './cells.js';
import { markdown } from './markdown.js';
import { planRows, readPlan } from './plan.js';
import { reasonOf } from './problem.js';
import { drawTable } from './table.js';
import { initialLanguage, language, reasonText, setLanguage, t } from './texts.js';

const state = {
  plan: null,
  entries: [], // models/index.json's entries of the plan's models, in the plan's order
  rows: [], // the plan's rows, each with what the worker last said of it
  env: null, // the WebGPU adapter: { adapter, reason }
  status: { key: 'idle', params: {} }, // the status line, as a text key
  started: 0,
};
const machine = { userAgent: navigator.userAgent, cpus: navigator.hardwareConcurrency };
const $ = (id) => document.getElementById(id);

function render() {
  $('status').textContent = state.status.reason
    ? t(state.status.key, { reason: reasonText(state.status.reason) })
    : t(state.status.key, state.status.params);
  $('machine-browser').textContent = machine.userAgent;
  $('machine-adapter').textContent = state.env ? adapterText(state.env) : '…';
  $('machine-cpus').textContent = machine.cpus ?? t('unknown');
  if (!state.plan) return;
  $('spread').textContent = t('spread', { warmup: state.plan.warmup });
  drawTable(
    $('translate-table'),
    'translate',
    state.rows.filter((row) => row.section === 'translate'),
  );
  drawTable(
    $('train-table'),
    'train',
    state.rows.filter((row) => row.section === 'train'),
  );
  $('markdown').textContent = markdown(state, machine);
}

let drawing = 0;

/** Render at the next frame, once however many messages come before it (a download reports every chunk). */
function renderSoon() {
  if (drawing) return;
  drawing = requestAnimationFrame(() => {
    drawing = 0;
    render();
  });
}

/** The page's fixed words in the language in use (elements with data-t, data-t-label). */
function translateStatic() {
  document.documentElement.lang = language();
  document.title = t('title');
  for (const node of document.querySelectorAll('[data-t]')) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll('[data-t-label]')) node.setAttribute('aria-label', t(node.dataset.tLabel));
  $('language-select').value = language();
}

function setStatus(key, params = {}) {
  state.status = { key, params };
}

/** What the worker said, into the state. */
function onMessage(message) {
  if (message.type === 'env') state.env = { adapter: message.adapter, reason: message.reason ?? null };
  else if (message.type === 'progress') setStatus('loading', { label: message.label });
  else if (message.type === 'status') {
    if (message.training) setStatus('racingTraining');
    else setStatus('racingModel', { model: message.model, n: message.n });
  } else if (message.type === 'row') {
    const row = state.rows.find((r) => r.id === message.id);
    if (row) Object.assign(row, message);
  } else if (message.type === 'done' || message.type === 'failed') {
    finish(message);
    return;
  }
  renderSoon();
}

function finish(message) {
  document.body.dataset.bench = message.type;
  if (message.type === 'done') setStatus('done', { seconds: ((performance.now() - state.started) / 1000).toFixed(0) });
  else state.status = { key: 'failed', reason: message.reason };
  $('run').disabled = false;
  render();
}

function run() {
  state.rows = planRows(state.plan).map((row) => ({ ...row, state: 'waiting' }));
  state.started = performance.now();
  document.body.dataset.bench = 'running';
  $('run').disabled = true;
  $('copy').disabled = false;
  let worker;
  try {
    worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  } catch (error) {
    finish({ type: 'failed', reason: reasonOf(error) });
    return;
  }
  worker.onmessage = ({ data }) => {
    onMessage(data);
    if (data.type === 'done' || data.type === 'failed') worker.terminate();
  };
  worker.onerror = (event) => {
    event.preventDefault();
    worker.terminate();
    finish({ type: 'failed', reason: { key: 'error', params: { message: event.message || 'the worker failed to start' } } });
  };
  worker.postMessage({ type: 'run', plan: state.plan, entries: state.entries });
  render();
}

async function copy() {
  const text = markdown(state, machine);
  try {
    await navigator.clipboard.writeText(text);
    setStatus('copied');
  } catch (error) {
    state.status = { key: 'copyFailed', reason: reasonOf(error) };
    $('markdown-box').open = true;
  }
  render();
}

async function init() {
  setLanguage(initialLanguage(location, navigator.language));
  translateStatic();
  $('language-select').addEventListener('change', (event) => {
    setLanguage(event.target.value);
    translateStatic();
    render();
  });
  $('run').addEventListener('click', run);
  $('copy').addEventListener('click', copy);
  render();
  try {
    const response = await fetch(new URL('../models/index.json', import.meta.url), { cache: 'no-cache' });
    if (!response.ok) throw new Error(`models/index.json: HTTP ${response.status}`);
    const index = await response.json();
    state.plan = readPlan(
      location.search,
      index.models.map((entry) => entry.name),
    );
    state.entries = state.plan.models.map((name) => index.models.find((entry) => entry.name === name));
    state.rows = planRows(state.plan).map((row) => ({ ...row, state: 'waiting' }));
  } catch (error) {
    finish({ type: 'failed', reason: reasonOf(error) });
    $('run').disabled = true;
    return;
  }
  $('quick-note').hidden = !state.plan.quick;
  document.body.dataset.bench = 'idle';
  $('run').disabled = false;
  render();
  state.env = await webgpuAdapter();
  render();
}

init();

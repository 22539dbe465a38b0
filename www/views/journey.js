// "One token's journey": everything one position computes in one layer of one stack, drawn the way
// the seed articles write it (q, every k_j and v_j, q·k_j, ÷√d_k, softmax, Σ α_j v_j, the heads
// concatenated, × W_O, + x, LayerNorm, the feed-forward network, the logits). The numbers come from
// the worker's `inspect` (Session.inspect), asked only while the view is on screen or when someone
// (the lesson) wants them, and kept for the trace they belong to.
//
// A token is picked here (stack, layer, token, head selectors), by clicking a token chip (source:
// encoder; output: decoder) or a row of the decoding stepper (the decoder position that chose it).
// Each such pick is announced on the bus (`journey-pick`), and each number the person reads by
// hovering a picture (`journey-look`, www/views/journey-draw.js): www/ui/bus.js lists both.
import { announce } from '../ui/bus.js';
import { el, option } from '../ui/dom.js';
import { onLanguageChange } from '../ui/i18n.js';
import { setText } from './journey-draw.js';
import { blocksOf } from './journey-parts.js';
import { jt } from './journey-texts.js';

/** The positions a stack offers for `trace`: their tokens (the decoder: its input rows). */
export function positionsOf(trace, stack) {
  if (!trace) return [];
  if (stack === 'encoder') return trace.srcTokens;
  return trace.tgtTokens.slice(0, trace.decoderSelfAttention.queries);
}

/** A token of punctuation alone (with SentencePiece's word mark at most): the lesson skips it too. */
export const PUNCTUATION = /^[\s\p{P}▁]*$/u;

/**
 * The token a lesson or a first look starts from: the decoder's last input token that is a word
 * (not <s>, not punctuation) — 苹果 in 我爱吃苹果。 — else the last source word.
 */
export function defaultPick(trace) {
  const decoder = positionsOf(trace, 'decoder');
  for (let p = decoder.length - 1; p > 0; p--) if (!PUNCTUATION.test(decoder[p])) return { stack: 'decoder', position: p };
  return sourcePick(trace);
}

/** The last source word before </s> (not punctuation), else the first source token. */
export function sourcePick(trace) {
  const source = positionsOf(trace, 'encoder');
  for (let p = source.length - 2; p >= 0; p--) if (!PUNCTUATION.test(source[p])) return { stack: 'encoder', position: p };
  return { stack: 'encoder', position: 0 };
}

const labelled = (key, select) => el('label', {}, el('span', { text: jt(key), data: { jt: key } }), ' ', select);

/** The view's fixed parts: title, explanation, the four selectors, status, dimensions and body. */
function buildFrame(container) {
  const selects = {
    stack: el('select', { attrs: { id: 'journey-stack' } }),
    layer: el('select', { attrs: { id: 'journey-layer' } }),
    position: el('select', { attrs: { id: 'journey-token' } }),
    head: el('select', { attrs: { id: 'journey-head' } }),
  };
  const frame = {
    container,
    selects,
    title: el('h2', { text: jt('title'), attrs: { id: 'journey-title' } }),
    explain: el('p', { className: 'explain', text: jt('explain') }),
    controls: el(
      'div',
      { className: 'row' },
      labelled('stack', selects.stack),
      labelled('layer', selects.layer),
      labelled('token', selects.position),
      labelled('head', selects.head),
    ),
    status: el('p', { className: 'muted j-status' }),
    dims: el('p', { className: 'j-dims' }),
    body: el('div', { className: 'j-body' }),
    built: new Map(),
  };
  container.replaceChildren(frame.title, frame.explain, frame.controls, frame.status, frame.dims, frame.body);
  return frame;
}

/** Give `select` these options (unless it has them) and pick `value`. */
function fillSelect(select, values, labels, value) {
  const keys = values.map(String);
  const texts = labels.map(String);
  const same = select.options.length === keys.length && [...select.options].every((o, i) => o.value === keys[i] && o.text === texts[i]);
  if (!same) select.replaceChildren(...keys.map((v, i) => option(v, texts[i])));
  select.value = String(value);
}

const layersOf = (config, stack) => (stack === 'encoder' ? config.nEncoderLayers : config.nDecoderLayers);

/** The selectors, for the trace and the pick of `view`. */
function syncSelects({ selects }, { trace, config, pick }) {
  const stacks = positionsOf(trace, 'decoder').length ? ['encoder', 'decoder'] : ['encoder'];
  fillSelect(selects.stack, stacks, stacks.map(jt), pick.stack);
  const layers = [...Array(layersOf(config, pick.stack)).keys()];
  fillSelect(selects.layer, layers, layers, pick.layer);
  const tokens = positionsOf(trace, pick.stack);
  fillSelect(
    selects.position,
    tokens.map((_, p) => p),
    tokens.map((token, p) => `${p} · ${token}`),
    pick.position,
  );
  const heads = [...Array(config.nHeads).keys()];
  fillSelect(selects.head, heads, heads, pick.head);
}

// How long a pick may take before the status says it is being computed: most take a few
// milliseconds, and a status flashing "Computing…" would cost every pick a frame of its own.
const LOADING_NOTE_MS = 150;

function setState(frame, name, text = '') {
  clearTimeout(frame.loadingNote);
  if (frame.container.dataset.state !== name) frame.container.dataset.state = name;
  if (name === 'loading') frame.loadingNote = setTimeout(() => setText(frame.status, text), LOADING_NOTE_MS);
  else setText(frame.status, text);
}

/** `body`'s children made `nodes` (in order), moving none that is already in its place. */
function placeChildren(body, nodes) {
  const wanted = new Set(nodes);
  for (const child of [...body.children]) if (!wanted.has(child)) child.remove();
  nodes.forEach((node, i) => {
    if (body.children[i] !== node) body.insertBefore(node, body.children[i] ?? null);
  });
}

const MAX_BUILT = 16;

/**
 * Draw journey `j` (the pick's) in the body. A block already built for a journey of the same
 * shape (frame.built: "name shape" → { node, fills }) is kept and only filled with `j`: scrubbing
 * through tokens and layers rewrites texts and repaints canvases instead of rebuilding the view.
 */
function draw(frame, { trace, pick }, j) {
  const nextId = j.stack === 'decoder' ? (trace.tgtIds[j.position + 1] ?? null) : null;
  const s = { j, head: pick.head, nextId };
  setText(frame.dims, jt('dims', { dModel: j.dModel, heads: j.heads, dK: j.dK, dFf: j.dFf, norm: jt(j.norm) }));
  const nodes = blocksOf(j).map(({ name, shape, build }) => {
    const key = `${name} ${shape}`;
    let built = frame.built.get(key);
    if (!built) {
      const fills = [];
      built = { node: build(fills, s), fills };
      frame.built.set(key, built);
    }
    for (const fill of built.fills) fill(s);
    return built.node;
  });
  placeChildren(frame.body, nodes);
  // Keep the blocks of a few shapes (layer 0 and the others, each stack), not of every sentence.
  if (frame.built.size > MAX_BUILT) for (const [key, { node }] of frame.built) if (!node.isConnected) frame.built.delete(key);
  const data = { stack: j.stack, layer: String(j.layer), position: String(j.position), head: String(pick.head) };
  for (const [name, value] of Object.entries(data)) if (frame.container.dataset[name] !== value) frame.container.dataset[name] = value;
  setState(frame, 'ready', jt('status', { stack: jt(j.stack), layer: j.layer, position: j.position, token: j.token }));
}

/** `wanted` within what the trace and the model of `view` offer. */
function clamp({ trace, config, pick }, wanted) {
  const next = { ...pick, ...wanted };
  if (positionsOf(trace, 'decoder').length === 0) next.stack = 'encoder';
  const positions = positionsOf(trace, next.stack);
  if (next.position == null || next.position >= positions.length) next.position = Math.max(0, positions.length - 1);
  next.layer = Math.min(Math.max(0, next.layer), layersOf(config, next.stack) - 1);
  next.head = Math.min(Math.max(0, next.head), config.nHeads - 1);
  return next;
}

/** Where a switch to `stack` lands: the default pick if it is in that stack, else its first token. */
function defaultPositionIn(trace, stack) {
  const fallback = defaultPick(trace);
  return fallback.stack === stack ? fallback.position : 0;
}

/** Selectors, token chips and stepper rows call `picked` with what the person chose. */
function wireInputs({ selects }, chips, view, picked) {
  for (const [name, select] of Object.entries(selects)) {
    select.addEventListener('change', () => {
      const value = name === 'stack' ? select.value : Number(select.value);
      const wanted = { [name]: value };
      if (name === 'stack') wanted.position = defaultPositionIn(view.trace, value);
      picked(wanted);
    });
  }
  chips.source?.addEventListener('click', (event) => {
    const chip = event.target.closest('.token');
    if (chip) picked({ stack: 'encoder', position: [...chips.source.children].indexOf(chip) });
  });
  chips.output?.addEventListener('click', (event) => {
    const chip = event.target.closest('.token');
    const index = chip ? [...chips.output.children].indexOf(chip) : -1;
    if (index >= 0 && index < positionsOf(view.trace, 'decoder').length) picked({ stack: 'decoder', position: index });
  });
  chips.stepper?.addEventListener('click', (event) => {
    const row = event.target.closest('.step-row');
    if (row && !event.target.closest('button')) picked({ stack: 'decoder', position: Number(row.dataset.step) });
  });
}

function relabel(frame, view) {
  frame.title.textContent = jt('title');
  frame.explain.textContent = jt('explain');
  for (const span of frame.controls.querySelectorAll('[data-jt]')) span.textContent = jt(span.dataset.jt);
  if (view.trace && view.config) syncSelects(frame, view);
  frame.built.clear(); // their headings and captions are in the old language
  if (view.shown) draw(frame, view, view.shown.journey);
}

export function createJourney(container, { inspect, chips = {} }) {
  const frame = buildFrame(container);
  // shown: { key, trace, journey } drawn in the body; cache: `${stack}/${layer}/${position}` →
  // the promise of a decoded journey, for the trace shown; listeners: told of the person's picks.
  const view = { trace: null, config: null, pick: { stack: 'decoder', layer: 0, position: null, head: 0 } };
  Object.assign(view, { shown: null, cache: new Map(), visible: false, ticket: 0, listeners: new Set() });

  /** The journey of (stack, layer, position) for the trace shown: asked once per trace. */
  function fetch({ stack, layer, position }) {
    const key = `${stack}/${layer}/${position}`;
    if (!view.cache.has(key)) {
      const asked = inspect({ stack, layer, position });
      asked.catch(() => view.cache.delete(key));
      view.cache.set(key, asked);
    }
    return view.cache.get(key);
  }

  /** Ask for the pick's journey (when on screen, or `force`d) and draw it; resolves to it, or null. */
  async function update(force = false) {
    if (!view.trace || !view.config) {
      view.shown = null;
      frame.body.replaceChildren();
      frame.dims.textContent = '';
      setState(frame, 'empty', jt('none'));
      return null;
    }
    syncSelects(frame, view);
    const { pick, trace } = view;
    const key = `${pick.stack}/${pick.layer}/${pick.position}/${pick.head}`;
    if (view.shown?.key === key && view.shown.trace === trace) return view.shown.journey;
    if (!view.visible && !force) {
      setState(frame, 'waiting');
      return null;
    }
    const mine = ++view.ticket;
    setState(frame, 'loading', jt('loading'));
    try {
      const j = await fetch(pick);
      if (mine !== view.ticket) return null;
      draw(frame, view, j);
      view.shown = { key, trace, journey: j };
      return j;
    } catch (error) {
      if (mine !== view.ticket) return null;
      view.shown = null;
      frame.body.replaceChildren();
      setState(frame, 'error', jt('failed', { error: error.message }));
      return null;
    }
  }

  /** Show the trace's journey of the current pick (or the default one); called on every redraw. */
  function render(trace, config) {
    if (trace !== view.trace) view.cache = new Map();
    const first = !view.trace || config !== view.config;
    Object.assign(view, { trace, config });
    if (trace && config) view.pick = clamp(view, first || view.pick.position == null ? { ...defaultPick(trace) } : {});
    return update();
  }

  /** Look at `wanted` ({ stack, layer, position, head }, each optional); resolves to its journey. */
  function show(wanted, { force = true } = {}) {
    if (!view.trace || !view.config) return Promise.resolve(null);
    view.pick = clamp(view, wanted);
    return update(force);
  }

  // A pick of the person's (not the lesson's `show`) is told to the listeners and on the bus.
  wireInputs(frame, chips, view, (wanted) => {
    show(wanted);
    for (const listener of view.listeners) listener({ ...view.pick });
    const token = positionsOf(view.trace, view.pick.stack)[view.pick.position] ?? null;
    announce('journey-pick', { ...view.pick, token });
  });
  new IntersectionObserver((entries) => {
    view.visible = entries.some((entry) => entry.isIntersecting);
    if (view.visible && container.dataset.state === 'waiting') update();
  }).observe(container);
  onLanguageChange(() => relabel(frame, view));

  return {
    render,
    show,
    fetch,
    /** What is drawn: { pick, journey }, or null. */
    current: () => (view.shown ? { pick: { ...view.pick }, journey: view.shown.journey } : null),
    pick: () => ({ ...view.pick }),
    /** Call `listener(pick)` whenever the person picks a token, stack, layer or head here. */
    onPick: (listener) => view.listeners.add(listener),
  };
}

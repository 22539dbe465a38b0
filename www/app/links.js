// Links: the URL fragment holds what the page shows, and how it is read back. Reading never
// throws: every field is checked on its own, a bad one falls back to its default, and each problem
// is reported (the page says which, in a message). A committed sentence and each step are entries
// in the browser's history; looking at another head or flipping a toggle only rewrites the current
// entry.
//
// Fragment fields (URLSearchParams syntax, every one optional):
//   m model · t text · b backend (auto|cpu|webgpu) · d decoding (greedy|sample|beam)
//   seed (sample) · w, a beam width and length penalty · n the beam node shown, when not the best
//   f forced tokens "index:id,index:id" · s steps shown, when decoding stopped before the end
//   k kind · l layer · h head (a number, mean or max) · sinks=1 · tr=1 transposed · hv=all
//   lang (en|zh-CN) · lesson the lesson's step shown (www/lesson/)
//   off the heads switched off, KIND:LAYER:HEAD,… (read by the wasm module: a bad one is its error)
//   pg the playground's run settings that differ from its defaults, field:value,… ('' for the
//      defaults; www/playground/link.js writes it and checks it with the training module)
// The backends, the decodings, the kinds, the widest beam and the default kind, layer and head are
// the wasm module's (`facts`: { backends, decodings, kinds, maxBeamWidth, defaultFocus },
// www/worker/modules.js).
//
// The link follows what happens on the page by listening on the bus (www/ui/bus.js): an answer
// shown, a keystroke, another head looked at, heads switched off, a view's setting changed.
//
// A model opened from the person's computer is named `local:<name>` (LOCAL_MODEL_PREFIX). A link
// cannot carry its files: a page that has not opened it reports the link's model as local and
// shows its default model, without the sentence, forced tokens, step and beam node of the link
// (they belong to the other model).

import { listen } from '../ui/bus.js';
import { $ } from '../ui/dom.js';
import { LANGUAGES as LANGUAGE_TABLES, language, setLanguage, supportedLanguage, t } from '../ui/i18n.js';
import { run, select, showBeamControls, showBeamNode, translate } from './actions.js';
import { BEAM, beamOptions, DEFAULTS, decoding, headViewMode, samplingArgs } from './controls.js';
import { switchOff } from './heads.js';
import { handleError, showMessage } from './messages.js';
import { boot, LOCAL_MODEL_PREFIX, modelTitle } from './models.js';
import { whenDrawn } from './render.js';
import { leaveSavedTrace } from './saved.js';
import { call, state as page, parts } from './store.js';

const LANGUAGES = Object.keys(LANGUAGE_TABLES);

/** Every field a link without it stands for: DEFAULTS, the module's first decoding and its default focus. */
export function defaults(facts) {
  const { kind, layer, head } = facts.defaultFocus;
  return { ...DEFAULTS, decoding: facts.decodings[0], forced: [], kind, layer, head };
}

/** `state` as a fragment ('#…'); fields at their default (with `facts`) are left out. */
export function encodeState(state, facts) {
  const fallback = defaults(facts);
  const p = new URLSearchParams();
  const put = (key, value, fallback) => {
    if (value != null && value !== fallback) p.set(key, String(value));
  };
  put('m', state.model, null);
  put('t', state.text, null);
  put('b', state.backend, fallback.backend);
  put('d', state.decoding, fallback.decoding);
  if (state.decoding === 'sample') put('seed', state.seed, null);
  if (state.decoding === BEAM) {
    put('w', state.beamWidth, null);
    put('a', state.beamAlpha, null);
    put('n', state.beamNode, null);
  }
  if (state.forced?.length) p.set('f', state.forced.map(([index, id]) => `${index}:${id}`).join(','));
  put('s', state.steps, null);
  put('k', state.kind, fallback.kind);
  put('l', state.layer, fallback.layer);
  put('h', state.head, fallback.head);
  if (state.hideSinks) p.set('sinks', '1');
  if (state.transposed) p.set('tr', '1');
  put('hv', state.headView, fallback.headView);
  put('lang', state.lang, null);
  put('lesson', state.lesson, null);
  put('off', state.off, '');
  put('pg', state.playground, null);
  const text = p.toString();
  return text ? `#${text}` : '';
}

const natural = (text, max = 10_000) => (/^\d+$/.test(text) && Number(text) <= max ? Number(text) : null);

/**
 * A fragment ('#…' or '') → { state, problems }: every field of `defaults(facts)`, and a problem
 * { field (its key in the fragment), value, unknown?, local? } per field that could not be used.
 * `models`: the model names the page has (others are refused).
 */
export function decodeState(hash, facts, models = []) {
  const state = defaults(facts);
  const problems = [];
  let params;
  try {
    params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  } catch {
    return { state, problems: [{ field: null, value: String(hash) }] };
  }
  const known = new Set([
    'm',
    't',
    'b',
    'd',
    'seed',
    'w',
    'a',
    'n',
    'f',
    's',
    'k',
    'l',
    'h',
    'sinks',
    'tr',
    'hv',
    'lang',
    'lesson',
    'off',
    'pg',
  ]);
  for (const key of params.keys()) if (!known.has(key)) problems.push({ field: key, value: params.get(key), unknown: true });
  const model = params.get('m');
  if (model?.startsWith(LOCAL_MODEL_PREFIX) && !models.includes(model)) {
    problems.push({ field: 'm', value: model.slice(LOCAL_MODEL_PREFIX.length), local: true });
    for (const key of ['m', 't', 'f', 's', 'n']) params.delete(key);
  }
  const read = (key, parse, field) => {
    if (!params.has(key)) return;
    const raw = params.get(key);
    const value = parse(raw);
    if (value == null) problems.push({ field: key, value: raw });
    else state[field] = value;
  };
  const oneOf = (list) => (raw) => (list.includes(raw) ? raw : null);
  const flag = (raw) => (raw === '1' ? true : raw === '0' ? false : null);
  read('m', (raw) => (models.length === 0 || models.includes(raw) ? raw : null), 'model');
  read('t', (raw) => (raw.length <= 10_000 ? raw : null), 'text');
  read('b', oneOf(facts.backends), 'backend');
  read('d', oneOf(facts.decodings), 'decoding');
  read('seed', (raw) => natural(raw, 2 ** 32 - 1), 'seed');
  read('w', (raw) => (natural(raw, facts.maxBeamWidth) >= 1 ? natural(raw, facts.maxBeamWidth) : null), 'beamWidth');
  read('a', (raw) => (/^\d+(\.\d+)?$/.test(raw) && Number(raw) <= 10 ? Number(raw) : null), 'beamAlpha');
  read('n', (raw) => natural(raw, 1_000_000), 'beamNode');
  read('f', parseForced, 'forced');
  read('s', (raw) => natural(raw, 10_000), 'steps');
  read('k', oneOf(facts.kinds), 'kind');
  read('l', (raw) => natural(raw, 1000), 'layer');
  read('h', (raw) => (raw === 'mean' || raw === 'max' ? raw : natural(raw, 1000)), 'head');
  read('sinks', flag, 'hideSinks');
  read('tr', flag, 'transposed');
  read('hv', oneOf(['one', 'all']), 'headView');
  read('lang', oneOf(LANGUAGES), 'lang');
  read('lesson', (raw) => (natural(raw, 100) >= 1 ? natural(raw, 100) : null), 'lesson');
  read('off', (raw) => (raw.length <= 4000 ? raw : null), 'off');
  read('pg', (raw) => (raw.length <= 2000 ? raw : null), 'playground');
  return { state, problems };
}

/** "3:17,4:2" → [[3, 17], [4, 2]] (indices increasing), or null when it is not that. */
function parseForced(raw) {
  const pairs = [];
  for (const part of raw.split(',')) {
    const match = /^(\d{1,4}):(\d{1,9})$/.exec(part);
    if (!match) return null;
    const pair = [Number(match[1]), Number(match[2])];
    if (pairs.length && pair[0] <= pairs.at(-1)[0]) return null;
    pairs.push(pair);
  }
  return pairs;
}

// -----------------------------------------------------------------------------------------------
// The page and its link

/** A pause this long ends a sentence: the next keystroke starts a new history entry. */
const SENTENCE_PAUSE_MS = 1500;

/** A keystroke at `at` (performance.now()): after a pause, it begins another sentence. */
listen('keystroke', ({ at }) => {
  if (at - page.lastKeystroke > SENTENCE_PAUSE_MS) page.sentenceOpen = false;
  page.lastKeystroke = at;
});

/**
 * The playground's settings, as it last said them ('playground-link', { spec }); null while it is
 * closed. `live`: it is open and has said them, so a link no longer overrides them.
 */
const playground = { spec: null, live: false };
listen('playground-link', ({ spec }) => {
  playground.spec = spec;
  playground.live = spec != null;
  updateLink('replace');
});

/** What the page shows, as a link describes it. */
function linkState() {
  const { trace, selection } = page;
  const chosen = decoding();
  const beam = chosen === BEAM;
  const { width, lengthPenalty } = beamOptions();
  const best = page.beam?.finals[0]?.node ?? null;
  return {
    model: page.model?.name ?? null,
    text: $('source-input').value,
    backend: $('backend-select').value,
    decoding: chosen,
    seed: samplingArgs().seed,
    beamWidth: width,
    beamAlpha: lengthPenalty,
    beamNode: beam && page.beamNode != null && page.beamNode !== best ? page.beamNode : null,
    // A beam hypothesis is forced token by token: the node says it all.
    forced: trace && !beam ? trace.steps.flatMap((step, i) => (step.forced ? [[i, step.id]] : [])) : [],
    steps: trace && !beam && !trace.finished ? trace.steps.length : null,
    kind: selection.kind,
    layer: selection.layer,
    head: selection.head,
    hideSinks: page.hideSinks,
    transposed: parts.views.focus.transposed(),
    headView: headViewMode(),
    lang: language(),
    lesson: parts.lesson?.step() ?? null,
    off: page.ablation.spec,
    playground: playground.spec,
  };
}

/** A change asked to be written while a link was applied: written once it has been (applyLink). */
let deferred = false;

/** Write the state into the URL: a new history entry ('push') or the current one ('replace'). */
export function updateLink(mode) {
  deferred = page.restoring;
  if (page.restoring || page.saved || !page.model) return;
  const hash = encodeState(linkState(), page.facts);
  if (hash === location.hash) return;
  const url = `${location.pathname}${location.search}${hash}`;
  if (mode === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** The link an answer asked for, not yet written: 'push', 'replace' or null (linkSoon). */
let linkDue = null;

/**
 * `updateLink(mode)` in a task of its own, with the page as it is then: history.pushState waits
 * on the browser (11–19 ms after a 129-token decode), which would lengthen the task that draws
 * the answer. A push asked for before the task runs stays a push.
 */
function linkSoon(mode) {
  const waiting = linkDue != null;
  linkDue = linkDue === 'push' ? 'push' : mode;
  if (!waiting) setTimeout(flushLink);
}

/** Write the link an answer asked for now, if it is not written yet (recovery reads the link). */
export function flushLink() {
  const due = linkDue;
  linkDue = null;
  if (due) updateLink(due);
}

// Every view drawn (body[data-ready] just set, in the same task): the link is written by then.
listen('drawn', flushLink);

/** An answer was shown: it enters the history as `history` says ('sentence': the sentence's entry, 'push': a step's own, 'replace'). */
listen('answer-shown', ({ history }) => {
  if (history !== 'sentence') {
    if (history) linkSoon(history);
    return;
  }
  linkSoon(page.sentenceOpen ? 'replace' : 'push');
  page.sentenceOpen = true;
});

for (const name of ['selection', 'heads-off', 'view-changed']) listen(name, () => updateLink('replace'));

/**
 * Make the page show what `hash` describes: language, model, backend, decoding, sentence, forced
 * tokens, step, focused head and toggles. `first`: { model, backend, worker } to use where the link
 * names none (the page's first load; `worker` the one that told the facts). Problems with the link
 * are shown once it is applied.
 */
export async function applyLink(hash, { first = null } = {}) {
  const { state: link, problems } = decodeState(
    hash,
    page.facts,
    page.models.map((m) => m.name),
  );
  page.restoring = true;
  // The playground reads its settings from the link when it opens: until then the link keeps them.
  // Once it has said its own (it may open before the model loads), they are the page's.
  if (!playground.live) playground.spec = link.playground ?? playground.spec;
  try {
    setLanguage(link.lang ?? (first ? (supportedLanguage(navigator.language) ?? 'en') : language()));
    const model = page.models.find((m) => m.name === link.model) ?? first?.model ?? page.model;
    showControls(link, model);
    if (page.saved) leaveSavedTrace();
    if (!(await loadLinked(link, model, first))) return;
    if (link.decoding === BEAM && link.beamNode != null && page.beam?.nodes[link.beamNode]) await showBeamNode(link.beamNode);
    for (const [index, id] of link.forced) await run('force', { index, id, continue: true });
    while (link.steps != null && page.trace && page.trace.steps.length > link.steps) {
      if (!(await run('back'))) break;
    }
    await select({ kind: link.kind, layer: link.layer, head: link.head });
    await switchOff(link.off);
    await whenDrawn();
  } finally {
    page.restoring = false;
    // The link's model may have been superseded (the playground's, opened by the same link): the
    // page then shows what the newer load made, and writes that.
    if (deferred) updateLink('replace');
  }
  page.sentenceOpen = true;
  parts.lesson?.open(link.lesson);
  updateLink('replace');
  if (problems.length) showMessage(t('link.problems', { list: problems.map(describeProblem).join('; ') }), 'info');
}

/** The controls as `link` sets them, with `model`'s example where the link has no sentence. */
function showControls(link, model) {
  $('model-select').value = model.name;
  $('source-input').value = link.text ?? model.example ?? '';
  $('sampling-select').value = link.decoding;
  $('sample-seed').value = String(link.seed);
  $('beam-width').value = String(link.beamWidth);
  $('beam-alpha').value = String(link.beamAlpha);
  showBeamControls(link.decoding === BEAM);
  page.hideSinks = link.hideSinks;
  $('hide-sinks').checked = link.hideSinks;
  parts.views.focus.setTransposed(link.transposed);
  for (const radio of document.querySelectorAll('input[name=headview-mode]')) radio.checked = radio.value === link.headView;
}

/** Load the link's model (or translate its sentence with the one loaded); false when it failed to load. */
async function loadLinked(link, model, first) {
  const backend =
    link.backend ?? (page.facts.backends.includes(first?.backend) ? first.backend : first ? 'auto' : $('backend-select').value);
  if (first || model !== page.model) {
    $('backend-select').value = backend;
    return boot(backend, model, first?.worker);
  }
  if (backend !== $('backend-select').value) {
    $('backend-select').value = backend;
    await call('setBackend', { backend, text: $('source-input').value }).catch(handleError);
  }
  await call('sampling', samplingArgs()).catch(handleError);
  await translate();
  return true;
}

function describeProblem({ field, value, unknown, local }) {
  if (field == null) return t('link.unreadable');
  if (local) return t('link.localModel', { name: value });
  return t(unknown ? 'link.unknownField' : 'link.badField', { field, value });
}

/** Copy the page's link; the button and the live region say so. */
export async function copyLink() {
  updateLink('replace');
  const button = $('copy-link');
  try {
    await navigator.clipboard.writeText(location.href);
    button.textContent = t('toolbar.copied');
    $('announcer').textContent = t('toolbar.copied');
    // The link holds the sentence and the settings, but a local model's files stay here.
    if (page.model?.local) showMessage(t('toolbar.copiedLocal', { name: modelTitle(page.model) }), 'info');
  } catch {
    // No clipboard here (an insecure origin, a refused permission): the address bar has the link.
    showMessage(t('toolbar.copyFailed', { link: location.href }), 'info');
  }
  setTimeout(() => {
    button.textContent = t('toolbar.copyLink');
  }, 2000);
}

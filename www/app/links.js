// The page's state as a link: what the URL fragment holds and how it is read back. Reading never
// throws: every field is checked on its own, a bad one falls back to its default, and each problem
// is reported (the page says which, in a message).
//
// Fragment fields (URLSearchParams syntax, every one optional):
//   m model · t text · b backend (auto|cpu|webgpu) · d decoding (greedy|sample|beam)
//   seed (sample) · w, a beam width and length penalty · n the beam node shown, when not the best
//   f forced tokens "index:id,index:id" · s steps shown, when decoding stopped before the end
//   k kind · l layer · h head (a number, mean or max) · sinks=1 · tr=1 transposed · hv=all
//   lang (en|zh-CN)
//
// A model opened from the person's computer is named `local:<name>` (LOCAL_MODEL_PREFIX). A link
// cannot carry its files: a page that has not opened it reports the link's model as local and
// shows its default model, without the sentence, forced tokens, step and beam node of the link
// (they belong to the other model).

import { KINDS } from '../views/attention.js';
import { LANGUAGES as LANGUAGE_TABLES } from '../ui/i18n.js';

/** How a model opened from the person's computer is named, in the page and in a link. */
export const LOCAL_MODEL_PREFIX = 'local:';

const BACKENDS = ['auto', 'cpu', 'webgpu'];
const DECODINGS = ['greedy', 'sample', 'beam'];
const LANGUAGES = Object.keys(LANGUAGE_TABLES);

/** The state a link without a field stands for. */
export const DEFAULTS = Object.freeze({
  model: null, // the index's default
  text: null, // the model's example
  backend: null, // the page's default
  decoding: 'greedy',
  seed: 1,
  beamWidth: 4,
  beamAlpha: 1,
  beamNode: null,
  forced: [],
  steps: null, // null: decoded to the end
  kind: 'cross',
  layer: 0,
  head: 0,
  hideSinks: false,
  transposed: false,
  headView: 'one',
  lang: null, // follow the browser
});

/** `state` as a fragment ('#…'); fields at their default are left out. */
export function encodeState(state) {
  const p = new URLSearchParams();
  const put = (key, value, fallback) => {
    if (value != null && value !== fallback) p.set(key, String(value));
  };
  put('m', state.model, null);
  put('t', state.text, null);
  put('b', state.backend, DEFAULTS.backend);
  put('d', state.decoding, DEFAULTS.decoding);
  if (state.decoding === 'sample') put('seed', state.seed, null);
  if (state.decoding === 'beam') {
    put('w', state.beamWidth, null);
    put('a', state.beamAlpha, null);
    put('n', state.beamNode, null);
  }
  if (state.forced?.length) p.set('f', state.forced.map(([index, id]) => `${index}:${id}`).join(','));
  put('s', state.steps, null);
  put('k', state.kind, DEFAULTS.kind);
  put('l', state.layer, DEFAULTS.layer);
  put('h', state.head, DEFAULTS.head);
  if (state.hideSinks) p.set('sinks', '1');
  if (state.transposed) p.set('tr', '1');
  put('hv', state.headView, DEFAULTS.headView);
  put('lang', state.lang, null);
  const text = p.toString();
  return text ? `#${text}` : '';
}

const natural = (text, max = 10_000) => (/^\d+$/.test(text) && Number(text) <= max ? Number(text) : null);

/**
 * A fragment ('#…' or '') → { state, problems }: every field of DEFAULTS, and a problem
 * { field (its key in the fragment), value, unknown?, local? } per field that could not be used.
 * `models`: the model names the page has (others are refused).
 */
export function decodeState(hash, models = []) {
  const state = { ...DEFAULTS, forced: [] };
  const problems = [];
  let params;
  try {
    params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  } catch {
    return { state, problems: [{ field: null, value: String(hash) }] };
  }
  const known = new Set(['m', 't', 'b', 'd', 'seed', 'w', 'a', 'n', 'f', 's', 'k', 'l', 'h', 'sinks', 'tr', 'hv', 'lang']);
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
  read('b', oneOf(BACKENDS), 'backend');
  read('d', oneOf(DECODINGS), 'decoding');
  read('seed', (raw) => natural(raw, 2 ** 32 - 1), 'seed');
  read('w', (raw) => (natural(raw, 8) >= 1 ? natural(raw, 8) : null), 'beamWidth');
  read('a', (raw) => (/^\d+(\.\d+)?$/.test(raw) && Number(raw) <= 10 ? Number(raw) : null), 'beamAlpha');
  read('n', (raw) => natural(raw, 1_000_000), 'beamNode');
  read('f', parseForced, 'forced');
  read('s', (raw) => natural(raw, 10_000), 'steps');
  read('k', oneOf(KINDS), 'kind');
  read('l', (raw) => natural(raw, 1000), 'layer');
  read('h', (raw) => (raw === 'mean' || raw === 'max' ? raw : natural(raw, 1000)), 'head');
  read('sinks', flag, 'hideSinks');
  read('tr', flag, 'transposed');
  read('hv', oneOf(['one', 'all']), 'headView');
  read('lang', oneOf(LANGUAGES), 'lang');
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

// What the page's controls say: the decoding and its settings, and the head view's mode, read
// from the controls themselves; what a link without such a field stands for (DEFAULTS); and the
// menus whose choices are the wasm module's (`facts`: the attention kinds, the decodings).

import { $, optionT } from '../ui/dom.js';
import { state } from './store.js';

/** The state a link without a field stands for, but for the decoding and the focus (`defaults` in app/links.js). */
export const DEFAULTS = Object.freeze({
  model: null, // the index's default
  text: null, // the model's example
  backend: null, // the page's default
  seed: 1,
  beamWidth: 4,
  beamAlpha: 1,
  beamNode: null,
  forced: [],
  steps: null, // null: decoded to the end
  hideSinks: false,
  transposed: false,
  headView: 'one',
  lang: null, // follow the browser
  lesson: null, // the lesson closed
  off: '', // every head on
});

/** The decoding that searches a beam rather than decoding one output (one of facts.decodings). */
export const BEAM = 'beam';

/** The decoding chosen: one of facts.decodings. */
export const decoding = () => $('sampling-select').value;

/** The head view's mode: 'one' or 'all'. */
export const headViewMode = () => document.querySelector('input[name=headview-mode]:checked')?.value ?? 'one';

/** The beam controls' width (1 to the module's widest) and length penalty α (≥ 0); the link's defaults for bad input. */
export function beamOptions() {
  const width = Math.round(Number($('beam-width').value));
  const alpha = Number($('beam-alpha').value);
  return {
    width: Number.isFinite(width) ? Math.min(state.facts.maxBeamWidth, Math.max(1, width)) : DEFAULTS.beamWidth,
    lengthPenalty: Number.isFinite(alpha) && alpha >= 0 ? alpha : DEFAULTS.beamAlpha,
  };
}

/** The worker's sampling settings for the decoding controls. */
export function samplingArgs() {
  const mode = decoding();
  $('seed-option').hidden = mode !== 'sample';
  const seed = Math.max(0, Math.round(Number($('sample-seed').value)) || 0);
  // A beam search is its own request; stepping on from one of its hypotheses is greedy.
  return { mode: mode === BEAM ? 'greedy' : mode, temperature: 1, topK: 5, seed };
}

/**
 * The menus of the module's facts: the decodings and the attention kinds, each option named in
 * the page's language (its data-i18n key names it again when the language changes).
 */
export function fillFactMenus(facts) {
  $('sampling-select').replaceChildren(...facts.decodings.map((mode) => optionT(mode, `input.${mode}`)));
  $('kind-select').replaceChildren(...facts.kinds.map((kind) => optionT(kind, `kind.${kind}`)));
  $('beam-width').max = String(facts.maxBeamWidth);
}

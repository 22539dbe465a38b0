// Decoding actions: typing (debounced; answers to outdated requests are dropped), greedy, sampled
// and beam decoding, stepping, forcing, and looking at another head. Every answer from the worker
// is { trace, stages, analysis, backend }: the whole trace so far, the stages of the focused head
// (the selection, sent with every translation and on every change), and its analysis.

import { drawnAll, keystroke, redrawn } from '../testing/hooks.js';
import { $ } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { isSummaryHead } from '../views/attention.js';
import { pathIds } from '../views/beamtree.js';
import { headsForAnswer } from './heads.js';
import { DEFAULTS, noteHistory, noteKeystroke, updateLink } from './links.js';
import { clearMessageUnlessInfo, handleError, noteRecording, showMessage } from './messages.js';
import { renderAll, renderStepButtons } from './render.js';
import { leaveSavedTrace } from './saved.js';
import { call, parts, state } from './store.js';

const DEBOUNCE_MS = 150;
const PLAY_STEP_MS = 400;
const STEP_OPERATIONS = new Set(['step', 'back', 'reset', 'runToEnd', 'force', 'prefix', 'forceIds']);

/** Show a worker answer, unless it is stale or older than the one shown. */
export function showAnswer(result, generation) {
  if (!result || result.stale) return false;
  if (generation != null && generation < state.shownGeneration) return false;
  if (generation != null) state.shownGeneration = generation;
  state.trace = result.trace;
  state.stages = result.stages;
  state.recorded = result.recorded ?? null;
  state.analysis = result.analysis;
  headsForAnswer();
  renderAll((seenMs) => redrawn(generation, result.ms ?? null, seenMs)).then((renderMs) => {
    if (renderMs != null) drawnAll(generation, renderMs);
  });
  return true;
}

/** Ask the worker for `type` on the current sentence, show the answer and note it in the history. */
export async function run(type, args = {}) {
  try {
    const result = await call(type, args);
    clearMessageUnlessInfo();
    if (showAnswer(result, args.gen)) {
      noteRecording(result);
      noteHistory(historyKind(type, args));
    }
    return result;
  } catch (error) {
    handleError(error);
    return null;
  }
}

/** How an answer to `type` enters the history: part of a sentence, a step of its own, or neither. */
function historyKind(type, args) {
  if (type === 'translate' || (type === 'forceIds' && args.gen != null)) return 'sentence';
  return STEP_OPERATIONS.has(type) ? 'push' : 'replace';
}

/** A keystroke in the sentence box: translate once typing pauses. */
export function onInput() {
  if (state.saved) {
    leaveSavedTrace();
    return;
  }
  noteKeystroke(performance.now());
  clearTimeout(state.typingTimer);
  const generation = ++state.generation;
  keystroke(generation);
  state.typingTimer = setTimeout(() => translate(generation), DEBOUNCE_MS);
}

/** Translate the sentence in the box, greedy or sampled, or by beam search. */
export async function translate(generation = ++state.generation) {
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
  const mode = $('sampling-select').value;
  $('seed-option').hidden = mode !== 'sample';
  const seed = Math.max(0, Math.round(Number($('sample-seed').value)) || 0);
  // A beam search is its own request; stepping on from one of its hypotheses is greedy.
  return { mode: mode === 'beam' ? 'greedy' : mode, temperature: 1, topK: 5, seed };
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
    parts.views.beamTree.render(beam);
    clearMessageUnlessInfo();
    if (beam.finals.length) await showBeamNode(beam.finals[0].node, generation);
  } catch (error) {
    handleError(error);
  }
}

/** Replace the output with the path from <s> to beam node `node`; every view shows it. */
export async function showBeamNode(node, generation = null) {
  if (!state.beam) return;
  state.beamNode = node;
  parts.views.beamTree.highlight(node);
  state.playing = false;
  await run('forceIds', { gen: generation ?? undefined, ids: pathIds(state.beam, node), continue: false });
}

export function showBeamControls(on) {
  $('beam-options').hidden = !on;
  $('beam-panel').hidden = !on;
  if (on) return;
  state.beam = null;
  state.beamNode = null;
  parts.views.beamTree.clear();
}

export async function step() {
  if (!state.trace || state.trace.finished) return;
  await run('step');
}

/** Force token `id` at output position `index` and decode on from it. */
export async function force(index, id) {
  state.playing = false;
  await run('force', { index, id, continue: true });
}

/** Play (or pause): a step every PLAY_STEP_MS until the output is finished. */
export async function play() {
  state.playing = !state.playing;
  renderStepButtons();
  while (state.playing && state.trace && !state.trace.finished) {
    await step();
    await new Promise((resolve) => setTimeout(resolve, PLAY_STEP_MS));
  }
  state.playing = false;
  renderStepButtons();
}

/** `selection` with its layer and head within the loaded model. */
export function clampSelection(selection) {
  const { config } = state;
  if (!config) return selection;
  const layers = selection.kind === 'encoderSelf' ? config.nEncoderLayers : config.nDecoderLayers;
  const head = isSummaryHead(selection.head) ? selection.head : Math.min(selection.head, config.nHeads - 1);
  return { ...selection, layer: Math.min(selection.layer, layers - 1), head };
}

/** Look at another kind, layer or head: the worker answers with that head's stages. */
export async function select(change) {
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

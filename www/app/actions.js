// Decoding actions: typing (debounced; answers to outdated requests are dropped), greedy, sampled
// and beam decoding, stepping, forcing, and looking at another head. Every answer from the worker
// is { trace, stages, analysis, backend }: the whole trace so far, the stages of the focused head
// (the selection, sent with every translation and on every change), and its analysis. What
// happened is announced on the bus (www/ui/bus.js: keystroke, answer-shown, selection, and
// decoder-step for what the person did with the stepper), for the link, the Heads panel, the
// lesson and the tests to follow; how long it took to show is in the browser's
// performance timeline (`redraw: in sight`, `redraw: everything`, `first heatmap`).

import { announce } from '../ui/bus.js';
import { $ } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { isSummaryHead } from '../views/attention.js';
import { pathIds } from '../views/beamtree.js';
import { BEAM, beamOptions, decoding } from './controls.js';
import { clearMessageUnlessInfo, handleError, noteRecording, showMessage } from './messages.js';
import { markBeamNode, refresh, renderAll, renderStepButtons } from './render.js';
import { call, state } from './store.js';
import { expectSummaries } from './summaries.js';

const DEBOUNCE_MS = 150;
const PLAY_STEP_MS = 400;
const STEP_OPERATIONS = new Set(['step', 'back', 'reset', 'runToEnd', 'force', 'prefix', 'forceIds']);

/**
 * Show a worker answer, unless it is stale or older than the one shown; `history`: how it enters
 * the browser's history ('sentence', 'push', 'replace'), or null when it does not.
 */
export function showAnswer(result, generation, history = null) {
  if (!result || result.stale) return false;
  if (generation != null && generation < state.shownGeneration) return false;
  if (generation != null) state.shownGeneration = generation;
  state.trace = result.trace;
  state.stages = result.stages;
  state.recorded = result.recorded ?? null;
  expectSummaries(result);
  announce('answer-shown', { generation, history });
  const computeMs = result.ms ?? null;
  renderAll((seenMs) => inSight(generation, computeMs, seenMs), { answer: true }).then((renderMs) => {
    if (renderMs != null) measureFromKeystroke('redraw: everything', generation, { renderMs });
  });
  return true;
}

/** Every view in sight shows the answer to `generation`: the time since its keystroke, and a loaded model's first heatmap. */
function inSight(generation, computeMs, renderMs) {
  if (state.firstHeatmapDue) {
    state.firstHeatmapDue = false;
    performance.mark('first heatmap', { detail: { model: state.model?.name ?? null } });
  }
  measureFromKeystroke('redraw: in sight', generation, { computeMs, renderMs });
}

/** A user-timing measure `name` from the keystroke of `generation` to now (none for an answer no keystroke asked for). */
function measureFromKeystroke(name, generation, detail) {
  const start = state.typedAt.get(generation);
  if (start == null) return;
  performance.measure(name, { start, end: performance.now(), detail: { generation, ...detail } });
}

/** Ask the worker for `type` on the current sentence, show the answer and note it in the history. */
export async function run(type, args = {}) {
  try {
    const result = await call(type, args);
    clearMessageUnlessInfo();
    if (showAnswer(result, args.gen, historyKind(type, args))) noteRecording(result);
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
  const at = performance.now();
  clearTimeout(state.typingTimer);
  const generation = ++state.generation;
  state.typedAt.set(generation, at);
  if (state.typedAt.size > 100) state.typedAt.delete(state.typedAt.keys().next().value);
  announce('keystroke', { generation, at });
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
  if (decoding() === BEAM) await beamTranslate(generation, text);
  else await run('translate', { gen: generation, text, focus: state.selection });
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
    state.beamNode = null;
    refresh('beamTree');
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
  markBeamNode();
  state.playing = false;
  await run('forceIds', { gen: generation ?? undefined, ids: pathIds(state.beam, node), continue: false });
}

/** The beam's controls and tree shown (`on`), or hidden and the beam forgotten. */
export function showBeamControls(on) {
  $('beam-options').hidden = !on;
  $('beam-panel').hidden = !on;
  if (on) return;
  state.beam = null;
  state.beamNode = null;
  refresh('beamTree');
}

/**
 * A stepper operation the person asked for: `type` with `args` to the worker, its answer shown,
 * then `decoder-step` { operation, tokens, finished } announced (`operation`: 'step', 'back',
 * 'reset', 'runToEnd', 'force', 'prefix' or 'play'; `tokens`: the output so far with <s>, the
 * decoder's input rows for the next step). Nothing is announced when no answer is shown (an
 * error, a stale answer). A link replaying its steps calls `run` instead: that is not the person.
 */
export async function decoderStep(type, args = {}, operation = type) {
  const result = await run(type, args);
  if (!result?.trace || state.trace !== result.trace) return result;
  const { tgtTokens, finished } = state.trace;
  announce('decoder-step', { operation, tokens: tgtTokens.length, finished: Boolean(finished) });
  return result;
}

/** One step of the decoder (`operation`: 'step', or 'play' for a step that Play makes). */
export async function step(operation = 'step') {
  if (!state.trace || state.trace.finished) return;
  await decoderStep('step', {}, operation);
}

/** Force token `id` at output position `index` and decode on from it. */
export async function force(index, id) {
  state.playing = false;
  await decoderStep('force', { index, id, continue: true });
}

/** Play (or pause): a step every PLAY_STEP_MS until the output is finished. */
export async function play() {
  state.playing = !state.playing;
  renderStepButtons();
  while (state.playing && state.trace && !state.trace.finished) {
    await step('play');
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
  announce('selection', state.selection);
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

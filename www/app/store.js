// The page's state, declared in one place. The model lives in the worker; what the page knows of
// it, what it shows and the bookkeeping of its requests and redraws are the fields below, each
// written by the app/ module named beside it (read by any). This module imports nothing: every
// other app/ module may read it. In test mode the browser tests and the benchmark read `state` as
// window.__attnscope.state (www/testing/hooks.js).

export const state = {
  // What the wasm module says both threads must agree on, from the first worker (www/worker/modules.js
  // `facts`): { kinds, decodings, maxBeamWidth, defaultFocus: { kind, layer, head }, backends }.
  // Null until then.
  facts: null,

  // The models (app/models.js)
  models: [], // models/index.json's entries, then each model opened from the computer (app/open-model.js)
  model: null, // the entry of the model on screen
  config: null, // its config (a saved trace's while one is shown)
  liveConfig: null, // the loaded model's config, kept while a saved trace's stands in for it (app/saved.js)
  localNames: new Set(), // every name a local model had: none is given twice
  bootTicket: 0, // the latest model load's ticket: an older one that finishes late is dropped
  positional: null, // the model's positional-encoding table (www/shared/wire.js positional)
  batch: null, // the padding demo's batch (www/shared/wire.js paddedBatch), or null
  timeline: null, // the model's training timeline (www/worker/training.js), or null
  snapshot: 0, // the index of the timeline snapshot whose weights the worker uses
  wantedSnapshot: null, // the snapshot the latest pick asked for, while another one loads
  snapshotsLoading: null, // resolves once the wanted snapshots have loaded, or null

  // What the page shows (app/actions.js)
  trace: null,
  stages: null, // the focused head's stages, from the same answer as `trace`
  recorded: null, // the step whose recording the shown answer is (www/worker/recording.js), or null: the weights' own
  analysis: null, // the shown trace's head summaries and rollouts (www/shared/wire.js analysis), or null
  selection: null, // { kind, layer, head } looked at: facts.defaultFocus at first
  hideSinks: false, // leave the <s>/</s> key columns out of the focused heatmap and the model view
  beam: null, // the current sentence's beam search (www/shared/wire.js beam) in beam mode, or null
  beamNode: null, // the beam node whose path the page shows
  saved: null, // { name, model, text, stages } while the page shows a trace read from a file (app/saved.js)
  playing: false, // the stepper's Play is running

  // Which heads matter (app/heads.js)
  headStudy: null, // the model's heads.json (www/worker/model-folder.js parseHeads): roles and held-out importance, or null
  ablation: { spec: '', heads: [], report: null }, // the heads switched off: as asked ('KIND:LAYER:HEAD,…'), as the module read them, and its report on the shown output (www/shared/wire.js ablation, with `key`), or null
  importance: null, // each head's importance for the output `key` names (www/shared/wire.js importance, with ms, backend, key), or null
  headsBusy: { ablating: false, measuring: false }, // what the worker is measuring for the Heads panel

  // Requests (app/actions.js)
  generation: 0, // the latest keystroke's (or sentence's) number
  shownGeneration: 0, // the number of the sentence the page shows
  typingTimer: null, // the debounce of the latest keystroke
  typedAt: new Map(), // generation → when its keystroke was (performance.now()), the latest 100: redraws are measured from it

  // The worker's notices (app/messages.js)
  backend: 'cpu', // the backend that answers
  backendNews: null, // { backend, warming }: the latest, shown again in another language

  // Redraws (app/render.js)
  renderTicket: 0, // the latest redraw's ticket: an older one stops where it is
  measured: 0, // user-timing entries written since the last clear
  firstHeatmapDue: false, // a model has loaded and its first answer is not yet in sight (the `first heatmap` mark)

  // The link (app/links.js)
  sentenceOpen: true, // the current sentence has its history entry (the first one: the page's own)
  lastKeystroke: Number.NEGATIVE_INFINITY, // when the latest keystroke was (performance.now()): a pause ends a sentence
  restoring: false, // a link is being applied: the history is written once, at its end
  firstLink: null, // resolves once the page's first link has been applied, its model shown or failed (app/main.js)
};

/**
 * The page's parts, made once by app/main.js before anything else runs: the worker client
 * (app/client.js), the views by name (app/views.js) and the lesson (www/lesson/).
 */
export const parts = { client: null, views: null, lesson: null };

/** Ask the worker in use (app/client.js call). */
export function call(type, args) {
  return parts.client.call(type, args);
}

/** The config's ids of <s> and </s>: the key columns attention sinks are made of. */
export const specialIds = () => ({ bosId: state.config.bosId, eosId: state.config.eosId });

/** Whether the shown output can be measured (heads switched off, importance): a live model, and a token after <s>. */
export const measurable = () => Boolean(state.trace && !state.saved && state.trace.tgtIds.length >= 2);

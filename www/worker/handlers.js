// The worker's requests, by type: what each does with the model and the sessions, and what it
// answers. A second CPU session serves the page's comparison view.

import { keepSnapshot } from '../shared/snapshots.js';
import * as wire from '../shared/wire.js';
import {
  backendName,
  cpuSession,
  currentSession,
  free,
  recordingReply,
  reply,
  sessions,
  setPreference,
  start,
  withSession,
} from './backends.js';
import { beat, errorText, progress } from './messages.js';
import { createSession, loadModel, loadModelTimeline, model, snapshotsShown, snapshotWeights } from './model.js';
import { parseHeads } from './model-folder.js';
import { attentionKinds, facts, loadCpuModule } from './modules.js';
import { dropRecording, refuseOnRecording, useRecording } from './recording.js';
import { apply, configure, currentText, forgetSentence, logOp, sentence } from './sentence.js';

/**
 * The requests that are one call into the model whose length grows with the model, the sentence
 * or the beam (a pass per head, per source token, per beam step), with no point inside where the
 * worker could say it is alive: on opus-mt-tc-big's shape (2 cores, CPU module), importance took
 * 174 s and a beam of 8 took 35–50 s as one synchronous stretch. The page allows them a longer
 * silence (www/app/liveness.js LONG_SILENT_MS).
 */
export const SWEEPS = new Set(['importance', 'beam', 'attribution', 'ablate']);

// A second CPU session for the comparison view, made on first use, and the heads it decodes
// without ('' = every head on; Session.setAblation).
const comparison = { session: null, off: '' };

/** Apply `op` to the current sentence, log it for a replay, and answer. */
function sentenceOp(op) {
  if (op.type !== 'translate') refuseOnRecording(currentText());
  return withSession(async (session) => {
    const answer = await apply(session, op);
    logOp(op);
    return recordingReply(answer, session);
  });
}

function currentAnswer() {
  return withSession(async (session) => recordingReply(await session.answer(), session));
}

/** A tool that needs the weights: refused on a sentence shown from a recording. */
function withWeights(run) {
  return (args) => {
    refuseOnRecording(currentText());
    return run(args);
  };
}

function setFocus({ kind, layer, head: wanted }) {
  // A summary over heads ('mean', 'max') has no stages of its own: the answer carries head 0's.
  const head = Number.isInteger(wanted) ? wanted : 0;
  sentence.focus = { kind, layer, head };
  for (const session of sessions()) session.setFocus(kind, layer, head);
}

function dropComparison() {
  free(comparison.session);
  comparison.session = null;
  comparison.off = '';
}

/** What the loading bar calls `entry`: its name, its folder's, or its config's (loose files). */
function modelLabel(entry) {
  if (entry.name || entry.folder) return entry.name || entry.folder;
  try {
    return JSON.parse(new TextDecoder().decode(model.files.config)).name || '';
  } catch {
    return '';
  }
}

/**
 * args: { model, backend, text, sampling? }: load the model in the CPU session, with `sampling`
 * (the `sampling` request's arguments); WebGPU warms up on `text` beside it unless the backend is 'cpu'. Answers { config, positional, timeline, timelineNote, about, heads, notes, languages,
 * weightsHash } (`about`: a local folder's about.json, or null; `heads`: the folder's heads.json, or null; `notes`: what
 * importing a Hugging Face folder did not apply; `languages`: a multi-target model's `>>code<<` tokens;
 * `weightsHash`: the hash of the weights loaded, model.js `weightsHash`).
 */
async function init(args) {
  await phase('init: CPU module', loadCpuModule);
  await phase('init: model files', () => loadModel(args.model));
  // Building a big model takes seconds after its bytes are read: the bar says so.
  progress({ label: modelLabel(args.model), loaded: 0, total: 0, phase: 'load' });
  // The page's sampling comes with the model: the first translation waits for no request of its own.
  if (args.sampling) setSampling(args.sampling);
  // The model works without its timeline: a timeline that fails to load is only reported. Its
  // files are read while the session is made; it is ready before the backends start, so that
  // their news reaches a page that shows this model.
  const timelineRead = loadModelTimeline();
  timelineRead.catch(() => {}); // its error is said below, after the session's
  const cpu = await phase('init: session', () => createSession('cpu'));
  dropComparison();
  forgetSentence();
  dropRecording();
  let timeline = null;
  let timelineNote = null;
  try {
    timeline = await phase('init: timeline', () => timelineRead);
  } catch (error) {
    timelineNote = { key: 'timeline.loadFailed', params: { error: errorText(error) } };
  }
  start(cpu, args.backend || 'auto', args.text);
  const { about, heads, notes, weightsHash } = model;
  const languages = cpu.languageCodes();
  return {
    config: cpu.config(),
    positional: wire.positional(cpu.positionalEncoding()),
    timeline,
    timelineNote,
    about,
    heads,
    notes,
    languages,
    weightsHash,
  };
}

/** The page's sampling ({ mode, temperature, topK, seed }), for every session and those to come. */
function setSampling(args) {
  const sampling = { mode: args.mode, temperature: args.temperature, topK: args.topK, seed: args.seed };
  sentence.sampling = sampling;
  for (const session of sessions()) session.setSampling(sampling.mode, sampling.temperature, sampling.topK, sampling.seed);
}

/**
 * `run()`, timed as a user-timing measure named `name` in the worker's performance timeline
 * (benches/first-heatmap.mjs reads them: what the first heatmap after a load is made of). Each
 * phase may be one long synchronous chunk: the worker says it is alive after each.
 */
async function phase(name, run) {
  const start = performance.now();
  try {
    return await run();
  } finally {
    performance.measure(name, { start, end: performance.now() });
    beat();
  }
}

/**
 * args: { text, prefix?, off? }: `text` decoded in the comparison session (same weights, focus and
 * sampling; the current sentence stays as it is), forced to start with `prefix` when given, with
 * the heads of `off` (`KIND:LAYER:HEAD,…`) switched off (every head on without it).
 */
async function compare(args) {
  if (!comparison.session) {
    // The CPU session's weights, shared: a second copy of a big model would double its memory.
    comparison.session = configure(cpuSession().twin());
    if (sentence.snapshot) await comparison.session.loadSnapshot(sentence.snapshot.weights);
  }
  const session = configure(comparison.session);
  const off = args.off ?? '';
  if (off !== comparison.off) {
    // A refused spec leaves the session as it was.
    await session.setAblation(off);
    comparison.off = off;
  }
  if (args.prefix == null) return wire.answer(await session.translate(args.text));
  await session.start(args.text);
  return wire.answer(await session.prefix(args.prefix));
}

/**
 * args: { step }: the weights of the timeline snapshot taken at `step`, kept for every later
 * sentence; answers with the current sentence decoded again with them (null when none yet).
 * Not retried on the CPU when WebGPU rejects it, as other operations are: a rejected file is the
 * likely reason, and a real loss of the GPU is caught by its device-lost watch.
 */
async function snapshot(args) {
  const entry = model.timeline?.snapshots.find((s) => s.step === args.step);
  if (!entry) throw new Error(`this model has no training snapshot at step ${args.step}`);
  // A playground snapshot brings its own heads.json: the Heads panel speaks of these weights.
  if (entry.heads) model.heads = parseHeads(new TextDecoder().decode(entry.heads), attentionKinds());
  if (entry.recorded) {
    // The session keeps the final weights; the recording answers for the sentences it holds.
    await useRecording(entry, model.timeline.sentences, await snapshotWeights(entry));
    return sentence.log.length ? currentAnswer() : null;
  }
  dropRecording();
  const op = { type: 'snapshot', step: entry.step, weights: await snapshotWeights(entry) };
  const answer = await apply(currentSession(), op);
  logOp(op);
  dropComparison(); // made again with these weights when next asked
  if (!answer) return null;
  return entry.heads ? { ...reply(answer), heads: model.heads } : reply(answer);
}

/**
 * args: { step, loss, heldout, kept, bytes }: a snapshot of the playground's model in training
 * (www/shared/snapshots.js says which the timeline keeps), used at once as `snapshot` uses one.
 * Answers { snapshots (without weights), index, answer, heads (parseHeads of its heads.json) }.
 */
async function addSnapshot(args) {
  if (!model.entry?.playground) throw new Error('the model on screen is not training in the playground');
  const index = keepSnapshot(model.timeline.snapshots, { ...args, file: `step-${args.step}.safetensors`, lossStep: args.step });
  const answer = await snapshot({ step: args.step });
  return { snapshots: snapshotsShown(model.timeline), index, answer, heads: model.heads };
}

export const handlers = {
  /** The facts the page must agree on with the module (www/worker/modules.js facts). */
  facts: () => facts(),
  init,
  /** args: { backend, text }: the page's backend preference; answers the current sentence again (null without one). */
  async setBackend(args) {
    await setPreference(args.backend, args.text);
    return sentence.log.length ? currentAnswer() : null;
  },
  /**
   * args: { gen, text, focus? }: the focus is set first, so the answer carries its stages. While a
   * recorded snapshot is picked, the session still decodes `text` (with the final weights), so
   * that moving to the last snapshot shows it at once.
   */
  async translate(args) {
    if (args.focus) setFocus(args.focus);
    const t0 = performance.now();
    const result = await sentenceOp({ type: 'translate', text: args.text });
    return { ...result, ms: performance.now() - t0 };
  },
  step: () => sentenceOp({ type: 'step' }),
  runToEnd: () => sentenceOp({ type: 'runToEnd' }),
  back: () => sentenceOp({ type: 'back' }),
  reset: () => sentenceOp({ type: 'reset' }),
  force: (args) => sentenceOp({ type: 'force', index: args.index, id: args.id, continue: args.continue }),
  prefix: (args) => sentenceOp({ type: 'prefix', text: args.text }),
  compare: withWeights(compare),
  /** args: { ids, continue }: the output replaced by these target ids (a beam hypothesis). */
  forceIds: (args) => sentenceOp({ type: 'forceIds', ids: args.ids, continue: args.continue }),
  /** args: { width, lengthPenalty }: a beam search over the current sentence, which it leaves as it is. */
  beam: withWeights((args) => withSession(async (session) => wire.beam(await session.beam(args.width, args.lengthPenalty)))),
  /** args: { row }: what made decoder row `row` produce its token (occlusion, attention, rollout). */
  attribution: withWeights((args) => withSession(async (session) => wire.attribution(await session.attribution(args.row)))),
  /** args: { stack, layer, position }: one position's journey through one layer (wire.journey). */
  inspect: withWeights((args) =>
    withSession(async (session) => wire.journey(await session.inspect(args.stack, args.layer, args.position))),
  ),
  /** args: { spec }: the current output decoded again with these heads off (wire.ablation); the session is unchanged. */
  ablate: withWeights((args) => withSession(async (session) => wire.ablation(await session.ablate(args.spec)))),
  /** Every head's importance for the current output (wire.importance), and the milliseconds measuring took. */
  importance: withWeights(() =>
    withSession(async (session) => {
      const t0 = performance.now();
      const measured = wire.importance(await session.importance());
      return { ...measured, ms: performance.now() - t0, backend: backendName() };
    }),
  ),
  snapshot,
  addSnapshot,
  /** A new head to look at: the current sentence's answer with that head's stages. */
  async focus(args) {
    setFocus(args);
    return currentAnswer();
  },
  answer: () => currentAnswer(),
  async sampling(args) {
    setSampling(args);
    return null;
  },
  batch: (args) => withSession(async (session) => wire.paddedBatch(await session.paddedBatch(args.texts))),
};

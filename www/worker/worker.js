// The Web Worker that owns the wasm modules and the model. The page never blocks on it.
//
// Two builds with one API: pkg/cpu (burn's CPU backend only, small, loaded first) and pkg/webgpu
// (adds burn-wgpu, imported only when WebGPU will be used). Requests are handled one at a time, in
// order; a `translate` that a newer one has superseded is answered { stale: true } without
// running. The CPU session answers first; when the module's chooseBackend picks WebGPU, a WebGPU
// session warms up beside it (shader compilation) and takes over when ready. If WebGPU fails or
// its device is lost, the worker replays the current sentence on the CPU and says so.
//
// A model with a training timeline can swap in the weights of any snapshot; the sessions keep
// them for every later sentence, and a replay puts them in place first.
//
// A model opened from the person's computer comes as File objects (www/model-folder.js reads
// them here); it has no index entry, no content hashes and no timeline.
import { cachedFile, moduleBytes } from './cache.js';
import { pickModelFiles, readModelFiles } from './model-folder.js';
import initCpu, { Session as CpuSession, chooseBackend, modelFileNames } from '../pkg/cpu/attnscope.js';
import { loadTimeline } from './training.js';
import * as wire from '../shared/wire.js';
import { hookHandlers } from '../testing/worker-hooks.js';

const post = (message, transfer = []) => self.postMessage(message, transfer);
const progress = (report) => post({ type: 'progress', ...report });
const errorText = (error) => error?.message || String(error);

// Every GPUDevice this worker creates, watched for loss (and lost on purpose by a test hook).
const gpuDevices = [];
if (self.GPUAdapter?.prototype.requestDevice) {
  const original = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (...args) {
    const device = await original.apply(this, args);
    gpuDevices.push(device);
    device.lost.then((info) => onDeviceLost(info));
    return device;
  };
}

let cpuWasm = null; // exports of the CPU module (its memory)
let gpuModule = null; // { Session, wasm } of the WebGPU module, once imported
let model = null; // the current model's entry in models/index.json, or a local one: { local: true, folder, sources }
let files = null; // the current model's bytes, by modelFileNames() key
let timeline = null; // its training timeline (training.js loadTimeline), or null
let snapshot = null; // { type: 'snapshot', step, weights } in use, or null: the shipped weights
let focus = null; // { kind, layer, head }: the head whose stages every answer carries
let sampling = null; // { mode, temperature, topK, seed }, or null for the default (greedy)
let log = []; // operations on the current sentence (and the snapshot it began with), to replay
let comparison = null; // a second CPU session for the page's comparison view, made on first use
let needsReplay = false; // the CPU must replay the sentence before it answers anything
let latestGeneration = 0;
let queue = Promise.resolve();

/** The sessions and which one answers. `gpu` is set only while `gpuState` is 'ready'. */
const backends = {
  preference: 'auto', // what the page asked for: 'auto' | 'cpu' | 'webgpu'
  cpu: null,
  gpu: null,
  gpuState: 'off', // 'off' | 'warming' | 'ready' | 'dead'
  warmup: 0, // the latest warm-up's ticket: an older one never takes over
  current() {
    return this.gpuState === 'ready' ? this.gpu : this.cpu;
  },
  name() {
    return this.gpuState === 'ready' ? 'webgpu' : 'cpu';
  },
  dropGpu(state) {
    free(this.gpu);
    this.gpu = null;
    this.gpuState = state;
    this.warmup += 1;
  },
};

function free(session) {
  try {
    session?.free();
  } catch {
    // A trapped or busy session may refuse; it is dropped either way.
  }
}

async function loadCpuWasm() {
  if (!cpuWasm) cpuWasm = await initCpu({ module_or_path: await moduleBytes('cpu', 'WebAssembly (CPU)', progress) });
}

async function loadGpuModule() {
  if (!gpuModule) {
    const glue = await import('../pkg/webgpu/attnscope.js');
    const wasm = await glue.default({ module_or_path: await moduleBytes('webgpu', 'WebAssembly (WebGPU)', progress) });
    gpuModule = { Session: glue.Session, wasm };
  }
  return gpuModule;
}

/** A file of the current model's folder, cached under its hash in models/index.json. */
function modelFile(name, onProgress = progress) {
  return cachedFile(`models/${model.name}/${name}`, model.files[name] || 'none', `${model.name}/${name}`, onProgress);
}

/** The model's files, named by the wasm module. */
async function loadModel() {
  const out = {};
  for (const [key, name] of Object.entries(modelFileNames())) out[key] = await modelFile(name);
  return out;
}

/** A local model's files, picked by name from the File objects the page sent and read here. */
function readLocalModel() {
  return readModelFiles(pickModelFiles(model.sources, modelFileNames()), model.folder, progress);
}

/** The weights of a timeline snapshot; the last one is the model's own weights file. */
function snapshotWeights(entry) {
  if (entry.file === modelFileNames().weights) return files.weights;
  // Silent: a snapshot is small, and the page's loading bar is for loading a model.
  return modelFile(entry.file, () => {});
}

/** Apply the page's focus and sampling to a session that has not seen them. */
function configure(session) {
  if (focus) session.setFocus(focus.kind, focus.layer, focus.head);
  if (sampling) session.setSampling(sampling.mode, sampling.temperature, sampling.topK, sampling.seed);
  return session;
}

async function create(backend) {
  const Session = backend === 'cpu' ? CpuSession : (await loadGpuModule()).Session;
  const session = await Session.create(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer, backend);
  return configure(session);
}

/** One operation on the current sentence; resolves to the session's Answer. */
function apply(session, op) {
  switch (op.type) {
    case 'translate':
      return session.translate(op.text);
    case 'step':
      return session.step();
    case 'runToEnd':
      return session.runToEnd();
    case 'back':
      return session.back();
    case 'reset':
      return session.reset();
    case 'force':
      return session.force(op.index, op.id, op.continue);
    case 'forceIds':
      return session.forceIds(op.ids, op.continue);
    case 'prefix':
      return session.prefix(op.text);
    case 'snapshot':
      return session.loadSnapshot(op.weights);
    default:
      throw new Error(`unknown operation ${op.type}`);
  }
}

const isSentenceOp = (op) => op.type !== 'snapshot';

/**
 * Run the logged operations on `session`; resolves to the last Answer, or null when no sentence
 * was started (weights alone re-decode whatever the session held, nothing the page asked for).
 */
async function replay(session) {
  let answer = null;
  for (const op of log) answer = await apply(session, op);
  return log.some(isSentenceOp) ? answer : null;
}

/** What the page gets for an Answer: the decoded trace and stages, and who computed them. */
function reply(answer, extra = {}) {
  return { ...wire.answer(answer), backend: backends.name(), ...extra };
}

function announce(note = '') {
  const { preference, gpuState } = backends;
  post({ type: 'backend', backend: backends.name(), preference, note, warming: gpuState === 'warming' });
}

/** Stop using WebGPU at once and say so; the CPU replays the sentence before its next answer. */
function switchToCpuNow(reason) {
  if (backends.gpuState === 'dead') return;
  if (backends.gpuState === 'ready') needsReplay = true;
  backends.dropGpu('dead');
  announce(`WebGPU stopped working (${reason}); switched to the CPU backend.`);
}

/** Bring the CPU session to the current sentence if WebGPU was lost under it, and show it. */
async function catchUp() {
  if (!needsReplay) return;
  needsReplay = false;
  const answer = await replay(backends.cpu);
  if (answer) send({ type: 'refresh', result: reply(answer) });
}

function onDeviceLost(info) {
  if (backends.gpuState !== 'ready') return;
  switchToCpuNow(`device lost: ${info?.reason || 'unknown'}${info?.message ? ` — ${info.message}` : ''}`);
  enqueue(() => catchUp().catch((error) => announce(`The CPU could not take over the sentence (${errorText(error)}).`)));
}

function startGpu(text) {
  backends.gpuState = 'warming';
  backends.warmup += 1;
  warmUpGpu(text, backends.warmup);
}

/** Ask the module which backend `preference` means here; warm WebGPU up if it is that one. */
async function warmUpGpu(text, ticket) {
  const { preference } = backends;
  const unavailable = (reason) =>
    preference === 'webgpu'
      ? `WebGPU is not available here (${reason}); using the CPU.`
      : `WebGPU unavailable (${reason}); running on the CPU.`;
  let session = null;
  try {
    const choice = await chooseBackend(preference);
    if (ticket !== backends.warmup) return;
    if (choice.backend !== 'webgpu') {
      // The note says why (no adapter, or only a software one for `auto`).
      backends.gpuState = 'dead';
      announce(choice.note);
      return;
    }
    session = await create('webgpu');
    // Compile the shaders on a real sentence before this backend answers anyone.
    await session.translate(text || 'Hello.');
  } catch (error) {
    free(session);
    if (ticket !== backends.warmup) return;
    backends.gpuState = 'dead';
    announce(unavailable(errorText(error)));
    return;
  }
  enqueue(async () => {
    if (ticket !== backends.warmup) {
      free(session);
      return;
    }
    try {
      const answer = await replay(configure(session));
      backends.gpu = session;
      backends.gpuState = 'ready';
      announce();
      if (answer) send({ type: 'refresh', result: reply(answer) });
    } catch (error) {
      free(session);
      backends.gpuState = 'dead';
      announce(unavailable(errorText(error)));
    }
  });
}

/** Run `fn` on the session in use; if WebGPU fails under it, fall back to the CPU and retry. */
async function withSession(fn) {
  const session = backends.current();
  try {
    return await fn(session);
  } catch (error) {
    if (session !== backends.gpu || backends.gpuState !== 'ready') throw error;
    switchToCpuNow(errorText(error));
    await catchUp();
    return fn(backends.current());
  }
}

/** Apply `op` to the current sentence, log it for a replay, and answer. */
function sentenceOp(op) {
  return withSession(async (session) => {
    const answer = await apply(session, op);
    // A new sentence starts from the weights in use: a replay loads them first.
    if (op.type === 'translate') log = snapshot ? [snapshot, op] : [op];
    else log.push(op);
    return reply(answer);
  });
}

function currentAnswer() {
  return withSession(async (session) => reply(await session.answer()));
}

function setFocus({ kind, layer, head: wanted }) {
  // A summary over heads ('mean', 'max') has no stages of its own: the answer carries head 0's.
  const head = Number.isInteger(wanted) ? wanted : 0;
  focus = { kind, layer, head };
  for (const session of [backends.cpu, backends.gpu]) session?.setFocus(kind, layer, head);
}

const handlers = {
  async init(args) {
    backends.preference = args.backend || 'auto';
    await loadCpuWasm();
    model = args.model;
    files = model.local ? await readLocalModel() : await loadModel();
    backends.cpu = await create('cpu');
    free(comparison);
    comparison = null;
    log = [];
    if (backends.preference !== 'cpu') startGpu(args.text);
    announce();
    // The model works without its timeline: a timeline that fails to load is only reported.
    let timelineNote = '';
    try {
      timeline = model.local ? null : await loadTimeline(model.files, (name) => modelFile(name));
    } catch (error) {
      timelineNote = `The training timeline could not be loaded (${errorText(error)}).`;
    }
    return {
      config: backends.cpu.config(),
      positional: wire.positional(backends.cpu.positionalEncoding()),
      timeline,
      timelineNote,
    };
  },
  async setBackend(args) {
    const previous = backends.preference;
    backends.preference = args.backend;
    const { gpuState } = backends;
    if (args.backend === 'cpu') {
      // The CPU session did not follow what WebGPU did.
      if (gpuState === 'ready') await replay(backends.cpu);
      backends.dropGpu('off');
      announce();
    } else if (
      gpuState === 'off' ||
      (gpuState === 'dead' && args.backend === 'webgpu') ||
      // A warm-up asks chooseBackend about the preference it started with.
      (gpuState === 'warming' && args.backend !== previous)
    ) {
      startGpu(args.text);
      announce();
    } else {
      announce(backends.gpuState === 'dead' ? 'WebGPU is not available here; using the CPU.' : '');
    }
    return log.length ? currentAnswer() : null;
  },
  /** args: { gen, text, focus? }: the focus is set first, so the answer carries its stages. */
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
  /**
   * args: { text, prefix? }: `text` decoded in the comparison session (same weights, focus and
   * sampling; the current sentence stays as it is), forced to start with `prefix` when given.
   */
  async compare(args) {
    if (!comparison) {
      comparison = await create('cpu');
      if (snapshot) await comparison.loadSnapshot(snapshot.weights);
    }
    configure(comparison);
    if (args.prefix == null) return wire.answer(await comparison.translate(args.text));
    await comparison.start(args.text);
    return wire.answer(await comparison.prefix(args.prefix));
  },
  /** args: { ids, continue }: the output replaced by these target ids (a beam hypothesis). */
  forceIds: (args) => sentenceOp({ type: 'forceIds', ids: args.ids, continue: args.continue }),
  /** args: { width, lengthPenalty }: a beam search over the current sentence, which it leaves as it is. */
  beam: (args) => withSession(async (session) => wire.beam(await session.beam(args.width, args.lengthPenalty))),
  /** The current trace's head summaries and rollouts. */
  /** args: { row }: what made decoder row `row` produce its token (occlusion, attention, rollout). */
  attribution: (args) => withSession(async (session) => wire.attribution(await session.attribution(args.row))),
  /**
   * args: { step }: the weights of the timeline snapshot taken at `step`, kept for every later
   * sentence; answers with the current sentence decoded again with them (null when none yet).
   * Not retried on the CPU when WebGPU rejects it, as other operations are: a rejected file is the
   * likely reason, and a real loss of the GPU is caught by its device-lost watch.
   */
  async snapshot(args) {
    const entry = timeline?.snapshots.find((s) => s.step === args.step);
    if (!entry) throw new Error(`this model has no training snapshot at step ${args.step}`);
    const op = { type: 'snapshot', step: entry.step, weights: await snapshotWeights(entry) };
    const answer = await apply(backends.current(), op);
    snapshot = op;
    free(comparison); // made again with these weights when next asked
    comparison = null;
    // Logged after the sentence's operations so far; of two in a row, the later weights decide.
    if (!log.some(isSentenceOp)) log = [op];
    else if (log.at(-1).type === 'snapshot') log[log.length - 1] = op;
    else log.push(op);
    return answer ? reply(answer) : null;
  },
  /** A new head to look at: the current sentence's answer with that head's stages. */
  async focus(args) {
    setFocus(args);
    return currentAnswer();
  },
  answer: () => currentAnswer(),
  async sampling(args) {
    sampling = { mode: args.mode, temperature: args.temperature, topK: args.topK, seed: args.seed };
    for (const session of [backends.cpu, backends.gpu])
      session?.setSampling(sampling.mode, sampling.temperature, sampling.topK, sampling.seed);
    return null;
  },
  batch: (args) => withSession(async (session) => wire.paddedBatch(await session.paddedBatch(args.texts))),
  ...hookHandlers({
    gpuDevices,
    stats: () => ({
      wasmBytes: cpuWasm ? cpuWasm.memory.buffer.byteLength : 0,
      gpuWasmBytes: gpuModule ? gpuModule.wasm.memory.buffer.byteLength : 0,
      backend: backends.name(),
    }),
  }),
};

/** Post a message, handing its buffers over instead of copying them (nothing here keeps them). */
function send(message) {
  post(message, [...wire.transferables(message)]);
}

function enqueue(job) {
  const run = queue.then(job);
  queue = run.catch(() => {
    // Every job reports its own failure (a request in its reply, a background job in a backend
    // note); the queue only has to carry on with the next one.
  });
  return run;
}

/** Answer one request; queued requests first let the CPU catch up with a lost WebGPU session. */
async function handle({ id, type, args }, queued) {
  const handler = handlers[type];
  try {
    if (!handler) throw new Error(`unknown request ${type}`);
    if (type !== 'init' && !backends.cpu) throw new Error('the model is not loaded');
    if (queued) await catchUp();
    send({ id, ok: true, result: await handler(args) });
  } catch (error) {
    // `problem`: { key, params } where the page has words of its own for what went wrong.
    post({ id, ok: false, error: errorText(error), trap: error instanceof WebAssembly.RuntimeError, problem: error?.problem ?? null });
  }
}

// Requests: { id, type, args }; the arguments stay apart from the envelope, so an argument
// named like a field of it (a token's `id`) cannot replace it.
self.onmessage = (event) => {
  const request = event.data;
  const { gen } = request.args;
  // Test hooks stand for events from outside (a lost GPU): they do not wait in the queue.
  if (request.type.startsWith('test:')) {
    handle(request, false);
    return;
  }
  if (gen != null) latestGeneration = Math.max(latestGeneration, gen);
  enqueue(async () => {
    if (gen != null && gen < latestGeneration) {
      post({ id: request.id, ok: true, result: { stale: true } });
      return;
    }
    await handle(request, true);
  });
};

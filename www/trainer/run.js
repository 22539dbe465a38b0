// One playground run in the training worker: the module's Playground, trained in chunks of steps
// that each take about CHUNK_MS, so that a pause, a download or a heartbeat is never more than a
// chunk away. Every call into the module goes through `exclusive`: the run is one object, borrowed
// by one call at a time.
//
// Notices: { type: 'reports', reports: [{ step, loss, learningRate }], stepsPerSecond } after each
// chunk; { type: 'evaluation', evaluation } every EVALUATE_EVERY steps and at the end (held-out
// loss, greedy exact match, attention entropy, samples); { type: 'snapshot', step, folder, names,
// kept } (names: each file's name, by the folder's key) when the views should follow: every
// EVALUATE_EVERY steps, and at every power of two (the snapshots the timeline keeps, `kept`);
// { type: 'state', state, steps, problem? } as the run starts, pauses, finishes or diverges.
import { modelFileNames, Playground } from '../pkg/train/attnscope.js';
import { errorText, post, problemOf } from '../worker/messages.js';
import { HEADS_FILE } from '../worker/model-folder.js';

/** A chunk of steps takes about this long. */
const CHUNK_MS = 60;
/** Held-out figures and a snapshot for the views every this many steps. */
export const EVALUATE_EVERY = 100;
/** Steps per second are measured over about this long. */
const RATE_WINDOW_MS = 2000;

const run = {
  playground: null,
  config: null,
  running: false,
  loop: Promise.resolve(), // the training loop under way (resolved when none is)
  state: 'idle', // idle | training | paused | done | diverged
  chunk: 4, // steps in the next chunk
  lastEvaluated: -1,
  timings: [], // [{ at, steps }] of recent chunks: the rate
};

let lock = Promise.resolve();

/** Run `fn` once every call before it has finished: one call into the run at a time. */
function exclusive(fn) {
  const result = lock.then(fn);
  lock = result.catch(() => {});
  return result;
}

function setState(state, problem = null) {
  run.state = state;
  post({ type: 'state', state, steps: run.playground?.steps() ?? 0, problem });
}

let webgpuModule = null;

/** pkg/train-webgpu (the training module with WebGPU), loaded the first time it is asked for. */
function trainWebgpu() {
  webgpuModule ??= import('../pkg/train-webgpu/attnscope.js').then(async (module) => {
    await module.default({ module_or_path: new URL('../pkg/train-webgpu/attnscope_bg.wasm', import.meta.url) });
    return module;
  });
  return webgpuModule;
}

/** Why WebGPU could not train: the module's own reason, or the failure as `error.webGpuUnavailable`'s. */
const webgpuProblem = (error) => problemOf(error) ?? { key: 'error.webGpuUnavailable', params: { reason: errorText(error) } };

/**
 * A Playground of `config` on `backend`: 'webgpu' (pkg/train-webgpu, initial weights the CPU's)
 * or the CPU (pkg/train). Where WebGPU fails to start, the CPU, with the reason as `fallback`.
 */
async function createPlayground(config, backend) {
  const json = JSON.stringify(config);
  if (backend === 'webgpu') {
    try {
      const { Playground: GpuPlayground } = await trainWebgpu();
      return { playground: await GpuPlayground.create(json, 'webgpu'), backend: 'webgpu', fallback: null };
    } catch (error) {
      if (error?.key !== 'error.webGpuUnavailable' && typeof error?.key === 'string') throw error;
      return { playground: new Playground(json), backend: 'cpu', fallback: webgpuProblem(error) };
    }
  }
  return { playground: new Playground(json), backend: 'cpu', fallback: null };
}

/**
 * A fresh run of `config` on `backend` ('webgpu' or 'cpu', the default), dropping the one
 * before: its info (Playground.info) with `backend` (the one it trains on) and `fallback`
 * ({ key, params } where WebGPU was asked for and could not start, else null).
 */
export async function startRun(config, backend = 'cpu') {
  run.running = false;
  await run.loop;
  return exclusive(async () => {
    const made = await createPlayground(config, backend);
    const next = made.playground;
    run.playground?.free();
    run.playground = next;
    const info = { ...next.info(), backend: made.backend, fallback: made.fallback };
    run.config = info.config;
    run.lastEvaluated = -1;
    run.timings = [];
    run.chunk = 4;
    setState('idle');
    await snapshot(true);
    return info;
  });
}

const isPowerOfTwo = (n) => n > 0 && (n & (n - 1)) === 0;

/**
 * Post the current weights as a model folder, with its heads.json (each head's roles and
 * importance over 32 held-out examples, scored by the module); `kept`: the timeline keeps it.
 */
async function snapshot(kept) {
  const folder = await run.playground.modelFolder();
  folder.heads = await run.playground.heads();
  const step = run.playground.steps();
  const names = { ...modelFileNames(), heads: HEADS_FILE };
  post(
    { type: 'snapshot', step, folder, names, kept },
    Object.values(folder).map((a) => a.buffer),
  );
}

async function evaluate() {
  const evaluation = await run.playground.evaluate();
  run.lastEvaluated = evaluation.step;
  post({ type: 'evaluation', evaluation });
  return evaluation;
}

function noteRate(steps) {
  const now = performance.now();
  run.timings.push({ at: now, steps });
  while (run.timings.length > 2 && now - run.timings[0].at > RATE_WINDOW_MS) run.timings.shift();
  const first = run.timings[0];
  const span = (now - first.at) / 1000;
  const taken = run.timings.slice(1).reduce((sum, t) => sum + t.steps, 0);
  return span > 0 && taken > 0 ? taken / span : null;
}

/** `n` steps (fewer at the run's end, or where a power of two or an evaluation is due). */
async function chunk(n) {
  const { playground } = run;
  const t0 = performance.now();
  let reports;
  try {
    reports = await playground.step(n);
  } catch (error) {
    run.running = false;
    if (error?.key === 'error.diverged') {
      // The kept weights are the step before: the views and the download show them.
      setState('diverged', { key: error.key, params: error.params });
      await snapshot(false);
      return false;
    }
    throw error;
  }
  const ms = performance.now() - t0;
  // Aim the next chunk at CHUNK_MS.
  run.chunk = Math.max(1, Math.min(64, Math.round((n * CHUNK_MS) / Math.max(ms, 1))));
  post({ type: 'reports', reports, stepsPerSecond: noteRate(n) });
  const step = playground.steps();
  const evaluationDue = step % EVALUATE_EVERY === 0 || step >= run.config.steps;
  if (evaluationDue) await evaluate();
  if (evaluationDue || isPowerOfTwo(step)) await snapshot(isPowerOfTwo(step) || step >= run.config.steps);
  return true;
}

/** Steps until the next power of two, evaluation or the end, at most `wanted`. */
function stepsUntilDue(wanted) {
  const step = run.playground.steps();
  const nextEvaluation = (Math.floor(step / EVALUATE_EVERY) + 1) * EVALUATE_EVERY;
  let nextPower = 1;
  while (nextPower <= step) nextPower *= 2;
  const limit = Math.min(nextEvaluation, nextPower, run.config.steps) - step;
  return Math.max(1, Math.min(wanted, limit));
}

const yieldToMessages = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Train until the run's last step, a pause or a divergence; resolves with the state then. */
export function train() {
  if (!run.playground) throw new Error('no run: start one first');
  if (run.running) return run.loop;
  if (run.state === 'diverged' || run.playground.steps() >= run.config.steps) return run.state;
  run.running = true;
  run.loop = loop();
  return run.loop;
}

async function loop() {
  run.timings = [];
  setState('training');
  try {
    while (run.running && run.playground.steps() < run.config.steps) {
      const going = await exclusive(() => chunk(stepsUntilDue(run.chunk)));
      post({ type: 'alive' });
      if (!going) return run.state;
      await yieldToMessages();
    }
  } catch (error) {
    // A failure that is not a divergence (a readback that failed): the run stops where it is.
    run.running = false;
    setState('paused', problemOf(error));
    throw error;
  }
  const finished = run.playground.steps() >= run.config.steps;
  run.running = false;
  setState(finished ? 'done' : 'paused');
  return run.state;
}

/** Stop after the chunk under way. */
export function pause() {
  run.running = false;
  return run.state;
}

/** Take `n` steps now (the learner's one step at a time), then evaluate and show them. */
export function stepOnce(n) {
  if (!run.playground) throw new Error('no run: start one first');
  return exclusive(async () => {
    if (run.state === 'diverged') return run.state;
    const going = await chunk(Math.max(1, Math.min(n, run.config.steps - run.playground.steps() || 1)));
    if (!going) return run.state;
    if (run.lastEvaluated !== run.playground.steps()) await evaluate();
    const step = run.playground.steps();
    if (step % EVALUATE_EVERY !== 0 && !isPowerOfTwo(step)) await snapshot(false);
    setState(step >= run.config.steps ? 'done' : 'paused');
    return run.state;
  });
}

/** The held-out figures of the weights now. */
export function evaluateNow() {
  if (!run.playground) throw new Error('no run: start one first');
  return exclusive(evaluate);
}

/** The current weights as a model folder ({ config, weights, srcTokenizer, tgtTokenizer } bytes). */
export function folder() {
  if (!run.playground) throw new Error('no run: start one first');
  return exclusive(() => run.playground.modelFolder());
}

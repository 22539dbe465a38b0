// The playground's training worker: it owns the training module (pkg/train, the CPU module with
// burn's autodiff and Adam) and one run, apart from the model's worker (www/worker/), so that
// translating with the shipped models never waits behind a training step. Loaded only when the
// playground opens.
//
// Requests: { id, type, args } → replies { id, ok, result } or { id, ok: false, error, problem }
// (problem: { key, params } of www/ui/i18n, from the module's JsError). The run itself posts
// notices (www/trainer/run.js): { type: 'reports' }, { type: 'evaluation' }, { type: 'snapshot' },
// { type: 'state' }, and { type: 'alive' } every HEARTBEAT_MS and after each chunk of steps
// (app/liveness.js's watch, as the model's worker). `memory` answers the training module's wasm
// memory in bytes (it only grows: the tests and the soak bench watch it across runs).
//
// Training runs on the CPU unless `start` names backend 'webgpu' (the page's backend menu set to
// WebGPU explicitly): then pkg/train-webgpu is loaded (only then) and the run trains there. A
// model of 30,000 parameters is hundreds of tiny kernels a step, where WebGPU pays a dispatch for
// each, so `auto` trains on the CPU (docs/playground.md, "Which backend trains").
import init, { checkPlaygroundConfig, modelFileNames, playgroundFacts } from '../pkg/train/attnscope.js';
import { errorText, post, problemOf } from '../worker/messages.js';
import { evaluateNow, folder, pause, startRun, stepOnce, train } from './run.js';

const HEARTBEAT_MS = 1000;
setInterval(() => post({ type: 'alive' }), HEARTBEAT_MS);

const loading = init({ module_or_path: new URL('../pkg/train/attnscope_bg.wasm', import.meta.url) });

const handlers = {
  facts: () => ({ ...playgroundFacts(), fileNames: modelFileNames() }),
  check: ({ config }) => checkPlaygroundConfig(JSON.stringify(config)),
  start: ({ config, backend }) => startRun(config, backend === 'webgpu' ? 'webgpu' : 'cpu'),
  train: () => train(),
  pause: () => pause(),
  step: ({ n }) => stepOnce(n ?? 1),
  evaluate: () => evaluateNow(),
  folder: () => folder(),
  memory: async () => (await loading).memory.buffer.byteLength,
};

async function answer({ id, type, args }) {
  try {
    await loading;
    const handler = Object.hasOwn(handlers, type) ? handlers[type] : null;
    if (!handler) throw new Error(`unknown request ${type}`);
    post({ id, ok: true, result: await handler(args ?? {}) });
  } catch (error) {
    post({ id, ok: false, error: errorText(error), problem: problemOf(error) });
  }
}

// Each request is answered as it comes: the run takes one call into the module at a time
// (www/trainer/run.js), and `train` is answered only when training stops.
self.onmessage = ({ data }) => answer(data);

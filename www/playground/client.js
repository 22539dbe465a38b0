// The page's side of the training worker (www/trainer/worker.js): requests matched to replies by
// id, the run's notices handed to `onNotice`, and the same liveness watch as the model's worker
// (app/liveness.js): a training worker silent for SILENT_MS is ended, every request it owed is
// rejected, and `onLost(reason)` is told.
//
// Notices (www/trainer/run.js): { type: 'reports', reports, stepsPerSecond },
// { type: 'evaluation', evaluation }, { type: 'snapshot', step, folder, kept },
// { type: 'state', state, steps, problem }.
import { createLiveness } from '../app/liveness.js';

/** Whether the page runs in test mode (www/boot.js): the worker is told too. */
const testing = () => new URLSearchParams(location.search).has('test');

/**
 * The backend a run trains on: 'webgpu' only where the page's backend menu (#backend-select) is
 * set to WebGPU explicitly; 'auto' and 'cpu' train on the CPU (docs/playground.md, "Which backend
 * trains").
 */
const trainingBackend = () => (document.getElementById('backend-select')?.value === 'webgpu' ? 'webgpu' : 'cpu');

/** What a request to a lost worker is rejected with. */
function lostError(reason) {
  const error = new Error(`the training worker stopped (${reason})`);
  error.problem = { key: 'playground.lost', params: { error: reason } };
  return error;
}

/**
 * A training worker, started now. Methods answer promises: facts(), check(config), start(config, backend?)
 * (backend: 'webgpu' or 'cpu'; by default the page's menu's, as trainingBackend says),
 * train() (resolves when training stops, with the state), pause(), step(n), evaluate(), folder(),
 * close(). A rejected request carries `problem` ({ key, params }) when the page has words for it.
 */
export function createTrainingClient({ onNotice, onLost }) {
  const url = new URL('../trainer/worker.js', import.meta.url);
  if (testing()) url.searchParams.set('test', '');
  let worker = new Worker(url, { type: 'module' });
  let nextId = 1;
  const pending = new Map(); // id → { resolve, reject }
  const liveness = createLiveness(() => lose('no answer for 30 s'));

  function lose(reason) {
    if (!worker) return;
    worker.terminate();
    liveness.forget(worker);
    worker = null;
    for (const { reject } of pending.values()) reject(lostError(reason));
    pending.clear();
    onLost(reason);
  }

  worker.onmessage = ({ data }) => {
    liveness.heard(worker);
    if (data.type === 'alive') return;
    if (data.id == null) {
      onNotice(data);
      return;
    }
    const entry = pending.get(data.id);
    if (!entry) return;
    pending.delete(data.id);
    if (data.ok) entry.resolve(data.result);
    else entry.reject(Object.assign(new Error(data.error), { problem: data.problem }));
  };
  worker.onerror = (event) => {
    event.preventDefault();
    lose(event.message || 'the worker failed to start');
  };
  liveness.watch(worker);

  function call(type, args = {}) {
    if (!worker) return Promise.reject(lostError('ended'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, type, args });
    });
  }

  return {
    facts: () => call('facts'),
    check: (config) => call('check', { config }),
    start: (config, backend = trainingBackend()) => call('start', { config, backend }),
    train: () => call('train'),
    pause: () => call('pause'),
    step: (n = 1) => call('step', { n }),
    evaluate: () => call('evaluate'),
    folder: () => call('folder'),
    close() {
      if (!worker) return;
      worker.terminate();
      liveness.forget(worker);
      worker = null;
    },
  };
}

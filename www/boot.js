// What the page needs first, started before the rest of the page's code runs: the model's worker,
// which loads the CPU wasm module as soon as it starts, and the model list. It imports nothing, so
// it runs first; app/client.js's first `spawn` and app/main.js's model list take over what it
// started (`takeWorker`, `modelList`). index.html loads the page's bundle (pkg/page/main.js,
// scripts/build-page.mjs), which holds this file and app/main.js, and this file starts the
// worker's bundle (pkg/page/worker.js); unbundled, it starts www/worker/worker.js.
//
// Test mode (`?test` in the page's address, for the browser tests and the benchmark): the test
// harness (www/testing/hooks.js) is installed first, before the first worker starts, so that it
// sees every worker and every request; and every worker is told so (`?test` in its address too)
// and loads its own hooks (www/testing/worker-hooks.js). A page without `?test` loads no file of
// www/testing/.

const TEST_MODE = new URLSearchParams(location.search).has('test');
if (TEST_MODE) await import('./testing/hooks.js');

/** The model worker's script, from the site's root: scripts/build-page.mjs defines `import.meta.workerScript`. */
const WORKER_SCRIPT = import.meta.workerScript ?? 'worker/worker.js';

/** A new worker for the model (in test mode, one that loads its test hooks). */
export function startWorker() {
  return new Worker(new URL(`${WORKER_SCRIPT}${TEST_MODE ? '?test' : ''}`, import.meta.url), { type: 'module' });
}

const early = {
  worker: startWorker(), // the first worker, until taken
  messages: [], // what it said before it was taken
  error: null, // why it could not start, if it said so before it was taken
  // models/index.json: a promise of the parsed list
  index: fetch(new URL('models/index.json', import.meta.url), { cache: 'no-cache' }).then((response) => response.json()),
};

early.worker.onmessage = (event) => early.messages.push(event.data);
early.worker.onerror = (event) => {
  event.preventDefault(); // the page says it once it takes the worker over
  early.error = event.message || 'an uncaught error';
};
early.index.catch(() => {}); // app/main.js reports it

/**
 * The worker started here with what it has said so far and the error it died of (null if none),
 * the first time; null after that.
 */
export function takeWorker() {
  const { worker, messages, error } = early;
  if (!worker) return null;
  early.worker = null;
  worker.onmessage = null;
  worker.onerror = null;
  return { worker, messages, error };
}

/** The model list's promise (parsed), started here. */
export function modelList() {
  return early.index;
}

// The Web Worker that owns the wasm modules and the model; the page never blocks on it. This file
// only receives requests and answers them, in order (www/worker/queue.js), by the handler of their
// type (www/worker/handlers.js). Which session answers, and the move to the CPU when WebGPU
// fails, is www/worker/backends.js's; replaying the current sentence, www/worker/sentence.js's.
//
// Requests: { id, type, args }; the arguments stay apart from the envelope, so an argument named
// like a field of it (a token's `id`) cannot replace it. Replies: { id, ok, result } or
// { id, ok: false, error, trap, problem } (`problem`: { key, params } where the page has words of
// its own for what went wrong).
import { watchGpuDevices } from '../testing/worker-hooks.js';
import { catchUp, hasModel, onDeviceLost } from './backends.js';
import { handlers } from './handlers.js';
import { errorText, post, problemOf, send } from './messages.js';
import { enqueue, isStale, noteGeneration } from './queue.js';

/** Requests answered before a model is loaded. */
const WITHOUT_MODEL = new Set(['facts', 'init']);

watchGpuDevices(onDeviceLost);

/** Answer one request; queued requests first let the CPU catch up with a lost WebGPU session. */
async function handle({ id, type, args }, queued) {
  const handler = handlers[type];
  try {
    if (!handler) throw new Error(`unknown request ${type}`);
    if (!WITHOUT_MODEL.has(type) && !hasModel()) throw new Error('the model is not loaded');
    if (queued) await catchUp();
    send({ id, ok: true, result: await handler(args) });
  } catch (error) {
    post({ id, ok: false, error: errorText(error), trap: error instanceof WebAssembly.RuntimeError, problem: problemOf(error) });
  }
}

self.onmessage = (event) => {
  const request = event.data;
  const { gen } = request.args;
  // Test hooks stand for events from outside (a lost GPU): they do not wait in the queue.
  if (request.type.startsWith('test:')) {
    handle(request, false);
    return;
  }
  noteGeneration(gen);
  enqueue(async () => {
    if (isStale(gen)) {
      post({ id: request.id, ok: true, result: { stale: true } });
      return;
    }
    await handle(request, true);
  });
};

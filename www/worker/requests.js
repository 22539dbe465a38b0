// The worker's requests, once its modules have loaded (www/worker/worker.js imports this file
// after starting the CPU module's load): each is answered in order (www/worker/queue.js) by the
// handler of its type (www/worker/handlers.js); what the envelope and a trap are is said in
// worker.js.
import { catchUp, hasModel, sendAnalysis } from './backends.js';
import { handlers, SWEEPS } from './handlers.js';
import { beat, errorText, post, problemOf, send } from './messages.js';
import { prefetchModel } from './model.js';
import { enqueue, isStale, noteGeneration } from './queue.js';

/** Requests answered before a model is loaded. */
const WITHOUT_MODEL = new Set(['facts', 'init']);

/** What a trap's message says, where the error is not a WebAssembly.RuntimeError of its own. */
const TRAP_MESSAGE =
  /unreachable|memory access out of bounds|out of memory|cannot allocate|allocation failed|call stack|too much recursion/i;

/** The trap that stopped this worker's wasm instance ('RuntimeError: unreachable'), or null. */
let stoppedBy = null;

/** `error` as a trap ('Name: message'), or null when it is an ordinary failure. */
function trapOf(error) {
  const trapped =
    error instanceof WebAssembly.RuntimeError ||
    ((error instanceof RangeError || error?.name === 'InternalError') && TRAP_MESSAGE.test(error.message));
  return trapped ? `${error.name}: ${error.message}` : null;
}

/**
 * Answer `request` with `handler`. A queued request (every request of the page's) needs a model
 * unless it is in WITHOUT_MODEL, and first lets the CPU catch up with a lost WebGPU session; one
 * that is not queued is answered as it comes.
 */
export async function answer({ id, type, args }, handler, { queued = true } = {}) {
  try {
    if (stoppedBy) throw new Error(`the wasm instance stopped earlier (${stoppedBy})`);
    if (!handler) throw new Error(`unknown request ${type}`);
    if (queued && !WITHOUT_MODEL.has(type) && !hasModel()) throw new Error('the model is not loaded');
    if (queued) await catchUp();
    beat(SWEEPS.has(type));
    send({ id, ok: true, result: await handler(args) });
  } catch (error) {
    stoppedBy ??= trapOf(error);
    post({ id, ok: false, error: errorText(error), trap: stoppedBy, problem: stoppedBy ? null : problemOf(error) });
  } finally {
    // After the reply: the page draws the answer while the summaries are made.
    const failed = stoppedBy ? null : sendAnalysis();
    stoppedBy ??= failed && trapOf(failed);
    if (failed && stoppedBy) post({ id, ok: false, error: errorText(failed), trap: stoppedBy, problem: null });
  }
}

/**
 * Requests that are hints: acted on as they come, before the queue, and answered by nothing.
 * `prefetch` { model }: the page's first model, whose files are read while the module loads.
 */
const HINTS = { prefetch: (args) => prefetchModel(args.model) };

/** A request from the page (www/worker/worker.js hands them over). */
export function receive(event) {
  const request = event.data;
  if (Object.hasOwn(HINTS, request.type) && request.id === undefined) {
    HINTS[request.type](request.args);
    return;
  }
  const { gen } = request.args;
  noteGeneration(gen);
  enqueue(async () => {
    if (isStale(gen)) {
      post({ id: request.id, ok: true, result: { stale: true } });
      return;
    }
    await answer(request, Object.hasOwn(handlers, request.type) ? handlers[request.type] : null);
  });
}

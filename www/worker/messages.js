// What the worker posts to the page, besides replies: notices (progress, backend news, refreshed
// answers) and its heartbeat. Buffers are handed over, not copied.
import * as wire from '../shared/wire.js';

/** Post `message` to the page, handing over `transfer`. */
export const post = (message, transfer = []) => self.postMessage(message, transfer);

/** How often the worker says it is alive, at the least (www/worker/worker.js, www/app/liveness.js). */
export const HEARTBEAT_MS = 1000;

/**
 * Say that this worker is alive: between chunks of long work, where no timer can fire. `long`:
 * what comes next is one call into the model that grows with it (www/worker/handlers.js SWEEPS),
 * so the page allows a longer silence until the worker speaks again (www/app/liveness.js).
 */
export const beat = (long = false) => post(long ? { type: 'alive', long } : { type: 'alive' });

/** A download's progress: { label, loaded, total }. */
export const progress = (report) => post({ type: 'progress', ...report });

/** Post a message, handing its buffers over instead of copying them (nothing here keeps them). */
export function send(message) {
  post(message, [...wire.transferables(message)]);
}

/** An error's text, whatever was thrown. */
export const errorText = (error) => error?.message || String(error);

/**
 * What went wrong as { key, params } of www/ui/i18n/*.json, for the page to say in its language,
 * or null: a model folder's problem (www/worker/model-folder.js), or the wasm module's error (its
 * JsError carries the key and params of the crate's Error).
 */
export function problemOf(error) {
  if (error?.problem) return error.problem;
  return typeof error?.key === 'string' ? { key: error.key, params: error.params ?? {} } : null;
}

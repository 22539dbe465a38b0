// The page's side of the worker protocol: each request gets one reply, matched by id. A model is
// loaded in a fresh worker that replaces the one in use only once it has loaded, so notices from a
// worker not yet in use are held (backend news) or dropped (refreshes).
//
// Requests are { id, type, args }; replies { id, ok, result } or { id, ok: false, error, trap,
// problem } (problem: { key, params } of www/ui/i18n, or null; trap: 'RuntimeError: unreachable'
// when the wasm instance trapped, else null). Notices from the worker: { type: 'progress', label,
// loaded, total }, { type: 'backend', backend, preference, note, warming }, { type: 'refresh',
// result }, and its heartbeat { type: 'alive', long? }.
//
// A worker dies of a trapped wasm instance (a trap reply: the instance is poisoned, nothing it
// says afterwards can be trusted), of an uncaught error (its `error` event), of a message that
// cannot be read (`messageerror`), or of silence: a worker that closed itself or spins in a loop
// says nothing, not even its heartbeat, and is lost once it has been silent for longer than
// app/liveness.js allows. A dead worker is ended at once and every request it owed is rejected
// (error.workerLost, with a problem the page can say). When the worker in use dies,
// `onDeath(reason)` is told, so the page can start another (app/recovery.js); if a model was
// loading in another worker just then, that one is left to finish: only if it fails is the page
// told of the death.

import { startWorker, takeWorker } from '../boot.js';
import { announce } from '../ui/bus.js';
import { createLiveness } from './liveness.js';

/** What a request to a dead worker is rejected with. */
function lostError(reason) {
  const error = new Error(`the model's worker stopped (${reason})`);
  error.workerLost = true;
  error.problem = { key: 'recovery.requestLost', params: { error: reason } };
  return error;
}

/** `onDeath(reason)`: the worker in use died. */
export function createClient({ onProgress, onBackend, onRefresh, onAnalysis, onDeath }) {
  let worker = null;
  let nextId = 1;
  const pending = new Map(); // id → { resolve, reject, worker }
  const heldBackend = new WeakMap(); // loading worker → its latest backend news
  const dead = new WeakMap(); // ended worker → why it died (null: replaced)
  let lost = null; // why the worker in use died, while a model loading in another may replace it
  const liveness = createLiveness((w, allowedMs) => die(w, `no answer for ${Math.round(allowedMs / 1000)} s`));

  function receive(from, msg) {
    if (dead.has(from)) return;
    liveness.heard(from, msg.type === 'alive' && msg.long === true);
    if (msg.type === 'alive') return;
    if (msg.type === 'progress') {
      onProgress(msg);
    } else if (msg.type === 'backend') {
      if (from === worker) onBackend(msg);
      else heldBackend.set(from, msg);
    } else if (msg.type === 'refresh') {
      if (from === worker) onRefresh(msg.result);
    } else if (msg.type === 'analysis') {
      if (from === worker) onAnalysis(msg);
    } else if (msg.ok === false && msg.trap) {
      die(from, msg.trap);
    } else {
      const entry = pending.get(msg.id);
      if (!entry) return;
      pending.delete(msg.id);
      // problem: what the page can say in its own words, or null
      if (msg.ok) entry.resolve(msg.result);
      else entry.reject(Object.assign(new Error(msg.error), { problem: msg.problem }));
    }
  }

  /**
   * A new worker, not yet in use: pass it to `call` as the target, then `adopt` it. The first is
   * the one www/boot.js started before the page's modules had loaded. The bus hears
   * `worker-started` before any request is sent to it.
   */
  function spawn() {
    const early = takeWorker();
    const w = early?.worker ?? startWorker();
    liveness.watch(w);
    w.onmessage = (event) => receive(w, event.data);
    w.onerror = (event) => {
      event.preventDefault(); // handled here: the worker is replaced
      die(w, event.message || 'an uncaught error');
    };
    w.onmessageerror = () => die(w, 'a message from the worker could not be read');
    for (const message of early?.messages ?? []) receive(w, message);
    if (early?.error) queueMicrotask(() => die(w, early.error));
    announce('worker-started', { worker: w });
    return w;
  }

  /** Reject what `w` still owes with `error(id)`. */
  function rejectPending(w, error) {
    for (const [id, entry] of pending) {
      if (entry.worker === w) {
        pending.delete(id);
        entry.reject(error());
      }
    }
  }

  /** `w` died of `reason`: end it, settle what it owed, and tell the page if it was in use. */
  function die(w, reason) {
    if (dead.has(w)) return;
    dead.set(w, reason);
    liveness.forget(w);
    w.terminate();
    rejectPending(w, () => lostError(reason));
    if (w === worker) {
      worker = null;
      lost = reason;
    }
    tellDeath();
  }

  /** Tell the page the worker in use died, unless a model loading in another worker may replace it. */
  function tellDeath() {
    if (lost == null || [...pending.values()].some((entry) => entry.worker !== worker)) return;
    const reason = lost;
    lost = null;
    onDeath(reason);
  }

  /** End `w` and reject what it still owes. */
  function retire(w) {
    if (!w) return;
    liveness.forget(w);
    w.terminate();
    if (!dead.has(w)) dead.set(w, null);
    rejectPending(w, () => new Error('the worker was replaced'));
    if (w === worker) worker = null;
    tellDeath();
  }

  /** Make `w` the worker in use (ending the previous one) and show its backend news. */
  function adopt(w) {
    if (worker !== w) retire(worker);
    worker = w;
    lost = null; // a dead worker's model was replaced by this one
    const news = heldBackend.get(w);
    heldBackend.delete(w);
    if (news) onBackend(news);
  }

  function call(type, args = {}, target = worker) {
    if (!target) return Promise.reject(new Error('the model is not loaded'));
    if (dead.has(target)) {
      const reason = dead.get(target);
      return Promise.reject(reason == null ? new Error('the worker was replaced') : lostError(reason));
    }
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, worker: target });
      target.postMessage({ id, type, args });
    });
  }

  // tell: a request to `target` that nothing answers (www/worker/requests.js HINTS).
  const tell = (type, args, target) => dead.has(target) || target.postMessage({ type, args });
  return { spawn, retire, adopt, call, tell, inUse: () => worker };
}

// The page's side of the worker protocol: each request gets one reply, matched by id. A model is
// loaded in a fresh worker that replaces the one in use only once it has loaded, so notices from a
// worker not yet in use are held (backend news) or dropped (refreshes).
//
// Requests are { id, type, args }; replies { id, ok, result } or { id, ok: false, error, trap, problem }
// (problem: { key, params } of www/ui/i18n, or null).
// Notices from the worker: { type: 'progress', label, loaded, total },
// { type: 'backend', backend, preference, note, warming }, { type: 'refresh', result }.

export function createClient({ onProgress, onBackend, onRefresh, onFailure }) {
  let worker = null;
  let nextId = 1;
  const pending = new Map(); // id → { resolve, reject, worker }
  const heldBackend = new WeakMap(); // loading worker → its latest backend news

  function receive(from, msg) {
    if (msg.type === 'progress') {
      onProgress(msg);
    } else if (msg.type === 'backend') {
      if (from === worker) onBackend(msg);
      else heldBackend.set(from, msg);
    } else if (msg.type === 'refresh') {
      if (from === worker) onRefresh(msg.result);
    } else {
      const entry = pending.get(msg.id);
      if (!entry) return;
      pending.delete(msg.id);
      if (msg.ok) {
        entry.resolve(msg.result);
      } else {
        const error = new Error(msg.error);
        error.trap = msg.trap; // the wasm instance trapped: the worker is unusable
        error.problem = msg.problem; // what the page can say in its own words, or null
        entry.reject(error);
      }
    }
  }

  /** A new worker, not yet in use: pass it to `call` as the target, then `adopt` it. */
  function spawn() {
    const w = new Worker(new URL('../worker/worker.js', import.meta.url), { type: 'module' });
    w.onmessage = (event) => receive(w, event.data);
    w.onerror = (event) => onFailure(`The model worker failed: ${event.message || 'unknown error'}`);
    return w;
  }

  /** End `w` and reject what it still owes. */
  function retire(w) {
    if (!w) return;
    w.terminate();
    for (const [id, entry] of pending) {
      if (entry.worker === w) {
        pending.delete(id);
        entry.reject(new Error('the worker was replaced'));
      }
    }
    if (w === worker) worker = null;
  }

  /** Make `w` the worker in use (ending the previous one) and show its backend news. */
  function adopt(w) {
    if (worker !== w) retire(worker);
    worker = w;
    const news = heldBackend.get(w);
    heldBackend.delete(w);
    if (news) onBackend(news);
  }

  function call(type, args = {}, target = worker) {
    if (!target) return Promise.reject(new Error('the model is not loaded'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, worker: target });
      target.postMessage({ id, type, args });
    });
  }

  return { spawn, retire, adopt, call, inUse: () => worker };
}

// Whether each worker still answers. A worker that dies of an error says so (its `error` event),
// but one that closes itself (`self.close()`) or spins in a loop says nothing, ever. So every
// worker speaks at least once a second (its heartbeat, www/worker/worker.js, and any other
// message it posts), and a worker that has said nothing for SILENT_MS is declared lost, as a crash
// is (app/client.js, app/recovery.js).
//
// A timer cannot fire inside a synchronous stretch of work, so a worker is silent for as long as
// one runs: SILENT_MS is well above the longest stretch of the page's ordinary work, measured on a
// 2-core machine with a model of opus-mt-tc-big's shape (293 M parameters, the largest the page
// is documented to open): 3.2 s building it (Session.createCpu) and 3.7 s translating a sentence
// on the CPU. A sweep of the whole model (each head's importance, a beam search, occlusion) is
// one call that grows with the model: the worker says so before it (`{ type: 'alive', long: true }`,
// www/worker/handlers.js SWEEPS), and its silence may last LONG_SILENT_MS (importance on that
// model took 174 s).
//
// A page that was itself frozen (a background tab, a suspended laptop) did not hear anything
// either: when the watch's own timer comes late, every worker gets a fresh allowance.

/** A worker silent this long is lost. */
export const SILENT_MS = 30_000;

/** A worker silent this long inside a sweep it announced is lost. */
export const LONG_SILENT_MS = 600_000;

/** How often the watch looks. */
const CHECK_MS = 1000;

/** A check this much later than due means the page itself was not running: start the count again. */
const LATE_MS = 5000;

/** A silence this long that ends is noted in the performance timeline (`worker: quiet`): how near the limit work comes. */
const QUIET_MS = 2000;

/**
 * Watch workers: `onSilent(worker, allowedMs)` once a watched worker has said nothing for longer
 * than it was allowed (`silentMs`, or `longMs` after it announced a sweep).
 */
export function createLiveness(onSilent, { silentMs = SILENT_MS, longMs = LONG_SILENT_MS } = {}) {
  const heard = new Map(); // watched worker → { at: when it last said anything (performance.now()), allowed: ms }
  let timer = null;
  let lastCheck = 0;

  function check() {
    const now = performance.now();
    const late = now - lastCheck > CHECK_MS + LATE_MS;
    lastCheck = now;
    for (const [worker, last] of heard) {
      if (late) last.at = now;
      else if (now - last.at > last.allowed) {
        forget(worker);
        performance.measure('worker: silent', { start: last.at, end: now });
        onSilent(worker, last.allowed);
      }
    }
  }

  /** Watch `worker` from now on. */
  function watch(worker) {
    heard.set(worker, { at: performance.now(), allowed: silentMs });
    if (timer) return;
    lastCheck = performance.now();
    timer = setInterval(check, CHECK_MS);
  }

  /** `worker` said something; `long`: it announced a sweep. */
  function heardFrom(worker, long = false) {
    const last = heard.get(worker);
    if (!last) return;
    const now = performance.now();
    if (now - last.at >= QUIET_MS) performance.measure('worker: quiet', { start: last.at, end: now });
    heard.set(worker, { at: now, allowed: long ? longMs : silentMs });
  }

  /** Stop watching `worker` (it was ended). */
  function forget(worker) {
    heard.delete(worker);
    if (heard.size || !timer) return;
    clearInterval(timer);
    timer = null;
  }

  return { watch, heard: heardFrom, forget };
}

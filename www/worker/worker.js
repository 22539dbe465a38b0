// The Web Worker that owns the wasm modules and the model; the page never blocks on it. This file
// starts the worker's heartbeat and the CPU module's load, and hands the page's requests to
// www/worker/requests.js, which answers them in order (www/worker/queue.js), by the handler of
// their type (www/worker/handlers.js). Which session answers, and the move to the CPU when WebGPU
// fails, is www/worker/backends.js's; replaying the current sentence, www/worker/sentence.js's.
//
// Requests: { id, type, args }; the arguments stay apart from the envelope, so an argument named
// like a field of it (a token's `id`) cannot replace it. Replies: { id, ok, result } or
// { id, ok: false, error, trap, problem } (`problem`: { key, params } where the page has words of
// its own for what went wrong; `trap`: 'RuntimeError: unreachable' when the wasm instance
// trapped, else null). Besides replies the worker posts notices (www/worker/messages.js), and
// { type: 'alive' } every HEARTBEAT_MS: a worker that stops answering is told apart from one at
// work by its silence (www/app/liveness.js). A timer cannot fire inside a synchronous chunk of
// work, so long work also says `beat()` between its chunks.
//
// A trap (a panic, which panic=abort makes `unreachable`; an allocation that failed; a stack
// exhausted) leaves the wasm instance half-way through a call: its memory and the borrow flags of
// its objects are not to be trusted. From then on this worker answers every request with the same
// trap, and the page replaces it (www/app/client.js, www/app/recovery.js).
//
// A worker started with `?test` in its address (the page's test mode, www/boot.js) loads its test
// hooks (www/testing/worker-hooks.js) before it answers anything.
import { CPU_MODULE_LABEL, compileEarly } from './cache.js';
import { beat, HEARTBEAT_MS, progress } from './messages.js';

setInterval(beat, HEARTBEAT_MS);
// The CPU module is read and compiled before anything else loads: on a first visit its compile is
// the longest wait of the worker's start, and it needs none of the worker's other modules.
compileEarly('cpu', CPU_MODULE_LABEL, progress);

const early = []; // requests that came before www/worker/requests.js had loaded
self.onmessage = (event) => early.push(event);

// Every worker needs the CPU module: its load starts before the rest of the worker's modules are
// fetched (the page's own modules compete with them for the browser's connections), while the
// page sends its first requests. A failure is reported by the first request that needs the module.
const { loadCpuModule } = await import('./modules.js');
loadCpuModule().catch(() => {});

const testing = new URL(import.meta.url).searchParams.has('test');
const hooks = testing ? await import('../testing/worker-hooks.js') : null;
const { receive } = await import('./requests.js');
self.onmessage = hooks ? hooks.intercept(receive) : receive;
for (const event of early.splice(0)) self.onmessage(event);

// The worker's side of the test hooks, loaded only by a worker started in test mode
// (www/worker/worker.js, `?test` in its address). It adds the requests only the browser tests and
// the benchmark send: `stats` (queued like any request), and `test:*` ones that stand for events
// from outside (a browser that refuses the adapter, a lost GPU, a wasm instance that traps, an
// uncaught error, a worker that closes itself or spins), answered at once, outside the queue.
// Every GPUDevice the worker makes is kept, so a test can lose one on purpose.
import { backendName } from '../worker/backends.js';
import { handlers } from '../worker/handlers.js';
import { memoryBytes } from '../worker/modules.js';
import { answer } from '../worker/requests.js';

const gpuDevices = []; // every GPUDevice this worker created, oldest first

if (self.GPUAdapter?.prototype.requestDevice) {
  const original = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (...args) {
    const device = await original.apply(this, args);
    gpuDevices.push(device);
    return device;
  };
}

/**
 * A real WebAssembly.RuntimeError, as the model's module raises when it panics (panic=abort is
 * `unreachable`): a module of one function, `(func (export "trap") unreachable)`, called.
 */
function trap() {
  const bytes = new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // \0asm, version 1
    ...[0x01, 0x04, 0x01, 0x60, 0x00, 0x00], // types: () → ()
    ...[0x03, 0x02, 0x01, 0x00], // functions: one, of type 0
    ...[0x07, 0x08, 0x01, 0x04, 0x74, 0x72, 0x61, 0x70, 0x00, 0x00], // exports: "trap" = function 0
    ...[0x0a, 0x05, 0x01, 0x03, 0x00, 0x00, 0x0b], // code: no locals, unreachable, end
  ]);
  new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.trap();
}

/** The next request of `type` traps, after the CPU caught up and before its handler runs. */
function armTrap(type) {
  const handler = handlers[type];
  handlers[type] = () => {
    handlers[type] = handler;
    trap();
  };
}

/** The worker's memory and backend (the tests' and the benchmark's). */
handlers.stats = async () => ({ ...memoryBytes(), backend: backendName(), gpuDevices: gpuDevices.length });

const testRequests = {
  async 'test:rejectAdapter'() {
    if (self.GPU) GPU.prototype.requestAdapter = () => Promise.reject(new Error('adapter request rejected (test)'));
    return { patched: Boolean(self.GPU) };
  },
  async 'test:loseDevice'() {
    const device = gpuDevices.at(-1);
    if (!device) throw new Error('no WebGPU device to lose');
    const destroyedAt = Date.now();
    device.destroy();
    return { destroyedAt };
  },
  /** args: { on? }: trap now, or arm a trap for the next request of type `on` (e.g. 'step', 'init'). */
  async 'test:trap'(args) {
    if (!args?.on) trap();
    armTrap(args.on);
    return { armed: args.on };
  },
  /** An error no request catches: the page sees the worker's `error` event. */
  async 'test:throwUncaught'() {
    setTimeout(() => {
      throw new Error('thrown on purpose (test)');
    });
    return { thrown: true };
  },
  /** The worker closes itself without a word: no reply, no `error` event, no heartbeat. */
  async 'test:close'() {
    self.close();
    return new Promise(() => {});
  },
  /** args: { ms? }: the worker spins, saying nothing, for `ms` (then answers) or for ever. */
  async 'test:spin'(args) {
    const until = args?.ms == null ? Number.POSITIVE_INFINITY : performance.now() + args.ms;
    while (performance.now() < until);
    return { spun: args?.ms ?? null };
  },
};

/** The worker's request handler `receive`, with the test requests answered here, at once. */
export function intercept(receive) {
  return (event) => {
    const { type } = event.data;
    if (!type.startsWith('test:')) return receive(event);
    answer(event.data, Object.hasOwn(testRequests, type) ? testRequests[type] : null, { queued: false });
  };
}

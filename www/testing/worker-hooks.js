// The worker's side of the test and bench hooks. `watchGpuDevices` wraps
// GPUAdapter.prototype.requestDevice so that every GPUDevice the worker creates is kept (a test
// can lose it on purpose) and watched for loss (the worker then moves to the CPU). The requests
// only the browser tests and the benchmark send: `stats`, and `test:*` ones that stand for events
// from outside (a browser that refuses the adapter, a lost GPU, a wasm instance that traps, an
// uncaught error), which the worker runs at once, outside its request queue.

const gpuDevices = []; // every GPUDevice this worker created, oldest first
const armedTraps = new Set(); // request types that trap the next time they are answered

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

/** Trap now if the test armed a trap for requests of `type` (www/worker/requests.js, before the handler). */
export function trapIfArmed(type) {
  if (armedTraps.delete(type)) trap();
}

/** Keep and watch every GPUDevice made from now on; `onLost(info)` when one is lost. */
export function watchGpuDevices(onLost) {
  if (!self.GPUAdapter?.prototype.requestDevice) return;
  const original = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (...args) {
    const device = await original.apply(this, args);
    gpuDevices.push(device);
    device.lost.then((info) => onLost(info));
    return device;
  };
}

/** The hook requests; `stats()`: the worker's memory and backend. */
export function hookHandlers({ stats }) {
  return {
    async stats() {
      return { ...stats(), gpuDevices: gpuDevices.length };
    },
    async 'test:rejectAdapter'() {
      if (self.GPU) GPU.prototype.requestAdapter = () => Promise.reject(new Error('adapter request rejected (test)'));
      return { patched: Boolean(self.GPU) };
    },
    async 'test:loseDevice'() {
      const device = gpuDevices[gpuDevices.length - 1];
      if (!device) throw new Error('no WebGPU device to lose');
      const destroyedAt = Date.now();
      device.destroy();
      return { destroyedAt };
    },
    /** args: { on? }: trap now, or arm a trap for the next request of type `on` (e.g. 'step', 'init'). */
    async 'test:trap'(args) {
      if (!args?.on) trap();
      armedTraps.add(args.on);
      return { armed: args.on };
    },
    /** An error no request catches: the page sees the worker's `error` event. */
    async 'test:throwUncaught'() {
      setTimeout(() => {
        throw new Error('thrown on purpose (test)');
      });
      return { thrown: true };
    },
  };
}

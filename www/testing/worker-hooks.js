// The worker's side of the test and bench hooks. `watchGpuDevices` wraps
// GPUAdapter.prototype.requestDevice so that every GPUDevice the worker creates is kept (a test
// can lose it on purpose) and watched for loss (the worker then moves to the CPU). The requests
// only the browser tests and the benchmark send: `stats`, and `test:*` ones that stand for events
// from outside (a browser that refuses the adapter, a lost GPU), which the worker runs at once,
// outside its request queue.

const gpuDevices = []; // every GPUDevice this worker created, oldest first

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
  };
}

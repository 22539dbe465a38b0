// Requests only the browser tests and the benchmark send. `test:*` ones stand for events from
// outside (a browser that refuses the adapter, a lost GPU); the worker runs them at once, outside
// its request queue.

/** `gpuDevices`: every GPUDevice the worker created; `stats()`: its memory and backend. */
export function hookHandlers({ gpuDevices, stats }) {
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

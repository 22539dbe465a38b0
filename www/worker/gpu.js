// A WebGPU device can be lost under the worker (a driver reset, another tab taking the GPU, the
// browser reclaiming it): every device the worker makes is watched, and a lost one hands the
// sentence over to the CPU (www/worker/backends.js onDeviceLost). burn makes its device inside the
// wasm module, so the watch wraps GPUAdapter.prototype.requestDevice, the one way a device is made.

/** Watch every GPUDevice made from now on: `onLost(info)` (its GPUDeviceLostInfo) when one is lost. */
export function watchGpuDevices(onLost) {
  if (!self.GPUAdapter?.prototype.requestDevice) return;
  const original = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (...args) {
    const device = await original.apply(this, args);
    device.lost.then((info) => onLost(info));
    return device;
  };
}

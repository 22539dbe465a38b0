// The two builds of the wasm module, with one API: pkg/cpu (burn's CPU backend only, small, loaded
// first) and pkg/webgpu (adds burn-wgpu, imported only when WebGPU will be used). Also what the
// module says both threads must agree on (`facts`), read once it has loaded.
import initCpu, {
  attentionKinds,
  backends,
  Session as CpuSession,
  checkMarianSize,
  checkModelSize,
  chooseBackend,
  decodings,
  defaultFocus,
  importMarian,
  marianFileNames,
  maxBeamWidth,
  modelFileNames,
  WeightsFile,
} from '../pkg/cpu/attnscope.js';
import { CPU_MODULE_LABEL, moduleBytes, moduleSource } from './cache.js';
import { progress } from './messages.js';

export { attentionKinds, checkMarianSize, checkModelSize, chooseBackend, importMarian, marianFileNames, modelFileNames, WeightsFile };

const loaded = {
  cpu: null, // the CPU module's exports (its memory), once loaded
  gpu: null, // { Session, wasm } of the WebGPU module, once imported
};

let cpuLoading = null; // the CPU module's load in progress (or done), or null

/**
 * Load the CPU module (once; a load that failed is tried again at the next call). The worker
 * starts it as soon as it starts (www/worker/worker.js): every worker needs it.
 */
export function loadCpuModule() {
  cpuLoading ??= (async () => {
    loaded.cpu = await initCpu({ module_or_path: await moduleSource('cpu', CPU_MODULE_LABEL, progress) });
  })().catch((error) => {
    cpuLoading = null;
    throw error;
  });
  return cpuLoading;
}

/** The Session class of `backend` ('cpu' or 'webgpu'), importing the WebGPU module on first use. */
export async function sessionClass(backend) {
  if (backend === 'cpu') return CpuSession;
  if (!loaded.gpu) {
    const glue = await import('../pkg/webgpu/attnscope.js');
    const wasm = await glue.default({ module_or_path: await moduleBytes('webgpu', 'WebAssembly (WebGPU)', progress) });
    loaded.gpu = { Session: glue.Session, wasm };
  }
  return loaded.gpu.Session;
}

/**
 * What the page must agree on with the module (the CPU module loaded first): { kinds: the
 * attention kinds, decodings: the ways to decode (the first is the default), maxBeamWidth,
 * defaultFocus: { kind, layer, head }, backends: the preferences chooseBackend takes }.
 */
export async function facts() {
  await loadCpuModule();
  return {
    kinds: attentionKinds(),
    decodings: decodings(),
    maxBeamWidth: maxBeamWidth(),
    defaultFocus: defaultFocus(),
    backends: backends(),
  };
}

/** The modules' memory, in bytes (the tests' and the benchmark's `stats`, www/testing/worker-hooks.js). */
export function memoryBytes() {
  return {
    wasmBytes: loaded.cpu ? loaded.cpu.memory.buffer.byteLength : 0,
    gpuWasmBytes: loaded.gpu ? loaded.gpu.wasm.memory.buffer.byteLength : 0,
  };
}

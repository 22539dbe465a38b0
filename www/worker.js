// The Web Worker that owns the wasm modules and the model. The page never blocks on it.
//
// Two builds: pkg/cpu (burn's CPU backend only, small, loaded first) and pkg/webgpu (adds
// burn-wgpu, imported only when WebGPU will be used). Requests are handled one at a time, in
// order; a `translate` that a newer one has superseded is answered { stale: true } without
// running. The CPU backend answers first; WebGPU warms up beside it (shader compilation) and
// takes over when ready. If WebGPU fails or its device is lost, the worker replays the current
// sentence on the CPU and says so.
import initCpu, { Visualizer as CpuVisualizer } from './pkg/cpu/attnscope.js';

const MODEL_CACHE = 'attnscope-models-v1';
const WASM_CACHE = 'attnscope-wasm-v1';

// Keep every GPUDevice this worker creates, to watch for loss (and for the test hook).
const gpuDevices = [];
if (self.GPUAdapter && GPUAdapter.prototype.requestDevice) {
  const original = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (...args) {
    const device = await original.apply(this, args);
    gpuDevices.push(device);
    device.lost.then((info) => onDeviceLost(info));
    return device;
  };
}

let cpuWasm = null; // exports of the CPU module (its memory)
let gpuModule = null; // { Visualizer, wasm } of the WebGPU module, once imported
let manifest = null; // pkg/manifest.json: content hash of each module
let files = null; // the current model's bytes
let preference = 'auto';
let cpu = null;
let gpu = null;
let gpuDead = false;
let active = null;
let log = []; // operations on the current sentence, to replay on another backend
let latestGeneration = 0;
let queue = Promise.resolve();

const post = (message) => self.postMessage(message);
const errorText = (error) => (error && error.message) || String(error);

async function fetchWithProgress(url, label) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot load ${url}: HTTP ${response.status}`);
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    post({ type: 'progress', label, loaded, total });
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** A file through the Cache API, keyed by its content hash (so a changed file is refetched). */
async function cachedFile(url, version, label, cacheName = MODEL_CACHE) {
  const key = `${url}?v=${version}`;
  let cache = null;
  try {
    cache = await caches.open(cacheName);
    const hit = await cache.match(key);
    if (hit) {
      post({ type: 'progress', label: `${label} (cached)`, loaded: 1, total: 1 });
      return new Uint8Array(await hit.arrayBuffer());
    }
  } catch {
    cache = null; // no Cache API (e.g. an insecure origin): just fetch
  }
  const bytes = await fetchWithProgress(key, label);
  if (cache) {
    for (const old of await cache.keys()) {
      if (old.url.split('?')[0].endsWith(url) && !old.url.endsWith(`v=${version}`)) await cache.delete(old);
    }
    await cache.put(key, new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream' } }));
  }
  return bytes;
}

async function moduleBytes(name, label) {
  if (!manifest) {
    const response = await fetch('./pkg/manifest.json', { cache: 'no-cache' });
    manifest = response.ok ? await response.json() : {};
  }
  return cachedFile(`pkg/${name}/attnscope_bg.wasm`, manifest[name] || 'none', label, WASM_CACHE);
}

async function loadCpuWasm() {
  if (!cpuWasm) cpuWasm = await initCpu({ module_or_path: await moduleBytes('cpu', 'WebAssembly (CPU)') });
}

async function loadGpuModule() {
  if (!gpuModule) {
    const glue = await import('./pkg/webgpu/attnscope.js');
    const wasm = await glue.default({ module_or_path: await moduleBytes('webgpu', 'WebAssembly (WebGPU)') });
    gpuModule = { Visualizer: glue.Visualizer, wasm };
  }
  return gpuModule;
}

async function loadModel(model) {
  const out = {};
  for (const [key, name] of Object.entries({ config: 'config.json', weights: 'model.safetensors', srcTokenizer: 'src_tokenizer.json', tgtTokenizer: 'tgt_tokenizer.json' })) {
    out[key] = await cachedFile(`models/${model.name}/${name}`, model.files[name] || 'none', `${model.name}/${name}`);
  }
  return out;
}

async function create(backend) {
  const Visualizer = backend === 'cpu' ? CpuVisualizer : (await loadGpuModule()).Visualizer;
  return Visualizer.create(files.config.slice(), files.weights.slice(), files.srcTokenizer.slice(), files.tgtTokenizer.slice(), backend);
}

function freeAll() {
  for (const v of [cpu, gpu]) {
    try {
      v?.free();
    } catch {
      // already freed
    }
  }
  cpu = gpu = active = null;
}

/** Run the logged operations of the current sentence on `viz` (another backend). */
async function replay(viz) {
  for (const op of log) await apply(viz, op);
}

async function apply(viz, op) {
  switch (op.type) {
    case 'start':
      return viz.start(op.text);
    case 'step':
      return viz.step();
    case 'runToEnd':
      return viz.runToEnd();
    case 'back':
      return viz.back();
    case 'reset':
      return viz.reset();
    case 'force':
      while (viz.trace().steps.length > op.index + 1) viz.back();
      await viz.replaceLast(op.id);
      return op.continue ? viz.runToEnd() : null;
    case 'prefix':
      await viz.setPrefix(op.text);
      return viz.runToEnd();
    case 'sampling':
      return viz.setSampling(op.mode, op.temperature, op.topK, op.seed);
    default:
      throw new Error(`unknown operation ${op.type}`);
  }
}

function announce(note = '') {
  post({ type: 'backend', backend: active === gpu && gpu ? 'webgpu' : 'cpu', preference, note, warming: preference !== 'cpu' && !gpu && !gpuDead });
}

let needsReplay = false; // the CPU must replay the sentence before it answers anything

async function fallBackToCpu(reason) {
  switchToCpuNow(reason);
  await catchUp();
}

/** Stop using WebGPU at once and say so; the replay on the CPU runs first in the queue. */
function switchToCpuNow(reason) {
  if (gpuDead && active !== gpu) return;
  gpuDead = true;
  if (active === gpu) needsReplay = true;
  active = cpu;
  const lost = gpu;
  gpu = null;
  try {
    lost?.free();
  } catch {
    // a trapped or busy object may refuse; drop it anyway
  }
  announce(`WebGPU stopped working (${reason}); switched to the CPU backend.`);
}

/** Bring the CPU session to the current sentence if WebGPU was lost under it. */
async function catchUp() {
  if (!needsReplay) return;
  needsReplay = false;
  if (!cpu) cpu = await create('cpu');
  active = cpu;
  await replay(cpu);
  post({ type: 'refresh' });
}

function onDeviceLost(info) {
  if (gpuDead || !gpu) return;
  switchToCpuNow(`device lost: ${info?.reason || 'unknown'}${info?.message ? ` — ${info.message}` : ''}`);
  enqueue(catchUp);
}

/** Whether the only WebGPU adapter is a software one (SwiftShader): slower than our CPU path. */
async function softwareAdapterOnly() {
  try {
    const adapter = await navigator.gpu?.requestAdapter();
    if (!adapter) return false;
    return Boolean(adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter);
  } catch {
    return false;
  }
}

async function warmUpGpu(text) {
  if (preference === 'auto' && (await softwareAdapterOnly())) {
    gpuDead = true;
    announce('The only WebGPU adapter here is a software fallback (SwiftShader), which is slower than the CPU backend, so “auto” uses the CPU. Choose WebGPU to try it anyway.');
    return;
  }
  try {
    const viz = await create('webgpu');
    // Compile the shaders on a real sentence before this backend answers anyone.
    await viz.start(text || 'Hello.');
    await viz.runToEnd();
    viz.reset();
    enqueue(async () => {
      if (preference === 'cpu' || gpuDead) {
        viz.free();
        return;
      }
      gpu = viz;
      await replay(gpu);
      active = gpu;
      announce();
      post({ type: 'refresh' });
    });
  } catch (error) {
    gpuDead = true;
    announce(preference === 'webgpu' ? `WebGPU is not available here (${errorText(error)}); using the CPU.` : `WebGPU unavailable (${errorText(error)}); running on the CPU.`);
  }
}

function snapshot(extra = {}) {
  const trace = active.trace();
  return { trace, backend: active === gpu && gpu ? 'webgpu' : 'cpu', ...extra };
}

async function withBackend(fn) {
  const viz = active;
  try {
    return await fn(viz);
  } catch (error) {
    if (viz === gpu && gpu && !gpuDead) {
      await fallBackToCpu(errorText(error));
      return fn(active);
    }
    throw error;
  }
}

const handlers = {
  async init(msg) {
    preference = msg.backend || 'auto';
    const t0 = performance.now();
    await loadCpuWasm();
    freeAll();
    files = await loadModel(msg.model);
    cpu = await create('cpu');
    active = cpu;
    log = [];
    gpuDead = false;
    announce();
    if (preference !== 'cpu') warmUpGpu(msg.text);
    return { config: cpu.config(), positional: cpu.positionalEncoding(), loadMs: performance.now() - t0 };
  },
  async setBackend(msg) {
    preference = msg.backend;
    if (preference === 'cpu') {
      if (active !== cpu) {
        if (!cpu) cpu = await create('cpu');
        await replay(cpu);
        active = cpu;
      }
      try {
        gpu?.free();
      } catch {
        // ignore
      }
      gpu = null;
      announce();
    } else if (!gpu && (!gpuDead || preference === 'webgpu')) {
      gpuDead = false;
      announce();
      warmUpGpu(msg.text);
    } else if (gpu && active !== gpu) {
      await replay(gpu);
      active = gpu;
      announce();
    } else {
      announce(gpuDead ? 'WebGPU is not available here; using the CPU.' : '');
    }
    return snapshotOrNull();
  },
  async translate(msg) {
    return withBackend(async (viz) => {
      const t0 = performance.now();
      const source = await viz.start(msg.text);
      await viz.runToEnd();
      log = [{ type: 'start', text: msg.text }, { type: 'runToEnd' }];
      return snapshot({ source, ms: performance.now() - t0 });
    });
  },
  async start(msg) {
    return withBackend(async (viz) => {
      const source = await viz.start(msg.text);
      log = [{ type: 'start', text: msg.text }];
      return snapshot({ source });
    });
  },
  async step() {
    return withBackend(async (viz) => {
      const step = await viz.step();
      log.push({ type: 'step' });
      return snapshot({ step });
    });
  },
  async runToEnd() {
    return withBackend(async (viz) => {
      await viz.runToEnd();
      log.push({ type: 'runToEnd' });
      return snapshot();
    });
  },
  async back() {
    active.back();
    log.push({ type: 'back' });
    return snapshot();
  },
  async reset() {
    active.reset();
    log.push({ type: 'reset' });
    return snapshot();
  },
  async force(msg) {
    return withBackend(async (viz) => {
      const op = { type: 'force', index: msg.index, id: msg.id, continue: msg.continue };
      await apply(viz, op);
      log.push(op);
      return snapshot();
    });
  },
  async prefix(msg) {
    return withBackend(async (viz) => {
      const op = { type: 'prefix', text: msg.text };
      await apply(viz, op);
      log.push(op);
      return snapshot();
    });
  },
  async sampling(msg) {
    const op = { type: 'sampling', mode: msg.mode, temperature: msg.temperature, topK: msg.topK, seed: msg.seed };
    for (const viz of [cpu, gpu]) viz?.setSampling(op.mode, op.temperature, op.topK, op.seed);
    log = log.filter((o) => o.type !== 'sampling');
    log.unshift(op);
    return null;
  },
  async pipeline(msg) {
    return withBackend((viz) => viz.pipeline(msg.kind, msg.layer, msg.head));
  },
  async batch(msg) {
    return withBackend((viz) => viz.paddedBatch(msg.texts));
  },
  async trace() {
    return snapshotOrNull();
  },
  async stats() {
    return {
      wasmBytes: cpuWasm ? cpuWasm.memory.buffer.byteLength : 0,
      gpuWasmBytes: gpuModule ? gpuModule.wasm.memory.buffer.byteLength : 0,
      backend: active === gpu && gpu ? 'webgpu' : 'cpu',
      gpuDevices: gpuDevices.length,
    };
  },
  async 'test:rejectAdapter'() {
    // Simulate a browser that refuses the adapter request (test hook).
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

function snapshotOrNull() {
  try {
    return snapshot();
  } catch {
    return null;
  }
}

function enqueue(job) {
  const run = queue.then(job);
  queue = run.catch(() => {});
  return run;
}

async function handle(msg) {
  const handler = handlers[msg.type];
  try {
    if (!handler) throw new Error(`unknown request ${msg.type}`);
    if (msg.type !== 'init' && !active) throw new Error('the model is not loaded');
    const result = await handler(msg);
    post({ id: msg.id, ok: true, result });
  } catch (error) {
    post({ id: msg.id, ok: false, error: errorText(error), trap: error instanceof WebAssembly.RuntimeError });
  }
}

self.onmessage = (event) => {
  const msg = event.data;
  // Test hooks stand for events from outside (a lost GPU): they do not wait in the queue.
  if (msg.type.startsWith('test:')) {
    handle(msg);
    return;
  }
  if (msg.gen != null) latestGeneration = Math.max(latestGeneration, msg.gen);
  enqueue(async () => {
    if (msg.gen != null && msg.gen < latestGeneration) {
      post({ id: msg.id, ok: true, result: { stale: true } });
      return;
    }
    await catchUp();
    await handle(msg);
  });
};

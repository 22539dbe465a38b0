// attnscope's two engines for the race: the CPU module (pkg/cpu) and the WebGPU module
// (pkg/webgpu), loaded as the page's worker loads them (www/worker/cache.js: the same cache, so a
// visitor of the page downloads nothing again), and the shipped models' files through the same
// cache. An engine is { name, prepare(text), encode(text), translate(text), free() }.
import initCpu, { Session as CpuSession, modelFileNames, WeightsFile } from '../pkg/cpu/attnscope.js';
import { cachedFile, moduleBytes, moduleListed, moduleSource } from '../worker/cache.js';
import { Problem } from './problem.js';

const loaded = { cpu: null, webgpu: null };

/** The CPU module, loaded once. */
export function loadCpuModule(onProgress) {
  loaded.cpu ??= (async () => initCpu({ module_or_path: await moduleSource('cpu', 'WebAssembly (CPU)', onProgress) }))();
  return loaded.cpu;
}

/** The WebGPU module's Session class, loaded once; a Problem when the server has not built it. */
export function loadWebgpuModule(onProgress) {
  loaded.webgpu ??= (async () => {
    if (!(await moduleListed('webgpu'))) throw new Problem('noModule', { module: 'WebGPU' });
    const glue = await import('../pkg/webgpu/attnscope.js');
    await glue.default({ module_or_path: await moduleBytes('webgpu', 'WebAssembly (WebGPU)', onProgress) });
    return glue.Session;
  })();
  return loaded.webgpu;
}

/** A shipped model's four files ({ key: bytes }, keyed as modelFileNames() names them). */
export async function modelFiles(entry, onProgress) {
  const names = Object.entries(modelFileNames());
  const bytes = [];
  for (const [, name] of names) {
    bytes.push(await cachedFile(`models/${entry.name}/${name}`, entry.files[name] || 'none', `${entry.name}/${name}`, onProgress));
  }
  return Object.fromEntries(names.map(([key], i) => [key, bytes[i]]));
}

/** The model's config (its config.json, parsed). */
export const modelConfig = (files) => JSON.parse(new TextDecoder().decode(files.config));

/** An engine over one session (greedy decoding, the module's default). */
function engine(name, session, free) {
  return {
    name,
    session,
    /** One untimed translation: the source and output ids the timed runs must repeat. */
    async prepare(text) {
      const { trace } = await session.translate(text);
      return { srcIds: Array.from(trace.srcIds), tgtIds: Array.from(trace.tgtIds) };
    },
    /** Tokenize, encode and answer, as the page's start() does. */
    encode: (text) => session.start(text),
    /** Encode and decode greedily to </s>, the answer included. */
    translate: (text) => session.translate(text),
    free,
  };
}

/** The CPU engine of `files`, its weights in the CPU module as the page loads them. */
export function cpuEngine(files) {
  const weights = WeightsFile.fromBytes(files.weights);
  const session = CpuSession.createCpu(files.config, weights, files.srcTokenizer, files.tgtTokenizer);
  return engine('cpu', session, () => {
    session.free();
    weights.free();
  });
}

/** The WebGPU engine of `files` (the module loaded first). */
export async function webgpuEngine(files, onProgress) {
  const Session = await loadWebgpuModule(onProgress);
  const session = await Session.create(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer, 'webgpu');
  return engine('webgpu', session, () => session.free());
}

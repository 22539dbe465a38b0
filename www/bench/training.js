// The training row: the playground's default run (Playground.create('{}', backend): the config's
// defaults) on the CPU (pkg/train, burn's flex) and on WebGPU (pkg/train-webgpu), from the same
// initial weights. A trainer is { name, step(n), free() }.
import { moduleListed, moduleSource } from '../worker/cache.js';
import { Problem } from './problem.js';

const DEFAULTS = '{}';
const loaded = {};

/** Training module `name` ('train' or 'train-webgpu'), loaded once; a Problem when the server has not built it. */
function trainModule(name, onProgress) {
  loaded[name] ??= (async () => {
    if (!(await moduleListed(name))) throw new Problem('noModule', { module: name });
    const glue = name === 'train' ? await import('../pkg/train/attnscope.js') : await import('../pkg/train-webgpu/attnscope.js');
    await glue.default({ module_or_path: await moduleSource(name, `WebAssembly (${name})`, onProgress) });
    return glue;
  })();
  return loaded[name];
}

/** The default config, as the module gives it (playgroundFacts().defaults). */
export async function defaultConfig(onProgress) {
  return (await trainModule('train', onProgress)).playgroundFacts().defaults;
}

/** A fresh default run on `engine` ('cpu' or 'webgpu'). */
export async function trainer(engine, onProgress) {
  const glue = await trainModule(engine === 'cpu' ? 'train' : 'train-webgpu', onProgress);
  const playground = await glue.Playground.create(DEFAULTS, engine);
  return { name: engine, step: (n) => playground.step(n), free: () => playground.free() };
}

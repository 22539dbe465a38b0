// Profiling page for benches/profile-wasm.mjs: the CPU wasm module (a build that keeps its
// function names, at /prof-pkg/) on a shipped model, driven from the page's main thread so that
// the DevTools profiler sees every wasm frame. window.__profile = { ready, run(stage, n) }.
import init, { Session } from '/prof-pkg/attnscope.js';

const params = new URLSearchParams(location.search);
const model = params.get('model') || 'en-zh';
const files = ['config.json', 'model.safetensors', 'src_tokenizer.json', 'tgt_tokenizer.json'];

async function load() {
  await init();
  const [config, weights, src, tgt] = await Promise.all(
    files.map(async (name) => new Uint8Array(await (await fetch(`/models/${model}/${name}`)).arrayBuffer())),
  );
  return Session.create(config, weights, src, tgt, 'cpu');
}

window.__profile = {
  ready: load().then((session) => {
    window.__profile.session = session;
    return true;
  }),
  /** Repeat one stage `n` times on `text`; returns the mean ms. */
  async run(stage, text, n) {
    const session = window.__profile.session;
    await session.translate(text);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      if (stage === 'encode') await session.start(text);
      else if (stage === 'translate') await session.translate(text);
      else if (stage === 'answer') await session.answer();
      else if (stage === 'step') {
        await session.back();
        await session.step();
      } else throw new Error(`unknown stage ${stage}`);
    }
    return (performance.now() - t0) / n;
  },
};

// Profiling page for benches/profile-wasm.mjs: the CPU wasm module (a build that keeps its
// function names, at /prof-pkg/) on a shipped model, driven from the page's main thread so that
// the DevTools profiler sees every wasm frame. window.__profile = { ready, sentence(n), prepare(text),
// run(stage, text, n) }; stage 'load'
// opens a session from the model's files again.
import init, { modelFileNames, Session } from '/prof-pkg/attnscope.js';
import { benchSentences } from './sentences.js';

const params = new URLSearchParams(location.search);
const model = params.get('model') || 'en-zh';
const dir = params.get('dir') || `/models/${model}`;

/** The model's session on the CPU module, and its parsed config. */
async function load() {
  await init();
  const names = modelFileNames();
  const read = async (key) => new Uint8Array(await (await fetch(`${dir}/${names[key]}`)).arrayBuffer());
  const [config, weights, src, tgt] = await Promise.all(['config', 'weights', 'srcTokenizer', 'tgtTokenizer'].map(read));
  const session = await Session.create(config, weights, src, tgt, 'cpu');
  return { session, config: JSON.parse(new TextDecoder().decode(config)), files: [config, weights, src, tgt] };
}

/** The bench's sentence of `n` source tokens (benches/web/sentences.js). */
async function benchSentence({ session, config }, n) {
  const found = (await benchSentences(session, config)).find((s) => s.n === n);
  if (!found) throw new Error(`no ${n}-token bench sentence for ${config.name} (max_len ${config.max_len})`);
  return found.text;
}

window.__profile = {
  sentence: (n) => benchSentence(window.__profile, n),
  ready: load().then(({ session, config, files }) => {
    Object.assign(window.__profile, { session, config, files });
    return true;
  }),
  /** Translate `text` (before profiling: `step` and `answer` need a translation). */
  async prepare(text) {
    await window.__profile.session.translate(text);
  },
  /** Repeat one stage `n` times on `text`; returns the mean ms. */
  async run(stage, text, n) {
    const session = window.__profile.session;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      if (stage === 'load') (await Session.create(...window.__profile.files, 'cpu')).free();
      else if (stage === 'encode') await session.start(text);
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

// Profiling page for benches/profile-wasm.mjs: the CPU wasm module (a build that keeps its
// function names, at /prof-pkg/) on a shipped model, driven from the page's main thread so that
// the DevTools profiler sees every wasm frame. window.__profile = { ready, sentence(n), prepare(text),
// run(stage, text, n) }.
import init, { Session } from '/prof-pkg/attnscope.js';

const params = new URLSearchParams(location.search);
const model = params.get('model') || 'en-zh';
const dir = params.get('dir') || `/models/${model}`;
const files = ['config.json', 'model.safetensors', 'src_tokenizer.json', 'tgt_tokenizer.json'];

async function load() {
  await init();
  const [config, weights, src, tgt] = await Promise.all(
    files.map(async (name) => new Uint8Array(await (await fetch(`${dir}/${name}`)).arrayBuffer())),
  );
  return Session.create(config, weights, src, tgt, 'cpu');
}

/** The bench's sentence of `n` source tokens (as benches/web/bench.js builds it from
 * sentences.json: n − 1 one-token words in turn, and </s>). */
async function benchSentence(session, n) {
  const file = await (await fetch('/bench/sentences.json')).json();
  const config = JSON.parse(new TextDecoder().decode(await (await fetch(`${dir}/config.json`)).arrayBuffer()));
  const spec = file.models[config.name] || file.models['en-zh'];
  const words = [];
  for (const word of spec.candidates) {
    if (!spec.oneTokenWords || (await session.start(word)).trace.srcIds.length === 2) words.push(word);
  }
  return Array.from({ length: n - 1 }, (_, i) => words[i % words.length]).join(spec.joiner);
}

window.__profile = {
  sentence: (n) => benchSentence(window.__profile.session, n),
  ready: load().then((session) => {
    window.__profile.session = session;
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

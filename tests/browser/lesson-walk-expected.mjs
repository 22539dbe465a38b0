// What each lesson check's right answer is, recomputed from the native CLI's JSON (`attnscope
// inspect --json`, `trace --json`), not from the page: for tests/browser/lesson-walk.test.mjs.
// `card` is the lesson card's dataset (its `pick`: STACK/LAYER/POSITION/HEAD, the token the card
// follows; `rows`: the decoder's input rows on screen); `cli(args)` runs the CLI.
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * The walks: both languages on the running example; one language on a second sentence and the
 * second model. `position`: the source token the journey is switched to at the qkv step.
 */
export const WALKS = [
  { lang: 'en', model: 'en-zh', text: 'I love eating apples.', position: 2, norm: 'normed-input' },
  { lang: 'zh-CN', model: 'en-zh', text: 'I love eating apples.', position: 1, norm: 'normed-input' },
  { lang: 'en', model: 'date-iso', text: 'May 3rd, 1987', position: 2, norm: 'normed' },
];

const PUNCTUATION = /^[\s\p{P}▁]*$/u;
const config = (model) => JSON.parse(readFileSync(`${ROOT}models/${model}/config.json`, 'utf8'));
const SHORT = { 'date-iso': '1 May 2000' }; // app/models.js loadPaddingDemo's second sentence

/** The token the card follows: its `pick`, STACK/LAYER/POSITION/HEAD. */
export const pickOf = (card) => {
  const [stack, layer, position, head] = card.pick.split('/');
  return { stack, layer: Number(layer), position: Number(position), head: Number(head) };
};

const argmax = (values, keys) => keys.reduce((best, k) => (values[k] > values[best] ? k : best), keys[0]);
/** The key after `right` among `keys` by `rank` (the runner-up), for a wrong answer that is an option. */
const runnerUp = (rank, keys, right) => [...keys].sort((a, b) => rank[b] - rank[a]).find((k) => k !== right);

/** The first output token of the greedy translation, as text: the prefix the teacher step types. */
export function nextPrefix(walk, cli) {
  const trace = cli(['trace', '--model', `models/${walk.model}`, '--json', walk.text]).trace;
  return trace.tgtTokens[1].replace(/▁/g, '');
}

/** { value, digits } for a number check, { value, wrong } for a choice (option values). */
export function expected(id, walk, card, cli) {
  const dir = `models/${walk.model}`;
  const pick = pickOf(card);
  const inspect = (p) =>
    cli(['inspect', '--model', dir, '--stack', p.stack, '--layer', String(p.layer), '--position', String(p.position), '--json', walk.text]);
  const trace = () => cli(['trace', '--model', dir, '--json', walk.text]).trace;
  const j = () => inspect(pick);
  const head = () => j().selfAttention.heads[pick.head];
  const openKeys = () => j().selfAttention.masked.flatMap((m, k) => (m ? [] : [k]));
  switch (id) {
    case 'overview':
      return { value: trace().srcTokens.length, digits: 0 };
    case 'qkv':
      return { value: j().dK, digits: 0 };
    case 'dot': {
      const { scores } = head();
      const right = argmax(scores, openKeys());
      return { value: right, wrong: runnerUp(scores, openKeys(), right) };
    }
    case 'softmax': {
      const { weights } = head();
      return { value: weights[argmax(weights, openKeys())], digits: 2 };
    }
    case 'weighted':
      return { value: head().output[0], digits: 2 };
    case 'heads': {
      const best = argmax(head().weights, openKeys());
      const per = j().selfAttention.heads.map((h) => h.weights[best]);
      const heads = [...per.keys()];
      const right = argmax(per, heads);
      return { value: right, wrong: heads.find((h) => h !== right) };
    }
    case 'matrix': {
      const stack = trace().encoderSelfAttention;
      return { value: stack.queries * stack.keys, digits: 0 };
    }
    case 'scale': {
      const stages = cli(['trace', '--model', dir, '--json', '--stages', `encoderSelf:${pick.layer}:${pick.head}`, walk.text]).stages;
      return { value: stages.unscaledEntropy[pick.head], digits: 2 };
    }
    case 'norm':
      return { value: j().selfAttention.std, digits: 2 };
    case 'ffn':
      return { value: j().feedForward.zeros, digits: 0 };
    case 'positional':
      return { value: inspect({ ...pick, stack: 'encoder', layer: 0 }).positional[0], digits: 2 };
    case 'padding': {
      const c = config(walk.model);
      const long = cli(['trace', '--model', dir, '--json', c.example]).trace.srcTokens.length;
      const short = cli(['trace', '--model', dir, '--json', SHORT[walk.model] ?? 'Hello!']).trace.srcTokens.length;
      return { value: Math.abs(long - short), digits: 0 };
    }
    case 'causal': {
      const mask = trace().causalMask;
      return { value: mask.hidden.slice(mask.cols, 2 * mask.cols).filter(Boolean).length, digits: 0 };
    }
    case 'cross': {
      // The row the next Step ▶ writes (card.rows: the decoder's rows before it), at the layer and
      // head the card shows, over the source words.
      const t = trace();
      const c = config(walk.model);
      const stack = t.crossAttention;
      const keys = [...Array(stack.keys).keys()].filter(
        (k) => t.srcIds[k] !== c.bos_id && t.srcIds[k] !== c.eos_id && !PUNCTUATION.test(t.srcTokens[k]),
      );
      const row = Number(card.rows);
      const start = ((pick.layer * stack.heads + pick.head) * stack.queries + row) * stack.keys;
      const weights = stack.data.slice(start, start + stack.keys);
      const right = argmax(weights, keys);
      return { value: right, wrong: runnerUp(weights, keys, right) };
    }
    case 'decoding': {
      const { candidates } = trace().steps[0];
      const order = [...candidates.keys()].sort((a, b) => candidates[b].probability - candidates[a].probability);
      return { value: order[1], wrong: order[0] };
    }
    default:
      throw new Error(`no expected answer for ${id}`);
  }
}

// The lesson's graded checks: one per step that has one, keyed by the step's id. Each answer is
// computed from the live model for the sentence on screen (the step's ctx, www/lesson/steps.js),
// so typing another sentence or opening another model gives another correct answer; the test
// (tests/browser/lesson-walk.test.mjs) recomputes each from `attnscope inspect --json`.
//
// A check: { kind, hides, answer(ctx) }.
//   kind   'choice' (pick one of `options`), 'number' (type it, to `digits` places) or 'predict'
//          (pick, then do the step's task; graded against what the model does then).
//   hides  the step's text parameters the card hides while the check is open (the value it asks).
//   answer { value (number; choice: the right option's value), digits, options: [{ label, value }],
//            params (for the question, the hint and the reason) }, or null: no check for this ctx.
// A 'predict' check's answer(ctx) gives the options and `grade(ctx, before)`, which reads the
// answer from the page after the task (ctx then) and what was stored when the check opened.
import { stackIndex, tok } from './numbers.js';
import { argmax, firstLayer, SHOWN, where, wordKeys } from './steps/common.js';

/** The unmasked keys of the journey's attention sub-layer `part`, in order. */
function openKeys(sub) {
  return [...Array(sub.kLen).keys()].filter((k) => !sub.masked?.[k]);
}

/**
 * Key options for a choice over `keys` of `tokens`: all of them, or the `limit` (SHOWN unless
 * given) that the `rank` values put highest (the right one always among them), in sentence order.
 * Repeated tokens get their position after them, so two options never read alike.
 */
function keyOptions(tokens, keys, rank, limit = SHOWN) {
  const kept =
    keys.length <= limit
      ? keys
      : [...keys]
          .sort((a, b) => rank[b] - rank[a])
          .slice(0, limit)
          .sort((a, b) => a - b);
  const count = new Map();
  for (const k of kept) count.set(tokens[k], (count.get(tokens[k]) ?? 0) + 1);
  return kept.map((k) => ({ label: count.get(tokens[k]) > 1 ? `${tokens[k]} (${k})` : String(tokens[k]), value: k }));
}

/** The weight row (`row`) of trace stack `kind` at layer, head. */
function traceRow(trace, kind, layer, head, row) {
  const stack = trace[kind];
  const start = stackIndex(stack, layer, head, row, 0);
  return Array.from(stack.data.subarray(start, start + stack.keys));
}

export const CHECKS = {
  overview: {
    kind: 'number',
    hides: ['srcCount'],
    answer: (ctx) => ({ value: ctx.trace.srcTokens.length, digits: 0, params: {} }),
  },
  qkv: {
    kind: 'number',
    hides: ['dK', 'q'],
    answer: (ctx) => ({ value: ctx.journey.dK, digits: 0, params: where(ctx) }),
  },
  dot: {
    kind: 'choice',
    hides: ['scores', 'best'],
    answer: (ctx) => {
      const sub = ctx.journey.selfAttention;
      const scores = sub.heads[ctx.pick.head].scores;
      const keys = openKeys(sub);
      const right = argmax(scores, keys);
      return { value: right, options: keyOptions(sub.keyTokens, keys, scores), params: { ...where(ctx), best: tok(sub.keyTokens[right]) } };
    },
  },
  softmax: {
    kind: 'number',
    hides: ['weights'],
    answer: (ctx) => {
      const sub = ctx.journey.selfAttention;
      const weights = sub.heads[ctx.pick.head].weights;
      const best = argmax(weights, openKeys(sub));
      return { value: weights[best], digits: 2, params: { ...where(ctx), key: tok(sub.keyTokens[best]) } };
    },
  },
  weighted: {
    kind: 'number',
    hides: ['terms', 'out'],
    answer: (ctx) => ({ value: ctx.journey.selfAttention.heads[ctx.pick.head].output[0], digits: 2, params: where(ctx) }),
  },
  heads: {
    kind: 'choice',
    hides: ['perHead'],
    answer: (ctx) => {
      const sub = ctx.journey.selfAttention;
      const best = argmax(sub.heads[ctx.pick.head].weights, openKeys(sub));
      const per = sub.heads.map((h) => h.weights[best]);
      const heads = [...per.keys()];
      return {
        value: argmax(per, heads),
        options: heads.map((h) => ({ label: String(h), value: h, head: true })),
        params: { ...where(ctx), key: tok(sub.keyTokens[best]) },
      };
    },
  },
  matrix: {
    kind: 'number',
    hides: ['rows', 'keys'],
    answer: (ctx) => {
      const stack = ctx.trace[ctx.pick.stack === 'encoder' ? 'encoderSelfAttention' : 'decoderSelfAttention'];
      return { value: stack.queries * stack.keys, digits: 0, params: where(ctx) };
    },
  },
  scale: {
    kind: 'number',
    hides: ['withoutScale', 'withScale'],
    answer: (ctx) => {
      const { stages } = ctx;
      if (!stages?.unscaledEntropy || ctx.config.scaledAttention === false) return null;
      return { value: stages.unscaledEntropy[ctx.pick.head], digits: 2, params: where(ctx) };
    },
  },
  norm: {
    kind: 'number',
    hides: ['std', 'mean'],
    answer: (ctx) => ({ value: ctx.journey.selfAttention.std, digits: 2, params: where(ctx) }),
  },
  ffn: {
    kind: 'number',
    hides: ['zeros'],
    answer: (ctx) => {
      const { activation, feedForward } = ctx.journey;
      if (activation !== 'relu' || feedForward?.zeros == null) return null;
      return { value: feedForward.zeros, digits: 0, params: where(ctx) };
    },
  },
  positional: {
    kind: 'number',
    hides: ['pe0', 'x0'],
    answer: async (ctx) => {
      if (ctx.positional?.kind === 'none') return null;
      const j0 = await firstLayer(ctx);
      const p = j0?.positional;
      if (!p) return null;
      return { value: p[0], digits: 2, params: { ...where(ctx), token: tok(j0.token) } };
    },
  },
  padding: {
    kind: 'number',
    hides: ['pads', 'padCount', 'longCount', 'shortCount'],
    answer: (ctx) => {
      const masks = ctx.batch?.paddingMask;
      if (!masks?.length) return null;
      const pads = masks.map((m) => m.hidden.reduce((a, b) => a + b, 0));
      return { value: Math.max(...pads), digits: 0, params: {} };
    },
  },
  causal: {
    kind: 'number',
    hides: ['hidden', 'row'],
    answer: (ctx) => {
      const mask = ctx.trace.causalMask;
      if (ctx.config.causalDecoder === false || !mask || mask.rows < 2) return null;
      // Row 1 reads the first output token: the mask hides from it the token it predicts and every later one.
      const hidden = mask.hidden.slice(mask.cols, 2 * mask.cols).reduce((a, b) => a + b, 0);
      return { value: hidden, digits: 0, params: { token: tok(ctx.trace.tgtTokens[1]) } };
    },
  },
  cross: {
    kind: 'predict',
    hides: ['row', 'best', 'next'],
    answer: (ctx) => {
      const { trace, config } = ctx;
      const all = [...Array(trace.crossAttention.keys).keys()];
      const words = wordKeys({ trace, config }, all);
      const keys = words.length ? words : all;
      // Every source word is an option: nothing ranks them before the step.
      const options = keyOptions(trace.srcTokens, keys, [], keys.length);
      const before = { rows: trace.crossAttention.queries, layer: ctx.pick.layer, head: ctx.pick.head, keys };
      return { value: null, options, before, params: where(ctx) };
    },
    /** After Step ▶: the new row's heaviest source word at the layer and head the card showed. */
    grade: (ctx, before) => {
      const { trace } = ctx;
      if (trace.crossAttention.queries !== before.rows + 1) return null;
      const row = traceRow(trace, 'crossAttention', before.layer, before.head, before.rows);
      return argmax(row, before.keys);
    },
  },
  decoding: {
    kind: 'choice',
    hides: ['steps'],
    answer: (ctx) => {
      if (ctx.decoding?.mode === 'sample') return null;
      const step = ctx.trace.steps[0];
      if (!step || step.candidates.length < 2) return null;
      const sorted = [...step.candidates.keys()].sort((a, b) => step.candidates[b].probability - step.candidates[a].probability);
      // In alphabetical order: the menu's order must not give the ranking away.
      const options = [...step.candidates.keys()]
        .map((k) => ({ label: step.candidates[k].token, value: k }))
        .sort((a, b) => a.label.localeCompare(b.label));
      return { value: sorted[1], options, params: { first: tok(step.candidates[sorted[0]].token) } };
    },
  },
};

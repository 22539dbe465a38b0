// What the lesson's steps share: the keys a text lists, the weights it quotes from the trace, the
// journey step's shape. ctx is the one www/lesson/steps.js describes.
import { PUNCTUATION } from '../../views/journey.js';
import { more as etc, idx, join, stackIndex, tok, weight, words } from '../numbers.js';

/** The trace's stack of each journey stack's self-attention. */
export const KIND = { encoder: 'encoderSelfAttention', decoder: 'decoderSelfAttention' };
/** Keys listed by name in a text; the rest are "…". */
export const SHOWN = 8;

export const journeyPanel = '#journey-panel';

/**
 * The keys of the pick's attention sub-layer `part` that its mask leaves visible, in order: all
 * of them, or the SHOWN the pick's head weighs most (`more`: some are left out).
 */
export function visibleKeys(ctx, part = 'selfAttention') {
  const sub = ctx.journey[part];
  const keys = [...Array(sub.kLen).keys()].filter((k) => !sub.masked?.[k]);
  if (keys.length <= SHOWN) return { keys, more: false };
  const weights = sub.heads[ctx.pick.head].weights;
  const heaviest = [...keys].sort((a, b) => weights[b] - weights[a]).slice(0, SHOWN);
  return { keys: heaviest.sort((a, b) => a - b), more: true };
}

/** "token 0.08, token 0.11, …": the trace's row of `kind` for the pick, over `keys`. */
export function weightList(ctx, kind, tokens, keys, more, row = ctx.pick.position) {
  const { layer, head } = ctx.pick;
  const items = keys.map((k) => [tok(tokens[k]), words(' '), weight(ctx.trace, kind, layer, head, row, k)]);
  return [...join(items), ...(more ? [etc()] : [])];
}

/** The index of the largest of `values` over `keys`. */
export const argmax = (values, keys) => keys.reduce((best, k) => (values[k] > values[best] ? k : best), keys[0]);

/** The pick's head in its journey's self-attention. */
export const head = (ctx) => ctx.journey.selfAttention.heads[ctx.pick.head];

/**
 * The source keys among `keys` that are words: not <s> or </s> (by the config's ids), and not
 * punctuation, where idle heads park their weight as they do on </s> (en-zh writes 果 with its
 * weight on “.” and </s>); every key but <s> and </s> if that leaves none.
 */
export function wordKeys({ trace, config }, keys) {
  const named = keys.filter((k) => trace.srcIds[k] !== config.bosId && trace.srcIds[k] !== config.eosId);
  const words = named.filter((k) => !PUNCTUATION.test(trace.srcTokens[k] ?? ''));
  return words.length ? words : named;
}

/**
 * For the cross-attention step: the decoder row that wrote the pick's token (its input is the
 * token before), and the layer and head where that row leans hardest on one source word (see
 * `wordKeys`), read from the trace.
 */
export function sharpestCrossHead({ trace, config }, pick) {
  const stack = trace.crossAttention;
  const keys = wordKeys({ trace, config }, [...Array(stack.keys).keys()]);
  const position = Math.max(0, pick.position - 1);
  let best = { ...pick, position, weight: -1 };
  for (let layer = 0; layer < stack.layers; layer++) {
    for (let h = 0; h < stack.heads; h++) {
      for (const k of keys) {
        const w = stack.data[stackIndex(stack, layer, h, position, k)];
        if (w > best.weight) best = { ...best, layer, head: h, weight: w };
      }
    }
  }
  const { weight, ...chosen } = best;
  return chosen;
}

/** The pick's layer, head and token, as most texts name them. */
export const where = (ctx) => ({ layer: idx(ctx.pick.layer), head: idx(ctx.pick.head), token: tok(ctx.journey.token) });

/** The heatmap kind of the pick's self-attention. */
export const selfKind = (ctx) => (ctx.pick.stack === 'encoder' ? 'encoderSelf' : 'decoderSelf');

/** The journey at layer 0 of the pick's stack and position (where the embedding and PE are). */
export const firstLayer = async (ctx) => (ctx.pick.layer === 0 ? ctx.journey : await ctx.fetch({ ...ctx.pick, layer: 0 }));

/**
 * A step about the journey view, lighting `focus` in it: `params(ctx, view)` reads its numbers,
 * with view = { j (the journey), h (the pick's head), keys and more (visibleKeys) }; `extra` adds
 * fields (an `action`).
 */
export const journeyStep = (id, focus, params, extra = {}) => ({
  id,
  panel: journeyPanel,
  focus,
  needs: 'journey',
  params: (ctx) => params(ctx, { j: ctx.journey, h: ctx.pick.head, ...visibleKeys(ctx) }),
  ...extra,
});

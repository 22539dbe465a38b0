// The lesson's steps on one attention head, in the seed articles' order: query, key and value;
// the dot product; softmax; the weighted sum; many heads; the matrix form; why ÷√d_k. They follow
// the lesson's pick, which the controller starts in the encoder (no mask to explain yet).
import { more as etc, fromJourney, idx, join, lessonHead, num, signed, tok, weight, words } from '../numbers.js';
import { argmax, head, journeyStep, KIND, selfKind, visibleKeys, weightList, where } from './common.js';

const qkv = journeyStep('qkv', '.j-block[data-part=selfAttention] .j-head', (ctx, { j }) => {
  const q = [0, 1, 2].map((i) => fromJourney(j, `selfAttention.heads.${ctx.pick.head}.q.${i}`));
  return { ...where(ctx), dModel: fromJourney(j, 'dModel', 0), dK: fromJourney(j, 'dK', 0), q: [...join(q), etc()] };
});

const dot = journeyStep('dot', '.j-block[data-part=selfAttention] .j-keys', (ctx, { j, h, keys, more }) => {
  const items = keys.map((k) => [tok(j.selfAttention.keyTokens[k]), words(' '), fromJourney(j, `selfAttention.heads.${h}.scores.${k}`)]);
  return {
    ...where(ctx),
    dK: fromJourney(j, 'dK', 0),
    scores: [...join(items), ...(more ? [etc()] : [])],
    best: tok(j.selfAttention.keyTokens[argmax(head(ctx).scores, keys)]),
  };
});

const softmax = journeyStep('softmax', '.j-block[data-part=selfAttention] .j-keys', (ctx, { j, keys, more }) => ({
  ...where(ctx),
  dK: fromJourney(j, 'dK', 0),
  weights: weightList(ctx, KIND[j.stack], j.selfAttention.keyTokens, keys, more),
}));

const weighted = journeyStep('weighted', '.j-block[data-part=selfAttention] .j-head', (ctx, { j, h, keys, more }) => {
  const terms = keys.map((k) => [
    fromJourney(j, `selfAttention.heads.${h}.weights.${k}`, 2),
    words(' × '),
    signed(fromJourney(j, `selfAttention.heads.${h}.values.${k * j.dK}`)),
  ]);
  return {
    ...where(ctx),
    dim: idx(0),
    terms: [...join(terms, ' + '), ...(more ? [words(' + …')] : [])],
    out: fromJourney(j, `selfAttention.heads.${h}.output.0`),
  };
});

const heads = journeyStep('heads', '.j-block[data-part=selfAttention] .j-summary', (ctx, { j, keys }) => {
  const best = argmax(head(ctx).weights, keys);
  const row = ctx.pick.position;
  const per = [...Array(j.heads).keys()].map((h) => [...lessonHead(h), weight(ctx.trace, KIND[j.stack], ctx.pick.layer, h, row, best)]);
  return {
    ...where(ctx),
    heads: fromJourney(j, 'heads', 0),
    dK: fromJourney(j, 'dK', 0),
    dModel: fromJourney(j, 'dModel', 0),
    key: tok(j.selfAttention.keyTokens[best]),
    perHead: join(per),
  };
});

const matrix = {
  id: 'matrix',
  panel: '#focus-heatmap',
  needs: 'journey',
  select: (ctx) => ({ kind: selfKind(ctx), layer: ctx.pick.layer, head: ctx.pick.head }),
  params: (ctx) => {
    const kind = KIND[ctx.pick.stack];
    const stack = ctx.trace[kind];
    return {
      ...where(ctx),
      rows: num(stack.queries, 'trace', `${kind}.queries`, 0),
      keys: num(stack.keys, 'trace', `${kind}.keys`, 0),
      dK: fromJourney(ctx.journey, 'dK', 0),
      row: weightList(ctx, kind, ctx.journey.selfAttention.keyTokens, visibleKeys(ctx).keys.slice(0, 3), true),
    };
  },
};

const scale = {
  id: 'scale',
  panel: '#stages',
  needs: 'journey',
  select: (ctx) => ({ kind: selfKind(ctx), layer: ctx.pick.layer, head: ctx.pick.head }),
  action: () => ({ key: 'experiment', id: 'C' }),
  params: (ctx) => {
    const j = ctx.journey;
    const { keys } = visibleKeys(ctx);
    const h = ctx.pick.head;
    const best = argmax(head(ctx).scores, keys);
    const { stages } = ctx;
    const entropy = stages?.kind === selfKind(ctx) && stages.layer === ctx.pick.layer ? stages : null;
    return {
      variant: ctx.config.scaledAttention === false ? 'unscaled' : 'scaled',
      ...where(ctx),
      dK: fromJourney(j, 'dK', 0),
      maxScore: fromJourney(j, `selfAttention.heads.${h}.scores.${best}`),
      maxScaled: fromJourney(j, `selfAttention.heads.${h}.scaled.${best}`),
      withScale: entropy ? num(entropy.entropy[h], 'stages', `entropy.${h}`, 3) : words('…'),
      withoutScale: entropy ? num(entropy.unscaledEntropy[h], 'stages', `unscaledEntropy.${h}`, 3) : words('…'),
    };
  },
};

export const ATTENTION_STEPS = [qkv, dot, softmax, weighted, heads, matrix, scale];

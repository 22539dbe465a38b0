// The lesson's fourteen steps, in the seed articles' order. Each step names the view it is about
// (`panel`, and `focus` inside it), gets the page ready for it (`prepare`: which token, layer and
// head the views show) and reads the numbers its text needs from the model (`params`). The words
// are in www/lesson/texts.js, under the step's id.
//
// ctx: { trace, stages, config, positional, model (its name), journey (the journey view's, at the
// lesson's pick), pick ({ stack, layer, position, head }), fetch (a journey by { stack, layer,
// position }), models (the names the page has) }.
import { PUNCTUATION } from '../views/journey.js';
import { more as etc, fromJourney, idx, join, lessonHead, num, signed, stackIndex, tok, weight, words } from './numbers.js';

const KIND = { encoder: 'encoderSelfAttention', decoder: 'decoderSelfAttention' };
const SHOWN = 8; // keys listed by name in a text; the rest are "…"

/**
 * The keys of the pick's attention sub-layer `part` that its mask leaves visible, in order: all
 * of them, or the SHOWN the pick's head weighs most (`more`: some are left out).
 */
function visibleKeys(ctx, part = 'selfAttention') {
  const sub = ctx.journey[part];
  const keys = [...Array(sub.kLen).keys()].filter((k) => !sub.masked?.[k]);
  if (keys.length <= SHOWN) return { keys, more: false };
  const weights = sub.heads[ctx.pick.head].weights;
  const heaviest = [...keys].sort((a, b) => weights[b] - weights[a]).slice(0, SHOWN);
  return { keys: heaviest.sort((a, b) => a - b), more: true };
}

/** "token 0.08, token 0.11, …": the trace's row of `kind` for the pick, over `keys`. */
function weightList(ctx, kind, tokens, keys, more, row = ctx.pick.position) {
  const { layer, head } = ctx.pick;
  const items = keys.map((k) => [tok(tokens[k]), words(' '), weight(ctx.trace, kind, layer, head, row, k)]);
  return [...join(items), ...(more ? [etc()] : [])];
}

/** The index of the largest of `values` over `keys`. */
const argmax = (values, keys) => keys.reduce((best, k) => (values[k] > values[best] ? k : best), keys[0]);

const head = (ctx) => ctx.journey.selfAttention.heads[ctx.pick.head];

/**
 * The source keys among `keys` that are words: not <s> or </s> (by the config's ids), and not
 * punctuation, where idle heads park their weight as they do on </s> (en-zh writes 果 with its
 * weight on “.” and </s>); every key but <s> and </s> if that leaves none.
 */
function wordKeys({ trace, config }, keys) {
  const named = keys.filter((k) => trace.srcIds[k] !== config.bosId && trace.srcIds[k] !== config.eosId);
  const words = named.filter((k) => !PUNCTUATION.test(trace.srcTokens[k] ?? ''));
  return words.length ? words : named;
}

/**
 * For the cross-attention step: the decoder row that wrote the pick's token (its input is the
 * token before), and the layer and head where that row leans hardest on one source word (see
 * `wordKeys`), read from the trace.
 */
function sharpestCrossHead({ trace, config }, pick) {
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
const where = (ctx) => ({ layer: idx(ctx.pick.layer), head: idx(ctx.pick.head), token: tok(ctx.journey.token) });

const journeyPanel = '#journey-panel';

/** The heatmap kind of the pick's self-attention. */
const selfKind = (ctx) => (ctx.pick.stack === 'encoder' ? 'encoderSelf' : 'decoderSelf');

/**
 * A step about the journey view, lighting `focus` in it: `params(ctx, view)` reads its numbers,
 * with view = { j (the journey), h (the pick's head), keys and more (visibleKeys) }; `extra` adds
 * fields (an `action`).
 */
const journeyStep = (id, focus, params, extra = {}) => ({
  id,
  panel: journeyPanel,
  focus,
  needs: 'journey',
  params: (ctx) => params(ctx, { j: ctx.journey, h: ctx.pick.head, ...visibleKeys(ctx) }),
  ...extra,
});

export const STEPS = [
  journeyStep('qkv', '.j-block[data-part=selfAttention] .j-head', (ctx, { j }) => {
    const q = [0, 1, 2].map((i) => fromJourney(j, `selfAttention.heads.${ctx.pick.head}.q.${i}`));
    return {
      ...where(ctx),
      dModel: fromJourney(j, 'dModel', 0),
      dK: fromJourney(j, 'dK', 0),
      q: [...join(q), etc()],
    };
  }),
  journeyStep('dot', '.j-block[data-part=selfAttention] .j-keys', (ctx, { j, h, keys, more }) => {
    const items = keys.map((k) => [tok(j.selfAttention.keyTokens[k]), words(' '), fromJourney(j, `selfAttention.heads.${h}.scores.${k}`)]);
    return {
      ...where(ctx),
      dK: fromJourney(j, 'dK', 0),
      scores: [...join(items), ...(more ? [etc()] : [])],
      best: tok(j.selfAttention.keyTokens[argmax(head(ctx).scores, keys)]),
    };
  }),
  journeyStep('softmax', '.j-block[data-part=selfAttention] .j-keys', (ctx, { j, keys, more }) => {
    return { ...where(ctx), dK: fromJourney(j, 'dK', 0), weights: weightList(ctx, KIND[j.stack], j.selfAttention.keyTokens, keys, more) };
  }),
  journeyStep('weighted', '.j-block[data-part=selfAttention] .j-head', (ctx, { j, h, keys, more }) => {
    const terms = keys.map((k) => [
      fromJourney(j, `selfAttention.heads.${h}.weights.${k}`, 2),
      words(' × '),
      signed(fromJourney(j, `selfAttention.heads.${h}.values.${k * j.dK}`)),
    ]);
    return {
      ...where(ctx),
      terms: [...join(terms, ' + '), ...(more ? [words(' + …')] : [])],
      out: fromJourney(j, `selfAttention.heads.${h}.output.0`),
    };
  }),
  journeyStep('heads', '.j-block[data-part=selfAttention] .j-summary', (ctx, { j, keys }) => {
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
  }),
  {
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
  },
  {
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
      const kind = selfKind(ctx);
      const entropy = stages?.kind === kind && stages.layer === ctx.pick.layer ? stages : null;
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
  },
  journeyStep('norm', '.j-block[data-part=selfAttention] .j-summary', (ctx, { j }) => {
    return {
      ...where(ctx),
      x0: fromJourney(j, 'input.0'),
      p0: signed(fromJourney(j, 'selfAttention.projected.0')),
      r0: fromJourney(j, 'selfAttention.residual.0'),
      dModel: fromJourney(j, 'dModel', 0),
      mean: fromJourney(j, 'selfAttention.mean'),
      std: fromJourney(j, 'selfAttention.std'),
      variant: j.norm,
    };
  }),
  journeyStep('ffn', '.j-block[data-part=feedForward]', (ctx, { j }) => {
    return {
      ...where(ctx),
      dModel: fromJourney(j, 'dModel', 0),
      dFf: fromJourney(j, 'dFf', 0),
      zeros: fromJourney(j, 'feedForward.zeros', 0),
      activation: words(j.activation),
    };
  }),
  {
    id: 'positional',
    panel: '#positional',
    needs: 'journey',
    action: () => ({ key: 'experiment', id: 'A' }),
    params: async (ctx) => {
      const j0 = ctx.pick.layer === 0 ? ctx.journey : await ctx.fetch({ ...ctx.pick, layer: 0 });
      const p = ctx.positional;
      const delta = 3;
      const at = (k) => [
        num(p.dotProducts[k][delta], 'positional', `dotProducts.${k}.${delta}`, 3),
        words(' (t = '),
        num(p.starts[k], 'positional', `starts.${k}`, 0),
        words(')'),
      ];
      return {
        variant: p.kind ?? 'sinusoidal',
        token: tok(j0.token),
        position: fromJourney(j0, 'position', 0),
        e0: fromJourney(j0, 'embedding.0'),
        pe0: signed(fromJourney(j0, 'positional.0')),
        x0: fromJourney(j0, 'input.0'),
        delta: idx(delta),
        products: join([0, 1, 2].filter((k) => p.dotProducts[k]?.length > delta).map(at)),
      };
    },
  },
  journeyStep(
    'placement',
    '.j-dims',
    (ctx, { j }) => {
      return {
        ...where(ctx),
        model: tok(ctx.model),
        variant: j.norm,
        mean: fromJourney(j, 'selfAttention.mean'),
        std: fromJourney(j, 'selfAttention.std'),
      };
    },
    {
      action: (ctx) => {
        const other = ctx.journey.norm === 'pre' ? 'date-iso' : 'en-zh';
        return ctx.models.includes(other) && other !== ctx.model ? { key: 'switchModel', model: other } : null;
      },
    },
  ),
  {
    id: 'causal',
    panel: '#masks',
    needs: 'decoder',
    action: () => ({ key: 'experiment', id: 'B' }),
    params: (ctx) => {
      const tokens = ctx.trace.tgtTokens;
      const rows = ctx.trace.decoderSelfAttention.queries;
      const row = Math.min(1, rows - 1);
      const keys = [...Array(Math.min(rows, SHOWN)).keys()];
      return {
        variant: ctx.config.causalDecoder === false ? 'open' : 'masked',
        layer: idx(ctx.pick.layer),
        head: idx(ctx.pick.head),
        token: tok(tokens[row]),
        position: idx(row),
        row: weightList(ctx, 'decoderSelfAttention', tokens, keys, rows > SHOWN, row),
      };
    },
  },
  {
    id: 'cross',
    panel: journeyPanel,
    focus: '.j-block[data-part=crossAttention]',
    needs: 'decoderJourney',
    pick: sharpestCrossHead,
    params: (ctx) => {
      const j = ctx.journey;
      const { keys, more } = visibleKeys(ctx, 'crossAttention');
      const weights = j.crossAttention.heads[ctx.pick.head].weights;
      const words = wordKeys(ctx, keys);
      return {
        ...where(ctx),
        next: tok(ctx.trace.tgtTokens[j.position + 1] ?? '…'),
        row: weightList(ctx, 'crossAttention', j.crossAttention.keyTokens, keys, more),
        best: tok(j.crossAttention.keyTokens[argmax(weights, words.length ? words : keys)]),
      };
    },
  },
  {
    id: 'decoding',
    panel: '#stepper',
    needs: 'decoder',
    params: (ctx) => {
      const { trace, config } = ctx;
      const steps = trace.steps.map((step, i) => {
        const k = step.candidates.findIndex((c) => c.id === step.id);
        const p =
          k >= 0
            ? [words(' ('), num(step.candidates[k].probability, 'trace', `steps.${i}.candidates.${k}.probability`, 2), words(')')]
            : [];
        return [tok(step.token), ...p];
      });
      return {
        vocab: num(config.tgtVocabSize, 'config', 'tgtVocabSize', 0),
        steps: join(steps, ' → '),
        output: tok(trace.output),
      };
    },
  },
];

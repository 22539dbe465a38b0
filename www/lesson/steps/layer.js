// The lesson's steps on the rest of a layer and what comes before the first one: the overview
// (encoder, decoder, the embedding and its tokens), residual and LayerNorm, the feed-forward
// network, positional encoding, why sinusoids, and where the LayerNorm sits.
import { PUNCTUATION } from '../../views/journey.js';
import { fromJourney, idx, join, journeyRoot, num, part, signed, tiny, tok, words } from '../numbers.js';
import { firstLayer, journeyStep, where } from './common.js';

/** The activation's usual name. */
const ACTIVATION = { relu: 'ReLU', gelu: 'GELU', swish: 'Swish' };

/** The ids that are not text: <s>, </s>, <pad>, <unk>. */
const specialIds = (config) => new Set([config.bosId, config.eosId, config.padId, config.unkId]);

/**
 * What the overview says of the tokens: SentencePiece's ▁ where a side of the sentence has it
 * (source first), else single characters (and ␣, the page's space), else pieces of a vocabulary.
 */
function tokenNote({ trace, config }) {
  const special = specialIds(config);
  const text = (tokens, ids) => tokens.filter((_, i) => !special.has(ids[i]));
  const sides = [text(trace.srcTokens, trace.srcIds), text(trace.tgtTokens, trace.tgtIds)];
  const marked = sides.find((tokens) => tokens.some((t) => t.startsWith('▁')));
  if (marked) {
    const start = tok(marked.find((t) => t.startsWith('▁')));
    // A piece inside a word if the sentence has one, else what follows a word with no space (“.”).
    const piece = marked.find((t) => !t.startsWith('▁') && !PUNCTUATION.test(t)) ?? marked.find((t) => !t.startsWith('▁'));
    return piece ? { tokens: part('overview', 'pieces'), start, piece: tok(piece) } : { tokens: part('overview', 'piecesWhole'), start };
  }
  const source = sides[0];
  if (source.length && source.every((t) => [...t].length === 1)) {
    const start = tok(source.find((t) => t !== '␣') ?? source[0]);
    return source.includes('␣')
      ? { tokens: part('overview', 'charsSpace'), start, space: tok('␣') }
      : { tokens: part('overview', 'chars'), start };
  }
  return { tokens: part('overview', 'plain'), start: tok(source[0] ?? sides[1][0] ?? '') };
}

const overview = {
  id: 'overview',
  panel: '#model-view',
  needs: 'journey',
  params: async (ctx) => {
    const { trace, config } = ctx;
    const j0 = await firstLayer(ctx);
    const vocab = j0.stack === 'encoder' ? 'srcVocabSize' : 'tgtVocabSize';
    return {
      srcCount: num(trace.srcTokens.length, 'trace', 'srcTokens.length', 0),
      encLayers: num(config.nEncoderLayers, 'config', 'nEncoderLayers', 0),
      decLayers: num(config.nDecoderLayers, 'config', 'nDecoderLayers', 0),
      token: tok(j0.token),
      tokenId: fromJourney(j0, 'tokenId', 0),
      vocab: num(config[vocab], 'config', vocab, 0),
      dModel: fromJourney(j0, 'dModel', 0),
      embedScale: fromJourney(j0, 'embedScale', 3),
      scale: part('overview', j0.embedScale === 1 ? 'unscaled' : 'scaled'),
      ...tokenNote(ctx),
    };
  },
};

const norm = journeyStep('norm', '.j-block[data-part=selfAttention] .j-summary', (ctx, { j }) => ({
  ...where(ctx),
  variant: ctx.config.layerNorm === false ? 'none' : j.norm,
  dim: idx(0),
  x0: fromJourney(j, 'input.0'),
  p0: signed(fromJourney(j, 'selfAttention.projected.0')),
  r0: fromJourney(j, 'selfAttention.residual.0'),
  dModel: fromJourney(j, 'dModel', 0),
  eps: tiny(j.layerNormEps, journeyRoot(j), 'layerNormEps'),
  mean: fromJourney(j, 'selfAttention.mean'),
  std: fromJourney(j, 'selfAttention.std'),
}));

const ffn = journeyStep('ffn', '.j-block[data-part=feedForward]', (ctx, { j }) => ({
  ...where(ctx),
  dModel: fromJourney(j, 'dModel', 0),
  dFf: fromJourney(j, 'dFf', 0),
  zeros: fromJourney(j, 'feedForward.zeros', 0),
  activation: words(ACTIVATION[j.activation] ?? j.activation),
}));

const positional = {
  id: 'positional',
  panel: '#positional',
  needs: 'journey',
  action: () => ({ key: 'experiment', id: 'A' }),
  params: async (ctx) => {
    const j0 = await firstLayer(ctx);
    return {
      variant: ctx.positional?.kind ?? 'sinusoidal',
      token: tok(j0.token),
      position: fromJourney(j0, 'position', 0),
      dim: idx(0),
      e0: fromJourney(j0, 'embedding.0'),
      pe0: signed(fromJourney(j0, 'positional.0')),
      x0: fromJourney(j0, 'input.0'),
    };
  },
};

/** PE(t)·PE(t+Δ) of the table for Δ = `delta`, from each start t the table has it for. */
function products(p, delta) {
  const at = (k) => [
    num(p.dotProducts[k][delta], 'positional', `dotProducts.${k}.${delta}`, 3),
    words(' (t = '),
    num(p.starts[k], 'positional', `starts.${k}`, 0),
    words(')'),
  ];
  return join(
    [...p.dotProducts.keys()]
      .filter((k) => p.dotProducts[k]?.length > delta)
      .slice(0, 3)
      .map(at),
  );
}

const DELTA = 3;

/** The sinusoids step's numbers: a fast and a slow dimension at the pick's position and the next. */
async function waves(ctx, p) {
  const j0 = await firstLayer(ctx);
  const t = Math.min(j0.position, p.rows - 2);
  // The sine of the last pair: dimension d − 2 in the paper's layout, d/2 − 1 in Marian's.
  const slow = p.layout === 'split' ? p.cols / 2 - 1 : p.cols - 2;
  const cell = (pos, dim, digits) => num(p.table[pos * p.cols + dim], 'positional', `table.${pos * p.cols + dim}`, digits);
  const many = p.dotProducts[0].length - 1;
  return {
    position: idx(t),
    nextPosition: idx(t + 1),
    fastDim: idx(0),
    slowDim: idx(slow),
    fastA: cell(t, 0, 3),
    fastB: cell(t + 1, 0, 3),
    slowA: cell(t, slow, 4),
    slowB: cell(t + 1, slow, 4),
    one: idx(1),
    many: idx(many),
    near: num(p.dotProducts[0][1], 'positional', 'dotProducts.0.1', 2),
    far: num(p.dotProducts[0][many], 'positional', `dotProducts.0.${many}`, 2),
  };
}

const sinusoids = {
  id: 'sinusoids',
  panel: '#positional',
  needs: 'journey',
  params: async (ctx) => {
    const p = ctx.positional;
    const variant = p?.kind ?? 'sinusoidal';
    if (!p || variant === 'none') return { variant: 'none', dModel: num(ctx.config.dModel, 'config', 'dModel', 0) };
    const common = { variant, delta: idx(DELTA), products: products(p, DELTA) };
    if (variant === 'learned') return { ...common, rows: num(p.rows, 'positional', 'rows', 0) };
    return { ...common, ...(await waves(ctx, p)) };
  },
};

const placement = journeyStep(
  'placement',
  '.j-dims',
  (ctx, { j }) => ({
    ...where(ctx),
    model: tok(ctx.model),
    variant: ctx.config.layerNorm === false ? 'none' : j.norm,
    mean: fromJourney(j, 'selfAttention.mean'),
    std: fromJourney(j, 'selfAttention.std'),
  }),
  {
    action: (ctx) => {
      const other = ctx.journey.norm === 'pre' ? 'date-iso' : 'en-zh';
      return ctx.models.includes(other) && other !== ctx.model ? { key: 'switchModel', model: other } : null;
    },
  },
);

export const OVERVIEW_STEPS = [overview];
export const LAYER_STEPS = [norm, ffn, positional, sinusoids, placement];

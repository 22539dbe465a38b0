// The lesson's steps on masks and the decoder: the padding mask, the causal mask, teacher forcing,
// the decoder block's three sub-layers, cross-attention and decoding (as the page decodes now).
import { fromJourney, idx, join, num, setting, tok, total, words, zeros } from '../numbers.js';
import { argmax, journeyPanel, SHOWN, sharpestCrossHead, visibleKeys, weightList, where, wordKeys } from './common.js';

/** 'open' for a model built without the causal mask (a playground switch), else 'masked'. */
const causalVariant = (ctx) => (ctx.config.causalDecoder === false ? 'open' : 'masked');

/** Tokens `from`…`to` (exclusive) of `tokens`, at most `most` of them, then "…". */
function tokenRun(tokens, from, to, most = 5) {
  const end = Math.min(to, from + most);
  return [...join(tokens.slice(from, end).map(tok), ' '), ...(to > end ? [words(' …')] : [])];
}

/** The masks panel's padded batch (ctx.batch: www/shared/wire.js paddedBatch), as the padding step tells it. */
function paddingParams(ctx) {
  const b = ctx.batch;
  if (!b?.paddingMask?.length) return null;
  const pads = b.paddingMask.map((m) => m.hidden.reduce((a, x) => a + x, 0));
  const short = pads.indexOf(Math.max(...pads));
  const long = pads.indexOf(Math.min(...pads));
  const longCount = num(b.tokens[long].length, 'batch', `tokens.${long}.length`, 0);
  if (pads[short] === 0) return { variant: 'even', longCount };
  const hidden = b.paddingMask[short].hidden;
  const padKey = hidden.indexOf(1);
  // The masks panel's heatmap: layer 0, head 0 of the shorter sentence's encoder self-attention.
  const data = b.encoderSelfAttention[short].data;
  const at = (k) => num(data[k], 'batch', `encoderSelfAttention.${short}.data.${k}`, 2);
  return {
    variant: 'padded',
    longCount,
    shortCount: zeros(hidden, 'batch', `paddingMask.${short}.hidden`),
    padCount: total(hidden, 'batch', `paddingMask.${short}.hidden`),
    pads: join(b.tokens[short].map(tok), ' '),
    layer: idx(0),
    head: idx(0),
    first: tok(b.tokens[short][0]),
    pad: tok(b.tokens[short][padKey]),
    realWeight: at(0),
    padWeight: at(padKey),
  };
}

const padding = { id: 'padding', panel: '#masks', focus: '#mask-padding', params: paddingParams };

const causal = {
  id: 'causal',
  panel: '#masks',
  needs: 'decoder',
  action: () => ({ key: 'experiment', id: 'B' }),
  params: (ctx) => {
    const { trace } = ctx;
    const tokens = trace.tgtTokens;
    const rows = trace.decoderSelfAttention.queries;
    const row = Math.min(1, rows - 1);
    const keys = [...Array(Math.min(rows, SHOWN)).keys()];
    const mask = trace.causalMask;
    return {
      variant: causalVariant(ctx),
      layer: idx(ctx.pick.layer),
      head: idx(ctx.pick.head),
      token: tok(tokens[row]),
      next: tok(tokens[row + 1] ?? '…'),
      position: idx(row),
      hidden: total(mask.hidden, 'trace', 'causalMask.hidden', row * mask.cols, (row + 1) * mask.cols),
      row: weightList(ctx, 'decoderSelfAttention', tokens, keys, rows > SHOWN, row),
    };
  },
};

const teacher = {
  id: 'teacher',
  panel: '#stepper',
  needs: 'decoder',
  params: (ctx) => {
    const { trace } = ctx;
    const rows = trace.decoderSelfAttention.queries;
    return {
      variant: causalVariant(ctx),
      inputs: tokenRun(trace.tgtTokens, 0, rows),
      targets: tokenRun(trace.tgtTokens, 1, rows + 1),
      rows: num(rows, 'trace', 'decoderSelfAttention.queries', 0),
      steps: num(trace.steps.length, 'trace', 'steps.length', 0),
    };
  },
};

const decoderBlock = {
  id: 'decoderBlock',
  panel: journeyPanel,
  needs: 'decoderJourney',
  params: (ctx) => {
    const j = ctx.journey;
    // A sub-layer's result: its LayerNorm of the sum in post-norm, the sum itself in pre-norm.
    const after = (sub) => fromJourney(j, `${sub}.${j[sub].normed ? 'normed' : 'residual'}.0`);
    return {
      variant: causalVariant(ctx),
      decLayers: num(ctx.config.nDecoderLayers, 'config', 'nDecoderLayers', 0),
      token: tok(j.token),
      position: idx(j.position),
      layer: idx(j.layer),
      srcKeys: fromJourney(j, 'crossAttention.kLen', 0),
      dModel: fromJourney(j, 'dModel', 0),
      dFf: fromJourney(j, 'dFf', 0),
      dim: idx(0),
      x0: fromJourney(j, 'input.0'),
      afterSelf: after('selfAttention'),
      afterCross: after('crossAttention'),
      afterFfn: after('feedForward'),
    };
  },
};

const cross = {
  id: 'cross',
  panel: journeyPanel,
  focus: '.j-block[data-part=crossAttention]',
  needs: 'decoderJourney',
  pick: sharpestCrossHead,
  params: (ctx) => {
    const j = ctx.journey;
    const { keys, more } = visibleKeys(ctx, 'crossAttention');
    const weights = j.crossAttention.heads[ctx.pick.head].weights;
    const named = wordKeys(ctx, keys);
    return {
      ...where(ctx),
      next: tok(ctx.trace.tgtTokens[j.position + 1] ?? '…'),
      row: weightList(ctx, 'crossAttention', j.crossAttention.keyTokens, keys, more),
      best: tok(j.crossAttention.keyTokens[argmax(weights, named.length ? named : keys)]),
    };
  },
};

/** A decoding setting as the text shows it, or "…" where the page did not say. */
const chosen = (value, name) => (value == null ? words('…') : setting(value, name));

/**
 * Which decoding the text tells (ctx.decoding.mode: the page's menu): beam search, sampling, a
 * greedy decoding with tokens the learner forced (a prefix, a clicked candidate), or greedy.
 */
function decodingVariant(ctx) {
  const mode = ctx.decoding?.mode;
  if (mode === 'beam' || mode === 'sample') return mode;
  return ctx.trace.steps.some((step) => step.forced) ? 'forced' : 'greedy';
}

const decoding = {
  id: 'decoding',
  panel: '#stepper',
  needs: 'decoder',
  params: (ctx) => {
    const { trace, config } = ctx;
    const d = ctx.decoding ?? {};
    const steps = trace.steps.map((step, i) => {
      const k = step.candidates.findIndex((c) => c.id === step.id);
      const p =
        k >= 0 ? [words(' ('), num(step.candidates[k].probability, 'trace', `steps.${i}.candidates.${k}.probability`, 2), words(')')] : [];
      return [tok(step.token), ...p];
    });
    return {
      variant: decodingVariant(ctx),
      vocab: num(config.tgtVocabSize, 'config', 'tgtVocabSize', 0),
      steps: join(steps, ' → '),
      output: tok(trace.output),
      forced: join(trace.steps.filter((step) => step.forced).map((step) => tok(step.token))),
      topK: chosen(d.topK, 'topK'),
      temperature: chosen(d.temperature, 'temperature'),
      width: chosen(d.width, 'width'),
      alpha: chosen(d.alpha, 'alpha'),
    };
  },
};

export const MASK_STEPS = [padding, causal, teacher];
export const DECODER_STEPS = [decoderBlock, cross, decoding];

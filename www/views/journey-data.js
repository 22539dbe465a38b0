// One token's journey through one layer (Session.inspect, `attnscope inspect --json`), turned into
// the shapes the journey view and the lesson read: every vector a Float32Array (www/wire.js
// `floats`: bytes from the worker, plain arrays from a saved JSON file), the rest as it came.
//
// Shape (src/trace/journey.rs; README, "Trace JSON"): metadata (stack, layer, layers, position,
// token, dModel, heads, dK, dFf, norm 'pre' | 'post', activation, embedScale), `input`,
// `embedding` and `positional` (layer 0), `output`, `finalNorm`; `selfAttention`, `crossAttention`
// (decoder) and `feedForward`, each with `normedInput`, `residual`, `normed`, `mean`, `std`;
// attention sub-layers with `kLen`, `keyTokens`, `masked`, `heads[h]` = { q, keys, values, scores,
// scaled, weights, output }, `concat`, `projected`; the feed-forward with `hidden`, `zeros`,
// `projected`; `logits` and `top` after the last decoder layer.
import { flags, floats } from '../shared/wire.js';

const VECTORS = ['input', 'embedding', 'positional', 'output', 'logits', 'finalNorm'];
const SUBLAYER_VECTORS = ['normedInput', 'residual', 'normed', 'concat', 'projected', 'hidden', 'output'];
const HEAD_VECTORS = ['q', 'keys', 'values', 'scores', 'scaled', 'weights', 'output'];

/** `value` as a Float32Array, or null where there is none. */
const vector = (value) => (value == null ? null : floats(value));

function sublayer(raw) {
  if (!raw) return null;
  const out = { ...raw };
  for (const name of SUBLAYER_VECTORS) if (name in raw) out[name] = vector(raw[name]);
  if (raw.heads) {
    out.heads = raw.heads.map((head) => {
      const h = { ...head };
      for (const name of HEAD_VECTORS) if (name in head) h[name] = vector(head[name]);
      return h;
    });
  }
  if (raw.masked != null) out.masked = flags(raw.masked);
  return out;
}

/** A journey as the worker (or a JSON file) gives it → every vector a Float32Array. */
export function journey(raw) {
  const out = { ...raw };
  for (const name of VECTORS) if (name in raw) out[name] = vector(raw[name]);
  for (const name of ['selfAttention', 'crossAttention', 'feedForward']) out[name] = sublayer(raw[name]);
  return out;
}

/** The attention sub-layers a journey has, in the order the layer runs them. */
export function attentionParts(j) {
  return ['selfAttention', 'crossAttention'].filter((name) => j?.[name]);
}

/** Which keys of attention sub-layer `part` its mask hides (1 = hidden), or null when none is. */
export function keyMaskOf(j, part) {
  const mask = j[part]?.masked;
  return mask?.some((m) => m) ? mask : null;
}

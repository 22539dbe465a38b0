// Reading one token's journey through one layer (Session.inspect, `attnscope inspect --json`),
// as the worker hands it over: every vector a Float32Array (www/shared/wire.js `journey`).
//
// Shape (src/trace/journey.rs; docs/json.md, "Journey JSON"): metadata (stack, layer, layers, position,
// token, dModel, heads, dK, dFf, norm 'pre' | 'post', activation, embedScale), `input`,
// `embedding` and `positional` (layer 0), `output`, `finalNorm`; `selfAttention`, `crossAttention`
// (decoder) and `feedForward`, each with `normedInput`, `residual`, `normed`, `mean`, `std`;
// attention sub-layers with `kLen`, `keyTokens`, `masked`, `heads[h]` = { q, keys, values, scores,
// scaled, weights, output }, `concat`, `projected`; the feed-forward with `hidden`, `zeros`,
// `projected`; `logits` and `top` after the last decoder layer.

/** Which keys of attention sub-layer `part` its mask hides (1 = hidden), or null when none is. */
export function keyMaskOf(j, part) {
  const mask = j[part]?.masked;
  return mask?.some((m) => m) ? mask : null;
}

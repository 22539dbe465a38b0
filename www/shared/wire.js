// The wasm module's answers, turned into the shapes the views read. Every float vector crosses the
// boundary as a Uint8Array of little-endian f32 bytes (one fresh buffer each) and every mask as a
// Uint8Array of 0/1; here they become a Float32Array view over the same bytes (no copy) and a
// Uint8Array. `attnscope trace --json` writes the same field names with plain arrays, which are
// accepted too, so a saved trace reads exactly like a live one.

/** Little-endian f32 bytes (or a plain array of numbers) → Float32Array. */
export function floats(value) {
  if (value instanceof Float32Array) return value;
  if (value instanceof Uint8Array) {
    // A typed-array view must start on a multiple of its element size; copy in the rare case it
    // does not.
    const bytes = value.byteOffset % 4 === 0 ? value : value.slice();
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  }
  return Float32Array.from(value);
}

/** 0/1 bytes (or an array of booleans) → Uint8Array. */
export function flags(value) {
  return value instanceof Uint8Array ? value : Uint8Array.from(value, Number);
}

/** Stack = { layers, heads, queries, keys, data }: data row-major [layers, heads, queries, keys]. */
export function stack(s) {
  return { layers: s.layers, heads: s.heads, queries: s.queries, keys: s.keys, data: floats(s.data) };
}

/** Mask = { rows, cols, hidden }: hidden row-major, 1 = hidden by the mask. */
export function mask(m) {
  return { rows: m.rows, cols: m.cols, hidden: flags(m.hidden) };
}

export function trace(t) {
  return {
    ...t,
    encoderSelfAttention: stack(t.encoderSelfAttention),
    decoderSelfAttention: stack(t.decoderSelfAttention),
    crossAttention: stack(t.crossAttention),
    causalMask: mask(t.causalMask),
    paddingMask: mask(t.paddingMask),
  };
}

/** One head's attention stages; raw, scaled, softmax, unscaledSoftmax are [queries, keys]. */
export function stages(s) {
  return {
    ...s,
    raw: floats(s.raw),
    scaled: floats(s.scaled),
    softmax: floats(s.softmax),
    unscaledSoftmax: floats(s.unscaledSoftmax),
    mask: mask(s.mask),
  };
}

/** Answer = { trace, stages, analysis }; stages is null while the focused kind has no rows. */
export function answer(a) {
  return { trace: trace(a.trace), stages: a.stages ? stages(a.stages) : null, analysis: a.analysis ? analysis(a.analysis) : null };
}

/** The sinusoidal table [rows = maxLen, cols = dModel] and PE(t)·PE(t+Δ) curves. */
export function positional(p) {
  return { ...p, table: floats(p.table) };
}

/** Sentences encoded as one padded batch: per sentence its tokens, padding mask and attention. */
export function paddedBatch(b) {
  return { tokens: b.tokens, paddingMask: b.paddingMask.map(mask), encoderSelfAttention: b.encoderSelfAttention.map(stack) };
}

/** The head summaries and rollouts of one trace (Session.analysis()): every part a Stack. */
export function analysis(a) {
  const perKind = (kinds) => ({ encoderSelf: stack(kinds.encoderSelf), decoderSelf: stack(kinds.decoderSelf), cross: stack(kinds.cross) });
  return {
    headMean: perKind(a.headMean),
    headMax: perKind(a.headMax),
    encoderRollout: stack(a.encoderRollout),
    sourceAttribution: stack(a.sourceAttribution),
  };
}

/** A beam search's tree (nodes, each naming its parent) and its final hypotheses, best first. */
export function beam(b) {
  return { ...b, finals: b.finals.map((f) => ({ ...f, ids: Array.from(f.ids), tokens: Array.from(f.tokens) })) };
}

const JOURNEY_VECTORS = ['input', 'embedding', 'positional', 'output', 'logits', 'finalNorm'];
const SUBLAYER_VECTORS = ['normedInput', 'residual', 'normed', 'concat', 'projected', 'hidden', 'output'];
const HEAD_VECTORS = ['q', 'keys', 'values', 'scores', 'scaled', 'weights', 'output'];

/** `value` as a Float32Array, or null where there is none. */
const vector = (value) => (value == null ? null : floats(value));

function journeySublayer(raw) {
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

/**
 * One token's journey through one layer (Session.inspect; docs/json.md, "Journey JSON") → every
 * vector a Float32Array, every mask a Uint8Array, the rest as it came.
 */
export function journey(raw) {
  const out = { ...raw };
  for (const name of JOURNEY_VECTORS) if (name in raw) out[name] = vector(raw[name]);
  for (const name of ['selfAttention', 'crossAttention', 'feedForward']) out[name] = journeySublayer(raw[name]);
  return out;
}

/** One output token's attribution over the source: occlusion, attention and rollout, per token. */
export function attribution(a) {
  return { ...a, occlusion: floats(a.occlusion), attention: floats(a.attention), rollout: floats(a.rollout) };
}

/**
 * Heads switched off (Session.ablate): the intact output and the one with the heads off (ids and
 * texts), the positions of the second whose token differs, and per original token its log p
 * intact, with the heads off (teacher-forced on the original output) and their difference `drop`.
 */
export function ablation(r) {
  return {
    ...r,
    original: Array.from(r.original),
    ablated: Array.from(r.ablated),
    changed: Array.from(r.changed),
    logP: floats(r.logP),
    logPAblated: floats(r.logPAblated),
    drop: floats(r.drop),
  };
}

/** Each head's importance for one output (Session.importance): { totalLogP, tokens, heads: [{ kind, layer, head, drop }] }. */
export function importance(i) {
  return { totalLogP: i.totalLogP, tokens: i.tokens, heads: i.heads.map(({ kind, layer, head, drop }) => ({ kind, layer, head, drop })) };
}

/**
 * The buffers of `value` that can be handed to another thread instead of copied: those that hold
 * nothing but one typed array. (A view into a larger buffer, such as wasm memory, is copied.)
 */
export function transferables(value, found = new Set()) {
  if (ArrayBuffer.isView(value)) {
    if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer) {
      found.add(value.buffer);
    }
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) transferables(item, found);
  }
  return found;
}

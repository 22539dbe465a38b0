// Everything that leaves the page as a file: a view as SVG (vector shapes and text) or PNG (that
// SVG rasterised at 2×), and the whole trace as JSON in the schema of `attnscope trace --json`.
// A saved trace can be read back (`readTrace`) and shown without a model.
import { serialize } from '../draw/svg.js';
import * as wire from '../shared/wire.js';

/** How much larger than its CSS size a PNG is drawn. */
export const PNG_SCALE = 2;

/** The sentence cut to a few words, safe in a file name: letters and digits, '-' between. */
export function shortSentence(text, max = 32) {
  const words = (text || '').normalize('NFC').match(/[\p{L}\p{N}]+/gu) ?? [];
  let out = '';
  for (const word of words) {
    const next = out ? `${out}-${word}` : word;
    if ([...next].length > max) {
      if (!out) out = [...word].slice(0, max).join('');
      break;
    }
    out = next;
  }
  return out || 'empty';
}

/** `model_sentence_view.ext`: what a file holds, readable in a folder of exports. */
export function fileName({ model, text, view }, ext) {
  const safe = (part) => String(part || '').replace(/[^\p{L}\p{N}._-]+/gu, '-');
  return `${safe(model || 'model')}_${shortSentence(text)}_${safe(view)}.${ext}`;
}

/** Save `blob` as a file called `name` (the browser's download). */
export function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function saveSvg(f, name) {
  save(new Blob([serialize(f)], { type: 'image/svg+xml' }), name);
}

/** The figure drawn at PNG_SCALE × its size, as PNG bytes. */
export async function pngBlob(f, scale = PNG_SCALE) {
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(serialize(f))}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = f.width * scale;
  canvas.height = f.height * scale;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the PNG could not be made'))), 'image/png');
  });
}

export async function savePng(f, name) {
  save(await pngBlob(f), name);
}

// -----------------------------------------------------------------------------------------------
// JSON: the answer as `attnscope trace --json` writes it: typed arrays become plain arrays, a mask
// is booleans (true = hidden).

const MASK_KEYS = new Set(['hidden', 'srcUnknown']);

/** `value` with every typed array made a plain array (0/1 flags booleans), ready for JSON. */
export function plain(value, key = '') {
  if (ArrayBuffer.isView(value)) return MASK_KEYS.has(key) ? Array.from(value, Boolean) : Array.from(value);
  if (Array.isArray(value)) return value.map((item) => plain(item, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v, k)]));
  }
  return value;
}

/** The answer { trace, stages, analysis } as JSON text. */
export function answerJson({ trace, stages, analysis }) {
  const out = { trace: plain(trace), stages: stages ? plain(stages) : null };
  if (analysis) out.analysis = plain(analysis);
  return JSON.stringify(out);
}

export function saveJson(answer, name) {
  save(new Blob([answerJson(answer)], { type: 'application/json' }), name);
}

const STACK_FIELDS = ['encoderSelfAttention', 'decoderSelfAttention', 'crossAttention'];

/** Why `json` is not a saved answer, or '' when it is one (checks the shapes the views rely on). */
function problem(json) {
  const t = json?.trace;
  if (!t || typeof t !== 'object') return 'no "trace" field';
  for (const key of ['srcTokens', 'srcIds', 'tgtTokens', 'tgtIds', 'steps']) if (!Array.isArray(t[key])) return `trace.${key} is missing`;
  for (const key of STACK_FIELDS) {
    const s = t[key];
    if (!s || !Array.isArray(s.data)) return `trace.${key} is missing`;
    if (s.data.length !== s.layers * s.heads * s.queries * s.keys) return `trace.${key}: data does not fit its shape`;
  }
  for (const key of ['causalMask', 'paddingMask']) if (!Array.isArray(t[key]?.hidden)) return `trace.${key} is missing`;
  return '';
}

/** A saved answer file → { answer (as wire.answer makes it), config (what the views need) }. */
export async function readTrace(file) {
  let json;
  try {
    json = JSON.parse(await file.text());
  } catch (error) {
    throw new Error(`not JSON (${error.message})`);
  }
  const why = problem(json);
  if (why) throw new Error(why);
  const answer = wire.answer(json);
  const t = answer.trace;
  const config = {
    nEncoderLayers: t.encoderSelfAttention.layers,
    nDecoderLayers: t.decoderSelfAttention.layers,
    nHeads: t.encoderSelfAttention.heads,
    bosId: t.tgtIds[0],
    eosId: t.srcIds[t.srcIds.length - 1],
  };
  return { answer, config };
}

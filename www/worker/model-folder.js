// A model folder opened from the person's computer, as the worker reads it: its four files picked
// by name from whatever was opened (other files, such as a timeline or checkpoints, are ignored)
// and read through their streams, each into one buffer of its final size, with progress. Nothing
// leaves the machine.
//
// A problem with the files themselves is a FolderProblem: an i18n key and its parameters (a list
// as an array), for the page to say in its language. What the model's loader finds wrong with their
// bytes is its own (English) message.

/** Progress is reported about this often: every 1/PROGRESS_STEPS of the bytes, and at each file's end. */
const PROGRESS_STEPS = 100;

export class FolderProblem extends Error {
  /** `key`: the message in www/ui/i18n/*.json; `params`: its {placeholders}, a list as an array. */
  constructor(key, params) {
    super(`${key} ${JSON.stringify(params)}`);
    this.problem = { key, params };
  }
}

/**
 * The files of `names` ({ key: file name }, as modelFileNames() gives them) among `entries`
 * ([{ file, path }], path as the page shows it): { key: File }. Picked by base name; a name found
 * twice or not at all is a FolderProblem.
 */
export function pickModelFiles(entries, names) {
  const picked = {};
  const missing = [];
  for (const [key, name] of Object.entries(names)) {
    const file = findFile(entries, name);
    if (file) picked[key] = file;
    else missing.push(name);
  }
  if (missing.length) throw new FolderProblem('openModel.missing', { files: missing, all: Object.values(names) });
  return picked;
}

/** The File named `name` among `entries`, or null; a name found twice is a FolderProblem. */
export function findFile(entries, name) {
  const found = entries.filter((entry) => entry.file.name === name);
  if (found.length > 1) throw new FolderProblem('openModel.twice', { file: name, paths: found.map((entry) => entry.path) });
  return found[0]?.file ?? null;
}

/**
 * The bytes of each picked file ({ key: File } → { key: Uint8Array }), read one after another.
 * `onProgress({ label, loaded, total })`: the bytes read of all of them so far; `label` names the
 * file being read, under `folder` when there is one. A key of `sinks` ({ key: (size) => sink }) is
 * streamed into the sink its function makes instead (`sink.push(chunk)`: the wasm module's
 * WeightsFile), which is what the result then holds: its bytes are never whole in JS.
 */
export async function readModelFiles(picked, folder, onProgress, sinks = {}) {
  const total = Object.values(picked).reduce((sum, file) => sum + file.size, 0);
  const every = Math.max(1, Math.floor(total / PROGRESS_STEPS));
  let before = 0; // bytes of the files already read
  let reported = -every;
  const out = {};
  for (const [key, file] of Object.entries(picked)) {
    const label = folder ? `${folder}/${file.name}` : file.name;
    out[key] = await readFile(
      file,
      (loaded) => {
        const done = before + loaded;
        if (done - reported < every && loaded < file.size) return;
        reported = done;
        onProgress({ label, loaded: done, total });
      },
      sinks[key],
    );
    before += file.size;
  }
  return out;
}

/**
 * `file`'s bytes, streamed into one buffer of its size, or into the sink `makeSink(size)` makes;
 * `onRead(bytesSoFar)` after each chunk.
 */
async function readFile(file, onRead, makeSink) {
  const sink = makeSink?.(file.size);
  const bytes = sink ? null : new Uint8Array(file.size);
  let offset = 0;
  let reader;
  let pushing = false; // the sink refused a chunk (a weights file's header is checked as it streams in)
  try {
    reader = file.stream().getReader();
    onRead(0);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (offset + value.length > file.size) throw new FolderProblem('openModel.changed', { file: file.name });
      pushing = true;
      if (sink) sink.push(value);
      else bytes.set(value, offset);
      pushing = false;
      offset += value.length;
      onRead(offset);
    }
  } catch (error) {
    if (error instanceof FolderProblem || pushing) throw error;
    // The browser refuses a file that was moved or changed after it was picked.
    throw new FolderProblem('openModel.unreadable', { file: file.name, error: error?.message || String(error) });
  }
  if (offset !== file.size) throw new FolderProblem('openModel.changed', { file: file.name });
  return sink ?? bytes;
}

/** A weights file up to this size is hashed whole (`fileHash`). */
const HASH_WHOLE = 8 * 1024 * 1024;
/** A bigger one is hashed by its length and this many bytes at each end. */
const HASH_PART = 4 * 1024 * 1024;

/**
 * A 64-bit FNV-1a hash, fed in parts (`update(bytes)`), as 16 hex digits (`hex()`). The state is
 * four 16-bit limbs, lowest first, so that each multiplication by the prime (2^40 + 0x1b3) stays
 * within a double's exact integers.
 */
export class Fnv1a64 {
  constructor() {
    this.h = [0x2325, 0x8422, 0x9ce4, 0xcbf2]; // the offset basis, 0xcbf29ce484222325
  }

  update(bytes) {
    let [h0, h1, h2, h3] = this.h;
    for (let i = 0; i < bytes.length; i++) {
      h0 ^= bytes[i];
      // × 0x1b3 on every limb, × 2^40 (limb 2's 0x100) on the two lowest, carried upwards.
      const t0 = h0 * 0x1b3;
      const t1 = h1 * 0x1b3 + (t0 >>> 16);
      const t2 = h2 * 0x1b3 + h0 * 0x100 + (t1 >>> 16);
      h3 = (h3 * 0x1b3 + h1 * 0x100 + (t2 >>> 16)) & 0xffff;
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
    }
    this.h = [h0, h1, h2, h3];
    return this;
  }

  hex() {
    return this.h
      .toReversed()
      .map((limb) => limb.toString(16).padStart(4, '0'))
      .join('');
  }
}

/**
 * A weights file's hash, 16 hex digits: FNV-1a (64 bits) of its bytes when it is at most 8 MiB;
 * of its length (8 bytes, little-endian), its first 4 MiB and its last 4 MiB when it is bigger, so
 * that a big model is not read twice. It names the weights (the lesson keeps its progress under
 * it), it does not guard them. A file that cannot be read again is a FolderProblem.
 */
export async function fileHash(file) {
  const hash = new Fnv1a64();
  const read = async (blob) => new Uint8Array(await blob.arrayBuffer());
  try {
    if (file.size <= HASH_WHOLE) return hash.update(await read(file)).hex();
    const length = new Uint8Array(8);
    new DataView(length.buffer).setBigUint64(0, BigInt(file.size), true);
    hash.update(length);
    hash.update(await read(file.slice(0, HASH_PART)));
    return hash.update(await read(file.slice(file.size - HASH_PART))).hex();
  } catch (error) {
    throw new FolderProblem('openModel.unreadable', { file: file.name, error: error?.message || String(error) });
  }
}

/** The optional file beside a model that describes it and credits its data (as each shipped model folder has one). */
export const ABOUT_FILE = 'about.json';

/**
 * A folder's about.json among `entries`, parsed and kept to its known shape: { description:
 * { language: text }, credits: [{ language: text, url? }] }, texts only, a url only when it is
 * http(s). Null when there is none, or when it is not such a JSON file: the model loads all the
 * same, shown with its config's description.
 */
export async function readAbout(entries) {
  const entry = entries.find((e) => e.file.name === ABOUT_FILE);
  if (!entry || entry.file.size > 64 * 1024) return null;
  try {
    const about = JSON.parse(await entry.file.text());
    const texts = (value) =>
      Object.fromEntries(Object.entries(value ?? {}).filter(([key, text]) => key !== 'url' && typeof text === 'string'));
    const credits = (Array.isArray(about?.credits) ? about.credits : []).map((credit) => ({
      ...texts(credit),
      ...(typeof credit?.url === 'string' && /^https?:\/\//.test(credit.url) ? { url: credit.url } : {}),
    }));
    return { description: texts(about?.description), credits };
  } catch {
    return null;
  }
}

/** The optional file beside a model that says what each head does (`attnscope heads --json`). */
export const HEADS_FILE = 'heads.json';

/** The roles a head can play (src/study/roles.rs), the only ones kept: the page has words for these. */
export const ROLES = ['previous', 'same', 'next', 'sink', 'broad', 'alignment'];

const finite = (value) => typeof value === 'number' && Number.isFinite(value);
const natural = (value) => Number.isInteger(value) && value >= 0;

/**
 * heads.json's text, kept to its known shape: { sentences, heads: [{ kind, layer, head,
 * importance, hurtShare, roles, scores: [{ role, score, threshold, rows }] }] }, a head without its
 * kind (one of `kinds`, the module's attentionKinds()), layer and head left out, roles and scores
 * only of ROLES. Null when it is not such a file: the model works without it, showing no roles.
 */
export function parseHeads(text, kinds) {
  try {
    const raw = JSON.parse(text);
    if (!Array.isArray(raw?.heads)) return null;
    const heads = raw.heads
      .filter((h) => kinds.includes(h?.kind) && natural(h.layer) && natural(h.head))
      .map((h) => ({
        kind: h.kind,
        layer: h.layer,
        head: h.head,
        importance: finite(h.importance) ? h.importance : null,
        hurtShare: finite(h.hurtShare) ? h.hurtShare : null,
        roles: (Array.isArray(h.roles) ? h.roles : []).filter((role) => ROLES.includes(role)),
        scores: (Array.isArray(h.scores) ? h.scores : [])
          .filter((s) => ROLES.includes(s?.role) && finite(s.score) && finite(s.threshold))
          .map(({ role, score, threshold, rows }) => ({ role, score, threshold, rows: natural(rows) ? rows : 0 })),
      }));
    return { sentences: natural(raw.sentences) ? raw.sentences : 0, heads };
  } catch {
    return null;
  }
}

/** A folder's heads.json among `entries` (parseHeads of `kinds`), or null when it has none. */
export async function readHeads(entries, kinds) {
  const entry = entries.find((e) => e.file.name === HEADS_FILE);
  if (!entry || entry.file.size > 4 * 1024 * 1024) return null;
  try {
    return parseHeads(await entry.file.text(), kinds);
  } catch {
    return null;
  }
}

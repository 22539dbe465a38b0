// The model the worker runs: its entry (models/index.json's, or a local one: { local: true,
// folder, sources }), its files' bytes by modelFileNames() key, its training timeline, and new
// sessions over them. A model opened from the person's computer comes as File objects
// (www/worker/model-folder.js reads them here); it has no index entry, no content hashes and no
// timeline: its weights are hashed here (model-folder.js fileHash) once read.
import { cachedFile } from './cache.js';
import { importHuggingFace, isHuggingFaceFolder } from './hugging-face.js';
import { progress } from './messages.js';
import { fileHash, HEADS_FILE, parseHeads, pickModelFiles, readAbout, readHeads, readModelFiles } from './model-folder.js';
import { attentionKinds, checkModelSize, modelFileNames, sessionClass, WeightsFile } from './modules.js';
import { configure } from './sentence.js';
import { loadTimeline } from './training.js';

export const model = {
  entry: null, // the current model's entry
  // Its bytes, by modelFileNames() key; the weights in the CPU module (a WeightsFile, split into its
  // tensors) until the CPU session is made from them, then null: the module keeps no copy of the file.
  files: null,
  // () => Promise<Uint8Array>: the weights file read again, for a snapshot replay or a WebGPU
  // session (through the cache, from the File picked, or from JS for an imported folder).
  weights: null,
  timeline: null, // its training timeline (www/worker/training.js loadTimeline), or null
  about: null, // a local folder's about.json (readAbout), or null; a shipped model's is in its entry
  heads: null, // its heads.json (parseHeads): each head's roles and held-out importance, or null
  notes: [], // what importing a Hugging Face folder did not apply (English), or none
  // What names its weights (the lesson keeps its progress under it): a shipped model's content hash
  // of its weights file in models/index.json; a local one's fileHash of the weights file it was
  // read from (a Hugging Face folder's too, before its conversion).
  weightsHash: null,
};

/** Read `entry`'s files: a local model's from its File objects, another's through the cache. */
export async function loadModel(entry) {
  // What was read for another model (the page's guess, before a link named this one) is dropped.
  if (entry.local || entry.name !== prefetched.model) prefetched.reads.clear();
  model.entry = entry;
  model.notes = [];
  if (entry.local) {
    [model.files, model.weightsHash, model.weights] = await readLocalModel();
    model.about = await readAbout(entry.sources);
    model.heads = await readHeads(entry.sources, attentionKinds());
  } else {
    [model.files, model.heads] = await Promise.all([downloadModel(), downloadHeads()]);
    model.about = null;
    const name = modelFileNames().weights;
    model.weightsHash = entry.files[name];
    // Silent: the bar is for loading a model.
    model.weights = () => modelFile(name, () => {}, entry);
  }
}

/** A shipped model's heads.json, when its index entry lists one; null without it or when it cannot be read. */
async function downloadHeads() {
  if (!model.entry.files?.[HEADS_FILE]) return null;
  try {
    // Silent: a small file, read beside the weights.
    return parseHeads(new TextDecoder().decode(await modelFile(HEADS_FILE, () => {})), attentionKinds());
  } catch {
    return null;
  }
}

/**
 * The model's timeline (null for a local model or one without); throws when it cannot be read. A
 * model in training in the playground brings its own, each snapshot's weights with it (`bytes`),
 * and grows it (handlers.js addSnapshot).
 */
export async function loadModelTimeline() {
  model.timeline = null;
  const { entry } = model;
  if (entry.playground) model.timeline = entry.timeline;
  else model.timeline = entry.local ? null : await loadTimeline(entry.files, (name) => modelFile(name));
  return model.timeline && { ...model.timeline, snapshots: snapshotsShown(model.timeline) };
}

/**
 * A timeline's snapshots as the page is told them: without a playground snapshot's weights and
 * heads.json (a reply hands its buffers over: the worker's own would be gone).
 */
export const snapshotsShown = (timeline) => timeline.snapshots.map(({ bytes, heads, ...snapshot }) => snapshot);

// Files read before the model was asked for (prefetchModel): the model's name, and its reads by
// `${name}@${hash}`, each a Promise<Uint8Array> taken by the first modelFile(name).
const prefetched = { model: null, reads: new Map() };

/**
 * Start reading shipped model `entry`'s files, those at the top of its folder (init reads them
 * all; the timeline's snapshots, below it, are read when one is picked). The page sends it while
 * this worker's module still loads, which init waits for before it reads any.
 */
export function prefetchModel(entry) {
  prefetched.reads.clear();
  prefetched.model = entry?.name ?? null;
  if (!entry?.files || entry.local || entry.playground) return;
  for (const name of Object.keys(entry.files)) {
    if (name.includes('/')) continue;
    const read = readModelFile(entry, name, progress);
    read.catch(() => {}); // said by the read that takes it
    prefetched.reads.set(`${name}@${entry.files[name]}`, read);
  }
}

/** A file of `entry`'s folder (the current model's), cached under its hash in models/index.json. */
function modelFile(name, onProgress = progress, entry = model.entry) {
  const key = `${name}@${entry.files[name] || 'none'}`;
  const early = entry.name === prefetched.model && prefetched.reads.get(key);
  if (early) {
    prefetched.reads.delete(key);
    return early;
  }
  return readModelFile(entry, name, onProgress);
}

/** File `name` of `entry`'s folder, read through the cache. */
function readModelFile(entry, name, onProgress) {
  return cachedFile(`models/${entry.name}/${name}`, entry.files[name] || 'none', `${entry.name}/${name}`, onProgress);
}

/** The model's files, named by the wasm module, read side by side. */
async function downloadModel() {
  const names = Object.entries(modelFileNames());
  const bytes = await Promise.all(names.map(([, name]) => modelFile(name)));
  const out = Object.fromEntries(names.map(([key], i) => [key, bytes[i]]));
  out.weights = streamedFile(out.weights);
  return out;
}

/** Bytes that are whole in JS, streamed into a WeightsFile in 16 MB chunks (the module never copies them whole). */
function streamedFile(bytes) {
  const file = new WeightsFile(bytes.length);
  for (let at = 0; at < bytes.length; at += 16 << 20) file.push(bytes.subarray(at, at + (16 << 20)));
  return file;
}

/**
 * A local model's files, picked by name from the File objects the page sent and read here, the
 * hash of its weights file, and how to read that file again: [files, weightsHash, weights] (model's
 * `weights`). A Hugging Face folder is converted on the way (its notes kept in model.notes); its
 * converted file is kept in JS, where it is read again from.
 */
async function readLocalModel() {
  const { entry } = model;
  if (isHuggingFaceFolder(entry.sources)) {
    const { files, notes, weightsFile } = await importHuggingFace(entry.sources, entry.folder, progress);
    model.notes = notes;
    const converted = files.weights;
    files.weights = streamedFile(converted);
    return [files, await fileHash(weightsFile), keptInJs(converted)];
  }
  const picked = pickModelFiles(entry.sources, modelFileNames());
  // A model too big for the module is refused from its config and its file's size, before
  // anything big is read.
  const { config } = await readModelFiles({ config: picked.config }, entry.folder, () => {});
  checkModelSize(config, picked.weights.size, 0);
  const files = await readModelFiles(picked, entry.folder, progress, { weights: (size) => new WeightsFile(size) });
  const again = async () => (await readModelFiles({ weights: picked.weights }, entry.folder, () => {})).weights;
  return [files, await fileHash(picked.weights), again];
}

/** The weights of a timeline snapshot; the last one is the model's own weights file. */
export function snapshotWeights(snapshot) {
  if (snapshot.bytes) return snapshot.bytes; // a playground snapshot
  if (snapshot.file === modelFileNames().weights) return model.weights();
  // Silent: a snapshot is small, and the page's loading bar is for loading a model.
  return modelFile(snapshot.file, () => {});
}

/**
 * A new session of the model on `backend`, with the page's focus and sampling. The CPU module
 * loads from the weights streamed into it, and then lets them go (a big model's file is hundreds
 * of MB that nothing on the CPU reads again); the WebGPU module, another instance, reads them again.
 */
export async function createSession(backend) {
  const Session = await sessionClass(backend);
  const { files } = model;
  if (backend !== 'cpu') {
    const weights = await model.weights();
    return configure(await Session.create(files.config, weights, files.srcTokenizer, files.tgtTokenizer, backend));
  }
  const session = Session.createCpu(files.config, files.weights, files.srcTokenizer, files.tgtTokenizer);
  files.weights.free();
  files.weights = null;
  return configure(session);
}

/** Bytes that cannot be read again from their source, kept in JS (a Blob) to be read from there. */
function keptInJs(bytes) {
  const blob = new Blob([bytes]);
  return async () => new Uint8Array(await blob.arrayBuffer());
}

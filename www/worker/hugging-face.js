// A Hugging Face MarianMT folder as the hub gives it (config.json, source.spm, target.spm,
// vocab.json, the weights as model.safetensors or pytorch_model.bin, and optionally
// generation_config.json and tokenizer_config.json), made into attnscope's four model files here
// in the worker by the wasm module's importer (the same code as `attnscope import marian`). The
// files are read, converted and dropped; nothing is written anywhere.
import { FolderProblem, findFile, readModelFiles } from './model-folder.js';
import { checkMarianSize, importMarian, marianFileNames } from './modules.js';

/** The files that say the model's size, read first: a model too big for the module is refused before its weights are read. */
const SMALL_FILES = ['config.json', 'vocab.json', 'generation_config.json'];

/** Whether `entries` ([{ file, path }]) look like a Hugging Face Marian folder rather than attnscope's. */
export function isHuggingFaceFolder(entries) {
  const names = new Set(entries.map((entry) => entry.file.name));
  return names.has('source.spm') || (names.has('vocab.json') && !names.has('src_tokenizer.json'));
}

/** The files of `entries` the importer reads, by name: the required ones, the first weights file found, the optional ones. */
function pickHuggingFaceFiles(entries) {
  const { required, optional, weights } = marianFileNames();
  const picked = {};
  const missing = [];
  const take = (name) => {
    const file = findFile(entries, name);
    if (file) picked[name] = file;
    return file != null;
  };
  for (const name of required) if (!take(name)) missing.push(name);
  if (!weights.some(take)) missing.push(weights.join(' / '));
  for (const name of optional) take(name);
  if (missing.length) throw new FolderProblem('openModel.missingHf', { files: missing });
  return picked;
}

/**
 * Read and convert a Hugging Face folder: { files: { config, weights (the converted file's bytes),
 * srcTokenizer, tgtTokenizer }, notes: [English text], weightsFile: the File its weights were read
 * from }. `onProgress` gets the reading's bytes, then { label, phase: 'convert' }.
 */
export async function importHuggingFace(entries, folder, onProgress) {
  const picked = pickHuggingFaceFiles(entries);
  const small = Object.fromEntries(Object.entries(picked).filter(([name]) => SMALL_FILES.includes(name)));
  const first = await readModelFiles(small, folder, () => {});
  const weights = marianFileNames()
    .weights.map((name) => picked[name])
    .find(Boolean);
  checkMarianSize(Object.keys(first), Object.values(first), weights.size);
  const rest = Object.fromEntries(Object.entries(picked).filter(([name]) => !SMALL_FILES.includes(name)));
  const read = { ...first, ...(await readModelFiles(rest, folder, onProgress)) };
  onProgress({ label: folder || 'Hugging Face', loaded: 0, total: 0, phase: 'convert' });
  const names = Object.keys(read);
  const imported = importMarian(
    folder ?? undefined,
    names,
    names.map((name) => read[name]),
  );
  const { notes, ...files } = imported;
  return { files, notes, weightsFile: weights };
}

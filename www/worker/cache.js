// Downloads with progress, kept in the Cache API under each file's content hash: a changed file
// is fetched again, an unchanged one never. Used by the worker for model files and wasm modules.

const MODEL_CACHE = 'attnscope-models-v1';
/** The site's root (www/, served at /): the paths below are relative to it, not to this worker. */
const SITE = new URL('../', import.meta.url);
const WASM_CACHE = 'attnscope-wasm-v2'; // v2: stored as application/wasm, to compile while streaming
/** What the loading bar calls the CPU module. */
export const CPU_MODULE_LABEL = 'WebAssembly (CPU)';

/** `onProgress({ label, loaded, total })` after every chunk; total is 0 when the size is unknown. */
export async function fetchWithProgress(url, label, onProgress) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot load ${url}: HTTP ${response.status}`);
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress({ label, loaded, total });
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/**
 * A file through the Cache API, keyed by its content hash `version`: { hit } (the cached
 * Response) where it is there, else { bytes }, fetched and cached.
 */
async function cached(url, version, label, onProgress, cacheName) {
  const key = new URL(`${url}?v=${version}`, SITE).href;
  let cache = null;
  try {
    cache = await caches.open(cacheName);
    const hit = await cache.match(key);
    if (hit) {
      onProgress({ label: `${label} (cached)`, loaded: 1, total: 1 });
      return { hit };
    }
  } catch {
    cache = null; // no Cache API (e.g. an insecure origin): just fetch
  }
  const bytes = await fetchWithProgress(key, label, onProgress);
  // Kept for the next visit while this one goes on: a first visit does not wait for the writes
  // (the Response holds a copy of the bytes). A write that fails only costs the next visit a fetch.
  if (cache) store(cache, key, url, version, bytes).catch(() => {});
  return { bytes };
}

/** Put `bytes` in `cache` under `key`, in place of `url`'s other versions. */
async function store(cache, key, url, version, bytes) {
  const type = url.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
  const response = new Response(bytes, { headers: { 'Content-Type': type } });
  for (const old of await cache.keys()) {
    if (old.url.split('?')[0].endsWith(url) && !old.url.endsWith(`v=${version}`)) await cache.delete(old);
  }
  await cache.put(key, response);
}

/** The bytes of what `cached` found or fetched. */
const bytesOf = async ({ hit, bytes }) => (hit ? new Uint8Array(await hit.arrayBuffer()) : bytes);

/** The bytes of a file through the Cache API, keyed by its content hash `version`. */
export async function cachedFile(url, version, label, onProgress, cacheName = MODEL_CACHE) {
  return bytesOf(await cached(url, version, label, onProgress, cacheName));
}

const loaded = { manifest: null }; // pkg/manifest.json: the content hash of each wasm module

/** pkg/manifest.json as served now (empty when there is none): the content hash of each wasm module. */
async function readManifest() {
  const response = await fetch(new URL('pkg/manifest.json', SITE), { cache: 'no-cache' });
  return response.ok ? response.json() : {};
}

/**
 * Whether wasm module `name` is built: listed in pkg/manifest.json, read afresh (scripts/serve.sh
 * opens the page before the WebGPU module is built). A listing that has it is the one used from then on.
 */
export async function moduleListed(name) {
  const manifest = await readManifest();
  if (!manifest[name]) return false;
  loaded.manifest = manifest;
  return true;
}

/** Wasm module `name` (pkg/<name>/attnscope_bg.wasm) through the cache: { hit } or { bytes }. */
async function cachedModule(name, label, onProgress) {
  loaded.manifest ??= await readManifest();
  return cached(`pkg/${name}/attnscope_bg.wasm`, loaded.manifest[name] || 'none', label, onProgress, WASM_CACHE);
}

/** The bytes of wasm module `name`. */
export async function moduleBytes(name, label, onProgress) {
  return bytesOf(await cachedModule(name, label, onProgress));
}

/**
 * Wasm module `name` to instantiate: the module compileEarly compiled, where it did; else the
 * cached Response, to compile while it streams (WebAssembly.instantiateStreaming), so that V8 can
 * keep its optimised code between page loads; else the bytes, fetched and cached.
 */
export async function moduleSource(name, label, onProgress) {
  const early = compiling.get(name);
  if (early) {
    compiling.delete(name);
    return early;
  }
  return sourceOf(name, label, onProgress);
}

/** moduleSource's answer, read now. */
async function sourceOf(name, label, onProgress) {
  const { hit, bytes } = await cachedModule(name, label, onProgress);
  return hit ?? bytes;
}

// Wasm modules compiled before they were asked for (compileEarly), by name: each a Promise of a
// WebAssembly.Module (or, where that compile failed, of moduleSource's usual answer), taken by
// the first moduleSource(name).
const compiling = new Map();

/**
 * Fetch (or find in the cache) and compile wasm module `name` now: the worker's first act, while
 * its other modules, the glue among them, still load. Compiling needs no imports; instantiating
 * does, and waits for the glue. The cached Response is compiled while it streams, as before, so
 * V8 keeps its optimised code between visits.
 */
export function compileEarly(name, label, onProgress) {
  const module = (async () => {
    const { hit, bytes } = await cachedModule(name, label, onProgress);
    return hit ? WebAssembly.compileStreaming(hit) : WebAssembly.compile(bytes);
  })().catch(() => sourceOf(name, label, onProgress)); // the usual path says what went wrong
  compiling.set(name, module);
}

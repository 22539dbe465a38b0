// Downloads with progress, kept in the Cache API under each file's content hash: a changed file
// is fetched again, an unchanged one never. Used by the worker for model files and wasm modules;
// a wasm module the browser's HTTP cache holds is compiled from there (fromHttpCache).

const MODEL_CACHE = 'attnscope-models-v1';
/** The site's root (www/, served at /): the paths below are relative to it, not to this worker. */
const SITE = new URL('../', import.meta.url);
/** `url` (from the site's root) at content hash `version`: the address it is fetched and cached at. */
const versioned = (url, version) => new URL(`${url}?v=${version}`, SITE);

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
  const key = versioned(url, version).href;
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

/** Wasm module `name`'s file and its content hash in pkg/manifest.json ('none' where it is not listed). */
async function moduleFile(name) {
  loaded.manifest ??= await readManifest();
  return { url: `pkg/${name}/attnscope_bg.wasm`, version: loaded.manifest[name] || 'none' };
}

/** Wasm module `name` (pkg/<name>/attnscope_bg.wasm) through the cache: { hit } or { bytes }. */
async function cachedModule(name, label, onProgress) {
  const { url, version } = await moduleFile(name);
  return cached(url, version, label, onProgress, WASM_CACHE);
}

/** The bytes of wasm module `name`. */
export async function moduleBytes(name, label, onProgress) {
  return bytesOf(await cachedModule(name, label, onProgress));
}

/**
 * Wasm module `name` to instantiate: the module compileEarly compiled, where it did; else the
 * cached Response (the HTTP cache's, else the Cache API's: fromHttpCache), to compile while it
 * streams (WebAssembly.instantiateStreaming); else the bytes, fetched and cached.
 */
export async function moduleSource(name, label, onProgress) {
  const early = compiling.get(name);
  if (early) {
    compiling.delete(name);
    return early;
  }
  return sourceOf(name, label, onProgress);
}

/** moduleSource's answer, read now: the browser's HTTP cache's Response, else the Cache API's, else the bytes. */
async function sourceOf(name, label, onProgress) {
  const kept = await fromHttpCache(name);
  if (kept) return kept;
  const { hit, bytes } = await cachedModule(name, label, onProgress);
  return hit ?? bytes;
}

/**
 * Wasm module `name` as the browser's HTTP cache keeps it from an earlier visit (its URL names its
 * content hash, served immutable), or null. Only such a Response lets V8 keep its optimised code
 * between visits: Chromium gives a Response from the Cache API no code cache. Without one, every
 * load compiles the ~1,070 functions it runs as they are first called (100–130 ms of the worker's
 * time before the first heatmap, en-zh). Chromium 156 wrote the code cache 870–900 s into a
 * visit; the next loads' sessions then took 86–119 ms against 139–165 (two runs:
 * benches/RESULTS.md, "eighth session: the wasm code cache").
 */
async function fromHttpCache(name) {
  const { url, version } = await moduleFile(name);
  if (version === 'none') return null;
  try {
    const response = await fetch(versioned(url, version), { cache: 'only-if-cached', mode: 'same-origin' });
    return response.ok ? response : null;
  } catch {
    return null; // not in the HTTP cache: a first visit
  }
}

// Wasm modules compiled before they were asked for (compileEarly), by name: each a Promise of a
// WebAssembly.Module (or, where that compile failed, of moduleSource's usual answer), taken by
// the first moduleSource(name).
const compiling = new Map();

/**
 * Fetch (or find in the cache) and compile wasm module `name` now: the worker's first act, while
 * its other modules, the glue among them, still load. Compiling needs no imports; instantiating
 * does, and waits for the glue. A cached Response is compiled while it streams.
 */
export function compileEarly(name, label, onProgress) {
  const module = (async () => {
    const source = await sourceOf(name, label, onProgress);
    return source instanceof Response ? WebAssembly.compileStreaming(source) : WebAssembly.compile(source);
  })().catch(() => sourceOf(name, label, onProgress)); // the usual path says what went wrong
  compiling.set(name, module);
}

// Downloads with progress, kept in the Cache API under each file's content hash: a changed file
// is fetched again, an unchanged one never. Used by the worker for model files and wasm modules.

const MODEL_CACHE = 'attnscope-models-v1';
/** The site's root (www/, served at /): the paths below are relative to it, not to this worker. */
const SITE = new URL('../', import.meta.url);
const WASM_CACHE = 'attnscope-wasm-v2'; // v2: stored as application/wasm, to compile while streaming

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

/** A file through the Cache API, keyed by its content hash `version`. */
export async function cachedFile(url, version, label, onProgress, cacheName = MODEL_CACHE) {
  const key = new URL(`${url}?v=${version}`, SITE).href;
  let cache = null;
  try {
    cache = await caches.open(cacheName);
    const hit = await cache.match(key);
    if (hit) {
      onProgress({ label: `${label} (cached)`, loaded: 1, total: 1 });
      return new Uint8Array(await hit.arrayBuffer());
    }
  } catch {
    cache = null; // no Cache API (e.g. an insecure origin): just fetch
  }
  const bytes = await fetchWithProgress(key, label, onProgress);
  if (cache) {
    for (const old of await cache.keys()) {
      if (old.url.split('?')[0].endsWith(url) && !old.url.endsWith(`v=${version}`)) await cache.delete(old);
    }
    const type = url.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
    await cache.put(key, new Response(bytes, { headers: { 'Content-Type': type } }));
  }
  return bytes;
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

/** The bytes of wasm module `name` (pkg/<name>/attnscope_bg.wasm). */
export async function moduleBytes(name, label, onProgress) {
  loaded.manifest ??= await readManifest();
  return cachedFile(`pkg/${name}/attnscope_bg.wasm`, loaded.manifest[name] || 'none', label, onProgress, WASM_CACHE);
}

/**
 * Wasm module `name` as a Response to compile while it streams (WebAssembly.instantiateStreaming):
 * from the cache where it is there, so that V8 can keep its optimised code between page loads;
 * else the bytes, fetched and cached (moduleBytes).
 */
export async function moduleSource(name, label, onProgress) {
  loaded.manifest ??= await readManifest();
  const url = `pkg/${name}/attnscope_bg.wasm`;
  const version = loaded.manifest[name] || 'none';
  try {
    const hit = await (await caches.open(WASM_CACHE)).match(new URL(`${url}?v=${version}`, SITE).href);
    if (hit) {
      onProgress({ label: `${label} (cached)`, loaded: 1, total: 1 });
      return hit;
    }
  } catch {
    // no Cache API: the bytes below
  }
  return moduleBytes(name, label, onProgress);
}

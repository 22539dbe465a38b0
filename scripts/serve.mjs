#!/usr/bin/env node

// A static file server for the page: www/ at /, plus /pkg/ (the wasm build and the page's bundle)
// and /models/. Correct MIME types (application/wasm), a strict Content-Security-Policy, loopback
// only. Files named by their content are cached for good (IMMUTABLE); the rest are revalidated on
// every load (ETag). Run from the command line (scripts/serve.sh), it rebuilds the page's bundle
// after each change to www/ (scripts/build-page.mjs; esbuild from node_modules).
//
//   node scripts/serve.mjs [--port 8080] [--host 127.0.0.1]

import { watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const port = Number(option('--port', process.env.PORT || 8080));
const host = option('--host', '127.0.0.1');

export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.safetensors': 'application/octet-stream',
  '.onnx': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ts': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.tsv': 'text/tab-separated-values; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

// URL prefix → folder. Anything else is refused. bench-out/ and vendor/ort/ are the visitor
// benchmark's onnxruntime-web files (www/bench/ort.js), built by scripts/bench.sh; absent, they 404.
const MOUNTS = [
  ['/pkg/', join(root, 'pkg')],
  ['/models/', join(root, 'models')],
  ['/bench-out/', join(root, 'benches/out')],
  ['/vendor/ort/', join(root, 'benches/node_modules/onnxruntime-web/dist')],
  ['/', join(root, 'www')],
];

/**
 * Whether a request names its file's content: the worker asks for the wasm modules and the model
 * files with `?v=<content hash>` (www/worker/cache.js), and esbuild names the bundle's shared
 * chunks by theirs (pkg/page/chunk-<hash>.js).
 */
const IMMUTABLE = (url) => url.searchParams.has('v') || /^\/pkg\/page\/chunk-[A-Z0-9]+\.js$/.test(url.pathname);

export function resolvePath(urlPath, mounts = MOUNTS) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  if (decoded.endsWith('/')) decoded += 'index.html';
  for (const [prefix, dir] of mounts) {
    if (decoded.startsWith(prefix)) {
      const file = normalize(join(dir, decoded.slice(prefix.length)));
      return file.startsWith(dir + sep) ? file : null;
    }
  }
  return null;
}

/** The server; `extraMounts` ([url prefix, folder] pairs) come first (the benchmark uses them). */
export function makeServer(extraMounts = []) {
  const mounts = [...extraMounts, ...MOUNTS];
  return createServer(async (req, res) => {
    const headers = {
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, headers).end('method not allowed');
      return;
    }
    const url = new URL(req.url, 'http://localhost');
    if (IMMUTABLE(url)) headers['Cache-Control'] = 'public, max-age=31536000, immutable';
    const file = resolvePath(url.pathname, mounts);
    try {
      const info = file ? await stat(file) : null;
      if (!info?.isFile()) throw new Error('not found');
      // Revalidation: the browser keeps its copy while the file is unchanged.
      const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { ...headers, ETag: etag }).end();
        return;
      }
      const body = await readFile(file);
      res.writeHead(200, {
        ...headers,
        ETag: etag,
        'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
        'Content-Length': body.length,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
    }
  });
}

/** Rebuild the page's bundle (pkg/page/) a moment after www/ changes, when it is stale. */
function rebuildPageOnChange() {
  let timer = null;
  const rebuild = async () => {
    try {
      const { refreshPage } = await import('./build-page.mjs');
      await refreshPage();
    } catch (error) {
      console.log(`pkg/page/ was not rebuilt (${error.message}): npm ci, then node scripts/build-page.mjs`);
    }
  };
  watch(join(root, 'www'), { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(rebuild, 100);
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  makeServer().listen(port, host, () => {
    console.log(`attnscope is being served at http://${host}:${port}/  (Ctrl-C to stop)`);
  });
  rebuildPageOnChange();
}

#!/usr/bin/env node

// The page's bundle: www/'s modules built by esbuild into pkg/page/, which www/index.html loads.
// Without it the page fetched about eighty modules, one request each, before its script ran
// (benches/RESULTS.md, the first heatmap). pkg/page/ is committed with the wasm modules, so a fresh
// clone serves it with no node_modules (docs/tests.md#the-committed-build-pkg).
//
// What it writes, side by side in pkg/page/ (so that one site root, '../../', serves them all):
//   boot.js                 what the page starts first (www/boot.js: the worker, the model list),
//                           which index.html loads on its own, before the rest has arrived; the
//                           bundles import it (bootApart);
//   main.js                 the page (www/app/main.js and what it imports);
//   worker.js               the model's worker (www/worker/worker.js, www/boot.js starts it);
//   testing-hooks.js,       the test harnesses (www/testing/), loaded only in test mode (`?test`),
//   testing-worker-hooks.js by the same dynamic imports as before: the page's own files carry none;
//   chunk-*.js              code two of them share (one copy of the store for the page and its hooks)
//                           and what the page loads later (the playground);
//   inputs.txt              the listing of what it took in (scripts/pkg-inputs.mjs), whose hash
//                           pkg/manifest.json keeps as "page".
// The wasm modules' glue (pkg/cpu/attnscope.js, …) stays outside, imported from beside the bundle.
// The training worker (www/trainer/) is not bundled: the page starts it only when the playground opens.
//
//   node scripts/build-page.mjs              build pkg/page/ from www/ as it is now (well under 1 s)
//   node scripts/build-page.mjs --if-stale   build only when pkg/page/ is not the bundle of this tree

import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageStale, recordPage } from './pkg-inputs.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const www = join(root, 'www');
const pkg = join(root, 'pkg');
const PAGE = join(pkg, 'page');

/** The two bundles, each with its test harness: the page's thread and the model worker's share no code at run time. */
const BUNDLES = [
  { main: 'www/app/main.js', 'testing-hooks': 'www/testing/hooks.js' },
  { worker: 'www/worker/worker.js', 'testing-worker-hooks': 'www/testing/worker-hooks.js' },
];

/** Where the site's root is, seen from a file of pkg/page/ (it is served at /pkg/page/). */
const SITE_FROM_BUNDLE = '../../';

/**
 * A www/ file's `new URL(path, import.meta.url)` resolves `path` against that file's own address,
 * which is the bundle's once bundled: the base becomes the file's address as it would be served,
 * seen from the bundle. `import.meta.url` alone (the worker reads its `?test`) is left as it is.
 */
const sitePaths = {
  name: 'site-paths',
  setup(build) {
    build.onLoad({ filter: /\.m?js$/ }, (args) => {
      if (!args.path.startsWith(www + sep)) return undefined;
      const served = `${SITE_FROM_BUNDLE}${relative(www, args.path).split(sep).join('/')}`;
      const text = readFileSync(args.path, 'utf8');
      return {
        contents: text.replace(/,\s*import\.meta\.url\s*\)/g, `, new URL(${JSON.stringify(served)}, import.meta.url))`),
        loader: 'js',
      };
    });
  },
};

/**
 * The wasm modules' glue (`../pkg/NAME/attnscope.js` from www/worker/: the server mounts pkg/ at
 * the site's /pkg/) is imported from its own folder, beside pkg/page/.
 */
const wasmGlue = {
  name: 'wasm-glue',
  setup(build) {
    const served = join(www, 'pkg');
    build.onResolve({ filter: /\/pkg\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (!path.startsWith(served + sep)) return undefined;
      return { path: `../${relative(served, path).split(sep).join('/')}`, external: true };
    });
  },
};

/**
 * www/boot.js is a file of its own, pkg/page/boot.js, with no import: index.html loads it first and
 * it runs as soon as it arrives (a chunk it imported was fetched only with the bundle's, ~140 ms
 * later). The bundles import it from there (one module, one state), and it imports the test
 * harness from its bundled name.
 */
const BOOT = join(www, 'boot.js');
const bootApart = {
  name: 'boot-apart',
  setup(build) {
    build.onResolve({ filter: /boot\.js$|testing\/hooks\.js$/ }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (path === BOOT && args.kind !== 'entry-point') return { path: './boot.js', external: true };
      if (path === join(www, 'testing', 'hooks.js') && args.importer === BOOT) return { path: './testing-hooks.js', external: true };
      return undefined;
    });
  },
};

/** The www/testing/ files in what the page loads without `?test` (boot.js, main.js and their static chunks): none, or a failed build. */
function testCodeInPage(metafile, outdir) {
  const outputs = metafile.outputs;
  const name = (file) => relative(outdir, resolve(root, file));
  const byName = new Map(Object.keys(outputs).map((file) => [name(file), outputs[file]]));
  const seen = new Set();
  const queue = ['boot.js', 'main.js'];
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file) || !byName.has(file)) continue;
    seen.add(file);
    for (const { path, kind } of byName.get(file).imports)
      if (kind === 'import-statement' && !path.startsWith('../')) queue.push(name(path));
  }
  return [...seen].flatMap((file) => Object.keys(byName.get(file).inputs).filter((input) => input.startsWith('www/testing/')));
}

/** Build pkg/page/ (into a folder of its own first, then moved into place); returns what it took in. */
export async function buildPage() {
  const { build } = await import('esbuild');
  const started = performance.now();
  const tmp = join(pkg, `page-${process.pid}.tmp`);
  rmSync(tmp, { recursive: true, force: true });
  const options = (entryPoints) => ({
    absWorkingDir: root,
    entryPoints,
    outdir: tmp,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'eof',
    charset: 'utf8',
    metafile: true,
    logLevel: 'warning',
    // www/boot.js starts the worker's bundle rather than www/worker/worker.js (a path from the site's root).
    define: { 'import.meta.workerScript': JSON.stringify('pkg/page/worker.js') },
    plugins: [sitePaths, wasmGlue, bootApart],
  });
  const results = await Promise.all([...BUNDLES, { boot: BOOT }].map((entries) => build(options(entries))));
  const result = { metafile: { inputs: {}, outputs: {} } };
  for (const { metafile } of results) {
    Object.assign(result.metafile.inputs, metafile.inputs);
    Object.assign(result.metafile.outputs, metafile.outputs);
  }
  const leaked = testCodeInPage(result.metafile, tmp);
  if (leaked.length > 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`the page's bundle would load test code without ?test: ${leaked.join(', ')}`);
  }
  const inputs = Object.keys(result.metafile.inputs).filter((file) => file.startsWith('www/'));
  recordPage(tmp, inputs);
  swapIn(tmp);
  recordPage(PAGE, inputs, true);
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  const files = Object.keys(result.metafile.outputs).length;
  console.log(
    `pkg/page/: ${files} files, ${bytes} bytes, from ${inputs.length} www/ files, in ${Math.round(performance.now() - started)} ms`,
  );
  return inputs;
}

/** Put the bundle built in `tmp` in pkg/page/'s place; a bundle another process put there first is kept. */
function swapIn(tmp) {
  const old = join(pkg, `page-${process.pid}.old.tmp`);
  if (existsSync(PAGE)) renameSync(PAGE, old);
  try {
    renameSync(tmp, PAGE);
  } catch (error) {
    if (!existsSync(PAGE)) throw error; // else: another build of the same tree won the race
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}

/** Build pkg/page/ when it is not the bundle of this tree; true when it built. */
export async function refreshPage() {
  const why = pageStale();
  if (!why) return false;
  console.log(`pkg/page/ is stale (${why}): rebuilding it`);
  await buildPage();
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  await (ifStale ? refreshPage() : buildPage());
}

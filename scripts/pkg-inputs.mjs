#!/usr/bin/env node

// pkg/ is committed: the page's wasm modules and its bundle ship with the source
// (docs/tests.md#the-committed-build-pkg). This script says what a build of pkg/ takes in, and
// whether pkg/ is still the build of this tree. The inputs' listing (pkg/inputs.txt) names the
// toolchain and every source file with its SHA-256; pkg/manifest.json keeps each module's content
// hash (the worker caches by it) and, under "inputs", the SHA-256 of that listing: present only
// when every module was built from it. The page's bundle (pkg/page/, scripts/build-page.mjs) is a
// second build with a listing of its own, pkg/page/inputs.txt (esbuild's version, PAGE_INPUTS and
// every www/ file it took in), whose SHA-256 the manifest keeps under "page": a change to www/
// alone needs `node scripts/build-page.mjs`, not a wasm build.
//
//   node scripts/pkg-inputs.mjs                        this tree's listing, on stdout
//   node scripts/pkg-inputs.mjs modules                the modules a full build makes
//   node scripts/pkg-inputs.mjs check [--any-rustc] [--only wasm|page]
//                                                      exit 0 if pkg/ is this tree's build (the wasm
//                                                      modules and the page's bundle; --only: one of
//                                                      them), else say what differs and exit 1
//                                                      (--any-rustc: a build by another rustc of
//                                                      these sources will do)
//   node scripts/pkg-inputs.mjs manifest LISTING [--current]
//                                                      write pkg/manifest.json (and pkg/inputs.txt when
//                                                      every module is LISTING's build); --current lists
//                                                      only the modules built from LISTING
//   node scripts/pkg-inputs.mjs bytes BEFORE.json      the modules' hashes in pkg/manifest.json are BEFORE's

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const pkg = join(root, 'pkg');

/** The modules of a full build (scripts/build-wasm.sh), in the order it builds them. */
export const MODULES = ['cpu', 'webgpu', 'train', 'train-webgpu'];

/**
 * What a build reads from the tree: the crate, the lock files (wasm-bindgen's version is
 * Cargo.lock's, wasm-opt's is binaryen's in package-lock.json), rustflags, the build scripts.
 * A bundle of www/ files built into pkg/ adds every file it takes in here.
 */
export const INPUTS = [
  'src',
  'Cargo.toml',
  'Cargo.lock',
  '.cargo/config.toml',
  'package-lock.json',
  'scripts/build-wasm.sh',
  'scripts/lib.sh',
  'scripts/pkg-inputs.mjs',
];

/**
 * What the page's bundle reads besides the www/ files it takes in (which its listing names as
 * esbuild found them): the lock file (esbuild's version) and its build script.
 */
export const PAGE_INPUTS = ['package-lock.json', 'scripts/build-page.mjs'];

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** The input files, relative to the root and sorted: git's tracked and untracked-but-not-ignored files. */
function inputFiles() {
  let names;
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...INPUTS], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    names = out.toString('utf8').split('\0').filter(Boolean);
  } catch {
    names = INPUTS.flatMap((name) => walk(join(root, name))); // not a git checkout (an unpacked archive)
  }
  const files = [...new Set(names)].filter((name) => existsSync(join(root, name)) && statSync(join(root, name)).isFile());
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function walk(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [relative(root, path)];
  return readdirSync(path).flatMap((name) => walk(join(path, name)));
}

function rustcVersion() {
  try {
    return execFileSync('rustc', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'none';
  }
}

/** Cargo.lock's version of package `name`. */
function lockedCrate(name) {
  const lock = readFileSync(join(root, 'Cargo.lock'), 'utf8');
  return lock.match(new RegExp(`\\nname = "${name}"\\nversion = "([^"]+)"`))?.[1] ?? 'none';
}

function lockedNpm(name) {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  return lock.packages?.[`node_modules/${name}`]?.version ?? 'none';
}

const TOOLS = ['rustc', 'wasm-bindgen', 'binaryen', 'wasm-opt level'];

/** This tree's listing: `tool: version` lines, then `sha256  path` lines (sha256sum's format). */
export function listing() {
  // The wasm-opt level's default is scripts/lib.sh's, which it exports to the build.
  const versions = [rustcVersion(), lockedCrate('wasm-bindgen'), lockedNpm('binaryen'), process.env.WASM_OPT_LEVEL || '-O1'];
  const tools = TOOLS.map((tool, i) => `${tool}: ${versions[i]}`);
  const files = inputFiles().map((name) => `${sha256(readFileSync(join(root, name)))}  ${name}`);
  return `# the inputs of pkg/ (scripts/pkg-inputs.mjs)\n${[...tools, ...files].join('\n')}\n`;
}

/** A listing as a Map: tool name or file path → version or hash. */
function parse(text) {
  const entries = new Map();
  for (const line of text.split('\n')) {
    const file = line.match(/^([0-9a-f]{64}) {2}(.+)$/);
    const tool = line.match(/^([^#:][^:]*): (.*)$/);
    if (file) entries.set(file[2], file[1]);
    else if (tool) entries.set(tool[1], tool[2]);
  }
  return entries;
}

/** What differs between two listings, in words: `src/a.rs changed`, `rustc: X here, Y in pkg/`. */
function differences(recorded, current) {
  const said = [];
  for (const [key, value] of current) {
    const was = recorded.get(key);
    if (was === value) continue;
    if (TOOLS.includes(key)) said.push({ tool: key, text: `${key}: ${value} here, ${was ?? 'not recorded'} in pkg/` });
    else said.push({ text: was === undefined ? `${key} added` : `${key} changed` });
  }
  for (const key of recorded.keys()) if (!current.has(key)) said.push({ text: `${key} removed` });
  return said;
}

const readJson = (path) => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null);
const moduleHash = (name) => sha256(readFileSync(join(pkg, name, 'attnscope_bg.wasm'))).slice(0, 16);
const modulesBuilt = () => readdirSync(pkg).filter((name) => existsSync(join(pkg, name, 'attnscope_bg.wasm')));
const stampOf = (name) => (existsSync(join(pkg, name, '.inputs')) ? readFileSync(join(pkg, name, '.inputs'), 'utf8').trim() : '');

/** Why pkg/ as it stands is not a whole build with a record of its inputs (null when it is). */
function incomplete(manifest) {
  if (!manifest) return 'pkg/manifest.json is missing: nothing is built';
  if (!manifest.inputs) return 'pkg/manifest.json records no inputs: a partial build, or one made before they were recorded';
  const text = existsSync(join(pkg, 'inputs.txt')) ? readFileSync(join(pkg, 'inputs.txt')) : null;
  if (!text || sha256(text) !== manifest.inputs) return "pkg/inputs.txt is not the listing that pkg/manifest.json's hash names";
  for (const name of MODULES) {
    const missing = ['attnscope.js', 'attnscope_bg.wasm'].find((file) => !existsSync(join(pkg, name, file)));
    if (!manifest[name] || missing) return `pkg/${name} is not built${missing ? ` (${missing} is missing)` : ''}`;
    if (moduleHash(name) !== manifest[name]) return `pkg/${name}/attnscope_bg.wasm is not the module pkg/manifest.json lists`;
  }
  return null;
}

function check(anyRustc, only) {
  const page = only === 'wasm' ? null : pageStale();
  if (page) console.log(`pkg/page/ is not this tree's bundle: ${page} (node scripts/build-page.mjs)`);
  else if (only !== 'wasm') console.log(`pkg/page/ is this tree's bundle (${readJson(join(pkg, 'manifest.json')).page.slice(0, 12)})`);
  const wasm = only === 'page' ? 0 : checkWasm(anyRustc);
  return page ? 1 : wasm;
}

function checkWasm(anyRustc) {
  const manifest = readJson(join(pkg, 'manifest.json'));
  const why = incomplete(manifest);
  if (why) return fail([why]);
  const said = differences(parse(readFileSync(join(pkg, 'inputs.txt'), 'utf8')), parse(listing()));
  const sources = said.filter((d) => d.tool !== 'rustc');
  if (sources.length > 0 || (said.length > 0 && !anyRustc)) return fail(said.map((d) => d.text));
  const what = `inputs ${manifest.inputs.slice(0, 12)}; ${MODULES.join(', ')} listed`;
  if (said.length > 0) console.log(`pkg/ is the build of this tree's sources (${what}); ${said[0].text}`);
  else console.log(`pkg/ is this tree's build (${what})`);
  return 0;
}

function fail(reasons) {
  const shown = reasons.slice(0, 8);
  if (reasons.length > shown.length) shown.push(`and ${reasons.length - shown.length} more`);
  console.log(`pkg/ is not this tree's build: ${shown.join('; ')}`);
  return 1;
}

function writeManifest(listingFile, currentOnly) {
  const text = readFileSync(listingFile);
  const inputs = sha256(text);
  const manifest = {};
  const page = readJson(join(pkg, 'manifest.json'))?.page; // the page's bundle is built apart
  for (const name of modulesBuilt().sort()) {
    if (!currentOnly || stampOf(name) === inputs) manifest[name] = moduleHash(name);
  }
  const behind = MODULES.filter((name) => !manifest[name] || stampOf(name) !== inputs);
  if (behind.length === 0) {
    manifest.inputs = inputs;
    writeFileSync(join(pkg, 'inputs.txt.tmp'), text);
    renameSync(join(pkg, 'inputs.txt.tmp'), join(pkg, 'inputs.txt'));
  } else {
    rmSync(join(pkg, 'inputs.txt'), { force: true });
    console.log(`pkg/ records no inputs: ${behind.join(', ')} not built from this build's inputs yet`);
  }
  if (page) manifest.page = page;
  saveManifest(manifest);
  console.log('pkg/manifest.json:', JSON.stringify(manifest));
  return 0;
}

function saveManifest(manifest) {
  const tmp = join(pkg, `manifest.json.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, join(pkg, 'manifest.json'));
}

const esbuildVersion = () => `esbuild: ${lockedNpm('esbuild')}`;

/** The listing of the page's bundle built from `wwwFiles` (scripts/build-page.mjs, from esbuild's metafile). */
function pageListing(wwwFiles) {
  const names = [...new Set([...PAGE_INPUTS, ...wwwFiles])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files = names.map((name) => `${sha256(readFileSync(join(root, name)))}  ${name}`);
  return `# the inputs of pkg/page/ (scripts/build-page.mjs)\n${[esbuildVersion(), ...files].join('\n')}\n`;
}

/**
 * Record a bundle built in `dir` from `wwwFiles`: its listing in `dir`/inputs.txt and, once `dir`
 * is pkg/page/ (`note`), that listing's hash in pkg/manifest.json as "page".
 */
export function recordPage(dir, wwwFiles, note = false) {
  const text = note ? readFileSync(join(dir, 'inputs.txt'), 'utf8') : pageListing(wwwFiles);
  if (!note) writeFileSync(join(dir, 'inputs.txt'), text);
  else saveManifest({ ...(readJson(join(pkg, 'manifest.json')) ?? {}), page: sha256(text) });
}

/** Why pkg/page/ is not the bundle of this tree, in words (null when it is); needs no esbuild. */
export function pageStale() {
  const file = join(pkg, 'page', 'inputs.txt');
  if (!existsSync(file)) return 'pkg/page/ is not built';
  const text = readFileSync(file, 'utf8');
  if (readJson(join(pkg, 'manifest.json'))?.page !== sha256(text)) return "pkg/manifest.json does not name pkg/page/inputs.txt's hash";
  const recorded = parse(text);
  const said = [];
  const version = esbuildVersion().slice('esbuild: '.length);
  if (recorded.get('esbuild') !== version) said.push(`esbuild: ${version} here, ${recorded.get('esbuild') ?? 'not recorded'} in pkg/page/`);
  for (const name of PAGE_INPUTS) if (!recorded.has(name)) said.push(`${name} not recorded`);
  for (const [name, hash] of recorded) {
    if (name === 'esbuild') continue;
    const path = join(root, name);
    if (!existsSync(path)) said.push(`${name} removed`);
    else if (sha256(readFileSync(path)) !== hash) said.push(`${name} changed`);
  }
  if (said.length > 4) said.splice(4, said.length - 4, `and ${said.length - 4} more`);
  return said.length ? said.join('; ') : null;
}

function sameBytes(beforeFile) {
  const before = readJson(beforeFile) ?? {};
  const after = readJson(join(pkg, 'manifest.json')) ?? {};
  const differ = MODULES.filter((name) => before[name] !== after[name]);
  for (const name of MODULES) console.log(`pkg/${name}: ${before[name] ?? 'none'} before the build, ${after[name] ?? 'none'} after`);
  if (differ.length === 0) return 0;
  console.log(
    `the committed pkg/ is not what its inputs build, byte for byte (${differ.join(', ')}): commit the pkg/ just built ` +
      '(docs/tests.md#the-committed-build-pkg says what may differ)',
  );
  return 1;
}

/** The command line (above); importing the file runs nothing. */
function main([mode, ...rest]) {
  if (!mode) process.stdout.write(listing());
  else if (mode === 'modules') console.log(MODULES.join(' '));
  else if (mode === 'check')
    process.exitCode = check(rest.includes('--any-rustc'), rest.includes('--only') ? rest[rest.indexOf('--only') + 1] : null);
  else if (mode === 'manifest') process.exitCode = writeManifest(rest[0], rest.includes('--current'));
  else if (mode === 'bytes') process.exitCode = sameBytes(rest[0]);
  else {
    console.error(`unknown mode ${mode}: see the comment at the top of scripts/pkg-inputs.mjs`);
    process.exitCode = 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));

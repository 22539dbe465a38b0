#!/usr/bin/env node
// The page's import graph, checked (STYLE.md §16 and §17): every `import … from '…'`, `export … from
// '…'`, side-effect `import '…'` and `import('…')` with a literal path in the .js and .mjs files
// under www/. Fails (exit 1) when
//   - the graph has a cycle: each ring is printed, a → b → … → a;
//   - a file outside www/testing/ imports from www/testing/. The one way in is a test mode's
//     dynamic import behind a flag, by the files in DOORS: a normal page loads no test code.
//
//   node scripts/check-imports.mjs [www-folder]

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const www = resolve(process.argv[2] ?? join(root, 'www'));
const TESTING = 'testing/';

/** The files that may load www/testing/, by a dynamic import(), and only in a test mode. */
const DOORS = new Set(['boot.js', 'worker/worker.js']);

/** Every .js and .mjs file under `dir` (the wasm modules' generated glue in pkg/ left out). */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'pkg' || entry.name === 'node_modules' ? [] : sources(path);
    return /\.m?js$/.test(entry.name) ? [path] : [];
  });
}

/** `text` without its comments and with the text of its plain strings kept (a path is a string). */
function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\/|([^:\\'"`]|^)\/\/.*$/gm, (whole, before) => (whole.startsWith('/*') ? '' : (before ?? '')));
}

const STATIC = /(?:^|[;\n}])\s*(?:import|export)\s+(?:[\w*\s{},$]*?\s+from\s+)?['"]([^'"\n]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;

/** The relative imports of `file`: [{ to (a path under www/), dynamic }]. */
function importsOf(file) {
  const text = withoutComments(readFileSync(file, 'utf8'));
  const found = [];
  for (const [pattern, dynamic] of [
    [STATIC, false],
    [DYNAMIC, true],
  ]) {
    for (const match of text.matchAll(pattern)) {
      const spec = match[1];
      if (!spec.startsWith('.')) continue; // a bare or absolute specifier: not a file of the page's
      found.push({ to: relative(www, resolve(dirname(file), spec)), dynamic });
    }
  }
  return found;
}

const graph = new Map(); // file (relative to www/) → its imports
for (const file of sources(www)) graph.set(relative(www, file), importsOf(file));

const problems = [];

// A file outside www/testing/ that loads from it.
for (const [from, imports] of graph) {
  if (from.startsWith(TESTING)) continue;
  for (const { to, dynamic } of imports) {
    if (!to.startsWith(TESTING)) continue;
    if (dynamic && DOORS.has(from)) continue;
    const how = dynamic ? 'a dynamic import outside the test-mode doors' : 'a static import';
    problems.push(`www/${from} imports www/${to} (${how}): shipped code must not load test code`);
  }
}

// Cycles: a depth-first search; an edge back to a file on the current path closes a ring.
const rings = [];
const seen = new Set(); // rings already reported, by their sorted members
const state = new Map(); // file → 'open' (on the path) | 'done'
const path = [];
function visit(file) {
  state.set(file, 'open');
  path.push(file);
  for (const { to } of graph.get(file) ?? []) {
    if (!graph.has(to)) continue; // a missing file: not this check's business
    if (state.get(to) === 'open') {
      const ring = path.slice(path.indexOf(to));
      const key = [...ring].sort().join('|');
      if (!seen.has(key)) {
        seen.add(key);
        rings.push([...ring, to]);
      }
    } else if (!state.has(to)) {
      visit(to);
    }
  }
  path.pop();
  state.set(file, 'done');
}
for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
for (const ring of rings) problems.push(`import cycle: ${ring.map((file) => `www/${file}`).join(' → ')}`);
for (const knot of knots()) problems.push(`${knot.length} files import each other, through the rings above: ${knot.join(', ')}`);

/** The groups of files that reach each other (strongly connected components of two or more; Tarjan). */
function knots() {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  const strongly = (file) => {
    index.set(file, index.size);
    low.set(file, index.get(file));
    stack.push(file);
    for (const { to } of graph.get(file)) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        strongly(to);
        low.set(file, Math.min(low.get(file), low.get(to)));
      } else if (stack.includes(to)) {
        low.set(file, Math.min(low.get(file), index.get(to)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1) found.push(group.map((member) => `www/${member}`).sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) strongly(file);
  return found;
}

const edges = [...graph.values()].reduce((sum, imports) => sum + imports.length, 0);
if (problems.length) {
  for (const problem of problems) console.error(problem);
  console.error(`check-imports: ${problems.length} problem(s) in ${graph.size} files, ${edges} imports`);
  process.exit(1);
}
console.log(`check-imports: ${graph.size} files, ${edges} imports, no cycle, no test code in shipped files`);

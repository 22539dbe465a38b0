#!/usr/bin/env node
// Every relative link in README.md and docs/*.md must lead somewhere: `[text](path)` to a file or
// folder that exists, `[text](path#anchor)` and `[text](#anchor)` to a heading of that Markdown file
// (GitHub's slug of it) or an HTML `id`/`name` in it. Images and reference definitions count too;
// links inside code are not links. Plain node, no dependencies.
//
//   node scripts/check-links.mjs            README.md and docs/*.md
//   node scripts/check-links.mjs FILE...    only these (paths from the repository root)
//
// Exits 1 listing each dead link as `file:line: target: why`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** `text` with fenced code blocks and inline code spans blanked out, newlines kept, so offsets and
 * line numbers stay those of the file. */
export function withoutCode(text) {
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  const lines = text.split('\n');
  let fence = null;
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(lines[i]);
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length && lines[i].trim() === open[1]) fence = null;
      lines[i] = blank(lines[i]);
    } else if (open) {
      fence = open[1];
      lines[i] = blank(lines[i]);
    }
  }
  // A code span ends where its backtick run is repeated, and never crosses a blank line.
  return lines.join('\n').replace(/(`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))*?[^`]\1(?!`)/g, blank);
}

/** The text GitHub shows for a heading's Markdown: links and images by their text, no HTML tags,
 * no code backticks. */
function headingText(markdown) {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '');
}

/** GitHub's anchor for a heading: lower case; every character that is not a letter, a mark, a
 * number, `_`, `-` or a space dropped (letters of any script stay: 导览); spaces become `-`. */
export function slug(heading) {
  return headingText(heading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: its headings' slugs (a repeated slug gets -1, -2, … as on
 * GitHub) and the `id` or `name` of its HTML elements. */
export function anchors(text) {
  const found = new Set();
  const add = (heading) => {
    const base = slug(heading);
    let name = base;
    for (let n = 1; found.has(name); n++) name = `${base}-${n}`;
    found.add(name);
  };
  // Which lines are headings is read without code (a `# comment` in a fence is none); the
  // heading's text is read from the file (a code span in a heading is part of its text).
  const plain = withoutCode(text).split('\n');
  const lines = text.split('\n');
  const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
  for (let i = 0; i < lines.length; i++) {
    const setext = i > 0 && /^ {0,3}(=+|-+)[ \t]*$/.test(plain[i]) && /^ {0,3}[^\s|>-]/.test(plain[i - 1]);
    if (atx.test(plain[i])) add(atx.exec(lines[i])?.[1] ?? '');
    else if (setext) add(lines[i - 1]);
  }
  for (const m of text.matchAll(/<[a-z][^>]*\s(?:id|name)\s*=\s*["']([^"']+)["']/gi)) found.add(m[1]);
  return found;
}

/** Every link target in a Markdown file with its line: inline links and images `[…](target)`
 * (the link text may span lines) and reference definitions `[label]: target`. */
export function links(text) {
  const plain = withoutCode(text);
  const lineOf = (index) => plain.slice(0, index).split('\n').length;
  const found = [];
  const inline = /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
  for (const m of plain.matchAll(inline)) found.push({ line: lineOf(m.index), target: m[1].replace(/^<|>$/g, '') });
  for (const m of plain.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) found.push({ line: lineOf(m.index), target: m[1] });
  return found;
}

const external = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** Why `target`, linked from `file`, is dead, or null when it resolves. */
function deadReason(file, target, anchorsOf) {
  const hash = target.indexOf('#');
  const decode = (s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const path = decode((hash < 0 ? target : target.slice(0, hash)).split('?')[0]);
  const anchor = hash < 0 ? null : decode(target.slice(hash + 1));
  const to = path === '' ? file : resolve(dirname(file), path);
  if (!existsSync(to)) return `no file ${relative(root, to) || path}`;
  if (anchor === null || anchor === '') return null;
  if (statSync(to).isDirectory() || !to.endsWith('.md')) return `#${anchor} on a file that is not Markdown`;
  return anchorsOf(to).has(anchor) ? null : `no heading #${anchor} in ${relative(root, to)}`;
}

/** Every dead link of `files` (absolute paths), as `file:line: target: why`. */
export function deadLinks(files) {
  const cache = new Map();
  const anchorsOf = (file) => {
    if (!cache.has(file)) cache.set(file, anchors(readFileSync(file, 'utf8')));
    return cache.get(file);
  };
  const dead = [];
  for (const file of files) {
    for (const { line, target } of links(readFileSync(file, 'utf8'))) {
      if (target === '' || external(target)) continue;
      const why = deadReason(file, target, anchorsOf);
      if (why) dead.push(`${relative(root, file)}:${line}: ${target}: ${why}`);
    }
  }
  return dead;
}

function defaultFiles() {
  const docs = join(root, 'docs');
  const pages = existsSync(docs) ? readdirSync(docs).filter((name) => name.endsWith('.md')) : [];
  return [join(root, 'README.md'), ...pages.sort().map((name) => join(docs, name))];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const files = args.length > 0 ? args.map((file) => resolve(root, file)) : defaultFiles();
  const dead = deadLinks(files);
  for (const line of dead) console.error(line);
  if (dead.length > 0) {
    console.error(`${dead.length} dead link${dead.length === 1 ? '' : 's'} in ${files.length} files`);
    process.exit(1);
  }
  console.log(`every relative link and anchor resolves in ${files.length} files`);
}

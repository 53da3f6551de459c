// Citations a maintainer can follow. Fails when a file under src/, docs/, examples/ or README.md
//   - names a document maintainers do not have ("wire-facts", "Area A/B/C", "the interface
//     document", "service-interface", "section 4.6"): cite docs/wire-protocol.md#<anchor> instead;
//   - links a heading of a Markdown file of the repository (docs/wire-protocol.md#anchor, or
//     wire-protocol.md#anchor from docs/, or #anchor within a Markdown file) that does not exist. Anchors are GitHub's: the heading
//     lowercased, punctuation dropped, spaces to dashes, a repeated one suffixed -1, -2...
// Prints file:line and what to do for each hit. Exit 1 on a hit.
//
//   node scripts/check-citations.mjs        (from the repository root)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const ROOTS = ['src', 'docs', 'examples', 'README.md'];
const TEXT = /\.(?:[cm]?[jt]sx?|md|json|ya?ml|txt|html)$/i;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git']);

/** Names of documents a maintainer does not have; each with what to write instead. */
const FORBIDDEN = [
  { pattern: /wire[-_ ]facts/gi, what: 'the internal wire-facts notes' },
  { pattern: /\bArea [ABC]\b/g, what: 'the internal area letters' },
  { pattern: /interface document/gi, what: 'the internal interface document' },
  { pattern: /service-interface/gi, what: 'the internal interface document' },
  { pattern: /\bsections? \d+(?:\.\d+)*/gi, what: 'a section number of the internal interface document' },
];
// A Markdown file with an anchor: `docs/wire-protocol.md#x`, `./wire-protocol.md#x`, `../docs/a.md#x`.
const LINK = /(?<![\w/.-])((?:\.{1,2}\/)*(?:[\w-]+\/)*[\w.-]+\.md)#([^\s)\]`'"<>,;]*)/g;

const root = process.cwd();
const files = ROOTS.flatMap((entry) => walk(entry));
const anchorCache = new Map();
const hits = [];

for (const file of files) {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    for (const { pattern, what } of FORBIDDEN) {
      for (const match of line.matchAll(pattern)) {
        hits.push(`${where}: "${match[0]}" names ${what}, which maintainers do not have; cite docs/wire-protocol.md#<anchor> instead.\n    ${line.trim().slice(0, 160)}`);
      }
    }
    for (const match of line.matchAll(LINK)) {
      const [, target, anchor] = match;
      const doc = resolveDoc(file, target);
      if (!doc) continue;
      const anchors = anchorsOf(doc);
      const wanted = anchor.replace(/[.:]+$/, '');
      if (wanted === '' || anchors.has(wanted.toLowerCase())) continue;
      const near = closest(wanted.toLowerCase(), [...anchors]);
      hits.push(`${where}: links ${target}#${wanted}, but ${doc} has no heading with that anchor${near ? ` (did you mean #${near}?)` : ''}.`);
    }
    // A Markdown link to a heading of its own file: `[text](#anchor)`.
    if (!file.endsWith('.md')) return;
    for (const match of line.matchAll(/\]\(#([^\s)]+)\)/g)) {
      const anchors = anchorsOf(file);
      if (anchors.has(match[1].toLowerCase())) continue;
      const near = closest(match[1].toLowerCase(), [...anchors]);
      hits.push(`${where}: links #${match[1]}, but ${file} has no heading with that anchor${near ? ` (did you mean #${near}?)` : ''}.`);
    }
  });
}

if (hits.length > 0) {
  console.error(hits.join('\n'));
  console.error(`\n✖ ${hits.length} citation problem(s) in ${files.length} files (src/, docs/, examples/, README.md)`);
  process.exit(1);
}
console.log(`✔ citations: ${files.length} files, no internal document named, every Markdown anchor exists`);

function walk(entry) {
  if (!existsSync(entry)) return [];
  if (statSync(entry).isFile()) return TEXT.test(entry) ? [entry] : [];
  return readdirSync(entry, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) => (d.isDirectory() ? (SKIP_DIRS.has(d.name) ? [] : walk(path.posix.join(entry, d.name))) : TEXT.test(d.name) ? [path.posix.join(entry, d.name)] : []));
}

// A link is relative to the file that holds it (Markdown) or to the repository root (a code
// comment saying docs/wire-protocol.md#x). A target that is neither is not ours to check.
function resolveDoc(from, target) {
  for (const candidate of [path.posix.normalize(path.posix.join(path.posix.dirname(from), target)), path.posix.normalize(target)]) {
    if (!candidate.startsWith('..') && existsSync(path.join(root, candidate)) && statSync(path.join(root, candidate)).isFile()) return candidate;
  }
  return undefined;
}

function anchorsOf(doc) {
  if (anchorCache.has(doc)) return anchorCache.get(doc);
  const anchors = new Set();
  const seen = new Map();
  let fence;
  for (const line of readFileSync(path.join(root, doc), 'utf8').split(/\r?\n/)) {
    const opened = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (opened) {
      if (!fence) fence = opened[1][0];
      else if (opened[1][0] === fence) fence = undefined;
      continue;
    }
    if (fence) continue;
    for (const html of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/gi)) anchors.add(html[1].toLowerCase());
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(doc, anchors);
  return anchors;
}

/** GitHub's heading anchor: rendered text lowercased, punctuation dropped, spaces to dashes. */
function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function closest(word, candidates) {
  let best;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return bestDistance <= Math.max(3, word.length / 3) ? best : undefined;
}

function distance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

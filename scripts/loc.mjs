// Code lines of the browser SDK (src/core, src/cloud, src/registry, src/proxy): lines that are
// neither blank nor only a comment, and their characters other than whitespace (a second measure,
// so that joining lines cannot pass for a smaller SDK). Reads the working tree, or a commit with
// `--rev <commit>`; with `--base <commit>` prints both and the difference. The command line
// (src/cli) is printed on its own row below the total: it is not part of the browser SDK.
// Run: node scripts/loc.mjs [--rev <commit>] [--base <commit>] [--files]
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SDK = ['src/core', 'src/cloud', 'src/registry', 'src/proxy'];
const AREAS = [...SDK, 'src/cli'];
const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

/** Counts code lines and their characters (whitespace left out) of one file's text. */
export function countCode(text) {
  let lines = 0;
  let chars = 0;
  let inBlock = false;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (inBlock) {
      if (trimmed.includes('*/')) inBlock = false;
      continue;
    }
    if (trimmed === '' || trimmed.startsWith('//')) continue;
    if (trimmed.startsWith('/*')) {
      inBlock = !trimmed.includes('*/');
      continue;
    }
    lines += 1;
    chars += trimmed.replace(/\s+/g, '').length;
  }
  return { lines, chars };
}

function filesAt(rev) {
  if (!rev) {
    const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    return AREAS.flatMap((area) => walk(area)).filter((f) => f.endsWith('.ts')).map((f) => [f, readFileSync(f, 'utf8')]);
  }
  const names = execFileSync('git', ['ls-tree', '-r', '--name-only', rev, ...AREAS], { encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.ts'));
  return names.map((f) => [f, execFileSync('git', ['show', `${rev}:${f}`], { encoding: 'utf8', maxBuffer: 1 << 26 })]);
}

function tally(rev) {
  const byArea = new Map(AREAS.map((a) => [a, { lines: 0, chars: 0, files: 0 }]));
  const byFile = [];
  for (const [file, text] of filesAt(rev)) {
    const counted = countCode(text);
    const area = byArea.get(AREAS.find((a) => file.startsWith(`${a}/`)));
    area.lines += counted.lines;
    area.chars += counted.chars;
    area.files += 1;
    byFile.push([file, counted.lines]);
  }
  const total = SDK.map((a) => byArea.get(a)).reduce((t, a) => ({ lines: t.lines + a.lines, chars: t.chars + a.chars, files: t.files + a.files }), { lines: 0, chars: 0, files: 0 });
  return { byArea, total, byFile };
}

const now = tally(flag('--rev'));
const base = flag('--base') ? tally(flag('--base')) : undefined;
const row = (name, a, b) => `| ${name} | ${a.files} | ${a.lines.toLocaleString('en')} | ${a.chars.toLocaleString('en')} |` + (b ? ` ${b.lines.toLocaleString('en')} | ${(a.lines - b.lines).toLocaleString('en')} | ${(a.chars - b.chars).toLocaleString('en')} |` : '');
console.log(`| folder | files | code lines | code characters |${base ? ` lines at ${flag('--base')} | Δ lines | Δ characters |` : ''}`);
console.log(`|---|---|---|---|${base ? '---|---|---|' : ''}`);
for (const area of SDK) console.log(row(area, now.byArea.get(area), base?.byArea.get(area)));
console.log(row('**total**', now.total, base?.total));
console.log(row('src/cli (not in the total)', now.byArea.get('src/cli'), base?.byArea.get('src/cli')));
if (args.includes('--files')) for (const [file, lines] of now.byFile.sort((x, y) => y[1] - x[1])) console.log(`${String(lines).padStart(5)}  ${file}`);

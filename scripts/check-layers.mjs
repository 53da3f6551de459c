// The layering rules of docs/architecture.md ("Layers"), enforced. Runs dependency-cruiser with
// .dependency-cruiser.cjs over src/ (of the current directory) and adds the rule it cannot say:
// no cycle between FOLDERS (each module collapsed to its own folder, so src/cloud/shared,
// src/cloud/watch and src/cloud are three nodes). Prints each violation as a sentence: which file
// imports which, and the rule's reason. Exit 1 on a violation, 2 when the check cannot run.
//
//   node scripts/check-layers.mjs
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const configFile = path.join(repo, '.dependency-cruiser.cjs');
const cli = path.join(repo, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const config = createRequire(import.meta.url)(configFile);
const reasons = new Map(config.forbidden.map((rule) => [rule.name, rule.comment]));

if (!existsSync('src')) {
  console.error(`check-layers: no src/ in ${process.cwd()}`);
  process.exit(2);
}
const run = spawnSync(process.execPath, [cli, 'src', '--config', configFile, '--output-type', 'json'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
let result;
try {
  result = JSON.parse(run.stdout);
} catch {
  console.error(`check-layers: dependency-cruiser did not answer with JSON (exit ${run.status})\n${run.stderr}`);
  process.exit(2);
}

const problems = [];
const order = [...reasons.keys()];
const violations = [...result.summary.violations].sort((a, b) => order.indexOf(a.rule.name) - order.indexOf(b.rule.name) || a.from.localeCompare(b.from));
for (const v of violations) problems.push(describeViolation(v));
for (const cycle of folderCycles(result.modules)) problems.push(describeFolderCycle(cycle));

const modules = result.modules.filter((m) => m.source.startsWith('src/')).length;
if (problems.length > 0) {
  console.error(problems.map((p, i) => `${i + 1}. ${p}`).join('\n\n'));
  console.error(`\n✖ ${problems.length} layering violation(s) in ${modules} modules of src/ (rules: .dependency-cruiser.cjs, docs/architecture.md#layers)`);
  process.exit(1);
}
console.log(`✔ layering: ${modules} modules of src/, ${config.forbidden.length} rules and no folder cycle`);

function describeViolation(v) {
  const name = v.rule.name;
  const reason = reasons.get(name) ?? '';
  if (v.cycle?.length) {
    // dependency-cruiser lists the cycle from the module after `from`, ending at `from`.
    const [first, ...rest] = [v.from, ...v.cycle.map((step) => step.name)];
    return `File cycle [${name}]: ${first} imports ${rest.join(', which imports ')}. Why not: ${reason}.`;
  }
  if (v.via?.length) {
    const [first, ...rest] = [v.from, ...v.via.map((step) => (typeof step === 'string' ? step : step.name))];
    return `${v.from} reaches ${v.to} [${name}]: ${first} imports ${rest.join(', which imports ')}. Why not: ${reason}.`;
  }
  return `${v.from} imports ${v.to} [${name}]. Why not: ${reason}.`;
}

function folderOf(file) {
  return path.posix.dirname(file);
}

/**
 * Folder graph (an edge A → B when a file directly in A imports a file directly in B), then its
 * strongly connected components; each component of two or more folders yields one cycle: its
 * shortest loop, and every file import between its folders (what has to change to break it).
 * @returns {{ folders: string[], imports: Map<string, { from: string, to: string }[]> }[]}
 */
function folderCycles(mods) {
  const edges = new Map(); // folder -> Map(folder -> [{ from, to } file imports])
  for (const m of mods) {
    if (!m.source.startsWith('src/')) continue;
    const a = folderOf(m.source);
    for (const d of m.dependencies) {
      if (!d.resolved.startsWith('src/')) continue;
      const b = folderOf(d.resolved);
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Map());
      const out = edges.get(a);
      if (!out.has(b)) out.set(b, []);
      out.get(b).push({ from: m.source, to: d.resolved });
    }
  }
  const cycles = [];
  for (const component of stronglyConnected(edges)) {
    if (component.length < 2) continue;
    const inside = new Set(component);
    const loop = shortestLoop([...component].sort()[0], edges, inside);
    const imports = new Map();
    for (const a of [...component].sort()) {
      for (const [b, files] of [...edges.get(a).entries()].sort()) if (inside.has(b)) imports.set(`${a} → ${b}`, files);
    }
    cycles.push({ folders: loop, imports });
  }
  return cycles;
}

function stronglyConnected(edges) {
  // Tarjan's algorithm, iterative so a deep tree cannot overflow the stack.
  const nodes = new Set(edges.keys());
  for (const out of edges.values()) for (const b of out.keys()) nodes.add(b);
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let counter = 0;
  for (const root of [...nodes].sort()) {
    if (index.has(root)) continue;
    const work = [{ node: root, next: [...(edges.get(root)?.keys() ?? [])].sort(), i: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.i < frame.next.length) {
        const w = frame.next[frame.i++];
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, next: [...(edges.get(w)?.keys() ?? [])].sort(), i: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent), low.get(frame.node)));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

function shortestLoop(start, edges, inside) {
  // Breadth-first from `start` back to itself, within one component: the shortest folder loop.
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const loop = [node];
        while (loop[0] !== start) loop.unshift(previous.get(loop[0]));
        return loop;
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

function describeFolderCycle(cycle) {
  const ring = [...cycle.folders, cycle.folders[0]].join(' → ');
  const MAX = 4;
  const lines = [...cycle.imports].map(([pair, files]) => {
    const shown = files.slice(0, MAX).map((e) => `${e.from} imports ${e.to}`).join('; ');
    return `\n   ${pair}: ${shown}${files.length > MAX ? ` (and ${files.length - MAX} more)` : ''}`;
  });
  return (
    `Folder cycle [no-folder-cycle]: ${ring}. The imports between these folders:${lines.join('')}\n   Why not: folders form layers, and a lower one ` +
    'never imports a higher one (src/cloud/shared ← src/cloud/watch ← src/cloud); move the shared part down, or pass it in.'
  );
}

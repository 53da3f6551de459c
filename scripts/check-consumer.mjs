// A user's view of the types: compiles test/consumer/ against the BUILT package (run
// `npm run build` first) the way an installed copy resolves, with `strict` and `skipLibCheck: false`.
// Every entry of package.json#exports is imported too (exports.<setting>.ts, written from package.json), so
// each entry's declarations, and every declaration they reach, are checked: a new entry is covered
// without editing this file.
// The node types `graphcloud types` generates from the two real catalogs of test/codegen/fixtures
// (ComfyUI 0.3.77 and 0.33.0), by the packed graphcloud/codegen, compile with a typed workflow over
// each (test/consumer/typed-workflow.ts) in the Node app of every TypeScript. Every compile has
// exactOptionalPropertyTypes and noUncheckedIndexedAccess on top of strict (test/consumer/tsconfig.json).
// The README's TypeScript code blocks compile too, each as a module named after its line
// (readme-L<line>.ts), as a Node app; `cloud` and `workflow`, which the Errors block uses
// without defining, are declared for them.
//
// It lays out a throwaway project in the OS temp folder: node_modules/graphcloud holds exactly the
// files `npm pack` would publish (so `exports` decides what resolves, and a declaration that needs
// a file or a devDependency the package does not ship fails here as it would for a user), beside
// links to the runtime dependencies only. Then every TypeScript in TYPESCRIPTS compiles it under
// every setting in SETTINGS. Exit 1 when one compile fails, 2 when the check cannot run.
//
//   node scripts/check-consumer.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

const repo = process.cwd();
// Each is a devDependency (the older and newer ones under an npm alias), run through the `tsc` its
// package.json#bin names; TypeScript 7 is the native compiler, whose bin starts its platform binary.
const TYPESCRIPTS = [
  { name: 'TypeScript 6', tsc: binOf('typescript') },
  { name: 'TypeScript 5.9', tsc: binOf('typescript5') },
  { name: 'TypeScript 7', tsc: binOf('typescript7') },
];
// nodenext as a Node app compiles it (Node's types, no DOM); bundler as a browser app does (DOM).
// Each extends test/consumer/tsconfig.json (strict, skipLibCheck false). `serverOnly` entries are
// left out of the browser app, with the reason: no browser app imports them, and the Node app
// compiles them.
const SETTINGS = [
  { name: 'nodenext, Node app', id: 'nodenext', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'], types: ['node'] } },
  { name: 'bundler, browser app', id: 'bundler', browser: true, compilerOptions: { module: 'esnext', moduleResolution: 'bundler', lib: ['es2023', 'dom', 'dom.iterable'], types: [] } },
];
// Entries of `exports` no browser app imports: the relay and the queue run on a server, and their
// declarations name Node's types (`node:http`, BullMQ's `node:events`).
const SERVER_ONLY = new Map([
  ['./server', 'the relay runs on a server (its Node adapter names node:http types)'],
  ['./queue', 'the queue runs in Node processes (BullMQ and ioredis name node: types)'],
]);
// What a user's project has besides graphcloud's own dependencies: Node's types, for a Node app.
const USER_TYPES = ['@types/node'];
// The real catalogs whose generated node types compile (test/codegen/fixtures/README.md).
const CATALOGS = ['0.3.77', '0.33.0'];

const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'));
if (!existsSync(path.join(repo, 'dist/index.d.ts'))) {
  console.error('check-consumer: dist/index.d.ts is missing; run `npm run build` first');
  process.exit(2);
}

const project = mkdtempSync(path.join(os.tmpdir(), 'graphcloud-consumer-'));
let failed = 0;
let total = TYPESCRIPTS.length * SETTINGS.length;
let readmeBlocks = 0;
const entries = exportedEntries(pkg);
for (const key of SERVER_ONLY.keys()) {
  if (!entries.some((entry) => entry.key === key)) {
    console.error(`check-consumer: SERVER_ONLY names ${key}, which package.json#exports does not have`);
    process.exit(2);
  }
}
try {
  install(project);
  await generateTypes(project);
  for (const ts of TYPESCRIPTS) {
    const version = spawnSync(process.execPath, [path.join(repo, ts.tsc), '--version'], { encoding: 'utf8' }).stdout.trim();
    for (const setting of SETTINGS) {
      const left = setting.browser ? entries.filter((entry) => SERVER_ONLY.has(entry.key)).map((entry) => entry.specifier) : [];
      const generated = setting.id === 'nodenext' ? `, the generated types of ComfyUI ${CATALOGS.join(' and ')} and a typed workflow over each` : '';
      const started = performance.now();
      const run = spawnSync(process.execPath, [path.join(repo, ts.tsc), '-p', path.join(project, `tsconfig.${setting.id}.json`), '--pretty', 'false'], {
        cwd: project,
        encoding: 'utf8',
      });
      const label = `${ts.name} (${version}), ${setting.name}: ${entries.length - left.length} entries${left.length > 0 ? ` (not ${left.join(', ')}: server only)` : ''}${generated}, ${((performance.now() - started) / 1000).toFixed(1)} s`;
      if (run.status === 0) {
        console.log(`✔ ${label}`);
        continue;
      }
      failed++;
      console.error(`✖ ${label}: exit ${run.status ?? run.signal}`);
      const output = `${run.stdout}${run.stderr}`.replaceAll(`${project}${path.sep}`, '').trim();
      console.error(output.split('\n').map((line) => `    ${line}`).join('\n'));
    }
  }
  total++;
  const readme = spawnSync(process.execPath, [path.join(repo, TYPESCRIPTS[0].tsc), '-p', path.join(project, 'tsconfig.readme.json'), '--pretty', 'false'], { cwd: project, encoding: 'utf8' });
  if (readme.status === 0) console.log(`✔ README.md's ${readmeBlocks} TypeScript blocks (${TYPESCRIPTS[0].name}, nodenext, Node app)`);
  else {
    failed++;
    console.error(`✖ README.md's TypeScript blocks: exit ${readme.status ?? readme.signal} (readme-L<n>.ts is the block opening at line n)`);
    const output = `${readme.stdout}${readme.stderr}`.replaceAll(`${project}${path.sep}`, '').trim();
    console.error(output.split('\n').map((line) => `    ${line}`).join('\n'));
  }
} finally {
  rmSync(project, { recursive: true, force: true });
}
if (failed > 0) {
  console.error(`\n✖ ${failed} of ${total} consumer compiles failed (paths are relative to a temporary project: node_modules/graphcloud is the packed package)`);
  process.exit(1);
}
console.log(`✔ the packed package type-checks for a consumer: ${total} compiles, strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, skipLibCheck false, entries ${entries.map((e) => e.specifier).join(', ')}`);

/** The `tsc` of an installed TypeScript package, from its package.json#bin. */
function binOf(name) {
  const manifest = path.join(repo, 'node_modules', name, 'package.json');
  if (!existsSync(manifest)) {
    console.error(`check-consumer: ${name} is not installed (a devDependency); run \`npm install\``);
    process.exit(2);
  }
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  const tsc = typeof bin === 'string' ? bin : bin?.tsc;
  if (!tsc) {
    console.error(`check-consumer: ${name}'s package.json names no tsc in bin`);
    process.exit(2);
  }
  return path.join('node_modules', name, tsc);
}

/** Every entry of package.json#exports as the specifier a user imports, and whether it is JSON. */
function exportedEntries(manifest) {
  const exportsField = manifest.exports;
  const keys = typeof exportsField === 'object' && exportsField !== null && Object.keys(exportsField).every((key) => key.startsWith('.')) ? Object.keys(exportsField) : ['.'];
  return keys.map((key) => {
    if (key.includes('*')) {
      console.error(`check-consumer: the exports entry ${key} is a pattern; list its files as entries of their own to have them checked`);
      process.exit(2);
    }
    return { key, specifier: key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`, json: key.endsWith('.json') };
  });
}

/**
 * The node types of each catalog, written by the packed graphcloud/codegen as a user's build script
 * would run it, and a typed workflow over each (test/consumer/typed-workflow.ts, whose `./nodes.js`
 * becomes each catalog's module).
 */
async function generateTypes(dir) {
  const { generateNodeTypes } = await import(path.join(dir, 'node_modules', pkg.name, 'dist/codegen/index.js'));
  const template = readFileSync(path.join(repo, 'test/consumer/typed-workflow.ts'), 'utf8');
  const files = [];
  for (const version of CATALOGS) {
    const info = JSON.parse(gunzipSync(readFileSync(path.join(repo, `test/codegen/fixtures/comfyui-${version}.json.gz`))).toString('utf8'));
    writeFileSync(path.join(dir, `nodes-${version}.ts`), await generateNodeTypes(info, { server: `ComfyUI ${version}`, version }));
    writeFileSync(path.join(dir, `typed-workflow-${version}.ts`), template.replace("from './nodes.js'", `from './nodes-${version}.js'`));
    files.push(`nodes-${version}.ts`, `typed-workflow-${version}.ts`);
  }
  // The README's typed example imports `./nodes.js`, as a reader's project generated it: the newest catalog's.
  cpSync(path.join(dir, `nodes-${CATALOGS.at(-1)}.ts`), path.join(dir, 'nodes.ts'));
  // Added to the Node app's compile: a compile of their own would check every declaration again.
  const config = path.join(dir, 'tsconfig.nodenext.json');
  const nodeApp = JSON.parse(readFileSync(config, 'utf8'));
  nodeApp.files.push(...files);
  writeFileSync(config, JSON.stringify(nodeApp, null, 2));
}

function install(dir) {
  // The files `npm pack` would publish, copied (a link would let imports escape to the repository).
  const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, encoding: 'utf8', shell: process.platform === 'win32' });
  let files;
  try {
    files = JSON.parse(pack.stdout)[0].files.map((f) => f.path);
  } catch {
    console.error(`check-consumer: \`npm pack --dry-run --json\` failed (exit ${pack.status})\n${pack.stderr}`);
    process.exit(2);
  }
  const target = path.join(dir, 'node_modules', pkg.name);
  for (const file of new Set([...files, 'package.json'])) {
    mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    cpSync(path.join(repo, file), path.join(target, file));
  }
  // The runtime dependencies an install brings, the optional peers a user of graphcloud/queue
  // installs, and the user's own types; never a devDependency.
  for (const name of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), ...USER_TYPES]) {
    const link = path.join(dir, 'node_modules', name);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.join(repo, 'node_modules', name), link, 'junction');
  }
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'graphcloud-consumer', private: true, type: 'module' }, null, 2));
  cpSync(path.join(repo, 'test/consumer'), dir, { recursive: true });
  // Every entry, imported whole: its declarations and all they reach are compiled.
  for (const setting of SETTINGS) {
    const imported = entries.filter((entry) => !(setting.browser && SERVER_ONLY.has(entry.key)));
    const lines = imported.map((entry, i) =>
      entry.json ? `import entry${i} from '${entry.specifier}' with { type: 'json' };` : `import * as entry${i} from '${entry.specifier}';`,
    );
    const left = entries.filter((entry) => !imported.includes(entry)).map((entry) => `// ${entry.specifier}: not imported here, ${SERVER_ONLY.get(entry.key)}\n`);
    const source = `${left.join('')}${lines.join('\n')}\nexport const everyEntry = [${imported.map((_, i) => `entry${i}`).join(', ')}];\n`;
    writeFileSync(path.join(dir, `exports.${setting.id}.ts`), source);
    writeFileSync(
      path.join(dir, `tsconfig.${setting.id}.json`),
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: setting.compilerOptions, files: ['consumer.ts', `exports.${setting.id}.ts`] }, null, 2),
    );
  }
  // The README's blocks: each ```ts fence becomes a module of its own.
  const lines = readFileSync(path.join(repo, 'README.md'), 'utf8').split(/\r?\n/);
  const blocks = ['readme-globals.d.ts'];
  writeFileSync(path.join(dir, 'readme-globals.d.ts'), "import type { CloudClient } from 'graphcloud';\ndeclare global {\n  var cloud: CloudClient;\n  var workflow: CloudClient.UiWorkflow;\n}\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```ts') continue;
    const start = i + 1;
    const body = [];
    for (i++; i < lines.length && lines[i].trim() !== '```'; i++) body.push(lines[i]);
    const name = `readme-L${start}.ts`;
    writeFileSync(path.join(dir, name), `${body.join('\n')}\nexport {};\n`);
    blocks.push(name);
    readmeBlocks++;
  }
  const nodeApp = SETTINGS.find((setting) => setting.id === 'nodenext').compilerOptions;
  writeFileSync(path.join(dir, 'tsconfig.readme.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: nodeApp, files: blocks }, null, 2));
}

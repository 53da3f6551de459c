// A user's view of the types: compiles test/consumer/ against the BUILT package (run
// `npm run build` first) the way an installed copy resolves, with `strict` and `skipLibCheck: false`.
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
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

const repo = process.cwd();
const TYPESCRIPTS = [
  { name: 'TypeScript 6', tsc: 'node_modules/typescript/bin/tsc' },
  { name: 'TypeScript 5.9', tsc: 'node_modules/typescript5/bin/tsc' },
];
// nodenext as a Node app compiles it (Node's types, no DOM); bundler as a browser app does (DOM).
// Each extends test/consumer/tsconfig.json (strict, skipLibCheck false).
const SETTINGS = [
  { name: 'nodenext, Node app', id: 'nodenext', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'], types: ['node'] } },
  { name: 'bundler, browser app', id: 'bundler', compilerOptions: { module: 'esnext', moduleResolution: 'bundler', lib: ['es2023', 'dom', 'dom.iterable'], types: [] } },
];
// What a user's project has besides graphcloud's own dependencies: Node's types, for a Node app.
const USER_TYPES = ['@types/node'];

const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'));
if (!existsSync(path.join(repo, 'dist/index.d.ts'))) {
  console.error('check-consumer: dist/index.d.ts is missing; run `npm run build` first');
  process.exit(2);
}

const project = mkdtempSync(path.join(os.tmpdir(), 'graphcloud-consumer-'));
let failed = 0;
let total = TYPESCRIPTS.length * SETTINGS.length;
let readmeBlocks = 0;
try {
  install(project);
  for (const ts of TYPESCRIPTS) {
    const version = spawnSync(process.execPath, [path.join(repo, ts.tsc), '--version'], { encoding: 'utf8' }).stdout.trim();
    for (const setting of SETTINGS) {
      const label = `${ts.name} (${version}), ${setting.name}`;
      const run = spawnSync(process.execPath, [path.join(repo, ts.tsc), '-p', path.join(project, `tsconfig.${setting.id}.json`), '--pretty', 'false'], {
        cwd: project,
        encoding: 'utf8',
      });
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
console.log(`✔ the packed package type-checks for a consumer: ${total} compiles, strict, skipLibCheck false`);

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
  for (const setting of SETTINGS) {
    writeFileSync(path.join(dir, `tsconfig.${setting.id}.json`), JSON.stringify({ extends: './tsconfig.json', compilerOptions: setting.compilerOptions }, null, 2));
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

// Runs every examples/*.ts as a user would (tsx), with no configuration, so each starts the
// simulator in-process: each in a fresh temporary folder (so 'graphcloud' resolves through the
// package's own exports to dist/, not through tsconfig paths to src/, and whatever it writes lands
// there), with an environment of PATH and HOME only (no GRAPHCLOUD_* of the caller), a time limit,
// and a guard that fails any connection beyond the loopback. Prints one line per example with its
// time and exits 1 if any exits non-zero. Needs `npm run build` first.
//
//   node scripts/run-examples.mjs                  # every example, two at a time
//   node scripts/run-examples.mjs demo proxy-upscale
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const TIME_LIMIT_MS = 60_000;
const PARALLEL = 2;

for (const file of ['dist/index.js', 'dist/testing.js']) {
  if (!existsSync(join(root, file))) {
    console.error(`run-examples: ${file} is missing: run \`npm run build\` first (the examples import the built package)`);
    process.exit(2);
  }
}
const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
// The README's first example is examples/quick-start.ts, word for word: run here, it cannot rot.
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const quickStart = /## Try it without an account[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
if (quickStart !== readFileSync(join(root, 'examples', 'quick-start.ts'), 'utf8')) {
  console.error("run-examples: README.md's first TypeScript block (under \"Try it without an account\") and examples/quick-start.ts differ: make them the same");
  process.exit(1);
}
const all = readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.ts')).sort();
const wanted = process.argv.slice(2).map((name) => name.replace(/(\.ts)?$/, '.ts'));
const unknown = wanted.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  console.error(`run-examples: no examples/${unknown.join(', examples/')} (there are ${all.join(', ')})`);
  process.exit(2);
}
const examples = wanted.length > 0 ? wanted : all;

// Loaded into every process of an example (tsx starts a child): a connection to anything but the
// loopback throws, and says so on stderr even if the example catches the error.
const GUARD_MESSAGE = 'run-examples: a connection to';
const scratch = mkdtempSync(join(tmpdir(), 'graphcloud-examples-'));
const guard = join(scratch, 'loopback-only.mjs');
writeFileSync(
  guard,
  `import net from 'node:net';
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  const host = options.host ?? 'localhost';
  if (options.path === undefined && !['127.0.0.1', 'localhost', '::1'].includes(host)) {
    const message = '${GUARD_MESSAGE} ' + host + ':' + options.port + ' was refused; examples must stay on 127.0.0.1';
    process.stderr.write(message + '\\n');
    throw new Error(message);
  }
  return connect.apply(this, args);
};
`,
);

/** Runs one example in its own folder; resolves with its exit code, output, time and written files. */
function run(name) {
  const cwd = mkdtempSync(join(scratch, `${name.replace(/\.ts$/, '')}-`));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, NODE_OPTIONS: `--import=${pathToFileURL(guard).href}` };
  if (process.env.SystemRoot) env.SystemRoot = process.env.SystemRoot; // Windows needs it to start a process
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsx, join(root, 'examples', name)], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, TIME_LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ name, code, signal, timedOut, output, ms: Date.now() - started, written: listFiles(cwd).map((file) => relative(cwd, file)) });
    });
  });
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]));
}

const started = Date.now();
const queue = [...examples];
const results = [];
await Promise.all(
  Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const result = await run(name);
      results.push(result);
      const leaked = result.output.includes(GUARD_MESSAGE);
      const ok = result.code === 0 && !leaked;
      const why = result.timedOut ? `killed after ${TIME_LIMIT_MS / 1000} s` : leaked ? 'tried to leave 127.0.0.1' : `exit ${result.code ?? result.signal}`;
      const wrote = result.written.length > 0 ? `, wrote ${result.written.join(', ')}` : '';
      console.log(`${ok ? '✔' : '✖'} examples/${name.padEnd(22)} ${(result.ms / 1000).toFixed(1).padStart(5)} s  ${ok ? `exit 0${wrote}` : why}`);
      if (!ok) console.log(result.output.replace(/^/gm, '    │ '));
    }
  }),
);
rmSync(scratch, { recursive: true, force: true });
const failed = results.filter((result) => result.code !== 0 || result.output.includes(GUARD_MESSAGE));
console.log(`${results.length - failed.length}/${results.length} examples passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed.length > 0 ? 1 : 0);

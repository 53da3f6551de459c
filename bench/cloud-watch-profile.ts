/**
 * What the SDK's own code costs per socket frame, measured by V8's CPU profiler rather than by the
 * clock: the SDK round of `bench/cloud-watch-throughput.ts` (1,000 watchers, 200,000 queued
 * frames) runs under `--cpu-prof`, and the samples of its timed window (those after the client's
 * wait for the server) are summed by where they ran: the SDK's own functions, the SDK's
 * `JSON.parse` of each frame (`parseRecord`, which the raw socket pays too), and the rest (the
 * runtime's WebSocket, the event loop, the garbage collector). On a shared 2-core machine the
 * throughput ratio moves by 30 points from one round to the next with what else runs; the share
 * of the samples that fall in the SDK's own code moves far less, so two versions compare here.
 *
 * `--base <dir>` also profiles the SDK of another checkout (its `src/index.ts`), alternating
 * rounds. Needs `process.threadCpuUsage` (Node 23.9 and later), as the throughput bench does.
 * Run: `npx tsx bench/cloud-watch-profile.ts [--base ../other-checkout]` (`BENCH_ROUNDS`, default 5).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const root = fileURLToPath(new URL('..', import.meta.url));
const baseFlag = process.argv.indexOf('--base');
const base = baseFlag > 0 ? path.resolve(process.argv[baseFlag + 1] ?? '') : undefined;
const dir = mkdtempSync(path.join(tmpdir(), 'graphcloud-profile-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

interface Round {
  contender: string;
  windowMs: number;
  ownMs: number;
  parseMs: number;
  /** The SDK's own time by function, in ms. */
  byFunction: Map<string, number>;
}

/** Bundles a checkout's SDK as the throughput bench does (as tsup compiles the package). */
async function bundle(checkout: string, name: string): Promise<string> {
  const outfile = path.join(dir, `${name}.mjs`);
  await build({ entryPoints: [path.join(checkout, 'src/index.ts')], outfile, bundle: true, format: 'esm', platform: 'node', target: 'es2023', logLevel: 'error' });
  return outfile;
}

/** One SDK round under the profiler: the sums of its timed window, in ms. */
function profileRound(contender: string, sdkModule: string): Round {
  const out = mkdtempSync(path.join(dir, 'round-'));
  const args = ['--cpu-prof', `--cpu-prof-dir=${out}`, '--import', 'tsx', path.join(root, 'bench/cloud-watch-throughput.ts'), '--round', 'sdk'];
  const child = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, BENCH_SDK_MODULE: sdkModule }, stdio: ['ignore', 'pipe', 'inherit'] });
  if (child.status !== 0) throw new Error(`the ${contender} round exited with ${child.status}`);
  // One profile per thread: the client's is the one whose samples include the wait in `measure`.
  for (const file of readdirSync(out)) {
    const profile = JSON.parse(readFileSync(path.join(out, file), 'utf8')) as Profile;
    const round = sum(profile, contender, path.basename(sdkModule));
    if (round) return round;
  }
  throw new Error(`no profile of the ${contender} round's client thread`);
}

function sum(profile: Profile, contender: string, sdkFile: string): Round | undefined {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  // The window starts after the longest run of samples in `measure`: its `Atomics.wait` (the code
  // after the work, in `measure` too, takes a sample or two at the end).
  let start = -1;
  let longest = 0;
  let streak = 0;
  profile.samples.forEach((id, i) => {
    streak = frames.get(id)?.functionName === 'measure' ? streak + 1 : 0;
    if (streak > longest) [longest, start] = [streak, i];
  });
  if (start < 0) return undefined;
  let windowUs = 0;
  let ownUs = 0;
  let parseUs = 0;
  const byFunction = new Map<string, number>();
  for (let i = start + 1; i < profile.samples.length; i++) {
    const frame = frames.get(profile.samples[i] as number);
    const us = profile.timeDeltas[i] ?? 0;
    if (!frame || frame.functionName === '(idle)') continue;
    windowUs += us;
    if (!frame.url.endsWith(sdkFile)) continue;
    if (frame.functionName === 'parseRecord') {
      parseUs += us;
      continue;
    }
    ownUs += us;
    const name = frame.functionName || '(anonymous)';
    byFunction.set(name, (byFunction.get(name) ?? 0) + us / 1000);
  }
  return { contender, windowMs: windowUs / 1000, ownMs: ownUs / 1000, parseMs: parseUs / 1000, byFunction };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const contenders: [string, string][] = [['this checkout', await bundle(root, 'this')]];
if (base) contenders.push([`base (${path.basename(base)})`, await bundle(base, 'base')]);
const rounds: Round[] = [];
for (let i = 0; i < ROUNDS; i++) for (const [name, module] of contenders) rounds.push(profileRound(name, module));

const ms = (n: number) => `${Math.round(n)} ms`;
console.log('| round | SDK | CPU in the window | SDK\'s own code | its JSON.parse of the frames | own / JSON.parse |');
console.log('|---|---|---|---|---|---|');
rounds.forEach((r, i) => console.log(`| ${i + 1} | ${r.contender} | ${ms(r.windowMs)} | ${ms(r.ownMs)} | ${ms(r.parseMs)} | ${(r.ownMs / r.parseMs).toFixed(2)} |`));
console.log('');
console.log('| SDK | median own / JSON.parse | median share of the window in the SDK\'s own code | its costliest functions (ms per round) |');
console.log('|---|---|---|---|');
for (const [name] of contenders) {
  const mine = rounds.filter((r) => r.contender === name && r.parseMs > 0);
  const total = new Map<string, number>();
  for (const r of mine) for (const [fn, t] of r.byFunction) total.set(fn, (total.get(fn) ?? 0) + t / mine.length);
  const top = [...total].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([fn, t]) => `${fn} ${Math.round(t)}`).join(', ');
  console.log(`| ${name} | ${median(mine.map((r) => r.ownMs / r.parseMs)).toFixed(2)} | ${(100 * median(mine.map((r) => r.ownMs / r.windowMs))).toFixed(0)}% | ${top} |`);
}

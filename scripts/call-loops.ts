// Calls that go back into a caller (issue 33): how often the watch engine, while the SDK runs
// real flows against the simulator in this process, enters a method of an object whose class is
// still on the call stack with another class of the engine in between (A → B → … → A). Calls
// within one class are not counted.
//
// How: before the flows, every method, getter and setter (prototype and static) of every class
// exported by src/cloud/watch/*.ts, src/cloud/submit.ts and src/cloud/run-workflow.ts is wrapped,
// and so is every function property of a plain object they export (the `control` object of
// job-watcher.ts; frozen objects such as option rules cannot be and are listed as skipped). A
// wrapper calls the original with the same `this`, arguments, return value and throw; on entry it
// reads `new Error().stack` (the synchronous frames, then V8's `at async` frames of the callers
// awaiting) and gives each frame a class: the innermost exported class whose source text holds
// the frame's line (source-mapped by tsx; private `#` methods and closures, which no wrapper can
// reach, are found this way), the receiver V8 prints (`at Track.event`) when it is that class or
// a subclass of it, or the printed receiver alone when the frame is outside these modules (an
// eventemitter3 `emit` on a watcher). Other frames are left out. A function of a plain object
// belongs to the class whose source text builds the object (the one object literal with all its
// keys: `control` is JobWatcher's), else to the object's export name.
// A loop is counted when the entered object's class is not the class of the nearest classified
// caller frame but appears further down: the chain runs from that earlier frame to the entry
// ("JobRouter → Track → WatchHub → JobRouter"), marked "across an await" when the earlier frame
// is an awaiting caller rather than a synchronous one. A loop is seen only where it goes back in
// through a wrapped member: one whose way back in is a closure or a private method called from
// another class (a callback) is missed. Constructors and plain exported functions (`runWorkflow`)
// cannot be wrapped: they are seen in stacks only as frames without a class. The class set is read from the modules' exports, so the script runs
// unchanged when classes are renamed, split or removed.
//
// Flows, each on its own simulator and client: (a) `runWorkflow()` with an upload and
// `onProgress`, to completion over the socket; (b) `runWorkflow()` with an upload, its end
// messages dropped (`dropEndMessages`), settled by a status read; (c) `runWorkflow()` cancelled with
// `cloud.jobs.cancel()` once the run started; (d) two watchers of a running job, one with a
// 200 ms `waitTimeout`, one closed after 100 ms; (e) the socket dropped after the first executed
// node and refused until the run ends (`dropSocketsMidRun`), settled by a status read; (f) six
// slow runs watched without their submissions, read after each 250 ms silence one read at a time
// (the poll loops' one schedule timer and their gate). Prints a
// table of the chains per flow and how often each occurred, then a summary per flow; with
// `--stacks`, also the first stack of each chain, each frame with the class it was given.
// Run: npx tsx scripts/call-loops.ts [--stacks]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { CloudClient, type Workflow } from '../src/index.js';
import { encodePng, startSimulator, type Simulator, type SimulatorOptions } from '../src/testing/index.js';

Error.stackTraceLimit = 200;
/** The flow running now; calls are counted only during one. */
let flow: string | undefined;
/** Per flow: each loop chain, and how many times it occurred. */
const loops = new Map<string, Map<string, number>>();
/** Per flow: calls into wrapped members. */
const entries = new Map<string, number>();
/** With `--stacks`: the first stack of each chain. */
const examples = process.argv.includes('--stacks') ? new Map<string, string>() : undefined;
const root = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);
const MODULES = [
  ...readdirSync(join(root, 'src/cloud/watch'))
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => `src/cloud/watch/${name}`),
  'src/cloud/submit.ts',
  'src/cloud/run-workflow.ts',
];

type AnyClass = abstract new (...args: never[]) => unknown;
const isClass = (value: unknown): value is AnyClass => typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
const isPlainObject = (value: unknown): value is Record<PropertyKey, unknown> => typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

// ---- Which class a place in the source belongs to ----

interface ClassRange {
  name: string;
  start: number;
  end: number;
}
interface Source {
  file: ts.SourceFile;
  classes: ClassRange[];
}
const sources = new Map<string, Source | undefined>();

/** The classes declared in a file of src/ (parsed once), with their text ranges. */
function sourceOf(path: string): Source | undefined {
  if (sources.has(path)) return sources.get(path);
  let source: Source | undefined;
  if (path.startsWith(join(root, 'src/')) && path.endsWith('.ts')) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const found: ClassRange[] = [];
    const visit = (node: ts.Node): void => {
      if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name) found.push({ name: node.name.text, start: node.getStart(file), end: node.end });
      ts.forEachChild(node, visit);
    };
    visit(file);
    source = { file, classes: found };
  }
  sources.set(path, source);
  return source;
}

/** The innermost class of the set whose source text holds `pos` in `path`. */
function classAt(path: string, pos: number): string | undefined {
  let best: ClassRange | undefined;
  for (const range of sourceOf(path)?.classes ?? []) {
    if (classes.has(range.name) && range.start <= pos && pos < range.end && (!best || range.start > best.start)) best = range;
  }
  return best?.name;
}

function classAtLine(path: string, line: number, column: number): string | undefined {
  const source = sourceOf(path);
  if (!source) return undefined;
  const starts = source.file.getLineStarts();
  const start = starts[line - 1];
  if (start === undefined) return undefined;
  return classAt(path, start + column - 1);
}

/**
 * The class whose source text builds a plain object: the one object literal of the module with
 * every one of its function keys (the `control` object is written in JobWatcher's static block).
 */
function classOfObject(path: string, keys: readonly string[]): string | undefined {
  const source = sourceOf(path);
  if (!source) return undefined;
  const owners = new Set<string | undefined>();
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const names = new Set(node.properties.map((property) => (property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) ? property.name.text : undefined)));
      if (keys.every((key) => names.has(key))) owners.add(classAt(path, node.getStart(source.file)));
    }
    ts.forEachChild(node, visit);
  };
  visit(source.file);
  return owners.size === 1 ? [...owners][0] : undefined;
}

// ---- The wrapped classes and objects ----

const classes = new Map<string, AnyClass>();
const labelOfPrototype = new Map<object, string>();
const patched: string[] = [];
const skipped: string[] = [];
const namespaces: [string, Record<string, unknown>][] = [];
for (const module of MODULES) namespaces.push([module, (await import(pathToFileURL(join(root, module)).href)) as Record<string, unknown>]);
for (const [, namespace] of namespaces) {
  for (const value of Object.values(namespace)) {
    if (isClass(value)) {
      classes.set(value.name, value);
      labelOfPrototype.set(value.prototype as object, value.name);
    }
  }
}

/** True when class `sub` is `base` or extends it. */
function extendsOrIs(sub: string, base: string): boolean {
  const subClass = classes.get(sub);
  const baseClass = classes.get(base);
  return subClass !== undefined && baseClass !== undefined && (subClass === baseClass || subClass.prototype instanceof baseClass);
}

/** The class of the object a method is entered on: its own class, or the nearest one of the set up its prototype chain. */
function labelOfReceiver(receiver: unknown, fallback: string): string {
  if (typeof receiver === 'function') return classes.has(receiver.name) && classes.get(receiver.name) === receiver ? receiver.name : fallback;
  for (let proto = receiver === null || receiver === undefined ? null : Object.getPrototypeOf(receiver); proto; proto = Object.getPrototypeOf(proto)) {
    const label = labelOfPrototype.get(proto as object);
    if (label) return label;
  }
  return fallback;
}

function wrap(original: (...args: unknown[]) => unknown, label: (receiver: unknown) => string): (...args: unknown[]) => unknown {
  return function (this: unknown, ...args: unknown[]): unknown {
    if (flow) enter(label(this));
    return Reflect.apply(original, this, args);
  };
}

for (const [module, namespace] of namespaces) {
  for (const [exported, value] of Object.entries(namespace)) {
    if (isClass(value)) {
      let count = 0;
      for (const target of [value.prototype as object, value as object]) {
        for (const key of Reflect.ownKeys(target)) {
          if (key === 'constructor' || (target === value && (key === 'prototype' || key === 'length' || key === 'name'))) continue;
          const descriptor = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
          const where = `${value.name}${target === value ? '' : '.prototype'}.${String(key)}`;
          if (!descriptor.configurable) {
            skipped.push(`${where} (not configurable)`);
            continue;
          }
          const label = (receiver: unknown) => labelOfReceiver(receiver, value.name);
          if (typeof descriptor.value === 'function') descriptor.value = wrap(descriptor.value as (...args: unknown[]) => unknown, label);
          else if (descriptor.get || descriptor.set) {
            if (descriptor.get) descriptor.get = wrap(descriptor.get, label);
            if (descriptor.set) descriptor.set = wrap(descriptor.set as (...args: unknown[]) => unknown, label);
          } else continue;
          Object.defineProperty(target, key, descriptor);
          count++;
        }
      }
      patched.push(`${value.name} (${count})`);
    } else if (isPlainObject(value)) {
      const keys = Reflect.ownKeys(value).filter((key) => typeof value[key] === 'function');
      if (keys.length === 0) continue;
      if (Object.isFrozen(value)) {
        skipped.push(`${exported} of ${module} (frozen)`);
        continue;
      }
      const owner = classOfObject(join(root, module), keys.map(String)) ?? exported;
      for (const key of keys) value[key] = wrap(value[key] as (...args: unknown[]) => unknown, () => owner);
      patched.push(`${exported}.{${keys.map(String).join(', ')}} (as ${owner})`);
    }
  }
}

// ---- Counting ----

interface Frame {
  label: string | undefined;
  /** Found by its source text alone (a closure or private method: V8 printed no receiver of the set). */
  byPlace: boolean;
  async: boolean;
}

function parseFrame(line: string): Frame | undefined {
  const match = /^\s*at (async )?(.*)$/.exec(line);
  if (!match) return undefined;
  const rest = match[2] as string;
  const paren = rest.endsWith(')') ? rest.lastIndexOf(' (') : -1;
  let name = paren >= 0 ? rest.slice(0, paren) : '';
  const location = paren >= 0 ? rest.slice(paren + 2, -1) : rest;
  const isNew = name.startsWith('new ');
  if (isNew) name = name.slice(4);
  name = name.replace(/ \[as [^\]]*\]$/, '');
  const receiver = isNew ? name : name.includes('.') ? name.slice(0, name.indexOf('.')) : undefined;
  const place = /^(.*):(\d+):(\d+)$/.exec(location);
  const path = place ? (place[1]!.startsWith('file://') ? fileURLToPath(place[1] as string) : (place[1] as string)) : undefined;
  // The wrappers' own frames.
  if (path === self) return undefined;
  const inSet = receiver !== undefined && classes.has(receiver) ? receiver : undefined;
  const byPlace = path && place ? classAtLine(path, Number(place[2]), Number(place[3])) : undefined;
  const async = match[1] !== undefined;
  if (byPlace) return inSet && extendsOrIs(inSet, byPlace) ? { label: inSet, byPlace: false, async } : { label: byPlace, byPlace: true, async };
  return { label: inSet, byPlace: false, async };
}

interface Node {
  label: string;
  /** The topmost (latest) frame of this run of frames is an awaiting caller. */
  async: boolean;
}

/** The classes of the callers, consecutive frames of one class counted once, top (nearest) first. */
function callers(stack: string): Node[] {
  const frames = stack
    .split('\n')
    .slice(1)
    .map(parseFrame)
    .filter((frame): frame is Frame & { label: string } => frame?.label !== undefined);
  // A closure or private method of a base class run for a subclass (Track's ProgressTracker code) is the subclass's object.
  for (let i = frames.length - 2; i >= 0; i--) {
    const frame = frames[i] as Frame & { label: string };
    const below = frames[i + 1] as Frame & { label: string };
    if (frame.byPlace && below.label !== frame.label && extendsOrIs(below.label, frame.label)) frame.label = below.label;
  }
  const nodes: Node[] = [];
  for (const frame of frames) {
    if (nodes.at(-1)?.label !== frame.label) nodes.push({ label: frame.label, async: frame.async });
  }
  return nodes;
}

/** A stack's frames of src/ and of the classes, each with the class it was given. */
function annotated(entered: string, stack: string): string {
  const lines = [`  entering ${entered}:`];
  for (const line of stack.split('\n').slice(1)) {
    const frame = parseFrame(line);
    if (frame?.label !== undefined || line.includes(join(root, 'src/'))) lines.push(`  ${(frame?.label ?? '-').padEnd(18)} ${line.trim().replace(root, '')}`);
  }
  return lines.join('\n');
}

function enter(label: string): void {
  const name = flow as string;
  entries.set(name, (entries.get(name) ?? 0) + 1);
  const stack = new Error().stack ?? '';
  const nodes = callers(stack);
  if (nodes[0]?.label === label) return; // a call within one class
  const back = nodes.findIndex((node) => node.label === label);
  if (back < 0) return;
  const chain = [...nodes.slice(0, back + 1).map((node) => node.label).reverse(), label].join(' → ') + ((nodes[back] as Node).async ? ' (across an await)' : '');
  const counts = loops.get(name) ?? new Map<string, number>();
  counts.set(chain, (counts.get(chain) ?? 0) + 1);
  loops.set(name, counts);
  if (examples && !examples.has(chain)) examples.set(chain, annotated(label, stack));
}

// ---- The flows ----

const WATCHER: NonNullable<ConstructorParameters<typeof CloudClient>[0]>['watcher'] = {
  socket: { minDelayMs: 10, maxDelayMs: 40, idleCloseMs: 5, connectionTimeoutMs: 2_000 },
  poll: { minDelayMs: 100, maxDelayMs: 200, silenceMs: 5_000 },
};
const scale = (image: string, prefix: string): Workflow => ({
  '1': { class_type: 'LoadImage', inputs: { image } },
  '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 32, height: 0, crop: 'disabled' } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
});
const png = () => encodePng(16, 16, [10, 120, 200]);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(name: string, simulator: SimulatorOptions, body: (sim: Simulator, cloud: CloudClient) => Promise<void>, watcher = WATCHER): Promise<void> {
  const sim = await startSimulator(simulator);
  const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, watcher });
  flow = name;
  entries.set(name, 0);
  try {
    await body(sim, cloud);
    // What the flow set going after it settled (the record reads of a finish, the idle close).
    await pause(100);
  } finally {
    flow = undefined;
    await cloud.close();
    await sim.close();
  }
}

const FLOWS = {
  a: '(a) runWorkflow() to completion over the socket',
  b: '(b) end messages dropped, settled by a status read',
  c: '(c) cloud.jobs.cancel() while it runs',
  d: '(d) one watcher times out, one is closed',
  e: '(e) socket dropped mid-run, settled by a status read',
  f: '(f) 6 silent runs read after their silence, one read at a time',
};

await run(FLOWS.a, { stepDelayMs: 1, progressSteps: 2 }, async (_sim, cloud) => {
  const result = await cloud.runWorkflow(scale('placeholder.png', 'a'), { uploads: { '1.image': png() }, onProgress: () => undefined });
  if (result.status !== 'completed' || result.via !== 'socket') throw new Error(`flow (a) ended ${result.status} via ${result.via}`);
});

await run(FLOWS.b, { stepDelayMs: 1, progressSteps: 2 }, async (sim, cloud) => {
  const rule = sim.faults.dropEndMessages({ times: 1 });
  const result = await cloud.runWorkflow(scale('placeholder.png', 'b'), { uploads: { '1.image': png() } });
  if (rule.hits !== 1 || result.via !== 'poll') throw new Error(`flow (b) ended via ${result.via}, the fault took ${rule.hits} run(s)`);
});

await run(FLOWS.c, { stepDelayMs: 150, progressSteps: 2 }, async (_sim, cloud) => {
  let promptId = '';
  let cancelling: Promise<unknown> | undefined;
  const outcome = await cloud
    .runWorkflow(scale('placeholder.png', 'c'), {
      uploads: { '1.image': png() },
      onSubmitted: (job) => (promptId = job.promptId),
      onEvent: (event) => void (event.type === 'execution_start' && (cancelling ??= cloud.jobs.cancel(promptId))),
    })
    .catch((error: unknown) => (error as { result?: { status?: string } }).result?.status ?? error);
  await cancelling;
  if (outcome !== 'cancelled') throw new Error(`flow (c) ended ${String(outcome)}`);
});

await run(FLOWS.d, { stepDelayMs: 100, progressSteps: 4 }, async (_sim, cloud) => {
  const { name } = await cloud.files.upload(png(), { filename: 'd.png' });
  const { promptId } = await cloud.jobs.submit(scale(name, 'd'));
  const timed = cloud.jobs.watch(promptId, { waitTimeout: 200 });
  const closed = cloud.jobs.watch(promptId);
  setTimeout(() => closed.close(), 100);
  const outcomes = await Promise.all([timed.result(), closed.result()].map((result) => result.then(() => 'settled', (error: unknown) => (error as Error).name)));
  if (outcomes.join() !== 'TimeoutError,WatcherClosedError') throw new Error(`flow (d) ended ${outcomes.join(', ')}`);
});

await run(FLOWS.e, { stepDelayMs: 1, progressSteps: 2 }, async (sim, cloud) => {
  sim.faults.set({ dropSocketsMidRun: true });
  const result = await cloud.runWorkflow(scale('placeholder.png', 'e'), { uploads: { '1.image': png() } });
  if (result.status !== 'completed' || result.via !== 'poll') throw new Error(`flow (e) ended ${result.status} via ${result.via}`);
});

await run(
  FLOWS.f,
  { stepDelayMs: 200, progressSteps: 1 },
  async (_sim, cloud) => {
    const { name } = await cloud.files.upload(png(), { filename: 'f.png' });
    const jobs = await Promise.all(Array.from({ length: 6 }, (_, i) => cloud.jobs.submit(scale(name, `f${i}`))));
    // Watched without their submissions: each is read when the socket opens, then after every
    // silence (the schedule's timer), one read at a time (the gate hands the place on).
    await Promise.all(jobs.map(({ promptId }) => cloud.jobs.watch(promptId).result()));
    if (cloud.jobs.stats().polls < 12) throw new Error(`flow (f) read ${cloud.jobs.stats().polls} times`);
  },
  { ...WATCHER, poll: { ...WATCHER?.poll, silenceMs: 250, concurrency: 1 } },
);

// ---- The tables ----

if ((entries.get(FLOWS.a) ?? 0) === 0) throw new Error('No wrapped method was entered: the modules imported here are not the ones the SDK runs.');
console.log(`Modules: ${MODULES.join(', ')}`);
console.log(`Wrapped (members per class): ${patched.join(', ')}`);
if (skipped.length > 0) console.log(`Not wrapped: ${skipped.join(', ')}`);
console.log('\n| flow | loop chain (call order) | times |\n|---|---|---|');
let total = 0;
for (const name of Object.values(FLOWS)) {
  const counts = [...(loops.get(name) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (counts.length === 0) console.log(`| ${name} | (none) | 0 |`);
  for (const [chain, times] of counts) {
    console.log(`| ${name} | ${chain} | ${times} |`);
    total += times;
  }
}
console.log(`| **total** | | **${total}** |`);
console.log('\n| flow | calls into wrapped members | loops | distinct chains |\n|---|---|---|---|');
for (const name of Object.values(FLOWS)) {
  const counts = [...(loops.get(name) ?? new Map<string, number>()).values()];
  console.log(`| ${name} | ${entries.get(name) ?? 0} | ${counts.reduce((sum, n) => sum + n, 0)} | ${counts.length} |`);
}
const all = new Set(Object.values(FLOWS).flatMap((name) => [...(loops.get(name)?.keys() ?? [])]));
console.log(`| **all flows** | ${[...entries.values()].reduce((sum, n) => sum + n, 0)} | ${total} | ${all.size} |`);
if (examples) for (const [chain, stack] of examples) console.log(`\n${chain}\n${stack}`);

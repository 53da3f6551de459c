import { Limiter, own } from '../../core/index.js';
import type { FileRef, NodeOutput, OutputFileRef } from './types.js';

/**
 * Every file reference (`{filename, subfolder?, type?}`) in an outputs map, in node order.
 * Entries of other shapes (text, numbers, node-pack specifics) are skipped.
 *
 * @example
 * ```ts
 * for (const { nodeId, ref } of listOutputFiles(result.outputs)) console.log(nodeId, ref.filename);
 * ```
 */
export function listOutputFiles(outputs: Record<string, NodeOutput>): OutputFileRef[] {
  const items = Object.entries(outputs).flatMap(([nodeId, output]) =>
    Object.entries(output).flatMap(([kind, list]) =>
      (Array.isArray(list) ? list : []).map((item) => ({ nodeId, kind, ref: toFileRef(item) })),
    ),
  );
  return items.filter((item): item is OutputFileRef => item.ref !== undefined);
}

/** Output files fetched or written at once (`runWorkflow({ download: true })`, `saveOutputs()`). */
const FILE_CONCURRENCY = 4;

/**
 * Runs `task` for each output file, a few at a time: the first failure aborts the signal the others
 * were given, and rejects.
 *
 * @example
 * ```ts
 * const sizes = await eachFile(listOutputFiles(outputs), async ({ ref }, signal) => (await get(ref, signal)).byteLength, signal);
 * ```
 */
export async function eachFile<F, T>(files: F[], task: (file: F, signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T[]> {
  const stop = new AbortController();
  const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const limiter = new Limiter(FILE_CONCURRENCY);
  try {
    return await Promise.all(files.map((file) => limiter.run(() => task(file, both), both)));
  } catch (error) {
    stop.abort(error);
    throw error;
  }
}

/**
 * A prototype-free map for data from the wire: a node id or output kind named `__proto__` is a
 * key like any other, never the object's prototype.
 *
 * @example
 * ```ts
 * const outputs = wireMap<NodeOutput>();
 * ```
 */
export function wireMap<T>(...sources: (Readonly<Record<string, T>> | undefined)[]): Record<string, T> {
  // Object.assign defines a `__proto__` key as an own property of a target without a prototype.
  return Object.assign(Object.create(null) as Record<string, T>, ...sources);
}

/**
 * Adds one `executed` output to the outputs of a job (a map from `wireMap()`). A node that runs
 * more than once (lists, loops) keeps every item: lists are concatenated.
 *
 * @example
 * ```ts
 * mergeOutput(outputs, '9', { images: [{ filename: 'b.png' }] });
 * ```
 */
export function mergeOutput(outputs: Record<string, NodeOutput>, nodeId: string, output: NodeOutput): void {
  const existing = own(outputs, nodeId) ?? wireMap<unknown>();
  outputs[nodeId] = existing;
  for (const [kind, value] of Object.entries(output)) {
    const previous = existing[kind];
    if (Array.isArray(previous) && Array.isArray(value)) appendNew(previous, value);
    // Lists are copied: they grow in place later, and the message's own data went to listeners.
    else existing[kind] = Array.isArray(value) ? [...value] : value;
  }
}

// The keys of the items of each merged list, kept beside it: each `executed` message costs its
// own size, not the size of everything merged before (that made 20,000 messages on one node take
// 107 s in 0.1.0).
const itemKeys = new WeakMap<unknown[], Set<string>>();

function appendNew(list: unknown[], next: readonly unknown[]): void {
  let keys = itemKeys.get(list);
  if (!keys) {
    keys = new Set(list.map(keyOf));
    itemKeys.set(list, keys);
  }
  for (const item of next) {
    const key = keyOf(item);
    if (keys.has(key)) continue;
    keys.add(key);
    list.push(item);
  }
}

function keyOf(item: unknown): string {
  try {
    return JSON.stringify(item) ?? String(item);
  } catch {
    // A value JSON cannot write (a cycle cannot come from the wire, but be safe): never merged away.
    return `\u0000${Math.random()}`;
  }
}

/**
 * Reads a file reference (`{filename, subfolder?, type?}`, an output list's item or a listed job's
 * preview); `undefined` for anything else.
 *
 * @example
 * ```ts
 * toFileRef({ filename: 'a.png' }); // { filename: 'a.png', subfolder: '', type: 'output' }
 * ```
 */
export function toFileRef(item: unknown): FileRef | undefined {
  if (!item || typeof item !== 'object') return undefined;
  const { filename, subfolder, type } = item as Record<string, unknown>;
  if (typeof filename !== 'string' || filename === '') return undefined;
  return { filename, subfolder: typeof subfolder === 'string' ? subfolder : '', type: typeof type === 'string' ? type : 'output' };
}

// Hostile socket frames fed to a real CloudClient watch by a raw `ws` server on 127.0.0.1: JSON of
// every message type with hostile data (`__proto__` keys, wrong types, deep nesting, the key
// echoed), text that is not JSON, binary frames of every type with lying lengths and hostile
// metadata, and closes with any code and reason. The watch settles (the run's end follows the
// frames) with a result or an exported SDK error; no built-in prototype changes; no credential in
// the result, the error or any event; the hold buffer stays within its byte bound.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { CloudClient } from '../../src/index.js';
import { ECHO, echoed, expectBuiltinsUnchanged, expectNoSecret, expectSdkError, hostileJson, hostileString, isObjectTree, params, renderings, snapshotBuiltins, toJsonText, type JsonTree } from './helpers.js';

const KEY = 'sk-fuzz-socket-key-4e6a8c0b';
const HOLD_BYTES = 256 * 1024;
/** Previews of unclaimed prompts are held apart, in their own bound: the most held is the sum. */
const HOLD_PREVIEW_BYTES = 128 * 1024;
const TYPES = ['status', 'execution_start', 'execution_cached', 'executing', 'progress', 'progress_state', 'executed', 'execution_success', 'execution_error', 'execution_interrupted', 'notification', 'feature_flags', 'logs', 'crystools.monitor'];
const DATA_FIELDS = ['prompt_id', 'node', 'display_node', 'output', 'value', 'max', 'nodes', 'timestamp', 'exception_message', 'exception_type', 'traceback', 'node_id', 'node_type', 'images', 'text', 'filename', 'status', 'exec_info', 'queue_remaining', 'sid', 'executed'];
const META_FIELDS = ['prompt_id', 'node_id', 'display_node_id', 'image_type'];

/** Whose frame it is: the watched prompt, another one (held), or none. */
type Owner = 'mine' | 'other' | 'none' | 'hostile';
type Frame = { kind: 'text'; text: string } | { kind: 'json'; type: string; owner: Owner; data: JsonTree } | { kind: 'binary'; bytes: Uint8Array } | { kind: 'preview'; type: number; second: number | undefined; head: JsonTree | string; owner: Owner; tail: string };
interface Close {
  code: number;
  reason: string;
}

const owner = fc.constantFrom<Owner>('mine', 'mine', 'other', 'none', 'hostile');
const frame: fc.Arbitrary<Frame> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('json' as const), type: fc.oneof(fc.constantFrom(...TYPES), hostileString), owner, data: hostileJson(DATA_FIELDS, 3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('text' as const), text: fc.oneof(fc.string(), hostileJson(DATA_FIELDS).map(toJsonText)) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('binary' as const), bytes: fc.uint8Array({ maxLength: 48 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('preview' as const),
      type: fc.constantFrom(1, 2, 3, 4, 4, 5, 0xffffffff),
      // The second integer: a format, or a length that may lie (undefined: the true length).
      second: fc.option(fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom(0xffffffff, 2 ** 31), fc.integer({ min: 0, max: 200 })), { nil: undefined, freq: 2 }),
      head: fc.oneof(hostileJson(META_FIELDS, 2), hostileString),
      owner,
      tail: fc.oneof(hostileString, fc.constant(ECHO)),
    }),
  },
);
const close: fc.Arbitrary<Close | undefined> = fc.option(
  fc.record({ code: fc.constantFrom(1000, 1001, 1011, 1012, 3000, 4000, 4001, 4403, 4999), reason: fc.constantFrom('', 'bye', `key ${ECHO}`) }),
  { nil: undefined, freq: 6 },
);

/** A prompt id for an owner; `hostile` ones are not strings, or name the prototype. */
function promptIdOf(who: Owner, mine: string, run: number): JsonTree | undefined {
  if (who === 'mine') return mine;
  if (who === 'other') return `other-${run % 7}`;
  if (who === 'hostile') return [['__proto__'], 42, null, { entries: [['__proto__', { entries: [['polluted', true]] }]] }, ECHO][run % 5] as JsonTree;
  return undefined;
}

const encoder = new TextEncoder();
const u32 = (value: number): Uint8Array => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value >>> 0);
  return bytes;
};
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** The wire form of a frame, with the key echoed where the frame says so. */
function encode(f: Frame, mine: string, run: number): string | Uint8Array {
  const echo = (text: string) => echoed(text, KEY);
  switch (f.kind) {
    case 'text':
      return echo(f.text);
    case 'binary':
      return f.bytes;
    case 'json': {
      const id = promptIdOf(f.owner, mine, run);
      const data = isObjectTree(f.data) ? { entries: [...f.data.entries] } : { entries: [['value', f.data] as [string, JsonTree]] };
      if (id !== undefined) data.entries.splice(run % (data.entries.length + 1), 0, ['prompt_id', id]);
      return echo(toJsonText({ entries: [['type', f.type], ['data', data]] }));
    }
    case 'preview': {
      const id = promptIdOf(f.owner, mine, run);
      let head = f.head;
      if (f.type === 4 && typeof head !== 'string' && isObjectTree(head) && id !== undefined) head = { entries: [...head.entries, ['prompt_id', id]] };
      const headBytes = encoder.encode(echo(typeof head === 'string' ? head : toJsonText(head)));
      const second = f.second ?? (f.type === 1 ? 2 : headBytes.length);
      return concat(u32(f.type), u32(second), f.type === 1 ? new Uint8Array(0) : headBytes, encoder.encode(echo(f.tail)));
    }
  }
}

let http: Server;
let wss: WebSocketServer;
let cloud: CloudClient;
const connections: WebSocket[] = [];
let onConnection: (() => void) | undefined;

beforeAll(async () => {
  wss = new WebSocketServer({ noServer: true });
  http = createServer((req, res) => {
    // The status route says "running": only the socket ends a run. Output routes know nothing.
    const running = /^\/api\/job\/[^/]+\/status$/.test(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(running ? 200 : 404, { 'content-type': 'application/json' });
    res.end(running ? '{"status":"in_progress"}' : '{"message":"Not Found"}');
  });
  http.on('upgrade', (req: IncomingMessage, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => undefined);
      connections.push(ws);
      onConnection?.();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  cloud = new CloudClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: KEY,
    runtime: 'cloud',
    retry: false,
    watcher: { hold: { maxBytes: HOLD_BYTES, maxPreviewBytes: HOLD_PREVIEW_BYTES }, socket: { minDelayMs: 10, maxDelayMs: 20, idleCloseMs: 60_000 }, poll: { minDelayMs: 100, maxDelayMs: 200, silenceMs: 60_000 } },
  });
});

afterAll(async () => {
  await cloud.close();
  for (const ws of connections) ws.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

/** The server side of the client's current socket, once it is open. */
async function liveSocket(): Promise<WebSocket> {
  for (;;) {
    const last = connections.at(-1);
    if (last && last.readyState === last.OPEN) return last;
    await new Promise<void>((resolve) => (onConnection = resolve));
  }
}

function send(ws: WebSocket, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => ws.send(data, { binary: typeof data !== 'string' }, () => resolve()));
}

/** Memory in use: the heap and the array buffers (binary frames live outside the heap). */
function used(): number {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** Settles within `ms`, or fails naming a hang. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`hang: ${what} not settled within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

describe('cloud.jobs.watch(): the key echoed in a binary frame', () => {
  it('is scrubbed from the text of a type 3 frame and the metadata of a type 4 preview, as from text frames', async () => {
    const promptId = 'echo-binary';
    const events: unknown[] = [];
    const watcher = cloud.jobs.watch(promptId);
    watcher.onEvent((event) => void events.push(event));
    const ws = await bounded(liveSocket(), 5_000, 'the socket');
    await send(ws, JSON.stringify({ type: 'execution_start', data: { prompt_id: promptId } }));
    await send(ws, encode({ kind: 'preview', type: 3, second: undefined, head: `node ${ECHO}`, owner: 'none', tail: `traceback: token=${ECHO}` }, promptId, 0));
    await send(ws, encode({ kind: 'preview', type: 4, second: undefined, head: { entries: [['node_id', ECHO], ['display_node_id', `${ECHO}!`], ['image_type', ECHO]] }, owner: 'mine', tail: 'png' }, promptId, 0));
    await send(ws, JSON.stringify({ type: 'execution_success', data: { prompt_id: promptId } }));
    await bounded(watcher.result(), 5_000, 'the result');
    expect(events.map((e) => (e as { type: string }).type)).toEqual(['execution_start', 'text', 'preview', 'execution_success', 'job_progress']);
    expect(renderings(events)).toContain('[REDACTED]');
    expectNoSecret(events, [KEY]);
  });
});

describe('the socket against a flood of large frames', () => {
  it('holds at most its byte bounds for unclaimed prompts, and the heap does not grow with the flood', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const watcher = cloud.jobs.watch('flood-watch');
    const result = watcher.result().catch((e: unknown) => e);
    const ws = await bounded(liveSocket(), 5_000, 'the socket');
    gc?.();
    const before = used();
    const blob = 'x'.repeat(1024 * 1024);
    // 256 MiB of messages for prompts nobody claims, 64 MiB of their previews, and previews of the watched one.
    for (let i = 0; i < 256; i++) {
      await send(ws, JSON.stringify({ type: 'executed', data: { prompt_id: `flood-${i % 16}`, node: '1', output: { text: [blob] } } }));
      if (i % 4 === 0) await send(ws, encode({ kind: 'preview', type: 4, second: undefined, head: { entries: [] }, owner: 'mine', tail: blob }, `flood-${i % 16}`, i));
      if (i % 32 === 0) await send(ws, encode({ kind: 'preview', type: 4, second: undefined, head: { entries: [] }, owner: 'mine', tail: blob }, 'flood-watch', i));
    }
    await send(ws, JSON.stringify({ type: 'execution_success', data: { prompt_id: 'flood-watch' } }));
    await bounded(result, 10_000, 'the result');
    gc?.();
    expect(cloud.jobs.stats().heldBytes).toBeLessThanOrEqual(HOLD_BYTES + HOLD_PREVIEW_BYTES);
    expect(used() - before).toBeLessThan(64 * 1024 * 1024);
    // 320 MiB through a real socket: a loaded 2-core machine took more than the suite's 20 s once.
  }, 90_000);
});

describe('a watcher iterated by a consumer that stalls, against a flood of previews', () => {
  it('buffers a bounded amount: the heap does not grow with the flood', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const watcher = cloud.jobs.watch('stalled-consumer');
    const iterator = watcher[Symbol.asyncIterator]();
    // The consumer takes one event, then stalls (a slow upload, a paused UI) and takes no more.
    const first = iterator.next();
    const ws = await bounded(liveSocket(), 5_000, 'the socket');
    gc?.();
    const before = used();
    const image = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 192; i++) await send(ws, encode({ kind: 'preview', type: 4, second: undefined, head: { entries: [] }, owner: 'mine', tail: image }, 'stalled-consumer', i));
    await send(ws, JSON.stringify({ type: 'execution_success', data: { prompt_id: 'stalled-consumer' } }));
    await bounded(watcher.result(), 10_000, 'the result');
    expect((await first).done).toBe(false);
    gc?.();
    const grown = used() - before;
    await iterator.return?.();
    expect(grown).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('cloud.jobs.watch() against hostile socket frames', () => {
  it('settles with a result or an SDK error; no prototype changed; no credential in results, errors or events; the hold buffer bounded', async () => {
    let run = 0;
    let settledBySocket = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { maxLength: 12 }), close, async (frames, closing) => {
        run++;
        const promptId = `p-${run}`;
        const before = snapshotBuiltins();
        const events: unknown[] = [];
        const watcher = cloud.jobs.watch(promptId, { waitTimeout: 20_000 });
        watcher.onEvent((event) => void events.push(event));
        let settled = false;
        const result = watcher.result().then(
          (value) => ({ value, error: undefined }),
          (error: unknown) => ({ value: undefined, error }),
        ).finally(() => (settled = true));
        // A close the previous run sent may refuse this watch before any socket opens.
        const ws = await bounded(Promise.race([liveSocket(), result.then(() => undefined)]), 5_000, 'the socket or the result');
        if (ws) {
          for (const f of frames) await send(ws, encode(f, promptId, run));
          if (closing) {
            ws.close(closing.code, echoed(closing.reason, KEY));
            // Unless the close refused the credential, the client reconnects; the run ends there.
            await bounded(Promise.race([result, liveSocket().then((next) => (next === ws ? undefined : next))]), 5_000, 'the result or a reconnect after a close');
          }
        }
        const end = settled ? undefined : await bounded(Promise.race([liveSocket(), result.then(() => undefined)]), 5_000, 'the socket for the end');
        if (end) {
          await send(end, JSON.stringify({ type: 'execution_success', data: { prompt_id: promptId, timestamp: 1 } }));
          await send(end, JSON.stringify({ type: 'executing', data: { node: null, prompt_id: promptId } }));
          settledBySocket++;
        }
        const { value, error } = await bounded(result, 10_000, 'the result');
        if (error !== undefined) expectSdkError(error);
        else expect(['completed', 'failed', 'cancelled']).toContain(value?.status);
        expectBuiltinsUnchanged(before);
        expectNoSecret([value, error, ...events, cloud, cloud.jobs.stats()], [KEY]);
        expect(cloud.jobs.stats().heldBytes).toBeLessThanOrEqual(HOLD_BYTES + HOLD_PREVIEW_BYTES);
      }),
      params(400),
    );
    expect(settledBySocket).toBeGreaterThan(0);
  }, 300_000);
});

import { getEventListeners } from 'node:events';
import { http, HttpResponse, ws } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, PermissionDeniedError, TimeoutError } from '../../../src/core/index.js';
import { CloudClient, WatcherClosedError, type WatchEvent } from '../../../src/index.js';
import { type CloudClientOptions } from '../../../src/cloud/client.js';
import { useMsw } from '../../helpers/msw.js';
import { step, NoSocket } from '../helpers.js';

const BASE = 'https://cloud.test';
const KEY = 'sk-watch-secret-1234';
const { server, seen } = useMsw();
const link = ws.link('wss://cloud.test/ws');

type Peer = Parameters<Parameters<typeof link.addEventListener<'connection'>>[1]>[0]['client'];

const POLICY: CloudClientOptions['watcher'] = {
  socket: { minDelayMs: 100, maxDelayMs: 1_000, growFactor: 2, idleCloseMs: 500, connectionTimeoutMs: 1_000 },
  poll: { silenceMs: 5_000, minDelayMs: 200, maxDelayMs: 1_000 },
};

let cloud: CloudClient | undefined;
const peers: Peer[] = [];
const closes: number[] = [];

function connect(onPeer: (peer: Peer) => void = () => undefined) {
  server.use(
    link.addEventListener('connection', ({ client }) => {
      peers.push(client);
      client.addEventListener('close', () => closes.push(peers.indexOf(client)));
      onPeer(client);
    }),
  );
}

function make(options: Partial<CloudClientOptions> = {}): CloudClient {
  cloud = new CloudClient({ baseUrl: BASE, apiKey: KEY, watcher: POLICY, retry: false, ...options });
  return cloud;
}

const send = (peer: Peer | undefined, type: string, data: Record<string, unknown>) => peer?.send(JSON.stringify({ type, data }));
const frame = (...parts: (number[] | Uint8Array | string)[]): ArrayBuffer => {
  const chunks = parts.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : p instanceof Uint8Array ? p : uint32(...p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out.buffer;
};
function uint32(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint32(i * 4, v));
  return out;
}
const tick = (ms = 0) => vi.advanceTimersByTimeAsync(ms);
const statusCalls = () => seen.filter((r) => r.url.pathname.endsWith('/status')).length;
/**
 * Lets real macrotasks run, without moving the fake clock, until `done()` holds (at most 5 s of
 * real time): the mock socket delivers some events on timers of its own, which a loaded machine
 * runs late, so a test that times a reconnect from a close first waits for the close.
 */
async function until(done: () => boolean): Promise<void> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > 5_000) throw new Error('until(): the condition did not hold within 5 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeEach(() => {
  // A job watched without a submission is polled once when the socket opens: in flight by default.
  server.use(http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ status: 'executing' })));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  peers.length = 0;
  closes.length = 0;
});
afterEach(async () => {
  await cloud?.close();
  cloud = undefined;
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('cloud.jobs.watch()', () => {
  it('routes messages by prompt_id and collects outputs by node id', async () => {
    connect();
    const cloud = make();
    const a = cloud.jobs.watch('a');
    const b = cloud.jobs.watch('b');
    const progress: string[] = [];
    a.on('progress', (p) => progress.push(`a ${p.value}/${p.max}`));
    b.on('progress', (p) => progress.push(`b ${p.value}/${p.max}`));
    await tick(10);
    expect(peers).toHaveLength(1);
    expect(peers[0]?.url.searchParams.get('token')).toBe(KEY);
    expect(peers[0]?.url.searchParams.get('clientId')).toBe(cloud.clientId);
    const peer = peers[0];
    send(peer, 'status', { status: { exec_info: { queue_remaining: 2 } }, sid: 'x' });
    send(peer, 'execution_start', { prompt_id: 'a' });
    send(peer, 'execution_start', { prompt_id: 'b' });
    send(peer, 'progress', { prompt_id: 'a', value: 1, max: 2, node: '3' });
    send(peer, 'progress', { prompt_id: 'b', value: 5, max: 9, node: '3' });
    send(peer, 'executed', { prompt_id: 'a', node: '3', output: { images: [{ filename: 'a1.png', subfolder: '', type: 'output' }] } });
    send(peer, 'executed', { prompt_id: 'a', node: '3', output: { images: [{ filename: 'a2.png', subfolder: '', type: 'output' }] } });
    send(peer, 'executed', { prompt_id: 'b', node: '7', output: { text: ['b'] } });
    send(peer, 'execution_success', { prompt_id: 'a' });
    send(peer, 'execution_error', { prompt_id: 'b', exception_message: 'bad', exception_type: 'ValueError', node_id: '7', node_type: 'X', timestamp: 1 });
    const [ra, rb] = await Promise.all([a.result(), b.result()]);
    expect(progress).toEqual(['a 1/2', 'b 5/9']);
    expect(ra).toEqual({
      promptId: 'a', status: 'completed', via: 'socket', outputsComplete: true, nodeErrors: {}, error: undefined,
      outputs: { '3': { images: [{ filename: 'a1.png', subfolder: '', type: 'output' }, { filename: 'a2.png', subfolder: '', type: 'output' }] } },
    });
    expect(rb).toMatchObject({ promptId: 'b', status: 'failed', outputs: { '7': { text: ['b'] } }, error: { message: 'bad', exceptionType: 'ValueError', nodeId: '7', nodeType: 'X' } });
    // One status poll per job watched without a submission (it may have ended before watch()).
    // msw records a request asynchronously: give the two polls time to be seen, then no more.
    for (let i = 0; i < 100 && statusCalls() < 2; i++) await tick(10);
    await tick(50);
    expect(statusCalls()).toBe(2);
  });

  it('yields typed events to for await and ends after the terminal message', async () => {
    connect((peer) => {
      send(peer, 'execution_start', { prompt_id: 'p' });
      send(peer, 'execution_cached', { prompt_id: 'p', nodes: [] });
      send(peer, 'progress_state', { prompt_id: 'p', nodes: { '1': { value: 0, max: 1, state: 'running' } } });
      send(peer, 'executing', { prompt_id: 'p', node: '1', display_node: '1' });
      send(peer, 'notification', { value: 'hello' });
      send(peer, 'execution_error', { prompt_id: 'p', exception_type: 'ExecutionBlocked', exception_message: 'Execution Blocked: x', node_id: '2' });
      send(peer, 'execution_success', { prompt_id: 'p' });
    });
    const events: string[] = [];
    const iterate = (async () => {
      for await (const event of make().jobs.watch('p')) events.push(event.type);
    })();
    await tick(10);
    await iterate;
    expect(events).toEqual(['execution_start', 'execution_cached', 'progress_state', 'executing', 'job_progress', 'notification', 'execution_blocked', 'execution_success', 'job_progress']);
  });

  it('reads the job when executing {node: null} closes a run without its end message, and ends as the record says', async () => {
    // The first read (a job watched without a submission) and the first read after the close
    // find it running: the record lags. It is read again on the poll backoff, not after a silence.
    const answers = ['executing', 'executing', 'failed'];
    let reads = 0;
    server.use(
      http.get(`${BASE}/api/job/p/status`, () => {
        const status = answers[Math.min(reads++, answers.length - 1)];
        return HttpResponse.json({ status, error_message: status === 'failed' ? 'boom' : undefined });
      }),
      http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ outputs: {} })),
    );
    connect();
    const watcher = make().jobs.watch('p');
    for (let i = 0; i < 100 && reads === 0; i++) await tick(10);
    await tick(10);
    send(peers[0], 'execution_start', { prompt_id: 'p' });
    send(peers[0], 'executing', { prompt_id: 'p', node: null });
    for (let i = 0; i < 100 && reads < 2; i++) await tick(10);
    expect(watcher.settled).toBe(false);
    await step(1_000);
    expect(watcher.settled).toBe(true);
    await expect(watcher.result()).resolves.toMatchObject({ status: 'failed', via: 'poll', error: { message: 'boom' } });
    expect(reads).toBe(3);
  });

  it('decodes binary frames 1, 3 and 4, and ignores and counts unknown or broken frames', async () => {
    connect();
    const cloud = make();
    const watcher = cloud.jobs.watch('p');
    const seenEvents: WatchEvent[] = [];
    watcher.onEvent((e) => seenEvents.push(e));
    await tick(10);
    const peer = peers[0];
    send(peer, 'executing', { prompt_id: 'p', node: '5' });
    peer?.send(frame([1, 2], new Uint8Array([137, 80])));
    peer?.send(frame([1, 1], new Uint8Array([255, 216])));
    peer?.send(frame([3, 1], '5', 'Task ID: 42'));
    const meta = new TextEncoder().encode(JSON.stringify({ node_id: '6', prompt_id: 'p', display_node_id: '6', image_type: 'image/jpeg' }));
    peer?.send(frame([4, meta.length], meta, new Uint8Array([255, 216, 1])));
    peer?.send(frame([99, 7], 'unknown type'));
    peer?.send(new Uint8Array([0, 1]).buffer);
    peer?.send(frame([3, 1000], 'x'));
    peer?.send(frame([1, 7], new Uint8Array([1])));
    peer?.send('{"type": "progress", "data": {');
    peer?.send(JSON.stringify({ type: 'crystools.monitor', data: { cpu: 1 } }));
    peer?.send(JSON.stringify({ type: 'executing' }));
    peer?.send(JSON.stringify([1, 2]));
    await tick(10);
    const binary = seenEvents.filter((e) => e.type === 'preview' || e.type === 'text').map((e) => ({ type: e.type, ...e.data, data: e.data.data instanceof Uint8Array ? [...e.data.data] : e.data.data }));
    expect(binary).toEqual([
      { type: 'preview', promptId: 'p', mimeType: 'image/png', data: [137, 80] },
      { type: 'preview', promptId: 'p', mimeType: 'image/jpeg', data: [255, 216] },
      { type: 'text', promptId: 'p', nodeId: '5', mimeType: 'text/plain', data: 'Task ID: 42' },
      { type: 'preview', promptId: 'p', nodeId: '6', displayNodeId: '6', mimeType: 'image/jpeg', data: [255, 216, 1] },
    ]);
    expect(cloud.jobs.stats().ignored).toBe(8);
    expect(watcher.settled).toBe(false);
  });

  it('holds messages of a prompt not yet known and delivers them in order once watched', async () => {
    connect();
    const cloud = make();
    const first = cloud.jobs.watch('other');
    await tick(10);
    send(peers[0], 'execution_start', { prompt_id: 'late' });
    send(peers[0], 'executed', { prompt_id: 'late', node: '1', output: { text: ['x'] } });
    send(peers[0], 'execution_success', { prompt_id: 'late' });
    await tick(10);
    expect(cloud.jobs.stats().held).toBe(3);
    const events: string[] = [];
    const late = cloud.jobs.watch('late');
    late.onEvent((e) => events.push(e.type));
    await expect(late.result()).resolves.toMatchObject({ status: 'completed', outputs: { '1': { text: ['x'] } }, outputsComplete: true });
    expect(events).toEqual(['execution_start', 'executed', 'job_progress', 'execution_success', 'job_progress']);
    first.close();
  });

  it('closes the socket after the idle delay once the last job is released by break', async () => {
    connect((peer) => send(peer, 'execution_start', { prompt_id: 'p' }));
    const cloud = make();
    for await (const event of cloud.jobs.watch('p')) {
      if (event.type === 'execution_start') break;
    }
    expect(closes).toEqual([]);
    await tick(499);
    expect(closes).toEqual([]);
    await tick(1);
    expect(closes).toEqual([0]);
    // A new job opens a new socket.
    cloud.jobs.watch('q');
    await tick(10);
    expect(peers).toHaveLength(2);
  });

  it('settles: timeout, abort and close', async () => {
    connect();
    const cloud = make();
    const controller = new AbortController();
    const timed = cloud.jobs.watch('t', { waitTimeout: 1_000 });
    const aborted = cloud.jobs.watch('a', { signal: controller.signal, waitTimeout: false });
    const closed = cloud.jobs.watch('c', { waitTimeout: false });
    await tick(10);
    controller.abort(new Error('stop'));
    closed.close();
    await tick(1_000);
    await expect(timed.result()).rejects.toBeInstanceOf(TimeoutError);
    await expect(timed.result()).rejects.toMatchObject({ submitted: { kind: 'job', promptId: 't' } });
    await expect(aborted.result()).rejects.toThrow('stop');
    await expect(closed.result()).rejects.toBeInstanceOf(WatcherClosedError);
    await expect(closed.result()).rejects.toMatchObject({ submitted: { kind: 'job', promptId: 'c' } });
  });

  it('20 watchers of one signal add one listener to it (Node warns at 11); its abort ends them all with its reason', async () => {
    connect();
    const cloud = make();
    const controller = new AbortController();
    const watchers = Array.from({ length: 20 }, (_, i) => cloud.jobs.watch(`w${i}`, { signal: controller.signal, waitTimeout: false }));
    await tick(10);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('the user left');
    controller.abort(reason);
    const outcomes = await Promise.all(watchers.map((w) => w.result().catch((e: unknown) => e)));
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => reason));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('watcher resilience', () => {
  it('reconnects with backoff and polls the status after the reconnect', async () => {
    let connection = 0;
    connect((peer) => {
      connection++;
      if (connection === 1) {
        send(peer, 'execution_start', { prompt_id: 'p' });
        send(peer, 'executed', { prompt_id: 'p', node: '1', output: { images: [{ filename: 'seen.png' }] } });
        peer.close(1011, 'going away');
      }
    });
    server.use(
      http.get(`${BASE}/api/job/p/status`, () => HttpResponse.json({ status: 'success' })),
      http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ id: 'p', outputs: { '1': { images: [{ filename: 'seen.png' }] }, '2': { images: [{ filename: 'missed.png' }] } } })),
    );
    // The shortest draw (half of minDelayMs, 50 ms): a run of the suite draws it about once in a hundred.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const cloud = make();
    const watcher = cloud.jobs.watch('p');
    await tick(10);
    expect(peers).toHaveLength(1);
    await until(() => closes.length === 1);
    // While down, the first reconnect waits between half and all of minDelayMs (50 to 100 ms after
    // a close seen by 10 ms): none yet at 45 ms. At 50 ms, a close seen at 0 and a 50 ms draw meet.
    await step(35);
    expect(peers).toHaveLength(1);
    await step(100);
    expect(peers).toHaveLength(2);
    const result = await watcher.result();
    expect(result).toMatchObject({ status: 'completed', via: 'poll', outputsComplete: true });
    expect(Object.keys(result.outputs).sort()).toEqual(['1', '2']);
    expect(seen.some((r) => r.url.pathname === '/api/job/p/status' && r.headers.get('x-api-key') === KEY)).toBe(true);
  });

  it('stops reconnecting and rejects every job on an auth refusal close code', async () => {
    connect((peer) => peer.close(4001, 'invalid token'));
    const cloud = make();
    const a = cloud.jobs.watch('a');
    const b = cloud.jobs.watch('b');
    await tick(10);
    await expect(a.result()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(b.result()).rejects.toThrow(/4001/);
    await expect(a.result()).rejects.not.toThrow(KEY);
    await tick(10_000);
    expect(peers).toHaveLength(1);
  });

  it('polls a job that has been silent for silenceMs', async () => {
    connect();
    let status = 'executing';
    server.use(
      http.get(`${BASE}/api/job/p/status`, () => HttpResponse.json({ status })),
      http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ outputs: {} })),
    );
    const watcher = make().jobs.watch('p');
    for (let i = 0; i < 100 && statusCalls() === 0; i++) await tick(10);
    const polledAtStart = statusCalls();
    // The first poll (a job watched without a submission) starts the silence clock.
    expect(polledAtStart).toBe(1);
    await tick(4_800);
    expect(statusCalls()).toBe(polledAtStart);
    await step(300);
    expect(statusCalls()).toBe(polledAtStart + 1);
    status = 'completed';
    await tick(5_000);
    await expect(watcher.result()).resolves.toMatchObject({ status: 'completed', via: 'poll', outputsComplete: true });
  });

  it('polls with growing intervals when the socket cannot be opened, and reports missing outputs honestly', async () => {
    let polls = 0;
    server.use(
      http.get(`${BASE}/api/job/p/status`, () => HttpResponse.json({ status: ++polls < 4 ? 'queued_waiting' : 'success' })),
      http.get(`${BASE}/api/jobs/p`, () => HttpResponse.json({ message: 'no' }, { status: 404 })),
      http.get(`${BASE}/api/history_v2/p`, () => HttpResponse.json({ message: 'no' }, { status: 404 })),
      http.get(`${BASE}/history/p`, () => HttpResponse.json({})),
    );
    const cloud = make({ WebSocket: NoSocket as never });
    const watcher = cloud.jobs.watch('p');
    const times: number[] = [];
    const start = Date.now();
    server.events.on('request:start', ({ request }) => {
      if (request.url.endsWith('/status')) times.push(Date.now() - start);
    });
    await step(2_000);
    const result = await watcher.result();
    expect(result).toMatchObject({ status: 'completed', via: 'poll', outputsComplete: false, outputs: {} });
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
    expect(gaps).toHaveLength(3);
    // Gap n is drawn from [half, all] of min(maxDelayMs, minDelayMs * growFactor^(n-1)); 5 ms clock steps.
    [[100, 200], [200, 400], [400, 800]].forEach(([low = 0, high = 0], n) => {
      expect(gaps[n]).toBeGreaterThanOrEqual(low);
      expect(gaps[n]).toBeLessThanOrEqual(high + 10);
    });
  });

  it('fails only the job that polling says belongs to another user', async () => {
    connect();
    server.use(http.get(`${BASE}/api/job/:id/status`, ({ params }) => (params.id === 'mine' ? HttpResponse.json({ status: 'executing' }) : HttpResponse.json({ message: 'Access denied' }, { status: 403 }))));
    const cloud = make();
    const mine = cloud.jobs.watch('mine');
    const theirs = cloud.jobs.watch('theirs');
    await tick(10);
    await expect(theirs.result()).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(mine.settled).toBe(false);
    mine.close();
  });
});

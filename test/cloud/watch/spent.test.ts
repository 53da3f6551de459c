// What a run spent: the `Price:` lines of its partner nodes' texts (binary frames of type 3, which
// name a node, not a job), given to the one run of the socket running that node, else counted as
// unattributed (docs/cost.md#what-a-run-spent).
import { http, HttpResponse, ws } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CloudClient } from '../../../src/index.js';
import { type CloudClientOptions } from '../../../src/cloud/client.js';
import { type WatcherStats } from '../../../src/cloud/watch/events.js';
import { RouterFeed } from '../../helpers/router-feed.js';
import { encodeText } from '../../../src/testing/cloud/frames.js';
import { useMsw } from '../../helpers/msw.js';

const stats = (): WatcherStats => ({ received: 0, ignored: 0, held: 0, dropped: 0, heldBytes: 0, connections: 0, polls: 0, unattributedPrices: 0 });
const msg = (type: string, data: Record<string, unknown>) => JSON.stringify({ type, data });
const text = (nodeId: string, body: string) => new Uint8Array(encodeText(nodeId, body));
const HOLD = { maxBytes: 100_000, maxPreviewBytes: 100_000, maxAgeMs: 60_000 };

function setup() {
  const counters = stats();
  const router = new RouterFeed({ hold: HOLD, stats: counters });
  const watch = (id: string) => {
    const seen = router.follow(id, { event: () => undefined, end: () => undefined });
    router.drain(id);
    return seen;
  };
  return { router, counters, watch };
}

describe('JobRouter: prices of partner nodes', () => {
  it('gives a price to the one run running its node; the last line of a node wins', () => {
    const { router, counters, watch } = setup();
    const a = watch('a');
    const b = watch('b');
    router.handleText(msg('executing', { prompt_id: 'a', node: '4' }));
    router.handleText(msg('executing', { prompt_id: 'b', node: '9' }));
    router.handleBinary(text('4', 'Status: IN_PROGRESS\nPrice: 10 credits'));
    router.handleBinary(text('4', 'Price: 1,234.56 credits'));
    router.handleBinary(text('9', 'Price: 3 credits'));
    router.handleBinary(text('9', 'Status: done'));
    expect({ ...a.spent }).toEqual({ '4': 1234.56 });
    expect({ ...b.spent }).toEqual({ '9': 3 });
    expect(counters.unattributedPrices).toBe(0);
  });

  it('counts as unattributed a price of a node that several runs are running at once, or none', () => {
    const { router, counters, watch } = setup();
    const a = watch('a');
    const b = watch('b');
    // Two runs of one workflow: both run node 4 now.
    router.handleText(msg('executing', { prompt_id: 'a', node: '4' }));
    router.handleText(msg('executing', { prompt_id: 'b', node: '4' }));
    router.handleBinary(text('4', 'Price: 10 credits'));
    router.handleBinary(text('7', 'Price: 5 credits'));
    router.handleBinary(text('', 'Price: 5 credits'));
    expect(a.spent).toBeUndefined();
    expect(b.spent).toBeUndefined();
    expect(counters.unattributedPrices).toBe(3);
    // Run b moved on: node 4's next price is a's alone.
    router.handleText(msg('executing', { prompt_id: 'b', node: '5' }));
    router.handleBinary(text('4', 'Price: 11 credits'));
    expect({ ...a.spent }).toEqual({ '4': 11 });
    expect(counters.unattributedPrices).toBe(3);
  });

  it('forgets which node runs once a run ends or the socket went down', () => {
    const { router, counters, watch } = setup();
    const a = watch('a');
    router.handleText(msg('executing', { prompt_id: 'a', node: '4' }));
    router.disconnected();
    router.handleBinary(text('4', 'Price: 10 credits'));
    router.handleText(msg('executing', { prompt_id: 'a', node: '4' }));
    router.handleText(msg('execution_success', { prompt_id: 'a' }));
    router.handleBinary(text('4', 'Price: 10 credits'));
    expect(a.spent).toBeUndefined();
    expect(counters.unattributedPrices).toBe(2);
  });

  it('keeps the run going through a blocked branch: its node still runs', () => {
    const { router, watch } = setup();
    const a = watch('a');
    router.handleText(msg('executing', { prompt_id: 'a', node: '4' }));
    router.handleText(msg('execution_error', { prompt_id: 'a', node_id: '2', exception_type: 'ExecutionBlocked', exception_message: 'blocked' }));
    router.handleBinary(text('4', 'Price: 2 credits'));
    expect({ ...a.spent }).toEqual({ '4': 2 });
  });

  it('holds the price of a run nobody watches yet, and gives it when the run is watched', () => {
    const { router, watch } = setup();
    router.handleText(msg('execution_start', { prompt_id: 'early' }));
    router.handleText(msg('executing', { prompt_id: 'early', node: '4' }));
    router.handleBinary(text('4', 'Price: 42.2 credits'));
    router.handleText(msg('execution_success', { prompt_id: 'early' }));
    const seen = watch('early');
    expect({ ...seen.spent }).toEqual({ '4': 42.2 });
  });

  it('gives a node text to the run running its node, not to the run that last reported activity', () => {
    const counters = stats();
    const router = new RouterFeed({ hold: HOLD, stats: counters });
    const texts: Record<string, string[]> = { a: [], b: [] };
    for (const id of ['a', 'b'] as const) router.follow(id, { event: (e) => (e.type === 'text' ? texts[id]?.push(e.data.data) : undefined), end: () => undefined });
    router.handleText(msg('executing', { prompt_id: 'a', node: '4' }));
    router.handleText(msg('executing', { prompt_id: 'b', node: '9' }));
    router.handleText(msg('progress', { prompt_id: 'b', node: '9', value: 1, max: 2 }));
    router.handleBinary(text('4', 'Status: IN_PROGRESS'));
    // A node nobody runs: the prompt that last reported activity, as before.
    router.handleBinary(text('5', 'a caption'));
    expect(texts).toEqual({ a: ['Status: IN_PROGRESS'], b: ['a caption'] });
  });

  it('keeps prices in a prototype-free map whatever the node id', () => {
    const { router, watch } = setup();
    const a = watch('a');
    router.handleText(msg('executing', { prompt_id: 'a', node: '__proto__' }));
    router.handleBinary(text('__proto__', 'Price: 1 credit'));
    expect(Object.getPrototypeOf(a.spent)).toBeNull();
    expect(a.spent?.['__proto__']).toBe(1);
    expect(({} as Record<string, unknown>).credits).toBeUndefined();
  });
});

const BASE = 'https://cloud.test';
const { server } = useMsw();
const link = ws.link('wss://cloud.test/ws');
type Peer = Parameters<Parameters<typeof link.addEventListener<'connection'>>[1]>[0]['client'];
const POLICY: CloudClientOptions['watcher'] = { socket: { idleCloseMs: 500, connectionTimeoutMs: 1_000 }, poll: { silenceMs: 60_000 } };
let cloud: CloudClient | undefined;

beforeEach(() => {
  server.use(http.get(`${BASE}/api/job/:id/status`, () => HttpResponse.json({ status: 'executing' })));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(async () => {
  await cloud?.close();
  cloud = undefined;
  vi.useRealTimers();
});

const peers: Peer[] = [];
function make(): CloudClient {
  peers.length = 0;
  server.use(link.addEventListener('connection', ({ client }) => void peers.push(client)));
  cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-spent-1234', watcher: POLICY, retry: false });
  return cloud;
}
const send = (type: string, data: Record<string, unknown>) => peers[0]?.send(msg(type, data));
const sendText = (nodeId: string, body: string) => peers[0]?.send(text(nodeId, body).buffer);

describe('cloud.jobs.watch(): result.cost', () => {
  it('sums the last price of each node, in credits and in USD at 211 credits a dollar; undefined without a price', async () => {
    const client = make();
    const paid = client.jobs.watch('paid');
    const free = client.jobs.watch('free');
    await vi.advanceTimersByTimeAsync(10);
    send('execution_start', { prompt_id: 'paid' });
    send('execution_start', { prompt_id: 'free' });
    send('executing', { prompt_id: 'paid', node: '4' });
    send('executing', { prompt_id: 'free', node: '1' });
    sendText('4', 'Status: IN_PROGRESS\nPrice: 40 credits');
    sendText('4', 'Price: 42.2 credits');
    sendText('1', 'a caption');
    send('executing', { prompt_id: 'paid', node: '7' });
    sendText('7', 'Price: 1,000 credits');
    send('execution_success', { prompt_id: 'paid' });
    send('execution_success', { prompt_id: 'free' });
    await vi.advanceTimersByTimeAsync(10);
    const result = await paid.result();
    expect(result.cost).toEqual({ credits: 1042.2, usd: 1042.2 / 211, byNode: { '4': 42.2, '7': 1000 } });
    expect((await free.result()).cost).toBeUndefined();
    expect(client.jobs.stats().unattributedPrices).toBe(0);
  });

  it('counts the price of a node two watched runs run at once as unattributed, on the stats', async () => {
    const client = make();
    const a = client.jobs.watch('a');
    const b = client.jobs.watch('b');
    await vi.advanceTimersByTimeAsync(10);
    for (const id of ['a', 'b']) {
      send('execution_start', { prompt_id: id });
      send('executing', { prompt_id: id, node: '4' });
    }
    sendText('4', 'Price: 10 credits');
    for (const id of ['a', 'b']) send('execution_success', { prompt_id: id });
    await vi.advanceTimersByTimeAsync(10);
    expect((await a.result()).cost).toBeUndefined();
    expect((await b.result()).cost).toBeUndefined();
    expect(client.jobs.stats().unattributedPrices).toBe(1);
  });
});

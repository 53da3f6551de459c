import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CloudClient } from '../../../src/index.js';
import { useMsw } from '../../helpers/msw.js';
import { step, NoSocket } from '../helpers.js';

// 0.1.0 awaited every due status read together: one answer that stalled after its headers held
// up the polls of every other job until its HTTP timeout. Each job now polls on its own loop.
const BASE = 'https://cloud.test';
const { server } = useMsw();
let cloud: CloudClient | undefined;

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }));
afterEach(async () => {
  await cloud?.close();
  cloud = undefined;
  vi.useRealTimers();
});

describe('cloud.jobs.watch() fallback polling', () => {
  it('settles every other job while one status answer stalls after its headers (socket down)', async () => {
    const reads: Record<string, number> = {};
    server.use(
      http.get(`${BASE}/api/job/:id/status`, ({ params }) => {
        const id = String(params.id);
        reads[id] = (reads[id] ?? 0) + 1;
        // Headers and the first bytes, then nothing: the body never ends.
        if (id === 'stalled') return new HttpResponse(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"status":')) }), { headers: { 'content-type': 'application/json' } });
        return HttpResponse.json({ status: reads[id] === 1 ? 'executing' : 'success' });
      }),
      http.get(`${BASE}/api/jobs/:id`, ({ params }) => HttpResponse.json({ outputs: { '9': { text: [String(params.id)] } } })),
    );
    cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-hang', WebSocket: NoSocket as never, retry: false, watcher: { poll: { minDelayMs: 200, maxDelayMs: 1_000 } } });
    const stalled = cloud.jobs.watch('stalled');
    const others = [cloud.jobs.watch('b'), cloud.jobs.watch('c')];
    await step(3_000);
    expect(others.map((w) => w.settled)).toEqual([true, true]);
    const results = await Promise.all(others.map((w) => w.result()));
    expect(results.map((r) => [r.promptId, r.status, r.via, r.outputs['9']])).toEqual([
      ['b', 'completed', 'poll', { text: ['b'] }],
      ['c', 'completed', 'poll', { text: ['c'] }],
    ]);
    expect(stalled.settled).toBe(false);
    expect(reads.stalled).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { openSocket, type TestSocket } from './helpers.js';
import { hostileStarter, tokenOf } from './hostile.js';

/** A type-1 preview frame (no prompt id): JPEG, 3 bytes of image. */
const anonymousPreview = (): Uint8Array => {
  const frame = new Uint8Array(11);
  new DataView(frame.buffer).setUint32(0, 1);
  new DataView(frame.buffer).setUint32(4, 1);
  frame.set([0xff, 0xd8, 0xff], 8);
  return frame;
};
const text = (type: string, data: Record<string, unknown>) => JSON.stringify({ type, data });

describe('relay: the socket against a hostile upstream', () => {
  const start = hostileStarter();

  it('asks upstream for previews that name their job, and passes one without a job only while exactly one job runs', async () => {
    const { cloud, relay } = await start();
    const a = await openSocket(relay.url);
    const b = await openSocket(relay.url);
    await cloud.connected();
    expect(cloud.received.map((m) => JSON.parse(m) as unknown)).toContainEqual({ type: 'feature_flags', data: { supports_preview_metadata: true } });
    a.subscribe(await tokenOf('p-A'));
    b.subscribe(await tokenOf('p-B'));
    await Promise.all([a, b].map((socket) => socket.next((m) => m.type === 'graphcloud_subscribed')));
    /** Pushes frames, then a marker both browsers get, so everything before it has been handled. */
    let marks = 0;
    const send = async (...frames: (string | Uint8Array)[]) => {
      for (const frame of frames) cloud.push(frame);
      const mark = ++marks;
      cloud.push(text('status', { status: { exec_info: { queue_remaining: mark } } }));
      const marked = (socket: TestSocket) => socket.next((m) => m.type === 'status' && (m.data.status as { exec_info: { queue_remaining: number } }).exec_info.queue_remaining === mark);
      await Promise.all([marked(a), marked(b)]);
    };

    // Two jobs of the account run: a preview without a prompt id could be either's.
    await send(text('progress', { prompt_id: 'p-A', value: 1, max: 2, node: '3' }), text('progress', { prompt_id: 'p-B', value: 1, max: 2, node: '3' }), anonymousPreview());
    expect(a.binaries).toEqual([]);
    expect(b.binaries).toEqual([]);
    expect(relay.relay.stats().unattributed).toBe(1);
    // A's run ended: B's is the only one running, the preview is B's.
    await send(text('execution_success', { prompt_id: 'p-A', timestamp: 1 }), anonymousPreview());
    expect(a.binaries).toEqual([]);
    expect(b.binaries).toHaveLength(1);
    // No job runs: nobody's.
    await send(text('execution_success', { prompt_id: 'p-B', timestamp: 2 }), anonymousPreview());
    expect(b.binaries).toHaveLength(1);
    expect(relay.relay.stats().unattributed).toBe(2);
    a.ws.terminate();
    b.ws.terminate();
  });

  it('lets go of a browser socket that never reads: closed past maxBufferedBytes, its connection ended without waiting for the close handshake', async () => {
    const { cloud, relay } = await start({ socket: { maxBufferedBytes: 1024 * 1024 } });
    const stuck = await openSocket(relay.url);
    await cloud.connected();
    (stuck.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const padding = 'x'.repeat(256 * 1024);
    while (relay.relay.stats().browsers > 0) {
      cloud.push(text('status', { status: { exec_info: { queue_remaining: 1 } }, padding }));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The browser never answers the close frame (it reads nothing): the relay ends the connection itself.
    const connections = () => new Promise<number>((resolve) => relay.server.getConnections((_error, count) => resolve(count)));
    while ((await connections()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await connections()).toBe(0);
    stuck.ws.terminate();
  });
});

import { describe, expect, it } from 'vitest';
import type { RelayPeer, RelaySocket } from '../../src/server/index.js';
import type { RunningRelay } from './helpers.js';
import { hostileStarter, tokenOf } from './hostile.js';

/** A runtime's side of a browser socket, as an adapter hands it to `open()`: records what the relay sends and the close codes. */
interface FakePeer extends RelayPeer {
  sent: (string | Uint8Array)[];
  codes: number[];
  queued: number;
}

function fakePeer(): FakePeer {
  const peer: FakePeer = {
    sent: [],
    codes: [],
    queued: 0,
    send: (data) => peer.sent.push(data),
    close: (code) => peer.codes.push(code),
    bufferedAmount: () => peer.queued,
  };
  return peer;
}

/** Upgrades on the relay's handler (no HTTP server between) and opens the socket with `peer`. */
async function open(relay: RunningRelay, peer: RelayPeer): Promise<RelaySocket> {
  const decision = await relay.relay.upgrade(new Request(`${relay.url}/ws?clientId=browser`, { headers: { upgrade: 'websocket', connection: 'Upgrade' } }));
  if (!decision.open) throw new Error(`upgrade refused: ${decision.response.status} ${await decision.response.text()}`);
  return decision.open(peer);
}

async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition() && turn < 1_000; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
}

const status = (mark: string) => JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: 0 } }, mark } });

describe('relay socket: one browser session', () => {
  const start = hostileStarter();

  it('closes a browser that lets too much queue up (1013), instead of buffering without bound', async () => {
    const { cloud, relay } = await start({ socket: { maxBufferedBytes: 100 } });
    const slow = fakePeer();
    const other = fakePeer();
    await open(relay, slow);
    await open(relay, other);
    await cloud.connected();
    cloud.push(status('one'));
    await until(() => other.sent.length === 1);
    slow.queued = 101;
    cloud.push(status('two'));
    cloud.push(status('three'));
    // `other` reads: once it has the three, the relay has handled them for both.
    await until(() => other.sent.length === 3);
    expect(other.sent).toEqual([status('one'), status('two'), status('three')]);
    expect(slow.sent).toEqual([status('one')]);
    expect(slow.codes).toEqual([1013]);
    expect(relay.relay.stats().browsers).toBe(1);
  });

  it('ignores messages that are too large, binary, or not subscriptions', async () => {
    const { relay } = await start({ socket: { maxMessageBytes: 300 } });
    const peer = fakePeer();
    const session = await open(relay, peer);
    const token = await tokenOf('p-1');
    session.receive(JSON.stringify({ type: 'graphcloud_subscribe', data: { token }, padding: 'x'.repeat(400) }));
    session.receive(new TextEncoder().encode(JSON.stringify({ type: 'graphcloud_subscribe', data: { token } })));
    session.receive(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    session.receive(JSON.stringify({ type: 'graphcloud_subscribe', data: { token } }));
    // A later subscription marks the end: everything received before it has been handled.
    session.receive(JSON.stringify({ type: 'graphcloud_subscribe', data: { token: await tokenOf('p-2') } }));
    const subscribed = (job: string) => JSON.stringify({ type: 'graphcloud_subscribed', data: { job } });
    await until(() => peer.sent.includes(subscribed('p-2')));
    expect(peer.sent).toEqual([subscribed('p-1'), subscribed('p-2')]);
    expect(relay.relay.stats().subscriptions).toBe(2);
  });
});

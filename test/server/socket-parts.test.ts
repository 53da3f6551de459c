import { afterEach, describe, expect, it, vi } from 'vitest';
import { HoldBuffer } from '../../src/server/socket-hold.js';
import { BrowserSession, type SessionHost } from '../../src/server/socket-session.js';
import { TokenSigner } from '../../src/server/tokens.js';
import { RELAY_DEFAULTS } from '../../src/server/index.js';
import { SECRET } from './helpers.js';

describe('relay socket: the hold buffer', () => {
  afterEach(() => vi.useRealTimers());

  it('hands held messages out once, oldest first', () => {
    const hold = new HoldBuffer({ maxBytes: 1_000, maxAgeMs: 1_000 });
    hold.add('p', 'a');
    hold.add('q', 'x');
    hold.add('p', 'b');
    expect(hold.take('p')).toEqual(['a', 'b']);
    expect(hold.take('p')).toEqual([]);
    expect(hold.bytes).toBe(1);
  });

  it('is bounded in bytes: the oldest job goes first, a lone job keeps its latest messages', () => {
    const hold = new HoldBuffer({ maxBytes: 10, maxAgeMs: 60_000 });
    hold.add('old', '12345');
    hold.add('new', '123456');
    expect(hold.take('old')).toEqual([]);
    for (const frame of ['aaaa', 'bbbb', 'cccc']) hold.add('new', frame);
    expect(hold.bytes).toBeLessThanOrEqual(10);
    expect(hold.take('new')).toEqual(['bbbb', 'cccc']);
    expect(hold.dropped).toBe(3);
  });

  it('counts the bytes of binary frames', () => {
    const hold = new HoldBuffer({ maxBytes: 10, maxAgeMs: 1_000 });
    hold.add('p', new Uint8Array(6));
    hold.add('p', new Uint8Array(6));
    expect(hold.bytes).toBe(6);
    expect(hold.take('p')).toEqual([new Uint8Array(6)]);
  });

  it('is bounded in age', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const hold = new HoldBuffer({ maxBytes: 1_000, maxAgeMs: 1_000 });
    hold.add('p', 'a');
    vi.setSystemTime(Date.now() + 2_000);
    hold.add('q', 'b');
    expect(hold.prompts).toBe(1);
    expect(hold.take('p')).toEqual([]);
    vi.setSystemTime(Date.now() + 2_000);
    expect(hold.take('q')).toEqual([]);
  });
});

describe('relay socket: one browser session', () => {
  const host = (): SessionHost & { left: number } => ({ left: 0, subscribe: () => true, leave() { this.left++; } });

  it('closes a browser that lets too much queue up (1013), instead of buffering without bound', () => {
    const sent: unknown[] = [];
    const closed: number[] = [];
    let queued = 0;
    const owner = host();
    const session = new BrowserSession(owner, { send: (data) => sent.push(data), close: (code) => closed.push(code), bufferedAmount: () => queued }, new TokenSigner([SECRET], 1_000), { ...RELAY_DEFAULTS.socket, maxBufferedBytes: 100 });
    session.send('one');
    queued = 101;
    session.send('two');
    session.send('three');
    expect(sent).toEqual(['one']);
    expect(closed).toEqual([1013]);
    expect(owner.left).toBe(1);
  });

  it('ignores messages that are too large, binary, or not subscriptions', async () => {
    const subscribed: string[] = [];
    const sent: unknown[] = [];
    const signer = new TokenSigner([SECRET], 60_000);
    const session = new BrowserSession({ subscribe: (_s, id) => subscribed.push(id) > 0, leave: () => undefined }, { send: (data) => sent.push(data), close: () => undefined }, signer, { ...RELAY_DEFAULTS.socket, maxMessageBytes: 300 });
    const token = await signer.sign('job', 'p-1');
    session.receive(JSON.stringify({ type: 'graphcloud_subscribe', data: { token }, padding: 'x'.repeat(400) }));
    session.receive(new TextEncoder().encode(JSON.stringify({ type: 'graphcloud_subscribe', data: { token } })));
    session.receive(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    session.receive(JSON.stringify({ type: 'graphcloud_subscribe', data: { token } }));
    for (let turn = 0; sent.length === 0 && turn < 1_000; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(subscribed).toEqual(['p-1']);
    expect(sent).toEqual([JSON.stringify({ type: 'graphcloud_subscribed', data: { job: 'p-1' } })]);
  });
});

import { describe, expect, it } from 'vitest';
import { BrowserSession, type SessionHost } from '../../src/server/socket-session.js';
import { TokenSigner } from '../../src/server/tokens.js';
import { RELAY_DEFAULTS } from '../../src/server/index.js';
import { SECRET } from './helpers.js';

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

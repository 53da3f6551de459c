import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReconnectingSocket, type SocketDown, type WebSocketLike } from '../../../src/cloud/watch/socket.js';

/** A scripted WebSocket: each attempt fails (or opens and stays open) as the test decides. */
class ScriptedSocket implements WebSocketLike {
  static attempts: number[] = [];
  static open = false;
  static last: ScriptedSocket | undefined;
  readyState = 0;
  binaryType = 'blob';
  sent: string[] = [];
  #listeners: Record<string, ((event: unknown) => void)[]> = {};
  constructor() {
    ScriptedSocket.attempts.push(Date.now());
    ScriptedSocket.last = this;
    setTimeout(() => {
      if (ScriptedSocket.open) {
        this.readyState = 1;
        this.#emit('open', {});
      } else {
        this.#emit('error', {});
        this.#emit('close', { code: 1006, reason: '' });
      }
    }, 0);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(code = 1000): void {
    this.readyState = 3;
    this.#emit('close', { code, reason: '' });
  }
  addEventListener(type: string, listener: (event: unknown) => void): void {
    (this.#listeners[type] ??= []).push(listener);
  }
  #emit(type: string, event: unknown): void {
    for (const listener of this.#listeners[type] ?? []) listener(event);
  }
}

const policy = { minDelayMs: 100, maxDelayMs: 1_000, growFactor: 2, minUptimeMs: 5_000, connectionTimeoutMs: 1_000, authCloseCodes: [4001] };

beforeEach(() => {
  vi.useFakeTimers();
  ScriptedSocket.attempts = [];
  ScriptedSocket.open = false;
});
afterEach(() => vi.useRealTimers());

describe('ReconnectingSocket', () => {
  it('backs off exponentially up to maxDelayMs (jitter pinned to the full delay)', async () => {
    const downs: SocketDown[] = [];
    const downAt: number[] = [];
    const socket = new ReconnectingSocket({
      url: async () => 'ws://x/ws',
      WebSocket: ScriptedSocket,
      policy,
      random: () => 1,
      handlers: { onOpen: () => undefined, onText: () => undefined, onBinary: () => undefined, onDown: (d) => downs.push(d) && downAt.push(Date.now()), onRefused: () => undefined },
    });
    socket.start();
    await vi.advanceTimersByTimeAsync(5_000);
    socket.stop();
    // Delay between a failed attempt and the next one.
    const gaps = ScriptedSocket.attempts.slice(1, 7).map((t, i) => t - (downAt[i] ?? 0));
    expect(gaps).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(downs.every((d) => !d.opened && d.code === 1006)).toBe(true);
  });

  it('sends feature_flags on open and stops on an auth close code', async () => {
    ScriptedSocket.open = true;
    const refused: SocketDown[] = [];
    const socket = new ReconnectingSocket({
      url: async () => 'ws://x/ws',
      WebSocket: ScriptedSocket,
      policy,
      handlers: { onOpen: () => undefined, onText: () => undefined, onBinary: () => undefined, onDown: () => undefined, onRefused: (d) => refused.push(d) },
    });
    socket.start();
    await vi.advanceTimersByTimeAsync(10);
    const current = ScriptedSocket.last;
    expect(current?.binaryType).toBe('arraybuffer');
    expect(current?.sent.map((s) => JSON.parse(s))).toEqual([{ type: 'feature_flags', data: { supports_preview_metadata: true } }]);
    current?.close(4001);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(refused).toHaveLength(1);
    expect(ScriptedSocket.attempts).toHaveLength(1);
  });

  it('gives up an attempt that does not open within connectionTimeoutMs', async () => {
    const downs: SocketDown[] = [];
    const Silent = class implements WebSocketLike {
      readyState = 0;
      binaryType = 'blob';
      closed = 0;
      send(): void {}
      close(): void {
        this.closed++;
      }
      addEventListener(): void {}
    };
    const socket = new ReconnectingSocket({
      url: async () => 'ws://x/ws',
      WebSocket: Silent,
      policy,
      handlers: { onOpen: () => undefined, onText: () => undefined, onBinary: () => undefined, onDown: (d) => downs.push(d), onRefused: () => undefined },
    });
    socket.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(downs).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(downs[0]).toMatchObject({ opened: false, reason: 'no connection within 1000 ms' });
    socket.stop();
  });

  it('retries at once after a failed handshake that fires error but never close (Node 22.12 on a 503 upgrade)', async () => {
    // Node 22.12's WebSocket answers a refused upgrade with `error` alone and stays CONNECTING.
    const downs: SocketDown[] = [];
    const downAt: number[] = [];
    const attempts: number[] = [];
    const ErrorOnly = class implements WebSocketLike {
      static closedByClient = 0;
      readyState = 0;
      binaryType = 'blob';
      #listeners: Record<string, ((event: unknown) => void)[]> = {};
      constructor() {
        attempts.push(Date.now());
        setTimeout(() => (this.#listeners['error'] ?? []).forEach((listener) => listener({})), 0);
      }
      send(): void {}
      close(): void {
        ErrorOnly.closedByClient++;
      }
      addEventListener(type: string, listener: (event: unknown) => void): void {
        (this.#listeners[type] ??= []).push(listener);
      }
    };
    const socket = new ReconnectingSocket({
      url: async () => 'ws://x/ws',
      WebSocket: ErrorOnly,
      policy,
      random: () => 1,
      handlers: { onOpen: () => undefined, onText: () => undefined, onBinary: () => undefined, onDown: (d) => downs.push(d) && downAt.push(Date.now()), onRefused: () => undefined },
    });
    socket.start();
    await vi.advanceTimersByTimeAsync(350);
    socket.stop();
    // Each attempt is down when its error fires (not connectionTimeoutMs = 1 s later), and the next
    // one follows after the backoff: 100 ms, then 200 ms.
    expect(downs.slice(0, 2)).toMatchObject([{ opened: false, code: 1006 }, { opened: false, code: 1006 }]);
    expect(Math.max(...downAt.slice(0, 2).map((t, i) => t - attempts[i]!))).toBeLessThanOrEqual(1);
    expect(attempts.slice(1, 3).map((t, i) => t - downAt[i]!)).toEqual([100, 200]);
    expect(ErrorOnly.closedByClient).toBe(downs.length);
  });
});

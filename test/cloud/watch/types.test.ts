import WS from 'ws';
import { describe, expectTypeOf, it } from 'vitest';
import { CloudClient, type JobResult, type WatchEvent } from '../../../src/index.js';
import { type JobStatus } from '../../../src/cloud/shared/types.js';
import { type JobWatcher } from '../../../src/cloud/watch/job-watcher.js';
import { type WebSocketConstructor } from '../../../src/cloud/watch/socket.js';

describe('public types', () => {
  it('accepts the global WebSocket and the ws package as the socket constructor', () => {
    expectTypeOf(globalThis.WebSocket).toExtend<WebSocketConstructor>();
    expectTypeOf(WS).toExtend<WebSocketConstructor>();
  });

  it('types results, statuses and events', () => {
    expectTypeOf<CloudClient['jobs']['watch']>().returns.toEqualTypeOf<JobWatcher>();
    expectTypeOf<JobResult['status']>().toEqualTypeOf<'completed' | 'failed' | 'cancelled'>();
    expectTypeOf<JobStatus>().toEqualTypeOf<'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled'>();
    expectTypeOf<Extract<WatchEvent, { type: 'progress' }>['data']['value']>().toEqualTypeOf<number>();
    expectTypeOf<Extract<WatchEvent, { type: 'preview' }>['data']['data']>().toEqualTypeOf<Uint8Array<ArrayBuffer>>();
  });
});

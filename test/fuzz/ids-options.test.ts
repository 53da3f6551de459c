// An option given as `null` is refused like any invalid value, before any request.
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { CloudClient } from '../../src/cloud/index.js';
import { useMsw } from '../helpers/msw.js';
import { CLOUD, createClients, SECRETS, WORKFLOW, type Clients } from './operations.js';

const { server, seen } = useMsw();

/** Runs a call, synchronous throws included. */
async function outcome(run: () => unknown): Promise<{ error?: unknown }> {
  try {
    await run();
    return {};
  } catch (error) {
    return { error };
  }
}

describe('an option given as null', () => {
  // `null` is not a value of any option: a boolean, string, enum or number option given `null`
  // passed its check and then stood for something else (a poll delay of 0 ms, a concurrency of
  // null that never runs a poll, an enum default lost).
  it.each([
    ['validate of a submission', (c: Clients) => c.proxy.image.upscale({ image: 'https://cdn.fuzz.test/a.png' }, { validate: null } as never), 'options.validate'],
    ['a retry limit', (c: Clients) => c.cloud.jobs.getStatus('p-1', { retry: { limit: null } } as never), 'options.retry.limit'],
    ['a retry delay', (c: Clients) => c.registry.nodes.get('n', { retry: { minDelayMs: null } } as never), 'options.retry.minDelayMs'],
    ['a wait poll delay', (c: Clients) => c.proxy.waitForTask({ kind: 'upscale', taskId: 't' }, { poll: { minDelayMs: null } } as never), 'options.poll.minDelayMs'],
    ['countQueued', (c: Clients) => c.proxy.waitForTask({ kind: 'upscale', taskId: 't' }, { countQueued: null } as never), 'options.countQueued'],
    ['a run download flag', (c: Clients) => c.cloud.runWorkflow(WORKFLOW, { download: null } as never), 'options.download'],
  ])('is refused: %s', async (_name, call, path) => {
    server.use(http.all('*', () => HttpResponse.json({ message: 'Not Found' }, { status: 404 })));
    const clients = createClients();
    const error = await outcome(() => call(clients));
    await clients.close();
    expect(error.error).toBeInstanceOf(ValidationError);
    expect((error.error as ValidationError).issues.map((i) => i.path)).toEqual([path]);
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['runtime', { runtime: null }, 'options.runtime'],
    ['watcher.poll.concurrency', { watcher: { poll: { concurrency: null } } }, 'options.watcher.poll.concurrency'],
    ['watcher.socket.minDelayMs', { watcher: { socket: { minDelayMs: null } } }, 'options.watcher.socket.minDelayMs'],
    ['watcher.hold.maxBytes', { watcher: { hold: { maxBytes: null } } }, 'options.watcher.hold.maxBytes'],
    ['clientId', { clientId: null }, 'options.clientId'],
  ])('is refused by new CloudClient(): %s', (_name, extra, path) => {
    const error = outcomeSync(() => new CloudClient({ baseUrl: CLOUD, apiKey: SECRETS.apiKey, ...extra } as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
  });
});

function outcomeSync(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}


import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ClientClosedError } from '../../src/core/index.js';
import { BASE, client, useProxyServer } from './helpers.js';

const { server, seen } = useProxyServer();
const FAST = { poll: { minDelayMs: 100, maxDelayMs: 100 } };

/** Task `hang` never answers its status read (until the request is aborted); any other task runs forever. */
function statusRoutes(): { reads: string[] } {
  const reads: string[] = [];
  server.use(
    http.get(`${BASE}/proxy/imagevendor/v1/ai/image-upscaler/:id`, ({ params, request }) => {
      reads.push(String(params.id));
      if (params.id !== 'hang') return HttpResponse.json({ data: { task_id: params.id, status: 'IN_PROGRESS' } });
      return new Promise<Response>((resolve) => request.signal.addEventListener('abort', () => resolve(HttpResponse.error())));
    }),
  );
  return { reads };
}

const until = async (predicate: () => boolean) => {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('proxy.close()', () => {
  it('ends every wait with its own ClientClosedError naming its task, aborting the read in flight', async () => {
    const { reads } = statusRoutes();
    const p = client();
    const hanging = { kind: 'upscale', taskId: 'hang' } as const;
    const sleeping = { kind: 'upscale', taskId: 'slow', status: 'IN_PROGRESS' } as const;
    const a = p.waitForTask(hanging, FAST).catch((e: unknown) => e);
    const b = p.waitForTask(sleeping, FAST).catch((e: unknown) => e);
    await until(() => reads.includes('hang') && reads.filter((id) => id === 'slow').length >= 2);
    await p.close();
    const [errorA, errorB] = (await Promise.all([a, b])) as ClientClosedError[];
    expect(errorA).toBeInstanceOf(ClientClosedError);
    expect(errorB).toBeInstanceOf(ClientClosedError);
    expect(errorA?.submitted).toBe(hanging);
    expect(errorB?.submitted).toBe(sleeping);
    expect(errorA).not.toBe(errorB);
  });

  it('rejects every later call with ClientClosedError and sends nothing more', async () => {
    statusRoutes();
    const p = client();
    await p.close();
    const sent = seen.length;
    await expect(p.image.upscale({ image: 'https://cdn.test/a.png' })).rejects.toBeInstanceOf(ClientClosedError);
    await expect(p.waitForTask({ kind: 'upscale', taskId: 't-1' })).rejects.toBeInstanceOf(ClientClosedError);
    await expect(p.watchTask({ kind: 'upscale', taskId: 't-1' }).next()).rejects.toBeInstanceOf(ClientClosedError);
    expect(seen).toHaveLength(sent);
    await expect(p.close()).resolves.toBeUndefined();
  });

  it('ends a submission waiting with { wait }: the error names the paid task onSubmitted saw', async () => {
    statusRoutes();
    server.use(http.post(`${BASE}/proxy/imagevendor/v1/ai/image-upscaler`, () => HttpResponse.json({ data: { task_id: 'slow', status: 'CREATED' } })));
    const p = client();
    const submitted: unknown[] = [];
    const done = p.image.upscale({ image: 'https://cdn.test/a.png' }, { wait: FAST, onSubmitted: (task) => void submitted.push(task) }).catch((e: unknown) => e);
    await until(() => seen.some((r) => r.method === 'GET'));
    await p.close();
    const error = (await done) as ClientClosedError;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error.submitted).toMatchObject({ kind: 'upscale', taskId: 'slow' });
    expect(error.submitted).toBe(submitted[0]);
  });

  it('ends a watchTask() loop in progress', async () => {
    statusRoutes();
    const p = client();
    const phases: string[] = [];
    const loop = (async () => {
      for await (const status of p.watchTask({ kind: 'upscale', taskId: 'slow' }, FAST)) phases.push(status.phase);
    })().catch((e: unknown) => e);
    await until(() => phases.length > 0);
    await p.close();
    const error = (await loop) as ClientClosedError;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error.submitted).toEqual({ kind: 'upscale', taskId: 'slow' });
  });

  it('is what `await using` calls at the end of the block', async () => {
    const { reads } = statusRoutes();
    let wait: Promise<unknown> | undefined;
    {
      await using p = client();
      wait = p.waitForTask({ kind: 'upscale', taskId: 'slow' }, FAST).catch((e: unknown) => e);
      await until(() => reads.length > 0);
    }
    expect(await wait).toBeInstanceOf(ClientClosedError);
  });
});

// Every media task status route against answers whose fields the SDK reads have the wrong type
// (issue 19 item 2): a number, an object, `true` or an array where a string belongs made
// proxy.waitForTask() throw a raw TypeError from the status reader. Whatever the field, the wait
// rejects with a ResponseValidationError that names the field and the task, which exists.
// The answers come from the client's own `fetch` option: no socket interception is needed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResponseValidationError } from '../../src/core/index.js';
import { ProxyClient } from '../../src/proxy/client.js';
import type { TaskKind } from '../../src/proxy/tasks.js';
import { TASK_KINDS, TASKS } from '../../src/proxy/tasks.js';
import { expectSdkError, params, STATUS_FIELDS, toJsonText, wrongTypedBody, type JsonTree } from './helpers.js';

const BASE = 'https://proxy.fields.test';

/** A proxy whose every GET answers `status` and every POST names task `t-sub`. */
function proxyAnswering(status: JsonTree): ProxyClient {
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const method = input instanceof Request ? input.method : init?.method;
    const text = method === 'POST' ? '{"data":{"task_id":"t-sub"},"task_id":"t-sub"}' : toJsonText(status);
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return new ProxyClient({ baseUrl: BASE, token: 'sk-fields-token-0a1b2c3d', fetch, retry: false, wait: { waitTimeout: 5_000, poll: { minDelayMs: 100, maxDelayMs: 100 }, notFoundGraceMs: 0 } });
}

async function expectNamedFailure(call: Promise<unknown>, task: { kind: TaskKind; taskId: string }, field: string): Promise<void> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expectSdkError(error);
  expect(error, `${task.kind} ${field}`).toBeInstanceOf(ResponseValidationError);
  const validation = error as ResponseValidationError;
  expect(validation.field).toMatch(new RegExp(`^(data\\.)?${field}`));
  expect(validation.message).toContain(task.taskId);
  expect(validation.message).toContain('exists');
  expect(validation.submitted).toMatchObject(task);
}

describe('proxy.waitForTask(): a status field of the wrong type', () => {
  it.each([
    ['a number', 5],
    ['an object', { entries: [['x', 1]] }],
    ['true', true],
    ['an array', ['COMPLETED']],
  ] as [string, JsonTree][])('is a ResponseValidationError naming the task when status is %s, under data or not', async (_name, value) => {
    for (const body of [{ entries: [['data', { entries: [['status', value]] }]] }, { entries: [['status', value]] }] as JsonTree[]) {
      const proxy = proxyAnswering(body);
      await expectNamedFailure(proxy.waitForTask({ kind: 'upscale', taskId: 't-1' }), { kind: 'upscale', taskId: 't-1' }, 'status');
      await expectNamedFailure(proxy.image.upscale({ image: 'https://cdn.fields.test/a.png', scale_factor: '2x' }, { wait: true }), { kind: 'upscale', taskId: 't-sub' }, 'status');
      await proxy.close();
    }
  });

  it('is a ResponseValidationError naming the field and the task, on every status route, for every field the SDK reads', async () => {
    const kinds = TASK_KINDS.map((kind) => ({ kind, fields: STATUS_FIELDS[TASKS[kind].family] }));
    const cases = fc.constantFrom(...kinds).chain(({ kind, fields }) =>
      fc.record({ kind: fc.constant(kind), taskId: fc.stringMatching(/^[a-z0-9-]{1,12}$/), answer: wrongTypedBody(fields) }),
    );
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(cases, async ({ kind, taskId, answer }) => {
        seen.add(`${kind} ${answer.field}`);
        const proxy = proxyAnswering(answer.body);
        try {
          await expectNamedFailure(proxy.waitForTask({ kind, taskId }), { kind, taskId }, answer.field);
        } finally {
          await proxy.close();
        }
      }),
      params(300),
    );
    // Every status route met wrong-typed fields.
    expect(TASK_KINDS.filter((kind) => ![...seen].some((entry) => entry.startsWith(`${kind} `)))).toEqual([]);
  }, 120_000);
});

import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { ProxyClient } from '../../src/proxy/client.js';
import { BASE, client, TOKEN, useProxyServer } from './helpers.js';

const { server, seen } = useProxyServer();
const IMG = 'https://cdn.example.com/in.png';
const TASK = { kind: 'upscale', taskId: 't-1' } as const;
// What JavaScript callers (or a cast) can pass where the types would refuse it.
const unsafe = <T>(value: unknown) => value as T;

/** The issues of the ValidationError `call` rejects with, as `path: rule`; nothing may have been sent. */
async function refused(call: () => Promise<unknown>): Promise<string[]> {
  server.use(
    http.post(`${BASE}/proxy/*`, () => HttpResponse.json({ data: { task_id: 't-1', status: 'CREATED' } })),
    http.get(`${BASE}/proxy/*`, () => HttpResponse.json({ data: { task_id: 't-1', status: 'COMPLETED', generated: [IMG] } })),
  );
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect(seen).toHaveLength(0);
  return (error as ValidationError).issues.map((i) => `${i.path}: ${i.rule}`);
}

describe('new ProxyClient(): every option is checked', () => {
  const make = (options: unknown) => () => new ProxyClient(unsafe(options));

  it.each([
    ['no options', undefined, 'options: required'],
    ['null', null, 'options: an options object'],
    ['no baseUrl', { token: TOKEN }, 'options.baseUrl: required'],
    ['a relative baseUrl', { baseUrl: 'proxy.test' }, 'options.baseUrl'],
    ['a timeout of -1', { baseUrl: BASE, timeout: -1 }, 'options.timeout: a number of milliseconds above 0'],
    ['a misspelled option', { baseUrl: BASE, tokn: TOKEN }, 'did you mean "token"'],
    ['token and apiKey together', { baseUrl: BASE, token: 'a', apiKey: 'b' }, 'options.apiKey: either token or apiKey, not both'],
    ['a statusPaths entry without {task_id}', { baseUrl: BASE, statusPaths: { upscale: '/proxy/upscale/status' } }, 'options.statusPaths.upscale: a route starting with /'],
    ['a statusPaths entry that is not a route', { baseUrl: BASE, statusPaths: { extend: 42 } }, 'options.statusPaths.extend: a route template or a function'],
    ['a statusPaths entry of an unknown kind', { baseUrl: BASE, statusPaths: { upscaler: '/x/{task_id}' } }, 'options.statusPaths.upscaler: a known option (did you mean "upscale"?)'],
    ['a clock without now/sleep', { baseUrl: BASE, clock: { now: () => 0 } }, 'options.clock: an object with now() and sleep(ms, signal) functions'],
    ['an unknown base64Format', { baseUrl: BASE, base64Format: { image: 'hex' } }, 'options.base64Format.image: one of: raw, data-url'],
    ['wait.waitTimeout: NaN', { baseUrl: BASE, wait: { waitTimeout: Number.NaN } }, 'options.wait.waitTimeout'],
    ['wait.poll.minDelayMs: 0', { baseUrl: BASE, wait: { poll: { minDelayMs: 0 } } }, 'options.wait.poll.minDelayMs: a finite number from 100'],
    ['wait.onUpdate (a per-call option)', { baseUrl: BASE, wait: { onUpdate: () => undefined } }, 'options.wait.onUpdate: a known option'],
    ['the 0.1.0 wait.maxIntervalMs', { baseUrl: BASE, wait: { maxIntervalMs: 5_000 } }, 'options.wait.maxIntervalMs: a known option'],
  ])('refuses %s', (_name, options, issue) => {
    let error: unknown;
    try {
      make(options)();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const issues = (error as ValidationError).issues.map((i) => `${i.path}: ${i.rule}`);
    expect(issues.some((i) => i.includes(issue))).toBe(true);
  });

  it('never echoes a credential in its error', () => {
    expect(make({ baseUrl: BASE, token: 42 })).toThrow('options.token');
    expect(make({ baseUrl: BASE, token: '' })).not.toThrow('tok-123');
  });
});

describe('proxy methods: every option is checked before any request', () => {
  const p = client();
  it.each([
    ['a submission timeout of -1', () => p.image.upscale({ image: IMG }, { timeout: -1 }), 'options.timeout: a number of milliseconds above 0'],
    ['a submission with null options', () => p.image.upscale({ image: IMG }, unsafe(null)), 'options: an options object (or nothing)'],
    ['a misspelled submission option', () => p.video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: IMG }, unsafe({ onSubmited: () => undefined })), 'options.onSubmited: a known option (did you mean "onSubmitted"?)'],
    ['validate: "no"', () => p.image.upscale({ image: IMG }, unsafe({ validate: 'no' })), 'options.validate: true or false'],
    ['onSubmitted: 5', () => p.image.upscale({ image: IMG }, unsafe({ onSubmitted: 5 })), 'options.onSubmitted: a function'],
    ['wait: "yes"', () => p.image.upscale({ image: IMG }, unsafe({ wait: 'yes' })), 'options.wait: true, false, or the options of waitForTask()'],
    ['wait.waitTimeout: NaN on a submission', () => p.image.upscale({ image: IMG }, { wait: { waitTimeout: Number.NaN } }), 'options.wait.waitTimeout'],
    ['wait.onUpdate: 5 on a submission', () => p.image.upscale({ image: IMG }, { wait: unsafe({ onUpdate: 5 }) }), 'options.wait.onUpdate: a function'],
    ['waitTimeout: NaN', () => p.waitForTask(TASK, { waitTimeout: Number.NaN }), 'options.waitTimeout: a number of milliseconds above 0, or false'],
    ['waitTimeout: -1', () => p.waitForTask(TASK, { waitTimeout: -1 }), 'options.waitTimeout'],
    ['poll.minDelayMs: 0', () => p.waitForTask(TASK, { poll: { minDelayMs: 0 } }), 'options.poll.minDelayMs: a finite number from 100'],
    ['poll.growFactor: Infinity', () => p.waitForTask(TASK, { poll: { growFactor: Number.POSITIVE_INFINITY } }), 'options.poll.growFactor'],
    ['a status read timeout of 0', () => p.waitForTask(TASK, { timeout: 0 }), 'options.timeout: a number of milliseconds above 0'],
    ['onUpdate: 5', () => p.waitForTask(TASK, unsafe({ onUpdate: 5 })), 'options.onUpdate: a function'],
    ['countQueued: "yes"', () => p.waitForTask(TASK, unsafe({ countQueued: 'yes' })), 'options.countQueued: true or false'],
    ['notFoundGraceMs: -5', () => p.waitForTask(TASK, { notFoundGraceMs: -5 }), 'options.notFoundGraceMs'],
    ['a signal that is not an AbortSignal', () => p.waitForTask(TASK, unsafe({ signal: 'stop' })), 'options.signal: an AbortSignal'],
    ['a header with a line break', () => p.waitForTask(TASK, { headers: { 'x-a': 'b\r\nc' } }), 'options.headers.x-a: a header value without line breaks'],
    ['null wait options', () => p.waitForTask(TASK, unsafe(null)), 'options: an options object (or nothing)'],
    ['the 0.1.0 initialIntervalMs', () => p.waitForTask(TASK, unsafe({ initialIntervalMs: 500 })), 'options.initialIntervalMs: a known option'],
  ])('refuses %s', async (_name, call, issue) => {
    const issues = await refused(call);
    expect(issues.some((i) => i.startsWith(issue))).toBe(true);
  });

  it('refuses bad watchTask() options where the loop is written, not at the first iteration', () => {
    expect(() => p.watchTask(TASK, { poll: { maxDelayMs: 1 } })).toThrow(/options\.poll\.maxDelayMs/);
    expect(() => p.watchTask(TASK, unsafe({ onUpdate: () => undefined }))).toThrow(/options\.onUpdate: expected a known option/);
    expect(seen).toHaveLength(0);
  });

  it('lists the bad options and the bad params of a submission together', async () => {
    const issues = await refused(() => p.image.upscale(unsafe({ image: IMG, creativity: 11 }), { timeout: -1 }));
    expect(issues.map((i) => i.split(':')[0])).toEqual(['options.timeout', 'creativity']);
  });

  it('a statusPaths function that returns no route fails the wait with a ValidationError naming it', async () => {
    const custom = client({ statusPaths: { upscale: unsafe(() => undefined) } });
    const error = await custom.waitForTask(TASK).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]?.path).toBe('statusPaths.upscale');
    expect(seen).toHaveLength(0);
  });
});

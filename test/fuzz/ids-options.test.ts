// Hostile ids and option values into every public method and constructor. Each value is generated
// with whether it is valid (an oracle written apart from the SDK's rules): a call with any invalid
// value throws a ValidationError and sends nothing; a call with only valid values passes the
// checks (whatever the server then answers); every id that reaches the wire is exactly one path
// segment; nothing else is ever thrown (no TypeError for `null` options).
import fc from 'fast-check';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { CloudClient } from '../../src/index.js';
import { ProxyClient } from '../../src/proxy/client.js';
import { RegistryClient } from '../../src/registry/client.js';
import { useMsw } from '../helpers/msw.js';
import { expectBuiltinsUnchanged, expectNoSecret, expectSdkError, params, snapshotBuiltins } from './helpers.js';
import { CLOUD, createClients, PROXY, REGISTRY, SECRETS, WORKFLOW, type Clients } from './operations.js';

const { server, seen } = useMsw();

interface Tagged {
  value: unknown;
  /** `undefined`: the SDK may accept or refuse it (only the one-segment rule is checked). */
  valid: boolean | undefined;
}
const valid = (...values: unknown[]) => fc.constantFrom(...values).map((value): Tagged => ({ value, valid: true }));
const invalid = (...values: unknown[]) => fc.constantFrom(...values).map((value): Tagged => ({ value, valid: false }));

/** Decodes like a URL parser would, repeatedly: `%252e` is `.` twice removed. */
function isDots(id: string): boolean {
  let current = id;
  for (let i = 0; i < 4; i++) {
    if (current === '.' || current === '..') return true;
    try {
      const next = decodeURIComponent(current);
      if (next === current) return false;
      current = next;
    } catch {
      return false;
    }
  }
  return false;
}

const id: fc.Arbitrary<Tagged> = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9][\w.-]{0,15}$/).map((value): Tagged => ({ value, valid: true })) },
  { weight: 2, arbitrary: valid('a/b', 'a?b=1', 'a#b', '__proto__', 'constructor', 'toString', '%', '%zz', '...', 'a..b', 'ü', '😀', '%2F', 'x y', ' padded ', '\u0000x', 'x'.repeat(2_000)) },
  { weight: 3, arbitrary: invalid('', ' ', '\t\n', '.', '..', '%2e', '%2E%2e', '%2e.', '%252e%252e', '%25252e', 'a\ud800', '\udfff', null, undefined, 0, 42, Number.NaN, {}, [], ['a'], true, () => 'x', Symbol('x')) },
  { weight: 1, arbitrary: valid('1.2', '1.2.0', 'v2.0.1', '1.0.0-beta.1', '0.4', '10.20.30+build.5', '1.2.x', '1.2_3', 'v1', '1') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).map((value): Tagged => ({ value, valid: value.trim() !== '' && !isDots(value) && !/[\ud800-\udfff]/.test(value.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')) ? undefined : false })) },
);

/** Option fields by name, each a valid or invalid value. */
const FIELDS: Record<string, fc.Arbitrary<Tagged>> = {
  timeout: fc.oneof(valid(1, 1_000, 0.5, 2_147_483_647), invalid(0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '100', null, true, {})),
  totalTimeout: fc.oneof(valid(5, 60_000), invalid(0, -5, Number.NaN, '1', null)),
  retry: fc.oneof(
    valid(false, {}, { limit: 0 }, { limit: 10, budgetMs: 0 }, { minDelayMs: 0, maxDelayMs: 5, growFactor: 1 }),
    invalid(true, null, 'x', 3, { limit: -1 }, { limit: 11 }, { limit: 1.5 }, { growFactor: 0 }, { minDelayMs: -1 }, { budgetMs: Number.NaN }, { limt: 1 }),
  ),
  headers: fc.oneof(valid({}, { 'x-trace': 'a' }, { 'X-Custom_1': '' }), invalid(null, 'x', [], { 'bad name': 'x' }, { x: 'a\nb' }, { x: 'a\r' }, { x: 1 }, { x: null })),
  signal: fc.oneof(valid(new AbortController().signal), invalid({}, { aborted: false }, 'signal', null, true)),
  waitTimeout: fc.oneof(valid(false, 50, 60_000), invalid(0, -1, Number.NaN, true, '1', null)),
  poll: fc.oneof(valid({}, { minDelayMs: 100 }, { minDelayMs: 100, maxDelayMs: 200, growFactor: 1.5 }), invalid(null, 5, { minDelayMs: 99 }, { maxDelayMs: 0 }, { growFactor: 0.5 }, { growFactor: 11 }, { every: 1 })),
  validate: fc.oneof(valid(true, false), invalid('no', 0, null)),
  countQueued: fc.oneof(valid(true, false), invalid(1, 'true')),
  notFoundGraceMs: fc.oneof(valid(0, 1_000), invalid(-1, Number.NaN, '5')),
  onUpdate: fc.oneof(valid(() => undefined), invalid(5, 'f', {})),
  onSubmitted: fc.oneof(valid(() => undefined), invalid(5, 'f')),
  onEvent: fc.oneof(valid(() => undefined), invalid(null, [])),
  download: fc.oneof(valid(true, false), invalid('yes')),
};
const REQUEST = ['timeout', 'totalTimeout', 'retry', 'headers', 'signal'];
const WATCH = ['signal', 'waitTimeout', 'poll'];
const WAIT_TASK = ['signal', 'waitTimeout', 'poll', 'countQueued', 'notFoundGraceMs', 'timeout', 'headers', 'onUpdate'];

/** An options argument: absent, not an object, or an object of some fields (maybe an unknown one, maybe an own `__proto__`). */
function options(names: readonly string[]): fc.Arbitrary<Tagged> {
  const object = fc
    .tuple(fc.subarray([...new Set(names)]), fc.boolean(), fc.constantFrom('none', 'unknown', 'proto'))
    .chain(([picked, _, extra]) =>
      fc.tuple(...picked.map((name) => (FIELDS[name] as fc.Arbitrary<Tagged>).map((t) => [name, t] as const))).map((entries): Tagged => {
        const value: Record<string, unknown> = extra === 'proto' ? (JSON.parse('{"__proto__": {"timeout": -1}}') as Record<string, unknown>) : {};
        if (extra === 'unknown') value.timout = 1_000;
        for (const [name, t] of entries) value[name] = t.value;
        return { value, valid: extra === 'none' && entries.every(([, t]) => t.valid) };
      }),
    );
  return fc.oneof({ weight: 1, arbitrary: valid(undefined) }, { weight: 1, arbitrary: invalid(null, 0, 'options', [], () => ({}), true) }, { weight: 6, arbitrary: object });
}

/** One public method: its ids, its option vocabulary, the route its ids go to, and a call. */
interface Target {
  name: string;
  ids: number;
  options: readonly string[];
  /** The position of an id that is a version's UUID, where a semantic version is refused. */
  versionIdAt?: number;
  /** The paths its requests may have, built from the ids (each encoded as one segment). */
  route?: (ids: string[]) => string | string[];
  call(c: Clients, ids: unknown[], options: unknown): unknown;
}

const e = encodeURIComponent;
const TARGETS: Target[] = [
  { name: 'cloud.nodes.list', ids: 0, options: REQUEST, call: (c, _, o) => c.cloud.nodes.list(o as never) },
  { name: 'cloud.nodes.get', ids: 1, options: REQUEST, route: ([a]) => `/api/object_info/${e(a!)}`, call: (c, [a], o) => c.cloud.nodes.get(a as never, o as never) },
  { name: 'cloud.jobs.getStatus', ids: 1, options: REQUEST, route: ([a]) => `/api/job/${e(a!)}/status`, call: (c, [a], o) => c.cloud.jobs.getStatus(a as never, o as never) },
  { name: 'cloud.jobs.getOutputs', ids: 1, options: REQUEST, route: ([a]) => [`/api/jobs/${e(a!)}`, `/api/history_v2/${e(a!)}`, `/history/${e(a!)}`], call: (c, [a], o) => c.cloud.jobs.getOutputs(a as never, o as never) },
  { name: 'cloud.jobs.watch', ids: 1, options: WATCH, route: ([a]) => `/api/job/${e(a!)}/status`, call: (c, [a], o) => c.cloud.jobs.watch(a as never, o as never).result() },
  { name: 'cloud.jobs.get', ids: 1, options: REQUEST, route: ([a]) => `/api/jobs/${e(a!)}`, call: (c, [a], o) => c.cloud.jobs.get(a as never, o as never) },
  { name: 'cloud.jobs.cancel', ids: 1, options: REQUEST, route: ([a]) => [`/api/jobs/${e(a!)}/cancel`, `/api/job/${e(a!)}/status`, '/api/queue', '/api/interrupt'], call: (c, [a], o) => c.cloud.jobs.cancel(a as never, o as never) },
  { name: 'cloud.jobs.list', ids: 0, options: REQUEST, call: (c, _, o) => c.cloud.jobs.list({}, o as never) },
  { name: 'cloud.jobs.getQueue', ids: 0, options: REQUEST, call: (c, _, o) => c.cloud.jobs.getQueue(o as never) },
  { name: 'cloud.jobs.interruptAll', ids: 0, options: REQUEST, call: (c, _, o) => c.cloud.jobs.interruptAll(o as never) },
  { name: 'cloud.jobs.submit', ids: 0, options: [...REQUEST, 'validate'], call: (c, _, o) => c.cloud.jobs.submit(WORKFLOW, o as never) },
  { name: 'cloud.validateWorkflow', ids: 0, options: REQUEST, call: (c, _, o) => c.cloud.validateWorkflow(WORKFLOW, o as never) },
  { name: 'cloud.runWorkflow', ids: 0, options: [...REQUEST, ...WATCH, 'validate', 'download', 'onEvent', 'onSubmitted'], call: (c, _, o) => c.cloud.runWorkflow(WORKFLOW, o as never) },
  { name: 'cloud.files.get', ids: 0, options: REQUEST, call: (c, _, o) => c.cloud.files.get({ filename: 'a.png' }, o as never) },
  { name: 'registry.nodes.get', ids: 1, options: REQUEST, route: ([a]) => `/nodes/${e(a!)}`, call: (c, [a], o) => c.registry.nodes.get(a as never, o as never) },
  { name: 'registry.nodes.update', ids: 2, options: REQUEST, route: ([p, n]) => `/publishers/${e(p!)}/nodes/${e(n!)}`, call: (c, [p, n], o) => c.registry.nodes.update(p as never, n as never, { description: 'x' }, o as never) },
  { name: 'registry.nodes.delete', ids: 2, options: REQUEST, route: ([p, n]) => `/publishers/${e(p!)}/nodes/${e(n!)}`, call: (c, [p, n], o) => c.registry.nodes.delete(p as never, n as never, o as never) },
  { name: 'registry.nodes.review', ids: 1, options: REQUEST, route: ([n]) => `/nodes/${e(n!)}/reviews`, call: (c, [n], o) => c.registry.nodes.review(n as never, 3, o as never) },
  { name: 'registry.nodes.versions', ids: 1, options: REQUEST, route: ([n]) => `/nodes/${e(n!)}/versions`, call: (c, [n], o) => c.registry.nodes.versions(n as never, {}, o as never) },
  { name: 'registry.nodes.version', ids: 2, options: REQUEST, route: ([n, v]) => `/nodes/${e(n!)}/versions/${e(v!)}`, call: (c, [n, v], o) => c.registry.nodes.version(n as never, v as never, o as never) },
  { name: 'registry.nodes.install', ids: 1, options: REQUEST, route: ([n]) => `/nodes/${e(n!)}/install`, call: (c, [n], o) => c.registry.nodes.install(n as never, o as never) },
  { name: 'registry.versions.delete', ids: 3, versionIdAt: 2, options: REQUEST, route: ([p, n, v]) => `/publishers/${e(p!)}/nodes/${e(n!)}/versions/${e(v!)}`, call: (c, [p, n, v], o) => c.registry.versions.delete(p as never, n as never, v as never, o as never) },
  { name: 'registry.graphNodes.update', ids: 3, options: REQUEST, route: ([n, v, g]) => `/nodes/${e(n!)}/versions/${e(v!)}/graph-nodes/${e(g!)}`, call: (c, [n, v, g], o) => c.registry.graphNodes.update(n as never, v as never, g as never, {}, o as never) },
  { name: 'registry.publishers.get', ids: 1, options: REQUEST, route: ([p]) => `/publishers/${e(p!)}`, call: (c, [p], o) => c.registry.publishers.get(p as never, o as never) },
  { name: 'registry.publishers.permissions', ids: 1, options: REQUEST, route: ([p]) => `/publishers/${e(p!)}/permissions`, call: (c, [p], o) => c.registry.publishers.permissions(p as never, o as never) },
  { name: 'registry.publishers.deleteToken', ids: 2, options: REQUEST, route: ([p, t]) => `/publishers/${e(p!)}/tokens/${e(t!)}`, call: (c, [p, t], o) => c.registry.publishers.deleteToken(p as never, t as never, o as never) },
  { name: 'registry.versions.list', ids: 0, options: REQUEST, call: (c, _, o) => c.registry.versions.list({}, o as never) },
  { name: 'proxy.waitForTask', ids: 1, options: WAIT_TASK, route: ([t]) => `/proxy/videovendor/tasks/${e(t!)}/creations`, call: (c, [t], o) => c.proxy.waitForTask({ kind: 'extend', taskId: t as string }, o as never) },
  { name: 'proxy.watchTask', ids: 1, options: WAIT_TASK.filter((n) => n !== 'onUpdate'), route: ([t]) => `/proxy/imagevendor/v1/ai/image-upscaler/${e(t!)}`, call: async (c, [t], o) => { for await (const s of c.proxy.watchTask({ kind: 'upscale', taskId: t as string }, o as never)) void s; } },
  { name: 'proxy.image.upscale', ids: 0, options: [...REQUEST, 'validate', 'onSubmitted'], call: (c, _, o) => c.proxy.image.upscale({ image: 'https://cdn.fuzz.test/a.png' }, o as never) },
];

/**
 * Where a version's UUID is needed, a semantic version is a mistake the SDK refuses (the server
 * would answer a bare 404). Clear ones (`1.2`, `v2.0.1`, `1.0.0-beta.1`) are invalid there; other
 * ids that start like one (`1.2_3`, `1.2.x`) may be accepted or refused.
 */
function asVersionId(tag: Tagged): Tagged {
  if (typeof tag.value !== 'string' || tag.valid === false) return tag;
  if (/^v?\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.-]+)*$/.test(tag.value)) return { value: tag.value, valid: false };
  if (/^v?\d+\.\d+/.test(tag.value)) return { value: tag.value, valid: undefined };
  return tag;
}

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

describe('every public method, with hostile ids and option values', () => {
  it('refuses an invalid value with a ValidationError before any request, passes valid ones, and sends each id as one path segment', async () => {
    // Every route answers 404: a call that passed its checks ends at once with an SDK error.
    server.use(http.all('*', () => HttpResponse.json({ message: 'Not Found' }, { status: 404 })));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TARGETS).chain((t) => fc.tuple(fc.constant(t), fc.array(id, { minLength: t.ids, maxLength: t.ids }), options(t.options))), async ([target, generated, opts]) => {
        const ids = generated.map((tag, index) => (index === target.versionIdAt ? asVersionId(tag) : tag));
        seen.length = 0;
        const before = snapshotBuiltins();
        const clients = createClients();
        const { error } = await outcome(() => target.call(clients, ids.map((i) => i.value), opts.value));
        await clients.close();
        const allValid = opts.valid === true && ids.every((i) => i.valid === true);
        const someInvalid = opts.valid === false || ids.some((i) => i.valid === false);
        const label = `${target.name}(${ids.map((i) => String(i.value)).join(', ')}) ${String(error)}`;
        if (error !== undefined) expectSdkError(error, (opts.value as { signal?: AbortSignal } | undefined)?.signal?.reason);
        if (error instanceof ValidationError) expect(seen, label).toHaveLength(0);
        if (someInvalid) expect(error, label).toBeInstanceOf(ValidationError);
        if (allValid) expect(error, label).not.toBeInstanceOf(ValidationError);
        const routes = target.route && seen.length > 0 ? [target.route(ids.map((i) => String(i.value)))].flat() : undefined;
        for (const request of routes ? seen : []) expect(routes, label).toContain(request.url.pathname);
        expectBuiltinsUnchanged(before);
        expectNoSecret([error, ...clients.payloads], Object.values(SECRETS));
      }),
      params(1_500),
    );
  }, 300_000);
});

/** Constructor options: the shared ones with an oracle, each client's own ones besides. */
const CONSTRUCTORS: [string, readonly string[], (options: unknown) => { close(): Promise<void> }][] = [
  ['CloudClient', ['apiKey', 'runtime', 'clientId', 'watcher', 'statusMap', 'outputRoutes', 'WebSocket'], (o) => new CloudClient(o as never)],
  ['RegistryClient', ['token'], (o) => new RegistryClient(o as never)],
  ['ProxyClient', ['token', 'apiKey', 'wait', 'statusPaths', 'base64Format'], (o) => new ProxyClient(o as never)],
];
const OWN: Record<string, fc.Arbitrary<Tagged>> = {
  apiKey: fc.oneof(valid(SECRETS.apiKey, () => SECRETS.apiKey), invalid('', '  ', 42, null, {})),
  token: fc.oneof(valid(SECRETS.token, async () => SECRETS.token), invalid('', 7, null, [])),
  runtime: fc.oneof(valid('cloud', 'local', 'auto'), invalid('remote', '', 1, null)),
  clientId: fc.oneof(valid('c-1'), invalid('', 5, null)),
  watcher: fc.oneof(valid({}, { waitTimeout: false }, { socket: { minDelayMs: 10 } }, { hold: { maxBytes: 0 } }, { poll: { concurrency: 1 } }), invalid(null, 'x', { socket: { minDelayMs: 1 } }, { poll: { concurrency: 0 } }, { hold: { maxBytes: -1 } }, { waitTimeout: 0 }, { socket: { authCloseCodes: [999] } }, { poll: { minDelayMs: 500, maxDelayMs: 200 } }, { sockett: {} })),
  statusMap: fc.oneof(valid({}, { queued_x: { status: 'pending', terminal: false } }), invalid(null, { x: { status: 'done' } }, { x: 'pending' })),
  outputRoutes: fc.oneof(valid(['/api/jobs/{id}']), invalid([], ['/api/jobs'], ['api/{id}'], '/api/{id}', null)),
  WebSocket: fc.oneof(valid(globalThis.WebSocket), invalid('ws', {}, null)),
  wait: fc.oneof(valid({}, { waitTimeout: 1_000 }, { countQueued: true }), invalid(null, { waitTimeout: -1 }, { poll: { minDelayMs: 1 } }, { onUpdate: () => 1 })),
  statusPaths: fc.oneof(valid({}, { upscale: '/u/{task_id}' }, { extend: (idValue: string) => `/v/${idValue}` }), invalid(null, { upscale: 5 }, { nothing: '/x/{task_id}' })),
  base64Format: fc.oneof(valid({}, { image: 'data-url' }, { video: 'raw' }), invalid(null, { image: 'hex' }, { audio: 'raw' })),
  baseUrl: fc.oneof(valid(CLOUD, REGISTRY, `${PROXY}/base/`, 'http://127.0.0.1:1'), invalid('', 'cloud.test', 'ftp://x.test', 'http://', null, 42, 'javascript:alert(1)')),
};

describe('new RegistryClient() without options or baseUrl', () => {
  it.each([
    ['no options', undefined, 'options'],
    ['no baseUrl', { token: SECRETS.token }, 'options.baseUrl'],
  ])('is a ValidationError naming what is missing: %s', (_name, argument, path) => {
    const error = outcomeSync(() => new RegistryClient(argument as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual([path]);
  });
});

describe('every client constructor, with hostile option values', () => {
  it('constructs with valid options and throws a ValidationError naming the option otherwise', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CONSTRUCTORS).chain(([name, own, make]) => {
        const names = ['baseUrl', ...own, 'timeout', 'totalTimeout', 'retry', 'headers'];
        const arbitrary = fc.subarray(names.slice(1)).chain((picked) => fc.tuple(OWN.baseUrl as fc.Arbitrary<Tagged>, ...picked.map((n) => (OWN[n] ?? FIELDS[n]) as fc.Arbitrary<Tagged>).map((a, i) => a.map((t) => [picked[i] as string, t] as const))));
        return fc.tuple(fc.constant(name), fc.constant(make), arbitrary, fc.constantFrom('object', 'null', 'none', 'unknown'));
      }), async ([name, make, [base, ...fields], shape]) => {
        const before = snapshotBuiltins();
        const value: Record<string, unknown> = { baseUrl: base.value };
        for (const [field, t] of fields) value[field] = t.value;
        if (shape === 'unknown') value.timout = 5;
        const argument = shape === 'null' ? null : shape === 'none' ? undefined : value;
        const has = (field: string) => fields.some(([f]) => f === field);
        // The proxy takes one credential, a token or an API key; the cloud needs its key.
        const conflicting = (has('token') && has('apiKey')) || (name === 'CloudClient' && value.runtime === 'cloud' && !has('apiKey'));
        const validAll = shape !== 'null' && shape !== 'none' && shape !== 'unknown' && !conflicting && base.valid === true && fields.every(([, t]) => t.valid === true);
        let error: unknown;
        try {
          await make(argument).close();
        } catch (caught) {
          error = caught;
        }
        const label = `new ${name}(${JSON.stringify(argument, (_k, v) => (typeof v === 'function' ? 'fn' : v))}) ${String(error)}`;
        if (error !== undefined) expectSdkError(error);
        if (validAll) expect(error, label).toBeUndefined();
        else expect(error, label).toBeInstanceOf(ValidationError);
        expectBuiltinsUnchanged(before);
        expectNoSecret([error], Object.values(SECRETS));
      }),
      params(600),
    );
  });
});

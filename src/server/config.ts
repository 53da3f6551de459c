import { backoffRules, Checker, checkOptions, credentialRule, isDotSegment, isPlainObject, rule, type Credential, type OptionRules, type Rule } from '../core/index.js';
import type { BodyLimits } from './body.js';
import { RELAY_DEFAULTS } from './defaults.js';
import type { RelayOptions, RelayWebSocketConstructor } from './options.js';
import { RELAY_DEFAULT_ROUTES, RELAY_ROUTES, RouteTable, type CustomRoute, type RouteName, type UpstreamName } from './routes.js';

/** The relay's options, checked and with every default filled in. */
export interface RelayConfig {
  upstreams: Partial<Record<UpstreamName, { url: string; auth: UpstreamAuth | undefined }>>;
  apiKey: Credential | undefined;
  secrets: string[];
  authorize: NonNullable<RelayOptions['authorize']> | undefined;
  basePath: string;
  routes: RouteTable;
  onSubmit: RelayOptions['onSubmit'];
  onTaskSubmit: RelayOptions['onTaskSubmit'];
  partnerApiKey: boolean;
  viewMode: 'stream' | 'url';
  allowedOrigins: Set<string>;
  viewOrigins: Set<string> | undefined;
  maxBodyBytes: number;
  /** `maxBodyBytes` and `bodyTimeoutMs`, as the body readers take them. */
  bodyLimits: BodyLimits;
  timeout: number;
  tokenTtlMs: number;
  outputsCacheMs: number;
  outputsCacheSize: number;
  clientId: string;
  socket: RelaySocketPolicy;
  WebSocket: RelayWebSocketConstructor | undefined;
  fetch: typeof fetch;
  onError: RelayOptions['onError'];
}

/** How the credential of one upstream travels. */
export interface UpstreamAuth {
  header: 'X-API-Key' | 'Authorization';
  credential: Credential;
}

/** The socket policy with every default filled in. */
export type RelaySocketPolicy = {
  maxSubscriptions: number;
  maxMessageBytes: number;
  maxBufferedBytes: number;
  openTimeoutMs: number;
  idleCloseMs: number;
  hold: { maxBytes: number; maxPreviewBytes: number; maxAgeMs: number };
  reconnect: { minDelayMs: number; maxDelayMs: number; growFactor: number; minUptimeMs: number; connectionTimeoutMs: number };
};

const MIN_SECRET_LENGTH = 32;
const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

const positiveInteger: Rule = (check, path, value) => check.integer(path, value, { min: 1 });
const byteCount: Rule = (check, path, value) => check.integer(path, value, { min: 0 });
const url: Rule = (check, path, value) => {
  if (value === undefined) return;
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value) || !URL.canParse(value)) check.fail(path, 'an absolute http(s) URL such as https://cloud.example.com', typeof value === 'string' ? '(not an absolute http(s) URL)' : value);
};
const secretRule: Rule = (check, path, value) => {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? (value as unknown[]) : undefined;
  // A secret is never echoed: only its length or type.
  if (!list || list.length === 0) return check.fail(path, `a string of at least ${MIN_SECRET_LENGTH} characters (or a non-empty list of them), the same on every instance`, value === undefined ? undefined : typeof value);
  list.forEach((item, i) => {
    const at = typeof value === 'string' ? path : `${path}[${i}]`;
    if (typeof item !== 'string' || item.length < MIN_SECRET_LENGTH) check.fail(at, `a string of at least ${MIN_SECRET_LENGTH} characters (crypto.randomUUID() twice, or 32 random bytes in hex)`, typeof item === 'string' ? `${item.length} characters` : typeof item);
  });
};
const basePathRule: Rule = (check, path, value) => {
  if (value === undefined || value === '') return;
  if (typeof value !== 'string' || !/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/.test(value)) check.fail(path, 'a path such as /api/graphcloud (starting with "/", no trailing "/", no query)', value);
};
const routesRule: Rule = (check, path, value) => {
  if (value === undefined) return;
  if (!Array.isArray(value)) return check.fail(path, 'a list of route names and { method, path, upstream } routes', value);
  (value as unknown[]).forEach((item, i) => {
    const at = `${path}[${i}]`;
    if (typeof item === 'string') {
      if (!Object.hasOwn(RELAY_ROUTES, item)) check.fail(at, `one of: ${Object.keys(RELAY_ROUTES).join(', ')}`, item);
      return;
    }
    if (!checkOptions(check, at, item, { method: rule.oneOf(ROUTE_METHODS), path: rule.string, upstream: rule.oneOf(['cloud', 'proxy', 'registry']) })) return;
    const route = item as Partial<CustomRoute>;
    if (route.method === undefined || route.upstream === undefined) check.fail(at, 'a route { method, path, upstream }', '(incomplete route)');
    const valid = typeof route.path === 'string' && /^(\/(:?[A-Za-z0-9._~-]+|\*))+$/.test(route.path) && !/\*./.test(route.path) && !route.path.split('/').some(isDotSegment);
    if (!valid) check.fail(`${at}.path`, 'a path such as /api/userdata/:file (":name" for one segment, a final "*" for the rest)', route.path);
  });
};
const originsRule: Rule = (check, path, value) => {
  if (value === undefined) return;
  if (!Array.isArray(value)) return check.fail(path, 'a list of origins such as https://app.example.com', value);
  (value as unknown[]).forEach((item, i) => {
    if (typeof item !== 'string' || !URL.canParse(item) || new URL(item).origin !== item.replace(/\/$/, '')) check.fail(`${path}[${i}]`, 'an origin: scheme, host and port, such as https://app.example.com', item);
  });
};

const SOCKET_RULES: OptionRules = {
  maxSubscriptions: positiveInteger,
  maxMessageBytes: (check, path, value) => check.integer(path, value, { min: 256, max: 1024 * 1024 }),
  maxBufferedBytes: positiveInteger,
  openTimeoutMs: rule.duration,
  idleCloseMs: rule.duration,
  hold: rule.object({ maxBytes: byteCount, maxPreviewBytes: byteCount, maxAgeMs: rule.duration }),
  reconnect: rule.object({ ...backoffRules(50), minUptimeMs: rule.duration, connectionTimeoutMs: rule.duration }),
};

const RELAY_RULES: OptionRules = Object.freeze({
  cloudUrl: url,
  apiKey: credentialRule,
  secret: secretRule,
  authorize: rule.callback,
  dangerouslyAllowAnyone: rule.boolean,
  basePath: basePathRule,
  routes: routesRule,
  proxyUrl: url,
  proxyToken: credentialRule,
  registryUrl: url,
  registryToken: credentialRule,
  onSubmit: rule.callback,
  onTaskSubmit: rule.callback,
  partnerApiKey: rule.boolean,
  viewMode: rule.oneOf(['stream', 'url']),
  allowedOrigins: originsRule,
  viewOrigins: originsRule,
  maxBodyBytes: positiveInteger,
  bodyTimeoutMs: (check, path, value) => check.integer(path, value, { min: 1, max: 2 ** 31 - 1 }),
  timeout: rule.duration,
  tokenTtlMs: rule.duration,
  clientId: rule.string,
  socket: rule.object(SOCKET_RULES),
  WebSocket: rule.callback,
  fetch: rule.callback,
  onError: rule.callback,
});

/**
 * Checks the options of `createRelay()` and fills in the defaults.
 *
 * @throws {@link ValidationError} naming every bad option; the relay does not start.
 * @example
 * ```ts
 * const config = resolveRelayConfig({ cloudUrl, apiKey, secret, authorize });
 * ```
 */
export function resolveRelayConfig(options: RelayOptions): RelayConfig {
  const check = new Checker();
  if (!checkOptions(check, 'options', options, RELAY_RULES)) {
    if (options === undefined) check.fail('options', 'an options object with cloudUrl, secret and authorize', options);
    check.throwIfInvalid('createRelay()');
  }
  if (options.cloudUrl === undefined) check.fail('options.cloudUrl', 'the cloud base URL, such as https://cloud.example.com', undefined);
  if (options.secret === undefined) secretRule(check, 'options.secret', undefined);
  if (options.authorize === undefined && options.dangerouslyAllowAnyone !== true) {
    check.fail('options.authorize', 'a function (request) => boolean | Response that checks your session; or dangerouslyAllowAnyone: true for local development only', undefined);
  } else if (options.authorize !== undefined && options.dangerouslyAllowAnyone === true) {
    check.fail('options.dangerouslyAllowAnyone', 'left out when authorize is given', true);
  }
  const names = (options.routes ?? RELAY_DEFAULT_ROUTES) as readonly (RouteName | CustomRoute)[];
  const listed = options.routes !== undefined;
  const needs = (upstream: UpstreamName) => Array.isArray(names) && names.some((route) => (typeof route === 'string' ? Object.hasOwn(RELAY_ROUTES, route) && RELAY_ROUTES[route as RouteName].upstream === upstream : isPlainObject(route) && route.upstream === upstream));
  if (listed && needs('proxy') && options.proxyUrl === undefined) check.fail('options.proxyUrl', 'the media proxy URL (a listed route goes to the proxy)', undefined);
  if (needs('registry') && options.registryUrl === undefined) check.fail('options.registryUrl', 'the registry URL (a listed route goes to the registry)', undefined);
  check.throwIfInvalid('createRelay()');

  // Task routes are in the defaults; without a proxy URL they are simply not served.
  const served = listed ? names : names.filter((name) => typeof name !== 'string' || RELAY_ROUTES[name].upstream !== 'proxy' || options.proxyUrl !== undefined);
  const apiKeyAuth = options.apiKey === undefined ? undefined : ({ header: 'X-API-Key', credential: options.apiKey } as const);
  const bearer = (credential: Credential | undefined) => (credential === undefined ? apiKeyAuth : ({ header: 'Authorization', credential } as const));
  const socket = options.socket ?? {};
  const defaults = RELAY_DEFAULTS.socket;
  return {
    upstreams: {
      cloud: { url: trim(options.cloudUrl), auth: apiKeyAuth },
      ...(options.proxyUrl ? { proxy: { url: trim(options.proxyUrl), auth: bearer(options.proxyToken) } } : {}),
      ...(options.registryUrl ? { registry: { url: trim(options.registryUrl), auth: bearer(options.registryToken) } } : {}),
    },
    apiKey: options.apiKey,
    secrets: typeof options.secret === 'string' ? [options.secret] : [...options.secret],
    authorize: options.authorize,
    basePath: options.basePath ?? '',
    routes: new RouteTable(served),
    onSubmit: options.onSubmit,
    onTaskSubmit: options.onTaskSubmit,
    partnerApiKey: options.partnerApiKey ?? false,
    viewMode: options.viewMode ?? 'stream',
    allowedOrigins: new Set((options.allowedOrigins ?? []).map((origin) => new URL(origin).origin)),
    viewOrigins: options.viewOrigins ? new Set(options.viewOrigins.map((origin) => new URL(origin).origin)) : undefined,
    maxBodyBytes: options.maxBodyBytes ?? RELAY_DEFAULTS.maxBodyBytes,
    bodyLimits: { maxBytes: options.maxBodyBytes ?? RELAY_DEFAULTS.maxBodyBytes, timeoutMs: options.bodyTimeoutMs ?? RELAY_DEFAULTS.bodyTimeoutMs },
    timeout: options.timeout ?? RELAY_DEFAULTS.timeout,
    tokenTtlMs: options.tokenTtlMs ?? RELAY_DEFAULTS.tokenTtlMs,
    outputsCacheMs: RELAY_DEFAULTS.outputsCacheMs,
    outputsCacheSize: RELAY_DEFAULTS.outputsCacheSize,
    clientId: options.clientId ?? crypto.randomUUID(),
    socket: {
      maxSubscriptions: socket.maxSubscriptions ?? defaults.maxSubscriptions,
      maxMessageBytes: socket.maxMessageBytes ?? defaults.maxMessageBytes,
      maxBufferedBytes: socket.maxBufferedBytes ?? defaults.maxBufferedBytes,
      openTimeoutMs: socket.openTimeoutMs ?? defaults.openTimeoutMs,
      idleCloseMs: socket.idleCloseMs ?? defaults.idleCloseMs,
      hold: { ...defaults.hold, ...defined(socket.hold) },
      reconnect: { ...defaults.reconnect, ...defined(socket.reconnect) },
    },
    WebSocket: options.WebSocket,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    onError: options.onError,
  };
}

function trim(value: string): string {
  return value.replace(/\/+$/, '');
}

/** The fields of an options object that are not `undefined` (an option given as `undefined` keeps its default). */
function defined<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

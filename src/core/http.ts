import ky, { type KyInstance } from 'ky';
import type * as z from 'zod/mini';
import { resolveAuth, type AuthHeader, type AuthScheme, type Credential } from './auth.js';
import { HTTP_DEFAULTS } from './defaults.js';
import { errorCode } from './errors/connection-error.js';
import { ClientClosedError, ConnectionError, createApiError, GraphcloudError, TimeoutError, type ApiError } from './errors/index.js';
import { guardStream, raceSignal, readText } from './guard.js';
import { assertOptions, REQUEST_RULES } from './option-rules.js';
import type { ClientOptions, RequestOptions, RetryPolicy } from './options.js';
import { redactFields, redactHeaders, redactUrl, scrubSecrets, SECRET_HEADERS } from './redact.js';
import { backoffDelay, isTransientError, isTransientStatus, parseRetryAfter } from './retry.js';
import { callSafely } from './callbacks.js';
import { parseResponse } from './schema.js';
import { sleep } from './sleep.js';
import { appendQuery, buildUrl, resolveBaseUrl, type QueryValue } from './url.js';

/** Credentials shorter than this are not scrubbed from success answers (see `RequestSpec.scrubAnswer`). */
const ANSWER_SECRET_MIN_LENGTH = 8;

/** How a client of the core is configured: the public options plus its auth and retry rules. */
export interface HttpClientConfig extends ClientOptions {
  auth?: { scheme: AuthScheme; credential: Credential } | undefined;
  /** Statuses an idempotent request retries; the cloud excludes 429 (subscription inactive). */
  isRetryableStatus?: ((status: number) => boolean) | undefined;
  /** Gives a client's own meaning to an error status (the cloud's 402, 429, workflow 400s). */
  mapError?: ((error: ApiError) => GraphcloudError) | undefined;
  /** The client's name in a `ClientClosedError`: `CloudClient`, `RegistryClient`... */
  clientName?: string | undefined;
}

/**
 * A request body fetch accepts. Spelled through `RequestInit` (declared by the DOM library and by
 * Node's types alike), not `BodyInit` (DOM only): the declarations reach users' compilers.
 */
export type RequestBody = NonNullable<RequestInit['body']>;

/** One call to the API. */
export interface RequestSpec<S extends z.ZodMiniType | undefined = undefined> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Path relative to the base URL (encode segments with the `path` tag), or an absolute URL. */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  /** JSON body. */
  json?: unknown;
  /** Any other body (a `FormData` gets its multipart content type from fetch). */
  body?: RequestBody | undefined;
  /** Schema of the success body; without one the body is ignored and `undefined` returned. */
  schema?: S;
  /** Credentials the body carries (a partner key, a personal access token): scrubbed from every error. */
  secrets?: readonly string[] | undefined;
  /** Answer fields that hold a secret (a token created just now): their values never reach an error. */
  secretFields?: readonly string[] | undefined;
  /**
   * The success body reaches the caller's objects whole (a media task's `raw`), so credentials the
   * request carried are scrubbed from it too, as they always are from error bodies. Only those of
   * 8 characters or more: a shorter one is a placeholder (`token: 'relay'` through the relay of
   * graphcloud/server), and replacing it would corrupt the answer (`relay_token`).
   */
  scrubAnswer?: boolean | undefined;
  /** Send no credential at all, even to the client's own origin (a signed upload URL). */
  anonymous?: boolean | undefined;
  /** Override idempotency; POST is never retried unless this says so explicitly. */
  idempotent?: boolean | undefined;
  /**
   * The body is large and must stream: sent with fetch's `redirect: 'error'`, because any other
   * mode makes fetch tee the body to replay it on a redirect, buffering all of it in memory. A
   * redirect answer then fails the call (uploads are not redirected).
   */
  streamBody?: boolean | undefined;
  /**
   * Once sent, the request is not aborted by `close()`: a paid submission's answer names the job,
   * and losing it would lose the job. `close()` still refuses to start such a request.
   */
  finishOnClose?: boolean | undefined;
  options?: RequestOptions | undefined;
}

const MAX_REDIRECTS = 5;
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'cf-ray'];

/**
 * The shared fetch core: the only code that calls ky. Attaches credentials to the client's own
 * origin only, follows redirects itself (dropping credentials across origins), retries idempotent
 * calls within attempts and a clock budget, validates bodies, and redacts everything it reports.
 */
export class HttpClient {
  readonly baseUrl: string;
  readonly #origin: string;
  readonly #ky: KyInstance;
  readonly #config: HttpClientConfig;
  readonly #life = new AbortController();

  constructor(config: HttpClientConfig) {
    // A path (a relay on the page's own server) is resolved against the page, in a browser only.
    const baseUrl = resolveBaseUrl(config.baseUrl);
    if (baseUrl === undefined) {
      throw new GraphcloudError(`baseUrl must be an absolute URL such as https://api.example.com, received ${JSON.stringify(redactUrl(String(config.baseUrl)))}`);
    }
    const origin = new URL(baseUrl).origin;
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#origin = origin;
    this.#config = config;
    this.#ky = ky.create({ retry: 0, timeout: false, throwHttpErrors: false, ...(config.fetch ? { fetch: config.fetch } : {}) });
  }

  /** Aborts (reason: a `ClientClosedError`) when the client is closed. */
  get closed(): AbortSignal {
    return this.#life.signal;
  }

  /** Rejects every call in flight and every later call with a `ClientClosedError`. */
  close(): void {
    if (!this.#life.signal.aborted) this.#life.abort(new ClientClosedError(this.#config.clientName ?? 'client'));
  }

  /** Throws the `ClientClosedError` once the client is closed. */
  throwIfClosed(): void {
    if (this.#life.signal.aborted) throw this.#life.signal.reason;
  }

  /** The client's credential for this moment (a function is called), or `undefined` without one. */
  async credential(): Promise<string | undefined> {
    return (await this.#auth())?.secret;
  }

  /** Sends the call and returns its validated body. */
  async request<S extends z.ZodMiniType>(spec: RequestSpec<S> & { schema: S }): Promise<z.infer<S>>;
  async request(spec: RequestSpec): Promise<undefined>;
  async request(spec: RequestSpec<z.ZodMiniType | undefined>): Promise<unknown> {
    return this.#run(spec, async (response, url, secret, signal) => {
      const read = await readBody(response, signal);
      if (!spec.schema) return undefined;
      const body = spec.scrubAnswer ? scrubSecrets(read, secret, ANSWER_SECRET_MIN_LENGTH) : read;
      return parseResponse(spec.schema, body, spec.method, url, secret, spec.secretFields);
    });
  }

  /**
   * Sends the call and returns the successful `Response` unread (for downloads and streams). Its
   * body fails with a `TimeoutError` when no byte arrives for `timeout` or past `totalTimeout`, and
   * with the caller's reason on abort.
   */
  async requestRaw(spec: RequestSpec): Promise<Response> {
    return this.#run(spec, async (response) => response, false);
  }

  async #run<T>(spec: RequestSpec<z.ZodMiniType | undefined>, onSuccess: OnSuccess<T>, timeBody = true): Promise<T> {
    this.throwIfClosed();
    // A backstop: every public method checks its options first, with its own context.
    assertOptions(`${spec.method} ${spec.path}`, spec.options, REQUEST_RULES);
    const options = spec.options ?? {};
    const policy = retryPolicy(this.#config.retry, options.retry);
    const idempotent = spec.idempotent ?? spec.method !== 'POST';
    const perAttempt = options.timeout ?? this.#config.timeout ?? HTTP_DEFAULTS.timeout;
    const total = options.totalTimeout ?? this.#config.totalTimeout ?? HTTP_DEFAULTS.totalTimeout;
    const started = Date.now();
    const deadlineAt = started + total;
    const operation = () => `${spec.method} ${redactUrl(this.#urlOf(spec))}`;
    for (let attempt = 1; ; attempt++) {
      if (options.signal?.aborted) throw options.signal.reason;
      const remaining = deadlineAt - Date.now();
      if (remaining <= 0) throw new TimeoutError(operation(), total);
      const timeout = remaining < perAttempt ? { ms: remaining, reported: total } : { ms: perAttempt, reported: perAttempt };
      const stream = timeBody ? undefined : { idleMs: perAttempt, deadlineMs: remaining, totalMs: total };
      const outcome = await this.#attempt(spec, attempt, timeout, options.signal, onSuccess, stream);
      if (outcome.ok) return outcome.value;
      const error = outcome.error;
      const deadlineHit = error instanceof TimeoutError && timeout.ms !== perAttempt;
      const retryable = idempotent && policy !== false && attempt <= policy.limit && !deadlineHit && this.#isRetryable(error);
      const delay = retryable && policy ? retryDelay(error, attempt, policy) : undefined;
      const withinBudget = policy !== false && delay !== undefined && Date.now() - started + delay <= policy.budgetMs;
      this.#emitResponse(spec, outcome, attempt, withinBudget ? delay : undefined);
      if (!retryable || !withinBudget || delay === undefined) throw error;
      if (Date.now() + delay >= deadlineAt) throw new TimeoutError(operation(), total, error);
      await sleep(delay, options.signal);
    }
  }

  async #attempt<T>(spec: RequestSpec<z.ZodMiniType | undefined>, attempt: number, timeout: { ms: number; reported: number }, caller: AbortSignal | undefined, onSuccess: OnSuccess<T>, stream: { idleMs: number; deadlineMs: number; totalMs: number } | undefined): Promise<Attempt<T>> {
    // One controller per attempt, linked to the caller's signal and the client's life by
    // listeners (removed when the attempt ends). Every wait below races this signal itself
    // (guard.ts): the fetch implementation's own abort propagation can be lost to a GC.
    const controller = new AbortController();
    let url = this.#urlOf(spec);
    const timer = setTimeout(() => controller.abort(new TimeoutError(`${spec.method} ${redactUrl(url)}`, timeout.reported)), timeout.ms);
    const onAbort = () => controller.abort(caller?.reason);
    const onClose = () => controller.abort(this.#life.signal.reason);
    const life = spec.finishOnClose ? undefined : this.#life.signal;
    caller?.addEventListener('abort', onAbort, { once: true });
    life?.addEventListener('abort', onClose, { once: true });
    const signal = controller.signal;
    const startedAt = Date.now();
    const secrets: string[] = [...(spec.secrets ?? [])];
    let response: Response | undefined;
    let streaming = false;
    try {
      let method: string = spec.method;
      let body: RequestBody | undefined = spec.json !== undefined ? JSON.stringify(spec.json) : spec.body;
      for (let hop = 0; ; hop++) {
        // An anonymous call (a signed URL) carries no credential, whatever its origin.
        const sameOrigin = !spec.anonymous && new URL(url).origin === this.#origin;
        const auth = sameOrigin ? await this.#auth() : undefined;
        if (auth) secrets.push(auth.secret);
        const headers = this.#headers(spec, auth, body !== undefined, sameOrigin);
        for (const [name, value] of Object.entries(headers)) if (SECRET_HEADERS.has(name.toLowerCase())) secrets.push(...headerSecrets(value));
        this.#emit(() => this.#config.onRequest?.({ method, url: redactUrl(url), headers: redactHeaders(headers), attempt }));
        const sent = this.#ky(url, { method, headers, body: body ?? null, signal, redirect: spec.streamBody ? 'error' : 'manual' });
        response = await raceSignal(sent, signal, discard);
        const location = response.headers.get('location');
        if (!isRedirect(response.status) || !location) break;
        discard(response);
        if (hop >= MAX_REDIRECTS) {
          throw new GraphcloudError(`${spec.method} ${redactUrl(this.#urlOf(spec))} was redirected more than ${MAX_REDIRECTS} times (a redirect loop?); last hop ${redactUrl(url)}`);
        }
        const next = new URL(location, url).toString();
        // Fetch's rules: 303 turns any method but GET/HEAD into a GET, and 301/302 turn a POST into
        // one, dropping the body; 307/308 repeat the same method with the same body.
        if (response.status === 303 ? method !== 'GET' && method !== 'HEAD' : method === 'POST' && response.status <= 302) {
          method = 'GET';
          body = undefined;
        } else if (body !== undefined && new URL(next).origin !== new URL(url).origin) {
          // A body can carry secrets (a partner key in a workflow); it never travels to another host.
          throw new GraphcloudError(`${spec.method} ${redactUrl(url)} answered ${response.status} to another origin (${redactUrl(next)}); the SDK does not send a request body to another host`);
        }
        url = next;
      }
      if (response.type === 'opaqueredirect') {
        // Browsers hide the target of a redirect from code: the cloud's output files (a 302 to a
        // signed URL on another host) need the relay there (docs/wire-protocol.md#redirects-and-credentials).
        throw new GraphcloudError(`${spec.method} ${redactUrl(url)} redirected, and a browser hides redirect targets, so the SDK will not follow it with credentials; in a browser, get cloud output files through the relay of graphcloud/server (no key in the page; see docs/browser.md)`);
      }
      // A server can echo a credential anywhere, its request id header included.
      const requestId = scrubSecrets(readRequestId(response.headers), secrets);
      if (!response.ok) {
        const body = redactFields(scrubSecrets(await readBody(response, signal), secrets), spec.secretFields ?? []);
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        const raw = createApiError({ status: response.status, method: spec.method, url: redactUrl(url), body, requestId, retryAfterMs });
        const error = this.#config.mapError?.(raw) ?? raw;
        return { ok: false, error, status: response.status, requestId, startedAt };
      }
      if (stream) {
        // A raw response streams after this returns: its own guard bounds it (an idle timeout and
        // the total deadline), follows the caller's signal and the client's life until the body
        // is read, cancelled or broken, and then lets go of them (no listener piles up).
        streaming = true;
        clearTimeout(timer);
        const operation = `${spec.method} ${redactUrl(url)}`;
        response = guardStream(response, {
          signals: [caller, life],
          idleMs: stream.idleMs,
          deadlineMs: stream.deadlineMs,
          timeoutError: (ms) => new TimeoutError(operation, ms === stream.deadlineMs ? stream.totalMs : ms),
          onDone: () => {
            caller?.removeEventListener('abort', onAbort);
            life?.removeEventListener('abort', onClose);
          },
        });
      }
      const value = await onSuccess(response, url, secrets, signal);
      this.#emit(() => this.#config.onResponse?.({ method: spec.method, url: redactUrl(url), status: response?.status ?? 0, attempt, durationMs: Date.now() - startedAt, requestId }));
      return { ok: true, value };
    } catch (cause) {
      if (caller?.aborted) throw caller.reason;
      if (life?.aborted) throw life.reason;
      if (cause instanceof GraphcloudError && !(cause instanceof TimeoutError)) {
        if (response) this.#emit(() => this.#config.onResponse?.({ method: spec.method, url: redactUrl(url), status: response?.status ?? 0, attempt, durationMs: Date.now() - startedAt, error: `${cause.name}: ${cause.message}` }));
        throw cause;
      }
      const error = signal.aborted ? (signal.reason as TimeoutError) : new ConnectionError(spec.method, redactUrl(url), sanitizeCause(cause, secrets), response?.status);
      return { ok: false, error, status: response?.status ?? 0, startedAt };
    } finally {
      clearTimeout(timer);
      if (!streaming) {
        caller?.removeEventListener('abort', onAbort);
        life?.removeEventListener('abort', onClose);
      }
    }
  }

  #urlOf(spec: RequestSpec<z.ZodMiniType | undefined>): string {
    // An absolute URL (a signed file URL) is used exactly as given, its own query kept.
    if (/^https?:\/\//i.test(spec.path)) return appendQuery(new URL(spec.path), spec.query).toString();
    return buildUrl(this.baseUrl, spec.path, spec.query).toString();
  }

  async #auth(): Promise<AuthHeader | undefined> {
    const auth = this.#config.auth;
    if (!auth) return undefined;
    try {
      return await resolveAuth(auth.scheme, auth.credential);
    } catch (cause) {
      if (cause instanceof GraphcloudError) throw cause;
      // The caller's credential function failed: nothing was sent, and retrying would not help.
      throw new GraphcloudError(`The credential function failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    }
  }

  #headers(spec: RequestSpec<z.ZodMiniType | undefined>, auth: AuthHeader | undefined, hasBody: boolean, sameOrigin: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [name, value] of [...Object.entries(this.#config.headers ?? {}), ...Object.entries(spec.options?.headers ?? {})]) {
      // Credential headers the caller set follow the same rule as the client's own: its origin only.
      if (sameOrigin || !SECRET_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
    if (spec.json !== undefined && hasBody) headers['content-type'] = 'application/json';
    if (auth) headers[auth.name] = auth.value;
    return headers;
  }

  #isRetryable(error: GraphcloudError): boolean {
    return isTransientError(error, this.#config.isRetryableStatus ?? isTransientStatus);
  }

  #emitResponse(spec: RequestSpec<z.ZodMiniType | undefined>, outcome: Attempt<unknown> & { ok: false }, attempt: number, retryInMs: number | undefined): void {
    const error = outcome.error;
    const url = 'url' in error && typeof error.url === 'string' ? error.url : redactUrl(this.#urlOf(spec));
    this.#emit(() => this.#config.onResponse?.({ method: spec.method, url, status: outcome.status, attempt, durationMs: Date.now() - outcome.startedAt, requestId: outcome.requestId, error: `${error.name}: ${error.message}`, retryInMs }));
  }

  #emit(call: () => unknown): void {
    // Hooks observe; a failing logger must never fail (or repeat) a paid request.
    callSafely(call);
  }

  /** Hides the base URL's secrets and the client's internals from `util.inspect`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `HttpClient { baseUrl: '${redactUrl(this.baseUrl)}' }`;
  }
}

type Attempt<T> = { ok: true; value: T } | { ok: false; error: GraphcloudError; status: number; requestId?: string | undefined; startedAt: number };

function retryPolicy(client: Partial<RetryPolicy> | false | undefined, call: Partial<RetryPolicy> | false | undefined): RetryPolicy | false {
  if (client === false || call === false) return false;
  return { ...HTTP_DEFAULTS.retry, ...client, ...call };
}

function retryDelay(error: GraphcloudError, attempt: number, policy: RetryPolicy): number {
  const retryAfter = (error as ApiError).retryAfterMs;
  return typeof retryAfter === 'number' ? retryAfter : backoffDelay(attempt, policy);
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function readRequestId(headers: Headers): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers.get(name);
    if (value) return value;
  }
  return undefined;
}

/** Reads a body as JSON when it parses, as text otherwise, `undefined` when empty; bounded by `signal`. */
export async function readBody(response: Response, signal: AbortSignal): Promise<unknown> {
  const text = await readText(response, signal);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// The runtime's error, with credentials scrubbed from its text and its code kept (it tells a
// refused connection, certainly not sent, from one that broke later).
function sanitizeCause(cause: unknown, secrets: string[]): Error {
  // The whole chain, outermost first: the innermost reason ("connect ECONNREFUSED ...", "bad
  // port", a certificate's) is usually the useful one, and Node's fetch puts it two causes down.
  let message = '';
  let link = cause;
  for (let depth = 0; depth < 5 && link !== undefined && link !== null; depth++) {
    const text = link instanceof Error ? link.message : String(link);
    if (!message.includes(text)) message += message ? `: ${text}` : text;
    link = link instanceof Error ? link.cause : undefined;
  }
  const code = errorCode(cause);
  return Object.assign(new Error(scrubSecrets(message, secrets)), code ? { code } : {});
}

/** Cancels a response nobody will read, freeing its connection. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

/** The secret parts of a credential header value: the whole value and the token after a scheme. */
function headerSecrets(value: string): string[] {
  const token = value.replace(/^(bearer|basic|token)\s+/i, '');
  return token === value ? [value] : [value, token];
}

type OnSuccess<T> = (response: Response, url: string, secrets: string[], signal: AbortSignal) => Promise<T>;

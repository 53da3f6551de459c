import ky, { NetworkError, TimeoutError as KyTimeoutError } from 'ky';
import type * as z from 'zod/mini';
import { createApiError, type ApiError } from './api-errors.js';
import { ClientClosedError, ConnectionError, GraphcloudError, TimeoutError } from './errors.js';
import { guardStream, parseBody, parseResponse, raceSignal, readRequestId, readText } from './response.js';
import { assertOptions, callSafely, REQUEST_RULES } from './check.js';
import { HTTP_DEFAULTS, type ClientOptions, type RequestOptions, type RetryPolicy } from './options.js';
import { headerSecrets, redactFields, redactHeaders, redactUrl, scrubCause, scrubSecrets, SECRET_HEADERS, SecretSet } from './redact.js';
import { backoffDelay, follow, isTransientError, isTransientStatus, MAX_TIMER_MS, parseRetryAfter } from './wait.js';
import { appendQuery, buildUrl, resolveAuth, resolveBaseUrl, type AuthHeader, type AuthScheme, type Credential, type QueryValue } from './request.js';

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
  /**
   * Any other body (a `FormData` gets its multipart content type from fetch), or a function that
   * makes it for each attempt: a stream can be sent once, so a retried stream is made anew.
   */
  body?: RequestBody | (() => RequestBody) | undefined;
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

/** One call through ky: what its attempts share and what the last one found. */
class Call {
  readonly started = Date.now();
  attempt = 0;
  attemptStartedAt = 0;
  /** The attempt's time limit was cut short by the total deadline: its timeout is not retried. */
  deadlineBound = false;
  /** The last attempt whose outcome `onResponse` has reported. */
  reported = 0;
  /** The delay the retry rule chose, which ky then waits (abortably). */
  nextDelay = 0;
  /** The first hop's URL, and the last hop's once an attempt followed redirects. */
  url: string;
  status = 0;
  requestId: string | undefined;
  /** The success body, read inside the attempt (so its timeout and retries cover it). */
  text = '';

  constructor(
    readonly spec: RequestSpec<z.ZodMiniType | undefined>,
    /** The success response is returned unread (downloads), under its own guard. */
    readonly raw: boolean,
    /** Aborts with the caller's signal and, unless the call finishes on close, the client's life. */
    readonly signal: AbortSignal,
    readonly policy: RetryPolicy,
    readonly perAttempt: number,
    readonly total: number,
    readonly secrets: string[],
    readonly firstUrl: string,
  ) {
    this.url = firstUrl;
  }
}

/**
 * The shared fetch core: the only code that calls ky. ky runs each call: the retries (the SDK's
 * rule in `shouldRetry` decides which failure is worth another try and how long ky waits), the
 * per-attempt and total timeouts, the abortable waits between attempts, the credential put on
 * each attempt (`beforeRequest`, `beforeRetry`) and the mapping of what fails to the SDK's
 * scrubbed errors (`beforeError`). Ours, because ky has no way to say them (docs/architecture.md):
 * credentials kept to the client's own origin across redirects (followed by hand), bodies read
 * within a byte bound inside the attempt, a streamed upload never teed to be replayed, `notSent`,
 * a paid POST that finishes after `close()`, and the clock budget of retries.
 */
export class HttpClient {
  readonly baseUrl: string;
  readonly #origin: string;
  readonly #config: HttpClientConfig;
  readonly #life = new AbortController();
  /** Every secret this client was given or sent: what it reports is scrubbed of all of them. */
  readonly #secrets = new SecretSet();
  readonly #fetch: typeof fetch;

  constructor(config: HttpClientConfig) {
    // A path (a relay on the page's own server) is resolved against the page, in a browser only.
    const baseUrl = resolveBaseUrl(config.baseUrl);
    if (baseUrl === undefined) {
      throw new GraphcloudError(`baseUrl must be an absolute URL such as https://api.example.com, received ${JSON.stringify(redactUrl(String(config.baseUrl)))}`);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#origin = new URL(baseUrl).origin;
    this.#config = config;
    // Looked up per call, as fetch itself would be: a test or an app may replace globalThis.fetch.
    this.#fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
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

  /**
   * The value (a string, or a JSON-like value at any depth, keys included) with every secret this
   * client was given replaced by `[REDACTED]`: its credentials so far and every secret its calls
   * carried. The one scrubber of what a server sends outside a request's own answer (socket
   * frames, job records); see docs/errors.md#secrets-in-errors.
   */
  scrub<T>(value: T): T {
    return this.#secrets.scrub(value);
  }

  /** Sends the call and returns its validated body. */
  async request<S extends z.ZodMiniType>(spec: RequestSpec<S> & { schema: S }): Promise<z.infer<S>>;
  async request(spec: RequestSpec): Promise<undefined>;
  async request(spec: RequestSpec<z.ZodMiniType | undefined>): Promise<unknown> {
    const { call } = await this.#run(spec, false);
    if (!spec.schema) return undefined;
    // ky's `.json(schema)` would read the body again, without a byte bound: the text read inside
    // the attempt is parsed and checked here, with the same zod schema.
    const read = parseBody(call.text);
    const body = spec.scrubAnswer ? scrubSecrets(read, call.secrets, ANSWER_SECRET_MIN_LENGTH) : read;
    return parseResponse(spec.schema, body, spec.method, call.url, call.secrets, spec.secretFields);
  }

  /**
   * Sends the call and returns the successful `Response` unread (for downloads and streams). Its
   * body fails with a `TimeoutError` when no byte arrives for `timeout` or past `totalTimeout`, and
   * with the caller's reason on abort.
   */
  async requestRaw(spec: RequestSpec): Promise<Response> {
    return (await this.#run(spec, true)).response;
  }

  async #run(spec: RequestSpec<z.ZodMiniType | undefined>, raw: boolean): Promise<{ call: Call; response: Response }> {
    this.throwIfClosed();
    // A backstop: every public method checks its options first, with its own context.
    assertOptions(`${spec.method} ${spec.path}`, spec.options, REQUEST_RULES);
    const options = spec.options ?? {};
    const caller = options.signal;
    if (caller?.aborted) throw caller.reason;
    const { retry } = this.#config;
    const policy: RetryPolicy = { ...HTTP_DEFAULTS.retry, ...retry, ...options.retry };
    const idempotent = spec.idempotent ?? spec.method !== 'POST';
    // One controller per call, linked to the caller's signal and the client's life by listeners
    // (removed when the call ends, or when a streamed body is done); every wait of an attempt
    // races it (response.ts).
    const controller = new AbortController();
    const life = spec.finishOnClose ? undefined : this.#life.signal;
    const release = follow(controller, [caller, life]);
    this.#secrets.add(...(spec.secrets ?? []));
    // An absolute URL (a signed file URL) is used exactly as given, its own query kept.
    const absolute = /^https?:\/\//i.test(spec.path);
    const url = (absolute ? appendQuery(new URL(spec.path), spec.query) : buildUrl(this.baseUrl, spec.path, spec.query)).toString();
    const sameOrigin = this.#sameOrigin(spec, url);
    const headers = this.#headers(spec, undefined, spec.json !== undefined || spec.body !== undefined, sameOrigin);
    const perAttempt = options.timeout ?? this.#config.timeout ?? HTTP_DEFAULTS.timeout;
    const total = options.totalTimeout ?? this.#config.totalTimeout ?? HTTP_DEFAULTS.totalTimeout;
    const call = new Call(spec, raw, controller.signal, policy, perAttempt, total, [...(spec.secrets ?? []), ...this.#secrets.list], url);
    let streaming = false;
    try {
      const authorize = async ({ request }: { request: Request }) => this.#authorize(call, request);
      // ky's own defaults otherwise: its fetch (the attempt below) never hands it a failed status.
      const response = await ky(url, {
        method: spec.method,
        headers,
        signal: call.signal,
        // ky refuses a timeout beyond the timer limit; the option rules allow up to it.
        timeout: Math.min(call.perAttempt, MAX_TIMER_MS),
        totalTimeout: Math.min(call.total, MAX_TIMER_MS),
        // The body travels in the attempt, never in ky's Request: ky clones that Request to replay
        // it, which tees (buffers) a streamed upload whole.
        fetch: async (request) => this.#attempt(call, request as Request),
        retry: {
          // No retry (`false`, a POST): ky then never asks `shouldRetry`.
          limit: retry === false || options.retry === false || !idempotent ? 0 : policy.limit,
          methods: [spec.method.toLowerCase()],
          shouldRetry: ({ error }) => this.#shouldRetry(call, error),
          delay: () => call.nextDelay,
        },
        hooks: { beforeRequest: [authorize], beforeRetry: [authorize], beforeError: [({ error }) => this.#sdkError(call, error)] },
      });
      if (raw) {
        // A raw response streams after this returns: its own guard bounds it (an idle timeout and
        // the total deadline), follows the caller's signal and the client's life until the body
        // is read, cancelled or broken, and then lets go of them (no listener piles up).
        streaming = true;
        const operation = `${spec.method} ${redactUrl(call.url)}`;
        const remaining = call.started + call.total - Date.now();
        const guarded = guardStream(response, {
          signals: [caller, life],
          idleMs: call.perAttempt,
          deadlineMs: remaining,
          timeoutError: (ms) => new TimeoutError(operation, ms === remaining ? call.total : ms),
          onDone: release,
        });
        return { call, response: guarded };
      }
      return { call, response };
    } catch (error) {
      if (caller?.aborted) throw caller.reason;
      if (life?.aborted) throw life.reason;
      const sdk = this.#sdkError(call, error);
      this.#report(call, sdk, undefined);
      throw sdk;
    } finally {
      if (!streaming) release();
    }
  }

  /** ky's `fetch`: one attempt, its redirects followed by hand, its body read within bounds. */
  async #attempt(call: Call, request: Request): Promise<Response> {
    call.attempt += 1;
    call.attemptStartedAt = Date.now();
    call.deadlineBound = call.started + call.total - call.attemptStartedAt < call.perAttempt;
    call.status = 0;
    call.requestId = undefined;
    call.url = call.firstUrl;
    // ky's signal (its per-attempt timeout) and the call's own, joined by listeners of ours (not
    // AbortSignal.any, whose derived signal a GC can drop mid-read): every wait below races it,
    // and the fetch is aborted with it.
    const joined = new AbortController();
    const unfollow = follow(joined, [call.signal, request.signal]);
    return this.#send(call, request.headers, joined.signal).finally(unfollow);
  }

  async #send(call: Call, firstHeaders: Headers, signal: AbortSignal): Promise<Response> {
    const { spec } = call;
    let url = call.url;
    let method: string = spec.method;
    let body: RequestBody | undefined = spec.json !== undefined ? JSON.stringify(spec.json) : typeof spec.body === 'function' ? spec.body() : spec.body;
    let headers: Headers | Record<string, string> = firstHeaders;
    let response: Response;
    for (let hop = 0; ; hop++) {
      if (hop > 0) {
        const sameOrigin = this.#sameOrigin(spec, url);
        const auth = sameOrigin ? await this.#auth() : undefined;
        if (auth) call.secrets.push(auth.secret);
        headers = this.#headers(spec, auth, body !== undefined, sameOrigin);
      }
      // Hooks observe; a failing logger must never fail (or repeat) a paid request.
      callSafely(() => this.#config.onRequest?.({ method, url: redactUrl(url), headers: redactHeaders(headers), attempt: call.attempt }));
      const init: RequestInit & { duplex?: 'half' } = { method, headers, body: body ?? null, signal, redirect: spec.streamBody ? 'error' : 'manual' };
      // Fetch requires it for a streamed body (and ignores it for others), as ky sets it.
      if (body !== undefined) init.duplex = 'half';
      response = await raceSignal(this.#fetch(url, init), signal, discard);
      call.status = response.status;
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location) break;
      discard(response);
      if (hop >= MAX_REDIRECTS) {
        throw new GraphcloudError(`${spec.method} ${redactUrl(call.firstUrl)} was redirected more than ${MAX_REDIRECTS} times (a redirect loop?); last hop ${redactUrl(url)}`);
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
      call.url = url;
    }
    if (response.type === 'opaqueredirect') {
      // Browsers hide the target of a redirect from code: the cloud's output files (a 302 to a
      // signed URL on another host) need the relay there (docs/wire-protocol.md#redirects-and-credentials).
      throw new GraphcloudError(`${spec.method} ${redactUrl(url)} redirected, and a browser hides redirect targets, so the SDK will not follow it with credentials; in a browser, get cloud output files through the relay of graphcloud/server (no key in the page; see docs/browser.md)`);
    }
    // A server can echo a credential anywhere, its request id header included.
    call.requestId = scrubSecrets(readRequestId(response.headers), call.secrets);
    if (!response.ok) {
      const answer = redactFields(scrubSecrets(parseBody(await readText(response, signal)), call.secrets), spec.secretFields ?? []);
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      const error = createApiError({ status: response.status, method: spec.method, url: redactUrl(url), body: answer, requestId: call.requestId, retryAfterMs });
      throw this.#config.mapError?.(error) ?? error;
    }
    // Read whole inside the attempt: its timeout and retries cover the body, within the byte
    // bound. ky is handed the response read; it does not read it again.
    if (!call.raw) call.text = await readText(response, signal);
    this.#report(call, undefined, undefined);
    return response;
  }

  /** ky's `shouldRetry`: the SDK's rule, its clock budget and deadline; the chosen delay is ky's to wait. */
  #shouldRetry(call: Call, cause: unknown): boolean {
    if (call.signal.aborted) return false;
    const error = this.#sdkError(call, cause);
    const { policy } = call;
    const retryAfter = (error as ApiError).retryAfterMs;
    const delay = typeof retryAfter === 'number' ? retryAfter : backoffDelay(call.attempt, policy);
    const now = Date.now();
    const transient = !(error instanceof TimeoutError && call.deadlineBound) && isTransientError(error, this.#config.isRetryableStatus ?? isTransientStatus);
    if (!transient || now - call.started + delay > policy.budgetMs) {
      this.#report(call, error, undefined);
      return false;
    }
    this.#report(call, error, delay);
    if (now + delay >= call.started + call.total) throw new TimeoutError(`${call.spec.method} ${redactUrl(call.url)}`, call.total, error);
    call.nextDelay = delay;
    return true;
  }

  /** ky's `beforeRequest` and `beforeRetry`: the credential, resolved per attempt, on the client's own origin only. */
  async #authorize(call: Call, request: Request): Promise<void> {
    const auth = this.#sameOrigin(call.spec, call.firstUrl) ? await this.#auth() : undefined;
    if (!auth) return;
    request.headers.set(auth.name, auth.value);
    call.secrets.push(auth.secret);
  }

  /**
   * ky's `beforeError`, and the mapping of every failure: the SDK's own errors pass, ky's timeout
   * becomes a `TimeoutError`, anything else the runtime threw a `ConnectionError` whose text is
   * scrubbed of every credential the request carried.
   */
  #sdkError(call: Call, error: unknown): GraphcloudError {
    if (error instanceof GraphcloudError) return error;
    const operation = `${call.spec.method} ${redactUrl(call.url)}`;
    if (error instanceof KyTimeoutError) {
      return new TimeoutError(operation, call.deadlineBound || Date.now() - call.started >= call.total ? call.total : call.perAttempt);
    }
    const cause = error instanceof NetworkError ? error.cause : error;
    return new ConnectionError(call.spec.method, redactUrl(call.url), scrubCause(cause, call.secrets), call.status || undefined);
  }

  /** Tells `onResponse` how an attempt ended, once per attempt: an error, or success without one. */
  #report(call: Call, error: GraphcloudError | undefined, retryInMs: number | undefined): void {
    if (call.reported >= call.attempt) return;
    call.reported = call.attempt;
    const onResponse = this.#config.onResponse;
    if (!onResponse) return;
    const url = error && 'url' in error && typeof error.url === 'string' ? error.url : redactUrl(call.url);
    const outcome = error ? { error: `${error.name}: ${error.message}`, retryInMs } : {};
    const { spec, attempt, status, requestId } = call;
    const durationMs = Date.now() - call.attemptStartedAt;
    callSafely(onResponse, { method: spec.method, url, status, attempt, durationMs, requestId, ...outcome });
  }

  #sameOrigin(spec: RequestSpec<z.ZodMiniType | undefined>, url: string): boolean {
    // An anonymous call (a signed URL) carries no credential, whatever its origin.
    return !spec.anonymous && new URL(url).origin === this.#origin;
  }

  async #auth(): Promise<AuthHeader | undefined> {
    const auth = this.#config.auth;
    if (!auth) return undefined;
    try {
      const resolved = await resolveAuth(auth.scheme, auth.credential);
      this.#secrets.add(resolved.secret);
      return resolved;
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
      if (SECRET_HEADERS.has(name.toLowerCase())) this.#secrets.add(...headerSecrets(value));
    }
    if (spec.json !== undefined && hasBody) headers['content-type'] = 'application/json';
    if (auth) headers[auth.name] = auth.value;
    return headers;
  }

  /** Hides the base URL's secrets and the client's internals from `util.inspect`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `HttpClient { baseUrl: '${redactUrl(this.baseUrl)}' }`;
  }
}

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Cancels a response nobody will read, freeing its connection. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

// The one options vocabulary of the SDK. Every client, every call and every wait spells the same
// thing the same way; `docs/options.md` and the README's options table list them. The defaults of
// the HTTP options (`HTTP_DEFAULTS`) close the file.
//
//   timeout       per-attempt HTTP timeout (connect, headers and body), everywhere
//   totalTimeout  one HTTP call, across its attempts and backoff sleeps
//   waitTimeout   a whole wait (a job, a task), across every poll
//   signal        aborts anything; the call rejects with `signal.reason`
//   retry         retry policy of idempotent requests (POST is never retried)
//   poll          the backoff between status reads of a wait

/**
 * A growing delay with jitter: each delay is drawn between half and all of
 * `min(maxDelayMs, minDelayMs * growFactor^(n-1))`. Retries, socket reconnects and status polls
 * all use this shape and the same formula (`backoffDelay`).
 *
 * @example
 * ```ts
 * const poll: Backoff = { minDelayMs: 1_000, maxDelayMs: 18_000, growFactor: 2 };
 * ```
 */
export interface Backoff {
  /** First delay in ms. */
  minDelayMs: number;
  /** Cap of one delay in ms. */
  maxDelayMs: number;
  /** Growth of the delay per step (at least 1). */
  growFactor: number;
}

/**
 * Retry policy of idempotent requests (GET, PUT, DELETE). POST is never retried, whatever this says.
 *
 * @example
 * ```ts
 * new RegistryClient({ baseUrl, retry: { limit: 4, budgetMs: 60_000 } });
 * ```
 */
export interface RetryPolicy extends Backoff {
  /**
   * Retries after the first attempt.
   * @default 2 (`DEFAULTS.http.retry.limit`)
   */
  limit: number;
  /**
   * Clock budget in ms for one call's retries: a retry whose backoff would end past it is not made.
   * @default 30_000
   */
  budgetMs: number;
}

/**
 * What `onRequest` receives: credentials already redacted.
 *
 * @example
 * ```ts
 * new ProxyClient({ baseUrl, token, onRequest: (e: RequestEvent) => log.debug(e.method, e.url, e.attempt) });
 * ```
 */
export interface RequestEvent {
  /** The HTTP method (`GET`, `POST`...). */
  method: string;
  /** Redacted URL. */
  url: string;
  /** Redacted headers (credential headers read `[REDACTED]`). */
  headers: Record<string, string>;
  /** 1 for the first attempt. */
  attempt: number;
}

/**
 * What `onResponse` receives after each attempt, successful or not.
 *
 * @example
 * ```ts
 * new RegistryClient({ baseUrl, onResponse: (e: ResponseEvent) => e.error && log.warn(e.status, e.error, e.retryInMs) });
 * ```
 */
export interface ResponseEvent {
  /** The HTTP method (`GET`, `POST`...). */
  method: string;
  /** Redacted URL. */
  url: string;
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  /** Which attempt this was: 1 for the first, 2 for the first retry... */
  attempt: number;
  /** Time the attempt took, from sending the request until its answer was read or it failed, in ms. */
  durationMs: number;
  /** The request id the server sent back (`x-request-id` and similar headers), when it sent one. */
  requestId?: string | undefined;
  /** Error name and message when the attempt failed (redacted). */
  error?: string | undefined;
  /** Delay before the next attempt, when one will be made. */
  retryInMs?: number | undefined;
}

/**
 * Options of a single HTTP call; every public method that sends a request accepts them.
 *
 * @example
 * ```ts
 * await registry.nodes.get('acme-upscale', { signal: AbortSignal.timeout(5_000), retry: false, headers: { 'x-trace': id } });
 * ```
 */
export interface RequestOptions {
  /** Aborts the call, including any backoff sleep; the call rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /**
   * Per-attempt timeout in ms: connect, headers and the whole body. Overrides the client's.
   * @default 60_000 (`DEFAULTS.http.timeout`)
   */
  timeout?: number | undefined;
  /**
   * Deadline of the whole call in ms, across attempts and backoff sleeps. Overrides the client's.
   * @default 180_000 (`DEFAULTS.http.totalTimeout`)
   */
  totalTimeout?: number | undefined;
  /** Retry policy for this call (merged over the client's), or `false`. POST is never retried. */
  retry?: Partial<RetryPolicy> | false | undefined;
  /** Extra headers for this call. Credential headers are sent to the client's own origin only. */
  headers?: Record<string, string> | undefined;
}

/**
 * Options every client constructor accepts (each client adds its credential option).
 *
 * @example
 * ```ts
 * const options: ClientOptions = { baseUrl: 'https://api.example.com', timeout: 30_000, retry: { limit: 3 } };
 * new RegistryClient(options);
 * ```
 */
export interface ClientOptions {
  /**
   * Base URL of the API, e.g. `https://api.example.com`. Credentials are sent to this origin only.
   * In a browser page, also a path of the page's own server, such as `/api/graphcloud` (a relay of
   * `graphcloud/server`, which keeps the key on the server; see docs/browser.md).
   * @example 'http://127.0.0.1:8787'
   */
  baseUrl: string;
  /**
   * The fetch implementation (for proxies, instrumentation or older runtimes).
   * @default globalThis.fetch
   */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Per-attempt timeout in ms of every request.
   * @default 60_000 (`DEFAULTS.http.timeout`)
   */
  timeout?: number | undefined;
  /**
   * Deadline of one call in ms, across attempts and backoff sleeps.
   * @default 180_000 (`DEFAULTS.http.totalTimeout`)
   */
  totalTimeout?: number | undefined;
  /**
   * Retry policy of idempotent requests, or `false` to never retry.
   * @default DEFAULTS.http.retry
   */
  retry?: Partial<RetryPolicy> | false | undefined;
  /** Extra headers sent with every request. Credential headers go to `baseUrl`'s origin only. */
  headers?: Record<string, string> | undefined;
  /**
   * Called before every attempt, with redacted data. What it throws or rejects with is ignored.
   * @example onRequest: (e) => console.log(e.method, e.url)
   */
  onRequest?: ((event: RequestEvent) => unknown) | undefined;
  /**
   * Called after every attempt, with redacted data. What it throws or rejects with is ignored.
   * @example onResponse: (e) => metrics.observe(e.url, e.durationMs)
   */
  onResponse?: ((event: ResponseEvent) => unknown) | undefined;
}

/**
 * Options of a wait (a cloud job, a media task): how long, how often, and how to stop it.
 *
 * @example
 * ```ts
 * await proxy.waitForTask(task, { waitTimeout: 10 * 60_000, poll: { maxDelayMs: 10_000 } });
 * ```
 */
export interface WaitOptions {
  /** Stops waiting (the job or task itself goes on); the wait rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /**
   * Deadline of the whole wait in ms, or `false` for none. Time spent on failed status reads
   * counts. The wait then rejects with a `TimeoutError` carrying the job or task as `submitted`.
   */
  waitTimeout?: number | false | undefined;
  /** Delays between status reads, merged over the client's. */
  poll?: Partial<Backoff> | undefined;
}

/**
 * The HTTP policies every client shares. Frozen; the README's options table refers to it.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from 'graphcloud';
 * console.log(DEFAULTS.http.retry.limit); // 2
 * ```
 */
export const HTTP_DEFAULTS = Object.freeze({
  /** Per-attempt timeout in ms (connect, headers and body). */
  timeout: 60_000,
  /** Deadline of one call in ms, across attempts and backoff sleeps. */
  totalTimeout: 180_000,
  /** Retries of idempotent requests after a transient failure (a broken connection, a timeout, 408, 429, 5xx). */
  retry: Object.freeze({
    /** Retries after the first attempt (idempotent requests only; POST never). */
    limit: 2,
    /** Clock budget in ms for all retries of one call: no retry ends past it. */
    budgetMs: 30_000,
    /** First backoff delay in ms; grows by `growFactor` per retry, with jitter. */
    minDelayMs: 500,
    /** Cap of one backoff delay in ms. */
    maxDelayMs: 8_000,
    /** Growth of the backoff delay per retry. */
    growFactor: 2,
  }),
});

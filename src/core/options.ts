/**
 * Retry policy of idempotent requests. POST is never retried, whatever this says.
 * @example new RegistryClient({ baseUrl, retry: { limit: 4, budgetMs: 60_000 } });
 */
export interface RetryPolicy {
  /**
   * Retries after the first attempt.
   * @default 2 (`DEFAULTS.http.retry.limit`)
   */
  limit: number;
  /**
   * Clock budget in ms for one call's retries: a retry whose delay would end past it is not made.
   * @default 30_000
   */
  budgetMs: number;
  /**
   * First backoff delay in ms; doubles per retry with jitter (half to full delay).
   * @default 500
   */
  baseDelayMs: number;
  /**
   * Cap of a single backoff delay in ms.
   * @default 8_000
   */
  maxDelayMs: number;
}

/**
 * What `onRequest` receives: credentials already redacted.
 * @example new ProxyClient({ baseUrl, token, onRequest: (e: RequestEvent) => log.debug(e.method, e.url, e.attempt) });
 */
export interface RequestEvent {
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
 * @example new RegistryClient({ baseUrl, onResponse: (e: ResponseEvent) => e.error && log.warn(e.status, e.error, e.retryInMs) });
 */
export interface ResponseEvent {
  method: string;
  /** Redacted URL. */
  url: string;
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  attempt: number;
  durationMs: number;
  requestId?: string | undefined;
  /** Error name and message when the attempt failed (redacted). */
  error?: string | undefined;
  /** Delay before the next attempt, when one will be made. */
  retryInMs?: number | undefined;
}

/**
 * Options every client constructor accepts.
 * @example
 * ```ts
 * const options: ClientOptions = { baseUrl: 'https://api.example.com', timeout: 30_000, totalTimeout: 120_000, retry: { limit: 3 } };
 * new RegistryClient(options);
 * ```
 */
export interface ClientOptions {
  /**
   * Base URL of the API, e.g. `https://api.example.com`. Credentials are sent only to this origin.
   * @example 'http://127.0.0.1:8787'
   */
  baseUrl: string;
  /**
   * The fetch implementation (for proxies, instrumentation or older runtimes).
   * @default globalThis.fetch
   */
  fetch?: typeof globalThis.fetch;
  /**
   * Per-attempt timeout in ms.
   * @default 60_000 (`DEFAULTS.http.timeout`)
   */
  timeout?: number;
  /**
   * Overall deadline of one call in ms, across retries and backoff sleeps.
   * @default 180_000 (`DEFAULTS.http.totalTimeout`)
   */
  totalTimeout?: number;
  /**
   * Retry policy for idempotent requests, or `false` to never retry.
   * @default DEFAULTS.http.retry
   */
  retry?: Partial<RetryPolicy> | false;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Called before every attempt, with redacted data. Errors thrown by hooks are ignored.
   * @example onRequest: (e) => console.log(e.method, e.url)
   */
  onRequest?: (event: RequestEvent) => void;
  /**
   * Called after every attempt, with redacted data. Errors thrown by hooks are ignored.
   * @example onResponse: (e) => metrics.observe(e.url, e.durationMs)
   */
  onResponse?: (event: ResponseEvent) => void;
}

/**
 * Options of a single call; every public async method takes them last.
 * @example await registry.nodes.get('acme-upscale', { signal: AbortSignal.timeout(5_000), retry: false, headers: { 'x-trace': id } });
 */
export interface RequestOptions {
  /** Aborts the call, including any backoff sleep; the call rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms (overrides the client's). */
  timeout?: number | undefined;
  /** Overall deadline in ms (overrides the client's). */
  totalTimeout?: number | undefined;
  /** Retry policy for this call, or `false`. Ignored for POST, which is never retried. */
  retry?: Partial<RetryPolicy> | false | undefined;
  /** Extra headers for this call. */
  headers?: Record<string, string> | undefined;
}

import { GraphcloudError, redactUrl, scrubSecrets, type Credential } from '../core/index.js';
import type { RelayConfig } from './config.js';
import type { UpstreamName } from './routes.js';

/**
 * An upstream request that failed before its answer: no answer in time, or no connection.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof UpstreamFailure) return refuse(error.status, error.code, error.message); }
 * ```
 */
export class UpstreamFailure extends GraphcloudError {
  /** `'UpstreamFailure'`: the class, readable in logs and `JSON.stringify` (unlike `instanceof`). */
  override name = 'UpstreamFailure';
  readonly code: 'upstream_timeout' | 'upstream_unreachable';
  readonly status: number;

  constructor(code: UpstreamFailure['code'], message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.status = code === 'upstream_timeout' ? 504 : 502;
  }
}

/** One request to an upstream, or to an absolute URL (a signed file URL). */
export interface UpstreamCall {
  method: string;
  /** The upstream (whose credential is sent to its own origin only). */
  upstream?: UpstreamName | undefined;
  /** An encoded path with its query, below the upstream's base URL. */
  path?: string | undefined;
  /** An absolute URL instead of `path` (a redirect's target). */
  url?: string | undefined;
  /** Send the upstream's credential when the URL is on its origin. @default true */
  credential?: boolean | undefined;
  headers?: Record<string, string> | undefined;
  body?: Uint8Array<ArrayBuffer> | string | undefined;
  /** The browser's request: the upstream request stops when it goes away. */
  signal?: AbortSignal | undefined;
}

// Credentials remembered for scrubbing (a credential function may rotate its value).
const REMEMBERED = 16;

/**
 * The relay's only caller of `fetch`: adds the upstream's credential on the server, never follows
 * a redirect by itself (a hop to another host must not carry the key; see
 * docs/wire-protocol.md#redirects-and-credentials), bounds the wait for the answer and then every
 * pause of its body by `timeout`, and remembers the credentials it sent so answers can be scrubbed.
 *
 * @example
 * ```ts
 * const upstream = new UpstreamClient(config, life.signal);
 * const response = await upstream.send({ method: 'GET', upstream: 'cloud', path: '/api/object_info' });
 * ```
 */
export class UpstreamClient {
  readonly #config: RelayConfig;
  readonly #life: AbortSignal;
  readonly #secrets = new Set<string>();

  constructor(config: RelayConfig, life: AbortSignal) {
    this.#config = config;
    this.#life = life;
    for (const upstream of Object.values(config.upstreams)) {
      if (typeof upstream?.auth?.credential === 'string') this.#secrets.add(upstream.auth.credential);
    }
  }

  /**
   * Every credential the relay has sent or holds, for scrubbing answers: its own signing secrets
   * too (kept apart, so that no rotation of a credential pushes them out), should an upstream
   * hold and echo one.
   */
  get secrets(): string[] {
    return [...this.#config.secrets, ...this.#secrets];
  }

  /** The origin of an upstream. */
  origin(upstream: UpstreamName): string | undefined {
    const target = this.#config.upstreams[upstream];
    return target ? new URL(target.url).origin : undefined;
  }

  /** The platform key now (a function is called), or `undefined` without one. */
  async apiKey(): Promise<string | undefined> {
    return this.#config.apiKey === undefined ? undefined : this.#resolve(this.#config.apiKey);
  }

  /**
   * Sends one request; resolves with the answer (a redirect is returned, not followed), whose body
   * fails when it pauses longer than `timeout`.
   *
   * @throws `UpstreamFailure` no answer within `timeout`, or no connection.
   */
  async send(call: UpstreamCall): Promise<Response> {
    const target = call.upstream ? this.#config.upstreams[call.upstream] : undefined;
    const url = call.url ?? `${target?.url ?? ''}${call.path ?? ''}`;
    const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5', ...call.headers };
    // The credential goes to the upstream's own origin only, whatever the caller asks.
    const own = target !== undefined && new URL(url).origin === new URL(target.url).origin;
    if (target?.auth && own && call.credential !== false) {
      const secret = await this.#resolve(target.auth.credential);
      headers[target.auth.header] = target.auth.header === 'Authorization' ? `Bearer ${secret}` : secret;
    }
    const timeout = this.#config.timeout;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeout);
    const signals = [controller.signal, this.#life, ...(call.signal ? [call.signal] : [])];
    const described = `${call.method} ${redactUrl(url)}`;
    let response: Response;
    try {
      response = await this.#config.fetch(url, { method: call.method, headers, body: call.body ?? null, redirect: 'manual', signal: AbortSignal.any(signals) });
    } catch (cause) {
      clearTimeout(timer);
      if (controller.signal.aborted) throw new UpstreamFailure('upstream_timeout', `${described} gave no answer within ${timeout} ms (the relay's timeout option)`);
      const text = cause instanceof Error ? `${cause.message}${cause.cause instanceof Error ? `: ${cause.cause.message}` : ''}` : String(cause);
      throw new UpstreamFailure('upstream_unreachable', scrubSecrets(`${described} failed: ${text}`, this.secrets));
    }
    clearTimeout(timer);
    return guardBody(response, timeout, controller);
  }

  async #resolve(credential: Credential): Promise<string> {
    const secret = typeof credential === 'function' ? await credential() : credential;
    if (typeof secret !== 'string' || secret.trim() === '') throw new UpstreamFailure('upstream_unreachable', 'The relay has no usable credential: its apiKey (or token) function returned an empty value');
    if (!this.#secrets.has(secret)) {
      this.#secrets.add(secret);
      if (this.#secrets.size > REMEMBERED) this.#secrets.delete(this.#secrets.values().next().value as string);
    }
    return secret;
  }
}

// Statuses whose answer has no body, which `new Response()` refuses one for.
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * The same answer, whose body errors when a chunk is awaited longer than `idleMs` (the request is
 * then aborted). The clock runs only while a chunk is awaited: a slow reader is not a slow upstream.
 */
function guardBody(response: Response, idleMs: number, controller: AbortController): Response {
  if (!response.body || NULL_BODY.has(response.status)) return response;
  const reader = response.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async pull(out) {
      timer = setTimeout(() => controller.abort(), idleMs);
      try {
        const { done, value } = await reader.read();
        if (done) out.close();
        else out.enqueue(value);
      } catch (error) {
        out.error(controller.signal.aborted ? new UpstreamFailure('upstream_timeout', `The upstream answer paused longer than ${idleMs} ms (the relay's timeout option)`) : error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
}
